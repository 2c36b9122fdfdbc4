/* Argument validation shared by hg_gemm, hg_plan and the kernels' can_serve. */
#include <stdint.h>
#include <stdio.h>

#include "hg_internal.h"

/* Bytes spanned by a rows x cols row-major matrix with leading dimension ld;
 * -1 when that does not fit in int64 (the caller has checked ld >= cols). */
static int64_t span_bytes(int64_t rows, int64_t cols, int64_t ld)
{
    if (rows == 0 || cols == 0) return 0;
    if (rows - 1 > (INT64_MAX / 2 - cols) / ld) return -1;
    return ((rows - 1) * ld + cols) * 2;
}

static int overlaps(const void *a, int64_t a_bytes, const void *b, int64_t b_bytes)
{
    uintptr_t a0 = (uintptr_t)a, b0 = (uintptr_t)b;
    if (a_bytes == 0 || b_bytes == 0) return 0;
    return a0 < b0 + (uintptr_t)b_bytes && b0 < a0 + (uintptr_t)a_bytes;
}

const char *hg__validate(const hg__problem *p)
{
    static _Thread_local char why[160];
    if (p->opA != HG_OP_N && p->opA != HG_OP_T) return "opA is not HG_OP_N or HG_OP_T.";
    if (p->opB != HG_OP_N && p->opB != HG_OP_T) return "opB is not HG_OP_N or HG_OP_T.";
    if (p->dtype != HG_F16 && p->dtype != HG_BF16) return "dtype is not HG_F16 or HG_BF16.";
    if (p->m < 0 || p->n < 0 || p->k < 0) {
        snprintf(why, sizeof why, "sizes must be >= 0 (got m=%lld, n=%lld, k=%lld).", (long long)p->m,
                 (long long)p->n, (long long)p->k);
        return why;
    }
    /* Stored shapes: A is rows_a x cols_a, B is rows_b x cols_b. */
    int64_t rows_a = p->opA == HG_OP_N ? p->m : p->k, cols_a = p->opA == HG_OP_N ? p->k : p->m;
    int64_t rows_b = p->opB == HG_OP_N ? p->k : p->n, cols_b = p->opB == HG_OP_N ? p->n : p->k;
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
    int64_t bytes_a = span_bytes(rows_a, cols_a, p->lda);
    int64_t bytes_b = span_bytes(rows_b, cols_b, p->ldb);
    int64_t bytes_c = span_bytes(p->m, p->n, p->ldc);
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
    if (p->m > 0 && p->n > 0 && p->k > 0 &&
        (overlaps(p->A, bytes_a, p->C, bytes_c) || overlaps(p->B, bytes_b, p->C, bytes_c)))
        return "C overlaps A or B; the output must not alias an input.";
    return NULL;
}

const char *hg__tma_tn_can_serve(const hg__problem *p, const hg__device *d)
{
    if (d->cc_major != 9 || d->cc_minor != 0) return "needs an sm_90 (Hopper) device.";
    if (p->opA != HG_OP_N || p->opB != HG_OP_T)
        return "serves the TN layout only (opA = HG_OP_N, opB = HG_OP_T: A m x k, B n x k).";
    if ((((uintptr_t)p->A) | ((uintptr_t)p->B) | ((uintptr_t)p->C)) & 15)
        return "needs A, B and C 16-byte aligned (TMA).";
    if ((p->lda | p->ldb | p->ldc) & 7) return "needs lda, ldb and ldc multiples of 8 elements (TMA).";
    if (p->k == 0) return "k = 0 leaves no product to compute.";
    if (p->m > ((int64_t)1 << 31) - 1 || p->n > ((int64_t)1 << 31) - 1 || p->k > ((int64_t)1 << 31) - 1)
        return "sizes above 2^31 - 1 exceed TMA's 32-bit coordinates.";
    if ((p->lda | p->ldb | p->ldc) >= ((int64_t)1 << 36))
        return "leading dimensions above 2^36 elements exceed TMA's stride limit.";
    return NULL;
}
