/*
 * scheduler.cuh: which output tiles a CTA computes, in what order, and how
 * the last round's tiles are split (the stream-K tail of tiling.h, which
 * V6 introduced): where a piece leaves its partial, and how the last piece
 * of a tile gathers them.
 *
 * A scheduling unit is a cluster's output block, UNIT_M x UNIT_N. Units are
 * walked in tiling.h's grouped order (bands of RASTER_GROUP units along n),
 * unit = cluster_id, += clusters; the CTA of rank r takes the tile at
 * (r % CM, r / CM) inside the unit.
 */
#pragma once

#include "config.cuh"

template <class Cfg> struct hg_fam_sched {
    int64_t m_units, n_units; /* the units' grid */

    /* The CTA's tile offsets in unit `unit`. */
    __device__ __forceinline__ void tile_offsets(int64_t unit, uint32_t rank, int64_t *offset_m,
                                                 int64_t *offset_n) const
    {
        int64_t um, un;
        hg_raster_tile(unit, m_units, n_units, Cfg::RASTER_GROUP, &um, &un);
        *offset_m = um * Cfg::UNIT_M + (int64_t)(rank % Cfg::CM) * Cfg::BM;
        *offset_n = un * Cfg::UNIT_N + (int64_t)(rank / Cfg::CM) * Cfg::BN;
    }

    /* The walk's next piece (tiling.h: whole tiles, then the tail's) and
     * the CTA's tile offsets in it; false when none is left. Both roles walk
     * the same list. */
    __device__ __forceinline__ bool next(const hg_sk_plan &plan, hg_sk_cursor *walk, hg_sk_piece *pc, uint32_t rank,
                                         int64_t *offset_m, int64_t *offset_n) const
    {
        if (!hg_sk_next(&plan, walk, pc)) return false;
        tile_offsets(pc->tile, rank, offset_m, offset_n);
        return true;
    }
};

/* A TMA coordinate. Every coordinate the kernel passes is below 2^31 by the
 * size limits (m, n, k <= 2^31 - 1) except a tile's pieces past the last
 * block (offset + piece can pass 2^31 - 1 when m or n is near it); those rows
 * lie wholly beyond the tensor, where any out-of-bounds coordinate gives the
 * same zeros, and clamping keeps them from wrapping to negative ones. */
static __device__ __forceinline__ int32_t hg_fam_coord(int64_t v)
{
    return v > (int64_t)INT32_MAX ? INT32_MAX : (int32_t)v;
}

/* Where consumer `wg` of rank `rank` of worker (cluster) `worker` leaves the
 * partial of its piece number `slot` (0: the piece that starts the worker's
 * tail range, 1: a piece that starts a tile inside it). Fragment order:
 * float4 number i of thread t at (i * WG_THREADS + t) * 4, so each store and
 * load is fully coalesced; only the same thread mapping reads it back. */
template <class Cfg>
static __device__ __forceinline__ float4 *hg_fam_sk_partial(float *ws, int64_t worker, uint32_t rank, int slot, int wg)
{
    const int64_t group = ((worker * Cfg::CLUSTER + rank) * Cfg::SK_SLOTS + slot) * Cfg::CONSUMERS + wg;
    return (float4 *)(ws + group * (int64_t)Cfg::SK_GROUP_FLOATS);
}

/* After a consumer finished its piece of a tail tile: leave the partial,
 * count it, and if this is the tile's last piece to finish, sum every
 * piece's partial, in k order, into acc and return true (the caller then
 * writes C as for a whole tile); else return false. No piece waits for
 * another, so nothing can hang on a worker that is not resident. The
 * protocol (bar.sync, one acq_rel add at gpu scope, ld.global.cg reads, the
 * counter reset by the last piece) is V6's; docs/v6.md explains it. */
template <class Cfg>
static __device__ __forceinline__ bool hg_fam_sk_fixup(float *acc, const hg_sk_plan &plan, const hg_sk_piece &pc,
                                                       int64_t worker, uint32_t rank, int wg, int ctid, int bar_id,
                                                       volatile uint32_t *last_flag, float *ws, uint32_t *counters)
{
    constexpr int VECS = Cfg::ACC / 4;
    float4 *mine = hg_fam_sk_partial<Cfg>(ws, worker, rank, pc.slot, wg) + ctid;
#pragma unroll
    for (int i = 0; i < VECS; i++)
        __stcg(mine + i * Cfg::WG_THREADS, make_float4(acc[4 * i], acc[4 * i + 1], acc[4 * i + 2], acc[4 * i + 3]));
    hg_bar_sync(bar_id, Cfg::WG_THREADS);
    uint32_t *count = counters + (pc.sk_tile * Cfg::CLUSTER + rank) * Cfg::CONSUMERS + wg;
    const uint32_t pieces = (uint32_t)(pc.last_worker - pc.first_worker + 1);
    if (ctid == 0) *last_flag = hg_atom_add_acq_rel_gpu(count, 1) == pieces - 1;
    hg_bar_sync(bar_id, Cfg::WG_THREADS);
    if (!*last_flag) return false;
#pragma unroll
    for (int i = 0; i < Cfg::ACC; i++) acc[i] = 0.0f;
    for (int64_t v = pc.first_worker; v <= pc.last_worker; v++) {
        const float4 *part = hg_fam_sk_partial<Cfg>(ws, v, rank, hg_sk_slot_of(&plan, v, pc.sk_tile), wg) + ctid;
#pragma unroll
        for (int i = 0; i < VECS; i++) {
            float4 x = __ldcg(part + i * Cfg::WG_THREADS);
            acc[4 * i] += x.x, acc[4 * i + 1] += x.y, acc[4 * i + 2] += x.z, acc[4 * i + 3] += x.w;
        }
    }
    if (ctid == 0) hg_st_relaxed_gpu(count, 0);
    return true;
}
