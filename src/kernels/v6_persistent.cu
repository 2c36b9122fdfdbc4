/*
 * v6_persistent.cu: kernel V6. A persistent, warp-specialized TN GEMM with a
 * 128 x 320 tile, register reallocation, a 2-CTA cluster that multicasts B,
 * and a shared-memory TMA-store epilogue (the seeds' V6, seeds/000), plus one
 * mechanism beyond the seeds: a stream-K tail.
 *
 * What changed from V5, and why:
 *   - setmaxnreg: the producer warp group drops to 40 registers per thread,
 *     the two consumer warp groups rise to 232, so that each consumer can hold
 *     a 64 x 320 fp32 accumulator (160 registers) without spilling. At entry
 *     every thread has 65536 / 384 = 168 (the cap __launch_bounds__(384, 1)
 *     gives); 2 x 128 x 232 + 128 x 40 = 64,512 = 384 x 168, so the consumers'
 *     inc is exactly covered by the producer's dec.
 *   - Tile 128 x 320 (V5: 128 x 256): 7% fewer operand bytes per FLOP. Each
 *     consumer issues, per k16 slice, two m64n160k16 wgmmas (a wgmma is at most
 *     256 wide), one per 160-column half; B is loaded as two 160-row halves (a
 *     TMA box is at most 256 rows).
 *   - A 2-CTA cluster whose CTAs take vertically adjacent tiles (same n block,
 *     m blocks 2*pair and 2*pair + 1): they need the same B, so each loads one
 *     half of it and multicasts it to both. Per stage a CTA fetches 128 + 160
 *     operand rows instead of 128 + 320. The ring now spans both CTAs: a stage
 *     is refilled only after the consumers of both CTAs released it.
 *   - Persistent: one CTA per SM (grid = 2 x clusters, clusters = sm_count /
 *     2, fewer if the device cannot co-schedule that many); each cluster walks
 *     tile pairs tile = cluster_id, += num_clusters. The ring's cursors carry
 *     over from tile to tile, so the producer fills the next tile's first
 *     stages while the consumers run the epilogue.
 *   - Epilogue through shared memory: each consumer stages one 64 x 160 half
 *     of its result at a time in its own slot and a single thread writes it to
 *     C with a TMA store (coalesced, clipped at the edges by the hardware).
 *   - 3 stages (V5: 4): a stage is 56 KiB now.
 *   - Beyond the seeds, a stream-K tail (tiling.h): when the tile pairs do not
 *     fill the last round (8192^3: 832 pairs = 12 rounds of 66 clusters + 40),
 *     the last round's k blocks are split evenly over all clusters; each
 *     piece leaves its fp32 partial in the handle's workspace and counts
 *     itself (a counter per tile, rank and consumer); the last to finish sums
 *     them in k order and writes C. Nobody waits for anybody.
 *   Kept from V5: wgmma kept in flight with wait_group(1), release of the
 *   previous stage; fp32 accumulation; swizzled rasterization (group 8 here).
 *
 * Tile 128 (m) x 320 (n) x 64 (k), 3 stages, 384 threads = 3 warp groups:
 *   warp groups 0, 1: consumers (232 registers); consumer c computes rows
 *                     64c .. 64c + 63 of the tile, all 320 columns.
 *   warp group 2:     producer (40 registers); one thread of its first warp
 *                     issues every TMA load; the other warps idle to the end.
 *
 * Shared memory (dynamic, base rounded up to 1024 bytes by hand):
 *   3 stages x (A 128 x 64 = 16 KiB, B 2 x 160 x 64 = 40 KiB) = 168 KiB,
 *   2 staging slots of 64 x 160 (20 KiB each) = 40 KiB, 6 mbarriers (48 B);
 *   214,080 bytes requested (1024 for the alignment).
 *
 * Ablations (template switches; the launch picks them by variant number):
 *   MCAST = false:   no multicast: each CTA loads its whole B, the empty
 *                    barriers count only the CTA's own two consumers.
 *   TMA_EPI = false: the per-thread epilogue of V5 (hg_store_wgmma_acc).
 *   not persistent:  the same kernel launched with one cluster per tile pair.
 *   no stream-K:     the last round as whole tiles (the seeds' V6).
 *   No variant without setmaxnreg: at the 168-register cap the 160-register
 *   accumulator cannot fit, and the build forbids spills.
 *
 * Measured on the H200 (2026-11-29, fp16 TN, median of 3 processes;
 * docs/v6.md has the other shapes and the ablations): 8192^3 1.469 ms, 0.953
 * of cuBLAS-best (0.950 without the stream-K tail); 4096^3 0.870 (0.777).
 * `make prof` compiles in per-CTA cycle counters (prof.cuh;
 * tools/v6-profile.c reads them): the consumers wait on full barriers for
 * 22-30% of their cycles at 8192^3, but the board is at its power limit
 * there, so cycles saved come back as clock (docs/NOTES.md).
 */
#include "common.cuh"
#include "pipeline.cuh"
#include "prof.cuh"

/* ---- compile-time shape ------------------------------------------------- */

static constexpr int V6_BM = 128;              /* tile rows (m) */
static constexpr int V6_BN = 320;              /* tile columns (n) */
static constexpr int V6_HN = 160;              /* one B half, one wgmma's N */
static constexpr int V6_BK = 64;               /* k per stage (128 bytes: the swizzle span) */
static constexpr int V6_STAGES = 3;
static constexpr int V6_THREADS = 384;
static constexpr int V6_RASTER_GROUP = 8;

