/*
 * V3: warp specialization. One producer warp issues TMA, one consumer warp
 * group runs WGMMA; they hand slots back and forth through mbarriers.
 *
 * What changed from V2, and why: in V2 the same 128 threads loaded, waited and
 * multiplied, and met at a block-wide __syncthreads after every k block, so
 * the next loads could only be issued once the whole block had caught up.
 * V3 gives the jobs to different warps that run different code and never meet
 * at a __syncthreads after setup:
 *   - warp 4 (threads 128-159), the producer: one lane waits until a slot is
 *     empty, arms the slot's full barrier with the byte count and issues the
 *     two TMA loads; then goes on to the next slot, up to V3_STAGES k blocks
 *     ahead of the math.
 *   - warps 0-3 (threads 0-127), the consumer warp group: waits until a slot
 *     is full, issues the wgmmas (two m64n128k16 per k16 slice, rows 0-63 and
 *     64-127 of A, as in V1), waits for them (still wait_group 0: V5 keeps a
 *     group in flight), and one thread marks the slot empty.
 * Each slot now has two barriers, full (producer -> consumer) and empty
 * (consumer -> producer), instead of V2's full barrier plus block-wide sync.
 * The ring is written inline, a stage index and a phase bit per side; V4
 * moves this bookkeeping into the Pipeline object (pipeline.cuh).
 *
 * Tile 128 x 128, block_k 64, V3_STAGES = 3 stages of 32 KiB (96 KiB: two
 * CTAs still fit on an SM, as in V2, so the change against V2 is the roles
 * alone). 160 threads. 1-D grid over tiles, grouped rasterization (groups of
 * 8 tile columns). Serves TN (A m x k, B n x k).
 *
 * Tutorial (H100 SXM, 8192^3 fp16): 77% of cuBLAS.
 * Measured on the H200 (2026-11-29, fp16 TN, median of 3 processes): 8192^3
 * 1.790 ms, 614 TFLOPS, 0.81 of cuBLAS-best; tensor pipe 82%. docs/v3.md.
 */
#include "common.cuh"

enum {
    V3_BM = 128,
    V3_BN = 128,
    V3_BK = 64,
    V3_STAGES = 3,
    V3_CONSUMER_THREADS = 128,                     /* warps 0-3: one warp group */
    V3_THREADS = V3_CONSUMER_THREADS + 32,         /* + warp 4, the producer */
    V3_PRODUCER_WARP = V3_CONSUMER_THREADS / 32,   /* 4 */
    V3_RASTER_GROUP = 8,
    V3_A_BYTES = V3_BM * V3_BK * 2,         /* 16 KiB */
    V3_B_BYTES = V3_BN * V3_BK * 2,         /* 16 KiB */
    V3_STAGE_BYTES = V3_A_BYTES + V3_B_BYTES, /* 32 KiB; a multiple of 1024 keeps every tile aligned */
    V3_SMEM = V3_STAGES * V3_STAGE_BYTES + 1024 /* alignment slack */,
};

