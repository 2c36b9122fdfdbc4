/*
 * generic: the kernel that serves every valid call. mma.sync + ldmatrix on the
 * tensor cores, no TMA, no wgmma.
 *
 * It exists as the safety net (AUTO falls back to it for any layout, size,
 * leading dimension or alignment the TMA kernels refuse) and as the GPU tests'
 * second reference, so correctness comes first and speed second.
 *
 * 8 warps (256 threads) in a 2 (M) x 4 (N) grid, block_k 64, mma.sync
 * m16n8k16 with fp32 accumulators, ldmatrix fragments double-buffered across
 * the four k16 steps of a k block.
 *
 * Shared-memory tiles keep the layout the operand has in global memory: a
 * K-major operand (A with opA = N, B with opB = T) is a [rows][64] tile, an
 * M- or N-major one (A with opA = T, B with opB = N) a [64][cols] tile. The
 * fragments come out of ldmatrix (K-major) or ldmatrix.trans (the others), so
 * one kernel body serves all four layouts. 16-byte chunks are XOR-swizzled
 * (chunk ^= row % 8) so that both the 16-byte writes and ldmatrix's 8-row reads
 * hit 8 distinct 16-byte bank groups.
 *
 * Two load paths, picked on the host per call:
 *   fast (VEC = 1): A and B 16-byte aligned, lda and ldb multiples of 8.
 *     Tile 128 x 256 (warp tile 64 x 64, 128 accumulators per thread).
 *     cp.async 16-byte copies into a ring of 4 stages of 48 KiB (192 KiB),
 *     src_bytes < 16 zero-filling the ragged edges.
 *   safe (VEC = 0): anything else (2-byte alignment, odd leading dimensions).
 *     Tile 128 x 128 (warp tile 64 x 32): its loads go through registers,
 *     which a 128 x 256 tile's accumulators leave no room for. Bounds-checked
 *     2-byte loads, packed and stored 16 bytes at a time into a 2-stage ring
 *     of 32 KiB stages (64 KiB); the next k block's loads are issued before
 *     the current block's math and stored after it, so their latency hides
 *     behind the math.
 * Both paths zero-fill every operand element outside the matrix, so edge
 * tiles need no special math; the epilogue checks rows and columns
 * (hg_store_pair) and never reads C when beta is 0.
 *
 * k = 0 (C = beta * C) runs a small separate kernel.
 *
 * Indices that are products (row * ld) are 64-bit; the grid is 1-D over output
 * tiles (grouped rasterization, groups of 8 along N), with a grid-stride loop
 * in case there are more than 2^31 - 1 tiles.
 *
 * Measured on the H200 (2026-11-29, fp16 TN fast path, median of 3 processes):
 * 8192^3 2.982 ms, 369 TFLOPS, 0.48 of cuBLAS-best; tensor pipe (HMMA) 61%.
 * docs/generic.md.
 */
#include "common.cuh"

enum {
    GN_BM = 128,
    GN_BN_FAST = 256,
    GN_BN_SAFE = 128,
    GN_BK = 64,
    GN_THREADS = 256,
    GN_WARPS_N = 4, /* 2 along M */
    GN_WM = GN_BM / 2,      /* warp tile rows: 64 */
    GN_MT = GN_WM / 16,     /* m16 tiles per warp: 4 */
    GN_KSTEPS = GN_BK / 16, /* 4 */
    GN_STAGES_FAST = 4,
    GN_STAGES_SAFE = 2,
    GN_A_BYTES = GN_BM * GN_BK * 2, /* 16 KiB per stage, either layout */
    GN_A_CHUNKS = GN_BM * GN_BK / 8 / GN_THREADS, /* 16-byte chunks per thread: 4 */
    GN_RASTER_GROUP = 8,
    GN_SCALE_THREADS = 256,
};

/*
 * Per load path: the tile's N extent, the warp tile's (BN / 4), n8 tiles per
 * warp, stages. The safe path takes a 128-wide tile because its staged loads
 * need registers that 128 accumulators per thread leave no room for.
 */