static constexpr int V6_A_BYTES = V6_BM * V6_BK * 2;           /* 16384: one 128-row box */
static constexpr int V6_A_HALF_BYTES = 64 * V6_BK * 2;         /* 8192: one consumer's rows */
static constexpr int V6_B_HALF_BYTES = V6_HN * V6_BK * 2;      /* 20480: one 160-row box */
static constexpr int V6_STAGE_BYTES = V6_A_BYTES + 2 * V6_B_HALF_BYTES; /* 57344 */
static constexpr int V6_SLOT_ROW_BYTES = V6_HN * 2;            /* 320 */
static constexpr int V6_SLOT_BYTES = 64 * V6_SLOT_ROW_BYTES;   /* 20480 */
static constexpr int V6_OFF_STAGING = V6_STAGES * V6_STAGE_BYTES;          /* 172032 */
static constexpr int V6_OFF_BARRIERS = V6_OFF_STAGING + 2 * V6_SLOT_BYTES; /* 212992 */
static constexpr int V6_OFF_SK_FLAGS = V6_OFF_BARRIERS + 2 * V6_STAGES * 8; /* 213040: 2 x u32 */
static constexpr int V6_SMEM_BYTES = V6_OFF_BARRIERS + 64 + 1024;          /* 214080 */
/* Stream-K workspace: one consumer's 64 x 320 fp32 partial per (worker,
 * rank, slot, consumer); a counter per (tail tile, rank, consumer). */
static constexpr int V6_SK_GROUP_FLOATS = 64 * V6_BN; /* 20480 */
static constexpr int V6_CLUSTER_CTAS = 2;
static constexpr int V6_SK_SLOTS = 2;     /* pieces per worker (tiling.h) */
static constexpr int V6_CONSUMERS = 2;
static_assert(HG_V6_SK_WORKER_BYTES ==
                  (size_t)V6_CLUSTER_CTAS * V6_SK_SLOTS * V6_CONSUMERS * V6_SK_GROUP_FLOATS * sizeof(float),
              "hg_internal.h's HG_V6_SK_WORKER_BYTES must match V6's partials");

static_assert(V6_A_HALF_BYTES % 1024 == 0 && V6_B_HALF_BYTES % 1024 == 0 && V6_STAGE_BYTES % 1024 == 0,
              "128-byte swizzled tiles must start 1024-byte aligned");
static_assert(2 * 128 * 232 + 128 * 40 <= 65536, "setmaxnreg split exceeds the register file");
static_assert(2 * 128 * 232 + 128 * 40 <= V6_THREADS * 168, "consumers' inc not covered by the producer's dec");

/* A TMA coordinate. Every coordinate the kernel passes is below 2^31 by the
 * size limits (m, n, k <= 2^31 - 1) except the second B half of the last n
 * block (offset_n + 160 can pass 2^31 - 1 when n is near it); its rows lie
 * wholly beyond n then, so any out-of-bounds coordinate gives the same zeros,
 * and clamping keeps it from wrapping to a negative one. */
static __device__ __forceinline__ int32_t v6_coord(int64_t v)
{
    return v > (int64_t)INT32_MAX ? INT32_MAX : (int32_t)v;
}

/* The tile pair `tile` as this CTA's tile offsets: the pair names m blocks
 * 2 * m_pair and 2 * m_pair + 1 of one n block; rank r takes the m block
 * 2 * m_pair + r. Both CTAs of a cluster call this with the same tile. */
static __device__ __forceinline__ void v6_tile_offsets(int64_t tile, int64_t m_pairs, int64_t n_blocks,
                                                       uint32_t rank, int64_t *offset_m, int64_t *offset_n)
{
    int64_t m_pair, n_block;
    hg_raster_tile(tile, m_pairs, n_blocks, V6_RASTER_GROUP, &m_pair, &n_block);
    *offset_m = (m_pair * 2 + rank) * V6_BM;
    *offset_n = n_block * V6_BN;
}

/* One stage of one consumer: 4 k16 slices x 2 column halves of m64n160k16,
 * one commit group. a_addr: the consumer's 64 rows of A in the stage; b_addr:
 * the stage's B (half 0, then half 1 at +20480). A k16 slice starts 32 bytes
 * further along the 128-byte row: +2 in the descriptor's address field (which
 * counts 16-byte units); the tiles sit below 256 KiB and are 1024-aligned, so
 * the addition never carries out of the field. */
template <int DT>
static __device__ __forceinline__ void v6_mma_stage(float *acc0, float *acc1, uint32_t a_addr, uint32_t b_addr)
{
    uint64_t da = hg_wgmma_desc_sw128(a_addr);
    uint64_t db0 = hg_wgmma_desc_sw128(b_addr);
    uint64_t db1 = hg_wgmma_desc_sw128(b_addr + V6_B_HALF_BYTES);
    hg_wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < V6_BK / 16; kk++) {
        hg_wgmma_m64k16<V6_HN, DT>(acc0, da + 2 * kk, db0 + 2 * kk, 1);
        hg_wgmma_m64k16<V6_HN, DT>(acc1, da + 2 * kk, db1 + 2 * kk, 1);
    }
    hg_wgmma_commit_group();
}

/* Release a stage (its empty barrier `bar`) on behalf of one consumer warp
 * group; called by one thread of the group, after wgmma.wait_group has
 * established that the group's wgmmas reading the stage completed.
 * MCAST: both CTAs multicast into this stage of both CTAs, so both producers
 * must learn that this consumer is done with it: one relaxed arrive on the
 * barrier at the same offset in rank 0 and in rank 1 (mapa gives the cluster
 * address; rank == own rank works as well). Relaxed: the consumer only read
 * the stage, it has nothing to publish (the seed measured release semantics at
 * cluster scope twice as slow). Each empty barrier thus receives 4 arrivals
 * per phase: 2 consumers x 2 CTAs. Without MCAST: one local arrive (count 2). */
