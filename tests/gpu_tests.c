/*
 * The GPU tier: every registered kernel against the float64 CPU reference on
 * the shapes of DESIGN.md's "Checking" list, both dtypes, poisoned outputs
 * (NaN bits where beta = 0, known values where beta != 0), and sentinels in
 * C's padding columns that must survive. Fresh random inputs per case.
 *
 * Per element: |x - ref| <= hg__check_bound (rtol * |ref| + 2^-18 * S, where
 * S is the sum of the magnitudes of the element's terms, the scale of fp32
 * accumulation error, and rtol the output type's rounding), the rule the tool
 * checks by too. Also the relative Frobenius error. NaN never passes.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "hg_internal.h"
#include "testlib.h"
#include "gpu_common.h"


/* Inputs and the checking rule come from the test kit the tool uses too
 * (hg__fill_uniform, hg__check_bound in src/reference.c). */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

uint64_t rng_next(void) { return hg__rng_next(&rng_state); }

uint16_t rand_elem(hg_dtype dt)
{
    uint16_t v;
    hg__fill_uniform(&v, 1, dt, &rng_state, 0);
    return v;
}

/* Large buffers repeat a random block of a prime length (HG_FILL_PERIOD). */
void fill_random(uint16_t *p, size_t n, hg_dtype dt) { hg__fill_uniform(p, n, dt, &rng_state, HG_FILL_PERIOD); }

int is_nan_bits(uint16_t v, hg_dtype dt)
{
    return dt == HG_BF16 ? (v & 0x7F80) == 0x7F80 && (v & 0x7F) : (v & 0x7C00) == 0x7C00 && (v & 0x3FF);
}


int cuda_ok(cudaError_t e, const char *what)
{
    if (e == cudaSuccess) return 1;
    CHECK(0, "%s: %s", what, cudaGetErrorString(e));
    (void)cudaGetLastError();
    return 0;
}

static int64_t round_up(int64_t x, int64_t to) { return (x + to - 1) / to * to; }

uint32_t c_get(const void *C, int64_t e, hg_c_type ct)
{
    return ct == HG_C_F32 ? ((const uint32_t *)C)[e] : ((const uint16_t *)C)[e];
}

void c_put(void *C, int64_t e, hg_c_type ct, uint32_t bits)
{
    if (ct == HG_C_F32) ((uint32_t *)C)[e] = bits;
    else ((uint16_t *)C)[e] = (uint16_t)bits;
}

uint32_t c_poison(hg_c_type ct) { return ct == HG_C_F32 ? POISON_F32 : POISON; }
uint32_t c_sentinel(hg_c_type ct) { return ct == HG_C_F32 ? SENTINEL_F32 : SENTINEL; }

/* Checks C (hOut, as the call left it) against the float64 reference of p
 * on the inputs hA, hB, hC: every element written, the padding columns
 * untouched, each checked element within its bound, the relative Frobenius
 * error small. 1 when all hold. */
int hg_check_output(const hg__problem *p, const uint16_t *hA, const uint16_t *hB, const void *hC, const void *hOut,
                    const char *what)
{
    /* Every element written (no NaN from the poison), padding untouched. */
    int64_t unwritten = 0, pad_hit = 0;
    for (int64_t i = 0; i < p->m; i++)
        for (int64_t j = 0; j < p->ldc; j++) {
            const int64_t e = i * p->ldc + j;
            if (j >= p->n) pad_hit += c_get(hOut, e, p->c_type) != c_sentinel(p->c_type);
            else unwritten += isnan(hg__c_value(p, hOut, e));
        }
    CHECK(unwritten == 0, "%s: %lld elements NaN (unwritten or wrong)", what, (long long)unwritten);
    CHECK(pad_hit == 0, "%s: %lld padding elements overwritten", what, (long long)pad_hit);
    /* The values: all of them when cheap, else a sample plus the edges. */
    int full = (double)p->m * (double)p->n * (double)(p->k + 1) <= (double)(1 << 27);
    int64_t samples = full ? p->m * p->n : 3000;
    int64_t bad = 0;
    double num = 0, den = 0, maxerr = 0;
    for (int64_t s = 0; s < samples; s++) {
        int64_t i, j;
        if (full) {
            i = s / p->n;
            j = s % p->n;
        } else if (s < 8) { /* corners and the last row / column */
            i = (s & 1) ? p->m - 1 : 0;
            j = (s & 2) ? p->n - 1 : 0;
            if (s >= 4) i = (int64_t)(rng_next() % (uint64_t)p->m), j = s == 4 ? p->n - 1 : j;
        } else {
            i = (int64_t)(rng_next() % (uint64_t)p->m);
            j = (int64_t)(rng_next() % (uint64_t)p->n);
        }
        double mag;
        const double pre = hg__ref_element_abs(p, hA, hB, hC, i, j, &mag);
        const double ref = hg__ref_activation(p->act, pre);
        double x = hg__c_value(p, hOut, i * p->ldc + j);
        double err = fabs(x - ref);
        double bound = p->compute == HG_COMPUTE_16F
                           ? hg__check_bound_16f(p->act, ref, mag, p->k)
                           : hg__check_bound_act(hg__check_rtol_c(p), p->act, ref, pre, hg__ref_bias(p, j), mag,
                                                 hg__has_epilogue(p));
        num += (x - ref) * (x - ref);
        den += ref * ref;
        if (err > maxerr || isnan(err)) maxerr = err;
        if (!(err <= bound)) {
            if (bad < 4)
                printf("    %s: C[%lld,%lld] = %.6g, want %.6g (|err| %.3g > bound %.3g)\n", what, (long long)i,
                       (long long)j, x, ref, err, bound);
            bad++;
        }
    }
    CHECK(bad == 0, "%s: %lld of %lld checked elements out of bounds (max err %.3g)", what, (long long)bad,
          (long long)samples, maxerr);
    double rel = den > 0 ? sqrt(num / den) : sqrt(num);
    /* fp16 accumulators: k / 16 roundings of 2^-11, a random walk, on top;
     * an fp32 C: fp32 accumulation's error alone */
    const double rel_16f = p->compute == HG_COMPUTE_16F ? 4.0 * sqrt(p->k / 16.0 + 1.0) * ldexp(1.0, -11) : 0.0;
    const double rel_c = p->c_type == HG_C_F32 ? 1e-5 : p->dtype == HG_BF16 ? 8e-3 : 1e-3;
    CHECK(rel <= rel_c + rel_16f, "%s: relative Frobenius error %.3g", what, rel);
    return bad == 0 && unwritten == 0 && pad_hit == 0;
}

hg_compute kernel_compute(hg_kernel kid)
{
    const hg__kernel_entry *e = hg__find_kernel(kid);
    return e && e->acc16 ? HG_COMPUTE_16F : HG_COMPUTE_32F;
}

/* Runs one case on kernel `kid` (AUTO allowed) and checks it. Returns 1 when
 * the case ran and passed. */
int run_case(hg_handle h, hg_kernel kid, const gcase *c, hg_dtype dt) { return run_case_epi(h, kid, c, dt, 0, HG_ACT_NONE); }

/* ... through hg_matmul when with_bias or act asks for an epilogue (a bias of
 * n random elements) or the kernel accumulates in fp16 (kernel_compute),
 * else through hg_gemm. An fp16-accumulating kernel has no bf16 case (such a
 * call is invalid: cpu/matmul_desc). */
int run_case_epi(hg_handle h, hg_kernel kid, const gcase *c, hg_dtype dt, int with_bias, hg_activation act)
{
    return run_case_c(h, kid, c, dt, with_bias, act, HG_C_AS_INPUTS);
}

