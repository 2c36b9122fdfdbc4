/*
 * slices.c: split-K for products of few output tiles and a long k, as two
 * launches. The product is cut into S ranges of k (slices) of equal length;
 * a family row that runs strided batches computes them as a batch of S
 * products (A and B stepping along k, hg__problem's sliced_k), each writing
 * its fp32 partial into the workspace; then kernels/slice_sum.cu adds the S
 * partials of each element in slice order and writes C with the call's
 * alpha, beta, bias and activation.
 *
 * Why beside the kernels' own stream-K: that one sums a tile's pieces in
 * the piece that finishes last, so a tile cut into dozens of pieces (256 x
 * 256 x 131072: 2 cluster tiles over 66 clusters) is summed by a few SMs at
 * the end while the others idle; here every SM sums. It needs k to divide
 * into slices of whole 16-byte rows (TMA's rule for the batch step), and
 * workspace for S fp32 copies of C.
 *
 * The workspace is [the kernel's own need (at least the counters), rounded
 * up | the partials], as with the copies of repack.c.
 */
#include <string.h>

#include "hg_internal.h"
#include "tiling.h"

/* Any 256-byte aligned address: what the kernel's can_serve sees for the
 * partials before the workspace exists (never dereferenced). */
#define HG_SLICES_PLACEHOLDER ((void *)(uintptr_t)HG_WS_ALIGN)

/* A slice is at least this many k elements (8 k blocks of 64): shorter,
 * the pipeline's fill and the partial's write outweigh the k it covers. */
#define HG_SLICES_MIN_K 512
/* Elements of a slice's k: whole 16-byte rows of a K-major operand. */
#define HG_SLICES_K_ALIGN 8
/* The partials' pitch: whole float4s, as the sums read them (and 16 bytes,
 * as TMA stores them). */
#define HG_SLICES_LDW_ALIGN 4

/* AUTO's model of what the slices add to the batch's own estimate: a fixed
 * time (the second launch) and the partials' bytes at this rate, which
 * covers both their fp32 stores (each tile's epilogue, which the batch's
 * estimate counts as overlapped) and the sums' reads. Fitted on the H200
 * (2026-12-01, one process, bench/results/2026-12-01_h200_slices-first.csv): what four
 * sliced products took beyond that estimate, 7.6 us for 4 MB of partials
 * (256 x 256 x 131072 in 16 slices), 11-19 us for 17 MB (512 x 512 x 65536
 * in 16, 1024 x 1024 x 32768 in 4, 512 x 4096 x 14336 in 2). */
#define HG_SLICES_SUM_FIXED_S 3.0e-6
#define HG_SLICES_SUM_BYTES_PER_S 1.2e12

/* Which rows can run slices: those that batch and write fp32 (and split k
 * themselves, the family's). */
static int slices_row(const hg__kernel_entry *k)
{
    return k->batched && k->writes_f32 && k->unit_k != 0 && k->id != HG_KERNEL_GENERIC;
}

