/*
 * mainloop.cuh: the family's producer and consumer for one k block (a stage
 * of the ring, pipeline.cuh), over a configuration (config.cuh).
 *
 * Barriers of stage s, per CTA:
 *   full[s]:  1 arrival (the producer's arrive.expect_tx of STAGE_BYTES) plus
 *             the stage's bytes: this CTA's own operand box and every piece of
 *             the shared operand (its own multicast and the peer's; a
 *             multicast completes its bytes on the barrier at the same offset
 *             in each CTA). A peer's bytes may land before this CTA's
 *             expect_tx; the phase cannot complete early, since the
 *             producer's arrival is still pending, and they cannot land in
 *             the previous phase: the peer refills s only after its empty[s]
 *             completed, which needs this CTA's consumers' releases, which
 *             follow this CTA's full[s].
 *   empty[s]: EMPTY_ARRIVALS = the stage's tile's consumers (both, or with
 *             ping-pong the one that takes the tile) x cluster CTAs: every
 *             such consumer of every CTA whose producer writes into this
 *             CTA's stage releases it to each of them.
 */
#pragma once

#include "../kernels/pipeline.cuh"
#include "../kernels/prof.cuh"
#include "config.cuh"
#include "scheduler.cuh"

/* One operand's piece (ROWS rows of m or n from row0, k from ck) into dst:
 * K-major, one box; MN-major, one box per MN_BLOCK rows, MN_BLOCK_BYTES
 * apart. MCAST: to every CTA of the cluster. */
template <class Cfg, bool MN, int ROWS, bool MCAST>
static __device__ __forceinline__ void hg_fam_load_operand(uint8_t *dst, const CUtensorMap *map, uint64_t *full,
                                                           int32_t ck, int64_t row0, int32_t batch)
{
    constexpr int BOXES = MN ? ROWS / Cfg::MN_BLOCK : 1;
#pragma unroll
    for (int j = 0; j < BOXES; j++) {
        const int32_t row = hg_fam_coord(row0 + (int64_t)j * Cfg::MN_BLOCK);
        const int32_t c0 = MN ? row : ck, c1 = MN ? ck : row; /* (inner, outer) */
        uint8_t *to = dst + j * Cfg::MN_BLOCK_BYTES;
        if constexpr (MCAST) hg_tma_load_3d_multicast(to, map, full, c0, c1, batch, Cfg::CLUSTER_MASK);
        else hg_tma_load_3d(to, map, full, c0, c1, batch);
    }
}

/* The producer's loads of k block kt of the CTA's tile at (offset_m,
 * offset_n) of product `batch` into stage `st` (the whole stage arrives,
 * zeros outside the tensors, even for a tile wholly outside C: its peer
 * needs the shared operand's piece). `rank` picks this CTA's piece of the
 * shared operand. stage_tx: the stage's bytes, fewer for B's edge tile,
 * whose map_b is then the edge map (config.cuh's B_EDGE_BOXES: one box of
 * B, not shared, so the same load). */
template <class Cfg>
static __device__ __forceinline__ void hg_fam_produce_stage(uint8_t *st, uint64_t *full, const CUtensorMap *map_a,
                                                            const CUtensorMap *map_b, int64_t kt, int64_t offset_m,
                                                            int64_t offset_n, int32_t batch, uint32_t rank,
                                                            uint32_t stage_tx = Cfg::STAGE_BYTES)
{
    hg_mbarrier_arrive_expect_tx(full, stage_tx);
    const int32_t ck = (int32_t)(kt * Cfg::BK);
    /* CTAs along n share A; CTAs along m share B. */
    const uint32_t piece_a = Cfg::MCAST_A ? rank / Cfg::CM : 0, piece_b = Cfg::MCAST_B ? rank % Cfg::CM : 0;
    hg_fam_load_operand<Cfg, Cfg::A_MN, Cfg::A_BOX_ROWS, Cfg::MCAST_A>(
        st + piece_a * Cfg::A_BOX_BYTES, map_a, full, ck, offset_m + (int64_t)piece_a * Cfg::A_BOX_ROWS, batch);
    hg_fam_load_operand<Cfg, Cfg::B_MN, Cfg::B_BOX_ROWS, Cfg::MCAST_B>(
        st + Cfg::A_BYTES + piece_b * Cfg::B_BOX_BYTES, map_b, full, ck, offset_n + (int64_t)piece_b * Cfg::B_BOX_ROWS,
        batch);
}

/* An operand's descriptor at addr, for its layout (config.cuh). */
template <class Cfg, bool MN> static __device__ __forceinline__ uint64_t hg_fam_desc(uint32_t addr)
{
    return MN ? hg_wgmma_desc_sw128_mn(addr, Cfg::MN_BLOCK_BYTES) : hg_wgmma_desc_sw128(addr);
}

/* One consumer's wgmmas for one stage: K_SLICES k16 slices x M_ATOMS m64
 * atoms of m64nBNk16, one commit group. `a` is the consumer's rows of A in
 * the stage, `b` the stage's B. A slice starts A_DESC_K_STEP (B_DESC_K_STEP)
 * further in the descriptors' address field (the tiles sit below 256 KiB,
 * 1024-aligned, a stage's last slice 6 KiB past its block's start: the
 * addition never carries out of the field). first_scale_d: the first
 * slice's scale-d (0: it overwrites the accumulators, a piece's start). */
template <class Cfg, int DT>
static __device__ __forceinline__ void hg_fam_mma_stage(typename Cfg::acc_t *acc, uint32_t a, uint32_t b,
                                                        int first_scale_d)
{
    const uint64_t db = hg_fam_desc<Cfg, Cfg::B_MN>(b);
    uint64_t da[Cfg::M_ATOMS];
#pragma unroll
    for (int i = 0; i < Cfg::M_ATOMS; i++) da[i] = hg_fam_desc<Cfg, Cfg::A_MN>(a + i * Cfg::ATOM_A_BYTES);
    hg_wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < Cfg::K_SLICES; kk++)