int run_case_c(hg_handle h, hg_kernel kid, const gcase *c, hg_dtype dt, int with_bias, hg_activation act,
               hg_c_type ct)
{
    const hg_compute compute = kernel_compute(kid);
    const int eb = ct == HG_C_F32 ? 4 : 2; /* C's element */
    if (compute == HG_COMPUTE_16F && dt != HG_F16) return 1;
    const int tma = kid != HG_KERNEL_GENERIC && kid != HG_KERNEL_AUTO;
    int64_t rows_a = c->opA == HG_OP_N ? c->m : c->k, cols_a = c->opA == HG_OP_N ? c->k : c->m;
    int64_t rows_b = c->opB == HG_OP_N ? c->k : c->n, cols_b = c->opB == HG_OP_N ? c->n : c->k;
    int64_t lda = cols_a + c->pad, ldb = cols_b + c->pad, ldc = c->n + c->pad;
    if (lda < 1) lda = 1;
    if (ldb < 1) ldb = 1;
    if (ldc < 1) ldc = 1;
    if (tma) { /* what TMA needs: rows of multiples of 16 bytes */
        lda = round_up(lda, 8);
        ldb = round_up(ldb, 8);
        ldc = round_up(ldc, 16 / eb);
    }
    ldc += c->ldc_extra;
    size_t na = (size_t)(rows_a * lda), nb = (size_t)(rows_b * ldb), nc = (size_t)(c->m * ldc);
    const size_t slack = 8 + (size_t)c->c_off; /* elements past C's end: its offset */
    uint16_t *hA = (uint16_t *)malloc((na + 1) * 2), *hB = (uint16_t *)malloc((nb + 1) * 2);
    void *hC = malloc((nc + 1) * eb), *hOut = malloc((nc + 1) * eb);
    if (!hA || !hB || !hC || !hOut) {
        CHECK(0, "host allocation of %zu elements", na + nb + 2 * nc);
        free(hA), free(hB), free(hC), free(hOut);
        return 0;
    }
    const int epilogue = with_bias || act != HG_ACT_NONE;
    uint16_t *hBias = with_bias ? (uint16_t *)malloc((size_t)(c->n + 1) * 2) : NULL;
    if (with_bias && hBias) fill_random(hBias, (size_t)c->n, dt);
    fill_random(hA, na, dt);
    fill_random(hB, nb, dt);
    if (c->alpha == 0.0f && na > 0) hA[na / 2] = POISON; /* alpha = 0: A must not be read */
    for (int64_t i = 0; i < c->m; i++)
        for (int64_t j = 0; j < ldc; j++) {
            /* an fp32 old C: the same random values, widened */
            uint32_t old = rand_elem(dt);
            if (ct == HG_C_F32) {
                const float f = hg__to_f32((uint16_t)old, dt);
                memcpy(&old, &f, sizeof old);
            }
            c_put(hC, i * ldc + j, ct, j >= c->n ? c_sentinel(ct) : c->beta != 0.0f ? old : c_poison(ct));
        }

    char *dA = NULL, *dB = NULL, *dC = NULL, *dBias = NULL;
    int ok = cuda_ok(cudaMalloc((void **)&dA, (na + slack) * 2), "cudaMalloc A") &&
             cuda_ok(cudaMalloc((void **)&dB, (nb + slack) * 2), "cudaMalloc B") &&
             cuda_ok(cudaMalloc((void **)&dC, (nc + slack) * eb), "cudaMalloc C");
    if (ok && with_bias)
        ok = hBias != NULL && cuda_ok(cudaMalloc((void **)&dBias, (size_t)(c->n + 1) * 2), "cudaMalloc bias") &&
             cuda_ok(cudaMemcpy(dBias, hBias, (size_t)c->n * 2, cudaMemcpyHostToDevice), "copy bias");
    /* misaligned: A and B off by one element, C by one of its own */
    const size_t off = c->misalign ? 2 : 0, off_c = (c->misalign ? (size_t)eb : 0) + (size_t)c->c_off * eb;
    if (ok)
        ok = cuda_ok(cudaMemcpy(dA + off, hA, na * 2, cudaMemcpyHostToDevice), "copy A") &&
             cuda_ok(cudaMemcpy(dB + off, hB, nb * 2, cudaMemcpyHostToDevice), "copy B") &&
             cuda_ok(cudaMemcpy(dC + off_c, hC, nc * eb, cudaMemcpyHostToDevice), "copy C");
    const char *kname = hg_kernel_name(kid);
    char what[200];
    /* Layout names are the GEMM literature's: the flips of our row-major ops. */
    static const char *const act_names[] = {"", " relu", " gelu"};
    snprintf(what, sizeof what, "%s %s%s %s m=%lld n=%lld k=%lld pad=%lld alpha=%g beta=%g%s%s%s%s", kname,
             c->opA == HG_OP_N ? "T" : "N", c->opB == HG_OP_N ? "T" : "N", dt == HG_BF16 ? "bf16" : "f16",
             (long long)c->m, (long long)c->n, (long long)c->k, (long long)c->pad, c->alpha, c->beta,
             c->misalign ? " misaligned" : "", with_bias ? " bias" : "", act_names[act], ct == HG_C_F32 ? " c=f32" : "");
    /* A lean row (config.cuh's LEAN) serves beta = 0 only: the call is
     * refused, with the reason, and C is left as it was. (alpha = 0 or k = 0
     * is C = beta C, which dispatch computes without the kernel.) */
    int refused = 0;
    const hg__kernel_entry *entry = hg__find_kernel(kid);
    if (ok && c->beta != 0.0f && c->alpha != 0.0f && c->k != 0 && entry != NULL) {
        hg__problem q = hg__problem_make(c->opA, c->opB, c->m, c->n, c->k, c->alpha, dA + off, lda, dB + off, ldb,
                                         c->beta, dC + off_c, ldc, dt);
        q.c_type = ct;
        const char *why = entry->can_serve(&q, hg__handle_device(h));
        refused = why != NULL && strstr(why, "beta = 0 only") != NULL;
    }
    if (ok) {
        CHECK(hg_set_kernel(h, kid) == HG_STATUS_SUCCESS, "%s: set_kernel", what);
        hg_status s;
        if (epilogue || compute != HG_COMPUTE_32F || ct != HG_C_AS_INPUTS) {
            hg_matmul_desc d = HG_MATMUL_DESC_INIT;
            d.opA = c->opA, d.opB = c->opB, d.m = c->m, d.n = c->n, d.k = c->k, d.alpha = c->alpha, d.beta = c->beta;
            d.A = dA + off, d.lda = lda, d.B = dB + off, d.ldb = ldb, d.C = dC + off_c, d.ldc = ldc, d.dtype = dt;
            d.bias = dBias, d.activation = act, d.compute = compute, d.c_type = ct;
            s = hg_matmul(h, &d);
        } else {
            s = hg_gemm(h, c->opA, c->opB, c->m, c->n, c->k, c->alpha, dA + off, lda, dB + off, ldb, c->beta,
                        dC + off_c, ldc, dt);
        }
        if (refused) {
            CHECK(s == HG_STATUS_NOT_SUPPORTED && strstr(hg_last_error(h), "beta = 0 only") != NULL,
                  "%s: refused as a lean row (%s: %s)", what, hg_status_string(s), hg_last_error(h));
            ok = cuda_ok(cudaMemcpy(hOut, dC + off_c, nc * eb, cudaMemcpyDeviceToHost), "copy C back");
            CHECK(ok && memcmp(hOut, hC, nc * eb) == 0, "%s: C untouched by the refused call", what);
        } else {
            CHECK(s == HG_STATUS_SUCCESS, "%s: %s (%s)", what, hg_status_string(s), hg_last_error(h));
            ok = s == HG_STATUS_SUCCESS && cuda_ok(cudaDeviceSynchronize(), what) &&
                 cuda_ok(cudaMemcpy(hOut, dC + off_c, nc * eb, cudaMemcpyDeviceToHost), "copy C back");
        }
    }
    if (ok && !refused) {
        hg__problem p =
            hg__problem_make(c->opA, c->opB, c->m, c->n, c->k, c->alpha, NULL, lda, NULL, ldb, c->beta, NULL, ldc, dt);
        p.bias = hBias; /* the reference reads host copies */
        p.act = act;
        p.compute = compute;
        p.c_type = ct;
        ok = hg_check_output(&p, hA, hB, hC, hOut, what);
    }
    cudaFree(dA), cudaFree(dB), cudaFree(dC), cudaFree(dBias);
    free(hA), free(hB), free(hC), free(hOut), free(hBias);
    return ok;
}