template <int VEC> static __host__ __device__ constexpr int gn_bn(void)
{
    return VEC ? GN_BN_FAST : GN_BN_SAFE;
}
template <int VEC> static __host__ __device__ constexpr int gn_nt(void)
{
    return gn_bn<VEC>() / GN_WARPS_N / 8;
}
template <int VEC> static __host__ __device__ constexpr int gn_stages(void)
{
    return VEC ? GN_STAGES_FAST : GN_STAGES_SAFE;
}
template <int VEC> static __host__ __device__ constexpr int gn_b_bytes(void)
{
    return gn_bn<VEC>() * GN_BK * 2;
}
template <int VEC> static __host__ __device__ constexpr int gn_stage_bytes(void)
{
    return GN_A_BYTES + gn_b_bytes<VEC>();
}
template <int VEC> static __host__ __device__ constexpr int gn_b_chunks(void)
{
    return gn_bn<VEC>() * GN_BK / 8 / GN_THREADS;
}

/* The kernel's view of the operands (the epilogue has C). */
typedef struct {
    const uint16_t *A, *B;
    int64_t lda, ldb;
    int64_t m, n, k;
    int64_t m_blocks, n_blocks, tiles;
} gn_args;

/*
 * Shared-tile geometry of one operand, as stored. KMAJ: MNT rows of GN_BK
 * elements; else GN_BK rows of MNT elements. A thread's chunks all sit in the
 * same column of chunks, gn_rstep rows apart; gn_rstep is a multiple of 8 in
 * every case, so they share one swizzle pattern and differ by an immediate.
 */
template <int KMAJ, int MNT> static __host__ __device__ constexpr int gn_cols(void)
{
    return KMAJ ? GN_BK : MNT;
}
template <int KMAJ, int MNT> static __host__ __device__ constexpr int gn_cpr(void)
{
    return gn_cols<KMAJ, MNT>() / 8;
}
template <int KMAJ, int MNT> static __host__ __device__ constexpr int gn_rstep(void)
{
    return GN_THREADS / gn_cpr<KMAJ, MNT>();
}
template <int KMAJ, int MNT> static __host__ __device__ constexpr int gn_row_bytes(void)
{
    return gn_cols<KMAJ, MNT>() * 2;
}
template <int KMAJ, int MNT> static __host__ __device__ constexpr int gn_nchunks(void)
{
    return MNT * GN_BK / 8 / GN_THREADS;
}

/*
 * One thread's load state for one operand. The stored matrix is rows x cols
 * (row-major, ld); "outer" counts stored rows, "inner" elements along a row.
 * For a K-major operand the k block moves along the row (inner_rem shrinks);
 * for the others it moves down the rows (outer_rem shrinks).
 */
typedef struct {
    const uint16_t *g;  /* this thread's first chunk, at the next k block to load */
    int64_t row_step;   /* elements between this thread's chunks: gn_rstep * ld */
    int64_t outer_rem;  /* stored rows left from the first chunk's row */
    int64_t inner_rem;  /* elements left in the row from the chunk's first element */
    uint32_t smem_off;  /* byte offset of the first chunk in the operand's stage tile */
} gn_loader;

template <int KMAJ, int MNT>
static __device__ __forceinline__ gn_loader gn_loader_init(const uint16_t *base, int64_t ld, int64_t mn0,
                                                           int64_t mn_total, int64_t k_total, int tid)
{
    constexpr int CPR = gn_cpr<KMAJ, MNT>();
    const int row = tid / CPR, cc = tid % CPR;
    gn_loader L;
    L.row_step = (int64_t)gn_rstep<KMAJ, MNT>() * ld;
    L.smem_off = (uint32_t)(row * gn_row_bytes<KMAJ, MNT>() + ((cc ^ (row & 7)) << 4));
    if (KMAJ) {
        L.g = base + (mn0 + row) * ld + cc * 8;
        L.outer_rem = mn_total - (mn0 + row);
        L.inner_rem = k_total - cc * 8;
    } else {
        L.g = base + (int64_t)row * ld + mn0 + cc * 8;
        L.outer_rem = k_total - row;
        L.inner_rem = mn_total - (mn0 + cc * 8);
    }
    return L;
}

