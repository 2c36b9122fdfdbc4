/*
 * The GPU tier's strided batches (hg_matmul's batch_count): every kernel
 * that runs a batch, on products with partial tiles, a decode-sized m, a
 * stream-K split, strides with gaps, a bias per product; each product
 * checked against the float64 reference and the gaps between C's products
 * left untouched; a shared A or B (stride 0); products of A and B that
 * overlap (strides shorter than a matrix). Strides TMA cannot step by run
 * GENERIC under AUTO, and a family kernel chosen by hand refuses them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_common.h"
#include "testlib.h"

enum { SHARE_A = 1, SHARE_B = 2 };
enum { OVERLAP_NONE, OVERLAP_HALF_ROWS, OVERLAP_8 };

typedef struct {
    int64_t batch;
    int64_t gap;  /* elements between one product's A (B, C) and the next's */
    int share;    /* SHARE_A, SHARE_B: that operand's stride 0, one matrix for every product */
    int overlap;  /* OVERLAP_HALF_ROWS, OVERLAP_8: A's and B's products (those not shared) that far apart */
    int bias;     /* a bias per product (stride_bias = n) */
    hg_activation act;
    hg_c_type ct; /* C's elements (the gap counts them) */
} batch_spec;

/* One operand's batch stride (elements): 0 where shared; with an overlap,
 * half its rows or 8 elements, so that products share elements; else a
 * whole matrix and the gap. */
static int64_t operand_stride(const batch_spec *bs, int share, int64_t rows, int64_t ld)
{
    if (bs->share & share) return 0;
    if (bs->overlap == OVERLAP_HALF_ROWS) return rows / 2 * ld;
    if (bs->overlap == OVERLAP_8) return 8;
    return rows * ld + bs->gap;
}

/* Runs c as a batch on kid; 1 when it ran and every product passed, 0 when
 * it failed, -1 when the kernel refused it (the status goes to *refused). */