/* DESIGN.md's "Checking" shapes for the TN layout, which every kernel serves. */
static const gcase tn_cases[] = {
    {HG_OP_N, HG_OP_T, 128, 128, 64, 0, 1.0f, 0.0f, 0, 0, 0},     /* one tile */
    {HG_OP_N, HG_OP_T, 256, 640, 128, 0, 1.0f, 0.0f, 0, 0, 0},    /* tile multiples */
    {HG_OP_N, HG_OP_T, 1, 1, 1, 0, 1.0f, 0.0f, 0, 0, 0},          /* the smallest */
    {HG_OP_N, HG_OP_T, 1, 300, 64, 0, 1.0f, 0.0f, 0, 0, 0},       /* m of 1 */
    {HG_OP_N, HG_OP_T, 300, 1, 64, 0, 1.0f, 0.0f, 0, 0, 0},       /* n of 1 */
    {HG_OP_N, HG_OP_T, 200, 72, 1, 0, 1.0f, 0.0f, 0, 0, 0},       /* k of 1 */
    {HG_OP_N, HG_OP_T, 100, 320, 64, 0, 1.0f, 0.0f, 0, 0, 0},     /* a cluster's second tile wholly outside */
    {HG_OP_N, HG_OP_T, 300, 700, 130, 0, 1.0f, 0.0f, 0, 0, 0},    /* nothing a multiple */
    {HG_OP_N, HG_OP_T, 257, 329, 72, 8, -0.5f, 0.75f, 0, 0, 0},   /* beta != 0, alpha != 1, larger lds */
    {HG_OP_N, HG_OP_T, 128, 320, 40, 16, 2.0f, -1.0f, 0, 0, 0},   /* k below one block, beta */
    {HG_OP_N, HG_OP_T, 640, 960, 128, 0, 1.0f, 0.0f, 0, 0, 0},    /* k of 2 blocks: fewer than the stages */
    {HG_OP_N, HG_OP_T, 1000, 1000, 520, 24, 1.0f, 0.0f, 0, 0, 0}, /* k not a multiple of 64 */
    {HG_OP_N, HG_OP_T, 777, 555, 1000, 0, 1.0f, 1.0f, 0, 0, 0},
    {HG_OP_N, HG_OP_T, 2048, 2048, 2048, 0, 1.0f, 0.0f, 0, 0, 0}, /* large: sampled */
    {HG_OP_N, HG_OP_T, 4096, 4352, 1024, 0, 1.0f, 0.0f, 0, 0, 0}, /* more tiles than SMs, several rounds */
    /* short k over several tiles a CTA, where one tile's C stores overlap
     * the next tile's loads: n odd (C's last chunk copied out), alpha; then
     * k not a multiple of 64 */
    {HG_OP_N, HG_OP_T, 2000, 3001, 128, 0, 1.5f, 0.0f, 0, 0, 0},
    {HG_OP_N, HG_OP_T, 1100, 2100, 200, 0, 1.0f, 0.0f, 0, 0, 0},
    {HG_OP_N, HG_OP_T, 3000, 5000, 700, 8, 0.5f, 0.5f, 0, 0, 0},
    /* beta = 1 at alpha = 1 over several tiles a CTA: the interior beta
     * path without alpha's multiplies, its slots' phases carried from tile
     * to tile; k of three blocks, fewer than most rings' stages */
    {HG_OP_N, HG_OP_T, 2304, 4352, 192, 8, 1.0f, 1.0f, 0, 0, 0},
    {HG_OP_N, HG_OP_T, 128, 320, 64, 0, 0.0f, 0.5f, 0, 0, 0},    /* alpha = 0: A (holding a NaN) is not read */
};

/* Small shapes for compute-sanitizer (slow) and quick runs. */
static const gcase quick_cases[] = {
    {HG_OP_N, HG_OP_T, 100, 200, 72, 0, 1.0f, 0.0f, 0, 0, 0},
    {HG_OP_N, HG_OP_T, 300, 330, 130, 8, 1.0f, 0.5f, 0, 0, 0},
    {HG_OP_N, HG_OP_T, 128, 320, 64, 0, 1.0f, 0.0f, 0, 0, 0},
};

int gpu_kernel_selected(hg_kernel kid)
{
    return hg_gpu_kernel_filter == NULL || strcmp(hg_gpu_kernel_filter, hg_kernel_name(kid)) == 0 ||
           (kid >= HG_KERNEL_SM90_128X256X64_S4_C2X1_TN && strcmp(hg_gpu_kernel_filter, "family") == 0);
}

hg_handle gpu_handle(void)
{
    hg_handle h = NULL;
    hg_status s = hg_create(&h);
    CHECK(s == HG_STATUS_SUCCESS, "hg_create: %s", hg_last_error(NULL));
    return s == HG_STATUS_SUCCESS ? h : NULL;
}

int tn_operands_make(tn_operands *o, tn_shape s, hg_dtype dt)
{
    memset(o, 0, sizeof *o);
    o->s = s, o->dt = dt;
    size_t na = (size_t)(s.m * s.k), nb = (size_t)(s.n * s.k);
    o->nc = (size_t)(s.m * s.n);
    o->hA = (uint16_t *)malloc(na * 2);
    o->hB = (uint16_t *)malloc(nb * 2);
    if (!o->hA || !o->hB) {
        CHECK(0, "host allocation");
        return 0;
    }
    fill_random(o->hA, na, dt);
    fill_random(o->hB, nb, dt);
    return cuda_ok(cudaMalloc(&o->dA, na * 2), "cudaMalloc A") && cuda_ok(cudaMalloc(&o->dB, nb * 2), "cudaMalloc B") &&
           cuda_ok(cudaMemcpy(o->dA, o->hA, na * 2, cudaMemcpyHostToDevice), "copy A") &&
           cuda_ok(cudaMemcpy(o->dB, o->hB, nb * 2, cudaMemcpyHostToDevice), "copy B");
}

void tn_operands_free(tn_operands *o)
{
    cudaFree(o->dA), cudaFree(o->dB);
    free(o->hA), free(o->hB);
    memset(o, 0, sizeof *o);
}

hg_status tn_operands_gemm(hg_handle h, const tn_operands *o, void *dC)
{
    return hg_gemm(h, HG_OP_N, HG_OP_T, o->s.m, o->s.n, o->s.k, 1.0f, o->dA, o->s.k, o->dB, o->s.k, 0.0f, dC, o->s.n,
                   o->dt);
}

hg__problem tn_operands_problem(const tn_operands *o)
{
    return hg__problem_make(HG_OP_N, HG_OP_T, o->s.m, o->s.n, o->s.k, 1.0f, NULL, o->s.k, NULL, o->s.k, 0.0f, NULL,
                            o->s.n, o->dt);
}

