/* Argument validation shared by hg_gemm, hg_plan and the kernels' can_serve. */
#include <stdint.h>
#include <stdio.h>

#include "hg_internal.h"

/* Bytes spanned by a rows x cols row-major matrix of eb-byte elements with
 * leading dimension ld; -1 when that does not fit in int64 (the caller has
 * checked ld >= cols). */
static int64_t span_bytes(int64_t rows, int64_t cols, int64_t ld, int eb)
{
    if (rows == 0 || cols == 0) return 0;
    if (rows - 1 > (INT64_MAX / 4 - cols) / ld) return -1;
    return ((rows - 1) * ld + cols) * eb;
}

/* A matrix of eb-byte elements as a region of bytes (hg__regions_meet). */
static hg__region region_bytes(const void *base, int64_t rows, int64_t cols, int64_t ld, int eb)
{
    hg__region r = {(int64_t)(uintptr_t)base, rows, cols * eb, ld * eb};
    return r;
}

__extension__ typedef unsigned __int128 hg__u128;

/* sum_{i=0}^{n-1} floor((a i + b) / m), all arguments >= 0, m > 0: the
 * Euclid-like reduction (each round swaps a and m as in gcd), O(log m). */
static hg__u128 floor_sum(hg__u128 n, hg__u128 m, hg__u128 a, hg__u128 b)
{
    hg__u128 sum = 0;
    for (;;) {
        if (a >= m) {
            sum += (n * (n - 1) / 2) * (a / m);
            a %= m;
        }
        if (b >= m) {
            sum += n * (b / m);
            b %= m;
        }
        hg__u128 y = a * n + b;
        if (y < m) return sum;
        n = y / m;
        b = y % m;
        hg__u128 t = m;
        m = a;
        a = t;
    }
}

/* Whether two regions share an element (exact). Row i of x, [x0 + i lx,
 * x0 + i lx + cx), meets row j of y, [y0 + j ly, y0 + j ly + cy), exactly
 * when t_i = x0 + i lx - y0 + cx - 1 lies in [j ly, j ly + w) with
 * w = cx + cy - 1. With w >= ly those windows tile [0, (ry - 1) ly + w), so
 * some t_i must fall there; otherwise (i restricted to t_i in [0, ry ly))
 * some t_i mod ly must be below w, which is counted in closed form:
 * [t mod ly < w] = floor(t / ly) - floor((t - w) / ly). */
int hg__regions_meet(hg__region x, hg__region y)
{
    if (x.rows == 0 || x.cols == 0 || y.rows == 0 || y.cols == 0) return 0;
    /* A single row is its own stride. */
    if (x.rows == 1) x.ld = x.cols;
    if (y.rows == 1) y.ld = y.cols;
    const int64_t w = x.cols + y.cols - 1;
    const int64_t t0 = x.base - y.base + x.cols - 1; /* t_i = t0 + i * x.ld */
    /* Spans first: cheap, and it bounds everything below. */
    if (x.base + (x.rows - 1) * x.ld + x.cols <= y.base || y.base + (y.rows - 1) * y.ld + y.cols <= x.base)
        return 0;
    const int64_t hi = w >= y.ld ? (y.rows - 1) * y.ld + w : y.rows * y.ld; /* t_i in [0, hi) */
    /* i in [i0, i1): the rows of x whose t_i lies in [0, hi). */
    int64_t i0 = t0 >= 0 ? 0 : (-t0 + x.ld - 1) / x.ld;
    int64_t i1 = hi - t0 <= 0 ? 0 : (hi - t0 + x.ld - 1) / x.ld;
    if (i1 > x.rows) i1 = x.rows;
    if (i0 >= i1) return 0;
    if (w >= y.ld) return 1;
    const hg__u128 n = (hg__u128)(i1 - i0), m = (hg__u128)y.ld, a = (hg__u128)x.ld;
    const hg__u128 b = (hg__u128)(t0 + i0 * x.ld); /* >= 0 */
    /* floor((t - w) / m) = floor((t - w + m) / m) - 1, and t - w + m >= 0. */
    hg__u128 hits = floor_sum(n, m, a, b) + n - floor_sum(n, m, a, b + m - (hg__u128)w);
    return hits != 0;
}

/* The bytes [lo, hi) that `count` matrices of span_b bytes, stride
 * elements of eb bytes apart, cover from base; 0 when that does not fit in
 * 64 bits. */