template <bool MCAST>
static __device__ __forceinline__ void v6_release(uint64_t *bar)
{
    if constexpr (MCAST) {
        uint32_t local = hg_smem_addr(bar);
        hg_mbarrier_arrive_remote_relaxed(hg_mapa_shared_cluster(local, 0));
        hg_mbarrier_arrive_remote_relaxed(hg_mapa_shared_cluster(local, 1));
    } else {
        hg_mbarrier_arrive(bar);
    }
}

/* Write one m64n160 accumulator fragment into a 64 x 160 staging slot
 * (row-major, 320-byte rows, the layout of the C tensor map's box) as
 * alpha * acc + beta * C. Fragment layout (9.7.15.5.1): thread t of the group,
 * warp w = t / 32, lane l: acc[4j + 2h + e] is element (16w + l/4 + 8h,
 * 8j + 2(l%4) + e). Each pair (e = 0, 1) is one 4-byte st.shared.
 * With beta != 0 the old C is read per thread from global (bounds-checked,
 * 64-bit index math; 4-byte aligned since C is 16-byte aligned, ldc % 8 == 0
 * and the column is even); elements outside m x n take no old value and are
 * clipped by the TMA store anyway. With beta == 0, C is never read. */
template <int DT>
static __device__ __forceinline__ void v6_stage_half(uint8_t *slot, const float *acc, const hg_epilogue &epi,
                                                     int64_t row0, int64_t col0, int tid)
{
    int warp = tid / 32, lane = tid % 32;
    int r = warp * 16 + lane / 4;
    int c = 2 * (lane % 4);
    if (epi.beta == 0.0f) {
#pragma unroll
        for (int j = 0; j < V6_HN / 8; j++) {
#pragma unroll
            for (int h = 0; h < 2; h++) {
                uint32_t v = hg_pack2<DT>(epi.alpha * acc[4 * j + 2 * h], epi.alpha * acc[4 * j + 2 * h + 1]);
                *(uint32_t *)(slot + (r + 8 * h) * V6_SLOT_ROW_BYTES + (c + 8 * j) * 2) = v;
            }
        }
    } else {
#pragma unroll
        for (int h = 0; h < 2; h++) {
            int64_t row = row0 + r + 8 * h;
            const uint16_t *crow = (const uint16_t *)epi.C + (row < epi.m ? row : 0) * epi.ldc;
#pragma unroll
            for (int j = 0; j < V6_HN / 8; j++) {
                int64_t col = col0 + c + 8 * j;
                float o0 = 0.0f, o1 = 0.0f;
                if (row < epi.m && col < epi.n) {
                    if (col + 1 < epi.n) {
                        uint32_t old = *(const uint32_t *)(crow + col);
                        o0 = hg_elem_to_f32<DT>((uint16_t)(old & 0xFFFF));
                        o1 = hg_elem_to_f32<DT>((uint16_t)(old >> 16));
                    } else {
                        o0 = hg_elem_to_f32<DT>(crow[col]);
                    }
                }
                uint32_t v = hg_pack2<DT>(epi.alpha * acc[4 * j + 2 * h] + epi.beta * o0,
                                          epi.alpha * acc[4 * j + 2 * h + 1] + epi.beta * o1);
                *(uint32_t *)(slot + (r + 8 * h) * V6_SLOT_ROW_BYTES + (c + 8 * j) * 2) = v;
            }
        }
    }
}

/* The shared-memory epilogue of one half (64 x 160) of one consumer's result.
 * Named barrier `bar_id` (1 + consumer index) spans the group's 128 threads
 * only, so the two consumers never wait on each other. Thread 0 of the group
 * owns the bulk-store group:
 *   1. thread 0: cp.async.bulk.wait_group.read 0: the previous store from this
 *      slot (if any) has finished reading it; bar.sync: all may now write it.
 *   2. all: write the fragment to the slot; fence.proxy.async.shared::cta
 *      (generic-proxy writes ordered before the async-proxy read of the TMA
 *      store); bar.sync: the slot is complete.
 *   3. thread 0: TMA store of the box at (col0, row0), commit_group. A box
 *      partly outside C is clipped by TMA (rows exactly; columns in 16-byte
 *      units, hence the per-thread path above); a box wholly outside (row0 >= m:
 *      the cluster's second tile below C, or consumer 1's rows; col0 >= n: the
 *      second half past C) is skipped, which also keeps the coordinates below
 *      2^31. */
template <int DT>
static __device__ __forceinline__ void v6_epilogue_half(const CUtensorMap *map_c, uint8_t *slot, const float *acc,
                                                        const hg_epilogue &epi, int64_t row0, int64_t col0,
                                                        int tid, int bar_id)
{
    /* A TMA store clips at the tensor's edge in 16-byte units, not elements
     * (seen on the H200: with n % 8 != 0 it wrote the padding columns between
     * n and ldc). So a half that straddles such an edge is written per thread,
     * bounds-checked; the branch is uniform over the warp group. */
    if (col0 + V6_HN > epi.n && (epi.n & 7) != 0) {
        hg_store_wgmma_acc<DT, V6_HN>(epi, acc, row0, col0, tid);
        return;
    }
    if (tid == 0) hg_cp_async_bulk_wait_group_read<0>();
    hg_bar_sync(bar_id, 128);
    v6_stage_half<DT>(slot, acc, epi, row0, col0, tid);
    hg_fence_proxy_async_shared_cta();
    hg_bar_sync(bar_id, 128);
    if (tid == 0 && row0 < epi.m && col0 < epi.n) {
        hg_tma_store_2d(map_c, slot, (int32_t)col0, (int32_t)row0);
        hg_cp_async_bulk_commit_group();
    }
}