int hg__slices_plan(const hg__kernel_entry *k, const hg__problem *p, const hg__device *d, hg__slices *s)
{
    memset(s, 0, sizeof *s);
    if (!slices_row(k)) return 0;
    if (p->batch > 1 || p->sliced_k || p->m <= 0 || p->n <= 0 || p->k <= 0) return 0;
    /* As the kernel's own stream-K turns to a long k's split: only where
     * whole tiles would leave more than half of the slots idle. */
    const double tiles = (double)hg_cdiv(p->m, k->unit_m) * (double)hg_cdiv(p->n, k->unit_n);
    const double slots = (double)(int64_t)(d->sm_count * k->units_per_sm);
    if (tiles * 2.0 > slots) return 0;
    /* The most slices that fit one wave, k cut evenly into whole rows. */
    int64_t n_slices = 0;
    for (int64_t sl = (int64_t)(slots / tiles); sl >= 2; sl--) {
        if (p->k % sl != 0) continue;
        const int64_t ks = p->k / sl;
        if (ks % HG_SLICES_K_ALIGN != 0 || ks < HG_SLICES_MIN_K) continue;
        n_slices = sl;
        break;
    }
    if (n_slices < 2) return 0;
    const int64_t ks = p->k / n_slices;
    s->slices = n_slices;
    s->ldw = (int64_t)hg__round_up((size_t)p->n, HG_SLICES_LDW_ALIGN);
    s->bytes = hg__round_up((size_t)n_slices * (size_t)p->m * (size_t)s->ldw * sizeof(float), HG_WS_ALIGN);
    hg__problem *q = &s->inner;
    *q = *p;
    q->k = ks;
    q->batch = n_slices;
    /* Slice i of a K-major operand starts i * ks elements along its rows;
     * of an MN-major one (k rows), i * ks rows down. Told by the op, not by
     * comparing the stored columns with k: where m (n) equals k, both read
     * alike. */
    q->stride_a = p->opA == HG_OP_N ? ks : ks * p->lda;
    q->stride_b = p->opB == HG_OP_T ? ks : ks * p->ldb;
    q->sliced_k = 1;
    q->C = HG_SLICES_PLACEHOLDER;
    q->ldc = s->ldw;
    q->stride_c = p->m * s->ldw;
    q->c_type = HG_C_F32;
    q->alpha = 1.0f;
    q->beta = 0.0f;
    q->bias = NULL;
    q->act = HG_ACT_NONE;
    q->stride_bias = 0;
    if (k->can_serve(q, d) != NULL) {
        memset(s, 0, sizeof *s);
        return 0;
    }
    return 1;
}

size_t hg__slices_max_bytes(const hg__device *d)
{
    /* S x m x ldw <= (slots / tiles) x (tiles x unit_m x unit_n): ldw rounds n
     * up to 4, and every unit_n is a multiple of 4. */
    size_t most = 0;
    for (int i = 0; i < hg__kernel_count; i++) {
        const hg__kernel_entry *k = &hg__kernels[i];
        if (!slices_row(k)) continue;
        const size_t slots = (size_t)(int64_t)(d->sm_count * k->units_per_sm);
        const size_t b = hg__round_up(slots * (size_t)k->unit_m * (size_t)k->unit_n * sizeof(float), HG_WS_ALIGN);
        if (b > most) most = b;
    }
    return most + HG_WS_ALIGN; /* the partials' start rounded up past the kernel's part */
}

size_t hg__slices_workspace(const hg__slices *s, const hg__device *d, size_t kernel_bytes)
{
    return hg__ws_past_kernel(d, kernel_bytes) + s->bytes;
}

double hg__slices_estimate(const hg__kernel_entry *k, const hg__problem *p, const hg__slices *s,
                           const hg__device *d)
{
    if (hg__slices_workspace(s, d, hg__ws_max_kernel_bytes(d)) > d->workspace_bytes) return 0.0;
    const double inner = hg__estimate(k, &s->inner, d);
    if (inner <= 0.0) return 0.0;
    const double flops = 2.0 * (double)p->m * (double)p->n * (double)p->k;
    const double elems = (double)p->m * (double)p->n;
    const double sum_bytes = elems * (double)sizeof(float) * (double)s->slices + hg__c_traffic_bytes(p);
    const double t_sum = HG_SLICES_SUM_FIXED_S + sum_bytes / HG_SLICES_SUM_BYTES_PER_S;
    const double t_inner = flops / (inner * HG_MODEL_REF_FLOPS);
    return flops / ((t_inner + t_sum) * HG_MODEL_REF_FLOPS);
}

hg_status hg__slices_run(const hg__kernel_entry *k, const hg__problem *p, const hg__slices *s, const hg__device *d,
                         void *ws, size_t kernel_bytes, struct CUstream_st *stream, hg__err *e)
{
    float *w = (float *)((char *)ws + hg__ws_past_kernel(d, kernel_bytes));
    hg__problem q = s->inner;
    q.C = w;
    hg__device kd = *d;
    kd.workspace_bytes = kernel_bytes; /* the kernel's part; the partials follow it */
    hg_status st = k->launch(&q, &kd, stream, e);
    if (st != HG_STATUS_SUCCESS) return st;
    return hg__slice_sum(p, w, s->ldw, s->slices, d->sm_count, stream, e);
}
