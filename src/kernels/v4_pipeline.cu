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
 * Measured on the H200: not yet.
 * (The tutorial's H100 figure, for orientation only: 86% of cuBLAS.)
 */
#include "common.cuh"
#include "pipeline.cuh"

enum {
    V4_BM = 128,                                /* tile rows (M) */
    V4_BN = 256,                                /* tile columns (N) = wgmma N */
    V4_BK = 64,                                 /* k block: one 128-byte swizzled row */
    V4_WG_M = 64,                               /* rows per consumer warp group = wgmma M */
    V4_WG_K = 16,                               /* k of one wgmma */
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

/* The dynamic shared memory rounded up to a 1024-byte aligned shared-window
 * address (the 128-byte swizzle's atom is 8 rows x 128 B = 1024 B). */
static __device__ __forceinline__ uint8_t *v4_smem_base(void)
{
    uint32_t a = hg_smem_addr(hg_v4_smem);
    return hg_v4_smem + ((1024u - (a & 1023u)) & 1023u);
}

/*
 * Producer (one thread). For each k block: wait until the slot is empty,
 * arm the slot's full barrier with its one arrival and the stage's bytes,
 * issue the loads. A is one 128-row box: it lands as the two 64-row slabs,
 * slab 1 at +8 KiB (rows 64..127), which is also where a 1024-aligned swizzled
 * 64-row box would put it. Out-of-bounds rows and columns (m, n or k edges)
 * arrive as zeros and still count, so the byte count is always the full
 * 48 KiB. Coordinates fit int32: row_a <= m - 1, row_b <= n - 1 and
 * kt * 64 <= k - 1, all below 2^31 (hg__tma_tn_can_serve).
 */
static __device__ __forceinline__ void v4_producer(const hg_pipeline &pipe, uint8_t *smem, const CUtensorMap *map_a,
                                                   const CUtensorMap *map_b, int k_tiles, int32_t row_a,
                                                   int32_t row_b)
{
    hg_prefetch_tensormap(map_a);
    hg_prefetch_tensormap(map_b);
    hg_pipe_cursor c = hg_pipe_producer_start();
    for (int kt = 0; kt < k_tiles; kt++) {
        /* empty[s]: on the first lap (phase 1 on a fresh barrier) this returns
         * at once; after that it waits for both consumers' release of the load
         * that used this slot one lap earlier. */
        hg_pipe_producer_acquire(pipe, c);
        uint8_t *stage = smem + c.stage * V4_STAGE_BYTES;
        uint64_t *full = hg_pipe_producer_barrier(pipe, c);
        /* full[s]: arrive count 1 = this arrival; the phase completes once the
         * 48 KiB below have landed too. */
        hg_mbarrier_arrive_expect_tx(full, V4_STAGE_BYTES);
        hg_tma_load_2d(stage, map_a, full, kt * V4_BK, row_a);
        hg_tma_load_2d(stage + V4_A_BYTES, map_b, full, kt * V4_BK, row_b);
        hg_pipe_advance(pipe, &c);
    }
    /*
     * Drain: acquire V4_STAGES more slots, i.e. wait until the consumers have
     * released every load still outstanding. Is it needed for correctness
     * here? No: the consumers wait on the full barrier of every load, so the
     * CTA cannot retire while a load is in flight, and their empty arrivals
     * land in the shared memory of a CTA that is still running. What it buys:
     * the thread that issued the bulk copies does not exit before they all
     * landed and were consumed (the rule we keep for every TMA issuer), and
     * it is the pattern a cluster version needs, where a peer's arrivals and
     * multicast writes target this CTA's shared memory.
     * Why V4_STAGES acquires and not the seed's min(stages, k_tiles): when
     * k_tiles < stages, positions k_tiles..stages-1 are slots never loaded,
     * whose fresh barriers answer parity 1 at once, so min(stages, k_tiles)
     * acquires miss some releases (with k_tiles = 1, all of them). With
     * V4_STAGES acquires, position p (k_tiles <= p < k_tiles + stages) waits
     * for the release of load p - stages when p >= stages and passes at once
     * on a never-loaded slot otherwise: every load is covered. A slot's empty
     * barrier is never more than one phase ahead of the producer's cursor
     * (each phase needs a load first), so each parity test is unambiguous.
     */
    for (int s = 0; s < V4_STAGES; s++) {
        hg_pipe_producer_acquire(pipe, c);
        hg_pipe_advance(pipe, &c);
    }
}

/* The four m64n256k16 wgmmas of one k block (k slices at +32 bytes within the
 * 128-byte swizzled rows), accumulating into acc. The first acc fence pins
 * every earlier write of acc (the zeroing) before wgmma.fence. */
template <int DT>
static __device__ __forceinline__ void v4_mma_block(float *acc, uint32_t a_addr, uint32_t b_addr)
{
    hg_acc_fence<V4_ACC>(acc);
    hg_wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < V4_BK / V4_WG_K; kk++)
        hg_wgmma_m64k16<V4_BN, DT>(acc, hg_wgmma_desc_sw128(a_addr + kk * V4_WG_K * 2),
                                   hg_wgmma_desc_sw128(b_addr + kk * V4_WG_K * 2), 1);
    hg_wgmma_commit_group();
}

template <int DT>
__global__ void __launch_bounds__(V4_THREADS, 1)
    hg_v4_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                 hg_epilogue epi, int k_tiles, int64_t m_blocks, int64_t n_blocks)
{
    uint8_t *smem = v4_smem_base();
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
        if (tid % 32 == 0) v4_producer(pipe, smem, &map_a, &map_b, k_tiles, (int32_t)row0, (int32_t)col0);
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
        v4_mma_block<DT>(acc, stage + wg * V4_A_SLAB_BYTES, stage + V4_A_BYTES);
        hg_wgmma_wait_group<0>();
        hg_acc_fence<V4_ACC>(acc);
        /* This thread's wait covers the warp group's whole wgmma (a single
         * collective operation), so its shared-memory reads are over. */
        if (tid_in_wg == 0) hg_mbarrier_arrive(hg_pipe_consumer_barrier(pipe, c));
        hg_pipe_advance(pipe, &c);
    }

    hg_store_wgmma_acc<DT, V4_BN>(epi, acc, row0 + wg * V4_WG_M, col0, tid_in_wg);
}