static __device__ __forceinline__ void v6_zero_acc(float *acc0, float *acc1)
{
#pragma unroll
    for (int i = 0; i < V6_HN / 2; i++) {
        acc0[i] = 0.0f;
        acc1[i] = 0.0f;
    }
}

/* ---- the stream-K tail (tiling.h has the plan) ----------------------------- */

/* Where consumer `wg` of rank `rank` of worker (cluster) `worker` leaves the
 * partial of its piece number `slot` (0: the piece that starts the worker's
 * tail range, 1: a piece that starts a tile inside it). Stored in fragment
 * order: float4 number i of thread t at (i * 128 + t) * 4, so every store and
 * load is a fully coalesced 2 KiB per warp-group instruction; only the same
 * thread mapping reads it back. */
static __device__ __forceinline__ float4 *v6_sk_partial(float *ws, int64_t worker, uint32_t rank, int slot, int wg)
{
    return (float4 *)(ws + (((worker * V6_CLUSTER_CTAS + rank) * V6_SK_SLOTS + slot) * V6_CONSUMERS + wg) *
                               (int64_t)V6_SK_GROUP_FLOATS);
}

/* After one consumer group finished its piece of a tail tile: leave the
 * partial, count it, and if this is the tile's last piece to finish, sum all
 * pieces' partials into acc0/acc1 and return true (the caller then writes C
 * as for a whole tile); else return false (nothing more to do).
 *
 * No piece ever waits for another, so nothing can hang on a worker that is not
 * resident (another kernel holding the SMs, a profiler replaying the launch).
 * The count, per (tail tile, rank, consumer): the group's 128 threads store
 * their partial, bar.sync (the stores now precede thread 0's next operation),
 * and thread 0 adds 1 with acq_rel at gpu scope: the release publishes the
 * group's partial (cumulative through the bar.sync), the acquire makes every
 * earlier adder's partial visible. The adder that sees pieces - 1 is last;
 * after the second bar.sync its group reads the partials with ld.global.cg
 * (from L2, never a stale L1 line). It resets the counter for the next launch
 * (every piece has counted by then): a launch has its workspace to itself
 * (src/workspace.c), and the next one to use it is ordered after it.
 *
 * The last piece sums from the workspace, its own partial included, in k
 * order: C is bitwise the same whichever piece finishes last. */
static __device__ __forceinline__ bool v6_sk_fixup(float *acc0, float *acc1, const hg_sk_plan &plan,
                                                   const hg_sk_piece &pc, int64_t worker, uint32_t rank, int wg,
                                                   int ctid, int bar_id, volatile uint32_t *last_flag, float *ws,
                                                   uint32_t *counters)
{
    float4 *mine = v6_sk_partial(ws, worker, rank, pc.slot, wg) + ctid;
#pragma unroll
    for (int i = 0; i < V6_HN / 8; i++) {
        __stcg(mine + i * 128, make_float4(acc0[4 * i], acc0[4 * i + 1], acc0[4 * i + 2], acc0[4 * i + 3]));
        __stcg(mine + (i + V6_HN / 8) * 128,
               make_float4(acc1[4 * i], acc1[4 * i + 1], acc1[4 * i + 2], acc1[4 * i + 3]));
    }
    hg_bar_sync(bar_id, 128);
    uint32_t *count = counters + (pc.sk_tile * V6_CLUSTER_CTAS + rank) * V6_CONSUMERS + wg;
    const uint32_t pieces = (uint32_t)(pc.last_worker - pc.first_worker + 1);
    if (ctid == 0) *last_flag = hg_atom_add_acq_rel_gpu(count, 1) == pieces - 1;
    hg_bar_sync(bar_id, 128);
    /* The flag's next write (this group's next tail piece) comes after that
     * piece's first bar.sync, which every thread reaches after reading it. */
    if (!*last_flag) return false;
    v6_zero_acc(acc0, acc1);
    for (int64_t v = pc.first_worker; v <= pc.last_worker; v++) {
        const float4 *part = v6_sk_partial(ws, v, rank, hg_sk_slot_of(&plan, v, pc.sk_tile), wg) + ctid;
#pragma unroll
        for (int i = 0; i < V6_HN / 8; i++) {
            float4 x = __ldcg(part + i * 128);
            float4 y = __ldcg(part + (i + V6_HN / 8) * 128);
            acc0[4 * i] += x.x, acc0[4 * i + 1] += x.y, acc0[4 * i + 2] += x.z, acc0[4 * i + 3] += x.w;
            acc1[4 * i] += y.x, acc1[4 * i + 1] += y.y, acc1[4 * i + 2] += y.z, acc1[4 * i + 3] += y.w;
        }
    }
    if (ctid == 0) hg_st_relaxed_gpu(count, 0);
    return true;
}

/* The dynamic shared memory, its start rounded up to 1024 bytes (128-byte
 * swizzle). The padding is the same in both CTAs (same kernel, same dynamic
 * size), as multicast needs: it writes at the same offset in each. */
static __device__ __forceinline__ uint8_t *v6_smem(uint8_t *raw_base)
{
    return hg_smem_align1024(raw_base);
}

/* The ring's barriers: full[3], then empty[3], after the staging slots. */
static __device__ __forceinline__ hg_pipeline v6_pipeline(uint8_t *smem)
{
    hg_pipeline p;
    p.full = (uint64_t *)(smem + V6_OFF_BARRIERS);
    p.empty = p.full + V6_STAGES;
    p.stages = V6_STAGES;
    return p;
}

/* ---- cycle accounting (make prof: -DHG_V6_PROFILE) ------------------------- */