static int run_batch_case(hg_handle h, hg_kernel kid, const gcase *c, hg_dtype dt, const batch_spec *bs,
                          hg_status *refused)
{
    const hg_compute compute = kernel_compute(kid);
    if (compute == HG_COMPUTE_16F && dt != HG_F16) return 1; /* as run_case_epi */
    const int64_t rows_a = c->opA == HG_OP_N ? c->m : c->k, cols_a = c->opA == HG_OP_N ? c->k : c->m;
    const int64_t rows_b = c->opB == HG_OP_N ? c->k : c->n, cols_b = c->opB == HG_OP_N ? c->n : c->k;
    /* Leading dimensions multiples of 8 (TMA's rule), so the strides decide. */
    const int64_t lda = (cols_a + c->pad + 7) / 8 * 8, ldb = (cols_b + c->pad + 7) / 8 * 8;
    const int64_t ldc = (c->n + c->pad + 7) / 8 * 8;
    const int64_t na1 = rows_a * lda, nb1 = rows_b * ldb, nc1 = c->m * ldc;
    const int64_t sa = operand_stride(bs, SHARE_A, rows_a, lda), sb = operand_stride(bs, SHARE_B, rows_b, ldb);
    const int64_t sc = nc1 + bs->gap;
    const int64_t sbias = bs->bias ? c->n : 0;
    const int64_t na = (bs->batch - 1) * sa + na1, nb = (bs->batch - 1) * sb + nb1, nc = (bs->batch - 1) * sc + nc1;
    const int64_t nbias = bs->bias ? bs->batch * c->n : 0;
    const size_t eb = bs->ct == HG_C_F32 ? 4 : 2; /* C's element */
    uint16_t *hA = malloc((size_t)na * 2), *hB = malloc((size_t)nb * 2);
    char *hC = malloc((size_t)nc * eb), *hOut = malloc((size_t)nc * eb);
    uint16_t *hBias = nbias ? malloc((size_t)nbias * 2) : NULL;
    char *dA = NULL, *dB = NULL, *dC = NULL, *dBias = NULL;
    int ok = hA && hB && hC && hOut && (!nbias || hBias);
    CHECK(ok, "host allocation for a batch of %lld", (long long)bs->batch);
    if (ok) {
        fill_random(hA, (size_t)na, dt);
        fill_random(hB, (size_t)nb, dt);
        if (hBias) fill_random(hBias, (size_t)nbias, dt);
        /* Everything that is no product's element of C is a sentinel. */
        for (int64_t e = 0; e < nc; e++) {
            const int64_t in = e % sc, col = in % ldc;
            const int inside = in < nc1 && col < c->n;
            uint32_t old = rand_elem(dt);
            if (bs->ct == HG_C_F32) {
                const float f = hg__to_f32((uint16_t)old, dt);
                memcpy(&old, &f, sizeof old);
            }
            c_put(hC, e, bs->ct, !inside ? c_sentinel(bs->ct) : c->beta != 0.0f ? old : c_poison(bs->ct));
        }
        ok = cuda_ok(cudaMalloc((void **)&dA, (size_t)na * 2), "cudaMalloc A") &&
             cuda_ok(cudaMalloc((void **)&dB, (size_t)nb * 2), "cudaMalloc B") &&
             cuda_ok(cudaMalloc((void **)&dC, (size_t)nc * eb), "cudaMalloc C") &&
             (!nbias || cuda_ok(cudaMalloc((void **)&dBias, (size_t)nbias * 2), "cudaMalloc bias")) &&
             cuda_ok(cudaMemcpy(dA, hA, (size_t)na * 2, cudaMemcpyHostToDevice), "copy A") &&
             cuda_ok(cudaMemcpy(dB, hB, (size_t)nb * 2, cudaMemcpyHostToDevice), "copy B") &&
             cuda_ok(cudaMemcpy(dC, hC, (size_t)nc * eb, cudaMemcpyHostToDevice), "copy C") &&
             (!nbias || cuda_ok(cudaMemcpy(dBias, hBias, (size_t)nbias * 2, cudaMemcpyHostToDevice), "copy bias"));
    }
    char what[240];
    snprintf(what, sizeof what, "%s %s%s %s batch %lld of m=%lld n=%lld k=%lld gap=%lld%s%s%s%s%s%s", hg_kernel_name(kid),
             c->opA == HG_OP_N ? "T" : "N", c->opB == HG_OP_N ? "T" : "N", dt == HG_BF16 ? "bf16" : "f16",
             (long long)bs->batch, (long long)c->m, (long long)c->n, (long long)c->k, (long long)bs->gap,
             bs->share & SHARE_A ? " shared A" : "", bs->share & SHARE_B ? " shared B" : "",
             bs->overlap == OVERLAP_HALF_ROWS ? " half rows apart" : bs->overlap == OVERLAP_8 ? " 8 apart" : "",
             bs->bias ? " bias" : "", bs->act == HG_ACT_GELU_TANH ? " gelu" : "", bs->ct == HG_C_F32 ? " c=f32" : "");
    int result = 0;
    if (ok) {
        hg_matmul_desc d = HG_MATMUL_DESC_INIT;
        d.opA = c->opA, d.opB = c->opB, d.m = c->m, d.n = c->n, d.k = c->k, d.alpha = c->alpha, d.beta = c->beta;
        d.A = dA, d.lda = lda, d.B = dB, d.ldb = ldb, d.C = dC, d.ldc = ldc, d.dtype = dt;
        d.bias = dBias, d.activation = bs->act;
        d.batch_count = bs->batch, d.stride_a = sa, d.stride_b = sb, d.stride_c = sc, d.stride_bias = sbias;
        d.compute = compute, d.c_type = bs->ct;
        CHECK(hg_set_kernel(h, kid) == HG_STATUS_SUCCESS, "%s: set_kernel", what);
        const hg_status s = hg_matmul(h, &d);
        if (s == HG_STATUS_NOT_SUPPORTED && refused) {
            *refused = s;
            result = -1;
        } else {
            CHECK(s == HG_STATUS_SUCCESS, "%s: %s (%s)", what, hg_status_string(s), hg_last_error(h));
            ok = s == HG_STATUS_SUCCESS && cuda_ok(cudaDeviceSynchronize(), what) &&
                 cuda_ok(cudaMemcpy(hOut, dC, (size_t)nc * eb, cudaMemcpyDeviceToHost), "copy C back");
        }
    }
    if (ok && result == 0) {
        result = 1;
        int64_t gap_hit = 0;
        for (int64_t i = 0; i < bs->batch; i++) {
            hg__problem p = hg__problem_make(c->opA, c->opB, c->m, c->n, c->k, c->alpha, NULL, lda, NULL, ldb,
                                             c->beta, NULL, ldc, dt);
            p.bias = hBias ? hBias + i * sbias : NULL;
            p.act = bs->act;
            p.compute = compute, p.c_type = bs->ct;
            char each[280];
            snprintf(each, sizeof each, "%s, product %lld", what, (long long)i);
            result &= hg_check_output(&p, hA + i * sa, hB + i * sb, hC + (size_t)(i * sc) * eb,
                                      hOut + (size_t)(i * sc) * eb, each);
            for (int64_t e = i * sc + nc1; e < (i + 1) * sc && e < nc; e++)
                gap_hit += c_get(hOut, e, bs->ct) != c_sentinel(bs->ct);
        }
        CHECK(gap_hit == 0, "%s: %lld elements between C's products overwritten", what, (long long)gap_hit);
        result &= gap_hit == 0;
    }
    cudaFree(dA), cudaFree(dB), cudaFree(dC), cudaFree(dBias);
    free(hA), free(hB), free(hC), free(hOut), free(hBias);
    return result;
}

