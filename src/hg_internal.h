/*
 * Internal interface between the host library (C11), the kernel launchers
 * (CUDA C, src/kernels/NAME.cu) and the tests. Nothing here is public.
 */
#ifndef HG_INTERNAL_H
#define HG_INTERNAL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "hopgemm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One call, as hg_gemm got it (validated by hg__validate). */
typedef struct {
    hg_op opA, opB;
    int64_t m, n, k;
    float alpha, beta;
    const void *A;
    int64_t lda;
    const void *B;
    int64_t ldb;
    void *C;
    int64_t ldc;
    hg_dtype dtype;
    const void *bias;      /* hg_matmul's epilogue: NULL for hg_gemm ... */
    hg_activation act;     /* ... and HG_ACT_NONE */
    /* hg_matmul's strided batch: batch products, the i-th at A + i stride_a,
     * ... (elements); 1 and zero strides for hg_gemm. */
    int64_t batch;
    int64_t stride_a, stride_b, stride_c, stride_bias;
    hg_compute compute; /* hg_matmul's accumulation; HG_COMPUTE_32F for hg_gemm */
    hg_c_type c_type;   /* hg_matmul's C elements; HG_C_AS_INPUTS for hg_gemm */
    /* 1: the k slices of one product as a batch (src/slices.c): A's and B's
     * batch strides step along k inside one matrix (shorter than it, as a
     * call's operand strides may be too); 0 for every call. */
    int sliced_k;
} hg__problem;

/* x rounded up to a multiple of `to` (sizes and offsets in the workspace). */
static inline size_t hg__round_up(size_t x, size_t to) { return (x + to - 1) / to * to; }

/* Bytes of one element of C (2, or 4 for HG_C_F32). */
static inline int hg__c_bytes(const hg__problem *p) { return p->c_type == HG_C_F32 ? 4 : 2; }
/* The bytes of C a call moves: written once, and read once more with beta. */
static inline double hg__c_traffic_bytes(const hg__problem *p)
{
    return hg__c_bytes(p) * (double)p->m * (double)p->n * (p->beta != 0.0f ? 2.0 : 1.0);
}
/* The bytes one product moves at the least: its 16-bit A and B read once,
 * and C as above (what the memory floor and the tool's TB/s count). */
static inline double hg__traffic_bytes(const hg__problem *p)
{
    return 2.0 * ((double)p->m * (double)p->k + (double)p->n * (double)p->k) + hg__c_traffic_bytes(p);
}

/* A and B as stored (row-major), from the ops: A is rows_a x cols_a (m x k
 * for HG_OP_N, k x m for HG_OP_T), B is rows_b x cols_b. */
typedef struct {
    int64_t rows_a, cols_a, rows_b, cols_b;
} hg__stored;
static inline hg__stored hg__stored_of(const hg__problem *p)
{
    hg__stored s;
    s.rows_a = p->opA == HG_OP_N ? p->m : p->k, s.cols_a = p->opA == HG_OP_N ? p->k : p->m;
    s.rows_b = p->opB == HG_OP_N ? p->k : p->n, s.cols_b = p->opB == HG_OP_N ? p->n : p->k;
    return s;
}

/* How many matrices of an operand (stored rows x ld) a batch reads from
 * HBM, its products `stride` elements apart: one where the stride is 0
 * (shared by every product); where products share whole rows (a stride of
 * j < rows rows), the rows they span, ((batch - 1) j + rows) / rows matrices
 * rounded up; else one a product (the k slices' strides included: they tile
 * their matrix). */
static inline double hg__batch_copies(const hg__problem *p, int64_t stride, int64_t rows, int64_t ld)
{
    if (p->batch <= 1 || stride == 0) return 1.0;
    if (stride % ld == 0 && stride / ld < rows)
        return ceil(((double)(p->batch - 1) * (double)(stride / ld) + (double)rows) / (double)rows);
    return (double)p->batch;
}
/* ... for A and for B as the call stores them (rows and ld from p). */
static inline double hg__batch_copies_a(const hg__problem *p)
{
    return hg__batch_copies(p, p->stride_a, hg__stored_of(p).rows_a, p->lda);
}
static inline double hg__batch_copies_b(const hg__problem *p)
{
    return hg__batch_copies(p, p->stride_b, hg__stored_of(p).rows_b, p->ldb);
}

/* Product i of a batch as a problem of its own (batch 1). */
hg__problem hg__problem_at(const hg__problem *p, int64_t i);

/* Whether the call has an epilogue beyond alpha and beta (hg_matmul). */
static inline int hg__has_epilogue(const hg__problem *p) { return p->bias != NULL || p->act != HG_ACT_NONE; }

/* A call's arguments as one hg__problem (for hg_gemm, the tool and the
 * tests; the reference takes host copies, so their pointers may be NULL). */
hg__problem hg__problem_make(hg_op opA, hg_op opB, int64_t m, int64_t n, int64_t k, float alpha, const void *A,
                             int64_t lda, const void *B, int64_t ldb, float beta, void *C, int64_t ldc,
                             hg_dtype dtype);

/* What the kernels need to know of the device; read off it, never assumed. */
typedef struct {
    int ordinal;
    int cc_major, cc_minor;
    int sm_count;
    int smem_optin;     /* max dynamic shared memory per block, bytes */
    int l2_bytes;
    int cluster_launch; /* the device can launch thread-block clusters */
    /* The workspace (src/workspace.c). While planning: workspace is NULL and
     * workspace_bytes is what a call may get (SIZE_MAX: whatever its plan
     * needs; 0: none). At launch: the call's memory (its counters zero) and
     * its size, or NULL and 0 when none could be had; a kernel plans without
     * what it cannot fit. */
    void *workspace;
    size_t workspace_bytes;
    /* 1: the family's kernels run whole tiles only, no stream-K tail
     * (hg__set_stream_k; the tool's --stream-k off, to measure the tail's
     * worth); 0, the default: as tiling.h's rule says. */
    int no_stream_k;
    /* The family's walk over whole tiles (hg__set_walk; the tool's --walk,
     * the tests): HG__WALK_BY_RULE, the default (host.cuh's rule),
     * HG__WALK_STATIC or HG__WALK_DYNAMIC (wherever it can run). */
    int walk;
} hg__device;

/* Error text travels back from a launcher through this. */
typedef struct {
    char msg[256];
} hg__err;