/* Where a CTA's cycles go (the row's fields: HG_V6_PROF_* in hg_internal.h;
 * the helpers in prof.cuh). Each launch overwrites one row per CTA (up to
 * HG_V6_PROF_CTAS); only thread 0 of each consumer and the producer thread
 * write. */
#ifdef HG_V6_PROFILE
__device__ uint32_t hg__v6_prof[HG_V6_PROF_CTAS * HG_V6_PROF_FIELDS];
static __device__ __forceinline__ uint32_t *v6_prof_rows(void) { return hg__v6_prof; }
#else
static __device__ __forceinline__ uint32_t *v6_prof_rows(void) { return nullptr; }
#endif

/* ---- the kernel ----------------------------------------------------------- */

/*
 * Barriers (per CTA, per stage s of the ring; pipeline.cuh has the cursors):
 *   full[s]:  arrive count 1: this CTA's producer's arrive.expect_tx of the
 *             whole stage, 57344 bytes = its A box (16384) + B half 0 + B half
 *             1 (20480 each). With MCAST one B half comes from this CTA's own
 *             multicast and one from the peer's; a multicast completes its
 *             bytes on the barrier at the same offset in both CTAs. The peer's
 *             bytes may land before this CTA's expect_tx: the tx-count then
 *             goes negative for a while, and the phase cannot complete early,
 *             since the producer's arrival is still pending. They can never
 *             land in the previous phase: the peer refills stage s only after
 *             its empty[s] completed, which needs this CTA's consumers'
 *             releases, which come after this CTA's full[s] completed.
 *   empty[s]: arrive count 4 with MCAST (2 consumer groups x 2 CTAs, each
 *             releasing to both ranks), 2 without. Arrivals of the next phase
 *             cannot mix into this one: a consumer's next release of s needs
 *             its full[s] refilled, which needs both producers past empty[s].
 * Phases: the producer's cursor starts at parity 1 (a fresh barrier lets it
 * through: the first lap finds every slot empty), the consumers' at 0; both
 * flip when the stage wraps. Every CTA of a cluster runs the same pieces
 * (hg_sk_next from the same cluster id), so the four cursors (producer and
 * consumers, both CTAs) count the same stage uses.
 */