extern "C" const char *hg__v4_can_serve(const hg__problem *p, const hg__device *d)
{
    const char *why = hg__tma_tn_can_serve(p, d);
    if (why) return why;
    if (d->smem_optin < V4_SMEM_BYTES)
        return "needs 148528 bytes of shared memory per block (3 stages of 48 KiB), more than this device "
               "allows.";
    if (hg_cdiv(p->m, V4_BM) * hg_cdiv(p->n, V4_BN) > (int64_t)0x7FFFFFFF)
        return "needs one block per 128 x 256 tile, and m x n has more than 2^31 - 1 tiles.";
    return NULL;
}

extern "C" hg_status hg__v4_launch(const hg__problem *p, const hg__device *d, struct CUstream_st *s, hg__err *e)
{
    (void)d;
    CUtensorMap map_a, map_b;
    hg_status st = hg_tn_tensor_maps(p, V4_BM, V4_BN, &map_a, &map_b, e);
    if (st != HG_STATUS_SUCCESS) return st;

    const int64_t m_blocks = hg_cdiv(p->m, V4_BM), n_blocks = hg_cdiv(p->n, V4_BN);
    const int k_tiles = (int)hg_cdiv(p->k, V4_BK);
    const hg_epilogue epi = hg_epilogue_of(p);
    const dim3 grid((unsigned)(m_blocks * n_blocks));
    cudaStream_t stream = (cudaStream_t)s;

    if (p->dtype == HG_F16) {
        st = hg_set_smem((const void *)hg_v4_kernel<0>, V4_SMEM_BYTES, "v4", e);
        if (st != HG_STATUS_SUCCESS) return st;
        hg_v4_kernel<0><<<grid, V4_THREADS, V4_SMEM_BYTES, stream>>>(map_a, map_b, epi, k_tiles, m_blocks, n_blocks);
    } else {
        st = hg_set_smem((const void *)hg_v4_kernel<1>, V4_SMEM_BYTES, "v4", e);
        if (st != HG_STATUS_SUCCESS) return st;
        hg_v4_kernel<1><<<grid, V4_THREADS, V4_SMEM_BYTES, stream>>>(map_a, map_b, epi, k_tiles, m_blocks, n_blocks);
    }
    return hg_launch_status("v4", e);
}
