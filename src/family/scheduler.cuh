/*
 * scheduler.cuh: which output tiles a CTA computes, in what order, and how
 * the last round's tiles are split (the stream-K tail of tiling.h, which
 * V6 introduced): where a piece leaves its partial, and how the last piece
 * of a tile gathers them.
 *
 * A scheduling unit is a cluster's output block, UNIT_M x UNIT_N. Units are
 * walked in tiling.h's grouped order (bands of RASTER_GROUP units along n),
 * unit = cluster_id, += clusters; the CTA of rank r takes the tile at
 * (r % CM, r / CM) inside the unit. A strided batch's products come one
 * after another (the batch outermost), so a raster band stays inside one
 * product and its operands share L2 as a single product's do.
 *
 * The dynamic walk (Cfg::DYNAMIC, where the host passes a counter: the
 * plan's whole tiles take more than one round). Cluster c's whole tiles c,
 * c + W, ... assume the clusters keep in step, and they do not: at short k
 * some SMs drain their stores slower, the CTAs' ends spread over a quarter
 * of the kernel, and the clusters that read one block of A or B (the
 * raster's band) reach it tens of microseconds apart, after the C stream has
 * evicted it from L2: the short-k batch read its operands three times from
 * HBM (docs/NOTES.md, twenty-seventh session). Instead each cluster takes
 * the next whole tile in walk order when it is ready for one, from a
 * counter in the workspace, so the tiles in flight are always about the
 * next W and share their blocks in L2 at once, whatever each SM's pace;
 * the stream-K tail, if any, follows as in the static walk.
 *
 * The hand-over, per claimed piece j (a CTA's claims numbered 0, 1, ...),
 * whose first k block goes into stage s. Rank 0's ticket warp draws the
 * tickets (an atomic add each) into a ring, TICKET_SLOTS (one) ahead.
 * Rank 0's producer warp, once it has acquired stage s, takes ticket j
 * from the ring, writes it into unit slot s, sends it with st.async to
 * slot s of each other CTA of the cluster, which completes their hand-over barrier
 * j % UNIT_HANDOVERS together with their own producer's arrival (those
 * producers wait there, acquire.cluster, then read their slot s), and arms
 * stage s as usual. The consumers read slot s once the stage is full (lane 0
 * of each warp, which hands the value to its warp by a shuffle and, in rank
 * 0, arrives on the slot's read barrier). A ticket past the whole tiles
 * ends the claims: the producer arms the stage with no load (a plain
 * arrive), the consumers read the end and release the stage.
 *
 * Why so: an atomic's round trip is about a microsecond with the memory
 * system full of C, and in the producer warp the next barrier arrival
 * waited for it, as a release.cluster arrival waits for all the thread's
 * earlier memory operations; st.async waits for neither (docs/NOTES.md,
 * twenty-eighth session: with both in the producer warp, 16384^2 x 256 ran
 * 7% slower than the static walk).
 *
 * Slot s is rewritten only once stage s is acquired again, that is after
 * every consumer of the cluster released it, so after every reader (the
 * consumers, and before them the other CTAs' producers) has read it. Rank
 * 0's producer also waits on the slot's read barrier before it writes: the
 * stage's release is one thread's, after a named barrier, an order
 * compute-sanitizer's racecheck does not follow (it follows an mbarrier
 * arrival by the reading thread itself), and the wait passes at once. The
 * next st.async onto hand-over barrier j % UNIT_HANDOVERS is claim j +
 * STAGES + 1's: its stage is acquired only after the consumers released a
 * k block of piece j + 1 or later (a piece is at least one k block), which
 * the other producers armed after waiting for claim j, so the bytes always
 * land in the phase of their own claim. The counter (dyn[0]) and the ticket
 * warps' count (dyn[1]) are zero before a launch and the last ticket warp
 * to finish leaves them zero (workspace.c's rule for counters).
 */
#pragma once

#include "config.cuh"