/* The layout a kernel serves, from the kernel table (TN for AUTO). */
static void kernel_ops(hg_kernel kid, hg_op *opA, hg_op *opB)
{
    const hg__kernel_entry *e = hg__find_kernel(kid);
    *opA = e ? e->op_a : HG_OP_N, *opB = e ? e->op_b : HG_OP_T;
}

/* A case in the kernel's layout (the shapes are the same for every layout;
 * run_case derives the leading dimensions from the ops). */
static int run_case_as(hg_handle h, hg_kernel kid, const gcase *c, hg_dtype dt)
{
    gcase t = *c;
    kernel_ops(kid, &t.opA, &t.opB);
    return run_case(h, kid, &t, dt);
}

static void run_kernel_tn(hg_kernel kid)
{
    if (hg__find_kernel(kid) == NULL) SKIP("not registered in this build");
    if (!gpu_kernel_selected(kid)) SKIP("filtered out by --kernel");
    hg_handle h = gpu_handle();
    if (!h) return;
    const gcase *cases = hg_gpu_quick ? quick_cases : tn_cases;
    size_t n = hg_gpu_quick ? sizeof quick_cases / sizeof quick_cases[0] : sizeof tn_cases / sizeof tn_cases[0];
    for (int dt = 0; dt < 2; dt++)
        for (size_t i = 0; i < n; i++) run_case_as(h, kid, &cases[i], (hg_dtype)dt);
    hg_destroy(h);
}

static void test_v0(void) { run_kernel_tn(HG_KERNEL_V0); }
static void test_v1(void) { run_kernel_tn(HG_KERNEL_V1); }
static void test_v2(void) { run_kernel_tn(HG_KERNEL_V2); }
static void test_v3(void) { run_kernel_tn(HG_KERNEL_V3); }
static void test_v4(void) { run_kernel_tn(HG_KERNEL_V4); }
static void test_v5(void) { run_kernel_tn(HG_KERNEL_V5); }
/* V6's stream-K tail (tiling.h): shapes whose last round is split over the
 * clusters of a 132-SM H200 (66 clusters), pieces per tile from 2 to 5 (and
 * to 16 where a long k lets the family cut more),
 * k not a multiple of 64, a cluster's second tile wholly below C, beta. The
 * first two are small enough for compute-sanitizer. Run in sequence on one
 * handle, so a counter left non-zero by one launch breaks the next. */
static const gcase sk_cases[] = {
    {HG_OP_N, HG_OP_T, 100, 300, 1000, 0, 1.0f, 0.0f, 0, 0, 0},      /* 1 pair, 2 pieces, rank 1 below C */
    {HG_OP_N, HG_OP_T, 256, 320, 2048, 8, 1.0f, 0.5f, 0, 0, 0},      /* 1 pair, 4 pieces */
    {HG_OP_N, HG_OP_T, 512, 640, 8232, 8, 1.0f, 0.5f, 0, 0, 0},      /* 4 pairs over 16 clusters */
    {HG_OP_N, HG_OP_T, 2560, 2240, 8192, 0, 1.0f, 0.0f, 0, 0, 0},    /* 1 round of 66 + 4 pairs split */
    {HG_OP_N, HG_OP_T, 2500, 2000, 4000, 0, -0.5f, 0.75f, 0, 0, 0},  /* the same with every edge */
    {HG_OP_N, HG_OP_T, 4096, 4096, 4096, 0, 1.0f, 0.0f, 0, 0, 0},    /* 3 rounds + 10 pairs */
    {HG_OP_N, HG_OP_T, 8192, 8192, 8192, 0, 1.0f, 0.0f, 0, 0, 0},    /* 12 rounds + 40 pairs */
    /* a long k (hg_sk_split_for_k): 9 pieces a tile (a group of 8 and one
     * of 1 on the family's two-level fixup), then 16 a tile (2 groups of 8) */
    {HG_OP_N, HG_OP_T, 256, 256, 40000, 0, 1.0f, 0.0f, 0, 0, 0},
    {HG_OP_N, HG_OP_T, 128, 256, 65536, 8, 1.0f, 0.5f, 0, 0, 0},
};

/* The same call three times gives the same bits: the tail's partials are
 * summed in k order whichever piece finishes last. */
static void sk_repeatable(hg_handle h, hg_kernel kid)
{
    const char *kernel = hg_kernel_name(kid);
    const int64_t m = 512, n = 640, k = 8232;
    hg_op opA, opB;
    kernel_ops(kid, &opA, &opB);
    const int64_t lda = opA == HG_OP_N ? k : m, ldb = opB == HG_OP_T ? k : n;
    size_t na = (size_t)(m * k), nb = (size_t)(n * k), nc = (size_t)(m * n);
    uint16_t *hA = (uint16_t *)malloc(na * 2), *hB = (uint16_t *)malloc(nb * 2);
    uint16_t *out[3] = {(uint16_t *)malloc(nc * 2), (uint16_t *)malloc(nc * 2), (uint16_t *)malloc(nc * 2)};
    void *dA = NULL, *dB = NULL, *dC = NULL;
    int ok = hA && hB && out[0] && out[1] && out[2];
    CHECK(ok, "host allocation");
    if (ok) {
        fill_random(hA, na, HG_F16);
        fill_random(hB, nb, HG_F16);
        ok = cuda_ok(cudaMalloc(&dA, na * 2), "cudaMalloc A") && cuda_ok(cudaMalloc(&dB, nb * 2), "cudaMalloc B") &&
             cuda_ok(cudaMalloc(&dC, nc * 2), "cudaMalloc C") &&
             cuda_ok(cudaMemcpy(dA, hA, na * 2, cudaMemcpyHostToDevice), "copy A") &&
             cuda_ok(cudaMemcpy(dB, hB, nb * 2, cudaMemcpyHostToDevice), "copy B");
    }
    hg_matmul_desc d = HG_MATMUL_DESC_INIT;
    d.opA = opA, d.opB = opB, d.m = m, d.n = n, d.k = k, d.A = dA, d.lda = lda, d.B = dB, d.ldb = ldb;
    d.C = dC, d.ldc = n, d.dtype = HG_F16, d.compute = kernel_compute(kid);
    for (int r = 0; ok && r < 3; r++) {
        hg_status s = hg_matmul(h, &d);
        CHECK(s == HG_STATUS_SUCCESS, "repeat %d: %s", r, hg_last_error(h));
        ok = s == HG_STATUS_SUCCESS && cuda_ok(cudaMemcpy(out[r], dC, nc * 2, cudaMemcpyDeviceToHost), "copy C");
    }
    if (ok)
        CHECK(memcmp(out[0], out[1], nc * 2) == 0 && memcmp(out[0], out[2], nc * 2) == 0,
              "%s 512x640x8232 (stream-K tail) gives the same bits three times", kernel);
    cudaFree(dA), cudaFree(dB), cudaFree(dC);
    free(hA), free(hB), free(out[0]), free(out[1]), free(out[2]);
}

/* C whose rows break TMA's 16-byte rule (ldc not a multiple of 8, so every
 * other row starts off a 4-byte boundary; or C's base off 16 bytes), for a
 * kernel that writes C itself (V6, the family's _ct configurations): stream-K
 * tail and beta included; interior tiles (a _ct row's 16-byte units) at
 * every misalignment of a row's start, with alpha != 1, rows past m, and
 * tiles beside them on C's edge. */