static int batch_range(const void *base, int64_t count, int64_t stride, int eb, int64_t span_b, uint64_t *lo,
                       uint64_t *hi)
{
    if (stride > 0 && count - 1 > (INT64_MAX / 4 - span_b) / stride) return 0;
    *lo = (uint64_t)(uintptr_t)base;
    *hi = *lo + (uint64_t)((count - 1) * stride * eb + span_b);
    return *hi >= *lo;
}

/* NULL when the `count` matrices of span_b bytes, stride 16-bit elements
 * apart from base, stay clear of C's range [c_lo, c_hi); else `too_big`
 * (their range does not fit in 64 bits) or `meets`. */
static const char *batch_clear_of_c(const void *base, int64_t count, int64_t stride, int64_t span_b, uint64_t c_lo,
                                    uint64_t c_hi, const char *too_big, const char *meets)
{
    uint64_t lo, hi;
    if (!batch_range(base, count, stride, 2, span_b, &lo, &hi)) return too_big;
    return lo < c_hi && c_lo < hi ? meets : NULL;
}

/* A strided batch's own rules (hopgemm.h): sizes and strides >= 0, C's
 * products apart, and with batch > 1 C's whole range clear of A's, B's and
 * the bias's (ranges, not elements: the exact test is per product). */
static const char *validate_batch(const hg__problem *p, const hg__stored *st, char *why, size_t why_size)
{
    if (p->batch < 0) {
        snprintf(why, why_size, "batch_count must be >= 0 (got %lld).", (long long)p->batch);
        return why;
    }
    if (p->stride_a < 0 || p->stride_b < 0 || p->stride_c < 0 || p->stride_bias < 0) {
        snprintf(why, why_size, "strides must be >= 0 (got stride_a=%lld, stride_b=%lld, stride_c=%lld, stride_bias=%lld).",
                 (long long)p->stride_a, (long long)p->stride_b, (long long)p->stride_c, (long long)p->stride_bias);
        return why;
    }
    if (p->batch <= 1 || p->m == 0 || p->n == 0) return NULL;
    const int eb = hg__c_bytes(p);
    const int64_t span_c = span_bytes(p->m, p->n, p->ldc, eb); /* checked >= 0 by the caller */
    if (p->stride_c < span_c / eb) {
        snprintf(why, why_size,
                 "stride_c = %lld is below C's span (m - 1) * ldc + n = %lld: the batch's products of C would overlap.",
                 (long long)p->stride_c, (long long)(span_c / eb));
        return why;
    }
    uint64_t c_lo, c_hi;
    if (!batch_range(p->C, p->batch, p->stride_c, eb, span_c, &c_lo, &c_hi))
        return "the batch of C spans more bytes than a 64-bit size holds.";
    const char *why_not = NULL;
    if (p->bias)
        why_not = batch_clear_of_c(p->bias, p->batch, p->stride_bias, p->n * 2, c_lo, c_hi,
                                   "the batch of bias spans more bytes than a 64-bit size holds.",
                                   "the batch's bias range meets C's; the output must not alias an input.");
    if (why_not || p->k == 0 || p->alpha == 0.0f) return why_not; /* A and B are not read */
    why_not = batch_clear_of_c(p->A, p->batch, p->stride_a, span_bytes(st->rows_a, st->cols_a, p->lda, 2), c_lo, c_hi,
                               "the batch of A spans more bytes than a 64-bit size holds.",
                               "the batch's A range meets C's; the output must not alias an input.");
    if (why_not) return why_not;
    return batch_clear_of_c(p->B, p->batch, p->stride_b, span_bytes(st->rows_b, st->cols_b, p->ldb, 2), c_lo, c_hi,
                            "the batch of B spans more bytes than a 64-bit size holds.",
                            "the batch's B range meets C's; the output must not alias an input.");
}

