/*
 * The CPU tier: the fp16 / bf16 conversions, the float64 reference and the
 * inputs and checking rule that the tests and the tool share.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_tests.h"
#include "hg_internal.h"
#include "testlib.h"
#include "tiling.h"

void test_conversions(void)
{
    CHECK(hg__f32_to_f16(1.0f) == 0x3C00, "1.0");
    CHECK(hg__f32_to_f16(-2.0f) == 0xC000, "-2.0");
    CHECK(hg__f32_to_f16(65504.0f) == 0x7BFF, "max half");
    CHECK(hg__f32_to_f16(65520.0f) == 0x7C00, "65520 rounds to inf");
    CHECK(hg__f32_to_f16(65519.0f) == 0x7BFF, "65519 rounds to max");
    CHECK(hg__f32_to_f16(5.9604644775390625e-8f) == 0x0001, "smallest subnormal");
    CHECK(hg__f32_to_f16(2.98e-8f) == 0x0000, "below half the smallest subnormal");
    CHECK(hg__f32_to_f16(1.0f + 1.0f / 2048) == 0x3C00, "tie to even (down)");
    CHECK(hg__f32_to_f16(1.0f + 3.0f / 2048) == 0x3C02, "tie to even (up)");
    CHECK(hg__f32_to_f16(6.103515625e-05f) == 0x0400, "smallest normal");
    CHECK(isnan(hg__f16_to_f32(0x7E00)) && isinf(hg__f16_to_f32(0x7C00)), "nan, inf");
    CHECK(hg__f32_to_bf16(1.0f) == 0x3F80, "bf16 1.0");
    CHECK(hg__f32_to_bf16(1.0f + 1.0f / 256) == 0x3F80, "bf16 tie to even (down)");
    CHECK(hg__f32_to_bf16(1.0f + 3.0f / 256) == 0x3F82, "bf16 tie to even (up)");
    int bad = 0;
    for (uint32_t v = 0; v < 65536; v++) {
        uint16_t h = (uint16_t)v;
        float f = hg__f16_to_f32(h);
        if (!isnan(f) && hg__f32_to_f16(f) != h) bad++;
        float g = hg__bf16_to_f32(h);
        if (!isnan(g) && hg__f32_to_bf16(g) != h) bad++;
    }
    CHECK(bad == 0, "%d bit patterns do not round-trip", bad);
}

/* C = alpha op(A) op(B) + beta C with op(A) = [[1,2],[3,4],[5,6]] (3x2) and
 * op(B) = [[1,0,2,1],[0,1,1,-1]] (2x4), computed by hand:
 * op(A) op(B) = [[1,2,4,-1],[3,4,10,-1],[5,6,16,-1]]. */