/* run_batch_case, and where a lean row refuses beta (it serves beta = 0
 * only; gpu/family checks that refusal) the same batch again without the
 * old C. -1: refused, hg_last_error says why. */
static int run_batch_case_lean(hg_handle h, hg_kernel kid, const gcase *c, hg_dtype dt, const batch_spec *bs)
{
    hg_status refused = HG_STATUS_SUCCESS;
    const int r = run_batch_case(h, kid, c, dt, bs, &refused);
    if (r < 0 && c->beta != 0.0f && strstr(hg_last_error(h), "beta = 0 only") != NULL) {
        gcase t = *c;
        t.beta = 0.0f;
        return run_batch_case(h, kid, &t, dt, bs, &refused);
    }
    return r;
}

static const gcase batch_cases[] = {
    {HG_OP_N, HG_OP_T, 300, 700, 130, 0, 1.0f, 0.0f, 0, 0, 0},  /* nothing a multiple */
    {HG_OP_N, HG_OP_T, 1, 300, 64, 0, 1.0f, 0.0f, 0, 0, 0},     /* m of 1 */
    {HG_OP_N, HG_OP_T, 257, 329, 72, 8, -0.5f, 0.75f, 0, 0, 0}, /* beta, alpha */
    {HG_OP_N, HG_OP_T, 1000, 1000, 128, 0, 1.0f, 0.0f, 0, 0, 0}, /* short k, several tiles a CTA across products */
    {HG_OP_N, HG_OP_T, 512, 512, 1030, 0, 1.0f, 0.0f, 0, 0, 0}, /* a stream-K split over the batch */
};