template <int KMAJ, int MNT> static __device__ __forceinline__ void gn_loader_advance(gn_loader &L)
{
    if (KMAJ) {
        L.g += GN_BK;
        L.inner_rem -= GN_BK;
    } else {
        /* GN_BK rows down: GN_BK / gn_rstep row steps (a power of two). */
        L.g += L.row_step * (GN_BK / gn_rstep<KMAJ, MNT>());
        L.outer_rem -= GN_BK;
    }
}

/* Fast path: this thread's cp.async copies of one operand's k block. A chunk
 * wholly outside the matrix copies 0 bytes from the matrix base, so no
 * out-of-range address is ever handed to the copy. */
template <int KMAJ, int MNT>
static __device__ __forceinline__ void gn_issue_fast(uint32_t s_tile, const gn_loader &L,
                                                     const uint16_t *base)
{
    constexpr int RSTEP = gn_rstep<KMAJ, MNT>();
    constexpr int ROWB = gn_row_bytes<KMAJ, MNT>();
    const int64_t in = L.inner_rem;
    const int row_bytes = in >= 8 ? 16 : (in > 0 ? (int)in * 2 : 0);
#pragma unroll
    for (int q = 0; q < gn_nchunks<KMAJ, MNT>(); q++) {
        const int bytes = L.outer_rem > (int64_t)q * RSTEP ? row_bytes : 0;
        const uint16_t *src = bytes ? L.g + q * L.row_step : base;
        hg_cp_async_16(s_tile + L.smem_off + q * RSTEP * ROWB, src, bytes);
    }
}

/* Safe path: chunk q of this thread, eight bounds-checked 2-byte loads packed
 * into 16 bytes (zeros outside the matrix). */
template <int KMAJ, int MNT>
static __device__ __forceinline__ uint4 gn_load_safe(const gn_loader &L, int q)
{
    const uint16_t *p = L.g + q * L.row_step;
    const int64_t in = L.outer_rem > (int64_t)q * gn_rstep<KMAJ, MNT>() ? L.inner_rem : 0;
    const int cnt = in >= 8 ? 8 : (in > 0 ? (int)in : 0);
    uint32_t w[4];
#pragma unroll
    for (int e = 0; e < 4; e++) {
        const uint32_t lo = cnt > 2 * e ? (uint32_t)__ldg(p + 2 * e) : 0u;
        const uint32_t hi = cnt > 2 * e + 1 ? (uint32_t)__ldg(p + 2 * e + 1) : 0u;
        w[e] = lo | (hi << 16);
    }
    return make_uint4(w[0], w[1], w[2], w[3]);
}

template <int KMAJ, int MNT>
static __device__ __forceinline__ uint32_t gn_chunk_off(const gn_loader &L, int q)
{
    return L.smem_off + q * gn_rstep<KMAJ, MNT>() * gn_row_bytes<KMAJ, MNT>();
}

/*
 * Per-lane ldmatrix offsets. Lane l feeds row l % 8 of 8x8 matrix j = l / 8.
 *
 * A (mma "row", 16 m x 16 k; a0..a3 = (m0-7, k0-7), (m8-15, k0-7), (m0-7,
 * k8-15), (m8-15, k8-15)):
 *   K-major [m][k]: matrix j is rows m + 8*(j&1), chunk k/8 + (j>>1); plain.
 *   M-major [k][m]: matrix j is rows k + 8*(j>>1), chunk m/8 + (j&1); .trans
 *     turns the stored (k, m) 8x8 into the (m, k) one the mma wants.
 * B (mma "col", 16 k x 8 n; b0 = k0-7, b1 = k8-15), two n8 tiles per x4:
 *   K-major [n][k]: matrix j is rows n + 8*(j>>1), chunk k/8 + (j&1); plain,
 *     since a stored row n holding k already is the "col" fragment.
 *   N-major [k][n]: matrix j is rows k + 8*(j&1), chunk n/8 + (j>>1); .trans.
 * so r0, r1 = b0, b1 of n8 tile 2p and r2, r3 those of tile 2p + 1.
 *
 * A K-major tile's swizzle depends on the k chunk, so its offsets are indexed
 * by the k16 step and the m16 tile adds an immediate; an M/N-major tile's
 * swizzle depends on the m/n chunk, so they are indexed by the tile and the
 * k16 step adds an immediate. off[x] covers both: see gn_frag_addr.
 */