void test_reference_by_hand(void)
{
    const float a[3][2] = {{1, 2}, {3, 4}, {5, 6}};
    const float b[2][4] = {{1, 0, 2, 1}, {0, 1, 1, -1}};
    const double prod[3][4] = {{1, 2, 4, -1}, {3, 4, 10, -1}, {5, 6, 16, -1}};
    for (int layout = 0; layout < 4; layout++)
        for (int dt = 0; dt < 2; dt++) {
            const hg_op oa = (hg_op)(layout & 1), ob = (hg_op)(layout >> 1);
            /* leading dimensions larger than needed */
            hg__problem p = hg__problem_make(oa, ob, 3, 4, 2, 2.0f, NULL, oa == HG_OP_N ? 3 : 4, NULL,
                                             ob == HG_OP_N ? 5 : 3, -1.0f, NULL, 5, (hg_dtype)dt);
            uint16_t A[16], B[16], C[16];
            for (int i = 0; i < 3; i++)
                for (int l = 0; l < 2; l++)
                    A[p.opA == HG_OP_N ? i * p.lda + l : l * p.lda + i] = hg__from_f32(a[i][l], p.dtype);
            for (int l = 0; l < 2; l++)
                for (int j = 0; j < 4; j++)
                    B[p.opB == HG_OP_N ? l * p.ldb + j : j * p.ldb + l] = hg__from_f32(b[l][j], p.dtype);
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 4; j++) C[i * 5 + j] = hg__from_f32((float)(i + j), p.dtype);
            double ref[12];
            hg__ref_gemm(&p, A, B, C, ref);
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 4; j++) {
                    double want = 2.0 * prod[i][j] - (double)(i + j);
                    CHECK(ref[i * 4 + j] == want, "layout %d dt %d (%d,%d): %g != %g", layout, dt, i, j,
                          ref[i * 4 + j], want);
                }
            double mag;
            double v = hg__ref_element_abs(&p, A, B, C, 2, 2, &mag);
            CHECK(v == 28.0 && mag == 2.0 * (10 + 6) + 4.0, "abs sum: %g %g", v, mag);
        }
    /* beta = 0 never reads C: NaN there does not leak. */
    hg__problem p = hg__problem_make(HG_OP_N, HG_OP_T, 1, 1, 1, 1.0f, NULL, 1, NULL, 1, 0.0f, NULL, 1, HG_F16);
    uint16_t one = 0x3C00, nan = 0x7E00;
    CHECK(hg__ref_element(&p, &one, &one, &nan, 0, 0) == 1.0, "beta = 0 ignores C");
    p.alpha = 0.0f;
    p.beta = 2.0f;
    CHECK(hg__ref_element(&p, &nan, &one, &one, 0, 0) == 2.0, "alpha = 0 ignores A and B");
    /* Every finite 16-bit value through the reference's decoding (a table):
     * one row of A holding each of them, against B's ones, summed in the
     * reference's order from hg__to_f32's own values. */
    static uint16_t every[1 << 16], ones[1 << 16];
    for (int dt = 0; dt < 2; dt++) {
        int64_t k = 0;
        for (uint32_t v = 0; v < (1u << 16); v++)
            if (isfinite(hg__to_f32((uint16_t)v, (hg_dtype)dt))) every[k++] = (uint16_t)v;
        double want = 0.0;
        for (int64_t l = 0; l < k; l++) {
            ones[l] = hg__from_f32(1.0f, (hg_dtype)dt);
            want += (double)hg__to_f32(every[l], (hg_dtype)dt);
        }
        hg__problem q = hg__problem_make(HG_OP_N, HG_OP_T, 1, 1, k, 1.0f, NULL, k, NULL, k, 0.0f, NULL, 1,
                                         (hg_dtype)dt);
        CHECK(hg__ref_element(&q, every, ones, NULL, 0, 0) == want, "dt %d: every value's sum %g != %g", dt,
              hg__ref_element(&q, every, ones, NULL, 0, 0), want);
    }
}

/* The inputs and the checking rule the tests and the tool share. */
void test_testkit(void)
{
    enum { N = 3000, PERIOD = 7 };
    static uint16_t a[N], b[N];
    uint64_t s1 = 42, s2 = 42;
    hg__fill_uniform(a, N, HG_BF16, &s1, 0);
    hg__fill_uniform(b, N, HG_BF16, &s2, 0);
    CHECK(memcmp(a, b, sizeof a) == 0 && s1 == s2, "the same seed, the same inputs");
    double lo = 1, hi = -1, sum = 0;
    int zeros = 0;
    for (int i = 0; i < N; i++) {
        double x = hg__bf16_to_f32(a[i]);
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
        sum += x;
        zeros += x == 0.0;
    }
    CHECK(lo >= -1.0 && hi <= 1.0 && lo < -0.9 && hi > 0.9, "uniform over [-1, 1]: %g to %g", lo, hi);
    CHECK(fabs(sum / N) < 0.05 && zeros < 10, "centred (mean %g), hardly any zeros (%d)", sum / N, zeros);
    hg__fill_uniform(a, N, HG_F16, &s1, PERIOD);
    int repeats = 1;
    for (int i = PERIOD; i < N; i++) repeats &= a[i] == a[i % PERIOD];
    CHECK(repeats, "a period repeats its first block");
    CHECK(hg__check_bound(HG_F16, 2.0, 0.0) > 2.0 / 1024 && hg__check_bound(HG_F16, 2.0, 0.0) < 2.0 / 1000,
          "fp16: 2^-10 of |ref|");
    CHECK(hg__check_bound(HG_BF16, 0.0, 1 << 18) >= 1.0 && hg__check_bound(HG_BF16, 0.0, 1 << 18) < 1.001,
          "2^-18 of the terms' magnitudes");
}