static void run_odd_ldc(hg_handle h, hg_kernel kid)
{
    static const gcase odd_ldc[] = {
        {HG_OP_N, HG_OP_T, 300, 700, 130, 0, 1.0f, 0.0f, 0, 1, 0},
        {HG_OP_N, HG_OP_T, 257, 329, 72, 8, -0.5f, 0.75f, 0, 3, 0},
        {HG_OP_N, HG_OP_T, 1, 300, 64, 0, 1.0f, 0.0f, 0, 5, 0},
        {HG_OP_N, HG_OP_T, 512, 640, 8232, 8, 1.0f, 0.5f, 0, 1, 0},
        {HG_OP_N, HG_OP_T, 100, 300, 1024, 0, 1.0f, 0.0f, 0, 7, 0},
        {HG_OP_N, HG_OP_T, 200, 1000, 192, 0, 1.5f, 0.0f, 0, 3, 3},  /* C off 16 bytes too */
        {HG_OP_N, HG_OP_T, 390, 1030, 256, 0, 1.0f, 0.0f, 0, 0, 5}, /* an aligned ldc, C off 16 bytes */
        {HG_OP_N, HG_OP_T, 129, 2049, 64, 0, 1.0f, 0.0f, 0, 6, 1},  /* ldc 6 mod 8, one row past a tile */
    };
    for (int dt = 0; dt < 2; dt++)
        for (size_t i = 0; i < sizeof odd_ldc / sizeof odd_ldc[0]; i++) {
            if (hg_gpu_quick && i % 2) continue;
            run_case_as(h, kid, &odd_ldc[i], (hg_dtype)dt);
        }
}

/* Whether kid's can_serve takes a C that breaks TMA's rule (an odd ldc,
 * aligned A and B in its layout): then the odd-ldc cases are its to run. The
 * pointers are made up; can_serve reads none. */
static int serves_ragged_c(hg_handle h, hg_kernel kid)
{
    const hg__kernel_entry *e = hg__find_kernel(kid);
    hg_op opA, opB;
    kernel_ops(kid, &opA, &opB);
    const uintptr_t base = (uintptr_t)1 << 32, apart = (uintptr_t)1 << 40;
    hg__problem p = hg__problem_make(opA, opB, 300, 700, 136, 1.0f, (const void *)base, 704,
                                     (const void *)(base + apart), 704, 0.0f, (void *)(base + 2 * apart), 701, HG_F16);
    return e != NULL && e->can_serve(&p, hg__handle_device(h)) == NULL;
}

/* A persistent kernel with a stream-K tail (V6, the family's
 * configurations), both dtypes, in its layout: the TN shapes, the stream-K
 * shapes, the odd-ldc ones when it writes such a C, the same bits three
 * times. */
static void run_persistent(hg_kernel kid)
{
    run_kernel_tn(kid);
    hg_handle h = gpu_handle();
    if (!h) return;
    CHECK(hg_set_kernel(h, kid) == HG_STATUS_SUCCESS, "choose %s", hg_kernel_name(kid));
    size_t n = hg_gpu_quick ? 2 : sizeof sk_cases / sizeof sk_cases[0];
    for (int dt = 0; dt < 2; dt++)
        for (size_t i = 0; i < n; i++) {
            if (dt == 1 && sk_cases[i].m >= 8192) continue; /* the largest once */
            run_case_as(h, kid, &sk_cases[i], (hg_dtype)dt);
        }
    if (serves_ragged_c(h, kid)) run_odd_ldc(h, kid);
    if (!hg_gpu_quick) sk_repeatable(h, kid);
    hg_destroy(h);
}

static void test_v6(void)
{
    if (hg__find_kernel(HG_KERNEL_V6) == NULL) SKIP("not registered in this build");
    if (!gpu_kernel_selected(HG_KERNEL_V6)) SKIP("filtered out by --kernel");
    run_persistent(HG_KERNEL_V6);
}

/* Every configuration of the family (ids from HG_KERNEL_SM90_128X256X64_S4_C2X1_TN
 * on), as run_persistent runs V6 (a 128 x 256 tile with a 2 x 1 cluster
 * splits the last round at 8192^3, 2560 x 2240, 2500 x 2000 and the small
 * ones; 4096^3 runs whole tiles: tiling.h).
 * A cluster tile wholly outside C, k below the stage count, partial tiles
 * in m, n and k are in tn_cases; products of several GiB in gpu/large. */
static void test_family(void)
{
    int ran = 0;
    for (int i = 0; i < hg_kernel_count(); i++) {
        hg_kernel kid;
        hg_kernel_info(i, &kid, NULL);
        if (kid < HG_KERNEL_SM90_128X256X64_S4_C2X1_TN || !gpu_kernel_selected(kid)) continue;
        ran++;
        run_persistent(kid);
    }
    if (!ran) SKIP("no family configuration registered or selected");
}

/* The generic kernel: the TN shapes, then every layout, misaligned pointers,
 * odd leading dimensions, k = 0. */
static void test_generic(void)
{
    if (!gpu_kernel_selected(HG_KERNEL_GENERIC)) SKIP("filtered out by --kernel");
    run_kernel_tn(HG_KERNEL_GENERIC);
    hg_handle h = gpu_handle();
    if (!h) return;
    static const int64_t shapes[][4] = {
        /* m, n, k, pad */
        {1, 1, 1, 0},    {1, 77, 33, 1},  {77, 1, 33, 3},   {64, 64, 64, 0},    {130, 67, 35, 5},
        {200, 72, 1, 0}, {33, 45, 0, 2},  {256, 256, 8, 1}, {513, 257, 300, 7}, {1024, 768, 520, 0},
    };
    static const float ab[][2] = {{1.0f, 0.0f}, {-1.5f, 0.5f}};
    size_t nshapes = sizeof shapes / sizeof shapes[0];
    for (int layout = 0; layout < 4; layout++)
        for (int dt = 0; dt < 2; dt++)
            for (size_t s = 0; s < nshapes; s++) {
                if (hg_gpu_quick && s % 3 != 1) continue;
                gcase c;
                memset(&c, 0, sizeof c);
                c.opA = (hg_op)(layout & 1);
                c.opB = (hg_op)(layout >> 1);
                c.m = shapes[s][0];
                c.n = shapes[s][1];
                c.k = shapes[s][2];
                c.pad = shapes[s][3];
                c.alpha = ab[s % 2][0];
                c.beta = ab[s % 2][1];
                c.misalign = (int)(s % 3 == 2);
                run_case(h, HG_KERNEL_GENERIC, &c, (hg_dtype)dt);
            }
    /* alpha = 0: C = beta C whatever A holds (a NaN is planted in A). */
    gcase a0 = {HG_OP_N, HG_OP_T, 130, 200, 64, 0, 0.0f, 0.5f, 0, 0, 0};
    run_case(h, HG_KERNEL_GENERIC, &a0, HG_F16);
    run_case(h, HG_KERNEL_AUTO, &a0, HG_BF16);
    /* k = 0: C = beta C, with beta = 0 writing zeros over NaN. */
    gcase z = {HG_OP_N, HG_OP_T, 70, 90, 0, 3, 1.0f, 0.0f, 0, 0, 0};
    run_case(h, HG_KERNEL_GENERIC, &z, HG_F16);
    z.beta = -2.0f;
    run_case(h, HG_KERNEL_GENERIC, &z, HG_BF16);
    hg_destroy(h);
}

/* hg_matmul's epilogue (bias, ReLU, GELU) on every kernel that fuses one,
 * in its layout: partial tiles, beta, m of 1, a stream-K tail, a decode-sized
 * m; k = 0 through AUTO; a kernel of the series refuses it. */
static const gcase epilogue_cases[] = {
    {HG_OP_N, HG_OP_T, 300, 700, 130, 0, 1.0f, 0.0f, 0, 0, 0},    /* nothing a multiple */
    {HG_OP_N, HG_OP_T, 257, 329, 72, 8, -0.5f, 0.75f, 0, 0, 0},   /* beta, alpha */
    {HG_OP_N, HG_OP_T, 1, 300, 64, 0, 1.0f, 0.0f, 0, 0, 0},       /* m of 1 */
    {HG_OP_N, HG_OP_T, 2100, 2100, 96, 0, 1.5f, 0.0f, 0, 0, 0},   /* interior tiles at alpha != 1, several a CTA */
    {HG_OP_N, HG_OP_T, 2560, 2240, 1030, 0, 1.0f, 0.0f, 0, 0, 0}, /* a stream-K tail: sampled */
};

