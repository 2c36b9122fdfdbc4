/*
 * The CPU tier: hg_matmul's descriptor, its strided batches, an fp32 C and
 * the call's corners, on a made-up sm_90 (nothing is launched).
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

/* hg_matmul refuses the descriptor as invalid, its error naming `why`. */
static int rejects(hg_handle h, const hg_matmul_desc *t, const char *why)
{
    return hg_matmul(h, t) == HG_STATUS_INVALID_VALUE && strstr(hg_last_error(h), why) != NULL;
}

/* hg_matmul's strided batch: the descriptor's new fields, every refusal
 * with its sentence, the series' refusal, and which kernels AUTO plans (the
 * family for TMA-able strides, overlapping products of A and B included;
 * GENERIC otherwise). */
void test_matmul_batch(void)
{
    hg_handle h = fake_handle(9, 0);
    CHECK(h != NULL, "fake handle");
    if (!h) return;
    char *base = (char *)(uintptr_t)0x10000000;
    const int64_t M = 2048, N = 2048, K = 128, BATCH = 512, SA = M * K, SB = N * K, SC = M * N;
    hg_matmul_desc d = HG_MATMUL_DESC_INIT;
    CHECK(d.batch_count == 1 && d.stride_a == 0 && d.stride_b == 0 && d.stride_c == 0 && d.stride_bias == 0,
          "HG_MATMUL_DESC_INIT: one product");
    d.opA = HG_OP_N, d.opB = HG_OP_T, d.m = M, d.n = N, d.k = K, d.dtype = HG_BF16;
    d.lda = K, d.ldb = K, d.ldc = N;
    d.A = base, d.B = base + ((int64_t)1 << 32), d.C = base + ((int64_t)2 << 32);
    d.batch_count = BATCH, d.stride_a = SA, d.stride_b = SB, d.stride_c = SC;
    hg_kernel k = HG_KERNEL_AUTO;
    CHECK(hg_matmul_plan(h, &d, &k) == HG_STATUS_SUCCESS && k != HG_KERNEL_GENERIC,
          "512 x (2048 x 2048 x 128), packed: a family kernel (%s; %s)", hg_kernel_name(k), hg_last_error(h));
    hg_matmul_desc t = d;
    t.size = offsetof(hg_matmul_desc, batch_count);
    t.batch_count = -5; /* past size: never read */
    CHECK(hg_matmul_plan(h, &t, &k) == HG_STATUS_SUCCESS, "a size that stops before batch_count: one product (%s)",
          hg_last_error(h));
    t = d;
    t.batch_count = -1;
    CHECK(rejects(h, &t, "batch_count must be >= 0"), "a negative batch: %s", hg_last_error(h));
    t = d;
    t.batch_count = 0;
    CHECK(hg_matmul(h, &t) == HG_STATUS_SUCCESS, "an empty batch does nothing: %s", hg_last_error(h));
    t = d;
    t.stride_b = -SB;
    CHECK(rejects(h, &t, "strides must be >= 0"), "a negative stride: %s", hg_last_error(h));
    t = d;
    t.stride_c = SC - 1;
    CHECK(rejects(h, &t, "stride_c"), "products of C that overlap: %s", hg_last_error(h));
    t = d;
    t.C = base + 2 * SA * (BATCH - 1) - 2; /* inside A's last product */
    CHECK(rejects(h, &t, "A range meets C"), "C's range meeting A's: %s", hg_last_error(h));
    t = d;
    t.bias = (const char *)t.C + 2 * SC * BATCH; /* just past C's range */
    t.stride_bias = N;
    CHECK(hg_matmul_plan(h, &t, &k) == HG_STATUS_SUCCESS, "a bias per product after C: %s", hg_last_error(h));
    t.bias = (const char *)t.C + 2 * SC * (BATCH - 1);
    CHECK(rejects(h, &t, "bias range meets C"), "a bias inside C's range: %s", hg_last_error(h));
    t = d;
    t.k = 0; /* nothing read of A and B: they may sit anywhere */
    t.A = t.C;
    CHECK(hg_matmul_plan(h, &t, &k) == HG_STATUS_SUCCESS && k == HG_KERNEL_GENERIC, "k = 0 reads no A: %s (%s)",
          hg_kernel_name(k), hg_last_error(h));
    /* What cannot be a third TMA dimension runs GENERIC (AUTO), or is refused
     * with a sentence by a family kernel chosen by hand. */
    static const struct {
        int64_t sa, sb, sc;
        const char *what;
    } odd[] = {{SA + 3, SB, SC, "stride_a off 8 elements"},
               {SA - 4, SB, SC, "A's products overlapping by 4 elements"},
               {SA, SB, SC + 4, "stride_c off 8 elements"}};
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
        t = d;
        t.stride_a = odd[i].sa, t.stride_b = odd[i].sb, t.stride_c = odd[i].sc;
        CHECK(hg_set_kernel(h, HG_KERNEL_AUTO) == HG_STATUS_SUCCESS, "AUTO");
        CHECK(hg_matmul_plan(h, &t, &k) == HG_STATUS_SUCCESS && k == HG_KERNEL_GENERIC, "%s: AUTO plans %s (%s)",
              odd[i].what, hg_kernel_name(k), hg_last_error(h));
        CHECK(hg_set_kernel(h, HG_KERNEL_SM90_128X256X64_S4_C2X1_TN) == HG_STATUS_SUCCESS, "128 x 256");
        CHECK(hg_matmul_plan(h, &t, &k) == HG_STATUS_NOT_SUPPORTED && strstr(hg_last_error(h), "stride"),
              "%s: 128 x 256 refuses: %s", odd[i].what, hg_last_error(h));
    }
    /* One A, one B or both for every product (stride 0) is a map whose
     * third stride is 0; products of A or B that overlap (any multiple of 8
     * elements shorter than a matrix), one whose third stride is short: the
     * family's. C's products may not share. */
    static const struct {
        int64_t sa, sb;
        const char *what;
    } operands[] = {{SA, 0, "one B for every product"},
                    {0, SB, "one A for every product"},
                    {0, 0, "one A and one B for every product"},
                    {SA - 8, SB, "A's products overlapping by 8 elements"},
                    {SA / 2, SB / 2, "A's and B's products sharing half their rows"},
                    {8, 8, "A's and B's products 8 elements apart"}};
    for (size_t i = 0; i < sizeof operands / sizeof operands[0]; i++) {
        t = d;
        t.stride_a = operands[i].sa, t.stride_b = operands[i].sb;
        CHECK(hg_set_kernel(h, HG_KERNEL_AUTO) == HG_STATUS_SUCCESS, "AUTO");
        CHECK(hg_matmul_plan(h, &t, &k) == HG_STATUS_SUCCESS && k != HG_KERNEL_GENERIC,
              "%s: AUTO plans the family (%s; %s)", operands[i].what, hg_kernel_name(k), hg_last_error(h));
        CHECK(hg_set_kernel(h, HG_KERNEL_SM90_128X256X64_S4_C2X1_TN) == HG_STATUS_SUCCESS, "128 x 256");
        CHECK(hg_matmul_plan(h, &t, &k) == HG_STATUS_SUCCESS, "%s: 128 x 256 takes it (%s)", operands[i].what,
              hg_last_error(h));
    }
    /* C's products stay a whole m x ldc apart, so that no product's TMA
     * stores land in another's rows: a stride_c of C's span (valid, with
     * ldc > n) is not. */
    t = d;
    t.ldc = N + 8, t.stride_c = M * (N + 8) - 8;
    CHECK(hg_matmul_plan(h, &t, &k) == HG_STATUS_NOT_SUPPORTED && strstr(hg_last_error(h), "stride_c"),
          "C's products a span apart, short of m x ldc: 128 x 256 refuses: %s", hg_last_error(h));
    t = d;
    t.stride_c = 0;
    CHECK(rejects(h, &t, "stride_c"), "every product on one C: %s", hg_last_error(h));
    /* ... but a C stride the swapped rows write per thread is theirs; the
     * _ct rows and 256 x 128 run one product per call. */
    t = d;
    t.m = 16, t.lda = K, t.stride_a = 16 * K, t.stride_c = 16 * N + 4;
    CHECK(hg_set_kernel(h, HG_KERNEL_SM90_128X16X64_S6_C1X1_SWAP_TN) == HG_STATUS_SUCCESS, "_swap");
    CHECK(hg_matmul_plan(h, &t, &k) == HG_STATUS_SUCCESS, "_swap takes stride_c off 8 elements: %s",
          hg_last_error(h));
    CHECK(hg_set_kernel(h, HG_KERNEL_SM90_128X256X64_S4_C2X1_CT_TN) == HG_STATUS_SUCCESS, "_ct");
    CHECK(hg_matmul_plan(h, &d, &k) == HG_STATUS_NOT_SUPPORTED && strstr(hg_last_error(h), "one product per call"),
          "_ct runs no batch: %s", hg_last_error(h));
    CHECK(hg_set_kernel(h, HG_KERNEL_SM90_256X128X64_S4_C1X2_TN) == HG_STATUS_SUCCESS, "256 x 128");
    CHECK(hg_matmul_plan(h, &d, &k) == HG_STATUS_NOT_SUPPORTED && strstr(hg_last_error(h), "one product per call"),
          "256 x 128 runs no batch: %s", hg_last_error(h));
    CHECK(hg_set_kernel(h, HG_KERNEL_V6) == HG_STATUS_SUCCESS, "V6");
    CHECK(hg_matmul(h, &d) == HG_STATUS_NOT_SUPPORTED && strstr(hg_last_error(h), "does not run a batch"),
          "the series runs no batch: %s", hg_last_error(h));
    t = d;
    t.batch_count = 1;
    CHECK(hg_matmul_plan(h, &t, &k) == HG_STATUS_SUCCESS && k == HG_KERNEL_V6, "... but one product: %s",
          hg_last_error(h));
    /* AUTO's model and the walk's L2 rule count rows that products share
     * once (hg__batch_copies): a shared matrix once; products j < rows rows
     * apart the rows they span, in matrices rounded up; any other stride a
     * matrix a product, as before. */
    static const struct {
        int64_t stride;
        double copies;
        const char *what;
    } counts[] = {{0, 1.0, "one A for every product"},
                  {SA, (double)BATCH, "packed"},
                  {SA / 2, 257.0, "half the rows apart (256.5 matrices)"},
                  {3 * K, 2.0, "3 rows apart"},
                  {8, (double)BATCH, "8 elements apart (no whole row shared)"}};
    hg__problem q = hg__problem_make(HG_OP_N, HG_OP_T, M, N, K, 1.0f, NULL, K, NULL, K, 0.0f, NULL, N, HG_BF16);
    q.batch = BATCH;
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        q.stride_a = counts[i].stride;
        const double c = hg__batch_copies_a(&q);
        CHECK(c == counts[i].copies, "%s: A counted as %g matrices (want %g)", counts[i].what, c, counts[i].copies);
    }
    hg_destroy(h);
}