template <class Cfg> struct hg_fam_sched {
    int64_t m_units, n_units; /* one product's units' grid */
    int64_t batches;          /* products: units past m_units x n_units are the next product's */
    /* Fewer than 2^31 units in all: the walk divides by these (tiling.h's
     * hg_fastdiv), off the consumers' path from one tile to the next;
     * else by 64-bit divisions. */
    uint32_t fast;
    hg_fastdiv per_product, per_band, last_width;
    /* The dynamic walk's two counters in the workspace (DYNAMIC rows, the
     * host's choice), else nullptr: the static walk. */
    uint32_t *dyn;

    /* The host's half: the grid and the divisors. */
    __host__ void init(int64_t m_units_, int64_t n_units_, int64_t batches_)
    {
        m_units = m_units_, n_units = n_units_, batches = batches_;
        dyn = nullptr;
        const int64_t group = Cfg::RASTER_GROUP;
        const int64_t limit = (int64_t)1 << 31, per = m_units * n_units; /* each below 2^31 / 64 */
        fast = per >= 1 && per < limit && batches >= 1 && batches < limit / per;
        if (fast) {
            per_product = hg_fastdiv_make((uint32_t)per);
            per_band = hg_fastdiv_make((uint32_t)(m_units * group));
            last_width = hg_fastdiv_make((uint32_t)hg_raster_last_width(n_units, group));
        }
    }

    /* The CTA's tile offsets in unit `unit`, and its product in the batch. */
    __device__ __forceinline__ void tile_offsets(int64_t unit, uint32_t rank, int64_t *offset_m, int64_t *offset_n,
                                                 int32_t *batch) const
    {
        int64_t um, un, b = 0;
        if (fast) {
            uint32_t u = (uint32_t)unit;
            if (Cfg::BATCHES && batches > 1) {
                const uint32_t b32 = hg_fastdiv_q(per_product, u);
                u -= b32 * per_product.d;
                b = b32;
            }
            hg_raster_tile_fast(u, per_band, last_width, (uint32_t)n_units, Cfg::RASTER_GROUP, &um, &un);
        } else {
            if (Cfg::BATCHES && batches > 1) { /* (else can_serve allowed one product) */
                const int64_t per_product_units = m_units * n_units;
                b = unit / per_product_units;
                unit -= b * per_product_units;
            }
            hg_raster_tile(unit, m_units, n_units, Cfg::RASTER_GROUP, &um, &un);
        }
        *batch = (int32_t)b; /* < 2^31: hg__tma_batch_can_serve */
        const uint32_t trank = rank % Cfg::TILE_CTAS; /* (its place along k: rank / TILE_CTAS) */
        *offset_m = um * Cfg::UNIT_M + (int64_t)(trank % Cfg::CM) * Cfg::BM;
        *offset_n = un * Cfg::UNIT_N + (int64_t)(trank / Cfg::CM) * Cfg::BN;
    }

    /* The walk's next piece (tiling.h: whole tiles, then the tail's) and
     * the CTA's tile offsets in it, with a k split in the cluster (CK) the
     * CTA's share of its k blocks; false when none is left. Both roles walk
     * the same list. */
    __device__ __forceinline__ bool next(const hg_sk_plan &plan, hg_sk_cursor *walk, hg_sk_piece *pc, uint32_t rank,
                                         int64_t *offset_m, int64_t *offset_n, int32_t *batch) const
    {
        if (!hg_sk_next(&plan, walk, pc)) return false;
        tile_offsets(pc->tile, rank, offset_m, offset_n, batch);
        if constexpr (Cfg::CK > 1) { /* this CTA's range of the (whole) tile's k blocks; empty where K < CK */
            const int64_t kr = rank / Cfg::TILE_CTAS, blocks = pc->k_end - pc->k_begin;
            pc->k_end = pc->k_begin + blocks * (kr + 1) / Cfg::CK;
            pc->k_begin += blocks * kr / Cfg::CK;
        }
        return true;
    }

    /* ---- the dynamic walk (above) ---- */

    /* Whole tile t as a piece, and this CTA's offsets in it. */
    __device__ __forceinline__ void whole_piece(const hg_sk_plan &plan, int64_t t, hg_sk_piece *pc, uint32_t rank,
                                                int64_t *offset_m, int64_t *offset_n, int32_t *batch) const
    {
        hg_sk_whole_piece(&plan, t, pc);
        tile_offsets(t, rank, offset_m, offset_n, batch);
    }

    /* The ticket warp (rank 0's producer group's second warp, one lane):
     * draws the tickets into the ring, TICKET_SLOTS ahead of the claims,
     * up to the first past the whole tiles; then counts itself done, and
     * the last of the launch zeroes both counters for the next one. The
     * atomic's round trip (about a microsecond with the memory system full
     * of C) is this warp's alone: in the producer warp, its next barrier
     * arrival waited for it (docs/NOTES.md, twenty-eighth session). */
    __device__ __forceinline__ void draw_tickets(uint8_t *smem, const hg_sk_plan &plan) const
    {
        if constexpr (Cfg::DYNAMIC) {
            volatile uint32_t *ring = (volatile uint32_t *)(smem + Cfg::OFF_TICKETS);
            uint64_t *full = (uint64_t *)(smem + Cfg::OFF_TICKET_BARRIERS), *free_ = full + Cfg::TICKET_SLOTS;
            for (uint32_t j = 0;; j++) {
                const uint32_t s = j % Cfg::TICKET_SLOTS, parity = (j / Cfg::TICKET_SLOTS) & 1u;
                hg_mbarrier_wait(free_ + s, parity ^ 1u); /* (a fresh barrier passes) */
                const uint32_t t = hg_atom_add_relaxed_gpu(dyn, 1);
                ring[s] = t;
                hg_mbarrier_arrive(full + s);
                if (t >= (uint64_t)plan.dp_tiles) break;
            }
            if (hg_atom_add_acq_rel_gpu(dyn + 1, 1) == (uint32_t)(plan.workers - 1)) {
                hg_st_relaxed_gpu(dyn, 0);
                hg_st_relaxed_gpu(dyn + 1, 0);
            }
        }
    }

    /* The producer warp's claim number claim_no (all 32 lanes; `stage`,
     * the piece's first, acquired): the tile, or a value >= dp_tiles at the
     * end. Rank 0's leader takes the ticket from the ring, writes it into
     * slot `stage` once that slot's readers are done, and sends it to the
     * other CTAs' slots (st.async, completing their hand-over barrier); the
     * other ranks' producers wait for it there. */
    __device__ __forceinline__ uint32_t claim(uint8_t *smem, uint32_t rank, bool leader, uint32_t claim_no,
                                              int stage, uint32_t *read_phases) const
    {
        if constexpr (!Cfg::DYNAMIC) return 0; /* (never called: no slots) */
        else {
            static_assert(Cfg::UNIT_SLOTS <= 32, "read_phases: a bit per slot");
            const int slot = stage;
            volatile uint32_t *slots = (volatile uint32_t *)(smem + Cfg::OFF_UNITS);
            constexpr uint32_t HANDOVERS = Cfg::UNIT_HANDOVERS > 0 ? Cfg::UNIT_HANDOVERS : 1; /* (1: no peer) */
            const uint32_t handover = claim_no % HANDOVERS;
            uint64_t *bar = (uint64_t *)(smem + Cfg::OFF_UNIT_BARRIERS) + handover;
            uint32_t t = 0;
            if (Cfg::TILE_CTAS == 1 || rank == 0) {
                if (leader) {
                    const uint32_t ts = claim_no % Cfg::TICKET_SLOTS;
                    uint64_t *ticket_full = (uint64_t *)(smem + Cfg::OFF_TICKET_BARRIERS) + ts;
                    hg_mbarrier_wait(ticket_full, (claim_no / Cfg::TICKET_SLOTS) & 1u);
                    t = ((volatile uint32_t *)(smem + Cfg::OFF_TICKETS))[ts];
                    hg_mbarrier_arrive(ticket_full + Cfg::TICKET_SLOTS); /* its free barrier */
                    /* The slot's previous readers are done (a fresh barrier
                     * passes: parity 1 is the phase before its first). */
                    hg_mbarrier_wait((uint64_t *)(smem + Cfg::OFF_UNIT_READ_BARRIERS) + slot,
                                     ((*read_phases >> slot) & 1u) ^ 1u);
                    slots[slot] = t; /* (the stage's arrive releases it to the consumers) */
                    if constexpr (Cfg::TILE_CTAS > 1) {
                        const uint32_t s_addr = hg_smem_addr((const void *)(slots + slot)), b_addr = hg_smem_addr(bar);
#pragma unroll
                        for (uint32_t r = 1; r < (uint32_t)Cfg::TILE_CTAS; r++)
                            hg_st_async_u32(hg_mapa_shared_cluster(s_addr, r), t, hg_mapa_shared_cluster(b_addr, r));
                    }
                }
                t = __shfl_sync(0xffffffffu, t, __ffs(__ballot_sync(0xffffffffu, leader)) - 1);
                *read_phases ^= 1u << slot;
            } else {
                /* This CTA's arrival, the 4 bytes rank 0's st.async sends (in
                 * either order) complete the phase. */
                if (leader) hg_mbarrier_arrive_expect_tx(bar, Cfg::UNIT_BYTES);
                hg_mbarrier_wait_converged<true>(bar, (claim_no / HANDOVERS) & 1u);
                t = slots[slot];
            }
            return t;
        }
    }

    /* A consumer warp's read of the piece whose first k block is in
     * `stage` (full): lane 0 reads the slot, hands it to the warp and, where
     * rank 0's producer writes the slot, arrives on its read barrier. */
    __device__ __forceinline__ uint32_t claimed(uint8_t *smem, int stage, uint32_t rank) const
    {
        if constexpr (!Cfg::DYNAMIC) return 0; /* (never called: no slots) */
        else {
            const bool reader = threadIdx.x % Cfg::WARP_THREADS == 0;
            uint32_t t = 0;
            if (reader) {
                t = ((const volatile uint32_t *)(smem + Cfg::OFF_UNITS))[stage];
                if (Cfg::TILE_CTAS == 1 || rank == 0)
                    hg_mbarrier_arrive((uint64_t *)(smem + Cfg::OFF_UNIT_READ_BARRIERS) + stage);
            }
            return __shfl_sync(0xffffffffu, t, 0);
        }
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

/* Where part `part` (config.cuh's SK_PARTS: a consumer's rows) of rank
 * `rank` of worker (cluster) `worker` leaves the partial of its piece number
 * `slot` (0: the piece that starts the worker's
 * tail range, 1: a piece that starts a tile inside it). Fragment order:
 * float4 number i of thread t at (i * WG_THREADS + t) * 4, so each store and
 * load is fully coalesced; only the same thread mapping reads it back. */
template <class Cfg>
static __device__ __forceinline__ float4 *hg_fam_sk_partial(float *ws, int64_t worker, uint32_t rank, int slot, int part)
{
    const int64_t group = ((worker * Cfg::CLUSTER + rank) * Cfg::SK_SLOTS + slot) * Cfg::SK_PARTS + part;
    return (float4 *)(ws + group * (int64_t)Cfg::SK_GROUP_FLOATS);
}

/* Leaves acc at `dst` (a partial's place, this thread's first float4). */
template <class Cfg>
static __device__ __forceinline__ void hg_fam_sk_leave(const typename Cfg::acc_t *acc, float4 *dst)
{
#pragma unroll
    for (int i = 0; i < Cfg::ACC_REGS / 4; i++)
        __stcg(dst + i * Cfg::WG_THREADS, make_float4(hg_acc_bits(acc[4 * i]), hg_acc_bits(acc[4 * i + 1]),
                                                      hg_acc_bits(acc[4 * i + 2]), hg_acc_bits(acc[4 * i + 3])));
}

/* Registers a consumer thread may hold for partials in flight while it
 * gathers: a small accumulator (the swapped rows' 8-16) reads this many
 * floats' worth of pieces at once, so their L2 latencies overlap instead of
 * adding up; a large one reads a piece at a time (its registers are the
 * accumulator's). */
#define HG_FAM_SK_GATHER_FLOATS 32
template <class Cfg> struct hg_fam_sk_gather_shape {
    static constexpr int AHEAD_RAW = HG_FAM_SK_GATHER_FLOATS / Cfg::ACC_REGS;
    static constexpr int AHEAD = AHEAD_RAW < 1 ? 1 : AHEAD_RAW; /* pieces whose loads are in flight together */
    static constexpr int VECS = Cfg::ACC_REGS / 4;              /* a piece's float4s per thread */
};

/* Sums into acc, in worker order, the partials that workers v0, v0 + step,
 * ... <= v1 left for tail tile j (deterministic: the order never depends on
 * timing; reading AHEAD pieces before adding them changes only when the
 * loads are issued). */
template <class Cfg>
static __device__ __forceinline__ void hg_fam_sk_gather(typename Cfg::acc_t *acc, const hg_sk_plan &plan, int64_t j,
                                                        int64_t v0, int64_t v1, int64_t step, uint32_t rank, int part,
                                                        int ctid, float *ws)
{
    using G = hg_fam_sk_gather_shape<Cfg>;
#pragma unroll
    for (int i = 0; i < Cfg::ACC_REGS; i++) acc[i] = 0; /* 0.0f, or two fp16 zeros */
    if constexpr (G::AHEAD == 1) {
        /* A piece at a time, as written before the loads ahead: these rows
         * sit at ptxas's register edge, and this form keeps their code as it
         * was measured spill-free. */
        for (int64_t v = v0; v <= v1; v += step) {
            const float4 *from = hg_fam_sk_partial<Cfg>(ws, v, rank, hg_sk_slot_of(&plan, v, j), part) + ctid;
#pragma unroll
            for (int i = 0; i < G::VECS; i++) {
                float4 x = __ldcg(from + i * Cfg::WG_THREADS);
                hg_acc_add(&acc[4 * i], x.x), hg_acc_add(&acc[4 * i + 1], x.y);
                hg_acc_add(&acc[4 * i + 2], x.z), hg_acc_add(&acc[4 * i + 3], x.w);
            }
        }
    } else {
        for (int64_t v = v0; v <= v1; v += G::AHEAD * step) {
            float4 x[G::AHEAD][G::VECS];
#pragma unroll
            for (int g = 0; g < G::AHEAD; g++) {
                const int64_t u = v + g * step;
                if (u > v1) break;
                const float4 *from = hg_fam_sk_partial<Cfg>(ws, u, rank, hg_sk_slot_of(&plan, u, j), part) + ctid;
#pragma unroll
                for (int i = 0; i < G::VECS; i++) x[g][i] = __ldcg(from + i * Cfg::WG_THREADS);
            }
#pragma unroll
            for (int g = 0; g < G::AHEAD; g++) {
                if (v + g * step > v1) break;
#pragma unroll
                for (int i = 0; i < G::VECS; i++) {
                    hg_acc_add(&acc[4 * i], x[g][i].x), hg_acc_add(&acc[4 * i + 1], x[g][i].y);
                    hg_acc_add(&acc[4 * i + 2], x[g][i].z), hg_acc_add(&acc[4 * i + 3], x[g][i].w);
                }
            }
        }
    }
}

/* Counts this consumer's arrival at `count`: true for the last of
 * `arrivals`, which then resets it for the next launch once it has read
 * (nothing else touches it after the last). The writes before it are
 * released, and the others' acquired by the last, as in V6's protocol
 * (docs/v6.md). */
template <class Cfg>
static __device__ __forceinline__ bool hg_fam_sk_arrive(uint32_t *count, int64_t arrivals, int ctid, int bar_id,
                                                        volatile uint32_t *last_flag)
{
    hg_bar_sync(bar_id, Cfg::WG_THREADS);
    if (ctid == 0) *last_flag = hg_atom_add_acq_rel_gpu(count, 1) == (uint32_t)(arrivals - 1);
    hg_bar_sync(bar_id, Cfg::WG_THREADS);
    return *last_flag;
}

/* After a consumer finished its piece of a tail tile: leave the partial,
 * count it, and if this is the tile's last piece to finish, sum every
 * piece's partial, in k order, into acc and return true (the caller then
 * writes C as for a whole tile); else return false. No piece waits for
 * another, so nothing can hang on a worker that is not resident.
 *
 * With SK_TREE, a tile of more than HG_SK_FIXUP_GROUP pieces (a long k cut
 * many ways) is summed in two levels, so that no one consumer reads every
 * partial: the last piece of each group of HG_SK_FIXUP_GROUP sums its group
 * and leaves the sum in place of the group's first partial; the last group
 * to finish sums the groups' sums, in group order. Still deterministic (the
 * plan fixes the groups) and still without waiting.
 *
 * Counters: one per tail tile, rank and part; then one per group, named
 * by its first worker and that worker's slot for the tile. Fewer than (1 +
 * SK_SLOTS) * SK_PARTS per SM in all, as tail tiles < workers and workers x
 * CLUSTER <= SMs. */
template <class Cfg>
static __device__ __forceinline__ bool hg_fam_sk_fixup(typename Cfg::acc_t *acc, const hg_sk_plan &plan,
                                                       const hg_sk_piece &pc,
                                                       int64_t worker, uint32_t rank, int part, int ctid, int bar_id,
                                                       volatile uint32_t *last_flag, float *ws, uint32_t *counters)
{
    static_assert((1 + Cfg::SK_SLOTS) * Cfg::SK_PARTS < HG_WS_COUNTERS_PER_SM,
                  "the two-level fixup's counters fit the workspace's, below the dynamic walk's last two");
    const int64_t j = pc.sk_tile, first = pc.first_worker, last = pc.last_worker, pieces = last - first + 1;
    hg_fam_sk_leave<Cfg>(acc, hg_fam_sk_partial<Cfg>(ws, worker, rank, pc.slot, part) + ctid);
    uint32_t *tile_count = counters + (j * Cfg::CLUSTER + rank) * Cfg::SK_PARTS + part;
    if (!Cfg::SK_TREE || pieces <= HG_SK_FIXUP_GROUP) {
        if (!hg_fam_sk_arrive<Cfg>(tile_count, pieces, ctid, bar_id, last_flag)) return false;
        hg_fam_sk_gather<Cfg>(acc, plan, j, first, last, 1, rank, part, ctid, ws);
        if (ctid == 0) hg_st_relaxed_gpu(tile_count, 0);
        return true;
    }
    if constexpr (Cfg::SK_TREE) {
        const int64_t g_first = first + (worker - first) / HG_SK_FIXUP_GROUP * HG_SK_FIXUP_GROUP;
        const int64_t g_last = g_first + HG_SK_FIXUP_GROUP - 1 < last ? g_first + HG_SK_FIXUP_GROUP - 1 : last;
        const int g_slot = hg_sk_slot_of(&plan, g_first, j);
        uint32_t *group_count = counters + (plan.tiles - plan.dp_tiles) * Cfg::CLUSTER * Cfg::SK_PARTS +
                                ((g_first * Cfg::SK_SLOTS + g_slot) * Cfg::CLUSTER + rank) * Cfg::SK_PARTS + part;
        if (!hg_fam_sk_arrive<Cfg>(group_count, g_last - g_first + 1, ctid, bar_id, last_flag)) return false;
        hg_fam_sk_gather<Cfg>(acc, plan, j, g_first, g_last, 1, rank, part, ctid, ws);
        if (ctid == 0) hg_st_relaxed_gpu(group_count, 0);
        hg_fam_sk_leave<Cfg>(acc, hg_fam_sk_partial<Cfg>(ws, g_first, rank, g_slot, part) + ctid);
        if (!hg_fam_sk_arrive<Cfg>(tile_count, hg_cdiv(pieces, HG_SK_FIXUP_GROUP), ctid, bar_id, last_flag))
            return false;
        hg_fam_sk_gather<Cfg>(acc, plan, j, first, last, HG_SK_FIXUP_GROUP, rank, part, ctid, ws);
        if (ctid == 0) hg_st_relaxed_gpu(tile_count, 0);
    }
    return true;
}
