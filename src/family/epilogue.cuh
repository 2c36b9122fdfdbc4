/*
 * epilogue.cuh: one consumer writes its WG_M x BN result as
 * C = act(alpha * acc + beta * C + bias), chunk by chunk (EPI_ROWS rows by a
 * 128-byte span: 64 x 64 of 16-bit C, 64 x 32 of fp32 C, hg_fam_cgeo); bias
 * and act only in the EPI kernel (hg_matmul), an fp32 C too:
 *
 * Each warp of the consumer writes its own 16 rows of a chunk (the
 * accumulator fragment's), one TMA store of them (the box of C's second
 * map), so with beta == 0 no warp waits for another:
 *
 *   1. the warp's lane 0 waits until its bulk store that last used the
 *      slot has read it (wait_group.read EPI_SLOTS - 1: the stores of the
 *      other slots may still run); __syncwarp.
 *   2. beta != 0 only: the chunk's old C comes into the slot by TMA. Where
 *      every chunk has its own slot (hg_fam_cgeo's WHOLE), all of them load
 *      at the tile's start (load_first); else the first one does,
 *      and each next chunk's while the one before it is staged, from L2 (the
 *      producer warmed the tile's C during the mainloop). A load overwrites
 *      every warp's rows: a bar.sync after every warp's wait comes first. All
 *      wait on the slot's barrier. With beta == 0, C is never read.
 *   3. all: each thread writes its fragment pairs into the slot (reading the
 *      old value from the same place first when beta != 0), at the 128-byte
 *      swizzle's address: the 8 rows a warp writes at once fall in 8
 *      different 16-byte units, so the stores are free of bank conflicts.
 *      A 16-bit C moves by stmatrix (its old value by ldmatrix from the
 *      same addresses: the fragment is their layout), an fp32 C by one
 *      st.shared (ld.shared) a pair. fence.proxy.async, __syncwarp.
 *   4. lane 0: TMA store of the warp's rows (the C map has the same
 *      swizzle) under L2's evict_first policy, commit (store_rows). It runs
 *      while the next chunk is staged in another slot, and the last ones
 *      while the next tile's mainloop runs.
 *
 * The common case (a 16-bit C, every chunk starting inside C and none
 * straddling n; tile_interior, with the bias and activation too, and with
 * beta != 0 and neither of them tile_interior_beta) runs the same steps with
 * one test a tile instead of several a chunk, and alpha's multiplies only
 * where alpha != 1.
 *
 * A chunk wholly outside C is skipped. A TMA store clips at C's edge in
 * 16-byte units, not elements (docs/v6.md), so a chunk that straddles an n
 * that is not a multiple of 8 is staged the same way and then copied out per
 * element by the whole warp group, bounds-checked, between two bar.syncs
 * (its old C, when loaded, is right inside C; what the load put beyond n is
 * never written).
 */
#pragma once

#include "config.cuh"

/* Consumer wg's C-load barriers, one per slot (after the ring's). */
template <class Cfg> static __device__ __forceinline__ uint64_t *hg_fam_cload_barriers(uint8_t *smem, int wg)
{
    return (uint64_t *)(smem + Cfg::OFF_BARRIERS) + 2 * Cfg::STAGES + wg * Cfg::EPI_SLOTS;
}

/* The accumulator fragment's geometry (9.7.15.5.1): a warp's 16 rows, a
 * quad's lanes along a row, a pair's columns 8 apart. */
struct hg_fam_frag {
    static constexpr int WARP_ROWS = 16, QUAD = 4, PAIR_COLS = 8;
    /* stmatrix's 8 x 8 matrices: a pair block's rows of one half of a
     * warp's rows; an x4 store takes MATRICES of them, two pair blocks by
     * both halves. */
    static constexpr int MATRIX_ROWS = 8, MATRICES = 4;
};

/* Byte offset of element (r, c) of a staged block of EB-byte elements: rows
 * of ROW_BYTES, the 16-byte unit of a row permuted by the row's index mod
 * SWIZZLE_ROWS (the 128-byte swizzle, which TMA's C map shares). */
template <class Cfg, int EB = Cfg::ELEM_BYTES> static __device__ __forceinline__ uint32_t hg_fam_swizzled(int r, int c)
{
    const uint32_t byte = (uint32_t)(c * EB);
    const uint32_t unit = (byte / Cfg::SWIZZLE_UNIT_BYTES) ^ (uint32_t)(r % Cfg::SWIZZLE_ROWS);
    return (uint32_t)(r * Cfg::ROW_BYTES) + unit * Cfg::SWIZZLE_UNIT_BYTES + byte % Cfg::SWIZZLE_UNIT_BYTES;
}