#pragma unroll
        for (int i = 0; i < Cfg::M_ATOMS; i++)
            hg_wgmma_m64k16<Cfg::BN, DT, Cfg::TRANS_A, Cfg::TRANS_B>(
                acc + i * Cfg::ACC_ATOM_REGS, da[i] + kk * Cfg::A_DESC_K_STEP, db + kk * Cfg::B_DESC_K_STEP,
                kk == 0 ? first_scale_d : 1);
    hg_wgmma_commit_group();
}

/* consumer_release: one thread of a consumer tells every producer that
 * writes into this stage (its own and, with multicast, the peer's) that the
 * consumer is done reading it. Relaxed: the consumer only read the stage.
 * A barrier's cluster address comes from mapa; rank == own rank works too. */
template <class Cfg> static __device__ __forceinline__ void hg_fam_consumer_release(uint64_t *bar)
{
    if constexpr (Cfg::TILE_CTAS > 1) { /* (a k split's CTAs share no stage: CK > 1 has TILE_CTAS 1) */
        const uint32_t local = hg_smem_addr(bar);
#pragma unroll
        for (uint32_t r = 0; r < (uint32_t)Cfg::TILE_CTAS; r++)
            hg_mbarrier_arrive_remote_relaxed(hg_mapa_shared_cluster(local, r));
    } else {
        hg_mbarrier_arrive(bar);
    }
}

/* consumer_wait, timed for the profiling build (pr: its sums). */
static __device__ __forceinline__ void hg_fam_consumer_wait(const hg_pipeline &pipe, hg_pipe_cursor cur,
                                                            hg_prof_consumer *pr)
{
    const uint32_t t0 = hg_prof_clock();
    hg_pipe_consumer_acquire_converged(pipe, cur);
    pr->full += hg_prof_clock() - t0;
}

/* One consumer's mainloop over k blocks [0, k_count) of a piece (its rows of A:
 * part, kernel.cuh's consumer part of the tile): the ring's
 * cursor carries over from piece to piece. Every stage it acquires is
 * released before it returns, so the producer fills the next piece's stages
 * while this one's epilogue runs. With ZERO_BY_SCALE_D the first stage's
 * first slice starts the accumulators; else the caller zeroed them.
 * under_first: run once the first stage's wgmmas are issued, under them
 * (work that waits but does not touch the accumulators). */
template <class Cfg, int DT, class UnderFirst>
static __device__ __forceinline__ void hg_fam_consume(typename Cfg::acc_t *acc, const hg_pipeline &pipe,
                                                      hg_pipe_cursor *cur,
                                                      uint8_t *smem, int part, int ctid, int64_t k_count,
                                                      hg_prof_consumer *pr, UnderFirst &&under_first)
{
    const uint32_t a_off = (uint32_t)(part * Cfg::WG_A_BYTES); /* the consumer's rows of A */
    if constexpr (Cfg::EARLY_RELEASE) {
        /* Release each stage as soon as its own wgmmas are done, before
         * waiting for the next one: a slot turns over in one tensor-work
         * time plus the refill's round trip. */
        for (int64_t kt = 0; kt < k_count; kt++) {
            hg_fam_consumer_wait(pipe, *cur, pr);
            const uint32_t st = hg_smem_addr(smem + cur->stage * Cfg::STAGE_BYTES);
            hg_fam_mma_stage<Cfg, DT>(acc, st + a_off, st + Cfg::A_BYTES, !Cfg::ZERO_BY_SCALE_D || kt != 0);
            if (kt == 0) under_first();
            hg_wgmma_wait_group<0>();
            hg_acc_fence<Cfg::ACC_REGS>(acc);
            if (ctid == 0) hg_fam_consumer_release<Cfg>(hg_pipe_consumer_barrier(pipe, *cur));
            hg_pipe_advance(pipe, cur);
        }
    } else {
        /* V5's order: issue stage kt, wait until only its group is pending,
         * release stage kt - 1; drain and release the last at the end. The
         * first stage is peeled (k_count >= 1), so the loop body has no
         * branch around its wait. */
        hg_fam_consumer_wait(pipe, *cur, pr);
        {
            const uint32_t st = hg_smem_addr(smem + cur->stage * Cfg::STAGE_BYTES);
            hg_fam_mma_stage<Cfg, DT>(acc, st + a_off, st + Cfg::A_BYTES, !Cfg::ZERO_BY_SCALE_D);
        }
        under_first();
        hg_pipe_advance(pipe, cur);
        for (int64_t kt = 1; kt < k_count; kt++) {
            hg_fam_consumer_wait(pipe, *cur, pr);
            const uint32_t st = hg_smem_addr(smem + cur->stage * Cfg::STAGE_BYTES);
            hg_fam_mma_stage<Cfg, DT>(acc, st + a_off, st + Cfg::A_BYTES, 1);
            const uint32_t t1 = hg_prof_clock();
            hg_wgmma_wait_group<1>();
            pr->starved += hg_prof_clock() - t1 < HG_PROF_STARVED_CYCLES;
            if (ctid == 0) hg_fam_consumer_release<Cfg>(hg_pipe_prev_consumer_barrier(pipe, *cur));
            hg_pipe_advance(pipe, cur);
        }
        hg_wgmma_wait_group<0>();
        hg_acc_fence<Cfg::ACC_REGS>(acc);
        if (ctid == 0) hg_fam_consumer_release<Cfg>(hg_pipe_prev_consumer_barrier(pipe, *cur));
    }
}