static int epilogue_on(hg_handle h, hg_kernel kid, const char *name, const hg__kernel_entry *e)
{
    static const struct {
        int bias;
        hg_activation act;
    } epis[] = {{1, HG_ACT_NONE}, {0, HG_ACT_RELU}, {0, HG_ACT_GELU_TANH}, {1, HG_ACT_GELU_TANH}, {1, HG_ACT_RELU}};
    const size_t ncases = sizeof epilogue_cases / sizeof epilogue_cases[0], nepis = sizeof epis / sizeof epis[0];
    if (e && !e->fuses_epilogue) {
        /* Refused with a sentence, nothing launched. */
        hg_matmul_desc d = HG_MATMUL_DESC_INIT;
        d.opA = e->op_a, d.opB = e->op_b, d.m = 64, d.n = 64, d.k = 64, d.alpha = 1.0f;
        d.A = (void *)(uintptr_t)0x100000, d.B = (void *)(uintptr_t)0x200000, d.C = (void *)(uintptr_t)0x300000;
        d.lda = d.ldb = d.ldc = 64, d.dtype = HG_F16;
        d.activation = HG_ACT_RELU;
        CHECK(hg_set_kernel(h, kid) == HG_STATUS_SUCCESS, "%s: set_kernel", name);
        const hg_status st = hg_matmul(h, &d);
        CHECK(st == HG_STATUS_NOT_SUPPORTED && strstr(hg_last_error(h), "activation") != NULL,
              "%s refuses an epilogue: %s (%s)", name, hg_status_string(st), hg_last_error(h));
        return 1;
    }
    for (int dt = 0; dt < 2; dt++)
        for (size_t c = 0; c < ncases; c++) {
            if (hg_gpu_quick && c == ncases - 1) continue;
            /* Each case with two of the epilogues, all of them over the cases. */
            for (size_t k = 0; k < 2; k++) {
                const size_t which = (c * 2 + k + (size_t)dt) % nepis;
                gcase t = epilogue_cases[c];
                if (e) t.opA = e->op_a, t.opB = e->op_b;
                run_case_epi(h, kid, &t, (hg_dtype)dt, epis[which].bias, epis[which].act);
            }
        }
    if (!e || e->writes_f32) {
        /* An fp32 C (HG_C_F32), each case once without an epilogue and once
         * with one: beta reads the old C as fp32, n = 329 leaves a chunk
         * past TMA's 16 bytes (the copy-out). */
        for (int dt = 0; dt < 2; dt++)
            for (size_t c = 0; c < ncases; c++) {
                if (hg_gpu_quick && c == ncases - 1) continue;
                gcase t = epilogue_cases[c];
                if (e) t.opA = e->op_a, t.opB = e->op_b;
                const size_t which = (c + (size_t)dt) % nepis;
                run_case_c(h, kid, &t, (hg_dtype)dt, 0, HG_ACT_NONE, HG_C_F32);
                run_case_c(h, kid, &t, (hg_dtype)dt, epis[which].bias, epis[which].act, HG_C_F32);
            }
    }
    if (kid == HG_KERNEL_AUTO) {
        /* k = 0: C = act(beta C + bias); beta = 1 is not a no-op here. */
        gcase z = {HG_OP_N, HG_OP_T, 70, 90, 0, 3, 1.0f, 1.0f, 0, 0, 0};
        run_case_epi(h, HG_KERNEL_AUTO, &z, HG_F16, 1, HG_ACT_GELU_TANH);
        run_case_c(h, HG_KERNEL_AUTO, &z, HG_BF16, 1, HG_ACT_GELU_TANH, HG_C_F32);
        z.beta = 0.0f;
        run_case_epi(h, HG_KERNEL_AUTO, &z, HG_BF16, 1, HG_ACT_RELU);
        /* An fp32 C off TMA's rules (ldc odd, C off 16 bytes): GENERIC;
         * other layouts and a decode-sized m: whatever AUTO finds. */
        gcase f = {HG_OP_N, HG_OP_T, 200, 333, 150, 0, 1.0f, 0.5f, 0, 1, 0};
        run_case_c(h, HG_KERNEL_AUTO, &f, HG_F16, 1, HG_ACT_NONE, HG_C_F32);
        f.ldc_extra = 0, f.misalign = 1;
        run_case_c(h, HG_KERNEL_AUTO, &f, HG_BF16, 0, HG_ACT_RELU, HG_C_F32);
        static const gcase more[] = {
            {HG_OP_N, HG_OP_N, 512, 640, 256, 0, 1.0f, 0.0f, 0, 0, 0},
            {HG_OP_T, HG_OP_T, 384, 512, 320, 0, 1.0f, 0.5f, 0, 0, 0},
            {HG_OP_T, HG_OP_N, 256, 256, 130, 0, 1.0f, 0.0f, 0, 0, 0},
            {HG_OP_N, HG_OP_T, 1, 4096, 4096, 0, 1.0f, 0.0f, 0, 0, 0},
            {HG_OP_N, HG_OP_T, 64, 2048, 8200, 0, 1.0f, 1.0f, 0, 0, 0},
            /* the 64 x 8 k split over many rounds (hg__k_split_rounds)
             * with an fp32 C, a bias and GELU */
            {HG_OP_N, HG_OP_T, 3, 17001, 4104, 0, 1.0f, 0.5f, 0, 0, 0},
        };
        for (size_t i = 0; i < sizeof more / sizeof more[0]; i++)
            run_case_c(h, HG_KERNEL_AUTO, &more[i], (hg_dtype)(i % 2), (int)(i % 2), HG_ACT_GELU_TANH, HG_C_F32);
    }
    return 1;
}

static void test_epilogue(void)
{
    if (gpu_each_kernel(epilogue_on) == 0) SKIP("filtered out by --kernel");
}

