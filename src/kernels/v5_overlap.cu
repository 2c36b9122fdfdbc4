/*
 * v5_overlap.cu: kernel V5, one wgmma group kept in flight.
 *
 * What changed from V4, and why. In V4 each consumer warp group issued a k
 * block's wgmmas and then waited for all of them (wait_group 0) before it
 * released the stage and waited for the next one, so once per k block per
 * group the tensor cores ran dry while the group did its barrier handshake.
 * V5 issues k block i's wgmmas first and only then waits for k block i-1's
 * (wait_group 1): one group is always queued behind the one that is running.
 * The group still in flight keeps reading its stage, so the release lags one
 * k block (hg_pipe_prev_consumer_barrier) and each consumer holds two stages
 * at a time; the ring grows to 4 stages to keep the producer ahead. The loop
 * takes a prologue (k block 0: issue, no wait), a steady state (issue i, wait
 * for i-1, release i-1) and an epilogue (wait for the last, release it).
 * Everything else (tile, warp roles, producer, rasterization, epilogue) is
 * V4's.
 *
 * Tile: 128 x 256 (M x N), k block 64. Consumer warp group w computes rows
 *   64w .. 64w+63 of the tile with four m64n256k16 wgmmas per k block
 *   (64 x 256 fp32 accumulators: 128 registers per thread).
 * Stages: 4, each A 128 x 64 (16 KiB, two 64-row slabs of 8 KiB: slab w is
 *   warp group w's A operand) + B 256 x 64 (32 KiB) = 48 KiB; 192 KiB in all
 *   (193 KiB with the alignment slack and the barriers, within the 227 KiB a
 *   block may opt in to on H100/H200; can_serve checks the device's figure).
 *   Both tiles 128-byte swizzled, K-major, every tile 1024-byte aligned.
 * Warp roles, 288 threads (9 warps):
 *   threads   0..127  consumer warp group 0 (tile rows   0..63)
 *   threads 128..255  consumer warp group 1 (tile rows  64..127)
 *   threads 256..287  producer warp; lane 0 issues every TMA load, the other
 *                     31 lanes leave at once.
 * Grid: one CTA per output tile, 1-D, grouped rasterization (hg_raster_tile,
 *   group 4 along N).
 *
 * Measured on the H200 (2026-11-29, fp16 TN, median of 3 processes): 8192^3
 * 1.611 ms, 683 TFLOPS, 0.90 of cuBLAS-best; tensor pipe 92%. docs/v5.md.
 * (The tutorial's H100 figures, for orientation only: 1.62 ms at 8192^3 fp16,
 * 678 TFLOPS, 91% of cuBLAS; tensor pipe active 88%, up from V4's 80%.)
 */
#include "common.cuh"
#include "pipeline.cuh"

enum {
    V5_BM = 128,                                /* tile rows (M) */
    V5_BN = 256,                                /* tile columns (N) = wgmma N */
    V5_BK = 64,                                 /* k block: one 128-byte swizzled row */
    V5_WG_M = 64,                               /* rows per consumer warp group = wgmma M */
    V5_STAGES = 4,
    V5_GROUP = 4,                               /* rasterization band, tiles along N */
    V5_CONSUMERS = 2,                           /* consumer warp groups */
    V5_THREADS = V5_CONSUMERS * 128 + 32,       /* 288 */
    V5_PRODUCER_WARP = V5_CONSUMERS * 4,        /* warp 8 */
    V5_A_SLAB_BYTES = V5_WG_M * V5_BK * 2,      /* 8192 */
    V5_A_BYTES = V5_BM * V5_BK * 2,             /* 16384 */
    V5_B_BYTES = V5_BN * V5_BK * 2,             /* 32768 */
    V5_STAGE_BYTES = V5_A_BYTES + V5_B_BYTES,   /* 49152: the full barrier's expect_tx */
    V5_BAR_BYTES = 2 * V5_STAGES * 8,           /* full[] and empty[] mbarriers */
    V5_SMEM_BYTES = 1024 + V5_STAGES * V5_STAGE_BYTES + V5_BAR_BYTES, /* 197696 (+1024: alignment) */
    V5_ACC = V5_WG_M * V5_BN / 128,             /* 128 fp32 accumulators per thread */
};

/* Dynamic shared memory: [stage 0: A | B][stage 1]...[full[4] | empty[4]]. */
extern __shared__ uint8_t hg_v5_smem[];