void hg__err_set(hg__err *e, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/*
 * One registered kernel. The table (src/kernel_table.c) lists them in AUTO's
 * order of preference; dispatch, the tool, the tests and --list all read it.
 *   can_serve: NULL when the kernel can run this problem on this device, else
 *              a static sentence saying why not (it becomes hg_last_error).
 *   launch:    queue the kernel; HG_STATUS_SUCCESS or a status with e->msg set.
 */
typedef struct {
    const char *name;
    hg_kernel id;
    const char *summary;
    const char *(*can_serve)(const hg__problem *p, const hg__device *d);
    hg_status (*launch)(const hg__problem *p, const hg__device *d,
                        struct CUstream_st *stream, hg__err *e);
    /* AUTO's model of the kernel (hg__estimate): its measured speed on full
     * waves (fraction of cuBLAS-best at 8192^3 fp16 TN on the H200), the
     * output block one scheduling unit computes (a CTA, or V6's 2-CTA
     * cluster), and how many such units run at once per SM. */
    double speed;
    int unit_m, unit_n;
    double units_per_sm;
    /* The kernel splits its last round stream-K fashion (tiling.h) when the
     * call has a workspace; unit_k is then its k block (0: no), and each
     * stream-K worker needs unit_ws_bytes of it beyond the counters. */
    int unit_k;
    size_t unit_ws_bytes;
    /* The workspace bytes this call's plan uses when it can have them (0:
     * none; NULL: the kernel never needs any). Called with the handle's
     * context current. */
    size_t (*workspace)(const hg__problem *p, const hg__device *d);
    /* The one layout it serves (generic: every layout). */
    hg_op op_a, op_b;
    /* 1: a family row that computes C^T (configs.def's SWAP_AB); AUTO's
     * memory floor then takes HG_BW_SWAP, else HG_BW_TILED. */
    int swap_ab;
    /* The stream-K split's most pieces per tile (tiling.h), and whether a
     * long k raises it (hg_sk_split_for_k: the family's rows). */
    int sk_max_split;
    int sk_long_k;
    /* 1: a tile past HG_SK_FIXUP_GROUP pieces is summed in two levels
     * (HG_FAM_SK_TREE). */
    int sk_tree;
    /* Whether its epilogue applies hg_matmul's bias and activation (the
     * family and GENERIC; the series does not). */
    int fuses_epilogue;
    /* Whether it runs a strided batch (batch > 1) in one launch or a loop of
     * its own (the family and GENERIC; the series does not). */
    int batched;
    /* 1: it accumulates in fp16 (the family's _f16acc rows): only for calls
     * that ask for HG_COMPUTE_16F. */
    int acc16;
    /* Whether it writes an fp32 C (hg_matmul's HG_C_F32): the family's staged
     * and swapped rows (HG_FAM_WRITES_F32) and GENERIC. */
    int writes_f32;
    /* Its speed past HG_MODEL_LONG_FLOPS, as a multiple of `speed` (1: the
     * same; the lean rows: HG_LEAN_LONG_GAIN). */
    double long_gain;
    /* 0: the series and GENERIC, whose plans are their own; else a family
     * row, whose plan runs its tiles whole where hg__fam_whole_tiles says;
     * 2: an unswapped one whose whole wave on the memory floor streams at
     * HG_BW_SWAP, A being multicast along n (c1x2: the activation read from
     * L2 once per cluster). */
    int whole_rules;
    /* CTAs of the cluster that split each tile's k (configs.def's CK; 1
     * elsewhere). AUTO weighs such a row only where hg__k_split_fits. */
    int cluster_k;
    /* 1: AUTO weighs it only over one unit of m in one wave of tiles at a
     * k of HG_ONE_WAVE_MIN_K or more (HG_FAM_ONE_WAVE_ONLY), the only
     * products it was measured on. */
    int one_wave_only;
} hg__kernel_entry;

/* AUTO's memory floor (hg__estimate), fractions of HG_MODEL_COPY_BW: a
 * kernel whose tiles are m-deep (the series, the family's unswapped rows),
 * and a swapped one, or an unswapped row whose one wave runs whole on the
 * floor (hg__floor_whole_tiles). Not measured as such: the unswapped rows
 * moved 1.1-2.6 TB/s on the sweep's decode products (H200, 2026-11-30),
 * where their tile count, not the bandwidth, held them back (the rate term
 * models that); the swapped ones aim at the 85%; an unswapped whole
 * wave with A multicast moved 0.81 of it (128 x 28672 x 4096 bf16 on 128 x
 * 256 c1x2; c1x1 0.78; H200, 2026-12-04). */
#define HG_BW_TILED 0.75
#define HG_BW_SWAP 0.85
/* The reference rates of AUTO's model: cuBLAS-best's fp16 rate at 8192^3
 * and the device-to-device copy bandwidth, both measured on the H200. */
#define HG_MODEL_REF_FLOPS 7.5e14
#define HG_MODEL_COPY_BW 4.3e12
/* A launch of more than HG_MODEL_LONG_FLOPS (some 5 ms): there the lean
 * 256 x 176 rows measured 2-3% ahead of 128 x 256 where both fill their
 * waves, against 1.5-3% behind on shorter ones, so they run this much above
 * their full-wave speed (measured at 4096 x 14336 x 4096). Medians of fresh
 * processes whose ranges overlap; the cause is not known (sustained for 2 s
 * the two took the same time and energy per product; docs/family.md). */
#define HG_MODEL_LONG_FLOPS 3e12
#define HG_LEAN_LONG_GAIN 1.035
/* A swapped row serves an m of up to HG_SWAP_MAX_M_UNITS of its units and
 * no more than HG_SWAP_MAX_M (past that the unswapped tiles' math wins:
 * 256 x 256 x 131072, 128 x 128 swapped 78.1 us, unswapped 69.8), or
 * HG_SWAP_MAX_M_WIDE for a row whose m side is HG_SWAP_WIDE_M_SIDE or more
 * (hg__swap_max_m; since 2026-12-02: at m = 256-512 the swapped 128 x 128
 * row beat the unswapped pick, 256 x 6144 x 4096 fp16 28.9 us against 128 x
 * 192's 37.8, 512 x 4096 x 14336 bf16 85.6 against 90.7; H200), so B
 * passes through it once per unit. With whole tiles the units of one n
 * block run side by side (the raster band): B comes from HBM once and the
 * passes from L2, at HG_MODEL_L2_BW (a guess, not measured here); a split
 * tile's pieces drift apart in k, so there every pass is charged to HBM.
 * H200, 2026-11-30: 64 x 8192 x 8192 on the 128 x 32 row (2 passes, whole
 * tiles) 39.5 us, on 128 x 64 (1 pass, split) 45.8; 64 x 8192 x 28672 on 128
 * x 32 (2 passes, split) 162 us, on 128 x 64 129. */
#define HG_SWAP_MAX_M_UNITS 4
/* A swapped row whose m side is this narrow (wgmma's n = 8) serves one unit
 * of m only: it exists for m <= 8, where a 16-wide side is mostly TMA's zero
 * rows (1 x 4096 x 14336 bf16: 128 x 8 35.7 us, 128 x 16 36.3; H200,
 * 2026-12-04, fresh 3); the rules for several units were fitted on 16-wide
 * and wider sides (at 256^3 the 64 x 8 row's 32 units made one whole wave). */
#define HG_SWAP_NARROW_M_SIDE 8
#define HG_SWAP_MAX_M 128
#define HG_SWAP_MAX_M_WIDE 512
#define HG_SWAP_WIDE_M_SIDE 128
/* ... and there its whole wave runs this much faster than its speed says
 * (configs.def's 0.8 for 128 x 128 swapped, a guess fitted at m <= 128):
 * 256 x 6144 x 4096 fp16 measured 0.847 of cuBLAS-best, 0.582 modeled; 512 x
 * 4096 x 14336 bf16 0.894, 0.776 (fresh 3). Left out at m <= 128, where the
 * picks were measured with the speed as it is. */
#define HG_SWAP_WIDE_GAIN 1.25
/* Past those, a swapped row whose tiles fill one wave whole, at least 1 /
 * HG_SWAP_WHOLE_WAVE of the slots, up to HG_SWAP_MAX_M_UNITS_WHOLE units:
 * 32, so the narrow swapped rows take m = 257-512 over n = 256-512, where
 * the unswapped 128 x 128 tiles are few and cut (512^3 8.3 us on 128 x 16
 * swapped against 9.6; 512 x 256 x 1024 7.4 on 64 x 16 against 15.0; H200,
 * 2026-12-03, one process each). With 16 they stopped at m = 256. */
#define HG_SWAP_WHOLE_WAVE 1.25
#define HG_SWAP_MAX_M_UNITS_WHOLE 32
/* ... and on the memory floor, a wave of whole tiles over one unit of m
 * (hg__swap_whole_tiles below) streams this much faster than rows whose
 * tiles stream-K cuts: 16 x 8192 x 8192 fp16 ran
 * 37.8 us on 64 x 16 tiles (128, whole) against 40.2 on 128 x 16 (64, cut),
 * 64 x 8192 x 28672 bf16 121.8 on 64 x 64 against 125.7 on 128 x 64 (H200,
 * 2026-12-01). */
#define HG_SWAP_WHOLE_WAVE_GAIN 0.04
/* ... where A's tile has at most this many rows past m: TMA fills them with
 * zeros in every stage, which costs (1 x 6144 x 4096 bf16: 64 x 64 tiles
 * 34.8 us, 64 x 16 21.1). */
#define HG_SWAP_WHOLE_WAVE_PAD_ROWS 16
/* A swapped row whose tiles make one wave and fill at least this share of
 * the slots runs them whole, without the stream-K tail (tiling.h): the
 * stream is bound by HBM, which that many SMs already saturate, so cutting
 * tiles only adds fixups. H200, 2026-12-02, bf16, 96 tiles on 132 SMs: 128
 * x 6144 x 4096 on 64 x 128 whole 22.6 us, cut 27.1; on 128 x 64 (2 x 48)
 * 23.9, 32.3; 1 x 6144 x 4096 on 64 x 16 21.1, 21.5; with 64 tiles (64 x
 * 8192 x 8192 on 128 x 64) cutting wins, 45.2 against 49.9. */
#define HG_SWAP_WHOLE_TILES 0.7
static inline int hg__swap_whole_tiles(int64_t tiles, int64_t slots)
{
    return tiles <= slots && (double)tiles >= HG_SWAP_WHOLE_TILES * (double)slots;
}
/* ... and, for a row of 128 or more rows of n over one unit of m (as
 * measured), a last round after whole ones that fills at least this share
 * of the slots runs whole too (224 tiles on 132: a last round of 92, 0.697):
 * bf16, H200, 2026-12-04, one process each, stream-K tail / whole: 64 x
 * 28672 x 4096 on 128 x 64 70.5 / 66.2 us, 32 x 28672 x 4096 on 128 x 32
 * 66.9 / 65.5, 16 x and 1 x the same n 1% and 0% apart; a last round of
 * 0.39 (1 x 57344 x 8192) 222.1 / 237.2, where the cut pays. With the
 * 64-row rows let in, the model moved 96 x 57344 x 4096 bf16 to 64 x 128
 * whole (179.8 us against 128 x 128's 140.1) and 64 x 57344 x 8192 to 64 x
 * 64 (240.1 against 128 x 64's 234.7; fresh 3): their many rounds stream
 * slower than the model's floor says, which a tail cut or whole does not
 * change. */
#define HG_SWAP_WHOLE_TAIL (2.0 / 3.0)
#define HG_SWAP_WHOLE_TAIL_MIN_N 128
static inline int hg__swap_whole_tail(int64_t tiles, int64_t slots, int64_t m_units, int64_t n_side)
{
    return m_units == 1 && n_side >= HG_SWAP_WHOLE_TAIL_MIN_N && slots > 0 && tiles > slots &&
           (double)(tiles % slots) >= HG_SWAP_WHOLE_TAIL * (double)slots;
}
/* The unswapped rows' twin of that rule, on the memory floor only: one
 * wave of tiles that fills at least HG_FLOOR_WHOLE_TILES of the slots runs
 * whole where the product's flops per byte of A, B and C are under the
 * model's balance (HG_MODEL_REF_FLOPS / HG_MODEL_COPY_BW) and its m fills
 * the tiles' rows but for HG_SWAP_WHOLE_WAVE_PAD_ROWS (unit_m: the rows of
 * a cluster's block): there the SMs that have a tile already pull what HBM
 * gives, and cutting the tiles only adds the fixup of large partials. bf16,
 * H200, 2026-12-04, one process each: 128 x 28672 x 4096 (112 tiles of
 * 128 x 256 on 132 SMs) on 128 x 256 c1x1 whole 70.5 us, cut 80.5; in a
 * 1 x 2 cluster 67.8 and 82.0. Past the balance a wave's idle SMs cost
 * math, and the split's gain stays as measured before; with many empty
 * rows (m = 136-192 on 128- or 256-row blocks) it was not measured. */
#define HG_FLOOR_WHOLE_TILES 0.8
static inline int hg__floor_whole_tiles(const hg__problem *p, int64_t unit_m, int64_t tiles, int64_t slots)
{
    const double flops = 2.0 * (double)p->m * (double)p->n * (double)p->k;
    const double bytes = hg__traffic_bytes(p);
    const int64_t pad = (p->m + unit_m - 1) / unit_m * unit_m - p->m;
    return tiles <= slots && (double)tiles >= HG_FLOOR_WHOLE_TILES * (double)slots &&
           pad <= HG_SWAP_WHOLE_WAVE_PAD_ROWS && flops < bytes * (HG_MODEL_REF_FLOPS / HG_MODEL_COPY_BW);
}
/* Whether a family row runs all its tiles whole, with no stream-K cut, by
 * the three rules above: the one question host.cuh's plan and AUTO's model
 * (hg__estimate) both ask, so they cannot drift apart. unit_m, unit_n: the
 * product's rows and columns a scheduling unit covers (a swapped row's
 * unit_n is its tile's rows of n). */
static inline int hg__fam_whole_tiles(const hg__problem *p, int swap_ab, int64_t unit_m, int64_t unit_n, int64_t tiles,
                                      int64_t slots)
{
    if (!swap_ab) return hg__floor_whole_tiles(p, unit_m, tiles, slots);
    return hg__swap_whole_tiles(tiles, slots) ||
           hg__swap_whole_tail(tiles, slots, (p->m + unit_m - 1) / unit_m, unit_n);
}
/* A row whose cluster splits each tile's k (its partials summed in
 * distributed shared memory: config.cuh's CK) only where all its tiles run
 * in one round that fills the slots as hg__swap_whole_tiles says, over one
 * unit of m. Measured there, one round of 64 tiles of 64 rows on 2-CTA
 * clusters beat the stream-K split of 32 tiles of 128 (32 x 4096 x 14336
 * bf16: 34.1 us against 39.3; 64 x 4096 x 14336 on 64 x 64 36.4 against
 * 40.5 cut in 3; H200, 2026-12-05, median of 3 fresh processes). Over two
 * units of m it lost 50% (64 x 4096 x 14336 on 64 x 32: 56.7 us,
 * 2026-12-04). */
static inline int hg__k_split_fits(int64_t tiles, int64_t slots, int64_t m_units)
{
    return m_units == 1 && hg__swap_whole_tiles(tiles, slots);
}
/* ... and, on the narrowest m side (HG_SWAP_NARROW_M_SIDE) over one unit
 * of m, over many rounds of a long k: there each CTA's ring (16 stages for
 * half a tile's k, against 6-8 on the plain rows) streamed faster, by about
 * HG_K_SPLIT_ROUNDS_GAIN of the memory floor. bf16, H200, 2026-12-05, fresh
 * 3, the 64 x 8 `_k2` row against AUTO's 128 x 8 s6: 1 x 28672 x 4096 (6.8
 * rounds) 61.8 us against 62.7, 8 x 28672 x 4096 62.4 / 63.7, 1 x 57344 x
 * 8192 (13.6) 214.9 / 221.4, 1 x 128256 x 4096 (30) 241.4 / 250.1; over 2.4
 * rounds it lost (1 x 10240 x 8192: 47.5 / 46.6). Not measured below k =
 * HG_K_SPLIT_ROUNDS_MIN_K. */
#define HG_K_SPLIT_MIN_ROUNDS 4
#define HG_K_SPLIT_ROUNDS_MIN_K 4096
#define HG_K_SPLIT_ROUNDS_GAIN 0.02
static inline int hg__k_split_rounds(int64_t tiles, int64_t slots, int64_t m_units, int64_t unit_m, int64_t k)
{
    return m_units == 1 && unit_m <= HG_SWAP_NARROW_M_SIDE && k >= HG_K_SPLIT_ROUNDS_MIN_K &&
           tiles >= HG_K_SPLIT_MIN_ROUNDS * slots;
}
/* ... but whole tiles on fewer SMs than HG_SWAP_WHOLE_WAVE's share stream
 * slower, which the fixup they save pays for only on a short stream (bf16,
 * 96 tiles on 132 SMs, fresh 3, H200, 2026-12-02: 1 x 6144 x 4096 on 64 x
 * 16 whole 19.9 us, 128 x 16 cut 21.4; 1 x 6144 x 16384 62.0 against 55.4):
 * the gain needs the memory floor below this many seconds. */
#define HG_SWAP_WHOLE_SHORT_S 25e-6
/* A swapped row whose tiles stream-K cuts into fewer than
 * HG_SWAP_FIXUP_MAX_PIECES pieces each, with an m side of at least
 * HG_SWAP_FIXUP_MIN_M (32 accumulators a thread or more: scheduler.cuh's
 * gather reads their pieces one at a time), spends about HG_SWAP_FIXUP_S
 * after its stream on the fixup per piece gathered (at least one). bf16,
 * H200, 2026-12-02: 128 x 6144 x 4096 (1.4 pieces a tile) on 64 x 128 cut
 * 27.1 us, whole 22.6; on 128 x 64 32.3 and 23.9; 128 x 4096 x 14336 (4.1
 * pieces) on 128 x 128 cut 47.8, where 64 x 64's whole wave took 39.2 (after
 * the warp-run producer; one cost per cut put it at 37.4). Fitted by the
 * replay (tools/auto_check.py --replan), not derived: with it at 8 pieces a
 * tile (128 x 1024 x 4096 fp16 on 128 x 64: 14.7 us, the fastest) AUTO moved
 * to slower rows; rows of a narrower m side gather several pieces at once and
 * were fitted without it (decode). */
#define HG_SWAP_FIXUP_MIN_M 64
#define HG_SWAP_FIXUP_MAX_PIECES 5
#define HG_SWAP_FIXUP_S 4e-6
#define HG_MODEL_L2_BW 1.0e13
/* An operand larger than this does not stay in L2 between two tiles that
 * read it at different k (half the H200's 50 MB L2; a rule fitted to two
 * products, not a measured size): 1024 x 1024 x 32768 on the 128 x 192
 * row, 24 tiles in 66 unaligned pieces, 159 us, against 104 on 128 x 256's
 * 16 tiles in 64 aligned ones (A and B 64 MB each; H200, 2026-12-01, fresh
 * 3); 512 x 4096 x 14336 bf16 (A 15 MB, B 117 MB) on 128 x 192, 44 tiles in
 * 66 pieces, 90.7 us, the fastest row. */
#define HG_MODEL_L2_RESIDENT 2.5e7

/* AUTO's estimate of a kernel's throughput on this problem, relative to
 * cuBLAS-best: its full-wave speed times the fraction of the slots' time
 * that holds work (wave quantization; with a stream-K tail, the tail's
 * length as the kernel will split it, plus HG_SK_FIXUP_BLOCKS for the
 * partials). Pure host arithmetic. */
double hg__estimate(const hg__kernel_entry *k, const hg__problem *p, const hg__device *d);

/* The decomposition behind that estimate (--plan prints AUTO's): the
 * scheduling units' tiles, a batch's included, over the units resident at
 * once (slots), whether the family's plan keeps them whole, and the stream-K
 * tail it weighs, if it cuts one (sk_workers > 0): dp_tiles whole tiles, then
 * the rest's k_tiles blocks each cut over sk_workers workers into
 * pieces_fewest to pieces_most pieces a tile. */
typedef struct {
    double tiles, slots;
    int whole_tiles;
    int64_t k_tiles, dp_tiles, sk_workers, pieces_fewest, pieces_most;
} hg__model_grid;
/* hg__estimate, and (g not NULL) its decomposition (where the estimate is
 * 0, g says only the tiles and slots). */
double hg__estimate_grid(const hg__kernel_entry *k, const hg__problem *p, const hg__device *d, hg__model_grid *g);

/* The largest m a swapped row is weighed for (HG_SWAP_MAX_M above). */
static inline int64_t hg__swap_max_m(const hg__kernel_entry *k)
{
    return k->unit_m >= HG_SWAP_WIDE_M_SIDE ? HG_SWAP_MAX_M_WIDE : HG_SWAP_MAX_M;
}

/* Each kernel file src/kernels/NAME.cu defines this pair (C linkage). */
#define HG_DECLARE_KERNEL(name)                                                                   \
    const char *hg__##name##_can_serve(const hg__problem *p, const hg__device *d);               \
    hg_status hg__##name##_launch(const hg__problem *p, const hg__device *d, struct CUstream_st *s, \
                                  hg__err *e)