template <int DT, bool MCAST, bool TMA_EPI>
__global__ void __launch_bounds__(V6_THREADS, 1)
    hg_v6_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                 const __grid_constant__ CUtensorMap map_c, hg_epilogue epi, hg_sk_plan plan, int64_t m_pairs,
                 int64_t n_blocks, float *sk_partials, uint32_t *sk_counters)
{
    extern __shared__ __align__(1024) uint8_t smem_raw[];
    const int tid = threadIdx.x;

    if (tid == 0) {
        hg_pipeline_init(v6_pipeline(v6_smem(smem_raw)), 1, MCAST ? 4 : 2);
        /* Make the inits visible to the peer's multicast TMA and remote
         * arrives before the cluster sync below releases it. */
        hg_fence_mbarrier_init_cluster();
    }
    /* Start: every thread of both CTAs. After it, both CTAs' barriers exist,
     * so neither producer can multicast into, nor any consumer arrive on, an
     * uninitialised barrier of the peer. (Also the CTA-wide sync after init.) */
    hg_cluster_sync();

    /* Everything else is computed inside each branch, after its setmaxnreg:
     * a value live across setmaxnreg is spilled by ptxas (seen with
     * -DHG_DEBUG_WAIT). The consumer branch comes first in the source: with
     * the producer first, ptxas serializes the wgmmas around the setmaxnreg
     * of the divergent path (the seed's observation). */
    if (tid < 256) {
        /* ---- consumer warp groups 0, 1 ---- */
        hg_setmaxnreg_inc<232>();
        uint8_t *smem = v6_smem(smem_raw);
        const hg_pipeline pipe = v6_pipeline(smem);
        const uint32_t rank = hg_cluster_ctarank();
        const int64_t cluster_id = blockIdx.x / 2;
        const int wg = tid / 128;
        const int ctid = tid % 128;
        const int bar_id = 1 + wg; /* named barrier of this group (0 is __syncthreads) */
        uint8_t *slot = smem + V6_OFF_STAGING + wg * V6_SLOT_BYTES;
        float acc0[V6_HN / 2], acc1[V6_HN / 2];
        volatile uint32_t *sk_last = (volatile uint32_t *)(smem + V6_OFF_SK_FLAGS) + wg;
        hg_pipe_cursor cur = hg_pipe_consumer_start();
        hg_prof_consumer pr = hg_prof_consumer::start(v6_prof_rows(), wg, ctid);

        /* The cluster's pieces: whole tiles tile = cluster_id, += clusters,
         * then its share of the stream-K tail (hg_sk_next; the producer walks
         * the same list). */
        hg_sk_cursor sched = hg_sk_start(&plan, cluster_id);
        hg_sk_piece pc;
        while (hg_sk_next(&plan, &sched, &pc)) {
            int64_t offset_m, offset_n;
            v6_tile_offsets(pc.tile, m_pairs, n_blocks, rank, &offset_m, &offset_n);
            const int k_count = (int)(pc.k_end - pc.k_begin);
            v6_zero_acc(acc0, acc1);
            /* Pin the zeros in place before the first wgmma.fence: otherwise
             * the compiler sinks the moves of acc1 between the first tile's
             * wgmmas, and ptxas must inject a warpgroup.arrive/wait there. */
            hg_acc_fence<V6_HN / 2>(acc0);
            hg_acc_fence<V6_HN / 2>(acc1);

            const uint32_t t_piece = hg_prof_clock();
            pr.kblocks += k_count, pr.pieces++;
            /* First k tile: issue, keep it in flight (k_count >= 1). */
            hg_pipe_consumer_acquire(pipe, cur);
            pr.full += hg_prof_clock() - t_piece;
            {
                uint8_t *st = smem + cur.stage * V6_STAGE_BYTES;
                v6_mma_stage<DT>(acc0, acc1, hg_smem_addr(st + wg * V6_A_HALF_BYTES), hg_smem_addr(st + V6_A_BYTES));
            }
            hg_pipe_advance(pipe, &cur);
            /* Steady state: issue stage i, then wait until at most one group
             * (stage i's) is pending: stage i - 1's wgmmas are done, release
             * it. */
            for (int kt = 1; kt < k_count; kt++) {
                const uint32_t t0 = hg_prof_clock();
                hg_pipe_consumer_acquire(pipe, cur);
                pr.full += hg_prof_clock() - t0;
                uint8_t *st = smem + cur.stage * V6_STAGE_BYTES;
                v6_mma_stage<DT>(acc0, acc1, hg_smem_addr(st + wg * V6_A_HALF_BYTES), hg_smem_addr(st + V6_A_BYTES));
                const uint32_t t1 = hg_prof_clock();
                hg_wgmma_wait_group<1>();
                pr.starved += hg_prof_clock() - t1 < HG_PROF_STARVED_CYCLES;
                if (ctid == 0) v6_release<MCAST>(hg_pipe_prev_consumer_barrier(pipe, cur));
                hg_pipe_advance(pipe, &cur);
            }
            /* Drain: the last stage's wgmmas, then release it (the cursor has
             * advanced past it, so it is the "previous" stage). Every stage
             * this group acquired is released before the epilogue, so the
             * producer can fill the next tile's stages meanwhile. */
            hg_wgmma_wait_group<0>();
            hg_acc_fence<V6_HN / 2>(acc0);
            hg_acc_fence<V6_HN / 2>(acc1);
            if (ctid == 0) v6_release<MCAST>(hg_pipe_prev_consumer_barrier(pipe, cur));
            const uint32_t t_drained = hg_prof_clock();
            pr.main += t_drained - t_piece;

            /* A piece of a tail tile: only the last piece to finish writes C. */
            if (pc.sk_tile >= 0 && !v6_sk_fixup(acc0, acc1, plan, pc, cluster_id, rank, wg, ctid, bar_id, sk_last,
                                                sk_partials, sk_counters)) {
                pr.epi += hg_prof_clock() - t_drained;
                continue;
            }

            const int64_t row0 = offset_m + wg * 64;
            if constexpr (TMA_EPI) {
                v6_epilogue_half<DT>(&map_c, slot, acc0, epi, row0, offset_n, ctid, bar_id);
                v6_epilogue_half<DT>(&map_c, slot, acc1, epi, row0, offset_n + V6_HN, ctid, bar_id);
            } else {
                hg_store_wgmma_acc<DT, V6_HN>(epi, acc0, row0, offset_n, ctid);
                hg_store_wgmma_acc<DT, V6_HN>(epi, acc1, row0, offset_n + V6_HN, ctid);
            }
            pr.epi += hg_prof_clock() - t_drained;
        }
        pr.finish(v6_prof_rows(), wg, ctid);
        /* The last stores' global writes complete (and their reads of the
         * slot) before the CTA may exit. */
        if (TMA_EPI && ctid == 0) hg_cp_async_bulk_wait_group<0>();
    } else {
        /* ---- producer warp group 2 ---- */
        hg_setmaxnreg_dec<40>();
        uint8_t *smem = v6_smem(smem_raw);
        const hg_pipeline pipe = v6_pipeline(smem);
        const uint32_t rank = hg_cluster_ctarank();
        const int64_t cluster_id = blockIdx.x / 2;
        if (tid == 256) {
            hg_prefetch_tensormap(&map_a);
            hg_prefetch_tensormap(&map_b);
            hg_pipe_cursor cur = hg_pipe_producer_start();
            const uint32_t t_start = hg_prof_clock();
            uint32_t t_empty = 0;
            hg_sk_cursor sched = hg_sk_start(&plan, cluster_id);
            hg_sk_piece pc;
            while (hg_sk_next(&plan, &sched, &pc)) {
                int64_t offset_m, offset_n;
                v6_tile_offsets(pc.tile, m_pairs, n_blocks, rank, &offset_m, &offset_n);
                const int32_t cm = v6_coord(offset_m);
                for (int kt = (int)pc.k_begin; kt < (int)pc.k_end; kt++) {
                    /* Wait until all consumers (both CTAs with MCAST) released
                     * the slot: this CTA's A and B half overwrite it here, and
                     * with MCAST this CTA's B half overwrites it in the peer. */
                    const uint32_t t0 = hg_prof_clock();
                    hg_pipe_producer_acquire(pipe, cur);
                    t_empty += hg_prof_clock() - t0;
                    uint64_t *full = hg_pipe_producer_barrier(pipe, cur);
                    uint8_t *st = smem + cur.stage * V6_STAGE_BYTES;
                    /* The whole stage, whoever loads it; full boxes even at
                     * the edges (out-of-bounds parts land as zeros and still
                     * count), even for a tile wholly below C (m not a
                     * multiple of 256): the peer needs this CTA's B half. */
                    hg_mbarrier_arrive_expect_tx(full, V6_STAGE_BYTES);
                    const int32_t ck = kt * V6_BK;
                    hg_tma_load_2d(st, &map_a, full, ck, cm);
                    if constexpr (MCAST) {
                        hg_tma_load_2d_multicast(st + V6_A_BYTES + rank * V6_B_HALF_BYTES, &map_b, full, ck,
                                                 v6_coord(offset_n + (int64_t)rank * V6_HN), (uint16_t)0x3);
                    } else {
                        hg_tma_load_2d(st + V6_A_BYTES, &map_b, full, ck, v6_coord(offset_n));
                        hg_tma_load_2d(st + V6_A_BYTES + V6_B_HALF_BYTES, &map_b, full, ck,
                                       v6_coord(offset_n + V6_HN));
                    }
                    hg_pipe_advance(pipe, &cur);
                }
            }
            /* End drain: wait, for each of the 3 slots, for the release of its
             * last fill. For a slot filled f times the cursor now asks for
             * parity 1 ^ (f & 1), which completes with release number f; the
             * barrier has seen f - 1 or f releases (the producer got past
             * fill number f - 1, counted from 0, which took f - 1 releases),
             * and the parity tells those two apart. A slot never filled (f = 0: no tile for this cluster, or
             * fewer than 3 k tiles in all) asks for parity 1 on a fresh
             * barrier and passes at once, so the drain never waits for
             * arrivals that never come. Once it is through, every remote
             * arrive the peer's consumers will ever make on this CTA's
             * barriers has landed, and every byte this producer multicast into
             * the peer was consumed. (The final cluster sync alone would keep
             * both CTAs alive long enough; the drain makes the arrivals'
             * landing explicit.) */
            for (int i = 0; i < V6_STAGES; i++) {
                hg_pipe_producer_acquire(pipe, cur);
                hg_pipe_advance(pipe, &cur);
            }
            hg_prof_put(v6_prof_rows(), HG_V6_PROF_PTOTAL, hg_prof_clock() - t_start);
            hg_prof_put(v6_prof_rows(), HG_V6_PROF_EMPTY, t_empty);
        }
        __syncwarp();
    }

    /* End: every thread of both CTAs. No CTA exits while its peer may still
     * multicast into its shared memory or arrive on its barriers: all of
     * those precede the peer's consumers' / producer's arrival here. */
    __syncwarp();
    hg_cluster_sync();
}

