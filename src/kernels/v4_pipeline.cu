/*
 * v4_pipeline.cu: kernel V4, the pipeline ring and two consumer warp groups.
 *
 * What changed from V3, and why. V3 had one consumer warp group that issued
 * its wgmmas and at once waited for them (wait_group 0), so between that wait
 * and the next barrier wait the tensor cores had nothing queued. V4 gives them
 * a second, independent stream of work: two consumer warp groups split the
 * output tile by rows and read the same B tile. The barrier / stage / phase
 * bookkeeping moves into the ring of pipeline.cuh (acquire, barrier, advance
 * for either side), and the 1-D grid is rasterized in bands of 4 tile columns
 * so that the CTAs running at one time share A and B tiles in L2. Each
 * consumer still waits for its wgmmas to finish (wait_group 0) before it
 * releases the stage; V5 removes that wait.
 *
 * Tile: 128 x 256 (M x N), k block 64. Consumer warp group w computes rows
 *   64w .. 64w+63 of the tile with four m64n256k16 wgmmas per k block
 *   (64 x 256 fp32 accumulators: 128 registers per thread).
 * Stages: 3, each A 128 x 64 (16 KiB, two 64-row slabs of 8 KiB: slab w is
 *   warp group w's A operand) + B 256 x 64 (32 KiB) = 48 KiB; 144 KiB in all.
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
 * 1.603 ms, 686 TFLOPS, 0.90 of cuBLAS-best; tensor pipe 91%. docs/v4.md.
 * (The tutorial's H100 figure, for orientation only: 86% of cuBLAS.)
 */
#include "common.cuh"
#include "pipeline.cuh"

enum {
    V4_BM = 128,                                /* tile rows (M) */
    V4_BN = 256,                                /* tile columns (N) = wgmma N */
    V4_BK = 64,                                 /* k block: one 128-byte swizzled row */
    V4_WG_M = 64,                               /* rows per consumer warp group = wgmma M */
    V4_STAGES = 3,
    V4_GROUP = 4,                               /* rasterization band, tiles along N */
    V4_CONSUMERS = 2,                           /* consumer warp groups */
    V4_THREADS = V4_CONSUMERS * 128 + 32,       /* 288 */
    V4_PRODUCER_WARP = V4_CONSUMERS * 4,        /* warp 8 */
    V4_A_SLAB_BYTES = V4_WG_M * V4_BK * 2,      /* 8192 */
    V4_A_BYTES = V4_BM * V4_BK * 2,             /* 16384 */
    V4_B_BYTES = V4_BN * V4_BK * 2,             /* 32768 */
    V4_STAGE_BYTES = V4_A_BYTES + V4_B_BYTES,   /* 49152: the full barrier's expect_tx */
    V4_BAR_BYTES = 2 * V4_STAGES * 8,           /* full[] and empty[] mbarriers */
    V4_SMEM_BYTES = 1024 + V4_STAGES * V4_STAGE_BYTES + V4_BAR_BYTES, /* 148528 (+1024: alignment) */
    V4_ACC = V4_WG_M * V4_BN / 128,             /* 128 fp32 accumulators per thread */
};

/* Dynamic shared memory: [stage 0: A | B][stage 1]...[full[3] | empty[3]]. */
extern __shared__ uint8_t hg_v4_smem[];




template <int DT>
__global__ void __launch_bounds__(V4_THREADS, 1)
    hg_v4_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                 hg_epilogue epi, int k_tiles, int64_t m_blocks, int64_t n_blocks)
{
    uint8_t *smem = hg_smem_align1024(hg_v4_smem);
    hg_pipeline pipe;
    pipe.full = (uint64_t *)(smem + V4_STAGES * V4_STAGE_BYTES);
    pipe.empty = pipe.full + V4_STAGES;
    pipe.stages = V4_STAGES;

    const int tid = threadIdx.x;
    if (tid == 0) {
        /* full[s]: 1 arrival (the producer's arrive.expect_tx) + the bytes.
         * empty[s]: 2 arrivals, one elected thread per consumer warp group. */
        hg_pipeline_init(pipe, 1, V4_CONSUMERS);
        hg_fence_mbarrier_init_cluster();
    }
    __syncthreads();

    int64_t mb, nb;
    hg_raster_tile(blockIdx.x, m_blocks, n_blocks, V4_GROUP, &mb, &nb);
    const int64_t row0 = mb * V4_BM, col0 = nb * V4_BN;

    if (tid / 32 == V4_PRODUCER_WARP) {
        if (tid % 32 == 0) hg_pipe_produce_tn(pipe, smem, V4_STAGE_BYTES, V4_A_BYTES, V4_BK, &map_a, &map_b, k_tiles,
                                               (int32_t)row0, (int32_t)col0);
        return;
    }

    /* Consumer warp group wg: tile rows 64wg..64wg+63, A slab wg. */
    const int wg = tid / 128, tid_in_wg = tid % 128;
    float acc[V4_ACC];
#pragma unroll
    for (int i = 0; i < V4_ACC; i++) acc[i] = 0.0f;

    /* The consumer cursor starts at phase 0: the first completion of full[s].
     * Each k block: wait full, issue and finish the wgmmas, release the slot
     * (one arrival of empty[s]'s two), advance (phase flips on wrap). */
    hg_pipe_cursor c = hg_pipe_consumer_start();
    for (int kt = 0; kt < k_tiles; kt++) {
        hg_pipe_consumer_acquire(pipe, c);
        uint32_t stage = hg_smem_addr(smem + c.stage * V4_STAGE_BYTES);
        hg_wgmma_k64_block<V4_BN, DT>(acc, stage + wg * V4_A_SLAB_BYTES, stage + V4_A_BYTES);
        hg_wgmma_wait_group<0>();
        hg_acc_fence<V4_ACC>(acc);
        /* This thread's wait covers the warp group's whole wgmma (a single
         * collective operation), so its shared-memory reads are over. */
        if (tid_in_wg == 0) hg_mbarrier_arrive(hg_pipe_consumer_barrier(pipe, c));
        hg_pipe_advance(pipe, &c);
    }

    hg_store_wgmma_acc<DT, V4_BN>(epi, acc, row0 + wg * V4_WG_M, col0, tid_in_wg);
}

static const hg_tile_grid v4_grid = {"v4", V4_BM, V4_BN, V4_BK, V4_THREADS, V4_SMEM_BYTES};

extern "C" const char *hg__v4_can_serve(const hg__problem *p, const hg__device *d)
{
    return hg_tile_grid_can_serve(p, d, &v4_grid);
}

extern "C" hg_status hg__v4_launch(const hg__problem *p, const hg__device *d, struct CUstream_st *s, hg__err *e)
{
    (void)d;
    return hg_tile_grid_launch(p, s, e, &v4_grid, (const void *)hg_v4_kernel<0>, (const void *)hg_v4_kernel<1>);
}