HG_DECLARE_KERNEL(generic);
HG_DECLARE_KERNEL(v0);
HG_DECLARE_KERNEL(v1);
HG_DECLARE_KERNEL(v2);
HG_DECLARE_KERNEL(v3);
HG_DECLARE_KERNEL(v4);
HG_DECLARE_KERNEL(v5);
HG_DECLARE_KERNEL(v6);

/* configs.def's accumulators: 1 for fp16 (a _f16acc row). */
#define HG_FAM_ACC16_f32 0
#define HG_FAM_ACC16_f16 1

/* configs.def's layouts as our ops (hopgemm.h: the names are their flips). */
#define HG_FAM_OP_A_tn HG_OP_N
#define HG_FAM_OP_B_tn HG_OP_T
#define HG_FAM_OP_A_tt HG_OP_N
#define HG_FAM_OP_B_tt HG_OP_N
#define HG_FAM_OP_A_nn HG_OP_T
#define HG_FAM_OP_B_nn HG_OP_T
#define HG_FAM_OP_A_nt HG_OP_T
#define HG_FAM_OP_B_nt HG_OP_N

/* The family (src/family/): each row of configs.def has this pair and a
 * workspace query, hg__<name>_workspace. */
#define HG_FAMILY_CONFIG(name, id, bm, bn, stages, cm, cn, ck, early, c_thread, swap, pp, acc, layout, speed) \
    HG_DECLARE_KERNEL(name);                                              \
    size_t hg__##name##_workspace(const hg__problem *p, const hg__device *d);