/* ---- host side -------------------------------------------------------------- */

/* The launch of `clusters` 2-CTA clusters on `stream` (attr: its storage). */
static cudaLaunchConfig_t v6_launch_config(cudaLaunchAttribute attr[1], int64_t clusters, cudaStream_t stream)
{
    return hg_cluster_launch_config(attr, clusters, V6_CLUSTER_CTAS, V6_THREADS, V6_SMEM_BYTES, stream);
}

/* How many clusters run at once, asked once per device and kernel. */
template <int DT, bool MCAST, bool TMA_EPI> static int64_t v6_resident_clusters(const hg__device *d)
{
    static int cached[HG_MAX_DEVICES];
    return hg_resident_clusters((const void *)hg_v6_kernel<DT, MCAST, TMA_EPI>, V6_CLUSTER_CTAS, V6_THREADS,
                                V6_SMEM_BYTES, d, cached);
}

/* A launch's grid and decomposition, shared by the launch and the workspace
 * query so that both see the same plan. */
struct v6_grid {
    int64_t k_tiles, m_pairs, n_blocks, pairs, clusters;
    hg_sk_plan plan;
    size_t ws_need; /* workspace the stream-K plan uses (0: none) */
};

template <int DT, bool MCAST, bool TMA_EPI>
static v6_grid v6_grid_of(const hg__problem *p, const hg__device *d, bool persistent, bool stream_k)
{
    v6_grid g;
    g.k_tiles = hg_cdiv(p->k, V6_BK);
    g.m_pairs = hg_cdiv(hg_cdiv(p->m, V6_BM), V6_CLUSTER_CTAS);
    g.n_blocks = hg_cdiv(p->n, V6_BN);
    g.pairs = g.m_pairs * g.n_blocks;
    if (persistent) {
        /* More clusters than tile pairs is fine (the spare ones sync and
         * exit). */
        g.clusters = v6_resident_clusters<DT, MCAST, TMA_EPI>(d);
    } else {
        /* Ablation: one cluster per tile pair (the kernel's tile loop then
         * runs once), capped at the grid limit (the loop covers the rest). */
        g.clusters = g.pairs;
        if (g.clusters > ((int64_t)1 << 30) - 1) g.clusters = ((int64_t)1 << 30) - 1;
    }
    if (g.clusters < 1) g.clusters = 1;
    /* The stream-K tail needs every cluster resident at once (persistent)
     * and workspace for its workers. Without it, the last round runs whole
     * tiles on fewer clusters, as the seeds' V6 does. */
    g.plan = hg_sk_make(g.pairs, g.k_tiles, g.clusters, stream_k && persistent);
    g.ws_need = hg__sk_workspace_bytes(d, g.plan.sk_workers, HG_V6_SK_WORKER_BYTES);
    return g;
}