/* The descriptor tests' start: a 64^3 TN call on made-up addresses (A at
 * DESC_BASE, then B and C 64 KiB apart). */
#define DESC_BASE ((char *)(uintptr_t)0x10000000)
static hg_matmul_desc desc_64(void)
{
    char *base = DESC_BASE;
    hg_matmul_desc d = HG_MATMUL_DESC_INIT;
    d.opA = HG_OP_N, d.opB = HG_OP_T, d.m = 64, d.n = 64, d.k = 64;
    d.A = base, d.B = base + 65536, d.C = base + 2 * 65536, d.lda = d.ldb = d.ldc = 64;
    return d;
}

/* hg_matmul: its descriptor's rules and its refusals, on a made-up sm_90
 * (nothing is launched: every call here fails before that). */
void test_matmul_desc(void)
{
    hg_handle h = fake_handle(9, 0);
    CHECK(h != NULL, "fake handle");
    if (!h) return;
    char *base = DESC_BASE;
    hg_matmul_desc d = desc_64();
    hg_kernel k = HG_KERNEL_AUTO;
    CHECK(d.size == sizeof d && d.alpha == 1.0f && d.beta == 0.0f && d.bias == NULL && d.activation == HG_ACT_NONE,
          "HG_MATMUL_DESC_INIT: size, alpha 1, the rest zero");
    CHECK(hg_matmul(NULL, &d) == HG_STATUS_INVALID_VALUE, "NULL handle");
    CHECK(hg_matmul(h, NULL) == HG_STATUS_INVALID_VALUE && strstr(hg_last_error(h), "desc is NULL"), "NULL desc: %s",
          hg_last_error(h));
    hg_matmul_desc t = d;
    t.size = offsetof(hg_matmul_desc, activation) + sizeof t.activation - 1;
    CHECK(rejects(h, &t, "desc->size"), "a size short of the fields up to activation: %s", hg_last_error(h));
    t = d;
    t.activation = (hg_activation)7;
    CHECK(rejects(h, &t, "activation"), "an activation off the enum: %s", hg_last_error(h));
    t = d;
    t.bias = base + 3 * 65536 + 1;
    CHECK(rejects(h, &t, "bias must be 2-byte aligned"), "a bias off 2 bytes: %s", hg_last_error(h));
    t = d;
    t.bias = (const char *)t.C + 2 * 64 * 10; /* C's row 10 */
    CHECK(rejects(h, &t, "bias shares elements with C"), "a bias inside C: %s", hg_last_error(h));
    t.bias = (const char *)t.C + 2 * 64 * 64; /* just past C */
    t.activation = HG_ACT_GELU_TANH;
    CHECK(hg_set_kernel(h, HG_KERNEL_V6) == HG_STATUS_SUCCESS, "choose v6");
    CHECK(hg_matmul(h, &t) == HG_STATUS_NOT_SUPPORTED && strstr(hg_last_error(h), "bias or an activation"),
          "the series does not fuse an epilogue: %s", hg_last_error(h));
    /* A bias in the padding between C's rows is no element of C. */
    t.ldc = 128;
    t.bias = (const char *)t.C + 2 * 64;
    CHECK(hg_matmul(h, &t) == HG_STATUS_NOT_SUPPORTED, "a bias in C's padding passes validation: %s",
          hg_last_error(h));
    k = HG_KERNEL_AUTO;
    CHECK(hg_matmul_plan(h, &t, &k) == HG_STATUS_NOT_SUPPORTED && strncmp(hg_last_error(h), "hg_matmul_plan:", 15) == 0,
          "hg_matmul_plan refuses the same, in its name: %s", hg_last_error(h));
    CHECK(hg_set_kernel(h, HG_KERNEL_AUTO) == HG_STATUS_SUCCESS, "back to AUTO");

    /* compute: off the enum, 16F with bf16, a size short of it (32F); an
     * fp16-accumulating row refuses 32F, an fp32 one serves 16F; AUTO takes
     * an _f16acc row only when asked for 16F. */
    CHECK(d.compute == HG_COMPUTE_32F, "HG_MATMUL_DESC_INIT: HG_COMPUTE_32F");
    t = d;
    t.compute = (hg_compute)5;
    CHECK(rejects(h, &t, "compute is not"), "a compute off the enum: %s", hg_last_error(h));
    t.compute = HG_COMPUTE_16F, t.dtype = HG_BF16;
    CHECK(rejects(h, &t, "HG_F16 only"), "16F with bf16: %s", hg_last_error(h));
    t.dtype = HG_F16;
    CHECK(hg_set_kernel(h, HG_KERNEL_SM90_128X256X64_S4_C2X1_F16ACC_TN) == HG_STATUS_SUCCESS, "choose an _f16acc row");
    t.m = t.n = t.k = 4096, t.lda = t.ldb = t.ldc = 4096;
    t.B = base + 0x40000000, t.C = base + 0x80000000;
    CHECK(hg_matmul_plan(h, &t, &k) == HG_STATUS_SUCCESS && k == HG_KERNEL_SM90_128X256X64_S4_C2X1_F16ACC_TN,
          "the _f16acc row serves 16F: %s", hg_last_error(h));
    t.compute = HG_COMPUTE_32F;
    CHECK(hg_matmul_plan(h, &t, &k) == HG_STATUS_NOT_SUPPORTED && strstr(hg_last_error(h), "accumulates in fp16"),
          "... and refuses 32F: %s", hg_last_error(h));
    CHECK(hg_plan(h, t.opA, t.opB, t.m, t.n, t.k, t.A, t.lda, t.B, t.ldb, t.C, t.ldc, t.dtype, &k) ==
                  HG_STATUS_NOT_SUPPORTED,
          "... and hg_gemm's calls (32F): %s", hg_last_error(h));
    t.compute = HG_COMPUTE_16F;
    t.size = offsetof(hg_matmul_desc, compute); /* built against 0.2: 32F */
    CHECK(hg_matmul_plan(h, &t, &k) == HG_STATUS_NOT_SUPPORTED, "a size short of compute is 32F: %s", hg_last_error(h));
    t.size = sizeof t;
    CHECK(hg_set_kernel(h, HG_KERNEL_SM90_128X256X64_S4_C2X1_TN) == HG_STATUS_SUCCESS &&
              hg_matmul_plan(h, &t, &k) == HG_STATUS_SUCCESS && k == HG_KERNEL_SM90_128X256X64_S4_C2X1_TN,
          "an fp32 row serves 16F: %s", hg_last_error(h));
    CHECK(hg_set_kernel(h, HG_KERNEL_AUTO) == HG_STATUS_SUCCESS, "back to AUTO");
    static const int64_t c16_dims[][3] = {{8192, 8192, 8192}, {4096, 4096, 4096}, {1, 4096, 4096}, {300, 700, 130}};
    for (size_t i = 0; i < sizeof c16_dims / sizeof c16_dims[0]; i++) {
        t.m = c16_dims[i][0], t.n = c16_dims[i][1], t.k = c16_dims[i][2], t.lda = t.ldb = t.k, t.ldc = t.n;
        const hg__kernel_entry *e = NULL;
        t.compute = HG_COMPUTE_32F;
        CHECK(hg_matmul_plan(h, &t, &k) == HG_STATUS_SUCCESS && (e = hg__find_kernel(k)) != NULL && !e->acc16,
              "%lld x %lld x %lld, 32F: %s accumulates in fp32", (long long)t.m, (long long)t.n, (long long)t.k,
              hg_kernel_name(k));
        t.compute = HG_COMPUTE_16F;
        CHECK(hg_matmul_plan(h, &t, &k) == HG_STATUS_SUCCESS && (e = hg__find_kernel(k)) != NULL &&
                  (e->acc16 || t.m < 4096),
              "%lld x %lld x %lld, 16F: %s (an _f16acc row on the large ones)", (long long)t.m, (long long)t.n,
              (long long)t.k, hg_kernel_name(k));
    }

    /* hg_matmul_plan and hg_matmul_workspace_size: their refusals, then the
     * plain call planned as hg_plan plans it, and with an epilogue a kernel
     * that fuses one, over a spread of shapes. */
    size_t bytes = 1, plain_bytes = 0;
    k = HG_KERNEL_AUTO;
    CHECK(hg_matmul_plan(NULL, &d, &k) == HG_STATUS_INVALID_VALUE, "plan: NULL handle");
    CHECK(hg_matmul_plan(h, NULL, &k) == HG_STATUS_INVALID_VALUE && strstr(hg_last_error(h), "hg_matmul_plan: desc"),
          "plan: NULL desc: %s", hg_last_error(h));
    CHECK(hg_matmul_plan(h, &d, NULL) == HG_STATUS_INVALID_VALUE && strstr(hg_last_error(h), "chosen is NULL"),
          "plan: NULL chosen: %s", hg_last_error(h));
    CHECK(hg_matmul_workspace_size(h, &d, NULL) == HG_STATUS_INVALID_VALUE && strstr(hg_last_error(h), "bytes is NULL"),
          "workspace: NULL bytes: %s", hg_last_error(h));
    t = d;
    t.size = 8;
    CHECK(hg_matmul_workspace_size(h, &t, &bytes) == HG_STATUS_INVALID_VALUE && bytes == 1 &&
              strstr(hg_last_error(h), "hg_matmul_workspace_size: desc->size"),
          "workspace: a short size, bytes untouched: %s", hg_last_error(h));
    static const int64_t dims[][3] = {{1, 4096, 4096},   {128, 6144, 4096}, {2048, 2048, 2048},
                                      {8192, 8192, 8192}, {3000, 5000, 700}, {16384, 16384, 256}};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
        t = d;
        t.m = dims[i][0], t.n = dims[i][1], t.k = dims[i][2], t.lda = t.ldb = t.k, t.ldc = t.n;
        t.B = base + 0x40000000, t.C = base + 0x80000000;
        hg_kernel plain = HG_KERNEL_AUTO, fused = HG_KERNEL_AUTO;
        CHECK(hg_plan(h, t.opA, t.opB, t.m, t.n, t.k, t.A, t.lda, t.B, t.ldb, t.C, t.ldc, t.dtype, &plain) ==
                      HG_STATUS_SUCCESS &&
                  hg_matmul_plan(h, &t, &k) == HG_STATUS_SUCCESS && k == plain,
              "%lld x %lld x %lld: hg_matmul_plan without an epilogue is hg_plan (%s, %s)", (long long)t.m,
              (long long)t.n, (long long)t.k, hg_kernel_name(k), hg_kernel_name(plain));
        CHECK(hg_get_workspace_size(h, t.opA, t.opB, t.m, t.n, t.k, t.A, t.lda, t.B, t.ldb, t.C, t.ldc, t.dtype,
                                    &plain_bytes) == HG_STATUS_SUCCESS &&
                  hg_matmul_workspace_size(h, &t, &bytes) == HG_STATUS_SUCCESS && bytes == plain_bytes,
              "%lld x %lld x %lld: the same workspace (%zu, %zu)", (long long)t.m, (long long)t.n, (long long)t.k,
              bytes, plain_bytes);
        t.bias = base + 0xC0000000, t.activation = HG_ACT_GELU_TANH;
        const hg__kernel_entry *e = NULL;
        CHECK(hg_matmul_plan(h, &t, &fused) == HG_STATUS_SUCCESS && (e = hg__find_kernel(fused)) != NULL &&
                  e->fuses_epilogue,
              "%lld x %lld x %lld with bias and GELU: %s fuses it (%s)", (long long)t.m, (long long)t.n,
              (long long)t.k, hg_kernel_name(fused), hg_last_error(h));
        CHECK(hg_matmul_workspace_size(h, &t, &bytes) == HG_STATUS_SUCCESS, "%lld x %lld x %lld: workspace with GELU: %s",
              (long long)t.m, (long long)t.n, (long long)t.k, hg_last_error(h));
    }
    hg_destroy(h);
}