template <int KMAJ, int MNT>
static __device__ __forceinline__ void gn_frag_offsets(uint32_t off[4], int w0, int lane, int is_b)
{
    constexpr int ROWB = gn_row_bytes<KMAJ, MNT>();
    const int r = lane & 7, j = lane >> 3;
    /* Which of j's bits picks +8 rows of the 16x16 block, which the +8 column
     * half, differs between A (a1 is m+8) and B (r1 is k+8). */
    const int mn_hi = is_b ? (j >> 1) : (j & 1);
    const int k_hi = is_b ? (j & 1) : (j >> 1);
#pragma unroll
    for (int x = 0; x < 4; x++) {
        if (KMAJ) {
            const int row = w0 + 8 * mn_hi + r;
            off[x] = (uint32_t)(row * ROWB + (((2 * x + k_hi) ^ r) << 4));
        } else {
            const int row = 8 * k_hi + r;
            const int chunk = w0 / 8 + 2 * x + mn_hi;
            off[x] = (uint32_t)(row * ROWB + ((chunk ^ r) << 4));
        }
    }
}

/* Address of 16x16 block t (m16 tile of A, n16 pair of B) at k16 step ks. */
template <int KMAJ, int MNT>
static __device__ __forceinline__ uint32_t gn_frag_addr(uint32_t s_tile, const uint32_t off[4], int t, int ks)
{
    constexpr int ROWB = gn_row_bytes<KMAJ, MNT>();
    if (KMAJ) return s_tile + off[ks] + t * 16 * ROWB;
    return s_tile + off[t] + ks * 16 * ROWB;
}

template <int A_KMAJ, int B_KMAJ, int BN>
static __device__ __forceinline__ void gn_load_frags(uint32_t a[GN_MT][4], uint32_t b[][2], uint32_t s_a,
                                                     uint32_t s_b, const uint32_t a_off[4],
                                                     const uint32_t b_off[4], int ks)
{
#pragma unroll
    for (int i = 0; i < GN_MT; i++) {
        const uint32_t addr = gn_frag_addr<A_KMAJ, GN_BM>(s_a, a_off, i, ks);
        if (A_KMAJ) hg_ldmatrix_x4(a[i], addr);
        else hg_ldmatrix_x4_trans(a[i], addr);
    }
#pragma unroll
    for (int p = 0; p < BN / GN_WARPS_N / 16; p++) {
        const uint32_t addr = gn_frag_addr<B_KMAJ, BN>(s_b, b_off, p, ks);
        uint32_t r[4];
        if (B_KMAJ) hg_ldmatrix_x4(r, addr);
        else hg_ldmatrix_x4_trans(r, addr);
        b[2 * p][0] = r[0];
        b[2 * p][1] = r[1];
        b[2 * p + 1][0] = r[2];
        b[2 * p + 1][1] = r[3];
    }
}

template <int DT, int NT>
static __device__ __forceinline__ void gn_mma_step(float acc[GN_MT][NT][4], const uint32_t a[GN_MT][4],
                                                   const uint32_t b[NT][2])
{
#pragma unroll
    for (int i = 0; i < GN_MT; i++) {
#pragma unroll
        for (int j = 0; j < NT; j++) hg_mma_m16n8k16<DT>(acc[i][j], a[i], b[j]);
    }
}

/*
 * C[m0.., n0..] = alpha * A[m0.., :] * B[:, n0..] + beta * C for each output
 * tile of this CTA. OPA / OPB are hg_op values; A is K-major when opA = N, B
 * when opB = T; CT is C's element (uint16_t, or float for HG_C_F32).
 */