#include "family/configs.def"
#undef HG_FAMILY_CONFIG

/* A family configuration's stream-K partials per worker: cluster CTAs x 2
 * pieces x 2 consumers x a (bm / 2) x bn block, fp32 (or fp16 pairs with
 * fp16 accumulators; src/family/host.cuh asserts it against the kernel's). */
#define HG_FAM_SK_WORKER_BYTES(bm, bn, cm, cn, acc16) \
    ((size_t)(cm) * (cn) * 2 * (bm) * (bn) * sizeof(float) / ((acc16) ? 2 : 1))
/* How many pieces a family tile's stream-K split may cut it into: as many as
 * keep the fixup's reads (pieces x the tile's fp32 partial) at those of a
 * 128 x 256 tile in HG_SK_MAX_SPLIT pieces, so a small tile (a swapped row's
 * 128 x 16) may spread one tile over many SMs. */
#define HG_FAM_SK_MAX_SPLIT(bm, bn) \
    ((128 * 256 / ((bm) * (bn))) > 1 ? HG_SK_MAX_SPLIT * (128 * 256 / ((bm) * (bn))) : HG_SK_MAX_SPLIT)

/* Whether a family tile past HG_SK_FIXUP_GROUP pieces is summed in two
 * levels (scheduler.cuh): where a consumer holds 64 accumulators or fewer
 * (cooperative tiles up to 128 x 128); a consumer of 128 (a 128 x 256 tile's,
 * a ping-pong 128 x 128's) spills with the second level's code, so it keeps
 * the one-level sum. */