template <int DT, bool MCAST, bool TMA_EPI>
static hg_status v6_launch_t(const hg__problem *p, const hg__device *d, cudaStream_t stream, hg__err *e,
                             bool persistent, bool stream_k)
{
    CUtensorMap map_a, map_b, map_c;
    hg_status st = hg_tn_tensor_maps(p, V6_BM, V6_HN, &map_a, &map_b, e);
    if (st != HG_STATUS_SUCCESS) return st;
    /* The per-thread epilogue never reads map_c (C may then break TMA's rules). */
    memset(&map_c, 0, sizeof map_c);
    if (TMA_EPI) st = hg_c_tensor_map(p, V6_HN, 64, 0, &map_c, e);
    if (st != HG_STATUS_SUCCESS) return st;

    void (*kern)(const CUtensorMap, const CUtensorMap, const CUtensorMap, hg_epilogue, hg_sk_plan, int64_t, int64_t,
                 float *, uint32_t *) = hg_v6_kernel<DT, MCAST, TMA_EPI>;
    st = hg_set_smem((const void *)kern, V6_SMEM_BYTES, "v6", e);
    if (st != HG_STATUS_SUCCESS) return st;

    hg_epilogue epi = hg_epilogue_of(p);
    v6_grid g = v6_grid_of<DT, MCAST, TMA_EPI>(p, d, persistent, stream_k);
    float *partials;
    uint32_t *counters;
    if (!hg_sk_workspace(d, g.ws_need, &counters, &partials) && g.ws_need > 0)
        g.plan = hg_sk_make(g.pairs, g.k_tiles, g.clusters, 0); /* too little workspace: no tail split */

    cudaLaunchAttribute attr[1];
    cudaLaunchConfig_t cfg = v6_launch_config(attr, g.clusters, stream);

    void *args[9] = {(void *)&map_a,     (void *)&map_b,      (void *)&map_c,      (void *)&epi,     (void *)&g.plan,
                     (void *)&g.m_pairs, (void *)&g.n_blocks, (void *)&partials, (void *)&counters};
    return hg_launch_ex(&cfg, (const void *)kern, args, "v6", e);
}

template <bool MCAST, bool TMA_EPI>
static hg_status v6_launch_dt(const hg__problem *p, const hg__device *d, cudaStream_t stream, hg__err *e,
                              bool persistent, bool stream_k)
{
    if (p->dtype == HG_BF16) return v6_launch_t<1, MCAST, TMA_EPI>(p, d, stream, e, persistent, stream_k);
    return v6_launch_t<0, MCAST, TMA_EPI>(p, d, stream, e, persistent, stream_k);
}

extern "C" {

/* What the full V6's plan for p uses: the counters and the partials of its
 * stream-K workers (0 when the plan splits nothing). */
size_t hg__v6_workspace(const hg__problem *p, const hg__device *d)
{
    if (p->m == 0 || p->n == 0 || hg__v6_can_serve(p, d) != NULL) return 0;
    const bool tma_c = hg__tma_c_ok(p); /* the epilogue the launch will take */
    if (p->dtype == HG_BF16)
        return tma_c ? v6_grid_of<1, true, true>(p, d, true, true).ws_need
                     : v6_grid_of<1, true, false>(p, d, true, true).ws_need;
    return tma_c ? v6_grid_of<0, true, true>(p, d, true, true).ws_need
                 : v6_grid_of<0, true, false>(p, d, true, true).ws_need;
}

/* C needs no TMA: when its base or ldc breaks TMA's 16-byte rule, V6 writes
 * it with the per-thread epilogue instead (the ablation's variant 3). */
const char *hg__v6_can_serve(const hg__problem *p, const hg__device *d)
{
    const char *why = hg__tma_ab_can_serve(p, d);
    if (why) return why;
    if (!d->cluster_launch) return "needs thread-block cluster launch, which this device lacks.";
    if (d->sm_count < 2) return "needs at least 2 SMs (a 2-CTA cluster).";
    if (d->smem_optin < V6_SMEM_BYTES)
        return "needs 214080 bytes of shared memory per block, more than this device allows.";
    return NULL;
}

/* variant 0: full V6; 1: no multicast (each CTA loads its whole B); 2: not
 * persistent (one cluster per tile pair, hence no stream-K tail either); 3:
 * per-thread epilogue instead of the TMA store; 4: no stream-K tail (the
 * seeds' V6: the last round runs whole tiles). */
hg_status hg__v6_launch_variant(const hg__problem *p, const hg__device *d, struct CUstream_st *s, hg__err *e,
                                int variant)
{
    if (p->m == 0 || p->n == 0) return HG_STATUS_SUCCESS;
    /* The kernel assumes k_tiles >= 1 and the device limits: a direct call
     * (the tool's ablations) gets the same checks as dispatch. */
    const char *why = hg__v6_can_serve(p, d);
    if (why) {
        hg__err_set(e, "kernel v6 %s", why);
        return HG_STATUS_NOT_SUPPORTED;
    }
    cudaStream_t stream = (cudaStream_t)s;
    if (!hg__tma_c_ok(p)) {
        /* C's rows break TMA's 16-byte rule: only the per-thread epilogue. */
        if (variant == 0 || variant == 3) return v6_launch_dt<true, false>(p, d, stream, e, true, true);
        hg__err_set(e, "v6: ablation %d needs C 16-byte aligned with ldc a multiple of 8 (its TMA store).", variant);
        return HG_STATUS_NOT_SUPPORTED;
    }
    switch (variant) {
    case 0: return v6_launch_dt<true, true>(p, d, stream, e, true, true);
    case 1: return v6_launch_dt<false, true>(p, d, stream, e, true, true);
    case 2: return v6_launch_dt<true, true>(p, d, stream, e, false, false);
    case 3: return v6_launch_dt<true, false>(p, d, stream, e, true, true);
    case 4: return v6_launch_dt<true, true>(p, d, stream, e, true, false);
    default:
        hg__err_set(e,
                    "v6: unknown variant %d (0 full, 1 no multicast, 2 not persistent, 3 per-thread epilogue, "
                    "4 no stream-K tail).",
                    variant);
        return HG_STATUS_INVALID_VALUE;
    }
}

#ifdef HG_V6_PROFILE
int hg__v6_profile_read(uint32_t *rows, int ctas) { return hg_prof_read(hg__v6_prof, rows, ctas); }
#endif

hg_status hg__v6_launch(const hg__problem *p, const hg__device *d, struct CUstream_st *s, hg__err *e)
{
    return hg__v6_launch_variant(p, d, s, e, 0);
}

} /* extern "C" */