template <int DT, int OPA, int OPB, int VEC, class CT>
__global__ void __launch_bounds__(GN_THREADS, 1) hg_generic_kernel(gn_args args, hg_epilogue epi)
{
    constexpr int A_KMAJ = OPA == HG_OP_N;
    constexpr int B_KMAJ = OPB == HG_OP_T;
    constexpr int BN = gn_bn<VEC>(), NT = gn_nt<VEC>(), STAGES = gn_stages<VEC>();
    constexpr int STAGE_BYTES = gn_stage_bytes<VEC>(), B_CHUNKS = gn_b_chunks<VEC>();

    extern __shared__ __align__(128) uint8_t gn_smem[];
    const uint32_t s_base = hg_smem_addr(gn_smem);

    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wm = (warp / GN_WARPS_N) * GN_WM, wn = (warp % GN_WARPS_N) * (BN / GN_WARPS_N);

    uint32_t a_off[4], b_off[4];
    gn_frag_offsets<A_KMAJ, GN_BM>(a_off, wm, lane, 0);
    gn_frag_offsets<B_KMAJ, BN>(b_off, wn, lane, 1);

    const int64_t k_tiles = hg_cdiv(args.k, GN_BK);

    for (int64_t tile = blockIdx.x; tile < args.tiles; tile += gridDim.x) {
        int64_t m_block, n_block;
        hg_raster_tile(tile, args.m_blocks, args.n_blocks, GN_RASTER_GROUP, &m_block, &n_block);
        const int64_t m0 = m_block * GN_BM, n0 = n_block * BN;

        gn_loader la = gn_loader_init<A_KMAJ, GN_BM>(args.A, args.lda, m0, args.m, args.k, tid);
        gn_loader lb = gn_loader_init<B_KMAJ, BN>(args.B, args.ldb, n0, args.n, args.k, tid);

        float acc[GN_MT][NT][4];
#pragma unroll
        for (int i = 0; i < GN_MT; i++)
#pragma unroll
            for (int j = 0; j < NT; j++)
#pragma unroll
                for (int c = 0; c < 4; c++) acc[i][j][c] = 0.0f;

        /* Fragments of two k16 steps: the next step's ldmatrix overlaps this
         * step's mma. */
        uint32_t af[2][GN_MT][4], bf[2][NT][2];

        if (VEC) {
            /* Ring of STAGES: k block kt lives in stage kt % STAGES. Copies run
             * STAGES - 1 blocks ahead. One commit group per k block, blocks
             * past the end included (they copy 0 bytes and zero-fill), so the
             * group count stays in step and wait_group<STAGES - 2> always
             * means "block kt has landed". */
#pragma unroll
            for (int s = 0; s < STAGES - 1; s++) {
                const uint32_t st = s_base + s * STAGE_BYTES;
                gn_issue_fast<A_KMAJ, GN_BM>(st, la, args.A);
                gn_issue_fast<B_KMAJ, BN>(st + GN_A_BYTES, lb, args.B);
                hg_cp_async_commit_group();
                gn_loader_advance<A_KMAJ, GN_BM>(la);
                gn_loader_advance<B_KMAJ, BN>(lb);
            }
            int rd = 0, wr = STAGES - 1;
            for (int64_t kt = 0; kt < k_tiles; kt++) {
                hg_cp_async_wait_group<STAGES - 2>();
                /* Publishes every thread's copies of block kt, and tells that
                 * all warps are done reading stage wr (block kt - 1). */
                __syncthreads();
                {
                    const uint32_t st = s_base + wr * STAGE_BYTES;
                    gn_issue_fast<A_KMAJ, GN_BM>(st, la, args.A);
                    gn_issue_fast<B_KMAJ, BN>(st + GN_A_BYTES, lb, args.B);
                    hg_cp_async_commit_group();
                    gn_loader_advance<A_KMAJ, GN_BM>(la);
                    gn_loader_advance<B_KMAJ, BN>(lb);
                }
                const uint32_t s_a = s_base + rd * STAGE_BYTES, s_b = s_a + GN_A_BYTES;
                gn_load_frags<A_KMAJ, B_KMAJ, BN>(af[0], bf[0], s_a, s_b, a_off, b_off, 0);
#pragma unroll
                for (int ks = 0; ks < GN_KSTEPS; ks++) {
                    if (ks + 1 < GN_KSTEPS)
                        gn_load_frags<A_KMAJ, B_KMAJ, BN>(af[(ks + 1) & 1], bf[(ks + 1) & 1], s_a, s_b, a_off,
                                                          b_off, ks + 1);
                    gn_mma_step<DT, NT>(acc, af[ks & 1], bf[ks & 1]);
                }
                rd = rd + 1 == STAGES ? 0 : rd + 1;
                wr = wr + 1 == STAGES ? 0 : wr + 1;
            }
            /* The zero-fill copies past the end may still be in flight; they
             * must not land in the next tile's stages. */
            hg_cp_async_wait_group<0>();
        } else {
            /* Two stages: block kt is read from stage kt & 1 while block kt + 1
             * is loaded through registers into the other. The loads are written
             * PER_STEP chunks per k16 step; ptxas is free to issue them all
             * early (it does), the stores still wait for the data. One barrier
             * per block both publishes the stores and retires the stage about
             * to be overwritten. */
            constexpr int PER_STEP = (GN_A_CHUNKS + B_CHUNKS) / GN_KSTEPS;
            static_assert((GN_A_CHUNKS + B_CHUNKS) % GN_KSTEPS == 0, "chunks spread evenly over k16 steps");
#pragma unroll
            for (int q = 0; q < GN_A_CHUNKS; q++)
                *(uint4 *)(gn_smem + gn_chunk_off<A_KMAJ, GN_BM>(la, q)) = gn_load_safe<A_KMAJ, GN_BM>(la, q);
#pragma unroll
            for (int q = 0; q < B_CHUNKS; q++)
                *(uint4 *)(gn_smem + GN_A_BYTES + gn_chunk_off<B_KMAJ, BN>(lb, q)) =
                    gn_load_safe<B_KMAJ, BN>(lb, q);
            gn_loader_advance<A_KMAJ, GN_BM>(la);
            gn_loader_advance<B_KMAJ, BN>(lb);

            for (int64_t kt = 0; kt < k_tiles; kt++) {
                __syncthreads();
                const uint32_t rd = (uint32_t)(kt & 1) * STAGE_BYTES;
                const uint32_t wr = (uint32_t)STAGE_BYTES - rd;
                const uint32_t s_a = s_base + rd, s_b = s_a + GN_A_BYTES;
                gn_load_frags<A_KMAJ, B_KMAJ, BN>(af[0], bf[0], s_a, s_b, a_off, b_off, 0);
#pragma unroll
                for (int ks = 0; ks < GN_KSTEPS; ks++) {
                    /* Past the last block these loads are all out of range:
                     * they read nothing and store zeros nobody reads. */
                    uint4 staged[PER_STEP];
#pragma unroll
                    for (int u = 0; u < PER_STEP; u++) {
                        const int q = ks * PER_STEP + u;
                        staged[u] = q < GN_A_CHUNKS ? gn_load_safe<A_KMAJ, GN_BM>(la, q)
                                                    : gn_load_safe<B_KMAJ, BN>(lb, q - GN_A_CHUNKS);
                    }
                    if (ks + 1 < GN_KSTEPS)
                        gn_load_frags<A_KMAJ, B_KMAJ, BN>(af[(ks + 1) & 1], bf[(ks + 1) & 1], s_a, s_b, a_off,
                                                          b_off, ks + 1);
                    gn_mma_step<DT, NT>(acc, af[ks & 1], bf[ks & 1]);
#pragma unroll
                    for (int u = 0; u < PER_STEP; u++) {
                        const int q = ks * PER_STEP + u;
                        const uint32_t off = q < GN_A_CHUNKS
                                                 ? gn_chunk_off<A_KMAJ, GN_BM>(la, q)
                                                 : GN_A_BYTES + gn_chunk_off<B_KMAJ, BN>(lb, q - GN_A_CHUNKS);
                        *(uint4 *)(gn_smem + wr + off) = staged[u];
                    }
                }
                gn_loader_advance<A_KMAJ, GN_BM>(la);
                gn_loader_advance<B_KMAJ, BN>(lb);
            }
        }

        /* Accumulator layout of m16n8: c0, c1 at row lane/4, columns
         * 2*(lane%4) + {0, 1}; c2, c3 eight rows below. */
        const int64_t row = m0 + wm + lane / 4, col = n0 + wn + 2 * (lane % 4);
#pragma unroll
        for (int i = 0; i < GN_MT; i++) {
#pragma unroll
            for (int j = 0; j < NT; j++) {
                hg_store_pair<DT, hg_fin_none, CT>(epi, row + 16 * i, col + 8 * j, acc[i][j][0], acc[i][j][1]);
                hg_store_pair<DT, hg_fin_none, CT>(epi, row + 16 * i + 8, col + 8 * j, acc[i][j][2], acc[i][j][3]);
            }
        }
        /* The next tile's first loads overwrite stages this one may still be
         * reading. */
        __syncthreads();
    }
}