#define HG_FAM_SK_TREE(bm, bn, pp) ((bm) * (bn) <= ((pp) ? 1 : 2) * 64 * 128)

/* Whether a staged (not per-thread) row's tile is not whole 128-byte swizzle
 * spans of a 16-bit C (config.cuh's SWIZZLE_BYTES): 96 columns are one and a
 * half. Its last chunk's 64-column TMA box would write the next tile's
 * columns, so the warps copy that chunk out, which only the lean epilogue
 * (epilogue.cuh's tile_lean) does: such a row is lean (HG_FAM_LEAN). */
#define HG_FAM_C_SPAN_BYTES 128
#define HG_FAM_C_ELEM_BYTES 2
#define HG_FAM_PARTIAL_CHUNK(bn, c_thread) (!(c_thread) && (bn) * HG_FAM_C_ELEM_BYTES % HG_FAM_C_SPAN_BYTES != 0)

/* A family row's consumer warp groups (config.cuh's CONSUMERS): one m64
 * atom of rows each in a 64- or 192-row tile (one or three), else two (each
 * half the rows, or with ping-pong each its own whole tiles); and how many
 * of them share a tile (TILE_CONSUMERS). */
#define HG_FAM_CONSUMERS(bm, pp) ((pp) ? 2 : (bm) == 64 ? 1 : (bm) == 192 ? 3 : 2)
#define HG_FAM_TILE_CONSUMERS(bm, pp) ((pp) ? 1 : HG_FAM_CONSUMERS(bm, pp))

/* Whether a family configuration fuses hg_matmul's bias and activation into
 * its epilogue: all but the 256-row tiles (two m64 atoms per consumer), whose
 * staged epilogue spilled with them (ptxas 13.0, 256 x 128: the bf16 kernel,
 * release and profiling builds), the tiles of three consumers (lean,
 * config.cuh) and the lean rows of a partial chunk. (No ping-pong row is
 * lean, so the consumers are counted as cooperative.) */
#define HG_FAM_FUSES_EPILOGUE(bm, bn, c_thread) \
    ((bm) != 256 && HG_FAM_CONSUMERS(bm, 0) != 3 && !HG_FAM_PARTIAL_CHUNK(bn, c_thread))

/* Whether AUTO weighs the row only where its tiles make one wave over one
 * unit of m, k of at least HG_ONE_WAVE_MIN_K: the unswapped 64-row tiles
 * (64 x 96), timed only there (96-128 x 5888-6144 x 4096, H200, 2026-12-05:
 * 5-29% ahead of the swapped rows AUTO took). At k = 1024 it lost to the 128
 * x 64 swapped row by 8% (96 x 5888 x 1024, H100), and past one wave it was
 * not timed against the rows that split their tiles. */
#define HG_ONE_WAVE_MIN_K 4096
#define HG_FAM_ONE_WAVE_ONLY(bm, swap) (!(swap) && (bm) == 64)

/* Whether it writes an fp32 C (HG_C_F32): the rows that fuse hg_matmul's
 * epilogue, staged or swapped (per thread), but not the _ct rows (a 16-bit
 * C only). GENERIC writes the rest. */
#define HG_FAM_WRITES_F32(bm, bn, c_thread, swap) (HG_FAM_FUSES_EPILOGUE(bm, bn, c_thread) && ((swap) || !(c_thread)))
/* The refusal of a kernel that does not, for dispatch (hopgemm.c's lacks)
 * and the family's own can_serve alike. */
#define HG_WHY_NOT_F32 "writes C in the inputs' type only, not fp32 (c_type HG_C_F32)."

/* A consumer's accumulator registers in a family row (config.cuh's
 * ACC_REGS: a consumer's rows, BM over the consumers that share a tile,
 * in m64 atoms of BN / 2 floats, two to a register with fp16 accumulators),
 * and whether that is past the register edge of 128, or its tile a partial
 * chunk (config.cuh's LEAN: the row serves beta = 0 only and runs whole tiles
 * only, so AUTO's model gives it no stream-K tail). */
#define HG_FAM_ACC_REGS(bm, bn, pp, acc16) \
    ((bm) / HG_FAM_TILE_CONSUMERS(bm, pp) / 64 * ((bn) / 2) / ((acc16) ? 2 : 1))
#define HG_FAM_LEAN(bm, bn, pp, acc16, c_thread) \
    (HG_FAM_ACC_REGS(bm, bn, pp, acc16) > 128 || HG_FAM_PARTIAL_CHUNK(bn, c_thread) || HG_FAM_CONSUMERS(bm, pp) == 3)
/* Whether it runs whole tiles only (config.cuh's WHOLE_ONLY): lean, or its
 * tiles' k split over its cluster (ck > 1). AUTO's model then gives it no
 * stream-K tail. */
#define HG_FAM_WHOLE_ONLY(bm, bn, pp, acc16, c_thread, ck) (HG_FAM_LEAN(bm, bn, pp, acc16, c_thread) || (ck) > 1)
#define HG_WHY_NOT_BETA "serves beta = 0 only (its consumers have no registers for the old C beside its accumulator; config.cuh's LEAN)."

/* V6 with one mechanism taken away, for the tool's ablations: variant 0 is
 * V6, 1 without multicast, 2 not persistent, 3 with the per-thread epilogue,
 * 4 without the stream-K tail. */
hg_status hg__v6_launch_variant(const hg__problem *p, const hg__device *d, struct CUstream_st *s, hg__err *e,
                                int variant);

/* V6's stream-K partials per worker: 2 CTAs x 2 pieces x 2 consumers x a
 * 64 x 320 fp32 block (src/kernels/v6_persistent.cu asserts it against its
 * tile), and the bytes of workspace its plan for p uses. */
#define HG_V6_SK_WORKER_BYTES ((size_t)2 * 2 * 2 * 64 * 320 * sizeof(float))
size_t hg__v6_workspace(const hg__problem *p, const hg__device *d);