const char *hg__validate(const hg__problem *p)
{
    static _Thread_local char why[256];
    if (p->opA != HG_OP_N && p->opA != HG_OP_T) return "opA is not HG_OP_N or HG_OP_T.";
    if (p->opB != HG_OP_N && p->opB != HG_OP_T) return "opB is not HG_OP_N or HG_OP_T.";
    if (p->dtype != HG_F16 && p->dtype != HG_BF16) return "dtype is not HG_F16 or HG_BF16.";
    if (p->c_type != HG_C_AS_INPUTS && p->c_type != HG_C_F32) return "c_type is not HG_C_AS_INPUTS or HG_C_F32.";
    const int eb = hg__c_bytes(p);
    if (p->m < 0 || p->n < 0 || p->k < 0) {
        snprintf(why, sizeof why, "sizes must be >= 0 (got m=%lld, n=%lld, k=%lld).", (long long)p->m,
                 (long long)p->n, (long long)p->k);
        return why;
    }
    const hg__stored st = hg__stored_of(p);
    const int64_t rows_a = st.rows_a, cols_a = st.cols_a, rows_b = st.rows_b, cols_b = st.cols_b;
    int64_t need;
    need = cols_a > 1 ? cols_a : 1;
    if (p->lda < need) {
        snprintf(why, sizeof why, "lda = %lld is smaller than A's row length %lld (opA = %c).",
                 (long long)p->lda, (long long)need, p->opA == HG_OP_N ? 'N' : 'T');
        return why;
    }
    need = cols_b > 1 ? cols_b : 1;
    if (p->ldb < need) {
        snprintf(why, sizeof why, "ldb = %lld is smaller than B's row length %lld (opB = %c).",
                 (long long)p->ldb, (long long)need, p->opB == HG_OP_N ? 'N' : 'T');
        return why;
    }
    need = p->n > 1 ? p->n : 1;
    if (p->ldc < need) {
        snprintf(why, sizeof why, "ldc = %lld is smaller than n = %lld.", (long long)p->ldc, (long long)need);
        return why;
    }
    int64_t bytes_a = span_bytes(rows_a, cols_a, p->lda, 2);
    int64_t bytes_b = span_bytes(rows_b, cols_b, p->ldb, 2);
    int64_t bytes_c = span_bytes(p->m, p->n, p->ldc, eb);
    if (bytes_a < 0 || bytes_b < 0 || bytes_c < 0) return "a matrix spans more bytes than a 64-bit size holds.";
    if (p->m > 0 && p->n > 0) {
        if (p->C == NULL) return "C is NULL but m x n is not empty.";
        if (p->k > 0) {
            if (p->A == NULL) return "A is NULL but op(A) (m x k) is not empty.";
            if (p->B == NULL) return "B is NULL but op(B) (k x n) is not empty.";
        }
    }
    if (((uintptr_t)p->A | (uintptr_t)p->B | (uintptr_t)p->C) & 1)
        return "A, B and C must be 2-byte aligned (they hold 16-bit elements).";
    if (eb == 4 && ((uintptr_t)p->C & 3)) return "C must be 4-byte aligned with c_type HG_C_F32 (fp32 elements).";
    if (p->act != HG_ACT_NONE && p->act != HG_ACT_RELU && p->act != HG_ACT_GELU_TANH)
        return "activation is not HG_ACT_NONE, HG_ACT_RELU or HG_ACT_GELU_TANH.";
    if (p->compute != HG_COMPUTE_32F && p->compute != HG_COMPUTE_16F)
        return "compute is not HG_COMPUTE_32F or HG_COMPUTE_16F.";
    if (p->compute == HG_COMPUTE_16F && p->dtype != HG_F16)
        return "compute is HG_COMPUTE_16F, which takes HG_F16 only (no kernel accumulates bf16 in 16 bits).";
    if ((uintptr_t)p->bias & 1) return "bias must be 2-byte aligned (it holds 16-bit elements).";
    if (p->bias && p->m > 0 && p->n > 0) {
        /* The epilogue reads bias while it writes C. */
        const hg__region c = region_bytes(p->C, p->m, p->n, p->ldc, eb);
        const hg__region bias = region_bytes(p->bias, 1, p->n, p->n, 2);
        if (hg__regions_meet(bias, c)) return "bias shares elements with C; the output must not alias an input.";
    }
    const char *batch_why = validate_batch(p, &st, why, sizeof why);
    if (batch_why) return batch_why;
    /* Overlap is judged on the bytes each operand uses: C may interleave
     * with A or B (say rows of one buffer) as long as no element is shared.
     * With alpha = 0, A and B are not read, so they may hold anything. */
    if (p->m > 0 && p->n > 0 && p->k > 0 && p->alpha != 0.0f) {
        const hg__region c = region_bytes(p->C, p->m, p->n, p->ldc, eb);
        const hg__region a = region_bytes(p->A, rows_a, cols_a, p->lda, 2);
        const hg__region b = region_bytes(p->B, rows_b, cols_b, p->ldb, 2);
        if (hg__regions_meet(a, c)) return "C shares elements with A; the output must not alias an input.";
        if (hg__regions_meet(b, c)) return "C shares elements with B; the output must not alias an input.";
    }
    return NULL;
}