/* k = 0 or alpha = 0 (dispatch makes them one case): C = act(beta * C + bias), beta * C exact,
 * one fp32 product rounded once, whatever alpha is; C is not read when beta
 * is 0 (zeros over NaN). Rows grid-stride over y, columns over x and the
 * block. */
template <int DT, class CT>
__global__ void __launch_bounds__(GN_SCALE_THREADS) hg_generic_scale_kernel(hg_epilogue epi)
{
    hg_fin_dispatch<true>(epi, [&](auto fin) {
        using FIN = decltype(fin);
        for (int64_t row = blockIdx.y; row < epi.m; row += gridDim.y) {
            CT *c_row = (CT *)epi.C + row * epi.ldc;
            for (int64_t col = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; col < epi.n;
                 col += (int64_t)gridDim.x * blockDim.x) {
                const float v = epi.beta != 0.0f ? epi.beta * hg_c_to_f32<DT>(c_row[col]) : 0.0f;
                c_row[col] = hg_f32_to_c<DT, CT>(hg_fin_apply<FIN>(v, hg_fin_bias<DT, FIN>(epi, col)));
            }
        }
    });
}

/* ---- host ------------------------------------------------------------------ */

template <int DT, class CT, int OPA, int OPB, int VEC>
static hg_status gn_launch(gn_args a, const hg_epilogue &epi, cudaStream_t s, hg__err *e)
{
    a.n_blocks = hg_cdiv(a.n, gn_bn<VEC>());
    a.tiles = a.m_blocks * a.n_blocks;
    constexpr int smem = gn_stages<VEC>() * gn_stage_bytes<VEC>();
    hg_status st = hg_set_smem((const void *)hg_generic_kernel<DT, OPA, OPB, VEC, CT>, smem, "generic", e);
    if (st != HG_STATUS_SUCCESS) return st;
    const int64_t grid = a.tiles < INT32_MAX ? a.tiles : INT32_MAX;
    hg_generic_kernel<DT, OPA, OPB, VEC, CT><<<(unsigned)grid, GN_THREADS, smem, s>>>(a, epi);
    return hg_launch_status("generic", e);
}

