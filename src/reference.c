/* The CPU reference: fp16/bf16 conversions and a float64 GEMM. The tests and
 * the tool's --check trust it first. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <threads.h>

#include "hg_internal.h"

float hg__f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1F, man = h & 0x3FF, bits;
    if (exp == 0) {
        if (man == 0) {
            bits = sign;
        } else { /* subnormal: value = man * 2^-24 */
            float f = (float)man * 5.9604644775390625e-8f;
            return sign ? -f : f;
        }
    } else if (exp == 31) {
        bits = sign | 0x7F800000u | (man << 13);
    } else {
        bits = sign | ((exp + 112) << 23) | (man << 13);
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

uint16_t hg__f32_to_f16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
    uint32_t ax = x & 0x7FFFFFFFu;
    if (ax >= 0x7F800000u) return (uint16_t)(sign | 0x7C00 | (ax > 0x7F800000u ? 0x200 : 0)); /* inf/nan */
    if (ax >= 0x477FF000u) return (uint16_t)(sign | 0x7C00); /* rounds to >= 65520: inf */
    if (ax < 0x38800000u) {                                  /* below 2^-14: subnormal or zero */
        float a;
        memcpy(&a, &ax, 4);
        /* a / 2^-24 rounded to nearest even: rintf in the default mode. */
        uint32_t man = (uint32_t)rintf(a * 16777216.0f);
        return (uint16_t)(sign | man); /* man == 0x400 becomes the smallest normal */
    }
    uint32_t exp = (ax >> 23) - 112, man = ax & 0x7FFFFF;
    uint32_t h = (exp << 10) | (man >> 13);
    uint32_t rest = man & 0x1FFF;
    if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) h++;
    return (uint16_t)(sign | h);
}

float hg__bf16_to_f32(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

uint16_t hg__f32_to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7FFFFFFFu) > 0x7F800000u) return (uint16_t)((x >> 16) | 0x40); /* quiet nan */
    uint32_t lsb = (x >> 16) & 1;
    x += 0x7FFFu + lsb;
    return (uint16_t)(x >> 16);
}

float hg__to_f32(uint16_t v, hg_dtype dt) { return dt == HG_BF16 ? hg__bf16_to_f32(v) : hg__f16_to_f32(v); }

uint16_t hg__from_f32(float f, hg_dtype dt) { return dt == HG_BF16 ? hg__f32_to_bf16(f) : hg__f32_to_f16(f); }

/* Every 16-bit value's float, by dtype, built once: the reference reads each
 * element of A and B once per output element of its row or column, and
 * decoding it each time made a full check of 1000 x 1000 x 128 take a second
 * (the GPU tier's batches check dozens of them). The same floats as
 * hg__to_f32, so the same sums. */
static float f32_of[2][1 << 16];
static once_flag f32_of_once = ONCE_FLAG_INIT;
static void f32_of_build(void)
{
    for (uint32_t v = 0; v < (1u << 16); v++) {
        f32_of[HG_F16][v] = hg__f16_to_f32((uint16_t)v);
        f32_of[HG_BF16][v] = hg__bf16_to_f32((uint16_t)v);
    }
}
static const float *f32_table(hg_dtype dt)
{
    call_once(&f32_of_once, f32_of_build);
    return f32_of[dt == HG_BF16 ? HG_BF16 : HG_F16];
}

double hg__c_value(const hg__problem *p, const void *C, int64_t idx)
{
    if (p->c_type == HG_C_F32) return (double)((const float *)C)[idx];
    return (double)hg__to_f32(((const uint16_t *)C)[idx], p->dtype);
}

double hg__ref_element_abs(const hg__problem *p, const uint16_t *A, const uint16_t *B, const void *C,
                           int64_t i, int64_t j, double *abs_sum)
{
    double acc = 0.0, mag = 0.0;
    /* Row i of op(A) and column j of op(B), element l at base + l * step. */
    const float *f32 = f32_table(p->dtype);
    const uint16_t *a_row = A + (p->opA == HG_OP_N ? i * p->lda : i);
    const uint16_t *b_col = B + (p->opB == HG_OP_N ? j : j * p->ldb);
    const int64_t a_step = p->opA == HG_OP_N ? 1 : p->lda, b_step = p->opB == HG_OP_N ? p->ldb : 1;
    /* alpha = 0: A and B are not read (BLAS), so NaN there does not leak. */
    for (int64_t l = 0; p->alpha != 0.0f && l < p->k; l++) {
        double t = (double)f32[a_row[l * a_step]] * (double)f32[b_col[l * b_step]];
        acc += t;
        mag += fabs(t);
    }
    double out = (double)p->alpha * acc;
    mag *= fabs((double)p->alpha);
    if (p->beta != 0.0f) {
        double c = (double)p->beta * hg__c_value(p, C, i * p->ldc + j);
        out += c;
        mag += fabs(c);
    }
    if (p->bias) {
        double b = (double)hg__to_f32(((const uint16_t *)p->bias)[j], p->dtype);
        out += b;
        mag += fabs(b);
    }
    if (abs_sum) *abs_sum = mag;
    return out;
}