/* ---- Workspace (src/workspace.c) ----------------------------------------- */

/* Every workspace, the caller's too, starts on this boundary, and so does
 * each part of it (counters, partials: 16-byte vector stores). */
#define HG_WS_ALIGN 256

/* Counter words per SM: V6 uses 4 per cluster (2 per SM), the family's
 * two-level stream-K fixup up to 6 (scheduler.cuh). */
#define HG_WS_COUNTERS_PER_SM 8

/* Every workspace begins with counters: hg__ws_counter_bytes(d) bytes, zero
 * before a launch and left zero by every launch. A stream-K plan over
 * `workers` workers then needs per_worker bytes each. */
size_t hg__ws_counter_bytes(const hg__device *d);
/* The family's dynamic walk (scheduler.cuh): its two counters, the last two
 * words of the counters (the stream-K fixup's stay below (1 + SK_SLOTS) x
 * SK_PARTS < HG_WS_COUNTERS_PER_SM words per SM). */
#define HG_WS_DYN_COUNTERS 2
static inline size_t hg__ws_dyn_counters(const hg__device *d)
{
    return (size_t)d->sm_count * HG_WS_COUNTERS_PER_SM - HG_WS_DYN_COUNTERS;
}
size_t hg__sk_workspace_bytes(const hg__device *d, int64_t workers, size_t per_worker);
/* Where a call's own scratch (repack.c's copies, slices.c's partials) starts
 * in a workspace whose kernel takes kernel_bytes: after them, aligned, and
 * never inside the counters, which every later call expects zero. */
size_t hg__ws_past_kernel(const hg__device *d, size_t kernel_bytes);
/* What a kernel's own plan can use at most: the counters and the largest
 * stream-K plan of any registered kernel, every worker of it. */
size_t hg__ws_max_kernel_bytes(const hg__device *d);
/* The most any call on a device can use for its own scratch: that, then the
 * largest k slices' partials (hg__slices_max_bytes). */
size_t hg__ws_max_bytes(const hg__device *d);

typedef struct {
    struct CUstream_st *stream;
    unsigned long long id; /* cudaStreamGetId: tells a new stream at an old address */
    void *ptr;
    size_t bytes;
} hg__ws_slot;

typedef struct {
    void *user;          /* hg_set_workspace's memory, or NULL */
    size_t user_bytes;
    int user_zeroed;     /* its counters were zeroed (eagerly) */
    hg__ws_slot *slots;  /* the library's memory, one slot per stream */
    int nslots, cap;
    void *pool;          /* the cudaMemPool_t the slots come from */
} hg__ws;

/* What a call may get: SIZE_MAX with the library's memory, else the
 * caller's size. */
size_t hg__ws_limit(const hg__ws *w);
void hg__ws_set_user(hg__ws *w, void *ptr, size_t bytes);
/* Memory of at least `need` bytes for one launch on `stream`, counters zero:
 * *ptr and *bytes, or NULL and 0 when none can be had. *graph_owned is
 * memory of a stream capture's own, which hg__ws_end frees (in the graph)
 * after the launch. Called with the handle's context current. */
void hg__ws_begin(hg__ws *w, const hg__device *d, struct CUstream_st *stream, size_t need, void **ptr,
                  size_t *bytes, void **graph_owned);
void hg__ws_end(void *graph_owned, struct CUstream_st *stream);
/* Frees every slot (waiting for the device) and the pool. */
void hg__ws_free(hg__ws *w);

/* ---- A or B copied for TMA (src/repack.c) -------------------------------- */

/* A call whose A or B breaks TMA's rules, with that operand copied into the
 * workspace at a padded pitch. inner is the call as the kernel sees it (the
 * copies' addresses are placeholders until hg__repack_copy). */
typedef struct {
    hg__problem inner;
    int64_t rows_a, cols_a, rows_b, cols_b; /* the operands as stored */
    int64_t lda, ldb;                       /* the copies' pitches (the call's when not copied) */
    size_t a_bytes, b_bytes;                /* each copy's workspace bytes; 0: not copied */
} hg__repack;

/* 1 and *r filled when A or B breaks TMA's rules (and there is a product),
 * else 0. */
int hg__repack_plan(const hg__problem *p, hg__repack *r);
/* The workspace such a call needs: the kernel's own (kernel_bytes, at
 * least the counters), then the copies. */
size_t hg__repack_workspace(const hg__repack *r, const hg__device *d, size_t kernel_bytes);
/* AUTO's model: the share of the call's time the kernel keeps, the copies
 * taking the rest, for a kernel whose estimate on inner is `estimate`. */
double hg__repack_factor(const hg__repack *r, const hg__problem *p, double estimate);
/* Whether kernel k can run the call through r's copies (r may be NULL: no
 * copies planned) in a workspace of d->workspace_bytes, its own stream-K
 * need counted at the most it can be. */
int hg__repack_serves(const hg__kernel_entry *k, const hg__repack *r, const hg__device *d);
/* AUTO's estimate of k on the call p: directly when k serves it, else
 * through r's copies when it serves those (*repacked = 1); -1 when neither,
 * *why then saying why k cannot serve p itself. */
double hg__route_estimate(const hg__kernel_entry *k, const hg__problem *p, const hg__repack *r,
                          const hg__device *d, int *repacked, const char **why);
/* Queues the copies on `stream` into ws (after the kernel's kernel_bytes)
 * and sets *inner to the call with the copies' addresses. */
hg_status hg__repack_copy(const hg__problem *p, const hg__repack *r, const hg__device *d, void *ws,
                          size_t kernel_bytes, struct CUstream_st *stream, hg__problem *inner, hg__err *e);

/* The copy itself (src/kernels/repack.cu): a rows x cols operand of 2-byte
 * elements at src (leading dimension src_ld) to dst at pitch dst_ld (dst
 * 16-byte aligned, dst_ld a multiple of 8), queued on stream. */
hg_status hg__repack_rows(void *dst, int64_t dst_ld, const void *src, int64_t src_ld, int64_t rows, int64_t cols,
                          int sm_count, struct CUstream_st *stream, hg__err *e);

/* ---- Split-K over slices of k, summed by a second launch (src/slices.c) --- */

/* A product with few output tiles and a long k (256 x 256 x 131072) as a
 * batch of `slices` products over consecutive ranges of k, each writing its
 * fp32 partial into the workspace (one launch of a family row that batches
 * and writes fp32), then one launch of kernels/slice_sum.cu that adds the
 * partials in slice order (deterministic) and applies alpha, beta, the bias
 * and the activation into C. Where the kernel's own stream-K would cut each
 * tile into dozens of pieces, the sums then run on every SM instead of on
 * each tile's last piece. */
typedef struct {
    hg__problem inner;  /* the batch over the slices, C a placeholder until hg__slices_run */
    int64_t slices;     /* 2 or more */
    int64_t ldw;        /* the partials' row pitch (fp32 elements) */
    size_t bytes;       /* the partials' workspace bytes */
} hg__slices;

/* 1 and *s filled when kernel k can run p as slices that fill more of the
 * device than its tiles do (p a single product whose k divides into them),
 * else 0. */
int hg__slices_plan(const hg__kernel_entry *k, const hg__problem *p, const hg__device *d, hg__slices *s);
/* The workspace such a call needs: the kernel's own (kernel_bytes, at least
 * the counters), then the partials. */