template <int DT>
__global__ void __launch_bounds__(V5_THREADS, 1)
    hg_v5_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                 hg_epilogue epi, int k_tiles, int64_t m_blocks, int64_t n_blocks)
{
    uint8_t *smem = hg_smem_align1024(hg_v5_smem);
    hg_pipeline pipe;
    pipe.full = (uint64_t *)(smem + V5_STAGES * V5_STAGE_BYTES);
    pipe.empty = pipe.full + V5_STAGES;
    pipe.stages = V5_STAGES;

    const int tid = threadIdx.x;
    if (tid == 0) {
        /* full[s]: 1 arrival (the producer's arrive.expect_tx) + the bytes.
         * empty[s]: 2 arrivals, one elected thread per consumer warp group. */
        hg_pipeline_init(pipe, 1, V5_CONSUMERS);
        hg_fence_mbarrier_init_cluster();
    }
    __syncthreads();

    int64_t mb, nb;
    hg_raster_tile(blockIdx.x, m_blocks, n_blocks, V5_GROUP, &mb, &nb);
    const int64_t row0 = mb * V5_BM, col0 = nb * V5_BN;

    if (tid / 32 == V5_PRODUCER_WARP) {
        if (tid % 32 == 0) hg_pipe_produce_tn(pipe, smem, V5_STAGE_BYTES, V5_A_BYTES, V5_BK, &map_a, &map_b, k_tiles,
                                               (int32_t)row0, (int32_t)col0);
        return;
    }

    /* Consumer warp group wg: tile rows 64wg..64wg+63, A slab wg. */
    const int wg = tid / 128, tid_in_wg = tid % 128;
    float acc[V5_ACC];
#pragma unroll
    for (int i = 0; i < V5_ACC; i++) acc[i] = 0.0f;

    /*
     * The consumer cursor starts at phase 0: the first completion of full[s];
     * it flips on each wrap. Every k block is released exactly once by each
     * warp group (one arrival of empty[s]'s two), one k block late: when the
     * wgmmas of k block i are committed, wait_group 1 returns once k block
     * i-1's group (and every earlier one) has finished, but k block i's group
     * may still be reading its stage. The cursor then still points at i, so
     * the finished slot is the one behind it (hg_pipe_prev_consumer_barrier).
     * Each warp group thus holds at most two stages, and before it waits for
     * k block i+1 it has released k block i-1. To load i+1 the producer needs
     * the release of i+1 - 4, already given (i+1 - stages <= i-1 holds for
     * any depth >= 2), so the ring cannot deadlock.
     */
    hg_pipe_cursor c = hg_pipe_consumer_start();

    /* Prologue: k block 0, issued and left in flight (one group pending). */
    hg_pipe_consumer_acquire(pipe, c);
    uint32_t stage = hg_smem_addr(smem + c.stage * V5_STAGE_BYTES);
    hg_wgmma_k64_block<V5_BN, DT>(acc, stage + wg * V5_A_SLAB_BYTES, stage + V5_A_BYTES);
    hg_pipe_advance(pipe, &c);

    /* Steady state: issue k block kt (two groups pending), wait until only
     * it is pending, release k block kt-1's slot. The group issued before may
     * still be running when kt's wgmmas are issued: wgmmas of one shape that
     * accumulate into the same registers are ordered by the hardware, so no
     * wait is needed between the two groups. */
    for (int kt = 1; kt < k_tiles; kt++) {
        hg_pipe_consumer_acquire(pipe, c);
        stage = hg_smem_addr(smem + c.stage * V5_STAGE_BYTES);
        hg_wgmma_k64_block<V5_BN, DT>(acc, stage + wg * V5_A_SLAB_BYTES, stage + V5_A_BYTES);
        hg_wgmma_wait_group<1>();
        hg_acc_fence<V5_ACC>(acc);
        /* This thread's wait covers the warp group's whole wgmma group (each
         * wgmma is one collective operation), so k block kt-1's shared-memory
         * reads are over. */
        if (tid_in_wg == 0) hg_mbarrier_arrive(hg_pipe_prev_consumer_barrier(pipe, c));
        hg_pipe_advance(pipe, &c);
    }

    /* Epilogue: wait for the last group; the cursor is one past the last k
     * block, so the previous slot is the last one (k_tiles = 1 included:
     * the prologue's slot 0). */
    hg_wgmma_wait_group<0>();
    hg_acc_fence<V5_ACC>(acc);
    if (tid_in_wg == 0) hg_mbarrier_arrive(hg_pipe_prev_consumer_barrier(pipe, c));

    hg_store_wgmma_acc<DT, V5_BN>(epi, acc, row0 + wg * V5_WG_M, col0, tid_in_wg);
}

static const hg_tile_grid v5_grid = {"v5", V5_BM, V5_BN, V5_BK, V5_THREADS, V5_SMEM_BYTES};

extern "C" const char *hg__v5_can_serve(const hg__problem *p, const hg__device *d)
{
    return hg_tile_grid_can_serve(p, d, &v5_grid);
}

extern "C" hg_status hg__v5_launch(const hg__problem *p, const hg__device *d, struct CUstream_st *s, hg__err *e)
{
    (void)d;
    return hg_tile_grid_launch(p, s, e, &v5_grid, (const void *)hg_v5_kernel<0>, (const void *)hg_v5_kernel<1>);
}