/* CT: C's element (uint16_t, the inputs' dtype; float, HG_C_F32). */
template <class Cfg, int DT, bool EPI, class CT = uint16_t> struct hg_fam_epilogue : hg_fam_frag {
    using G = hg_fam_cgeo<Cfg, CT>;
    uint8_t *slots;  /* this consumer's EPI_SLOTS chunks */
    uint64_t *cbar;  /* per slot: its C load's barrier */
    uint32_t seq;    /* chunks staged so far: the slot is seq % EPI_SLOTS */
    uint32_t phases; /* bit s: the parity slot s's next C load completes */
    int32_t batch;   /* the tile's product in a strided batch (the C map's third coordinate) */

    __device__ __forceinline__ void init(uint8_t *smem, int wg)
    {
        slots = smem + Cfg::OFF_EPI + wg * Cfg::EPI_SLOTS * Cfg::EPI_CHUNK_BYTES;
        cbar = hg_fam_cload_barriers<Cfg>(smem, wg);
        seq = 0;
        phases = 0;
        batch = 0;
        bias_smem = (uint32_t *)(smem + Cfg::OFF_BIAS) + wg * (Cfg::BN / 2);
    }

    static constexpr int PAIRS = G::COLS / PAIR_COLS;          /* column pairs per thread per chunk */
    static constexpr int LAST_PAIRS = G::LAST_COLS / PAIR_COLS; /* ... in the last one (hg_fam_cgeo) */
    static_assert(!G::PARTIAL || Cfg::LEAN || Cfg::C_THREAD, "a partial last chunk: the lean rows' tile_lean only");
    /* hg_matmul's bias for the tile's BN columns, in three steps that keep
     * its global latency off the epilogue and hold one register across the
     * mainloop: prefetch_bias (before the mainloop: each of the first BN / 2
     * threads loads a pair into bias_pair), stash_bias (after it: the pair
     * into bias_smem, this consumer's copy), stage (each pair from there,
     * after the chunk's first bar.sync, as it is used). */
    uint32_t *bias_smem; /* BN / 2 pairs (Cfg::OFF_BIAS) */
    uint32_t bias_pair;
    static constexpr int BIAS_PAIRS = Cfg::BN / 2;
    static_assert(BIAS_PAIRS <= Cfg::WG_THREADS, "a bias pair per thread");

    __device__ __forceinline__ void prefetch_bias(const hg_epilogue &epi, int64_t col0, int ctid)
    {
        if constexpr (EPI && Cfg::BIAS_BYTES > 0) {
            const int64_t col = col0 + 2 * ctid;
            bias_pair = 0;
            if (epi.bias == nullptr || ctid >= BIAS_PAIRS) return;
            const uint16_t *bias = epi.bias + batch * epi.stride_bias;
            if (col < epi.n) bias_pair = __ldg(bias + col);
            if (col + 1 < epi.n) bias_pair |= (uint32_t)__ldg(bias + col + 1) << 16;
        }
    }

    /* Before the tile's first chunk (tile_as, tile_interior): no thread
     * still reads the previous tile's copy; then every thread of the
     * consumer (its barrier bar_id) sees this one's. */
    __device__ __forceinline__ void stash_bias(int ctid, int bar_id)
    {
        hg_bar_sync(bar_id, Cfg::WG_THREADS);
        if (ctid < BIAS_PAIRS) bias_smem[ctid] = bias_pair;
        hg_bar_sync(bar_id, Cfg::WG_THREADS);
    }

    /* The thread's first column in a pair block of a chunk (the fragment's
     * 2 (lane % 4)): its bias pair in the consumer's copy sits at
     * bias_smem + (chunk's first column + this) / 2. */
    static __device__ __forceinline__ int quad_col(int ctid) { return 2 * (ctid % Cfg::WARP_THREADS % QUAD); }

    /* Step 3 for one chunk: fragment layout (9.7.15.5.1): thread t, warp
     * w = t / 32, lane l: frag[4j + 2h + e] is element (16w + l/4 + 8h,
     * 8j + 2(l%4) + e) of the chunk. Each pair (e = 0, 1) is one st.shared
     * (4 bytes, or 8 of fp32). FIN: the bias and activation; bias: the thread's first
     * pair in the consumer's copy (bias_smem), pair j PAIR_COLS / 2 further,
     * read as it is used (read ahead into registers, it spilled). */
    template <class FIN>
    static __device__ __forceinline__ void stage(uint8_t *slot, const typename Cfg::acc_t *frag, const hg_epilogue &epi,
                                                 const uint32_t *bias, int ctid)
    {
        const int warp = ctid / Cfg::WARP_THREADS, lane = ctid % Cfg::WARP_THREADS;
        const int r = warp * WARP_ROWS + lane / QUAD;
        const int c = 2 * (lane % QUAD);
        const bool with_c = epi.beta != 0.0f;
#pragma unroll
        for (int j = 0; j < PAIRS; j++) {
#pragma unroll
            for (int h = 0; h < 2; h++) {
                CT *dst = (CT *)(slot + hg_fam_swizzled<Cfg, G::BYTES>(r + PAIR_COLS * h, c + PAIR_COLS * j));
                float v0, v1, c0 = 0.0f, c1 = 0.0f;
                hg_acc_pair(frag, 4 * j + 2 * h, &v0, &v1);
                if (with_c) hg_c_load2<DT>(dst, &c0, &c1);
                finish_pair<FIN, true>(&v0, &v1, epi, with_c, c0, c1, bias, j);
                hg_c_store2<DT>(dst, v0, v1);
            }
        }
    }

    /* A pair's values before they are written: act(alpha acc + beta old +
     * bias), the old C (c0, c1) only where with_c, the bias of pair block j
     * (bias: the thread's first pair in the consumer's copy, a block's
     * PAIR_COLS / 2 pairs further), alpha's multiply only where SCALE.
     * stage's and stage_matrix's last step. With a bias or an activation,
     * the sums are multiply-adds on values scaled by FIN::pre, so GELU's
     * halving (hg_gelu_tanh_half) and the bias's add cost no instruction of
     * their own. */
    template <class FIN, bool SCALE>
    static __device__ __forceinline__ void finish_pair(float *v0, float *v1, const hg_epilogue &epi, bool with_c,
                                                       float c0, float c1, const uint32_t *bias, int j)
    {
        if constexpr (!FIN::active) {
            if constexpr (SCALE) *v0 *= epi.alpha, *v1 *= epi.alpha;
            if (with_c) *v0 += epi.beta * c0, *v1 += epi.beta * c1;
        } else {
            static_assert(SCALE, "a bias or an activation comes with alpha (chunk's stage_matrix)");
            constexpr float PRE = FIN::pre;
            float a0 = 0.0f, a1 = 0.0f; /* PRE (beta old + bias) */
            if constexpr (FIN::bias) {
                const uint32_t pair = bias[j * PAIR_COLS / 2];
                a0 = PRE * hg_elem_to_f32<DT>((uint16_t)(pair & 0xFFFFu));
                a1 = PRE * hg_elem_to_f32<DT>((uint16_t)(pair >> 16));
            }
            if (with_c) a0 = fmaf(PRE * epi.beta, c0, a0), a1 = fmaf(PRE * epi.beta, c1, a1);
            if (FIN::bias || with_c) {
                *v0 = hg_fin_act<FIN>(fmaf(PRE * epi.alpha, *v0, a0));
                *v1 = hg_fin_act<FIN>(fmaf(PRE * epi.alpha, *v1, a1));
            } else {
                *v0 = hg_fin_act<FIN>(PRE * epi.alpha * *v0);
                *v1 = hg_fin_act<FIN>(PRE * epi.alpha * *v1);
            }
        }
    }

    /* Step 4 where a TMA store would write past n: each thread copies
     * elements of the staged chunk that lie inside C, one at a time (only
     * the last column chunk when n is not a multiple of 8). The fence orders
     * these generic reads before the slot's next async-proxy write. */
    __device__ __forceinline__ void copy_out(const uint8_t *slot, const hg_epilogue &epi, int64_t row0, int64_t col0,
                                             int ctid) const
    {
        CT *c_product = (CT *)epi.C + batch * epi.stride_c;
        for (int idx = ctid; idx < Cfg::EPI_ROWS * G::COLS; idx += Cfg::WG_THREADS) {
            const int r = idx / G::COLS, c = idx % G::COLS;
            if (row0 + r < epi.m && col0 + c < epi.n)
                c_product[(row0 + r) * epi.ldc + col0 + c] = *(const CT *)(slot + hg_fam_swizzled<Cfg, G::BYTES>(r, c));
        }
        hg_fence_proxy_async_shared_cta();
    }

    /* Step 4 where a TMA store cannot be used and no warp-group barrier is
     * wanted (tile_lean): each warp copies its own rows of the chunk's
     * first NCOLS columns from the slot to C, a 16-byte unit a lane (C's
     * rows are 16-byte aligned on the rows TMA stores), element by element
     * where a unit crosses n. The caller commits an empty bulk group, which
     * keeps "group i used slot i % EPI_SLOTS" true; the fence orders these
     * generic reads before the slot's next async-proxy write. */
    template <int NCOLS>
    __device__ __forceinline__ void copy_units(const uint8_t *slot, const hg_epilogue &epi, int64_t row0,
                                               int64_t col0, int ctid) const
    {
        constexpr int UNIT = Cfg::SWIZZLE_UNIT_BYTES / G::BYTES; /* elements of a 16-byte unit */
        constexpr int ROW_UNITS_N = NCOLS / UNIT;                /* a row's units */
        constexpr int WARP_UNITS = WARP_ROWS * ROW_UNITS_N;
        static_assert(NCOLS % UNIT == 0 && WARP_UNITS % Cfg::WARP_THREADS == 0, "whole units, spread evenly");
        const int warp = ctid / Cfg::WARP_THREADS, lane = ctid % Cfg::WARP_THREADS;
        CT *c_product = (CT *)epi.C + batch * epi.stride_c;
#pragma unroll 1 /* unrolled, the lean row's kernel spilled */
        for (int u = lane; u < WARP_UNITS; u += Cfg::WARP_THREADS) {
            const int r = warp * WARP_ROWS + u / ROW_UNITS_N, c = u % ROW_UNITS_N * UNIT;
            const int64_t row = row0 + r, col = col0 + c;
            if (row >= epi.m || col >= epi.n) continue;
            const uint8_t *src = slot + hg_fam_swizzled<Cfg, G::BYTES>(r, c);
            CT *dst = c_product + row * epi.ldc + col;
            if (col + UNIT <= epi.n) {
                *(uint4 *)dst = *(const uint4 *)src;
            } else {
                for (int x = 0; x < UNIT && col + x < epi.n; x++) dst[x] = ((const CT *)src)[x];
            }
        }
        hg_fence_proxy_async_shared_cta();
    }

    /* Thread 0: the old C of the chunk at (row0, col0) into slot s. */
    __device__ __forceinline__ void load(const CUtensorMap *map_c, uint32_t s, int64_t row0, int64_t col0)
    {
        hg_mbarrier_arrive_expect_tx(&cbar[s], Cfg::EPI_CHUNK_BYTES);
        hg_tma_load_3d(slots + s * Cfg::EPI_CHUNK_BYTES, map_c, &cbar[s], (int32_t)col0, (int32_t)row0, batch);
    }

    /* With beta != 0, at a whole tile's start (kernel.cuh: under its first
     * wgmmas, or before a ping-pong consumer's turn): load the old C of the
     * consumer's first chunk (rows row0.., columns col0..), or of all its
     * chunks (G::WHOLE), into the slots they will use, so the epilogue does
     * not start with a load's latency. Every warp's stores of the previous
     * tile must have read the slots (each lane 0 waits, then a bar.sync).
     * Returns whether it loaded. */
    __device__ __forceinline__ bool load_first(const CUtensorMap *map_c, const hg_epilogue &epi, int64_t row0,
                                               int64_t col0, int ctid, int bar_id)
    {
        if (epi.beta == 0.0f || row0 >= epi.m || col0 >= epi.n) return false;
        /* Every warp's stores of the previous tile have read the slots. */
        if (hg_lane_id() == 0) hg_cp_async_bulk_wait_group_read<0>();
        hg_bar_sync(bar_id, Cfg::WG_THREADS);
        if (ctid == 0) {
            if constexpr (G::WHOLE) {
                /* Every chunk's own slot: all of them now, in tile_as's
                 * order (the chunks inside C). */
                uint32_t s = seq;
#pragma unroll 1
                for (int i = 0; i < Cfg::M_ATOMS; i++)
#pragma unroll 1
                    for (int q = 0; q < G::COL_CHUNKS; q++) {
                        const int64_t r0 = row0 + (int64_t)i * Cfg::EPI_ROWS, c0 = col0 + (int64_t)q * G::COLS;
                        if (r0 < epi.m && c0 < epi.n) load(map_c, s++ % Cfg::EPI_SLOTS, r0, c0);
                    }
            } else {
                load(map_c, seq % Cfg::EPI_SLOTS, row0, col0);
                /* tile_interior_beta's second chunk too (both slots are
                 * free here), so its first chunk does not load ahead and
                 * only the chunks after it wait for a load issued one chunk
                 * before. */
                if (interior_beta(epi, row0, col0))
                    load(map_c, (seq + 1) % Cfg::EPI_SLOTS, next_chunk_row(row0, 0), next_chunk_col(col0, col0, 0));
            }
        }
        return true;
    }

    /* Steps 1 and 2 with beta != 0, for the chunk at (row0, col0) in slot
     * s: `loaded` says its old C is already on the way; the next chunk's
     * (at next_row0, next_col0, when has_next) is loaded into the next slot
     * while this one is staged. Returns once the chunk's old C is in. */
    __device__ __forceinline__ void await_old_c(const CUtensorMap *map_c, uint32_t s, int64_t row0, int64_t col0,
                                                bool loaded, bool has_next, int64_t next_row0, int64_t next_col0,
                                                int ctid, int bar_id, bool lead)
    {
        if (!loaded || has_next) {
            /* Every warp's stores that used this slot and the next one
             * (EPI_SLOTS and EPI_SLOTS - 1 chunks back) have read them, and
             * every thread is past its copy-outs' reads of them: then this
             * chunk's old C loads (if not yet) and the next one's. */
            if (lead) hg_cp_async_bulk_wait_group_read<Cfg::EPI_SLOTS - 2>();
            hg_bar_sync(bar_id, Cfg::WG_THREADS);
            if (ctid == 0) {
                if (!loaded) load(map_c, s, row0, col0);
                if (has_next) load(map_c, (s + 1) % Cfg::EPI_SLOTS, next_row0, next_col0);
            }
        }
        hg_mbarrier_wait(&cbar[s], (phases >> s) & 1u);
        phases ^= 1u << s;
    }

    /* Steps 1 to 4 for the chunk at (row0, col0), inside C. With beta != 0:
     * `loaded` says its old C is already on the way, and the next chunk's
     * (at next_row0, next_col0, when has_next) is loaded into the next slot
     * while this one is staged. */
    template <class FIN>
    __device__ __forceinline__ void chunk(const CUtensorMap *map_c, const CUtensorMap *map_cw,
                                          const typename Cfg::acc_t *frag,
                                          const hg_epilogue &epi,
                                          int64_t row0, int64_t col0, int bias_off, int ctid, int bar_id,
                                          bool loaded, bool has_next, int64_t next_row0, int64_t next_col0)
    {
        static_assert(Cfg::EPI_SLOTS >= 2, "the C loads look one chunk ahead into the next slot");
        const uint32_t s = seq % Cfg::EPI_SLOTS;
        uint8_t *slot = slots + s * Cfg::EPI_CHUNK_BYTES;
        const bool with_c = epi.beta != 0.0f;
        const bool lead = is_lead(ctid);
        if (!with_c) {
            /* The warp's store EPI_SLOTS chunks back has read its rows of
             * this slot; no other warp touches them. */
            if (lead) hg_cp_async_bulk_wait_group_read<Cfg::EPI_SLOTS - 1>();
            __syncwarp();
        } else {
            await_old_c(map_c, s, row0, col0, loaded, has_next, next_row0, next_col0, ctid, bar_id, lead);
        }
        /* The chunk's bias, from the consumer's copy (tile_as). */
        const uint32_t *bias = bias_smem + (bias_off + quad_col(ctid)) / 2;
        if constexpr (hg_c_is_f32<CT>) stage<FIN>(slot, frag, epi, bias, ctid);
        else stage_matrix<true, true, FIN>(slot, frag, epi, ctid, bias);
        hg_fence_proxy_async_shared_cta();
        __syncwarp();
        if (col0 + G::COLS > epi.n && epi.n % G::TMA_ALIGN_ELEMS != 0) {
            /* The whole warp group copies the chunk out (the rare edge of
             * an n that is not a multiple of 8): after every warp staged it,
             * and before any warp stages into the slot again. An empty bulk
             * group keeps "group i used slot i % EPI_SLOTS" true for the
             * waits above. */
            hg_bar_sync(bar_id, Cfg::WG_THREADS);
            copy_out(slot, epi, row0, col0, ctid);
            hg_bar_sync(bar_id, Cfg::WG_THREADS);
            if (lead) hg_cp_async_bulk_commit_group();
        } else if (lead) {
            store_rows(map_cw, slot, col0, row0);
        }
        seq++;
    }

    /* The consumer's whole result: rows [row0, row0 + WG_M), columns
     * [col0, col0 + BN); first_loaded: load_first loaded the first chunk.
     * Chunks go row of atoms by row, those inside C only. Every branch is
     * uniform over the warp group. */
    __device__ __forceinline__ void tile(const CUtensorMap *map_c, const CUtensorMap *map_cw,
                                         const typename Cfg::acc_t *acc,
                                         const hg_epilogue &epi,
                                         int64_t row0, int64_t col0, int ctid, int bar_id, bool first_loaded)
    {
        if constexpr (Cfg::LEAN) { /* beta == 0, 16-bit C, no bias or activation (can_serve) */
            if (epi.alpha == 1.0f) tile_lean<false>(map_cw, acc, epi, row0, col0, ctid);
            else tile_lean<true>(map_cw, acc, epi, row0, col0, ctid);
            return;
        }
        hg_fin_dispatch<EPI>(epi, [&](auto fin) {
            using FIN = decltype(fin);
            /* The EPI kernels' interior tiles at beta = 0 too, with the bias
             * and activation: through tile_as, the fused epilogue cost two
             * to four times as much (docs/NOTES.md, thirty-fourth session).
             * With beta != 0 they keep tile_as (tile_interior_beta has no
             * FIN). */
            if constexpr (!hg_c_is_f32<CT>) {
                if constexpr (EPI) {
                    if (interior(epi, row0, col0)) {
                        tile_interior<true, FIN>(map_cw, acc, epi, row0, col0, ctid, bar_id);
                        return;
                    }
                } else if (inside(epi, row0, col0)) {
                    if (epi.beta == 0.0f) {
                        if (epi.alpha == 1.0f) tile_interior<false>(map_cw, acc, epi, row0, col0, ctid);
                        else tile_interior<true>(map_cw, acc, epi, row0, col0, ctid);
                    } else {
                        if (epi.alpha == 1.0f)
                            tile_interior_beta<false>(map_c, map_cw, acc, epi, row0, col0, ctid, bar_id, first_loaded);
                        else
                            tile_interior_beta<true>(map_c, map_cw, acc, epi, row0, col0, ctid, bar_id, first_loaded);
                    }
                    return;
                }
            }
            tile_as<FIN>(map_c, map_cw, acc, epi, row0, col0, ctid, bar_id, first_loaded);
        });
    }

    /* The warp's stores are its lane 0's bulk groups. Told from ctid or
     * from %laneid (the same value), whichever ptxas 13.0 allocates without
     * spilling: ctid spilled the ping-pong row's debug build and the fp32
     * kernels, %laneid the 128 x 256 rows' profiling build. */
    static __device__ __forceinline__ bool is_lead(int ctid)
    {
        return Cfg::PINGPONG || hg_c_is_f32<CT> ? hg_lane_id() == 0 : ctid % Cfg::WARP_THREADS == 0;
    }

    /* Every chunk of the consumer's result starts inside C and none
     * straddles n (a TMA store clips the rows past m itself). */
    static __device__ __forceinline__ bool inside(const hg_epilogue &epi, int64_t row0, int64_t col0)
    {
        return row0 + (int64_t)(Cfg::M_ATOMS - 1) * Cfg::EPI_ROWS < epi.m && col0 + Cfg::BN <= epi.n;
    }

    /* Whether a consumer's result has a second chunk, whose old C
     * load_first then loads for tile_interior_beta too. */
    static constexpr bool SECOND_CHUNK = Cfg::M_ATOMS * G::COL_CHUNKS > 1;

    /* Whether tile() writes the consumer's result at (row0, col0) by
     * tile_interior_beta (beta != 0; its test there) and it has a second
     * chunk. */
    static __device__ __forceinline__ bool interior_beta(const hg_epilogue &epi, int64_t row0, int64_t col0)
    {
        return !hg_c_is_f32<CT> && !EPI && !Cfg::LEAN && SECOND_CHUNK && epi.beta != 0.0f && inside(epi, row0, col0);
    }

    /* Inside C, the chunk after the one at row r0, column chunk q of the
     * consumer's result (its columns from col0, this chunk's from c0):
     * along the row of atoms, else the start of the next row. */
    static __device__ __forceinline__ int64_t next_chunk_row(int64_t r0, int q)
    {
        return q + 1 == G::COL_CHUNKS ? r0 + Cfg::EPI_ROWS : r0;
    }
    static __device__ __forceinline__ int64_t next_chunk_col(int64_t col0, int64_t c0, int q)
    {
        return q + 1 == G::COL_CHUNKS ? col0 : c0 + G::COLS;
    }

    /* The common case, which tile_interior writes: inside, and beta == 0
     * (no old C). */
    static __device__ __forceinline__ bool interior(const hg_epilogue &epi, int64_t row0, int64_t col0)
    {
        return epi.beta == 0.0f && inside(epi, row0, col0);
    }

    /* tile_as's steps for the interior case at beta = 0, with one
     * stmatrix.x4 per two column pairs by both row halves instead of a
     * st.shared per pair (the fragment is stmatrix's layout: a quarter of
     * the store instructions, one address each), no per-chunk test of C's
     * edges or of beta, and alpha's multiplies only where alpha != 1
     * (SCALE; a bias or an activation takes them always, folded into its
     * multiply-adds: finish_pair). At short k the epilogue's instructions
     * are the consumers' time (docs/NOTES.md, tenth session). FIN: the bias
     * and activation (the EPI kernels), the bias staged as tile_as does it
     * (bar_id: the consumer's barrier, for that only). */
    template <bool SCALE, class FIN = hg_fin_none>
    __device__ __forceinline__ void tile_interior(const CUtensorMap *map_cw, const typename Cfg::acc_t *acc,
                                                  const hg_epilogue &epi, int64_t row0, int64_t col0, int ctid,
                                                  int bar_id = 0)
    {
        const bool lead = is_lead(ctid);
        if constexpr (FIN::bias) stash_bias(ctid, bar_id);
#pragma unroll
        for (int i = 0; i < Cfg::M_ATOMS; i++) {
#pragma unroll
            for (int q = 0; q < G::COL_CHUNKS; q++) {
                uint8_t *slot = slots + (seq % Cfg::EPI_SLOTS) * Cfg::EPI_CHUNK_BYTES;
                /* The warp's store EPI_SLOTS chunks back has read its rows
                 * of this slot; no other warp touches them. */
                if (lead) hg_cp_async_bulk_wait_group_read<Cfg::EPI_SLOTS - 1>();
                __syncwarp();
                stage_matrix<SCALE, false, FIN>(slot, acc + i * Cfg::ACC_ATOM_REGS + q * G::REGS_PER_CHUNK, epi, ctid,
                                                bias_smem + (q * G::COLS + quad_col(ctid)) / 2);
                hg_fence_proxy_async_shared_cta();
                __syncwarp();
                if (lead) store_rows(map_cw, slot, col0 + (int64_t)q * G::COLS, row0 + (int64_t)i * Cfg::EPI_ROWS);
                seq++;
            }
        }
    }

    /* tile_interior with beta != 0: the old C of each chunk by TMA into its
     * slot (await_old_c, as tile_as's chunks), added from there before the
     * stmatrix. Without tile_as's per-chunk tests of C's edges and of the
     * next chunk, its bias and activation, and with alpha's multiplies only
     * where alpha != 1: ncu counted tile_as's beta chunk at 242 warp
     * instructions against beta = 0's 56, and with two consumer warps a
     * scheduler they were beta's cost (docs/NOTES.md, seventeenth session;
     * this path's own count is not measured, its time is). */
    template <bool SCALE>
    __device__ __forceinline__ void tile_interior_beta(const CUtensorMap *map_c, const CUtensorMap *map_cw,
                                                       const typename Cfg::acc_t *acc, const hg_epilogue &epi,
                                                       int64_t row0, int64_t col0, int ctid, int bar_id,
                                                       bool first_loaded)
    {
        const bool lead = is_lead(ctid);
        /* load_first loaded every chunk (G::WHOLE): none to look ahead for;
         * else the first two (interior_beta). */
        const bool all_loaded = G::WHOLE && first_loaded;
        const bool second_loaded = !G::WHOLE && SECOND_CHUNK && first_loaded;
        bool loaded = first_loaded;
#pragma unroll
        for (int i = 0; i < Cfg::M_ATOMS; i++) {
#pragma unroll
            for (int q = 0; q < G::COL_CHUNKS; q++) {
                const int64_t r0 = row0 + (int64_t)i * Cfg::EPI_ROWS, c0 = col0 + (int64_t)q * G::COLS;
                /* Inside C, every chunk but the last has a next one: along
                 * the row of atoms, else the start of the next row. The
                 * first chunk's next is loaded when it was (load_first). */
                const bool row_end = q + 1 == G::COL_CHUNKS;
                const bool next_loaded = all_loaded || (second_loaded && i == 0 && q == 0);
                const bool has_next = !next_loaded && !(row_end && i + 1 == Cfg::M_ATOMS);
                const uint32_t s = seq % Cfg::EPI_SLOTS;
                uint8_t *slot = slots + s * Cfg::EPI_CHUNK_BYTES;
                await_old_c(map_c, s, r0, c0, loaded, has_next, next_chunk_row(r0, q), next_chunk_col(col0, c0, q),
                            ctid, bar_id, lead);
                stage_matrix<SCALE, true, hg_fin_none, PAIRS, true>(
                    slot, acc + i * Cfg::ACC_ATOM_REGS + q * G::REGS_PER_CHUNK, epi, ctid);
                hg_fence_proxy_async_shared_cta();
                __syncwarp();
                if (lead) store_rows(map_cw, slot, c0, r0);
                seq++;
                loaded = has_next || next_loaded;
            }
        }
    }

    /* A lean row's whole result (config.cuh's LEAN; beta == 0, a 16-bit C,
     * no bias or activation: can_serve and FUSES_EPILOGUE): tile_interior's
     * steps with C's edges, without tile_as's general path (with it beside
     * the 176-float accumulator, 216 bytes spilled): chunks wholly outside C
     * skipped, TMA clipping rows past m and columns past an n that is a
     * multiple of 8; the warps copy out a chunk that would write past any
     * other n, and the partial last chunk, whose 64-column box would write
     * the next tile's columns (copy_units). */
    template <bool SCALE>
    __device__ __forceinline__ void tile_lean(const CUtensorMap *map_cw, const typename Cfg::acc_t *acc,
                                              const hg_epilogue &epi, int64_t row0, int64_t col0, int ctid)
    {
        static_assert(!hg_c_is_f32<CT> && !EPI, "a lean row writes a 16-bit C, without bias or activation");
        const bool lead = is_lead(ctid);
#pragma unroll
        for (int i = 0; i < Cfg::M_ATOMS; i++) {
#pragma unroll
            for (int q = 0; q < G::COL_CHUNKS; q++) {
                const int64_t r0 = row0 + (int64_t)i * Cfg::EPI_ROWS, c0 = col0 + (int64_t)q * G::COLS;
                if (r0 >= epi.m || c0 >= epi.n) continue; /* uniform over the warp group */
                uint8_t *slot = slots + (seq % Cfg::EPI_SLOTS) * Cfg::EPI_CHUNK_BYTES;
                /* The warp's store EPI_SLOTS chunks back has read its rows
                 * of this slot; no other warp touches them. */
                if (lead) hg_cp_async_bulk_wait_group_read<Cfg::EPI_SLOTS - 1>();
                __syncwarp();
                const typename Cfg::acc_t *frag = acc + i * Cfg::ACC_ATOM_REGS + q * G::REGS_PER_CHUNK;
                const bool last = G::PARTIAL && q == G::COL_CHUNKS - 1;
                if (last) stage_matrix<SCALE, false, hg_fin_none, LAST_PAIRS>(slot, frag, epi, ctid);
                else stage_matrix<SCALE>(slot, frag, epi, ctid);
                if (last || (c0 + G::COLS > epi.n && epi.n % G::TMA_ALIGN_ELEMS != 0)) {
                    __syncwarp();
                    if (last) copy_units<G::LAST_COLS>(slot, epi, r0, c0, ctid);
                    else copy_units<G::COLS>(slot, epi, r0, c0, ctid);
                    if (lead) hg_cp_async_bulk_commit_group();
                } else {
                    hg_fence_proxy_async_shared_cta();
                    __syncwarp();
                    if (lead) store_rows(map_cw, slot, c0, r0);
                }
                seq++;
            }
        }
    }

    /* Step 3 with stmatrix, for a 16-bit C: the warp's rows of one chunk
     * (fragment frag) into slot, one stmatrix.x4 per two column pairs by
     * both row halves (the fragment is stmatrix's layout: a quarter of the
     * store instructions of st.shared, one address each). SCALE: alpha's
     * multiplies (the interior paths skip them at alpha = 1). OLD_C: with
     * beta != 0 the slot holds the chunk's old C, read first by ldmatrix
     * from the same addresses (the same layout again). FIN: the bias and
     * activation, the bias of pair block j at bias[j * PAIR_COLS / 2] (as
     * stage()). OLD_FIRST: every group's old C before any arithmetic
     * (tile_interior_beta's; see below). */
    template <bool SCALE, bool OLD_C = false, class FIN = hg_fin_none, int NPAIRS = PAIRS, bool OLD_FIRST = false>
    static __device__ __forceinline__ void stage_matrix(uint8_t *slot, const typename Cfg::acc_t *frag,
                                                        const hg_epilogue &epi, int ctid,
                                                        const uint32_t *bias = nullptr)
    {
        static_assert(NPAIRS % (MATRICES / 2) == 0, "whole stmatrix.x4 groups in a chunk");
        static_assert(!hg_c_is_f32<CT>, "stmatrix moves 16-bit elements");
        const int warp = ctid / Cfg::WARP_THREADS, lane = ctid % Cfg::WARP_THREADS;
        /* Lane l addresses row l % 8 of matrix l / 8: matrix x of a group
         * is pair block 2g + x / 2, row half x % 2. */
        const int m_row = warp * WARP_ROWS + MATRIX_ROWS * (lane / MATRIX_ROWS % 2) + lane % MATRIX_ROWS;
        const int m_block = lane / (2 * MATRIX_ROWS);
        const uint32_t slot_addr = hg_smem_addr(slot);
        const bool with_c = OLD_C && epi.beta != 0.0f;
        constexpr int GROUPS = NPAIRS / (MATRICES / 2);
        /* OLD_FIRST: the old C of every group first. Issued one by one
         * between the stores (each asm volatile, the stores clobbering
         * memory), each load's latency sits before its group's arithmetic;
         * all at once, they hold GROUPS * MATRICES registers more, which
         * the bias and activation kernels' profiling build spilled. */
        constexpr bool FIRST = OLD_C && OLD_FIRST;
        uint32_t old[FIRST ? GROUPS : 1][MATRICES];
        if constexpr (FIRST) {
            if (with_c) {
#pragma unroll
                for (int g = 0; g < GROUPS; g++)
                    hg_ldmatrix_x4(old[g], slot_addr + hg_fam_swizzled<Cfg>(m_row, PAIR_COLS * (2 * g + m_block)));
            }
        }
#pragma unroll
        for (int g = 0; g < GROUPS; g++) {
            const uint32_t addr = slot_addr + hg_fam_swizzled<Cfg>(m_row, PAIR_COLS * (2 * g + m_block));
            const int og = FIRST ? g : 0; /* this group's old C in old[] */
            uint32_t packed[MATRICES];
            if constexpr (OLD_C && !FIRST) {
                if (with_c) hg_ldmatrix_x4(old[og], addr);
            }
#pragma unroll
            for (int x = 0; x < MATRICES; x++) {
                /* Pair block j = 2g + x / 2, half h = x % 2: fragment
                 * elements 4j + 2h and the next. */
                const int j = 2 * g + x / 2;
                float v0, v1, c0 = 0.0f, c1 = 0.0f;
                hg_acc_pair(frag, 4 * j + 2 * (x % 2), &v0, &v1);
                if constexpr (OLD_C) {
                    if (with_c) {
                        c0 = hg_elem_to_f32<DT>((uint16_t)(old[og][x] & 0xFFFFu));
                        c1 = hg_elem_to_f32<DT>((uint16_t)(old[og][x] >> 16));
                    }
                }
                finish_pair<FIN, SCALE>(&v0, &v1, epi, with_c, c0, c1, bias, j);
                packed[x] = hg_pack2<DT>(v0, v1);
            }
            hg_stmatrix_x4(addr, packed);
        }
    }

    /* The interior case of a C whose rows break TMA's 16-byte rule (an ldc
     * that is not a multiple of 8, or C's base off 16 bytes: the _ct rows),
     * which TMA cannot store: TMA faults on a box whose global start is off
     * 16 bytes (tools/probe_tma_phase.cu). Per-thread stores of the
     * fragment's pairs (4-byte pieces of 8 rows a store instruction) cost
     * their count of store requests and sectors, not their instructions
     * (docs/NOTES.md, twelfth session). Instead each warp stages its rows
     * as tile_interior does (two slots, no bulk stores, so no proxy fence
     * and no wait), then writes each row in whole 16-byte units of C's own
     * alignment: a row that
     * starts a halfwords past a 16-byte boundary has its unit u hold
     * columns [8u - a, 8u + 8 - a): the last a of the slot's unit u - 1 (of
     * the previous chunk, in the other slot, for u = 0) and the first 8 - a
     * of unit u, shifted into place in registers (units_shift). Only the
     * tile's first unit of a row (columns before its start belong to the
     * tile on the left) and its last (the a columns past the last unit) are
     * written element by element. */
    static constexpr int UNIT_ELEMS = Cfg::SWIZZLE_UNIT_BYTES / Cfg::ELEM_BYTES;     /* 8 */
    static constexpr int ROW_UNITS = G::COLS / UNIT_ELEMS;                          /* 8 */
    static constexpr int UNIT_WORDS = Cfg::SWIZZLE_UNIT_BYTES / (int)sizeof(uint32_t); /* 4 */
    static constexpr int UNIT_ROWS = Cfg::WARP_THREADS / ROW_UNITS;                 /* rows a pass: 4 */
    static constexpr int UNIT_PASSES = WARP_ROWS / UNIT_ROWS;                       /* 4 */
    static constexpr uint32_t HALF_BITS = 16;

    /* Halfwords [8 - a, 16 - a) of prev followed by cur (a in 0..7): the
     * 16-byte unit of C that starts a halfwords before cur. Selects by the
     * word offset (two steps), then a funnel shift when it is odd, so every
     * register index is a constant (no local memory). */
    static __device__ __forceinline__ uint4 units_shift(const uint4 &prev, const uint4 &cur, uint32_t a)
    {
        if (a == 0) return cur;
        const uint32_t w[2 * UNIT_WORDS] = {prev.x, prev.y, prev.z, prev.w, cur.x, cur.y, cur.z, cur.w};
        const uint32_t start = UNIT_ELEMS - a; /* 1..7 halfwords */
        const uint32_t words = start / 2;      /* 0..3 */
        uint32_t t[2 * UNIT_WORDS - 1], v[UNIT_WORDS + 1], o[UNIT_WORDS];
#pragma unroll
        for (int i = 0; i < 2 * UNIT_WORDS - 1; i++) t[i] = (words & 1u) ? w[i + 1] : w[i];
#pragma unroll
        for (int i = 0; i < UNIT_WORDS + 1; i++) v[i] = (words & 2u) ? t[i + 2] : t[i];
#pragma unroll
        for (int i = 0; i < UNIT_WORDS; i++) o[i] = (start & 1u) ? __funnelshift_r(v[i], v[i + 1], HALF_BITS) : v[i];
        return make_uint4(o[0], o[1], o[2], o[3]);
    }

    /* Halfword h (a constant) of a unit. */
    static __device__ __forceinline__ uint16_t unit_half(const uint4 &u, int h)
    {
        const uint32_t w = h / 2 == 0 ? u.x : h / 2 == 1 ? u.y : h / 2 == 2 ? u.z : u.w;
        return (uint16_t)(h % 2 ? w >> HALF_BITS : w & 0xFFFFu);
    }

    /* A _ct row's tile in 16-byte units where it can be (the plain kernel,
     * 16-bit C, interior): returns whether it wrote the tile. */
    __device__ __forceinline__ bool units_interior(const typename Cfg::acc_t *acc, const hg_epilogue &epi,
                                                   int64_t row0, int64_t col0, int ctid)
    {
        if constexpr (EPI || Cfg::SWAP_AB || hg_c_is_f32<CT>) {
            return false;
        } else {
            if (!interior(epi, row0, col0)) return false;
            if (epi.alpha == 1.0f) tile_units<false>(acc, epi, row0, col0, ctid);
            else tile_units<true>(acc, epi, row0, col0, ctid);
            return true;
        }
    }

    template <bool SCALE>
    __device__ __forceinline__ void tile_units(const typename Cfg::acc_t *acc, const hg_epilogue &epi, int64_t row0,
                                               int64_t col0, int ctid)
    {
        static_assert(!hg_c_is_f32<CT> && Cfg::EPI_SLOTS == 2, "16-bit C, the previous chunk in the other slot");
        const int warp = ctid / Cfg::WARP_THREADS, lane = ctid % Cfg::WARP_THREADS;
        const int u = lane % ROW_UNITS;
        uint16_t *c16 = (uint16_t *)epi.C;
#pragma unroll
        for (int i = 0; i < Cfg::M_ATOMS; i++) {
#pragma unroll
            for (int q = 0; q < G::COL_CHUNKS; q++) {
                uint8_t *slot = slots + (seq % Cfg::EPI_SLOTS) * Cfg::EPI_CHUNK_BYTES;
                const uint8_t *prev_slot = slots + ((seq + 1) % Cfg::EPI_SLOTS) * Cfg::EPI_CHUNK_BYTES;
                /* The warp's reads of this slot (two chunks back) are done. */
                __syncwarp();
                stage_matrix<SCALE>(slot, acc + i * Cfg::ACC_ATOM_REGS + q * G::REGS_PER_CHUNK, epi, ctid);
                __syncwarp();
                const int64_t ccol = col0 + (int64_t)q * G::COLS;
#pragma unroll
                for (int p = 0; p < UNIT_PASSES; p++) {
                    const int r = warp * WARP_ROWS + p * UNIT_ROWS + lane / ROW_UNITS; /* the slot's row */
                    const int64_t row = row0 + (int64_t)i * Cfg::EPI_ROWS + r;
                    const uint4 cur = *(const uint4 *)(slot + hg_fam_swizzled<Cfg>(r, u * UNIT_ELEMS));
                    /* Unit u - 1 of the row: this chunk's, or the last of
                     * the previous chunk's (none before a row's first). */
                    const uint4 prev =
                        u > 0   ? *(const uint4 *)(slot + hg_fam_swizzled<Cfg>(r, (u - 1) * UNIT_ELEMS))
                        : q > 0 ? *(const uint4 *)(prev_slot + hg_fam_swizzled<Cfg>(r, (ROW_UNITS - 1) * UNIT_ELEMS))
                                : cur;
                    if (row >= epi.m) continue;
                    uint16_t *x = c16 + row * epi.ldc + ccol;            /* the chunk's row in C */
                    const uint32_t a = (uint32_t)((uintptr_t)x / Cfg::ELEM_BYTES % UNIT_ELEMS);
                    uint16_t *unit0 = x - a;                              /* 16-byte aligned */
                    const uint4 out = units_shift(prev, cur, a);
                    if (u > 0 || q > 0 || a == 0) {
                        *(uint4 *)(unit0 + u * UNIT_ELEMS) = out;
                    } else {
#pragma unroll
                        for (int h = 1; h < UNIT_ELEMS; h++) /* the row's first unit: columns from col0 on */
                            if ((uint32_t)h >= a) unit0[h] = unit_half(out, h);
                    }
                    if (q == G::COL_CHUNKS - 1 && u == ROW_UNITS - 1 && a != 0) {
                        /* The row's last a columns, past its last unit. */
                        const uint4 tail = units_shift(cur, cur, a);
#pragma unroll
                        for (int h = 0; h < UNIT_ELEMS - 1; h++)
                            if ((uint32_t)h < a) unit0[ROW_UNITS * UNIT_ELEMS + h] = unit_half(tail, h);
                    }
                }
                seq++;
            }
        }
    }

    /* tile() with the bias and activation FIN. */
    template <class FIN>
    __device__ __forceinline__ void tile_as(const CUtensorMap *map_c, const CUtensorMap *map_cw,
                                            const typename Cfg::acc_t *acc,
                                            const hg_epilogue &epi,
                                            int64_t row0, int64_t col0, int ctid, int bar_id, bool first_loaded)
    {
        bool loaded = first_loaded;
        /* load_first loaded every chunk (G::WHOLE): none to look ahead for. */
        const bool all_loaded = G::WHOLE && first_loaded;
        if constexpr (FIN::bias) stash_bias(ctid, bar_id);
#pragma unroll
        for (int i = 0; i < Cfg::M_ATOMS; i++) {
#pragma unroll
            for (int q = 0; q < G::COL_CHUNKS; q++) {
                const int64_t r0 = row0 + (int64_t)i * Cfg::EPI_ROWS, c0 = col0 + (int64_t)q * G::COLS;
                if (r0 >= epi.m || c0 >= epi.n) continue;
                /* The next chunk inside C: along the row of atoms, else the
                 * start of the next row. */
                int64_t nr0 = r0, nc0 = c0 + G::COLS;
                bool has_next = q + 1 < G::COL_CHUNKS && nc0 < epi.n;
                if (!has_next) {
                    nr0 = r0 + Cfg::EPI_ROWS, nc0 = col0;
                    has_next = i + 1 < Cfg::M_ATOMS && nr0 < epi.m;
                }
                if (all_loaded) has_next = false;
                chunk<FIN>(map_c, map_cw, acc + i * Cfg::ACC_ATOM_REGS + q * G::REGS_PER_CHUNK, epi, r0, c0, q * G::COLS,
                           ctid, bar_id, loaded, has_next, nr0, nc0);
                loaded = has_next || all_loaded;
            }
        }
    }

    /* Step 4, by the warp's lane 0: the TMA store of the warp's rows of the
     * chunk staged in `slot` (C's rows row0.., columns col0..), and its
     * commit. C is written once and this kernel never reads it back, so its
     * lines go first from L2 (evict_first) instead of pushing out the lines
     * of A and B that the next tiles read: without the policy, at short k
     * (where C's bytes outnumber the operands'), A and B came from HBM
     * several times over (docs/NOTES.md, eleventh session). */
    __device__ __forceinline__ void store_rows(const CUtensorMap *map_cw, const uint8_t *slot, int64_t col0,
                                               int64_t row0) const
    {
        const int warp = hg_fam_warp();
        hg_tma_store_3d_hint(map_cw, slot + warp * Cfg::EPI_BOX_BYTES, (int32_t)col0,
                             (int32_t)(row0 + warp * Cfg::EPI_WARP_ROWS), batch, hg_l2_policy_evict_first());
        hg_cp_async_bulk_commit_group();
    }

    /* The thread's warp in its warp group, read where used. */
    static __device__ __forceinline__ int hg_fam_warp(void)
    {
        return (int)(threadIdx.x / Cfg::WARP_THREADS % (Cfg::WG_THREADS / Cfg::WARP_THREADS));
    }

    /* Before the CTA exits: the last stores' writes are done. */
    __device__ __forceinline__ void finish(int ctid)
    {
        if (ctid % Cfg::WARP_THREADS == 0) hg_cp_async_bulk_wait_group<0>();
    }
};