/* c_type: off the enum, C off 4 bytes, overlap counted in fp32 elements,
 * a size short of it (the inputs' type); the series and the _ct rows refuse
 * HG_C_F32, the staged and swapped rows and GENERIC take it (TMA: ldc a
 * multiple of 4 fp32 elements), and AUTO plans a kernel that writes fp32
 * over a spread of shapes, aligned and not. */
void test_matmul_c_f32(void)
{
    hg_handle h = fake_handle(9, 0);
    CHECK(h != NULL, "fake handle");
    if (!h) return;
    hg_matmul_desc d = desc_64();
    CHECK(d.c_type == HG_C_AS_INPUTS, "HG_MATMUL_DESC_INIT: HG_C_AS_INPUTS");
    d.c_type = HG_C_F32;
    char *base = DESC_BASE;
    hg_kernel k = HG_KERNEL_AUTO;
    hg_matmul_desc t = d;
    t.c_type = (hg_c_type)3;
    CHECK(rejects(h, &t, "c_type is not"), "a c_type off the enum: %s", hg_last_error(h));
    t = d;
    t.C = base + 2 * 65536 + 2;
    CHECK(rejects(h, &t, "4-byte aligned"), "an fp32 C off 4 bytes: %s", hg_last_error(h));
    t.c_type = HG_C_AS_INPUTS;
    CHECK(hg_matmul_plan(h, &t, &k) == HG_STATUS_SUCCESS, "... is fine for 16-bit C: %s", hg_last_error(h));
    /* C's 64 x 64 fp32 elements take 16 KiB: B placed 8 KiB past C's start
     * meets it as fp32, not as 16-bit elements (which end there). */
    t = d;
    t.B = (const char *)t.C + 8192;
    CHECK(rejects(h, &t, "C shares elements with B"), "fp32 C's span meets B: %s", hg_last_error(h));
    t.c_type = HG_C_AS_INPUTS;
    CHECK(hg_matmul_plan(h, &t, &k) == HG_STATUS_SUCCESS, "... a 16-bit C ends where B starts: %s", hg_last_error(h));
    t = d;
    t.bias = (const char *)t.C + 4 * 64 * 63 + 200; /* inside C's last fp32 row */
    CHECK(rejects(h, &t, "bias shares elements with C"), "a bias inside an fp32 C: %s", hg_last_error(h));
    /* A batch: stride_c in fp32 elements, at least C's span. */
    t = d;
    t.batch_count = 2, t.stride_a = t.stride_b = 64 * 64, t.stride_c = 64 * 64 - 1;
    t.B = base + 0x40000000, t.C = base + 0x80000000;
    CHECK(rejects(h, &t, "stride_c"), "fp32 products of C overlapping: %s", hg_last_error(h));
    t.stride_c = 64 * 64;
    CHECK(hg_matmul_plan(h, &t, &k) == HG_STATUS_SUCCESS, "an fp32 batch: %s", hg_last_error(h));
    /* A size short of c_type: the inputs' type (so a kernel that writes
     * 16 bits only takes it). */
    t = d;
    CHECK(hg_set_kernel(h, HG_KERNEL_V6) == HG_STATUS_SUCCESS, "choose v6");
    CHECK(hg_matmul_plan(h, &t, &k) == HG_STATUS_NOT_SUPPORTED && strstr(hg_last_error(h), "inputs' type only"),
          "the series refuses an fp32 C: %s", hg_last_error(h));
    t.size = offsetof(hg_matmul_desc, c_type); /* built against 0.4 */
    CHECK(hg_matmul_plan(h, &t, &k) == HG_STATUS_SUCCESS && k == HG_KERNEL_V6, "a size short of c_type: 16-bit C: %s",
          hg_last_error(h));
    t.size = sizeof t;
    /* Each registered kernel takes an fp32 C exactly when it says so. */
    t = d;
    t.m = t.n = t.k = 1024, t.lda = t.ldb = t.ldc = 1024;
    t.B = base + 0x40000000, t.C = base + 0x80000000;
    for (int i = 0; i < hg__kernel_count; i++) {
        const hg__kernel_entry *e = &hg__kernels[i];
        t.opA = e->op_a, t.opB = e->op_b;
        t.compute = e->acc16 ? HG_COMPUTE_16F : HG_COMPUTE_32F;
        CHECK(hg_set_kernel(h, e->id) == HG_STATUS_SUCCESS, "choose %s", e->name);
        const hg_status st = hg_matmul_plan(h, &t, &k);
        CHECK(e->writes_f32 ? st == HG_STATUS_SUCCESS : st == HG_STATUS_NOT_SUPPORTED && strstr(hg_last_error(h), "fp32"),
              "%s %s an fp32 C: %s", e->name, e->writes_f32 ? "takes" : "refuses", hg_last_error(h));
    }
    /* A staged row wants ldc a multiple of 4 fp32 elements (16 bytes). */
    t.opA = HG_OP_N, t.opB = HG_OP_T, t.compute = HG_COMPUTE_32F;
    CHECK(hg_set_kernel(h, HG_KERNEL_SM90_128X256X64_S4_C2X1_TN) == HG_STATUS_SUCCESS, "choose the 128 x 256 row");
    t.ldc = 1028;
    CHECK(hg_matmul_plan(h, &t, &k) == HG_STATUS_SUCCESS, "fp32 ldc 1028 (16-byte rows): %s", hg_last_error(h));
    t.ldc = 1026;
    CHECK(hg_matmul_plan(h, &t, &k) == HG_STATUS_NOT_SUPPORTED && strstr(hg_last_error(h), "16 bytes"),
          "fp32 ldc 1026 (8-byte rows): %s", hg_last_error(h));
    CHECK(hg_set_kernel(h, HG_KERNEL_AUTO) == HG_STATUS_SUCCESS, "back to AUTO");
    static const int64_t dims[][4] = {{1, 4096, 4096, 4096},   {64, 6144, 4096, 6144}, {8192, 8192, 8192, 8192},
                                      {3000, 5000, 700, 5001}, {300, 700, 130, 703},   {128, 50257, 4096, 50257}};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
        t = d;
        t.m = dims[i][0], t.n = dims[i][1], t.k = dims[i][2], t.lda = t.ldb = t.k, t.ldc = dims[i][3];
        t.B = base + 0x40000000, t.C = base + 0x80000000;
        t.bias = base + 0xC0000000, t.activation = HG_ACT_RELU;
        const hg__kernel_entry *e = NULL;
        CHECK(hg_matmul_plan(h, &t, &k) == HG_STATUS_SUCCESS && (e = hg__find_kernel(k)) != NULL && e->writes_f32,
              "%lld x %lld x %lld ldc %lld, fp32 C: %s writes fp32 (%s)", (long long)t.m, (long long)t.n,
              (long long)t.k, (long long)t.ldc, hg_kernel_name(k), hg_last_error(h));
    }
    hg_destroy(h);
}