const char *hg__tma_layout_ab_can_serve(const hg__problem *p, const hg__device *d, hg_op opA, hg_op opB)
{
    /* [opA][opB]: the literature's name is the flip of our row-major ops. */
    static const char *const only[2][2] = {
        {"serves the TT layout only (opA = HG_OP_N, opB = HG_OP_N: A m x k, B k x n).",
         "serves the TN layout only (opA = HG_OP_N, opB = HG_OP_T: A m x k, B n x k)."},
        {"serves the NT layout only (opA = HG_OP_T, opB = HG_OP_N: A k x m, B k x n).",
         "serves the NN layout only (opA = HG_OP_T, opB = HG_OP_T: A k x m, B n x k)."},
    };
    if (d->cc_major != 9 || d->cc_minor != 0) return "needs an sm_90 (Hopper) device.";
    if (p->opA != opA || p->opB != opB) return only[opA == HG_OP_T][opB == HG_OP_T];
    if (!hg__tma_base_ok(p->A) || !hg__tma_base_ok(p->B)) return "needs A and B 16-byte aligned (TMA).";
    if (!hg__tma_ld_ok(p->lda) || !hg__tma_ld_ok(p->ldb)) return "needs lda and ldb multiples of 8 elements (TMA).";
    if (p->k == 0) return "k = 0 leaves no product to compute.";
    if (p->m > ((int64_t)1 << 31) - 1 || p->n > ((int64_t)1 << 31) - 1 || p->k > ((int64_t)1 << 31) - 1)
        return "sizes above 2^31 - 1 exceed TMA's 32-bit coordinates.";
    if ((p->lda | p->ldb) >= ((int64_t)1 << 36))
        return "leading dimensions above 2^36 elements exceed TMA's stride limit.";
    return NULL;
}

const char *hg__tma_ab_can_serve(const hg__problem *p, const hg__device *d)
{
    return hg__tma_layout_ab_can_serve(p, d, HG_OP_N, HG_OP_T);
}

const char *hg__tma_layout_can_serve(const hg__problem *p, const hg__device *d, hg_op opA, hg_op opB)
{
    const char *why = hg__tma_layout_ab_can_serve(p, d, opA, opB);
    if (why) return why;
    if (!hg__tma_c_ok(p))
        return "needs C 16-byte aligned and ldc a multiple of 16 bytes (8 16-bit or 4 fp32 elements) below 2^36 "
               "elements (TMA).";
    return NULL;
}

int hg__tma_c_ok(const hg__problem *p)
{
    return hg__tma_base_ok(p->C) && (p->ldc * hg__c_bytes(p)) % 16 == 0 && p->ldc < ((int64_t)1 << 36);
}

const char *hg__tma_tn_can_serve(const hg__problem *p, const hg__device *d)
{
    return hg__tma_layout_can_serve(p, d, HG_OP_N, HG_OP_T);
}

/* A batch stride TMA steps by: a positive multiple of 16 bytes (eb-byte
 * elements) below 2^39 elements. The driver takes a third stride shorter
 * than the matrix (16 bytes included), and a map's addresses are base +
 * coordinate x stride per dimension, so products may overlap. */
static int tma_batch_stride_ok(int64_t stride, int eb)
{
    return stride > 0 && (stride * eb) % 16 == 0 && stride < ((int64_t)1 << 39);
}

/* An operand's batch stride: as above, or 0, one matrix every product
 * reads (a map whose third stride is 0; every batch coordinate reads the
 * same bytes). */
static int tma_operand_stride_ok(int64_t stride) { return stride == 0 || tma_batch_stride_ok(stride, 2); }

const char *hg__tma_batch_can_serve(const hg__problem *p, int c_by_tma)
{
    if (p->batch <= 1) return NULL;
    if (p->batch > INT32_MAX) return "runs at most 2^31 - 1 products in a batch (TMA's coordinates).";
    if (!tma_operand_stride_ok(p->stride_a) || !tma_operand_stride_ok(p->stride_b))
        return "needs stride_a and stride_b 0 or multiples of 8 elements below 2^39 (TMA).";
    /* C's products a whole m x ldc apart, so that no product's TMA stores
     * land in another's rows. */
    if (c_by_tma && (!tma_batch_stride_ok(p->stride_c, hg__c_bytes(p)) || p->stride_c / p->ldc < p->m))
        return "needs stride_c a multiple of 16 bytes of at least m x ldc (TMA).";
    return NULL;
}
