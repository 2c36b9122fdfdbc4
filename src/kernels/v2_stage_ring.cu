/*
 * V2: a ring of shared-memory stages, loads issued ahead of the math.
 *
 * What changed from V1, and why: in V1 the copy engine and the tensor cores
 * took turns (load k block, wait, multiply, wait, sync, load the next one).
 * V2 splits shared memory into V2_STAGES slots, each with its own mbarrier,
 * fills the first V2_STAGES slots before the main loop, and every time a slot
 * has been multiplied, refills it with the k block V2_STAGES ahead; so while
 * the tensor cores work on slot s, the loads of the next slots are in flight.
 *
 * What did not change, on purpose (this is one step of a teaching series):
 * the same 128 threads still do every job, and after each k block they still
 * wait for all their wgmmas (wait_group 0) and meet at a block-wide
 * __syncthreads before the slot is refilled. The slot address and barrier are
 * now picked at run time, and the syncs keep the whole block in lockstep; in
 * the tutorial that cost more than the overlap bought (V2 came out slower than
 * V1). V3 removes the syncs by giving loading and computing to separate warps.
 *
 * Tile 128 x 128, block_k 64, V2_STAGES = 3 stages of 32 KiB (96 KiB: two
 * CTAs still fit on an SM). One warp group, 128 threads: thread 0 issues the
 * TMA loads, all 128 wait on the slot's barrier and issue the wgmmas (two
 * m64n128k16 per k16 slice, rows 0-63 and 64-127 of A, as in V1). 1-D grid
 * over tiles, grouped rasterization (groups of 8 tile columns). Serves TN.
 *
 * Tutorial (H100 SXM, 8192^3 fp16): 70% of cuBLAS.
 * Measured on the H200 (2026-11-29, fp16 TN, median of 3 processes): 8192^3
 * 1.754 ms, 627 TFLOPS, 0.82 of cuBLAS-best; tensor pipe 84%. docs/v2.md.
 */
#include "common.cuh"

enum {
    V2_BM = 128,
    V2_BN = 128,
    V2_BK = 64,
    V2_STAGES = 3,
    V2_THREADS = 128, /* one warp group */
    V2_RASTER_GROUP = 8,
    V2_A_BYTES = V2_BM * V2_BK * 2,         /* 16 KiB */
    V2_B_BYTES = V2_BN * V2_BK * 2,         /* 16 KiB */
    V2_STAGE_BYTES = V2_A_BYTES + V2_B_BYTES, /* 32 KiB; a multiple of 1024 keeps every tile aligned */
    V2_SMEM = V2_STAGES * V2_STAGE_BYTES + 1024 /* alignment slack */,
};