/* The call's corners on a made-up sm_90 (nothing is launched): interleaved
 * A and C are valid, shared elements are not; k = 0 or alpha = 0 with beta = 1
 * leaves C as it was; hg_plan's sentences name hg_plan. */
void test_call_corners(void)
{
    hg_handle h = fake_handle(9, 0);
    CHECK(h != NULL, "fake handle");
    if (!h) return;
    static uint16_t buf[1024];
    hg_kernel k;
    /* A = buf, C = buf + 8, both ld 16, m = 4, n = k = 8: A in the first half
     * of each 16-element row, C in the second. */
    hg_status s = hg_plan(h, HG_OP_N, HG_OP_N, 4, 8, 8, buf, 16, buf + 512, 8, buf + 8, 16, HG_F16, &k);
    CHECK(s == HG_STATUS_SUCCESS, "interleaved A and C are valid: %s", hg_last_error(h));
    s = hg_plan(h, HG_OP_N, HG_OP_N, 4, 8, 8, buf, 16, buf + 512, 8, buf + 7, 16, HG_F16, &k);
    CHECK(s == HG_STATUS_INVALID_VALUE && strstr(hg_last_error(h), "shares elements with A"),
          "one shared element per row is refused: %s", hg_last_error(h));
    CHECK(strncmp(hg_last_error(h), "hg_plan:", 8) == 0, "hg_plan's sentence names it: %s", hg_last_error(h));
    s = hg_plan(h, HG_OP_N, HG_OP_N, 4, 8, 8, buf + 512, 16, buf + 7, 8, buf + 7 + 8 * 8 - 1, 16, HG_F16, &k);
    CHECK(s == HG_STATUS_INVALID_VALUE && strstr(hg_last_error(h), "shares elements with B"),
          "C on B's last element is refused: %s", hg_last_error(h));
    s = hg_plan(h, HG_OP_N, HG_OP_N, 4, 8, 8, buf + 512, 16, buf, 8, buf + 8 * 8, 16, HG_F16, &k);
    CHECK(s == HG_STATUS_SUCCESS, "C right after B: %s", hg_last_error(h));
    s = hg_gemm(h, HG_OP_N, HG_OP_N, 4, 8, 8, 1.0f, buf, 16, buf + 512, 8, 0.0f, buf + 7, 16, HG_F16);
    CHECK(s == HG_STATUS_INVALID_VALUE && strncmp(hg_last_error(h), "hg_gemm:", 8) == 0,
          "hg_gemm's sentence names it: %s", hg_last_error(h));
    /* alpha = 0: A and B are not read, so they may alias C. */
    for (int i = 0; i < 64; i++) buf[i] = (uint16_t)(0x7C01 + i); /* NaNs with payloads */
    const float alphas[] = {0.0f, INFINITY, NAN, 1.0f};
    for (int i = 0; i < 4; i++) {
        /* k = 0 (any alpha) or alpha = 0, with beta = 1: nothing to do, and
         * nothing launched (C is host memory here, which a launch would
         * fail on). */
        int64_t kk = alphas[i] == 0.0f ? 8 : 0;
        s = hg_gemm(h, HG_OP_N, HG_OP_T, 4, 8, kk, alphas[i], buf, 16, buf, 16, 1.0f, buf, 16, HG_BF16);
        CHECK(s == HG_STATUS_SUCCESS, "alpha %g, k %lld, beta 1: %s", alphas[i], (long long)kk, hg_last_error(h));
    }
    int same = 1;
    for (int i = 0; i < 64; i++) same &= buf[i] == (uint16_t)(0x7C01 + i);
    CHECK(same, "C untouched, bit for bit");
    hg_destroy(h);
}
