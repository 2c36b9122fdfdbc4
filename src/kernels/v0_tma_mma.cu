/*
 * V0: TMA loads into shared memory, one mbarrier, mma.sync from registers.
 *
 * What is new (against the generic kernel, which loads with cp.async): one
 * thread issues two bulk tensor copies (cp.async.bulk.tensor) per k block, A's
 * 64 x 64 and B's 128 x 64 tile, onto one mbarrier armed with the expected
 * byte count (mbarrier.arrive.expect_tx); every thread waits on the barrier's
 * phase. The copy engine computes the addresses, clips at the matrix edges
 * (out-of-bounds elements land as zeros) and writes the tiles 128-byte
 * swizzled, so ldmatrix reads them without bank conflicts. The math is still
 * the Ampere path: ldmatrix into registers, mma.sync m16n8k16, fp32 accumulators.
 *
 * Tile 64 x 128, block_k 64, one stage (load, wait, compute, sync, repeat: the
 * copy engine and the tensor cores never overlap). 4 warps in a 2 x 2 grid,
 * each 32 x 64. Serves TN (A m x k, B n x k, both K-major).
 *
 * Tutorial (H100 SXM, 8192^3 fp16): 41% of cuBLAS.
 * Measured on the H200 (2026-11-29, fp16 TN, median of 3 processes): 8192^3
 * 2.813 ms, 391 TFLOPS, 0.51 of cuBLAS-best; tensor pipe 65%. docs/v0.md.
 */
#include "common.cuh"

enum {
    V0_BM = 64,
    V0_BN = 128,
    V0_BK = 64,
    V0_THREADS = 128,
    V0_RASTER_GROUP = 8,
    V0_A_BYTES = V0_BM * V0_BK * 2, /* 8 KiB */
    V0_B_BYTES = V0_BN * V0_BK * 2, /* 16 KiB */
    V0_SMEM = V0_A_BYTES + V0_B_BYTES + 1024 /* alignment slack */,
};

/* Address of element (row, k) of a [rows][64] tile written by TMA with the
 * 128-byte swizzle: the 16-byte chunk k/8 of row r sits at chunk (k/8) ^ (r%8).
 * k is a multiple of 8 here. The tile base is 1024-byte aligned. */
static __device__ __forceinline__ uint32_t v0_sw128(uint32_t base, int row, int k)
{
    return base + row * 128 + ((((k >> 3) ^ row) & 7) << 4);
}