size_t hg__slices_workspace(const hg__slices *s, const hg__device *d, size_t kernel_bytes);
/* The most partials any call's slices need on device d: S slices of the
 * tiles of a row fill at most its slots, each tile a unit of fp32. */
size_t hg__slices_max_bytes(const hg__device *d);
/* AUTO's estimate of k on p through the slices s (the inner batch's
 * estimate, the sums' time added); 0 when the workspace d allows is short. */
double hg__slices_estimate(const hg__kernel_entry *k, const hg__problem *p, const hg__slices *s,
                           const hg__device *d);
/* Queues the slices' launch and the sums on `stream`, the partials in ws
 * after the kernel's kernel_bytes. */
hg_status hg__slices_run(const hg__kernel_entry *k, const hg__problem *p, const hg__slices *s, const hg__device *d,
                         void *ws, size_t kernel_bytes, struct CUstream_st *stream, hg__err *e);
/* How many k slices hg_matmul runs desc in (0: none), as hg_matmul_plan
 * plans it (the tool's note and the tests; src/hopgemm.c). */
hg_status hg__matmul_plan_slices(hg_handle h, const hg_matmul_desc *desc, int64_t *slices);
/* When the handle runs k slices: as AUTO's model prefers (the default), never
 * (to time a kernel's own split beside them), or wherever they can run (to
 * time them where the model would not take them); the tool's --slices. */
enum { HG__SLICES_BY_MODEL = 0, HG__SLICES_NEVER = 1, HG__SLICES_ALWAYS = 2 };
void hg__set_slices(hg_handle h, int mode);
/* on = 0: the family's kernels run whole tiles only (hg__device's
 * no_stream_k), for the tool; on = 1 (the default): stream-K by its rule. */
void hg__set_stream_k(hg_handle h, int on);
/* Which walk the family's kernels take over their whole tiles (hg__device's
 * walk): by host.cuh's rule (the default), always the static one, or the
 * dynamic one wherever it can run (more than one round of whole tiles and
 * the workspace's counters), for the tool and the tests. */
enum { HG__WALK_BY_RULE = 0, HG__WALK_STATIC = 1, HG__WALK_DYNAMIC = 2 };
void hg__set_walk(hg_handle h, int mode);
/* The sums (src/kernels/slice_sum.cu): C = act(alpha * sum of the slices'
 * partials + beta * C + bias) for p (one product), the partials `slices`
 * m x ldw fp32 blocks one after another at w. */
hg_status hg__slice_sum(const hg__problem *p, const float *w, int64_t ldw, int64_t slices, int sm_count,
                        struct CUstream_st *stream, hg__err *e);

/* ---- Driver entry points and contexts (src/context.c) -------------------- */

/* Looks a driver function up through the runtime (no libcuda linked); 1 on
 * success, the pointer copied into *fn_out (fn_size bytes). */
int hg__driver_symbol(const char *name, void *fn_out, size_t fn_size);

/* The CUDA context a handle's work runs in. */
typedef struct {
    void *ctx;    /* CUcontext */
    int retained; /* the device's primary context, retained by hg__ctx_bind */
    int ordinal;
} hg__ctx;

hg_status hg__ctx_bind(hg__ctx *c, int ordinal, hg__err *e);
void hg__ctx_unbind(hg__ctx *c);
/* Makes c current on the calling thread, keeping what was current in
 * *saved; hg__ctx_leave puts it back (a thread that had no context is left
 * with none: no context is made on a device the thread never used). */
hg_status hg__ctx_enter(const hg__ctx *c, void **saved, hg__err *e);
void hg__ctx_leave(const hg__ctx *c, void *saved);

/* V6's per-CTA cycle accounting in the profiling build (make prof): one row
 * of HG_V6_PROF_FIELDS words per CTA, written by the kernel
 * (src/kernels/v6_persistent.cu), read by tools/v6-profile.c. Cycles are SM
 * clocks; the T words are %globaltimer nanoseconds. */
enum {
    HG_V6_PROF_TOTAL,    /* consumer 0: after setmaxnreg to after its last piece */
    HG_V6_PROF_MAIN0,    /* consumer 0: first acquire to drained, summed over pieces */
    HG_V6_PROF_FULL0,    /* consumer 0: waiting on full barriers (the dynamic walk's claim too, before MAIN0's start) */
    HG_V6_PROF_STARVED0, /* consumer 0: steady-state k blocks whose wait_group<1> found the previous group done */
    HG_V6_PROF_EPI0,     /* consumer 0: drained to end of piece (stream-K fixup and epilogue) */
    HG_V6_PROF_MAIN1,    /* the same four for consumer 1 */
    HG_V6_PROF_FULL1,
    HG_V6_PROF_STARVED1,
    HG_V6_PROF_EPI1,
    HG_V6_PROF_PTOTAL,   /* producer: from its start to the end drain */
    HG_V6_PROF_EMPTY,    /* producer: waiting on empty barriers */
    HG_V6_PROF_KBLOCKS,  /* k blocks this CTA computed */
    HG_V6_PROF_PIECES,   /* pieces (tiles or tail pieces) */
    HG_V6_PROF_T0_LO,    /* consumer 0: %globaltimer where TOTAL starts, low and high words */
    HG_V6_PROF_T0_HI,
    HG_V6_PROF_T1_LO,    /* ... and where it ends */
    HG_V6_PROF_T1_HI,
    HG_V6_PROF_SMID,     /* the SM the CTA ran on (%smid): which SMs HBM serves slower */
    HG_V6_PROF_FIELDS,   /* row width */
    HG_V6_PROF_CTAS = 1024 /* rows kept */
};

#ifdef HG_V6_PROFILE
/* The last V6 launch's rows (after it completed), `ctas` of them, at most
 * HG_V6_PROF_CTAS. 0 on success. */
int hg__v6_profile_read(uint32_t *rows, int ctas);
/* The same rows for the last launch of any family configuration. */
int hg__fam_profile_read(uint32_t *rows, int ctas);
#endif

extern const hg__kernel_entry hg__kernels[];
extern const int hg__kernel_count;
const hg__kernel_entry *hg__find_kernel(hg_kernel id);

/* ---- Shared host logic (src/validate.c) ------------------------------------ */

/* Validates a call's arguments; NULL when valid, else the sentence. */
const char *hg__validate(const hg__problem *p);

/* Whether two strided regions share an element (exact; for the overlap rule
 * and its test): `rows` rows of `cols` elements, row starts `ld` elements
 * apart, the first at element address `base`. */
typedef struct {
    int64_t base, rows, cols, ld;
} hg__region;
int hg__regions_meet(hg__region x, hg__region y);

/* TMA's rules for one operand of 2-byte elements: its base 16-byte aligned,
 * its leading dimension a multiple of 8 elements (16 bytes). The one place
 * they are written: the checks below, the copy of a ragged A or B
 * (repack.c) and the tensor maps (tensormap.c) all ask these. */
static inline int hg__tma_base_ok(const void *ptr) { return (((uintptr_t)ptr) & 15) == 0; }
static inline int hg__tma_ld_ok(int64_t ld) { return (ld & 7) == 0; }

/* The conditions every TMA kernel shares: one layout (V0..V6: TN), 16-byte
 * aligned A, B, C, leading dimensions multiples of 8 elements, an sm_90
 * device. NULL when met, else the sentence. The _ab_ forms: the same for A
 * and B alone (a kernel that can write C without TMA); hg__tma_c_ok: whether
 * C meets TMA's rules (base 16-byte aligned, ldc a multiple of 8). */
