/*
 * V1: the same TMA loads as V0, but wgmma.mma_async reads both operands
 * straight from shared memory.
 *
 * What changed from V0, and why: V0 copied every operand fragment from shared
 * memory into registers (ldmatrix) before mma.sync could see it, one warp at a
 * time. Hopper's warp-group MMA (wgmma.mma_async) is issued by a whole warp
 * group (4 warps, 128 threads) and takes A and B as shared-memory matrix
 * descriptors (start address, stride between 8-row swizzle atoms, 128-byte
 * swizzle mode): the register round trip disappears, one instruction covers
 * 64 x 128 x 16, and the tensor cores run asynchronously until the warp group
 * waits for them. The protocol: wgmma.fence before the first wgmma of a k
 * block, the wgmmas, wgmma.commit_group to close them into a group,
 * wgmma.wait_group 0 to wait for it. The TMA tiles V0 already wrote 128-byte
 * swizzled are exactly the K-major layout the descriptors describe.
 *
 * Tile 128 x 128, block_k 64, one stage (load, wait, compute, wait, sync,
 * repeat: the copy engine and the tensor cores still take turns; V2 overlaps
 * them). One warp group, 128 threads: thread 0 issues the two TMA loads, all
 * 128 threads wait on the barrier and issue the wgmmas. Per k16 slice, two
 * m64n128k16: rows 0-63 of A and rows 64-127 of A, each against all 128 rows
 * of B; 2 x 64 fp32 accumulators per thread. 1-D grid over tiles, grouped
 * rasterization (groups of 8 tile columns). Serves TN (A m x k, B n x k).
 *
 * Tutorial (H100 SXM, 8192^3 fp16): 73% of cuBLAS.
 * Measured on the H200 (2026-11-29, fp16 TN, median of 3 processes): 8192^3
 * 1.871 ms, 588 TFLOPS, 0.77 of cuBLAS-best; tensor pipe 75%. docs/v1.md.
 */
#include "common.cuh"

enum {
    V1_BM = 128,
    V1_BN = 128,
    V1_BK = 64,
    V1_THREADS = 128, /* one warp group */
    V1_RASTER_GROUP = 8,
    V1_A_BYTES = V1_BM * V1_BK * 2, /* 16 KiB */
    V1_B_BYTES = V1_BN * V1_BK * 2, /* 16 KiB */
    V1_SMEM = V1_A_BYTES + V1_B_BYTES + 1024 /* alignment slack */,
};

template <int DT>
__global__ void __launch_bounds__(V1_THREADS, 1)
    hg_v1_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                 hg_epilogue epi, int k_tiles, int64_t m_blocks, int64_t n_blocks)
{
    extern __shared__ uint8_t smem_raw[];
    /* One barrier. Arrive count 1: thread 0's arrive.expect_tx; a phase
     * completes when that arrival is in and all A_BYTES + B_BYTES landed. */
    __shared__ uint64_t full;

    /* The 128-byte swizzle (TMA's and the descriptors') needs 1024-byte
     * aligned tiles; A_BYTES is a multiple of 1024, so B's tile is too. */
    uint8_t *smem = hg_smem_align1024(smem_raw);
    uint8_t *sa = smem, *sb = smem + V1_A_BYTES;
    const uint32_t sa_addr = hg_smem_addr(sa), sb_addr = hg_smem_addr(sb);

    int64_t m_block, n_block;
    hg_raster_tile(blockIdx.x, m_blocks, n_blocks, V1_RASTER_GROUP, &m_block, &n_block);
    /* Tile origins are < m, n <= 2^31 - 1 (can_serve), so they fit TMA's int32. */
    const int32_t row0 = (int32_t)(m_block * V1_BM), col0 = (int32_t)(n_block * V1_BN);
    const int tid = threadIdx.x;

    if (tid == 0) {
        hg_prefetch_tensormap(&map_a);
        hg_prefetch_tensormap(&map_b);
        hg_mbarrier_init(&full, 1);
        hg_fence_mbarrier_init_cluster();  /* the init is visible ... */
        hg_fence_proxy_async_shared_cta(); /* ... to the copy engine too */
    }
    __syncthreads();

    float acc0[64], acc1[64]; /* rows 0-63 and 64-127 of the tile, m64n128 fragments */
#pragma unroll
    for (int i = 0; i < 64; i++) {
        acc0[i] = 0.0f;
        acc1[i] = 0.0f;
    }

    for (int kt = 0; kt < k_tiles; kt++) {
        if (tid == 0) {
            /* The whole boxes count, edge tiles included: TMA fills what lies
             * outside the matrix with zeros and still delivers every byte. */
            hg_mbarrier_arrive_expect_tx(&full, V1_A_BYTES + V1_B_BYTES);
            hg_tma_load_2d(sa, &map_a, &full, kt * V1_BK, row0);
            hg_tma_load_2d(sb, &map_b, &full, kt * V1_BK, col0);
        }
        /* Phase kt of the barrier completes when k block kt has landed: wait
         * for parity kt & 1. No thread can be a phase behind: thread 0 re-arms
         * only after the __syncthreads below, which every thread reaches after
         * its own wait. */
        hg_mbarrier_wait(&full, (uint32_t)(kt & 1));

        /* Two m64n128 halves, eight wgmmas, then wait_group 0. */
        hg_wgmma_128x128_k64_wait<DT>(acc0, acc1, sa_addr, sb_addr);
        /* Every warp's wgmmas are done reading the tiles before thread 0
         * issues the next k block's TMA over them. */
        __syncthreads();
    }

    /* Every load issued was waited for above: nothing is still in flight. */
    hg_store_wgmma_acc<DT, 128>(epi, acc0, (int64_t)row0, (int64_t)col0, tid);
    hg_store_wgmma_acc<DT, 128>(epi, acc1, (int64_t)row0 + 64, (int64_t)col0, tid);
}

static const hg_tile_grid v1_grid = {"v1", V1_BM, V1_BN, V1_BK, V1_THREADS, V1_SMEM};

const char *hg__v1_can_serve(const hg__problem *p, const hg__device *d)
{
    return hg_tile_grid_can_serve(p, d, &v1_grid);
}

hg_status hg__v1_launch(const hg__problem *p, const hg__device *d, struct CUstream_st *s, hg__err *e)
{
    (void)d;
    return hg_tile_grid_launch(p, s, e, &v1_grid, (const void *)hg_v1_kernel<0>, (const void *)hg_v1_kernel<1>);
}