template <int DT, class CT, int OPA, int OPB>
static hg_status gn_launch_vec(const gn_args &a, const hg_epilogue &epi, int vec, cudaStream_t s, hg__err *e)
{
    return vec ? gn_launch<DT, CT, OPA, OPB, 1>(a, epi, s, e) : gn_launch<DT, CT, OPA, OPB, 0>(a, epi, s, e);
}

template <int DT, class CT>
static hg_status gn_launch_ops(const hg__problem *p, const gn_args &a, const hg_epilogue &epi, int vec,
                               cudaStream_t s, hg__err *e)
{
    if (p->opA == HG_OP_N) {
        if (p->opB == HG_OP_N) return gn_launch_vec<DT, CT, HG_OP_N, HG_OP_N>(a, epi, vec, s, e);
        return gn_launch_vec<DT, CT, HG_OP_N, HG_OP_T>(a, epi, vec, s, e);
    }
    if (p->opB == HG_OP_N) return gn_launch_vec<DT, CT, HG_OP_T, HG_OP_N>(a, epi, vec, s, e);
    return gn_launch_vec<DT, CT, HG_OP_T, HG_OP_T>(a, epi, vec, s, e);
}

template <int DT, class CT> static hg_status gn_launch_scale_t(const hg_epilogue &epi, cudaStream_t s, hg__err *e)
{
    const int64_t xb = hg_cdiv(epi.n, GN_SCALE_THREADS);
    dim3 grid((unsigned)(xb < 64 ? xb : 64), (unsigned)(epi.m < 4096 ? epi.m : 4096));
    hg_generic_scale_kernel<DT, CT><<<grid, GN_SCALE_THREADS, 0, s>>>(epi);
    return hg_launch_status("generic (k = 0)", e);
}