/* AUTO: right on what the V-kernels serve and on what only generic serves. */
static void test_auto(void)
{
    if (!gpu_kernel_selected(HG_KERNEL_AUTO)) SKIP("filtered out by --kernel");
    hg_handle h = gpu_handle();
    if (!h) return;
    static const gcase cases[] = {
        {HG_OP_N, HG_OP_T, 1000, 1000, 520, 0, 1.0f, 0.0f, 0, 0, 0},
        {HG_OP_N, HG_OP_T, 333, 444, 555, 0, 1.0f, 0.0f, 1, 0, 0},
        {HG_OP_T, HG_OP_N, 333, 444, 555, 0, 1.0f, 0.0f, 0, 0, 0},
        {HG_OP_N, HG_OP_N, 100, 100, 100, 3, 1.0f, 1.0f, 0, 0, 0},
        {HG_OP_T, HG_OP_T, 64, 64, 0, 0, 1.0f, 0.25f, 0, 0, 0},
        /* aligned leading dimensions: the family's TT, NN, NT configurations;
         * an odd ldc: its _ct one */
        {HG_OP_N, HG_OP_N, 512, 640, 256, 0, 1.0f, 0.0f, 0, 0, 0},
        {HG_OP_T, HG_OP_T, 384, 512, 320, 0, 1.0f, 0.5f, 0, 0, 0},
        {HG_OP_T, HG_OP_N, 256, 256, 130, 0, 1.0f, 0.0f, 0, 0, 0},
        {HG_OP_N, HG_OP_T, 300, 704, 136, 0, 1.0f, 0.0f, 0, 1, 0},
        /* an odd lda or ldb with an aligned ldc: the layout's configuration on
         * a copy of A (TT, NT) or B (NN) (src/repack.c); then TN with every
         * leading dimension odd and a stream-K tail: the _ct configuration on
         * copies of both, the copies behind the counters */
        {HG_OP_N, HG_OP_N, 300, 637, 256, 3, 1.0f, 0.5f, 0, 0, 0},
        {HG_OP_T, HG_OP_T, 301, 509, 250, 3, 1.0f, 0.0f, 0, 0, 0},
        {HG_OP_T, HG_OP_N, 250, 509, 130, 3, 1.0f, 0.0f, 0, 0, 0},
        {HG_OP_N, HG_OP_T, 2560, 2240, 1030, 1, 1.0f, 0.0f, 0, 0, 0},
        /* decode-sized m: the swapped configurations (C^T = B A^T), their
         * tiles split along k (stream-K; k not a multiple of the split or
         * of 64), beta, an odd ldc, n = 1; m = 65 and 120: the unswapped
         * 128 x 128 and the swapped 128 x 128 */
        {HG_OP_N, HG_OP_T, 1, 4096, 4096, 0, 1.0f, 0.0f, 0, 0, 0},
        {HG_OP_N, HG_OP_T, 7, 1000, 2056, 0, 1.0f, 0.5f, 0, 0, 0},
        {HG_OP_N, HG_OP_T, 16, 1, 520, 0, 1.0f, 0.0f, 0, 0, 0},
        {HG_OP_N, HG_OP_T, 30, 2304, 4104, 0, 2.0f, 0.0f, 0, 1, 0},
        {HG_OP_N, HG_OP_T, 64, 2048, 8200, 0, 1.0f, 1.0f, 0, 0, 0},
        /* m <= 8 over many rounds of a long k: the 64 x 8 k split over
         * 2-CTA clusters (hg__k_split_rounds), an odd n and ldc, beta */
        {HG_OP_N, HG_OP_T, 3, 17001, 4104, 0, 1.0f, 0.5f, 0, 0, 0},
        {HG_OP_N, HG_OP_T, 65, 512, 1000, 0, 1.0f, 0.0f, 0, 0, 0},
        {HG_OP_N, HG_OP_T, 120, 4096, 8200, 0, 1.0f, 0.5f, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (int dt = 0; dt < 2; dt++) run_case(h, HG_KERNEL_AUTO, &cases[i], (hg_dtype)dt);
    hg_destroy(h);
}

/* The copy behind a repacked operand (kernels/repack.cu), bit for bit: every
 * misalignment of the source (0 to 7 elements past 16 bytes) and row
 * lengths around its 8-element items, with odd and even source pitches, the
 * destination's padding left as it was. */
static void test_repack(void)
{
    if (!gpu_kernel_selected(HG_KERNEL_AUTO)) SKIP("filtered out by --kernel");
    static const int64_t cols_list[] = {1, 7, 8, 9, 15, 16, 17, 24, 250, 1031};
    enum { ROWS = 5, MAX_COLS = 1031, MAX_LD = MAX_COLS + 3, SHIFTS = 8 };
    const size_t src_elems = (size_t)ROWS * MAX_LD + SHIFTS, dst_ld = (MAX_COLS + 7) / 8 * 8;
    const size_t dst_elems = (size_t)ROWS * dst_ld;
    uint16_t *hs = malloc(src_elems * 2), *hd = malloc(dst_elems * 2);
    uint16_t *ds = NULL, *dd = NULL;
    int dev_sm = 0;
    if (!hs || !hd || !cuda_ok(cudaMalloc((void **)&ds, src_elems * 2), "malloc src") ||
        !cuda_ok(cudaMalloc((void **)&dd, dst_elems * 2), "malloc dst") ||
        !cuda_ok(cudaDeviceGetAttribute(&dev_sm, cudaDevAttrMultiProcessorCount, 0), "sm count"))
        goto out;
    fill_random(hs, src_elems, HG_F16);
    if (!cuda_ok(cudaMemcpy(ds, hs, src_elems * 2, cudaMemcpyHostToDevice), "upload")) goto out;
    for (size_t ci = 0; ci < sizeof cols_list / sizeof cols_list[0]; ci++)
        for (int64_t extra = 0; extra < 2; extra++)
            for (int shift = 0; shift < SHIFTS; shift++) {
                const int64_t cols = cols_list[ci], ld = cols + extra + 1; /* odd and even pitches */
                hg__err e;
                if (!cuda_ok(cudaMemset(dd, 0xAB, dst_elems * 2), "memset")) goto out;
                const hg_status st = hg__repack_rows(dd, (int64_t)dst_ld, ds + shift, ld, ROWS, cols, dev_sm, NULL, &e);
                CHECK(st == HG_STATUS_SUCCESS, "repack launch: %s", e.msg);
                if (st != HG_STATUS_SUCCESS ||
                    !cuda_ok(cudaMemcpy(hd, dd, dst_elems * 2, cudaMemcpyDeviceToHost), "download"))
                    goto out;
                int bad = 0;
                for (int64_t r = 0; r < ROWS && !bad; r++)
                    for (int64_t c = 0; c < (int64_t)dst_ld; c++) {
                        const uint16_t want = c < cols ? hs[shift + r * ld + c] : 0xABABu;
                        if (hd[r * dst_ld + c] != want) {
                            CHECK(0, "repack cols %lld ld %lld shift %d: row %lld col %lld is %04x, want %04x",
                                  (long long)cols, (long long)ld, shift, (long long)r, (long long)c,
                                  hd[r * dst_ld + c], want);
                            bad = 1;
                            break;
                        }
                    }
            }
out:
    cudaFree(ds);
    cudaFree(dd);
    free(hs);
    free(hd);
}

/* A long k over few tiles: AUTO splits k into slices, one batched launch of
 * fp32 partials and one launch that sums them (src/slices.c). Each case
 * first asks the plan (a case that stops being sliced is a failure here,
 * not a silent loss of coverage), then runs and checks against float64:
 * both dtypes, every layout, beta, alpha, the epilogue, an fp32 C, an n
 * that is not a multiple of the partials' float4s, an odd ldc. k that no
 * slice count divides evenly runs unsliced, and is checked as well. */
typedef struct {
    gcase c;
    int with_bias;
    hg_activation act;
    hg_c_type ct;
    int sliced; /* what the plan must say */
} slice_case;

static int64_t planned_slices(hg_handle h, const gcase *c, hg_dtype dt, int with_bias, hg_activation act,
                              hg_c_type ct)
{
    const int64_t cols_a = c->opA == HG_OP_N ? c->k : c->m, cols_b = c->opB == HG_OP_N ? c->n : c->k;
    hg_matmul_desc d = HG_MATMUL_DESC_INIT;
    /* as run_case_c lays the call out (16-byte aligned made-up pointers: the
     * plan reads none) */
    d.opA = c->opA, d.opB = c->opB, d.m = c->m, d.n = c->n, d.k = c->k, d.alpha = c->alpha, d.beta = c->beta;
    d.A = (const void *)(uintptr_t)0x100000000ull, d.lda = round_up(cols_a + c->pad, 8);
    d.B = (const void *)(uintptr_t)0x200000000ull, d.ldb = round_up(cols_b + c->pad, 8);
    d.C = (void *)(uintptr_t)0x300000000ull, d.ldc = c->n + c->pad + c->ldc_extra, d.dtype = dt;
    d.bias = with_bias ? (const void *)(uintptr_t)0x400000000ull : NULL, d.activation = act, d.c_type = ct;
    int64_t slices = -1;
    const hg_status st = hg__matmul_plan_slices(h, &d, &slices);
    CHECK(st == HG_STATUS_SUCCESS, "plan_slices: %s (%s)", hg_status_string(st), hg_last_error(h));
    return slices;
}

static void test_slices(void)
{
    if (!gpu_kernel_selected(HG_KERNEL_AUTO)) SKIP("filtered out by --kernel");
    hg_handle h = gpu_handle();
    if (!h) return;
    static const slice_case cases[] = {
        {{HG_OP_N, HG_OP_T, 200, 250, 16384, 0, 2.0f, 1.0f, 0, 0, 0}, 0, HG_ACT_NONE, HG_C_AS_INPUTS, 1},
        {{HG_OP_N, HG_OP_T, 192, 130, 16384, 1, 1.0f, 0.5f, 0, 1, 0}, 1, HG_ACT_GELU_TANH, HG_C_AS_INPUTS, 1},
        {{HG_OP_N, HG_OP_T, 192, 256, 16384, 0, 1.0f, 0.5f, 0, 0, 0}, 1, HG_ACT_RELU, HG_C_F32, 1},
        {{HG_OP_N, HG_OP_T, 256, 256, 16384, 0, 1.0f, 0.0f, 0, 0, 0}, 0, HG_ACT_NONE, HG_C_AS_INPUTS, 1},
        {{HG_OP_T, HG_OP_T, 128, 256, 16384, 0, 1.0f, 0.0f, 0, 0, 0}, 0, HG_ACT_NONE, HG_C_AS_INPUTS, 1},
        {{HG_OP_N, HG_OP_N, 256, 128, 16384, 0, 1.0f, 0.0f, 0, 0, 0}, 0, HG_ACT_NONE, HG_C_AS_INPUTS, 1},
        {{HG_OP_T, HG_OP_N, 256, 256, 16384, 0, 1.0f, 1.0f, 0, 0, 0}, 1, HG_ACT_NONE, HG_C_AS_INPUTS, 1},
        /* m = k with A MN-major, n = k with B MN-major: the stored columns
         * equal k, and the slices must still step whole rows down */
        {{HG_OP_T, HG_OP_N, 2048, 256, 2048, 0, 1.0f, 0.0f, 0, 0, 0}, 0, HG_ACT_NONE, HG_C_AS_INPUTS, 1},
        {{HG_OP_N, HG_OP_N, 128, 2048, 2048, 0, 1.0f, 0.0f, 0, 0, 0}, 0, HG_ACT_NONE, HG_C_AS_INPUTS, 1},
        /* k = 8 x 2039 (a prime): no cut into slices of whole 16-byte rows of
         * 512 or more; the kernel's own split */
        {{HG_OP_N, HG_OP_T, 256, 256, 16312, 0, 1.0f, 0.0f, 0, 0, 0}, 0, HG_ACT_NONE, HG_C_AS_INPUTS, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (int dt = 0; dt < 2; dt++) {
            const slice_case *sc = &cases[i];
            const int64_t slices = planned_slices(h, &sc->c, (hg_dtype)dt, sc->with_bias, sc->act, sc->ct);
            CHECK((slices > 0) == (sc->sliced != 0), "case %zu %s: the plan runs it in %lld k slices, expected %s", i,
                  dt ? "bf16" : "f16", (long long)slices, sc->sliced ? "some" : "none");
            run_case_c(h, HG_KERNEL_AUTO, &sc->c, (hg_dtype)dt, sc->with_bias, sc->act, sc->ct);
        }
    hg_destroy(h);
}

/* A stream set with hg_set_stream is the one the work runs on. */
static void test_stream(void)
{
    if (!gpu_kernel_selected(HG_KERNEL_AUTO)) SKIP("filtered out by --kernel");
    hg_handle h = gpu_handle();
    if (!h) return;
    cudaStream_t st;
    if (!cuda_ok(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), "stream")) return;
    CHECK(hg_set_stream(h, (struct CUstream_st *)st) == HG_STATUS_SUCCESS, "set_stream");
    gcase c = {HG_OP_N, HG_OP_T, 512, 512, 512, 0, 1.0f, 0.0f, 0, 0, 0};
    run_case(h, HG_KERNEL_AUTO, &c, HG_F16);
    cudaStreamDestroy(st);
    hg_destroy(h);
}

/* Matrices of more than 2^31 elements: 64-bit index arithmetic. C of
 * 65600 x 32776 (2.15e9 elements, 4.3 GB) with a small k; for generic also A
 * of 2^31+ elements with a small n. Sampled checks reach the far corners.
 * Each kernel costs several GiB of fills and copies, so an unfiltered run
 * (make test) takes the kernels AUTO runs on such shapes and generic; with
 * --kernel NAME (tools/gpu-check.sh runs every kernel so) any kernel. */
static int large_by_default(hg_kernel kid)
{
    return kid == HG_KERNEL_GENERIC || kid == HG_KERNEL_V6 || kid == HG_KERNEL_SM90_128X256X64_S4_C2X1_TN ||
           kid == HG_KERNEL_SM90_128X128X64_S6_C2X1_TN;
}

static void test_large(void)
{
    if (hg_gpu_quick) SKIP("--quick");
    hg_handle h = gpu_handle();
    if (!h) return;
    for (int i = 0; i < hg_kernel_count(); i++) {
        hg_kernel kid;
        const char *name = hg_kernel_info(i, &kid, NULL);
        if (hg_gpu_kernel_filter ? strcmp(hg_gpu_kernel_filter, name) != 0 : !large_by_default(kid)) continue;
        gcase c = {HG_OP_N, HG_OP_T, 65600, 32776, 72, 0, 1.0f, 0.0f, 0, 0, 0};
        run_case_as(h, kid, &c, HG_F16);
        if (kid == HG_KERNEL_GENERIC) {
            gcase t = {HG_OP_T, HG_OP_N, 40, 40000, 72, 0, 1.0f, 0.0f, 0, 0, 0};
            run_case(h, kid, &t, HG_BF16); /* NT: index math of both transposed loads */
        }
        gcase a = {HG_OP_N, HG_OP_T, 262151, 24, 8200, 0, 1.0f, 0.0f, 0, 0, 0};
        run_case_as(h, kid, &a, HG_BF16);
    }
    hg_destroy(h);
}

int gpu_each_kernel(int (*fn)(hg_handle h, hg_kernel kid, const char *name, const hg__kernel_entry *e))
{
    hg_handle h = gpu_handle();
    if (!h) return -1;
    int ran = 0;
    for (int i = 0; i <= hg_kernel_count(); i++) {
        hg_kernel kid = HG_KERNEL_AUTO;
        const char *name = i < hg_kernel_count() ? hg_kernel_info(i, &kid, NULL) : "auto";
        if (!gpu_kernel_selected(kid)) continue;
        ran += fn(h, kid, name, kid == HG_KERNEL_AUTO ? NULL : hg__find_kernel(kid));
    }
    hg_destroy(h);
    return ran;
}

const hg_test_case hg_gpu_tests[] = {
    {"gpu/generic", test_generic}, {"gpu/v0", test_v0},       {"gpu/v1", test_v1},       {"gpu/v2", test_v2},
    {"gpu/v3", test_v3},           {"gpu/v4", test_v4},       {"gpu/v5", test_v5},       {"gpu/v6", test_v6},
    {"gpu/family", test_family},   {"gpu/auto", test_auto},   {"gpu/epilogue", test_epilogue},
    {"gpu/batched", test_batched},
    {"gpu/repack", test_repack},   {"gpu/slices", test_slices}, {"gpu/stream", test_stream},
    {"gpu/large", test_large},     {"gpu/stagger", test_stagger},
};
const int hg_gpu_test_count = (int)(sizeof hg_gpu_tests / sizeof hg_gpu_tests[0]);