template <int DT>
__global__ void __launch_bounds__(V3_THREADS, 1)
    hg_v3_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                 hg_epilogue epi, int k_tiles, int64_t m_blocks, int64_t n_blocks)
{
    extern __shared__ uint8_t smem_raw[];
    /*
     * Per slot s (k blocks s, s + STAGES, s + 2 * STAGES, ... in turn; the j-th
     * of them is the slot's lap j):
     *   full[s]   arrive count 1: the producer's arrive.expect_tx; lap j's
     *             phase (phase j) completes when that arrival is in and the
     *             slot's A_BYTES + B_BYTES landed.
     *   empty[s]  arrive count 1: one consumer thread (thread 0) arrives once
     *             the warp group's wgmmas on lap j are complete (wait_group 0),
     *             completing phase j.
     * Cursors (stage, phase), phase flipping each time stage wraps to 0:
     *   consumer starts at phase 0: at lap j it waits full[s] for parity j & 1,
     *             the completion of phase j (lap j's bytes).
     *   producer starts at phase 1: at lap j it waits empty[s] for parity
     *             (j & 1) ^ 1, the completion of phase j - 1 (lap j - 1
     *             released). On lap 0 the barrier is still in phase 0, and a
     *             wait for parity 1 returns at once: the phase "before" the
     *             current one counts as complete, so the first lap finds every
     *             slot empty.
     * Neither side can get two phases ahead of the other: the producer refills
     * a slot only after the consumer released it, which the consumer does only
     * after waiting on its fill.
     */
    __shared__ uint64_t full[V3_STAGES], empty[V3_STAGES];

    /* Slot s: A tile at s * STAGE_BYTES, B tile A_BYTES after it (1024-aligned
     * for the 128-byte swizzle). */
    uint8_t *smem = hg_smem_align1024(smem_raw);

    int64_t m_block, n_block;
    hg_raster_tile(blockIdx.x, m_blocks, n_blocks, V3_RASTER_GROUP, &m_block, &n_block);
    /* Tile origins are < m, n <= 2^31 - 1 (can_serve), so they fit TMA's int32. */
    const int32_t row0 = (int32_t)(m_block * V3_BM), col0 = (int32_t)(n_block * V3_BN);
    const int tid = threadIdx.x;

    if (tid == 0) {
#pragma unroll
        for (int s = 0; s < V3_STAGES; s++) {
            hg_mbarrier_init(&full[s], 1);
            hg_mbarrier_init(&empty[s], 1);
        }
        hg_fence_mbarrier_init_cluster();  /* the inits are visible ... */
        hg_fence_proxy_async_shared_cta(); /* ... to the copy engine too */
    }
    /* The one block-wide sync: all 160 threads, before anyone uses a barrier. */
    __syncthreads();

    if (tid / 32 == V3_PRODUCER_WARP) {
        /* Producer: lane 0 does the work; lanes 1-31 have nothing to do and
         * return. Lane 0 returns after its last issue: every load it issued is
         * waited for by the consumer warp group, which keeps the block (and its
         * shared memory) alive until the bytes have landed. */
        if (tid % 32 != 0) return;
        hg_prefetch_tensormap(&map_a);
        hg_prefetch_tensormap(&map_b);
        int stage = 0;
        uint32_t phase = 1;
        for (int kt = 0; kt < k_tiles; kt++) {
            hg_mbarrier_wait(&empty[stage], phase);
            uint8_t *sa = smem + stage * V3_STAGE_BYTES;
            /* The whole boxes count, edge tiles included: TMA fills what lies
             * outside the matrix with zeros and still delivers every byte. */
            hg_mbarrier_arrive_expect_tx(&full[stage], V3_STAGE_BYTES);
            hg_tma_load_2d(sa, &map_a, &full[stage], kt * V3_BK, row0);
            hg_tma_load_2d(sa + V3_A_BYTES, &map_b, &full[stage], kt * V3_BK, col0);
            if (++stage == V3_STAGES) {
                stage = 0;
                phase ^= 1;
            }
        }
        return;
    }

    /* Consumer warp group: threads 0-127. */
    const uint32_t smem_addr = hg_smem_addr(smem);
    float acc0[64], acc1[64]; /* rows 0-63 and 64-127 of the tile, m64n128 fragments */
#pragma unroll
    for (int i = 0; i < 64; i++) {
        acc0[i] = 0.0f;
        acc1[i] = 0.0f;
    }

    int stage = 0;
    uint32_t phase = 0;
    for (int kt = 0; kt < k_tiles; kt++) {
        const uint32_t sa_addr = smem_addr + stage * V3_STAGE_BYTES;
        const uint32_t sb_addr = sa_addr + V3_A_BYTES;

        hg_mbarrier_wait(&full[stage], phase);

        /* Two m64n128 halves, eight wgmmas, then wait_group 0. */
        hg_wgmma_128x128_k64_wait<DT>(acc0, acc1, sa_addr, sb_addr);

        /* The warp group's wgmmas on this slot are complete: one thread hands
         * it back to the producer (empty's arrive count is 1). */
        if (tid == 0) hg_mbarrier_arrive(&empty[stage]);

        if (++stage == V3_STAGES) {
            stage = 0;
            phase ^= 1;
        }
    }

    /* The consumer waited for every load the producer issued (one per k block,
     * k_tiles of each): nothing is in flight into shared memory any more. */
    hg_store_wgmma_acc<DT, 128>(epi, acc0, (int64_t)row0, (int64_t)col0, tid);
    hg_store_wgmma_acc<DT, 128>(epi, acc1, (int64_t)row0 + 64, (int64_t)col0, tid);
}

static const hg_tile_grid v3_grid = {"v3", V3_BM, V3_BN, V3_BK, V3_THREADS, V3_SMEM};

const char *hg__v3_can_serve(const hg__problem *p, const hg__device *d)
{
    return hg_tile_grid_can_serve(p, d, &v3_grid);
}

hg_status hg__v3_launch(const hg__problem *p, const hg__device *d, struct CUstream_st *s, hg__err *e)
{
    (void)d;
    return hg_tile_grid_launch(p, s, e, &v3_grid, (const void *)hg_v3_kernel<0>, (const void *)hg_v3_kernel<1>);
}
