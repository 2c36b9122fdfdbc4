/*
 * repack.c: a call whose A or B breaks TMA's rules (an lda or ldb that is
 * not a multiple of 8 elements, a base off 16 bytes) still runs a TMA
 * kernel: the offending operand is first copied, by one launch of
 * kernels/repack.cu on the call's stream, into the workspace with its rows
 * padded to a multiple of 8 elements, and the kernel reads the copy. The
 * padding is never read (the tensor map's extent stops at the operand's
 * true width).
 *
 * The workspace is [the kernel's own need (at least the counters), rounded
 * up | copy of A | copy of B]: the stream-K counters stay at the start,
 * where the workspace code zeroes them once, untouched by the copies.
 */
#include <string.h>

#include "hg_internal.h"

/* Any 256-byte aligned address: what the kernels' can_serve sees for a copy
 * that does not exist yet (never dereferenced). */
#define HG_REPACK_PLACEHOLDER ((const void *)(uintptr_t)HG_WS_ALIGN)

/* AUTO's model of the copies: each costs a fixed time and moves its
 * operand twice (read, write) at this rate, while the product runs at its
 * estimate times HG_MODEL_REF_FLOPS. Not measured yet for kernels/repack.cu:
 * a guess at a launch and 70% of the H200's copy bandwidth. */
#define HG_REPACK_COPY_FIXED_S 3.0e-6
#define HG_REPACK_COPY_BYTES_PER_S (0.7 * HG_MODEL_COPY_BW)

/* TMA's rules for an operand (hg_internal.h; hg__tma_layout_ab_can_serve
 * has the others). */
static int breaks_tma(const void *ptr, int64_t ld) { return !hg__tma_base_ok(ptr) || !hg__tma_ld_ok(ld); }

/* One operand stored rows x cols (leading dimension ld), copied with a
 * padded pitch: its bytes in the workspace, 0 when it needs no copy. */
static void plan_operand(const void *ptr, int64_t rows, int64_t cols, int64_t ld, int64_t *new_ld, size_t *bytes)
{
    *new_ld = ld;
    *bytes = 0;
    if (!breaks_tma(ptr, ld)) return;
    *new_ld = (int64_t)hg__round_up((size_t)cols, 8);
    *bytes = hg__round_up((size_t)rows * (size_t)*new_ld * 2, HG_WS_ALIGN);
}

int hg__repack_plan(const hg__problem *p, hg__repack *r)
{
    memset(r, 0, sizeof *r);
    if (p->k == 0 || p->m == 0 || p->n == 0) return 0; /* no product: nothing is read */
    if (p->batch > 1) return 0; /* a batch that breaks TMA's rules runs GENERIC */
    const hg__stored st = hg__stored_of(p);
    const int64_t rows_a = st.rows_a, cols_a = st.cols_a, rows_b = st.rows_b, cols_b = st.cols_b;
    plan_operand(p->A, rows_a, cols_a, p->lda, &r->lda, &r->a_bytes);
    plan_operand(p->B, rows_b, cols_b, p->ldb, &r->ldb, &r->b_bytes);
    if (r->a_bytes == 0 && r->b_bytes == 0) return 0;
    r->rows_a = rows_a, r->cols_a = cols_a, r->rows_b = rows_b, r->cols_b = cols_b;
    r->inner = *p;
    if (r->a_bytes) r->inner.A = HG_REPACK_PLACEHOLDER, r->inner.lda = r->lda;
    if (r->b_bytes) r->inner.B = HG_REPACK_PLACEHOLDER, r->inner.ldb = r->ldb;
    return 1;
}

size_t hg__repack_workspace(const hg__repack *r, const hg__device *d, size_t kernel_bytes)
{
    return hg__ws_past_kernel(d, kernel_bytes) + r->a_bytes + r->b_bytes;
}

double hg__repack_factor(const hg__repack *r, const hg__problem *p, double estimate)
{
    if (estimate <= 0.0) return 0.0;
    const double copied = 2.0 * 2.0 * ((double)r->rows_a * (double)r->cols_a * (r->a_bytes != 0) +
                                       (double)r->rows_b * (double)r->cols_b * (r->b_bytes != 0));
    const double t_copy =
        copied / HG_REPACK_COPY_BYTES_PER_S + HG_REPACK_COPY_FIXED_S * ((r->a_bytes != 0) + (r->b_bytes != 0));
    const double t_product = 2.0 * (double)p->m * (double)p->n * (double)p->k / (estimate * HG_MODEL_REF_FLOPS);
    return t_product / (t_product + t_copy);
}

hg_status hg__repack_copy(const hg__problem *p, const hg__repack *r, const hg__device *d, void *ws,
                          size_t kernel_bytes, struct CUstream_st *stream, hg__problem *inner, hg__err *e)
{
    *inner = r->inner;
    char *at = (char *)ws + hg__ws_past_kernel(d, kernel_bytes);
    hg_status st = HG_STATUS_SUCCESS;
    if (r->a_bytes) {
        st = hg__repack_rows(at, r->lda, p->A, p->lda, r->rows_a, r->cols_a, d->sm_count, stream, e);
        inner->A = at;
        at += r->a_bytes;
    }
    if (st == HG_STATUS_SUCCESS && r->b_bytes) {
        st = hg__repack_rows(at, r->ldb, p->B, p->ldb, r->rows_b, r->cols_b, d->sm_count, stream, e);
        inner->B = at;
    }
    return st;
}

int hg__repack_serves(const hg__kernel_entry *k, const hg__repack *r, const hg__device *d)
{
    return r != NULL && r->a_bytes + r->b_bytes != 0 && k->id != HG_KERNEL_GENERIC &&
           k->can_serve(&r->inner, d) == NULL &&
           hg__repack_workspace(r, d, hg__ws_max_kernel_bytes(d)) <= d->workspace_bytes;
}

double hg__route_estimate(const hg__kernel_entry *k, const hg__problem *p, const hg__repack *r,
                          const hg__device *d, int *repacked, const char **why)
{
    *repacked = 0;
    *why = k->can_serve(p, d);
    if (*why == NULL) return hg__estimate(k, p, d);
    if (!hg__repack_serves(k, r, d)) return -1.0;
    *repacked = 1;
    const double inner = hg__estimate(k, &r->inner, d);
    return inner * hg__repack_factor(r, p, inner);
}