const char *hg__tma_layout_can_serve(const hg__problem *p, const hg__device *d, hg_op opA, hg_op opB);
/* A batch (batch > 1) the family maps as a third TMA dimension: NULL, or why
 * not; c_by_tma: C too (else only A and B). NULL for batch <= 1. */
const char *hg__tma_batch_can_serve(const hg__problem *p, int c_by_tma);
const char *hg__tma_layout_ab_can_serve(const hg__problem *p, const hg__device *d, hg_op opA, hg_op opB);
const char *hg__tma_tn_can_serve(const hg__problem *p, const hg__device *d);
const char *hg__tma_ab_can_serve(const hg__problem *p, const hg__device *d);
int hg__tma_c_ok(const hg__problem *p);

/* Tile rasterization lives in tiling.h (shared with the kernels). */

/* The device a handle is bound to, as the kernels see it (no workspace: a
 * direct launch brings its own): for the tool's V6 ablation launches. */
const hg__device *hg__handle_device(hg_handle h);

/* Tests only: a handle for a made-up device, touching no CUDA API, so the
 * CPU tier can check validation, dispatch and the arch check anywhere. */
hg_status hg__create_for_device(hg_handle *out, const hg__device *d);

/* ---- Tensor maps (src/tensormap.c) --------------------------------------- */

/* The parameters of a 2-D tiled tensor map, or a 3-D one whose third
 * dimension is a batch of matrices (boxes of one matrix), computed on the
 * host (testable without a driver), then encoded through the driver entry
 * point. */
typedef struct {
    int elem_bytes;     /* 2, or 4 for an fp32 C */
    int rank;           /* 2, or 3: batch and stride2 count */
    uint64_t dim[2];    /* {inner (contiguous) extent, outer extent}, elements */
    uint64_t stride1;   /* bytes between consecutive outer rows */
    uint64_t batch;     /* rank 3: matrices */
    uint64_t stride2;   /* rank 3: bytes between consecutive matrices */
    uint32_t box[2];    /* {inner, outer} box in elements */
    int swizzle_bytes;  /* 0, 32, 64 or 128 */
    int l2_promo_bytes; /* L2 promotion: 128 or 256, or 0 for hg__tmap_l2_promo's rule by the row pitch */
} hg__tmap_params;

/* The L2 promotion a map gets, in bytes (128 or 256): tp's l2_promo_bytes
 * where set, else 256 where rows start on 128-byte lines and 128 where not. */
int hg__tmap_l2_promo(const hg__tmap_params *tp);

/* Checks params against TMA's rules; NULL when valid, else the sentence. */
const char *hg__tmap_check(const hg__tmap_params *tp, const void *base);

/* Encodes a CUtensorMap (128 bytes, 64-byte aligned) into out. */
hg_status hg__tmap_encode(void *out_cutensormap, const void *base, hg_dtype dtype,
                          const hg__tmap_params *tp, hg__err *e);

/* ---- CPU reference (src/reference.c) ------------------------------------- */

/* fp16 / bf16 <-> float, round to nearest even; bit-exact with the GPU. */
float hg__f16_to_f32(uint16_t h);
uint16_t hg__f32_to_f16(float f);
float hg__bf16_to_f32(uint16_t h);
uint16_t hg__f32_to_bf16(float f);
float hg__to_f32(uint16_t v, hg_dtype dt);
uint16_t hg__from_f32(float f, hg_dtype dt);

/* The float64 reference of one output element, on host copies of A, B, C. */
double hg__ref_element(const hg__problem *p, const uint16_t *A, const uint16_t *B,
                       const void *C, int64_t i, int64_t j);

/* The same element, and in *abs_sum the sum of the magnitudes of its terms
 * (|alpha| * sum_l |a_il b_lj| + |beta c_ij| + |bias_j|): the scale that the
 * fp32 accumulation error grows with, for the tests' error bounds. A bias is
 * added (p->bias, here a host copy), the activation is not: see
 * hg__ref_activation. */
double hg__ref_element_abs(const hg__problem *p, const uint16_t *A, const uint16_t *B, const void *C,
                           int64_t i, int64_t j, double *abs_sum);

/* Element idx of a host copy of C, as a double: 16-bit elements of p's
 * dtype, or fp32 (p->c_type). */
double hg__c_value(const hg__problem *p, const void *C, int64_t idx);

/* The inputs and the checking rule the tests and the tool share (test kit:
 * src/reference.c, never in a shipped library).
 *   hg__rng_next: splitmix64, a 64-bit state advanced in place.
 *   hg__fill_uniform: count elements uniform in [-1, 1] (24 random bits),
 *     rounded to dt (never all zeros, which run faster and hide unwritten
 *     outputs); with period > 0 only the first `period` are drawn and
 *     then repeated (fast for buffers of several GiB; a prime period keeps an
 *     index that wraps at 2^31 or 2^32 from landing on the same value).
 *   hg__check_bound: the largest |x - ref| allowed for an output element
 *     whose float64 reference is ref and whose terms' magnitudes sum to
 *     abs_sum (hg__ref_element_abs): the output type's rounding (2^-10 fp16,
 *     2^-7 bf16: twice the half-ulp) times |ref|, plus fp32 accumulation's
 *     2^-18 of abs_sum. */
#define HG_FILL_PERIOD 1000003u
uint64_t hg__rng_next(uint64_t *state);
void hg__fill_uniform(uint16_t *h, size_t count, hg_dtype dt, uint64_t *state, size_t period);
double hg__check_bound(hg_dtype dt, double ref, double abs_sum);
/* The output type's rounding in those bounds: 2^-10 fp16, 2^-7 bf16;
 * hg__check_rtol_c: C's type's (2^-23 for an fp32 C). */
double hg__check_rtol(hg_dtype dt);
double hg__check_rtol_c(const hg__problem *p);
/* The check's bound for HG_COMPUTE_16F (fp16 accumulators) on the tests' and
 * the tool's zero-mean random inputs: y the reference (after the
 * activation), abs_sum the sum of |terms|, k the product's depth. */
double hg__check_bound_16f(hg_activation act, double y, double abs_sum, int64_t k);

/* hg_matmul's epilogue in float64: bias element j (0 without a bias; a host
 * copy), the activation, and the bound for an output y = act(pre), pre =
 * alpha AB + beta C + bias (hg__ref_element_abs's value, abs_sum its
 * magnitudes; bias hg__ref_bias's), rtol C's type's (hg__check_rtol_c);
 * without an epilogue (bias NULL, HG_ACT_NONE) the bound is
 * hg__check_bound's rule with that rtol. */
double hg__ref_bias(const hg__problem *p, int64_t j);
double hg__ref_activation(hg_activation act, double x);
double hg__check_bound_act(double rtol, hg_activation act, double y, double pre, double bias, double abs_sum,
                           int epilogue);

/* An H200 as the kernels see it (132 SMs, 227 KiB of shared memory per
 * block, 60 MiB of L2, clusters), no workspace: the CPU tier's made-up
 * device and hopgemm-bench --plan's where there is no GPU. */
hg__device hg__device_h200_model(void);

/* The whole reference into ref (m x n doubles, ld n). */
void hg__ref_gemm(const hg__problem *p, const uint16_t *A, const uint16_t *B,
                  const void *C, double *ref);

#ifdef __cplusplus
}
#endif

#endif /* HG_INTERNAL_H */