double hg__ref_activation(hg_activation act, double x)
{
    if (act == HG_ACT_RELU) return x < 0.0 ? 0.0 : x;
    if (act == HG_ACT_GELU_TANH) {
        const double sqrt_2_over_pi = 0.79788456080286535588, cubic = 0.044715;
        return 0.5 * x * (1.0 + tanh(sqrt_2_over_pi * (x + cubic * x * x * x)));
    }
    return x;
}

double hg__ref_bias(const hg__problem *p, int64_t j)
{
    return p->bias ? (double)hg__to_f32(((const uint16_t *)p->bias)[j], p->dtype) : 0.0;
}

double hg__check_rtol(hg_dtype dt) { return dt == HG_BF16 ? ldexp(1.0, -7) : ldexp(1.0, -10); }

/* How much an activation can magnify an error in its input: 1 for none and
 * ReLU, at most 1.13 for GELU. */
static double act_slope(hg_activation act) { return act == HG_ACT_GELU_TANH ? 1.13 : 1.0; }

/* The kernels' GELU takes tanh from tanh.approx.f32 (common.cuh), whose
 * relative error PTX bounds by 2^-10.987: 0.5 |pre| of it on the result. */
#define HG_TANH_APPROX_REL_ERR 4.93e-4

double hg__check_rtol_c(const hg__problem *p) { return p->c_type == HG_C_F32 ? ldexp(1.0, -23) : hg__check_rtol(p->dtype); }

double hg__check_bound_act(double rtol, hg_activation act, double y, double pre, double bias, double abs_sum,
                           int epilogue)
{
    if (!epilogue) return rtol * fabs(y) + ldexp(abs_sum, -18) + 1e-7; /* hg__check_bound's rule */
    /* The product's error passes through the activation's slope; the product
     * may have been rounded to C's type before the bias and the activation
     * (GENERIC applies them in a second pass). */
    const double slope = act_slope(act);
    const double product = pre - bias; /* alpha AB + beta C */
    const double tanh_err = act == HG_ACT_GELU_TANH ? 0.5 * fabs(pre) * HG_TANH_APPROX_REL_ERR : 0.0;
    return rtol * fabs(y) + slope * (rtol * fabs(product) + ldexp(abs_sum, -18)) + tanh_err + 1e-6;
}

double hg__ref_element(const hg__problem *p, const uint16_t *A, const uint16_t *B, const void *C, int64_t i,
                       int64_t j)
{
    return hg__ref_element_abs(p, A, B, C, i, j, NULL);
}

void hg__ref_gemm(const hg__problem *p, const uint16_t *A, const uint16_t *B, const void *C, double *ref)
{
    for (int64_t i = 0; i < p->m; i++)
        for (int64_t j = 0; j < p->n; j++) ref[i * p->n + j] = hg__ref_element(p, A, B, C, i, j);
}

uint64_t hg__rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void hg__fill_uniform(uint16_t *h, size_t count, hg_dtype dt, uint64_t *state, size_t period)
{
    size_t fresh = period > 0 && period < count ? period : count;
    for (size_t i = 0; i < fresh; i++) {
        float u = (float)(hg__rng_next(state) >> 40) * (1.0f / 16777216.0f);
        h[i] = hg__from_f32(2.0f * u - 1.0f, dt);
    }
    for (size_t i = fresh; i < count; i += fresh) memcpy(h + i, h, (count - i < fresh ? count - i : fresh) * 2);
}

double hg__check_bound_16f(hg_activation act, double y, double abs_sum, int64_t k)
{
    /* fp16 accumulators round once per k16 step (the tensor cores add each
     * step's 16 products exactly enough): k / 16 roundings of 2^-11 of the
     * running sum. The inputs' generator draws zero-mean values, so the
     * running sum stays near |y| + sqrt(k) times a term's size (abs_sum / k)
     * and the roundings add like a random walk: 4 standard deviations of
     * it, plus C's own rounding. Inputs whose partial sums grow (all
     * positive) need a wider bound. */
    const double steps = k > 16 ? (double)k / 16.0 : 1.0;
    const double running = fabs(y) + (k > 0 ? abs_sum / sqrt((double)k) : 0.0);
    return hg__check_rtol(HG_F16) * fabs(y) + act_slope(act) * 4.0 * sqrt(steps) * ldexp(running, -11) + 1e-6;
}

double hg__check_bound(hg_dtype dt, double ref, double abs_sum)
{
    return hg__check_bound_act(hg__check_rtol(dt), HG_ACT_NONE, ref, ref, 0.0, abs_sum, 0);
}

hg__device hg__device_h200_model(void)
{
    hg__device d;
    memset(&d, 0, sizeof d);
    d.cc_major = 9;
    d.cc_minor = 0;
    d.sm_count = 132;
    d.smem_optin = 232448;
    d.l2_bytes = 60 << 20;
    d.cluster_launch = 1;
    return d;
}