static int batched_on(hg_handle h, hg_kernel kid, const char *name, const hg__kernel_entry *e)
{
    static const batch_spec specs[] = {
        {3, 8, 0, OVERLAP_NONE, 0, HG_ACT_NONE, HG_C_AS_INPUTS},      /* gaps TMA steps over */
        {4, 0, 0, OVERLAP_NONE, 1, HG_ACT_GELU_TANH, HG_C_AS_INPUTS}, /* packed, a bias per product */
        {2, 16, 0, OVERLAP_NONE, 1, HG_ACT_NONE, HG_C_AS_INPUTS},
        {5, 0, 0, OVERLAP_NONE, 0, HG_ACT_NONE, HG_C_AS_INPUTS},
    };
    const size_t ncases = sizeof batch_cases / sizeof batch_cases[0];
    if (e && !e->batched) return 0; /* the series: cpu/matmul_batch checks its refusal */
    int runs_batches = 1;           /* else a family row that runs one product per call */
    for (int dt = 0; dt < 2 && runs_batches; dt++) {
        /* The dynamic walk runs by rule only where A and B overflow L2
         * (src/family/host.cuh): fp16's cases take it wherever it can run
         * (more than one round of whole tiles), bf16's the rule's walk. */
        hg__set_walk(h, dt == HG_F16 ? HG__WALK_DYNAMIC : HG__WALK_BY_RULE);
        for (size_t c = 0; c < ncases; c++) {
            if (hg_gpu_quick && c == ncases - 1) continue;
            gcase t = batch_cases[c];
            if (e) t.opA = e->op_a, t.opB = e->op_b;
            batch_spec bs = specs[(c + (size_t)dt) % (sizeof specs / sizeof specs[0])];
            if (e && !e->fuses_epilogue) bs.bias = 0, bs.act = HG_ACT_NONE; /* gpu/epilogue checks its refusal */
            const int r = run_batch_case_lean(h, kid, &t, (hg_dtype)dt, &bs);
            if (r < 0) {
                /* Only a family row that runs one product per call may
                 * refuse, and it says so. */
                CHECK(strstr(hg_last_error(h), "one product per call") != NULL,
                      "%s refuses a batch it should run: %s", name, hg_last_error(h));
                runs_batches = 0;
                break;
            }
        }
    }
    hg__set_walk(h, HG__WALK_BY_RULE);
    if (!e || e->writes_f32) {
        /* An fp32 C: gaps TMA steps over (8 elements: 16 bytes of A and B,
         * 32 of C), a bias, beta. */
        const batch_spec f32 = {3, 8, 0, OVERLAP_NONE, 1, HG_ACT_GELU_TANH, HG_C_F32};
        gcase t = batch_cases[2];
        if (e) t.opA = e->op_a, t.opB = e->op_b;
        if (!hg_gpu_quick) run_batch_case(h, kid, &t, HG_BF16, &f32, NULL);
        t = batch_cases[0];
        if (e) t.opA = e->op_a, t.opB = e->op_b;
        run_batch_case(h, kid, &t, HG_F16, &f32, NULL);
    }
    if (runs_batches) {
        /* A shared operand (stride 0: a map whose third stride is 0, or
         * GENERIC's pointer arithmetic): one B for all; one A for all over
         * several tiles a CTA; both, with beta; one B with m = 1. Then A's
         * and B's products overlapping (a third stride shorter than a
         * matrix; each product checked from its own start, so a box read
         * from the wrong product fails): half their rows apart over several
         * tiles; 8 elements apart with short k; half the rows, with beta;
         * 8 apart at m = 1. */
        static const struct {
            size_t c;
            batch_spec bs;
        } operands[] = {{0, {4, 0, SHARE_B, OVERLAP_NONE, 0, HG_ACT_NONE, HG_C_AS_INPUTS}},
                        {3, {3, 8, SHARE_A, OVERLAP_NONE, 0, HG_ACT_NONE, HG_C_AS_INPUTS}},
                        {2, {3, 16, SHARE_A | SHARE_B, OVERLAP_NONE, 0, HG_ACT_NONE, HG_C_AS_INPUTS}},
                        {1, {5, 0, SHARE_B, OVERLAP_NONE, 0, HG_ACT_NONE, HG_C_AS_INPUTS}},
                        {0, {4, 0, 0, OVERLAP_HALF_ROWS, 0, HG_ACT_NONE, HG_C_AS_INPUTS}},
                        {3, {3, 8, 0, OVERLAP_8, 0, HG_ACT_NONE, HG_C_AS_INPUTS}},
                        {2, {3, 16, 0, OVERLAP_HALF_ROWS, 0, HG_ACT_NONE, HG_C_AS_INPUTS}},
                        {1, {5, 0, 0, OVERLAP_8, 0, HG_ACT_NONE, HG_C_AS_INPUTS}}};
        for (size_t i = 0; i < sizeof operands / sizeof operands[0]; i++) {
            gcase t = batch_cases[operands[i].c];
            if (e) t.opA = e->op_a, t.opB = e->op_b;
            hg__set_walk(h, i % 2 ? HG__WALK_BY_RULE : HG__WALK_DYNAMIC); /* as above */
            CHECK(run_batch_case_lean(h, kid, &t, i % 2 ? HG_BF16 : HG_F16, &operands[i].bs) >= 0,
                  "%s refuses a shared or overlapping operand: %s", name, hg_last_error(h));
        }
        hg__set_walk(h, HG__WALK_BY_RULE);
    }
    gcase t = batch_cases[0];
    if (!e || e->id == HG_KERNEL_GENERIC) {
        /* What TMA cannot step by: an odd gap. */
        const batch_spec odd = {3, 3, 0, OVERLAP_NONE, 1, HG_ACT_RELU, HG_C_AS_INPUTS};
        run_batch_case(h, kid, &t, HG_BF16, &odd, NULL);
    } else {
        /* A family row refuses an odd gap with a sentence. */
        t.opA = e->op_a, t.opB = e->op_b;
        const batch_spec odd = {3, 3, 0, OVERLAP_NONE, 0, HG_ACT_NONE, HG_C_AS_INPUTS};
        hg_status refused = HG_STATUS_SUCCESS;
        const int r = run_batch_case(h, kid, &t, HG_F16, &odd, &refused);
        CHECK(r == -1 && (strstr(hg_last_error(h), "stride") || strstr(hg_last_error(h), "one product per call")),
              "%s: an odd stride refused (%s)", name, hg_last_error(h));
    }
    return 1;
}

void test_batched(void)
{
    if (gpu_each_kernel(batched_on) == 0) SKIP("filtered out by --kernel");
}