/* The call's dtype and C type as template arguments: f(DT, CT). */
template <class F> static hg_status gn_with_types(const hg__problem *p, F &&f)
{
    const bool c32 = p->c_type == HG_C_F32;
    if (p->dtype == HG_F16)
        return c32 ? f(std::integral_constant<int, 0>(), float()) : f(std::integral_constant<int, 0>(), uint16_t());
    return c32 ? f(std::integral_constant<int, 1>(), float()) : f(std::integral_constant<int, 1>(), uint16_t());
}

static hg_status gn_launch_scale(const hg__problem *p, const hg_epilogue &epi, cudaStream_t s, hg__err *e)
{
    return gn_with_types(p, [&](auto dt, auto ct) { return gn_launch_scale_t<decltype(dt)::value, decltype(ct)>(epi, s, e); });
}

const char *hg__generic_can_serve(const hg__problem *p, const hg__device *d)
{
    (void)p;
    if (d->cc_major != 9 || d->cc_minor != 0)
        return "needs an sm_90 (Hopper) device; it is built for sm_90a only.";
    return NULL;
}

hg_status hg__generic_launch(const hg__problem *p, const hg__device *d, struct CUstream_st *s, hg__err *e)
{
    /* A strided batch, one product after another: the net for whatever
     * the family cannot map (odd strides, shared operands). */
    if (p->batch > 1) {
        for (int64_t i = 0; i < p->batch; i++) {
            const hg__problem q = hg__problem_at(p, i);
            const hg_status st = hg__generic_launch(&q, d, s, e);
            if (st != HG_STATUS_SUCCESS) return st;
        }
        return HG_STATUS_SUCCESS;
    }
    const hg_epilogue epi = hg_epilogue_of(p);
    if (p->m == 0 || p->n == 0) return HG_STATUS_SUCCESS;
    if (p->k == 0) return gn_launch_scale(p, epi, s, e);

    gn_args a;
    a.A = (const uint16_t *)p->A;
    a.B = (const uint16_t *)p->B;
    a.lda = p->lda;
    a.ldb = p->ldb;
    a.m = p->m;
    a.n = p->n;
    a.k = p->k;
    a.m_blocks = hg_cdiv(p->m, GN_BM);
    a.n_blocks = 0; /* per load path: the tile width differs */
    a.tiles = 0;
    /* cp.async moves 16 aligned bytes: every chunk start (base + row * ld +
     * multiple of 8) is 16-byte aligned exactly when these hold. */
    const int vec = ((((uintptr_t)p->A) | ((uintptr_t)p->B)) & 15) == 0 && ((p->lda | p->ldb) & 7) == 0;
    hg_status st = gn_with_types(
        p, [&](auto dt, auto ct) { return gn_launch_ops<decltype(dt)::value, decltype(ct)>(p, a, epi, vec, s, e); });
    if (st != HG_STATUS_SUCCESS || !hg__has_epilogue(p)) return st;
    /* hg_matmul's bias and activation in a second pass over C (the main
     * kernel has no registers to spare for them): C = act(C + bias), the
     * product rounded to C's type first. */
    hg_epilogue finish = epi;
    finish.beta = 1.0f;
    return gn_launch_scale(p, finish, s, e);
}