/* A swapped row's consumer result with beta == 0: its fragment holds C^T
 * (kernel rows are C's columns), so each thread's neighbours along a row of
 * C sit in other lanes, and per-thread stores write C two bytes at a time.
 * Instead the consumer stages its block transposed, as C's rows (BN rows of
 * WG_M elements, 16-byte units permuted by the row mod 8 so the 4 rows a
 * warp's store touches fall in different banks), then each thread stores
 * whole 16-byte units along C's rows; a unit past n or off 16-byte alignment
 * goes element by element. alpha, the bias (C's columns: the kernel's rows)
 * and the activation are applied before staging, in fp32, once. */
template <class Cfg, int DT, class FIN>
static __device__ __forceinline__ void hg_fam_swap_store(const hg_epilogue &e, const typename Cfg::acc_t *frag,
                                                         uint8_t *stage, int64_t krow0, int64_t kcol0, int ctid,
                                                         int bar_id)
{
    static_assert(Cfg::SWAP_AB && Cfg::M_ATOMS == 1, "one m64 atom of C^T per consumer");
    constexpr int WARP_ROWS = hg_fam_frag::WARP_ROWS, QUAD = hg_fam_frag::QUAD, PAIR_COLS = hg_fam_frag::PAIR_COLS;
    constexpr int ROW_BYTES = Cfg::WG_M * Cfg::ELEM_BYTES;          /* one row of C: 128 bytes */
    static_assert(ROW_BYTES == Cfg::ROW_BYTES, "C's staged rows are the swizzle's rows (hg_fam_swizzled)");
    constexpr int UNIT_ELEMS = Cfg::SWIZZLE_UNIT_BYTES / Cfg::ELEM_BYTES; /* 8 */
    constexpr int ROW_UNITS = ROW_BYTES / Cfg::SWIZZLE_UNIT_BYTES;  /* 8 */
    constexpr int UNITS = Cfg::BN * ROW_UNITS;
    static_assert(UNITS % Cfg::WG_THREADS == 0 || Cfg::WG_THREADS % UNITS == 0, "units spread evenly");
    const int warp = ctid / Cfg::WARP_THREADS, lane = ctid % Cfg::WARP_THREADS;
    const int r0 = warp * WARP_ROWS + lane / QUAD; /* the thread's kernel rows r0, r0 + 8: C's columns */
    float bias[2] = {0.0f, 0.0f};
    if constexpr (FIN::bias)
        for (int h = 0; h < 2; h++)
            if (krow0 + r0 + PAIR_COLS * h < e.n) bias[h] = hg_fin_bias<DT, FIN>(e, krow0 + r0 + PAIR_COLS * h);
    /* Element (r, c) of the fragment, r = r0 + 8h, c = 8j + 2 (lane % 4) + x:
     * C's row c, column r, at hg_fam_swizzled(c, r). c % 8 and r / 8 do not
     * depend on j, so the thread's four (h, x) places are fixed offsets, j
     * adding PAIR_COLS rows. */
    uint32_t at[2][2];
#pragma unroll
    for (int h = 0; h < 2; h++)
#pragma unroll
        for (int x = 0; x < 2; x++) at[h][x] = hg_fam_swizzled<Cfg>(2 * (lane % QUAD) + x, r0 + PAIR_COLS * h);
    /* The previous tile's stores have read the stage. */
    hg_bar_sync(bar_id, Cfg::WG_THREADS);
#pragma unroll
    for (int j = 0; j < Cfg::BN / PAIR_COLS; j++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            float v[2];
            hg_acc_pair(frag, 4 * j + 2 * h, &v[0], &v[1]);
#pragma unroll
            for (int x = 0; x < 2; x++)
                *(uint16_t *)(stage + j * PAIR_COLS * ROW_BYTES + at[h][x]) =
                    hg_f32_to_elem<DT>(hg_fin_apply<FIN>(e.alpha * v[x], bias[h]));
        }
    hg_bar_sync(bar_id, Cfg::WG_THREADS);
    const bool vec_ok = ((uintptr_t)e.C % Cfg::SWIZZLE_UNIT_BYTES) == 0 && e.ldc % UNIT_ELEMS == 0;
    uint16_t *c16 = (uint16_t *)e.C; /* a swapped row writes 16-bit C only (config.cuh's WRITES_F32) */
    for (int u = ctid; u < UNITS; u += Cfg::WG_THREADS) {
        const int c = u / ROW_UNITS, q = u % ROW_UNITS;
        const int64_t row = kcol0 + c, col = krow0 + (int64_t)q * UNIT_ELEMS;
        if (row >= e.m || col >= e.n) continue;
        const uint8_t *src = stage + hg_fam_swizzled<Cfg>(c, q * UNIT_ELEMS);
        uint16_t *dst = c16 + row * e.ldc + col;
        if (vec_ok && col + UNIT_ELEMS <= e.n) {
            *(uint4 *)dst = *(const uint4 *)src;
        } else {
            for (int x = 0; x < UNIT_ELEMS && col + x < e.n; x++) dst[x] = ((const uint16_t *)src)[x];
        }
    }
}