template <int DT>
__global__ void __launch_bounds__(V0_THREADS, 1)
    hg_v0_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                 hg_epilogue epi, int k_tiles, int64_t m_blocks, int64_t n_blocks)
{
    extern __shared__ uint8_t smem_raw[];
    __shared__ uint64_t full; /* one barrier: arrive count 1 (thread 0's expect_tx) + the tile bytes */

    uint8_t *smem = hg_smem_align1024(smem_raw);
    uint8_t *sa = smem, *sb = smem + V0_A_BYTES;
    const uint32_t sa_addr = hg_smem_addr(sa), sb_addr = hg_smem_addr(sb);

    int64_t m_block, n_block;
    hg_raster_tile(blockIdx.x, m_blocks, n_blocks, V0_RASTER_GROUP, &m_block, &n_block);
    const int32_t row0 = (int32_t)(m_block * V0_BM), col0 = (int32_t)(n_block * V0_BN);

    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wm = warp / 2, wn = warp % 2; /* this warp's 32 x 64 piece */

    if (tid == 0) {
        hg_prefetch_tensormap(&map_a);
        hg_prefetch_tensormap(&map_b);
        hg_mbarrier_init(&full, 1);
        hg_fence_proxy_async_shared_cta(); /* the init is seen by the copy engine */
    }
    __syncthreads();

    float acc[2][8][4];
#pragma unroll
    for (int i = 0; i < 2; i++)
#pragma unroll
        for (int j = 0; j < 8; j++)
#pragma unroll
            for (int r = 0; r < 4; r++) acc[i][j][r] = 0.0f;

    for (int kt = 0; kt < k_tiles; kt++) {
        if (tid == 0) {
            /* The whole boxes count, edge tiles included: TMA fills what lies
             * outside the matrix with zeros and still delivers every byte. */
            hg_mbarrier_arrive_expect_tx(&full, V0_A_BYTES + V0_B_BYTES);
            hg_tma_load_2d(sa, &map_a, &full, kt * V0_BK, row0);
            hg_tma_load_2d(sb, &map_b, &full, kt * V0_BK, col0);
        }
        /* One phase per k block: phase kt completes when the bytes land, so
         * its parity is kt & 1. */
        hg_mbarrier_wait(&full, (uint32_t)(kt & 1));

#pragma unroll
        for (int kk = 0; kk < V0_BK; kk += 16) {
            uint32_t a[2][4], b[8][2];
#pragma unroll
            for (int i = 0; i < 2; i++) {
                /* lanes 0-7: rows 0-7 k 0-7; 8-15: rows 8-15 k 0-7; 16-23: rows 0-7
                 * k 8-15; 24-31: rows 8-15 k 8-15 -> a0..a3 of m16n8k16. */
                int r = wm * 32 + i * 16 + (lane % 8) + ((lane / 8) % 2) * 8;
                hg_ldmatrix_x4(a[i], v0_sw128(sa_addr, r, kk + (lane / 16) * 8));
            }
#pragma unroll
            for (int j = 0; j < 8; j += 2) {
                /* B is n x k in shared memory, which is mma's "col" operand as is:
                 * matrices n0-7/k0-7, n0-7/k8-15, n8-15/k0-7, n8-15/k8-15 are
                 * b0, b1 of n-tile j and b0, b1 of n-tile j + 1. */
                int r = wn * 64 + j * 8 + (lane % 8) + (lane / 16) * 8;
                uint32_t t[4];
                hg_ldmatrix_x4(t, v0_sw128(sb_addr, r, kk + ((lane / 8) % 2) * 8));
                b[j][0] = t[0];
                b[j][1] = t[1];
                b[j + 1][0] = t[2];
                b[j + 1][1] = t[3];
            }
#pragma unroll
            for (int i = 0; i < 2; i++)
#pragma unroll
                for (int j = 0; j < 8; j++) hg_mma_m16n8k16<DT>(acc[i][j], a[i], b[j]);
        }
        /* Everyone is done reading the tile before thread 0 refills it. */
        __syncthreads();
    }

    /* m16n8 accumulator: c0, c1 at row lane/4, columns 2*(lane%4) + {0, 1};
     * c2, c3 eight rows below. */
#pragma unroll
    for (int i = 0; i < 2; i++) {
        int64_t r = (int64_t)row0 + wm * 32 + i * 16 + lane / 4;
#pragma unroll
        for (int j = 0; j < 8; j++) {
            int64_t c = (int64_t)col0 + wn * 64 + j * 8 + 2 * (lane % 4);
            hg_store_pair<DT>(epi, r, c, acc[i][j][0], acc[i][j][1]);
            hg_store_pair<DT>(epi, r + 8, c, acc[i][j][2], acc[i][j][3]);
        }
    }
}

static const hg_tile_grid v0_grid = {"v0", V0_BM, V0_BN, V0_BK, V0_THREADS, V0_SMEM};

const char *hg__v0_can_serve(const hg__problem *p, const hg__device *d)
{
    return hg_tile_grid_can_serve(p, d, &v0_grid);
}

hg_status hg__v0_launch(const hg__problem *p, const hg__device *d, struct CUstream_st *s, hg__err *e)
{
    (void)d;
    return hg_tile_grid_launch(p, s, e, &v0_grid, (const void *)hg_v0_kernel<0>, (const void *)hg_v0_kernel<1>);
}