template <int DT>
__global__ void __launch_bounds__(V2_THREADS, 1)
    hg_v2_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                 hg_epilogue epi, int k_tiles, int64_t m_blocks, int64_t n_blocks)
{
    extern __shared__ uint8_t smem_raw[];
    /* One barrier per slot. Arrive count 1: thread 0's arrive.expect_tx; a
     * phase completes when that arrival is in and the slot's A_BYTES +
     * B_BYTES landed. Slot s holds k blocks s, s + STAGES, s + 2 * STAGES, ...
     * in turn: its j-th fill completes its phase j. */
    __shared__ uint64_t full[V2_STAGES];

    /* Slot s: A tile at s * STAGE_BYTES, B tile A_BYTES after it (1024-aligned
     * for the 128-byte swizzle). */
    uint8_t *smem = hg_smem_align1024(smem_raw);
    const uint32_t smem_addr = hg_smem_addr(smem);

    int64_t m_block, n_block;
    hg_raster_tile(blockIdx.x, m_blocks, n_blocks, V2_RASTER_GROUP, &m_block, &n_block);
    /* Tile origins are < m, n <= 2^31 - 1 (can_serve), so they fit TMA's int32. */
    const int32_t row0 = (int32_t)(m_block * V2_BM), col0 = (int32_t)(n_block * V2_BN);
    const int tid = threadIdx.x;

    if (tid == 0) {
        hg_prefetch_tensormap(&map_a);
        hg_prefetch_tensormap(&map_b);
#pragma unroll
        for (int s = 0; s < V2_STAGES; s++) hg_mbarrier_init(&full[s], 1);
        hg_fence_mbarrier_init_cluster();  /* the inits are visible ... */
        hg_fence_proxy_async_shared_cta(); /* ... to the copy engine too */
        /* Prologue: fill the first slots (fewer when k has fewer blocks). The
         * whole boxes count, edge tiles included: TMA fills what lies outside
         * the matrix with zeros and still delivers every byte. */
        for (int s = 0; s < V2_STAGES && s < k_tiles; s++) {
            uint8_t *sa = smem + s * V2_STAGE_BYTES;
            hg_mbarrier_arrive_expect_tx(&full[s], V2_STAGE_BYTES);
            hg_tma_load_2d(sa, &map_a, &full[s], s * V2_BK, row0);
            hg_tma_load_2d(sa + V2_A_BYTES, &map_b, &full[s], s * V2_BK, col0);
        }
    }
    __syncthreads(); /* the barriers are initialised before anyone waits on them */

    float acc0[64], acc1[64]; /* rows 0-63 and 64-127 of the tile, m64n128 fragments */
#pragma unroll
    for (int i = 0; i < 64; i++) {
        acc0[i] = 0.0f;
        acc1[i] = 0.0f;
    }

    /* The slot of k block kt is kt % STAGES, and it is that slot's fill number
     * kt / STAGES, so the parity to wait for is (kt / STAGES) & 1: a cursor
     * (stage, phase) that flips phase each time stage wraps to 0. */
    int stage = 0;
    uint32_t phase = 0;
    for (int kt = 0; kt < k_tiles; kt++) {
        const uint32_t sa_addr = smem_addr + stage * V2_STAGE_BYTES;
        const uint32_t sb_addr = sa_addr + V2_A_BYTES;

        /* No thread can be a phase behind on this slot: it is refilled only
         * after the __syncthreads below, which every thread reaches after this
         * wait. */
        hg_mbarrier_wait(&full[stage], phase);

        /* Two m64n128 halves, eight wgmmas, then wait_group 0. */
        hg_wgmma_128x128_k64_wait<DT>(acc0, acc1, sa_addr, sb_addr);

        /* Every warp's wgmmas are done reading this slot ... */
        __syncthreads();
        /* ... so thread 0 refills it with the k block STAGES ahead, if any.
         * Every load issued is waited for by the loop, so none is still in
         * flight when the block exits. */
        const int next = kt + V2_STAGES;
        if (tid == 0 && next < k_tiles) {
            uint8_t *sa = smem + stage * V2_STAGE_BYTES;
            hg_mbarrier_arrive_expect_tx(&full[stage], V2_STAGE_BYTES);
            hg_tma_load_2d(sa, &map_a, &full[stage], next * V2_BK, row0);
            hg_tma_load_2d(sa + V2_A_BYTES, &map_b, &full[stage], next * V2_BK, col0);
        }

        if (++stage == V2_STAGES) {
            stage = 0;
            phase ^= 1;
        }
    }

    hg_store_wgmma_acc<DT, 128>(epi, acc0, (int64_t)row0, (int64_t)col0, tid);
    hg_store_wgmma_acc<DT, 128>(epi, acc1, (int64_t)row0 + 64, (int64_t)col0, tid);
}

static const hg_tile_grid v2_grid = {"v2", V2_BM, V2_BN, V2_BK, V2_THREADS, V2_SMEM};

const char *hg__v2_can_serve(const hg__problem *p, const hg__device *d)
{
    return hg_tile_grid_can_serve(p, d, &v2_grid);
}

hg_status hg__v2_launch(const hg__problem *p, const hg__device *d, struct CUstream_st *s, hg__err *e)
{
    (void)d;
    return hg_tile_grid_launch(p, s, e, &v2_grid, (const void *)hg_v2_kernel<0>, (const void *)hg_v2_kernel<1>);
}
