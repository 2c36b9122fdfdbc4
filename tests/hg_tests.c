/*
 * hopgemm's test runner. The CPU tier runs everywhere; the GPU tier
 * (gpu_tests.c) runs where hg_create finds a device and is counted as
 * skipped, with the reason, where it does not.
 *
 *   hg-tests [--cpu-only | --gpu-only] [--quick] [--kernel NAME]
 *   hg-tests --multi-gpu-probe   (run by the GPU tier's gpu/multi_gpu)
 *
 * Ends with the line "N passed, N failed, N skipped"; exits non-zero when a
 * test failed.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hg_internal.h"
#include "testlib.h"
#include "tiling.h"

hg_test_state hg_t;
int hg_gpu_quick;
const char *hg_gpu_kernel_filter;

/* ---- helpers -------------------------------------------------------------- */

static hg__device fake_device(int major, int minor)
{
    hg__device d = hg__device_h200_model();
    d.cc_major = major;
    d.cc_minor = minor;
    return d;
}

static hg_handle fake_handle(int major, int minor)
{
    hg__device d = fake_device(major, minor);
    hg_handle h = NULL;
    if (hg__create_for_device(&h, &d) != HG_STATUS_SUCCESS) return NULL;
    return h;
}

/* ---- status strings, names, the kernel table ------------------------------ */

static void test_status_strings(void)
{
    static const char *names[] = {"HG_STATUS_SUCCESS",         "HG_STATUS_INVALID_VALUE", "HG_STATUS_NOT_SUPPORTED",
                                  "HG_STATUS_NO_DEVICE",       "HG_STATUS_ARCH_MISMATCH", "HG_STATUS_ALLOC_FAILED",
                                  "HG_STATUS_EXECUTION_FAILED", "HG_STATUS_INTERNAL_ERROR"};
    for (int s = 0; s < 8; s++)
        CHECK(strcmp(hg_status_string((hg_status)s), names[s]) == 0, "status %d -> %s", s,
              hg_status_string((hg_status)s));
    CHECK(strcmp(hg_status_string((hg_status)8), "HG_STATUS_UNKNOWN") == 0, "8 is unknown");
    CHECK(strcmp(hg_status_string((hg_status)-1), "HG_STATUS_UNKNOWN") == 0, "-1 is unknown");
    /* The values are pinned by the design. */
    CHECK(HG_STATUS_SUCCESS == 0 && HG_STATUS_INVALID_VALUE == 1 && HG_STATUS_NOT_SUPPORTED == 2 &&
              HG_STATUS_NO_DEVICE == 3 && HG_STATUS_ARCH_MISMATCH == 4 && HG_STATUS_ALLOC_FAILED == 5 &&
              HG_STATUS_EXECUTION_FAILED == 6 && HG_STATUS_INTERNAL_ERROR == 7,
          "status values moved");
    CHECK(HG_F16 == 0 && HG_BF16 == 1 && HG_OP_N == 0 && HG_OP_T == 1, "dtype/op values moved");
    CHECK(HG_KERNEL_AUTO == 0 && HG_KERNEL_GENERIC == 1 && HG_KERNEL_V0 == 10 && HG_KERNEL_V6 == 16,
          "kernel values moved");
}

static void test_kernel_names_and_table(void)
{
    CHECK(strcmp(hg_kernel_name(HG_KERNEL_AUTO), "auto") == 0, "auto");
    CHECK(strcmp(hg_kernel_name(HG_KERNEL_GENERIC), "generic") == 0, "generic");
    CHECK(strcmp(hg_kernel_name(HG_KERNEL_V6), "v6") == 0, "v6");
    CHECK(hg_kernel_name((hg_kernel)2) == NULL, "2 is no kernel");
    CHECK(hg_kernel_name((hg_kernel)99) == NULL, "99 is no kernel");

    int n = hg_kernel_count();
    CHECK(n >= 2, "at least generic and v0 are registered (%d)", n);
    int generic_at = -1;
    for (int i = 0; i < n; i++) {
        hg_kernel id = HG_KERNEL_AUTO;
        const char *summary = NULL;
        const char *name = hg_kernel_info(i, &id, &summary);
        CHECK(name != NULL && summary != NULL && summary[0] != '\0', "entry %d complete", i);
        if (!name) continue;
        CHECK(id != HG_KERNEL_AUTO && hg_kernel_name(id) != NULL && strcmp(hg_kernel_name(id), name) == 0,
              "entry %d: id %d matches name %s", i, (int)id, name);
        if (id == HG_KERNEL_GENERIC) generic_at = i;
        for (int j = 0; j < i; j++) {
            hg_kernel other;
            hg_kernel_info(j, &other, NULL);
            CHECK(other != id, "kernel %s registered twice", name);
        }
    }
    CHECK(generic_at == n - 1, "generic is AUTO's last resort (at %d of %d)", generic_at, n);
    CHECK(hg_kernel_info(n, NULL, NULL) == NULL && hg_kernel_info(-1, NULL, NULL) == NULL, "out of range");

    /* A family configuration's name says what it is (configs.def's rule),
     * and its table entry models the cluster block it computes. */
#define HG_FAMILY_CONFIG(name, id, bm, bn, stages, cm, cn, early, c_thread, swap, pp, acc, layout, speed)                   \
    {                                                                                                              \
        char want[64];                                                                                             \
        snprintf(want, sizeof want, "sm90_%dx%dx64_s%d_c%dx%d%s%s%s%s_%s", bm, bn, stages, cm, cn, early ? "_er" : "", \
                 swap ? "_swap" : c_thread ? "_ct" : "", pp ? "_pp" : "", HG_FAM_ACC16_##acc ? "_f16acc" : "", #layout);           \
        CHECK(strcmp(#name, want) == 0, "configuration %s is named for what it is (%s)", #name, want);             \
        CHECK(!swap || c_thread, "%s: a swapped configuration writes C per thread", #name);                        \
        const hg__kernel_entry *e = hg__find_kernel(id);                                                           \
        const int um = swap ? (cn) * (bn) : (cm) * (bm), un = swap ? (cm) * (bm) : (cn) * (bn);                    \
        CHECK(e && e->unit_m == um && e->unit_n == un && e->units_per_sm * (cm) * (cn) == 1.0,                     \
              "%s: its entry models a %d x %d cluster block of C, one CTA per SM", #name, um, un);                 \
    }
#include "family/configs.def"
#undef HG_FAMILY_CONFIG
}

/* ---- handles and invalid arguments ---------------------------------------- */

static void test_null_handle(void)
{
    uint16_t buf[64];
    CHECK(hg_create(NULL) == HG_STATUS_INVALID_VALUE, "hg_create(NULL)");
    CHECK(hg_last_error(NULL)[0] != '\0', "a sentence for hg_create(NULL)");
    CHECK(hg_set_stream(NULL, NULL) == HG_STATUS_INVALID_VALUE, "set_stream(NULL)");
    CHECK(hg_set_kernel(NULL, HG_KERNEL_AUTO) == HG_STATUS_INVALID_VALUE, "set_kernel(NULL)");
    CHECK(hg_gemm(NULL, HG_OP_N, HG_OP_T, 2, 2, 2, 1.0f, buf, 2, buf + 8, 2, 0.0f, buf + 16, 2, HG_F16) ==
              HG_STATUS_INVALID_VALUE,
          "gemm(NULL)");
    hg_kernel k;
    CHECK(hg_plan(NULL, HG_OP_N, HG_OP_T, 2, 2, 2, buf, 2, buf + 8, 2, buf + 16, 2, HG_F16, &k) ==
              HG_STATUS_INVALID_VALUE,
          "plan(NULL)");
    size_t bytes;
    CHECK(hg_set_workspace(NULL, NULL, 0) == HG_STATUS_INVALID_VALUE, "set_workspace(NULL)");
    CHECK(hg_get_max_workspace_size(NULL, &bytes) == HG_STATUS_INVALID_VALUE, "get_max_workspace_size(NULL)");
    CHECK(hg_get_workspace_size(NULL, HG_OP_N, HG_OP_T, 2, 2, 2, buf, 2, buf + 8, 2, buf + 16, 2, HG_F16, &bytes) ==
              HG_STATUS_INVALID_VALUE,
          "get_workspace_size(NULL)");
    /* hg_last_error(NULL) keeps hg_create's reason through all of that. */
    CHECK(strstr(hg_last_error(NULL), "hg_create: out is NULL") != NULL, "hg_create's reason kept: %s",
          hg_last_error(NULL));
    hg_destroy(NULL); /* a no-op */
}

static void test_create(void)
{
    hg_handle h = NULL;
    hg_status s = hg_create(&h);
    if (s == HG_STATUS_NO_DEVICE) {
        CHECK(h == NULL, "no handle without a device");
        CHECK(strstr(hg_last_error(NULL), "device") != NULL, "the sentence says why: %s", hg_last_error(NULL));
    } else {
        CHECK(s == HG_STATUS_SUCCESS && h != NULL, "hg_create: %s (%s)", hg_status_string(s), hg_last_error(NULL));
        CHECK(hg_last_error(h)[0] == '\0', "no error on a fresh handle");
        CHECK(hg_set_stream(h, NULL) == HG_STATUS_SUCCESS, "default stream");
    }
    hg_destroy(h);
}

/* Every argument error: the status, a sentence, and no memory touched (the
 * "matrices" are host buffers whose contents must not change; nothing may be
 * launched, which on a machine without a driver would fail anyway). */
typedef struct {
    const char *what;
    hg_op opA, opB;
    int64_t m, n, k, lda, ldb, ldc;
    int a_null, b_null, c_null, odd, alias, dtype;
} bad_case;

static void test_invalid_arguments(void)
{
    hg_handle h = fake_handle(9, 0);
    CHECK(h != NULL, "fake handle");
    if (!h) return;
    static const bad_case cases[] = {
        {"negative m", HG_OP_N, HG_OP_T, -1, 4, 4, 4, 4, 4, 0, 0, 0, 0, 0, 0},
        {"negative n", HG_OP_N, HG_OP_T, 4, -1, 4, 4, 4, 4, 0, 0, 0, 0, 0, 0},
        {"negative k", HG_OP_N, HG_OP_T, 4, 4, -5, 4, 4, 4, 0, 0, 0, 0, 0, 0},
        {"lda < k (opA N)", HG_OP_N, HG_OP_T, 4, 4, 4, 3, 4, 4, 0, 0, 0, 0, 0, 0},
        {"lda < m (opA T)", HG_OP_T, HG_OP_T, 5, 4, 4, 4, 4, 4, 0, 0, 0, 0, 0, 0},
        {"ldb < k (opB T)", HG_OP_N, HG_OP_T, 4, 4, 6, 6, 5, 4, 0, 0, 0, 0, 0, 0},
        {"ldb < n (opB N)", HG_OP_N, HG_OP_N, 4, 7, 4, 4, 6, 7, 0, 0, 0, 0, 0, 0},
        {"ldc < n", HG_OP_N, HG_OP_T, 4, 4, 4, 4, 4, 3, 0, 0, 0, 0, 0, 0},
        {"lda = 0", HG_OP_N, HG_OP_T, 4, 4, 0, 0, 4, 4, 0, 0, 0, 0, 0, 0},
        {"A NULL", HG_OP_N, HG_OP_T, 4, 4, 4, 4, 4, 4, 1, 0, 0, 0, 0, 0},
        {"B NULL", HG_OP_N, HG_OP_T, 4, 4, 4, 4, 4, 4, 0, 1, 0, 0, 0, 0},
        {"C NULL", HG_OP_N, HG_OP_T, 4, 4, 4, 4, 4, 4, 0, 0, 1, 0, 0, 0},
        {"C NULL with k = 0", HG_OP_N, HG_OP_T, 4, 4, 0, 1, 1, 4, 0, 0, 1, 0, 0, 0},
        {"opA unknown", (hg_op)2, HG_OP_T, 4, 4, 4, 4, 4, 4, 0, 0, 0, 0, 0, 0},
        {"opB unknown", HG_OP_N, (hg_op)-1, 4, 4, 4, 4, 4, 4, 0, 0, 0, 0, 0, 0},
        {"dtype unknown", HG_OP_N, HG_OP_T, 4, 4, 4, 4, 4, 4, 0, 0, 0, 0, 0, 2},
        {"odd pointer", HG_OP_N, HG_OP_T, 4, 4, 4, 4, 4, 4, 0, 0, 0, 1, 0, 0},
        {"C aliases A", HG_OP_N, HG_OP_T, 4, 4, 4, 4, 4, 4, 0, 0, 0, 0, 1, 0},
        {"ld overflows", HG_OP_N, HG_OP_T, 4, 4, 4, INT64_MAX / 2, 4, 4, 0, 0, 0, 0, 0, 0},
    };
    static uint16_t mem[3][256];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const bad_case *c = &cases[i];
        for (int b = 0; b < 3; b++)
            for (int j = 0; j < 256; j++) mem[b][j] = (uint16_t)(0x3C00 + b * 7 + j);
        const void *A = c->a_null ? NULL : (const void *)mem[0];
        const void *B = c->b_null ? NULL : (const void *)mem[1];
        void *C = c->c_null ? NULL : (void *)mem[2];
        if (c->odd) A = (const char *)A + 1;
        if (c->alias) C = (void *)(mem[0] + 2);
        hg_dtype dt = (hg_dtype)c->dtype;
        hg_status s = hg_gemm(h, c->opA, c->opB, c->m, c->n, c->k, 1.0f, A, c->lda, B, c->ldb, 0.5f, C, c->ldc, dt);
        CHECK(s == HG_STATUS_INVALID_VALUE, "%s: got %s", c->what, hg_status_string(s));
        CHECK(strlen(hg_last_error(h)) > 10, "%s: a sentence (%s)", c->what, hg_last_error(h));
        hg_kernel k;
        s = hg_plan(h, c->opA, c->opB, c->m, c->n, c->k, A, c->lda, B, c->ldb, C, c->ldc, dt, &k);
        CHECK(s == HG_STATUS_INVALID_VALUE, "%s (plan): got %s", c->what, hg_status_string(s));
        int same = 1;
        for (int b = 0; b < 3; b++)
            for (int j = 0; j < 256; j++) same &= mem[b][j] == (uint16_t)(0x3C00 + b * 7 + j);
        CHECK(same, "%s: memory was touched", c->what);
    }
    /* Empty problems are valid with NULL pointers and nothing is launched. */
    CHECK(hg_gemm(h, HG_OP_N, HG_OP_T, 0, 5, 5, 1.0f, NULL, 5, NULL, 5, 0.0f, NULL, 5, HG_F16) == HG_STATUS_SUCCESS,
          "m = 0 does nothing: %s", hg_last_error(h));
    CHECK(hg_gemm(h, HG_OP_T, HG_OP_N, 5, 0, 5, 1.0f, NULL, 5, NULL, 1, 0.0f, NULL, 1, HG_BF16) == HG_STATUS_SUCCESS,
          "n = 0 does nothing: %s", hg_last_error(h));
    hg_kernel k = HG_KERNEL_AUTO;
    CHECK(hg_plan(h, HG_OP_N, HG_OP_T, 3, 3, 0, NULL, 1, NULL, 1, mem[2], 3, HG_F16, &k) == HG_STATUS_SUCCESS &&
              k == HG_KERNEL_GENERIC,
          "k = 0 with NULL A and B is valid and goes to generic");
    CHECK(hg_plan(h, HG_OP_N, HG_OP_T, 3, 3, 3, mem[0], 3, mem[1], 3, mem[2], 3, HG_F16, NULL) ==
              HG_STATUS_INVALID_VALUE,
          "plan with chosen NULL");
    /* Kernel choice. */
    CHECK(hg_set_kernel(h, (hg_kernel)5) == HG_STATUS_INVALID_VALUE, "5 is not a kernel");
    CHECK(hg_set_kernel(h, (hg_kernel)17) == HG_STATUS_INVALID_VALUE, "17 is not a kernel");
    CHECK(hg_set_kernel(h, HG_KERNEL_GENERIC) == HG_STATUS_SUCCESS, "generic is always there");
    for (int id = HG_KERNEL_V0; id <= HG_KERNEL_V6; id++) {
        hg_status s = hg_set_kernel(h, (hg_kernel)id);
        if (hg__find_kernel((hg_kernel)id))
            CHECK(s == HG_STATUS_SUCCESS, "%s is registered", hg_kernel_name((hg_kernel)id));
        else
            CHECK(s == HG_STATUS_NOT_SUPPORTED && strstr(hg_last_error(h), "not built"), "%s is not registered",
                  hg_kernel_name((hg_kernel)id));
    }
    hg_destroy(h);
}

static void test_arch_mismatch(void)
{
    hg_handle h = fake_handle(8, 0);
    CHECK(h != NULL, "fake handle");
    if (!h) return;
    static uint16_t mem[3][64];
    hg_status s = hg_gemm(h, HG_OP_N, HG_OP_T, 4, 4, 4, 1.0f, mem[0], 4, mem[1], 4, 0.0f, mem[2], 4, HG_F16);
    CHECK(s == HG_STATUS_ARCH_MISMATCH, "sm_80: got %s", hg_status_string(s));
    CHECK(strstr(hg_last_error(h), "sm_80") != NULL, "the sentence names the arch: %s", hg_last_error(h));
    hg_destroy(h);
    h = fake_handle(10, 0);
    if (!h) return;
    s = hg_gemm(h, HG_OP_N, HG_OP_T, 4, 4, 4, 1.0f, mem[0], 4, mem[1], 4, 0.0f, mem[2], 4, HG_F16);
    CHECK(s == HG_STATUS_ARCH_MISMATCH, "sm_100: got %s", hg_status_string(s));
    hg_destroy(h);
}

/* AUTO's choice for a TN call with lda = ldb = k on made-up pointers (never
 * dereferenced: hg_plan launches nothing). */
static void check_auto_pick(hg_handle h, const void *A, const void *B, void *C, int64_t m, int64_t n, int64_t k,
                            int64_t ldc, hg_dtype dt, hg_kernel want)
{
    hg_kernel got = HG_KERNEL_AUTO;
    CHECK(hg_plan(h, HG_OP_N, HG_OP_T, m, n, k, A, k, B, k, C, ldc, dt, &got) == HG_STATUS_SUCCESS && got == want,
          "%lld x %lld x %lld (ldc %lld, %s) takes %s, got %s", (long long)m, (long long)n, (long long)k,
          (long long)ldc, dt == HG_BF16 ? "bf16" : "f16", hg_kernel_name(want), hg_kernel_name(got));
}

/* AUTO's choices and an explicit kernel's refusals, on a made-up sm_90. The
 * pointers are never dereferenced: hg_plan launches nothing. */
static void test_dispatch(void)
{
    hg_handle h = fake_handle(9, 0);
    if (!h) return;
    char *base = (char *)(uintptr_t)0x10000000; /* 16-byte aligned, never touched */
    const void *A = base, *B = base + ((uintptr_t)1 << 36); /* far apart: large shapes must not overlap */
    void *C = base + ((uintptr_t)2 << 36);
    /* A small aligned TN call takes a TMA kernel: the family's smallest
     * unit when it is built (128 x 128 with a 2 x 1 cluster: measured at
     * 1024^3 0.587 of cuBLAS-best against 128 x 256's 0.455), else the
     * series' first. */
    hg_kernel first;
    hg_kernel_info(0, &first, NULL);
    if (hg__find_kernel(HG_KERNEL_SM90_128X128X64_S6_C2X1_TN)) first = HG_KERNEL_SM90_128X128X64_S6_C2X1_TN;
    hg_kernel k = HG_KERNEL_AUTO;
    CHECK(hg_plan(h, HG_OP_N, HG_OP_T, 256, 256, 256, A, 256, B, 256, C, 256, HG_F16, &k) == HG_STATUS_SUCCESS &&
              k == first,
          "TN aligned 256^3 takes %s, got %s", hg_kernel_name(first), hg_kernel_name(k));
    /* The other layouts: the family's configuration for it when built,
     * else generic; with an odd lda, the same kernel on a copy of A
     * (src/repack.c), which the workspace size counts. */
    static const hg_op ops[3][2] = {{HG_OP_N, HG_OP_N}, {HG_OP_T, HG_OP_T}, {HG_OP_T, HG_OP_N}};
    for (int i = 0; i < 3; i++) {
        hg_kernel want = HG_KERNEL_GENERIC;
        for (int j = 0; j < hg_kernel_count(); j++)
            if (hg__kernels[j].op_a == ops[i][0] && hg__kernels[j].op_b == ops[i][1] &&
                hg__kernels[j].id != HG_KERNEL_GENERIC && want == HG_KERNEL_GENERIC)
                want = hg__kernels[j].id;
        /* 256^3 is two small tiles: a layout's 128 x 128 row takes it, as for TN */
        if (i == 0 && hg__find_kernel(HG_KERNEL_SM90_128X128X64_S6_C2X1_TT)) want = HG_KERNEL_SM90_128X128X64_S6_C2X1_TT;
        CHECK(hg_plan(h, ops[i][0], ops[i][1], 256, 256, 256, A, 256, B, 256, C, 256, HG_BF16, &k) ==
                      HG_STATUS_SUCCESS &&
                  k == want,
              "layout %d goes to %s, got %s", i, hg_kernel_name(want), hg_kernel_name(k));
        CHECK(hg_plan(h, ops[i][0], ops[i][1], 256, 256, 256, A, 257, B, 256, C, 256, HG_BF16, &k) ==
                      HG_STATUS_SUCCESS &&
                  k == want,
              "layout %d with lda 257 goes to %s through a copy, got %s", i, hg_kernel_name(want),
              hg_kernel_name(k));
        size_t ws = 0;
        CHECK(hg_get_workspace_size(h, ops[i][0], ops[i][1], 256, 256, 256, A, 257, B, 256, C, 256, HG_BF16, &ws) ==
                      HG_STATUS_SUCCESS &&
                  (want == HG_KERNEL_GENERIC ? ws == 0 : ws >= (size_t)256 * 256 * 2),
              "layout %d with lda 257: the workspace holds A's copy (%zu bytes)", i, ws);
    }
    CHECK(hg_plan(h, HG_OP_N, HG_OP_T, 256, 256, 256, base + 2, 256, B, 256, C, 256, HG_F16, &k) ==
                  HG_STATUS_SUCCESS &&
              k == first,
          "a 2-byte aligned A goes to %s through a copy, got %s", hg_kernel_name(first), hg_kernel_name(k));
    CHECK(hg_plan(h, HG_OP_N, HG_OP_T, 256, 256, 250, A, 250, B, 256, C, 256, HG_F16, &k) == HG_STATUS_SUCCESS &&
              k == first,
          "lda not a multiple of 8 goes to %s through a copy, got %s", hg_kernel_name(first), hg_kernel_name(k));
    /* A caller's workspace without room for the copy: generic reads A as it is. */
    CHECK(hg_set_workspace(h, (void *)(uintptr_t)0x20000000, 4096) == HG_STATUS_SUCCESS &&
              hg_plan(h, HG_OP_N, HG_OP_T, 256, 256, 250, A, 250, B, 256, C, 256, HG_F16, &k) == HG_STATUS_SUCCESS &&
              k == HG_KERNEL_GENERIC,
          "lda 250 with a 4 KiB workspace goes to generic, got %s", hg_kernel_name(k));
    CHECK(hg_set_workspace(h, NULL, 0) == HG_STATUS_SUCCESS, "the library's workspace again");
    /* C that breaks TMA's rule: the family's _ct configuration writes it per
     * thread (measured ahead of V6, which also does), else V6; the others
     * need TMA for it. */
    const hg_kernel ct = HG_KERNEL_SM90_128X256X64_S4_C2X1_CT_TN;
    hg_kernel want_odd_c = hg__find_kernel(ct)             ? ct
                           : hg__find_kernel(HG_KERNEL_V6) ? HG_KERNEL_V6
                                                           : HG_KERNEL_GENERIC;
    CHECK(hg_plan(h, HG_OP_N, HG_OP_T, 256, 250, 256, A, 256, B, 256, C, 250, HG_F16, &k) == HG_STATUS_SUCCESS &&
              k == want_odd_c,
          "ldc not a multiple of 8 goes to %s, got %s", hg_kernel_name(want_odd_c), hg_kernel_name(k));
    CHECK(hg_plan(h, HG_OP_N, HG_OP_T, 256, 256, 256, A, 256, B, 256, base + ((uintptr_t)2 << 36) + 2, 256, HG_F16,
                  &k) == HG_STATUS_SUCCESS &&
              k == want_odd_c,
          "a 2-byte aligned C goes to %s, got %s", hg_kernel_name(want_odd_c), hg_kernel_name(k));
    if (hg__find_kernel(HG_KERNEL_V5)) {
        CHECK(hg_set_kernel(h, HG_KERNEL_V5) == HG_STATUS_SUCCESS &&
                  hg_plan(h, HG_OP_N, HG_OP_T, 256, 250, 256, A, 256, B, 256, C, 250, HG_F16, &k) ==
                      HG_STATUS_NOT_SUPPORTED &&
                  strstr(hg_last_error(h), "ldc") != NULL,
              "v5 refuses an odd ldc: %s", hg_last_error(h));
        CHECK(hg_set_kernel(h, HG_KERNEL_AUTO) == HG_STATUS_SUCCESS, "back to auto");
    }
    CHECK(hg_plan(h, HG_OP_N, HG_OP_T, 255, 251, 77, A, 80, B, 88, C, 256, HG_F16, &k) == HG_STATUS_SUCCESS &&
              k == first,
          "odd m, n, k with aligned lds still take %s", hg_kernel_name(first));
    /* AUTO's model: the family's 128 x 256 configuration on the large
     * squares and the MLP shape (measured on the H200: 1.001, 0.973 and
     * 0.999 of cuBLAS-best, against V6's 0.974, 0.872 and V5's 0.885 at
     * 4096^3); where C breaks TMA's rule, its _ct twin (at 8192 x 8191 x
     * 8192, 1.606 ms against V6's 1.638, median of 3 processes). */
    const hg_kernel fam = HG_KERNEL_SM90_128X256X64_S4_C2X1_TN;
    if (hg__find_kernel(fam) && hg__find_kernel(ct)) {
        /* m = n = k, except: the MLP shape; an ldc of 8191. 3072^3 and 512 x
         * 6144 x 4096 take the 128 x 192 row where it is built (0.945 and
         * 0.955 of cuBLAS-best against 128 x 256's 0.830 and 0.697, fresh
         * 3). */
        const hg_kernel mid =
            hg__find_kernel(HG_KERNEL_SM90_128X192X64_S4_C2X1_TN) ? HG_KERNEL_SM90_128X192X64_S4_C2X1_TN : fam;
        const struct {
            int64_t m, n, k, ldc;
            hg_kernel want;
        } picks[] = {{8192, 8192, 8192, 8192, fam},   {4096, 4096, 4096, 4096, fam}, {8192, 28672, 8192, 28672, fam},
                     {3072, 3072, 3072, 3072, mid},   {512, 6144, 4096, 6144, mid},  {8192, 8191, 8192, 8191, ct}};
        /* Each twice in a row (the second from the handle's last choice),
         * then in the other order (every call a new key). */
        const size_t npicks = sizeof picks / sizeof picks[0];
        for (size_t i = 0; i < 2 * npicks; i++)
            check_auto_pick(h, A, B, C, picks[i / 2].m, picks[i / 2].n, picks[i / 2].k, picks[i / 2].ldc, HG_F16,
                            picks[i / 2].want);
        for (size_t i = npicks; i-- > 0;)
            check_auto_pick(h, A, B, C, picks[i].m, picks[i].n, picks[i].k, picks[i].ldc, HG_F16, picks[i].want);
    }
    /* Decode-sized m (H200, median of 3): the narrowest swapped row whose
     * tile holds m, or a narrower one over up to HG_SWAP_MAX_M_UNITS m units
     * when that keeps whole tiles (64 x 8192 x 8192: 128 x 32 in 2 units
     * 39.2 us, 128 x 64 split 45.5; 128 x 8192 x 8192: 128 x 64 in 2 units
     * 42.5, 128 x 128 49.9; 128 x 1024 x 4096: 128 x 64 15.4, the unswapped
     * 128 x 128 18.4), but not when the narrower row's tiles are split (64 x
     * 8192 x 28672: 128 x 64 129 us, 128 x 32 162); a swapped row is never
     * picked past HG_SWAP_MAX_M_UNITS units or hg__swap_max_m, nor for a large
     * m; an odd ldc keeps the swapped row (it writes C per thread). Over
     * one unit of m, a one-consumer (64-row) tile whose whole tiles make one
     * wave (n = 8192), when m nearly fills it (fresh 3, 2026-12-01: 1 x 8192
     * x 8192 fp16 on 64 x 16 38.5 us, 128 x 16 40.3; 16 x 8192 x 8192 bf16
     * 39.3, 40.5; 48 and 64 x 8192 x 8192 fp16 on 64 x 64 39.0 and 39.5, 128
     * x 32 39.9; 64 x 8192 x 28672 bf16 123.0, 128 x 64 126.9); and since
     * a swapped row's one wave of at least HG_SWAP_WHOLE_TILES of the slots
     * runs whole, 1 x 6144 x 4096 (96 tiles) too (2026-12-02: 64 x 16 whole
     * 21.1 us, 128 x 16 cut 21.6). At m = 128 with n = 6144 the swapped 128
     * x 64 row's 96 whole tiles, not 128 x 128 cut into 2.75 pieces a tile
     * (HG_SWAP_FIXUP_S) nor the unswapped 2 x 1 cluster tile half empty
     * (2026-12-02, bf16: 23.8 us fresh 3, 28.2, 40). Past m = 128 the wide
     * swapped 128 x 128 row where its tiles make one whole wave (256 x 6144 x
     * 4096: 28.9 us against 128 x 192's 37.8; 512 x 4096 x 14336: 87.5 fresh
     * 3, 128 x 192 90.7), and at 128 x 4096 x 4096 the 64 x 64 row's whole
     * wave, not 128 x 128 cut into 4.1 pieces a tile (21.5 us, 24.3), and so
     * at 128 x 4096 x 14336 (2026-12-02, after the warp-run producer: 39.2
     * us, 47.8); 1024 x
     * 1024 x 32768 keeps the unswapped row (HG_SWAP_WIDE_GAIN only past m =
     * 128 and up to 512). */
    {
        static const struct {
            int64_t m, n, k, ldc;
            hg_kernel want;
        } dec[] = {{1, 8192, 8192, 8192, HG_KERNEL_SM90_64X16X64_S8_C1X1_SWAP_TN},
                   {16, 8192, 8192, 8192, HG_KERNEL_SM90_64X16X64_S8_C1X1_SWAP_TN},
                   {1, 6144, 4096, 6144, HG_KERNEL_SM90_64X16X64_S8_C1X1_SWAP_TN},
                   {32, 4096, 14336, 4096, HG_KERNEL_SM90_128X32X64_S10_C1X1_SWAP_TN},
                   {48, 8192, 8192, 8192, HG_KERNEL_SM90_64X64X64_S12_C1X1_SWAP_TN},
                   {64, 8192, 8192, 8192, HG_KERNEL_SM90_64X64X64_S12_C1X1_SWAP_TN},
                   {64, 8192, 28672, 8192, HG_KERNEL_SM90_64X64X64_S12_C1X1_SWAP_TN},
                   {64, 57344, 8192, 57344, HG_KERNEL_SM90_128X64X64_S8_C1X1_SWAP_TN},
                   {128, 8192, 8192, 8192, HG_KERNEL_SM90_128X64X64_S8_C1X1_SWAP_TN},
                   {128, 1024, 4096, 1024, HG_KERNEL_SM90_128X64X64_S8_C1X1_SWAP_TN},
                   {128, 6144, 4096, 6144, HG_KERNEL_SM90_128X64X64_S8_C1X1_SWAP_TN},
                   {128, 4096, 4096, 4096, HG_KERNEL_SM90_64X64X64_S12_C1X1_SWAP_TN},
                   {128, 4096, 14336, 4096, HG_KERNEL_SM90_64X64X64_S12_C1X1_SWAP_TN},
                   {256, 6144, 4096, 6144, HG_KERNEL_SM90_128X128X64_S6_C1X1_SWAP_TN},
                   {512, 4096, 14336, 4096, HG_KERNEL_SM90_128X128X64_S6_C1X1_SWAP_TN},
                   {128, 28672, 4096, 28672, HG_KERNEL_SM90_128X128X64_S6_C1X1_SWAP_TN},
                   {1, 50257, 4096, 50257, HG_KERNEL_SM90_128X16X64_S6_C1X1_SWAP_TN},
                   /* m = 257-512 over a narrow n: one whole wave of up to
                    * HG_SWAP_MAX_M_UNITS_WHOLE units (hg_internal.h) */
                   {512, 512, 512, 512, HG_KERNEL_SM90_128X16X64_S6_C1X1_SWAP_TN},
                   {512, 256, 1024, 256, HG_KERNEL_SM90_64X16X64_S8_C1X1_SWAP_TN}};
        /* The whole-tile rule itself: one wave, at least HG_SWAP_WHOLE_TILES
         * of the slots. */
        CHECK(hg__swap_whole_tiles(96, 132) && hg__swap_whole_tiles(132, 132), "96 and 132 tiles on 132 run whole");
        CHECK(!hg__swap_whole_tiles(64, 132) && !hg__swap_whole_tiles(133, 132),
              "64 tiles (too few) and 133 (past one wave) on 132 are cut by stream-K's rule");
        for (size_t i = 0; i < sizeof dec / sizeof dec[0]; i++)
            if (hg__find_kernel(dec[i].want))
                check_auto_pick(h, A, B, C, dec[i].m, dec[i].n, dec[i].k, dec[i].ldc, HG_BF16, dec[i].want);
        hg__problem big;
        memset(&big, 0, sizeof big);
        /* n = 1024: too few tiles for a whole wave, which would let a swapped
         * row serve a larger m (hg__estimate). */
        big.opA = HG_OP_N, big.opB = HG_OP_T, big.m = 4096, big.n = 1024, big.k = 4096;
        hg__device dv = fake_device(9, 0);
        for (int i = 0; i < hg__kernel_count; i++) {
            const hg__kernel_entry *e = &hg__kernels[i];
            if (!e->swap_ab) continue;
            hg__problem over = big;
            const int64_t max_m = hg__swap_max_m(e);
            over.m = e->unit_m * HG_SWAP_MAX_M_UNITS < max_m ? e->unit_m * HG_SWAP_MAX_M_UNITS + 1 : max_m + 1;
            CHECK(hg__estimate(e, &over, &dv) == 0.0, "%s is not weighed for m = %lld", e->name, (long long)over.m);
            over.m = e->unit_m + 1;
            CHECK(over.m > HG_SWAP_MAX_M || hg__estimate(e, &over, &dv) > 0.0, "%s is weighed for m = %lld",
                  e->name, (long long)over.m);
        }
        CHECK(hg_plan(h, HG_OP_N, HG_OP_T, 4096, 4096, 4096, A, 4096, B, 4096, C, 4096, HG_BF16, &k) ==
                      HG_STATUS_SUCCESS &&
                  !hg__find_kernel(k)->swap_ab,
              "4096^3 takes an unswapped kernel, got %s", hg_kernel_name(k));
        CHECK(hg_plan(h, HG_OP_N, HG_OP_T, 1024, 1024, 32768, A, 32768, B, 32768, C, 1024, HG_F16, &k) ==
                      HG_STATUS_SUCCESS &&
                  !hg__find_kernel(k)->swap_ab,
              "1024 x 1024 x 32768 takes an unswapped kernel, got %s", hg_kernel_name(k));
    }
    /* V6 against V5 in the model: V6 where its cluster tiles fill the
     * waves, V5 where they do not (4096^3: 208 tile pairs on 66 clusters). */
    if (hg__find_kernel(HG_KERNEL_V6) && hg__find_kernel(HG_KERNEL_V5)) {
        /* With a workspace the model counts V6's stream-K tail: higher at
         * 4096^3 (measured 0.777 -> 0.870), still below V5 (0.880). */
        hg__device ws_dev = fake_device(9, 0);
        ws_dev.workspace_bytes = hg__ws_max_bytes(&ws_dev); /* what a call may get */
        hg__problem sq;
        memset(&sq, 0, sizeof sq);
        sq.m = sq.n = sq.k = 4096;
        const hg__kernel_entry *e6 = hg__find_kernel(HG_KERNEL_V6), *e5 = hg__find_kernel(HG_KERNEL_V5);
        hg__device no_ws = fake_device(9, 0);
        double with = hg__estimate(e6, &sq, &ws_dev), without = hg__estimate(e6, &sq, &no_ws);
        CHECK(with > without * 1.05, "stream-K raises v6's 4096^3 estimate (%g -> %g)", without, with);
        CHECK(with < hg__estimate(e5, &sq, &ws_dev), "v5 still wins 4096^3 (v6 %g, v5 %g)", with,
              hg__estimate(e5, &sq, &ws_dev));
        sq.m = sq.n = sq.k = 8192;
        CHECK(hg__estimate(e6, &sq, &ws_dev) > hg__estimate(e5, &sq, &ws_dev), "v6 wins 8192^3 with a workspace");
        /* Too little workspace for the tail's workers: planned without it. */
        hg__device small = ws_dev;
        small.workspace_bytes = hg__ws_counter_bytes(&small) + HG_V6_SK_WORKER_BYTES;
        sq.m = sq.n = sq.k = 4096;
        CHECK(fabs(hg__estimate(e6, &sq, &small) - without) < 1e-12, "a small workspace: no tail in the model");
        hg_handle hw = NULL;
        if (hg__create_for_device(&hw, &ws_dev) == HG_STATUS_SUCCESS) {
            CHECK(hg_plan(hw, HG_OP_N, HG_OP_T, 4096, 4096, 4096, A, 4096, B, 4096, C, 4096, HG_F16, &k) ==
                          HG_STATUS_SUCCESS &&
                      k == (hg__find_kernel(fam) ? fam : HG_KERNEL_V5),
                  "4096^3 with a workspace takes %s, got %s", hg_kernel_name(hg__find_kernel(fam) ? fam : HG_KERNEL_V5),
                  hg_kernel_name(k));
            /* A caller's workspace: any 256-byte aligned memory, never touched
             * here (hg_plan launches nothing). */
            CHECK(hg_set_workspace(hw, (void *)(uintptr_t)0x100000, 4096) == HG_STATUS_SUCCESS, "set_workspace");
            CHECK(hg_plan(hw, HG_OP_N, HG_OP_T, 8192, 8192, 8192, A, 8192, B, 8192, C, 8192, HG_F16, &k) ==
                          HG_STATUS_SUCCESS &&
                      k == (hg__find_kernel(fam) ? fam : HG_KERNEL_V6),
                  "8192^3 with a small workspace still takes %s, got %s",
                  hg_kernel_name(hg__find_kernel(fam) ? fam : HG_KERNEL_V6), hg_kernel_name(k));
            CHECK(hg_set_workspace(hw, (void *)(uintptr_t)0x100010, 4096) == HG_STATUS_INVALID_VALUE &&
                      strstr(hg_last_error(hw), "aligned") != NULL,
                  "a misaligned workspace: %s", hg_last_error(hw));
            CHECK(hg_set_workspace(hw, NULL, 4096) == HG_STATUS_INVALID_VALUE, "NULL with bytes");
            CHECK(hg_set_workspace(hw, NULL, 0) == HG_STATUS_SUCCESS, "NULL hands it back");
            size_t most = 0;
            CHECK(hg_get_max_workspace_size(hw, &most) == HG_STATUS_SUCCESS &&
                      most == hg__ws_counter_bytes(&ws_dev) + 66 * HG_V6_SK_WORKER_BYTES +
                                  hg__slices_max_bytes(&ws_dev),
                  "the most any call uses: the counters, 66 workers' partials and the largest slices' (%zu)", most);
            CHECK(hg_get_max_workspace_size(hw, NULL) == HG_STATUS_INVALID_VALUE, "NULL bytes");
            hg_destroy(hw); /* does not free a workspace it did not allocate */
        }
    }
    /* The estimate: the full-wave speed on full waves, less on a partial one. */
    hg__device dev = fake_device(9, 0);
    hg__problem q;
    memset(&q, 0, sizeof q);
    q.m = 128 * 132;
    q.n = 256;
    const hg__kernel_entry *v5 = hg__find_kernel(HG_KERNEL_V5);
    if (v5) {
        CHECK(fabs(hg__estimate(v5, &q, &dev) - v5->speed) < 1e-12, "one full wave: %g", hg__estimate(v5, &q, &dev));
        q.m = 128 * 133;
        CHECK(fabs(hg__estimate(v5, &q, &dev) - v5->speed * 133.0 / 264.0) < 1e-12, "one tile into a second wave");
    }
    for (int i = 0; i < hg_kernel_count(); i++)
        CHECK(hg__kernels[i].speed > 0 && hg__kernels[i].speed <= 2 && hg__kernels[i].unit_m > 0 &&
                  hg__kernels[i].unit_n > 0 && hg__kernels[i].units_per_sm > 0,
              "%s has a model", hg__kernels[i].name);
    /* An explicit TMA kernel refuses what it cannot serve, with the reason:
     * another layout (the names are the flips of the ops), a misaligned A.
     * Asked with the kernel's own accumulation (an _f16acc row: 16F, fp16). */
    for (int i = 0; i < hg_kernel_count(); i++) {
        hg_kernel id;
        const char *name = hg_kernel_info(i, &id, NULL);
        if (id == HG_KERNEL_GENERIC) continue;
        const hg_op oa = hg__kernels[i].op_a, ob = hg__kernels[i].op_b;
        const hg_op other_a = oa == HG_OP_N ? HG_OP_T : HG_OP_N;
        char layout[3] = {oa == HG_OP_N ? 'T' : 'N', ob == HG_OP_N ? 'T' : 'N', 0};
        CHECK(hg_set_kernel(h, id) == HG_STATUS_SUCCESS, "choose %s", name);
        hg_matmul_desc md = HG_MATMUL_DESC_INIT;
        md.opA = other_a, md.opB = ob, md.m = md.n = md.k = 256, md.A = A, md.B = B, md.C = C;
        md.lda = md.ldb = md.ldc = 256, md.compute = hg__kernels[i].acc16 ? HG_COMPUTE_16F : HG_COMPUTE_32F;
        hg_status s = hg_matmul_plan(h, &md, &k);
        CHECK(s == HG_STATUS_NOT_SUPPORTED && strstr(hg_last_error(h), layout) != NULL,
              "%s refuses another layout, naming its own (%s): %s (%s)", name, layout, hg_status_string(s),
              hg_last_error(h));
        md.opA = oa, md.A = base + 2;
        s = hg_matmul_plan(h, &md, &k);
        CHECK(s == HG_STATUS_SUCCESS && k == id, "%s runs a misaligned A through a copy: %s", name,
              hg_last_error(h));
        md.A = A, md.dtype = HG_BF16;
        if (!hg__kernels[i].acc16) {
            s = hg_matmul_plan(h, &md, &k);
            CHECK(s == HG_STATUS_SUCCESS && k == id, "%s serves %s bf16", name, layout);
        }
        md.k = 0, md.dtype = hg__kernels[i].acc16 ? HG_F16 : HG_BF16;
        s = hg_matmul_plan(h, &md, &k);
        CHECK(s == HG_STATUS_SUCCESS && k == HG_KERNEL_GENERIC, "k = 0 with %s chosen is C = beta C by generic",
              name);
    }
    hg_destroy(h);
}

/* The plan of a copy of A or B (src/repack.c): which operand is copied,
 * its padded pitch and bytes, the kernel's view of the call, and the
 * copies kept clear of the workspace's counters. */
static void test_repack_plan(void)
{
    const hg__device d = hg__device_h200_model();
    char *base = (char *)(uintptr_t)0x10000000;
    const void *A = base, *B = base + ((uintptr_t)1 << 36);
    void *C = base + ((uintptr_t)2 << 36);
    hg__repack r;
    /* Aligned: nothing to copy; k = 0: nothing is read. */
    hg__problem p = hg__problem_make(HG_OP_N, HG_OP_T, 300, 500, 256, 1.0f, A, 256, B, 256, 0.0f, C, 504, HG_F16);
    CHECK(hg__repack_plan(&p, &r) == 0, "aligned A and B need no copy");
    p = hg__problem_make(HG_OP_N, HG_OP_T, 300, 500, 0, 1.0f, A, 3, B, 3, 0.0f, C, 504, HG_F16);
    CHECK(hg__repack_plan(&p, &r) == 0, "k = 0 reads neither");
    /* Each layout with one ragged operand: rows x cols as stored. */
    static const struct {
        hg_op oa, ob;
        int64_t lda, ldb;
        int64_t rows, cols, pitch; /* of the copied operand */
        int copies_a;
    } cases[] = {
        {HG_OP_N, HG_OP_T, 257, 256, 300, 256, 256, 1}, /* TN, A m x k with lda 257 */
        {HG_OP_N, HG_OP_N, 256, 501, 256, 500, 504, 0}, /* TT, B k x n with ldb 501 */
        {HG_OP_T, HG_OP_T, 301, 256, 256, 300, 304, 1}, /* NN, A k x m with lda 301 */
        {HG_OP_T, HG_OP_N, 304, 503, 256, 500, 504, 0}, /* NT, B k x n with ldb 503 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        p = hg__problem_make(cases[i].oa, cases[i].ob, 300, 500, 256, 1.0f, A, cases[i].lda, B, cases[i].ldb, 0.0f, C,
                             504, HG_F16);
        CHECK(hg__repack_plan(&p, &r) == 1, "case %zu: a copy", i);
        const size_t bytes = cases[i].copies_a ? r.a_bytes : r.b_bytes;
        const size_t other = cases[i].copies_a ? r.b_bytes : r.a_bytes;
        const int64_t pitch = cases[i].copies_a ? r.inner.lda : r.inner.ldb;
        const void *copy = cases[i].copies_a ? r.inner.A : r.inner.B;
        const void *kept = cases[i].copies_a ? r.inner.B : r.inner.A;
        CHECK(other == 0 && kept == (cases[i].copies_a ? B : A), "case %zu: the other operand is read in place", i);
        CHECK(pitch == cases[i].pitch && pitch % 8 == 0, "case %zu: pitch %lld, want %lld", i, (long long)pitch,
              (long long)cases[i].pitch);
        CHECK(bytes >= (size_t)(cases[i].rows * cases[i].pitch * 2) && bytes % HG_WS_ALIGN == 0,
              "case %zu: %zu bytes hold %lld rows of %lld", i, bytes, (long long)cases[i].rows,
              (long long)cases[i].pitch);
        CHECK(((uintptr_t)copy % 16) == 0 && hg__tma_layout_ab_can_serve(&r.inner, &d, p.opA, p.opB) == NULL,
              "case %zu: the kernel's view meets TMA's rules", i);
        CHECK(hg__repack_workspace(&r, &d, 0) >= hg__ws_counter_bytes(&d) + bytes,
              "case %zu: the copy lies behind the counters", i);
        CHECK(hg__repack_workspace(&r, &d, 1000000) >= 1000000 + bytes, "case %zu: and behind the kernel's part", i);
        const double f = hg__repack_factor(&r, &p, 0.9);
        CHECK(f > 0.0 && f < 1.0, "case %zu: the copies cost a share of the time (%g)", i, f);
    }
    /* A base off 16 bytes is copied even with an aligned lda. */
    p = hg__problem_make(HG_OP_N, HG_OP_T, 300, 500, 256, 1.0f, base + 2, 256, B, 256, 0.0f, C, 504, HG_F16);
    CHECK(hg__repack_plan(&p, &r) == 1 && r.a_bytes > 0 && r.b_bytes == 0 && r.inner.lda == 256,
          "a misaligned A is copied at its own pitch");
}

/* ---- the CPU reference ---------------------------------------------------- */

static void test_conversions(void)
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
static void test_reference_by_hand(void)
{
    const float a[3][2] = {{1, 2}, {3, 4}, {5, 6}};
    const float b[2][4] = {{1, 0, 2, 1}, {0, 1, 1, -1}};
    const double prod[3][4] = {{1, 2, 4, -1}, {3, 4, 10, -1}, {5, 6, 16, -1}};
    for (int layout = 0; layout < 4; layout++)
        for (int dt = 0; dt < 2; dt++) {
            hg__problem p;
            memset(&p, 0, sizeof p);
            p.opA = (hg_op)(layout & 1);
            p.opB = (hg_op)(layout >> 1);
            p.m = 3;
            p.n = 4;
            p.k = 2;
            p.alpha = 2.0f;
            p.beta = -1.0f;
            p.dtype = (hg_dtype)dt;
            uint16_t A[16], B[16], C[16];
            p.lda = p.opA == HG_OP_N ? 3 : 4; /* larger than needed */
            p.ldb = p.opB == HG_OP_N ? 5 : 3;
            p.ldc = 5;
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
    hg__problem p;
    memset(&p, 0, sizeof p);
    p.opA = HG_OP_N;
    p.opB = HG_OP_T;
    p.m = p.n = p.k = 1;
    p.lda = p.ldb = p.ldc = 1;
    p.alpha = 1.0f;
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

/* ---- host-side tile logic --------------------------------------------------- */

static void test_rasterization(void)
{
    static const int64_t shapes[][3] = {{1, 1, 4}, {7, 5, 4}, {8, 8, 8}, {13, 33, 8}, {64, 64, 4}, {3, 100, 8}, {100, 3, 4}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int64_t mb = shapes[s][0], nb = shapes[s][1], g = shapes[s][2];
        char *seen = (char *)calloc((size_t)(mb * nb), 1);
        int ok = 1, band_ok = 1;
        for (int64_t t = 0; t < mb * nb; t++) {
            int64_t m, n;
            hg_raster_tile(t, mb, nb, g, &m, &n);
            if (m < 0 || m >= mb || n < 0 || n >= nb || seen[m * nb + n]) {
                ok = 0;
                break;
            }
            seen[m * nb + n] = 1;
            if (n / g != t / (mb * g)) band_ok = 0; /* each band of g columns is walked whole */
        }
        CHECK(ok, "raster %lldx%lld group %lld is a bijection", (long long)mb, (long long)nb, (long long)g);
        CHECK(band_ok, "raster %lldx%lld group %lld walks bands in order", (long long)mb, (long long)nb, (long long)g);
        free(seen);
    }
    int64_t m, n;
    hg_raster_tile(5, 4, 8, 4, &m, &n); /* band 0 (cols 0-3), row 1, col 1 */
    CHECK(m == 1 && n == 1, "tile 5 of 4x8 group 4 is (1,1), got (%lld,%lld)", (long long)m, (long long)n);
    hg_raster_tile(4 * 8 - 1, 4, 8, 4, &m, &n);
    CHECK(m == 3 && n == 7, "last tile is (3,7)");
    hg_raster_tile(16, 4, 5, 4, &m, &n); /* narrow last band (1 column) starts after 4 x 4 tiles */
    CHECK(m == 0 && n == 4, "first tile of the narrow band is (0,4), got (%lld,%lld)", (long long)m, (long long)n);
    CHECK(hg_cdiv(0, 64) == 0 && hg_cdiv(1, 64) == 1 && hg_cdiv(64, 64) == 1 && hg_cdiv(65, 64) == 2, "cdiv");
    CHECK(hg_cdiv(((int64_t)1 << 40) + 1, 128) == ((int64_t)1 << 33) + 1, "cdiv is 64-bit");

    /* The family's walk divides by precomputed divisors: the same order. */
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const int64_t mb = shapes[s][0], nb = shapes[s][1], g = shapes[s][2];
        const hg_fastdiv per_band = hg_fastdiv_make((uint32_t)(mb * g));
        const hg_fastdiv last = hg_fastdiv_make((uint32_t)hg_raster_last_width(nb, g));
        int same = 1;
        for (int64_t t = 0; t < mb * nb && same; t++) {
            int64_t m0, n0, m1, n1;
            hg_raster_tile(t, mb, nb, g, &m0, &n0);
            hg_raster_tile_fast((uint32_t)t, per_band, last, (uint32_t)nb, (uint32_t)g, &m1, &n1);
            same = m0 == m1 && n0 == n1;
        }
        CHECK(same, "fast raster %lldx%lld group %lld walks as hg_raster_tile", (long long)mb, (long long)nb,
              (long long)g);
    }
}

/* The divisors test_fastdiv tries: 1 .. 4096, then x 1.5 steps, then 2^31. */
static uint64_t next_divisor(uint64_t d)
{
    const uint64_t last = (uint64_t)1 << 31;
    if (d < 4096 || d == last) return d + 1;
    return d * 3 / 2 < last ? d * 3 / 2 : last;
}

/* hg_fastdiv against the division it replaces: every divisor up to 2^12 and
 * a spread to 2^31, each with numerators at the edges (0, multiples of d and
 * their neighbours, the top of the range) and a pseudo-random spread. */
static void test_fastdiv(void)
{
    const uint32_t top = ((uint32_t)1 << 31) - 1; /* the largest numerator it serves */
    uint64_t bad = 0, tried = 0, x = 0x9E3779B97F4A7C15ull;
    for (uint64_t d = 1; d <= ((uint64_t)1 << 31); d = next_divisor(d)) {
        const uint32_t dd = (uint32_t)d; /* 1 .. 4096, then a spread, then 2^31 */
        const hg_fastdiv f = hg_fastdiv_make(dd);
        uint32_t probes[16 + 64];
        int np = 0;
        const uint32_t edges[] = {0, 1, dd - 1, dd, dd + 1, 2 * dd - 1, 2 * dd, top, top - 1, top - dd,
                                  top / dd * dd, top / dd * dd - 1};
        for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
            if (edges[i] <= top) probes[np++] = edges[i];
        for (int i = 0; i < 64; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            probes[np++] = (uint32_t)(x % ((uint64_t)top + 1));
        }
        for (int i = 0; i < np; i++, tried++) bad += hg_fastdiv_q(f, probes[i]) != probes[i] / dd;
    }
    CHECK(bad == 0, "fastdiv: %llu of %llu quotients wrong", (unsigned long long)bad, (unsigned long long)tried);
}

/* The stream-K plan (tiling.h) as V6's producer and consumers walk it: every
 * (tile, k block) exactly once, the tail split only where it pays, at most
 * two pieces per worker in distinct workspace slots, and each piece's view of
 * its tile (first and last worker, every worker's slot) the same as the
 * pieces that really exist. */
static void check_sk_plan_split(int64_t tiles, int64_t k_tiles, int64_t workers, int enable, int64_t max_split)
{
    hg_sk_plan p = hg_sk_make_split(tiles, k_tiles, workers, enable, max_split);
    int64_t rem = tiles % workers;
    int ok_shape = p.tiles == tiles && p.k_tiles == k_tiles && p.workers == workers;
    if (p.sk_workers == 0) {
        ok_shape = ok_shape && p.dp_tiles == tiles;
    } else {
        int64_t total = rem * k_tiles;
        ok_shape = ok_shape && enable && rem != 0 && p.dp_tiles == tiles - rem && p.sk_workers > rem &&
                   p.sk_workers <= workers && total / p.sk_workers >= HG_SK_MIN_BLOCKS &&
                   p.sk_workers <= rem * max_split && k_tiles - hg_cdiv(total, p.sk_workers) >= HG_SK_MIN_GAIN;
    }
    CHECK(ok_shape, "plan T=%lld K=%lld W=%lld: dp %lld, S %lld", (long long)tiles, (long long)k_tiles,
          (long long)workers, (long long)p.dp_tiles, (long long)p.sk_workers);
    int64_t nt = tiles * k_tiles;
    unsigned char *seen = (unsigned char *)calloc((size_t)nt, 1);
    /* the slot each worker's piece of each tail tile uses, or -1 */
    int64_t *slot_of = (int64_t *)malloc(sizeof(int64_t) * (size_t)(workers * (rem + 1)));
    int ok = seen && slot_of, views = 1, order = 1, whole = 1;
    for (int64_t i = 0; ok && i < workers * (rem + 1); i++) slot_of[i] = -1;
    for (int64_t w = 0; ok && w < workers; w++) {
        hg_sk_cursor c = hg_sk_start(&p, w);
        hg_sk_piece pc;
        int tail_pieces = 0, used[2] = {0, 0};
        while (hg_sk_next(&p, &c, &pc)) {
            if (pc.tile < 0 || pc.tile >= tiles || pc.k_begin < 0 || pc.k_end > k_tiles || pc.k_begin >= pc.k_end) {
                ok = 0;
                break;
            }
            for (int64_t kb = pc.k_begin; kb < pc.k_end; kb++) seen[pc.tile * k_tiles + kb]++;
            if (pc.tile < p.dp_tiles) {
                whole &= pc.k_begin == 0 && pc.k_end == k_tiles && pc.sk_tile < 0 && pc.tile % workers == w;
                continue;
            }
            int64_t j = pc.tile - p.dp_tiles;
            tail_pieces++;
            if (pc.sk_tile < 0) { /* a tail tile that one worker holds whole */
                whole &= pc.k_begin == 0 && pc.k_end == k_tiles;
                continue;
            }
            views &= pc.sk_tile == j && pc.sk_tile < workers && pc.first_worker <= w && w <= pc.last_worker &&
                     (pc.k_begin == 0) == (w == pc.first_worker) && (pc.k_end == k_tiles) == (w == pc.last_worker);
            order &= pc.slot == (tail_pieces == 1 ? 0 : 1) && !used[pc.slot];
            used[pc.slot] = 1;
            slot_of[w * (rem + 1) + j] = pc.slot;
        }
        CHECK(tail_pieces <= 2, "T=%lld K=%lld W=%lld: worker %lld has %d tail pieces", (long long)tiles,
              (long long)k_tiles, (long long)workers, (long long)w, tail_pieces);
    }
    int64_t wrong = 0;
    for (int64_t i = 0; ok && i < nt; i++) wrong += seen[i] != 1;
    CHECK(ok && wrong == 0, "T=%lld K=%lld W=%lld: %lld (tile, k block)s not covered exactly once", (long long)tiles,
          (long long)k_tiles, (long long)workers, (long long)wrong);
    CHECK(whole && views && order, "T=%lld K=%lld W=%lld: whole %d, views %d, slots %d", (long long)tiles,
          (long long)k_tiles, (long long)workers, whole, views, order);
    /* The last piece of tail tile j reads the partials of workers first ..
     * last from the slots hg_sk_slot_of names: each holds a piece of j there. */
    for (int64_t j = 0; ok && p.sk_workers > 0 && j < rem; j++) {
        int64_t first = hg_sk_worker_of(&p, j * k_tiles), last = hg_sk_worker_of(&p, (j + 1) * k_tiles - 1);
        int good = first <= last;
        for (int64_t v = first; first < last && v <= last; v++)
            good &= slot_of[v * (rem + 1) + j] == hg_sk_slot_of(&p, v, j);
        CHECK(good, "T=%lld K=%lld W=%lld: tail tile %lld, workers %lld-%lld", (long long)tiles, (long long)k_tiles,
              (long long)workers, (long long)j, (long long)first, (long long)last);
    }
    free(seen), free(slot_of);
}

static void check_sk_plan(int64_t tiles, int64_t k_tiles, int64_t workers, int enable)
{
    check_sk_plan_split(tiles, k_tiles, workers, enable, HG_SK_MAX_SPLIT);
    check_sk_plan_split(tiles, k_tiles, workers, enable, HG_FAM_SK_MAX_SPLIT(128, 16));
}

static void test_stream_k_plan(void)
{
    static const int64_t cases[][3] = {
        {832, 128, 66},  /* 8192^3 on V6: 12 rounds + 40 tile pairs */
        {208, 64, 66},   /* 4096^3 */
        {1, 32, 66},     /* one tile, split */
        {4, 129, 66},    {70, 128, 66}, {70, 63, 66}, {224, 16, 66}, {8, 16, 66}, {56, 32, 66},
        {65, 9, 66},     {67, 1000, 66}, {131, 200, 66}, {5, 7, 3}, {10, 100, 7}, {3, 3, 2}, {66, 128, 66},
        {1, 1, 1},       {100, 40, 1}, {2048, 8, 60}, {97, 513, 13},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        check_sk_plan(cases[i][0], cases[i][1], cases[i][2], 1);
        check_sk_plan(cases[i][0], cases[i][1], cases[i][2], 0);
    }
    /* a sweep of small cases */
    for (int64_t w = 1; w <= 9; w++)
        for (int64_t t = 1; t <= 3 * w + 1; t++)
            for (int64_t k = 1; k <= 70; k += 3) check_sk_plan(t, k, w, 1);
    hg_sk_plan p = hg_sk_make(832, 128, 66, 1);
    CHECK(p.dp_tiles == 792 && p.sk_workers == 66, "8192^3 splits its 40 tail pairs over all 66 clusters");
    p = hg_sk_make(832, 128, 66, 0);
    CHECK(p.sk_workers == 0, "disabled: no split");
    p = hg_sk_make(792, 128, 66, 1);
    CHECK(p.sk_workers == 0, "full rounds: no split");
    p = hg_sk_make(70, 10, 66, 1);
    CHECK(p.sk_workers == 0, "a short k: the tail would not shrink by HG_SK_MIN_GAIN");
    /* a long k: 256 x 256 x 131072 on the 128 x 128 row (2 cluster blocks of
     * 2048 k blocks) cuts each block 32 ways, not 8, and reaches 64 of the
     * 66 clusters; a short k keeps the row's own limit */
    CHECK(hg_sk_split_for_k(8, 2048, 2, 66) == 32 && hg_sk_split_for_k(8, 64, 2, 66) == 8 &&
              hg_sk_split_for_k(4, 511, 1, 66) == 7,
          "hg_sk_split_for_k");
    /* 1024 x 1024 x 32768 on the 128 x 256 row: 16 cluster blocks in 4
     * pieces already reach 64 of 66 clusters, so the row's own limit stays */
    CHECK(hg_sk_split_for_k(4, 512, 16, 66) == 4, "a long k with enough tiles keeps max_split");
    p = hg_sk_make_split(2, 2048, 66, 1, hg_sk_split_for_k(HG_FAM_SK_MAX_SPLIT(128, 128), 2048, 2, 66));
    CHECK(p.dp_tiles == 0 && p.sk_workers == 64, "256 x 256 x 131072 splits over 64 clusters, got %lld",
          (long long)p.sk_workers);
    check_sk_plan_split(2, 2048, 66, 1, hg_sk_split_for_k(HG_FAM_SK_MAX_SPLIT(128, 128), 2048, 2, 66));
    check_sk_plan_split(5, 4099, 132, 1, hg_sk_split_for_k(HG_SK_MAX_SPLIT, 4099, 5, 132));
    /* decode on a swapped row: 32 tiles of 128 x 16 along n = 4096, k = 14336
     * (224 k blocks) spread over every SM, not 4 pieces per tile */
    p = hg_sk_make_split(32, 224, 132, 1, HG_FAM_SK_MAX_SPLIT(128, 16));
    CHECK(p.dp_tiles == 0 && p.sk_workers == 132, "32 small tiles split over all 132 SMs, got %lld",
          (long long)p.sk_workers);
}

static void test_tensor_map_params(void)
{
    hg__tmap_params t;
    memset(&t, 0, sizeof t);
    t.elem_bytes = 2;
    t.rank = 2;
    t.dim[0] = 8192;
    t.dim[1] = 8192;
    t.stride1 = 8192 * 2;
    t.box[0] = 64;
    t.box[1] = 256;
    t.swizzle_bytes = 128;
    const void *base = (const void *)(uintptr_t)0x1000;
    CHECK(hg__tmap_check(&t, base) == NULL, "the TN operand map is valid");
    CHECK(hg__tmap_check(&t, (const char *)base + 8) != NULL, "an 8-byte aligned base is not");
    hg__tmap_params u = t;
    u.stride1 = 8200 * 2 + 2;
    CHECK(hg__tmap_check(&u, base) != NULL, "a stride of 8201 elements is not");
    u = t;
    u.box[1] = 320;
    CHECK(hg__tmap_check(&u, base) != NULL, "a 320-row box is not (<= 256)");
    u = t;
    u.box[0] = 128;
    CHECK(hg__tmap_check(&u, base) != NULL, "a 256-byte inner box under a 128-byte swizzle is not");
    u = t;
    u.dim[0] = 1;
    CHECK(hg__tmap_check(&u, base) == NULL, "k = 1 is fine (the box reaches past the edge)");
    u = t;
    u.dim[1] = 0;
    CHECK(hg__tmap_check(&u, base) != NULL, "an empty dimension is not");
    u = t;
    u.swizzle_bytes = 0;
    u.box[0] = 160;
    u.box[1] = 64;
    CHECK(hg__tmap_check(&u, base) == NULL, "the V6 store box (160 x 64, no swizzle) is valid");
    /* The family's 3-D maps: a batch of matrices. */
    u = t;
    u.rank = 3;
    u.batch = 512;
    u.stride2 = 8192ull * 8192 * 2;
    CHECK(hg__tmap_check(&u, base) == NULL, "a batch of 512 whole matrices is valid");
    u.stride2 += 2;
    CHECK(hg__tmap_check(&u, base) != NULL, "a matrix stride off 16 bytes is not");
    u.stride2 = 1ull << 40;
    CHECK(hg__tmap_check(&u, base) != NULL, "a matrix stride of 2^40 bytes is not");
    u.stride2 = 16;
    u.batch = 0;
    CHECK(hg__tmap_check(&u, base) != NULL, "an empty batch is not");
    u = t;
    u.rank = 4;
    CHECK(hg__tmap_check(&u, base) != NULL, "rank 4 is not");
    /* L2 promotion: by the row pitch unless the caller chooses. */
    CHECK(hg__tmap_l2_promo(&t) == 256, "rows on 128-byte lines promote 256 bytes, got %d", hg__tmap_l2_promo(&t));
    u = t;
    u.stride1 = 3000 * 2;
    CHECK(hg__tmap_l2_promo(&u) == 128, "rows off 128-byte lines promote 128, got %d", hg__tmap_l2_promo(&u));
    u.l2_promo_bytes = 256;
    CHECK(hg__tmap_check(&u, base) == NULL && hg__tmap_l2_promo(&u) == 256, "a chosen 256 overrides the pitch rule");
    u = t;
    u.l2_promo_bytes = 128;
    CHECK(hg__tmap_check(&u, base) == NULL && hg__tmap_l2_promo(&u) == 128, "a chosen 128 overrides the pitch rule");
    u.l2_promo_bytes = 64;
    CHECK(hg__tmap_check(&u, base) != NULL, "a promotion of 64 bytes is not");
}

static void test_tma_conditions(void)
{
    hg__device d = fake_device(9, 0);
    hg__problem p;
    memset(&p, 0, sizeof p);
    p.opA = HG_OP_N;
    p.opB = HG_OP_T;
    p.m = p.n = p.k = 100;
    p.lda = p.ldb = p.ldc = 104;
    p.A = (const void *)(uintptr_t)0x1000;
    p.B = (const void *)(uintptr_t)0x100000;
    p.C = (void *)(uintptr_t)0x200000;
    CHECK(hg__tma_tn_can_serve(&p, &d) == NULL, "TN aligned");
    hg__problem q = p;
    q.ldb = 100;
    CHECK(hg__tma_tn_can_serve(&q, &d) != NULL, "ldb 100");
    q = p;
    q.C = (void *)(uintptr_t)0x200008;
    CHECK(hg__tma_tn_can_serve(&q, &d) != NULL, "C 8-byte aligned");
    CHECK(hg__tma_ab_can_serve(&q, &d) == NULL && !hg__tma_c_ok(&q), "... which A and B do not mind");
    q.C = p.C;
    q.ldc = 101;
    CHECK(hg__tma_tn_can_serve(&q, &d) != NULL && hg__tma_ab_can_serve(&q, &d) == NULL && !hg__tma_c_ok(&q),
          "ldc 101: C alone breaks TMA's rule");
    CHECK(hg__tma_c_ok(&p), "aligned C is TMA's");
    q = p;
    q.opB = HG_OP_N;
    CHECK(hg__tma_tn_can_serve(&q, &d) != NULL, "TT");
    hg__device old = fake_device(8, 9);
    CHECK(hg__tma_tn_can_serve(&p, &old) != NULL, "sm_89");
}

/* The inputs and the checking rule the tests and the tool share. */
static void test_testkit(void)
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

/* The overlap rule against brute force: every element of each region
 * marked, on random small regions (ld >= cols) at random offsets. */
static void test_overlap_exact(void)
{
    uint64_t s = 0x243F6A8885A308D3ull;
#define NEXT() (s ^= s << 13, s ^= s >> 7, s ^= s << 17, s)
    static unsigned char mark[4096];
    int meets = 0, apart = 0;
    for (int t = 0; t < 20000; t++) {
        hg__region r[2];
        for (int i = 0; i < 2; i++) {
            r[i].rows = 1 + (int64_t)(NEXT() % 12);
            r[i].cols = 1 + (int64_t)(NEXT() % 20);
            r[i].ld = r[i].cols + (int64_t)(NEXT() % 25);
            r[i].base = (int64_t)(NEXT() % 300);
        }
        memset(mark, 0, sizeof mark);
        int brute = 0;
        for (int i = 0; i < 2; i++)
            for (int64_t a = 0; a < r[i].rows; a++)
                for (int64_t b = 0; b < r[i].cols; b++) {
                    int64_t e = r[i].base + a * r[i].ld + b;
                    if (i == 0) mark[e] = 1;
                    else if (mark[e]) brute = 1;
                }
        int got = hg__regions_meet(r[0], r[1]);
        if (got != brute) {
            CHECK(got == brute,
                  "regions %lldx%lld ld %lld at %lld and %lldx%lld ld %lld at %lld: brute %d, got %d",
                  (long long)r[0].rows, (long long)r[0].cols, (long long)r[0].ld, (long long)r[0].base,
                  (long long)r[1].rows, (long long)r[1].cols, (long long)r[1].ld, (long long)r[1].base, brute, got);
            break;
        }
        CHECK(hg__regions_meet(r[1], r[0]) == got, "symmetric");
        brute ? meets++ : apart++;
    }
#undef NEXT
    CHECK(meets > 1000 && apart > 1000, "both outcomes exercised (%d meet, %d apart)", meets, apart);
    /* Far apart and huge: answered without walking rows. */
    hg__region big = {0, (int64_t)1 << 40, 1000, 1001};
    hg__region thin = {1000, (int64_t)1 << 40, 1, 1001};
    CHECK(!hg__regions_meet(big, thin), "a column in the gaps of 2^40 rows");
    thin.base = 999;
    CHECK(hg__regions_meet(big, thin), "a column through the last element of each row");
}

/* The call's corners on a made-up sm_90 (nothing is launched): interleaved
 * A and C are valid, shared elements are not; k = 0 or alpha = 0 with beta = 1
 * leaves C as it was; hg_plan's sentences name hg_plan. */
/* hg_matmul: its descriptor's rules and its refusals, on a made-up sm_90
 * (nothing is launched: every call here fails before that). */
/* hg_matmul's strided batch: the descriptor's new fields, every refusal
 * with its sentence, the series' refusal, and which kernels AUTO plans (the
 * family for TMA-able strides, GENERIC otherwise). */
static void test_matmul_batch(void)
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
    CHECK(hg_matmul(h, &t) == HG_STATUS_INVALID_VALUE && strstr(hg_last_error(h), "batch_count must be >= 0"),
          "a negative batch: %s", hg_last_error(h));
    t = d;
    t.batch_count = 0;
    CHECK(hg_matmul(h, &t) == HG_STATUS_SUCCESS, "an empty batch does nothing: %s", hg_last_error(h));
    t = d;
    t.stride_b = -SB;
    CHECK(hg_matmul(h, &t) == HG_STATUS_INVALID_VALUE && strstr(hg_last_error(h), "strides must be >= 0"),
          "a negative stride: %s", hg_last_error(h));
    t = d;
    t.stride_c = SC - 1;
    CHECK(hg_matmul(h, &t) == HG_STATUS_INVALID_VALUE && strstr(hg_last_error(h), "stride_c"),
          "products of C that overlap: %s", hg_last_error(h));
    t = d;
    t.C = base + 2 * SA * (BATCH - 1) - 2; /* inside A's last product */
    CHECK(hg_matmul(h, &t) == HG_STATUS_INVALID_VALUE && strstr(hg_last_error(h), "A range meets C"),
          "C's range meeting A's: %s", hg_last_error(h));
    t = d;
    t.bias = (const char *)t.C + 2 * SC * BATCH; /* just past C's range */
    t.stride_bias = N;
    CHECK(hg_matmul_plan(h, &t, &k) == HG_STATUS_SUCCESS, "a bias per product after C: %s", hg_last_error(h));
    t.bias = (const char *)t.C + 2 * SC * (BATCH - 1);
    CHECK(hg_matmul(h, &t) == HG_STATUS_INVALID_VALUE && strstr(hg_last_error(h), "bias range meets C"),
          "a bias inside C's range: %s", hg_last_error(h));
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
               {SA, 0, SC, "one B for every product"},
               {SA - 8, SB, SC, "A's products overlapping"},
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

static void test_matmul_desc(void)
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
    CHECK(hg_matmul(h, &t) == HG_STATUS_INVALID_VALUE && strstr(hg_last_error(h), "desc->size"),
          "a size short of the fields up to activation: %s", hg_last_error(h));
    t = d;
    t.activation = (hg_activation)7;
    CHECK(hg_matmul(h, &t) == HG_STATUS_INVALID_VALUE && strstr(hg_last_error(h), "activation"),
          "an activation off the enum: %s", hg_last_error(h));
    t = d;
    t.bias = base + 3 * 65536 + 1;
    CHECK(hg_matmul(h, &t) == HG_STATUS_INVALID_VALUE && strstr(hg_last_error(h), "bias must be 2-byte aligned"),
          "a bias off 2 bytes: %s", hg_last_error(h));
    t = d;
    t.bias = (const char *)t.C + 2 * 64 * 10; /* C's row 10 */
    CHECK(hg_matmul(h, &t) == HG_STATUS_INVALID_VALUE && strstr(hg_last_error(h), "bias shares elements with C"),
          "a bias inside C: %s", hg_last_error(h));
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
    CHECK(hg_matmul(h, &t) == HG_STATUS_INVALID_VALUE && strstr(hg_last_error(h), "compute is not"),
          "a compute off the enum: %s", hg_last_error(h));
    t.compute = HG_COMPUTE_16F, t.dtype = HG_BF16;
    CHECK(hg_matmul(h, &t) == HG_STATUS_INVALID_VALUE && strstr(hg_last_error(h), "HG_F16 only"),
          "16F with bf16: %s", hg_last_error(h));
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
static void test_matmul_c_f32(void)
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
    CHECK(hg_matmul(h, &t) == HG_STATUS_INVALID_VALUE && strstr(hg_last_error(h), "c_type is not"),
          "a c_type off the enum: %s", hg_last_error(h));
    t = d;
    t.C = base + 2 * 65536 + 2;
    CHECK(hg_matmul(h, &t) == HG_STATUS_INVALID_VALUE && strstr(hg_last_error(h), "4-byte aligned"),
          "an fp32 C off 4 bytes: %s", hg_last_error(h));
    t.c_type = HG_C_AS_INPUTS;
    CHECK(hg_matmul_plan(h, &t, &k) == HG_STATUS_SUCCESS, "... is fine for 16-bit C: %s", hg_last_error(h));
    /* C's 64 x 64 fp32 elements take 16 KiB: B placed 8 KiB past C's start
     * meets it as fp32, not as 16-bit elements (which end there). */
    t = d;
    t.B = (const char *)t.C + 8192;
    CHECK(hg_matmul(h, &t) == HG_STATUS_INVALID_VALUE && strstr(hg_last_error(h), "C shares elements with B"),
          "fp32 C's span meets B: %s", hg_last_error(h));
    t.c_type = HG_C_AS_INPUTS;
    CHECK(hg_matmul_plan(h, &t, &k) == HG_STATUS_SUCCESS, "... a 16-bit C ends where B starts: %s", hg_last_error(h));
    t = d;
    t.bias = (const char *)t.C + 4 * 64 * 63 + 200; /* inside C's last fp32 row */
    CHECK(hg_matmul(h, &t) == HG_STATUS_INVALID_VALUE && strstr(hg_last_error(h), "bias shares elements with C"),
          "a bias inside an fp32 C: %s", hg_last_error(h));
    /* A batch: stride_c in fp32 elements, at least C's span. */
    t = d;
    t.batch_count = 2, t.stride_a = t.stride_b = 64 * 64, t.stride_c = 64 * 64 - 1;
    t.B = base + 0x40000000, t.C = base + 0x80000000;
    CHECK(hg_matmul(h, &t) == HG_STATUS_INVALID_VALUE && strstr(hg_last_error(h), "stride_c"),
          "fp32 products of C overlapping: %s", hg_last_error(h));
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

static void test_call_corners(void)
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

/* src/slices.c's plan on the H200 model: which products it cuts, into how
 * many slices, and the batch it makes of them. */
static void test_slices_plan(void)
{
    const hg__kernel_entry *k = hg__find_kernel(HG_KERNEL_SM90_128X128X64_S6_C2X1_TN);
    const hg__kernel_entry *nt = hg__find_kernel(HG_KERNEL_SM90_128X256X64_S4_C2X1_NT);
    if (!k || !nt) SKIP("the 128 x 128 TN or the NT family row is not built");
    hg__device d = hg__device_h200_model();
    d.workspace_bytes = SIZE_MAX;
    const void *A = (const void *)(uintptr_t)0x100000000ull, *B = (const void *)(uintptr_t)0x200000000ull;
    void *C = (void *)(uintptr_t)0x300000000ull;
    hg__problem p = hg__problem_make(HG_OP_N, HG_OP_T, 256, 256, 131072, 1.0f, A, 131072, B, 131072, 0.0f, C, 256,
                                     HG_F16);
    hg__slices sl;
    /* 2 cluster tiles on 66 clusters: 32 slices of 4096 (33 does not divide k) */
    CHECK(hg__slices_plan(k, &p, &d, &sl) == 1 && sl.slices == 32 && sl.inner.k == 4096 && sl.inner.batch == 32,
          "256 x 256 x 131072: %lld slices of %lld", (long long)sl.slices, (long long)sl.inner.k);
    CHECK(sl.inner.stride_a == 4096 && sl.inner.stride_b == 4096 && sl.inner.sliced_k == 1 &&
              sl.inner.c_type == HG_C_F32 && sl.inner.ldc == 256 && sl.inner.stride_c == 256 * 256 &&
              sl.inner.alpha == 1.0f && sl.inner.beta == 0.0f && sl.inner.bias == NULL,
          "the slices' batch");
    CHECK(sl.bytes >= (size_t)32 * 256 * 256 * 4, "the partials' bytes: %zu", sl.bytes);
    const double est = hg__slices_estimate(k, &p, &sl, &d);
    CHECK(est > 0.0 && est < hg__estimate(k, &sl.inner, &d), "the sums cost something: %g against %g", est,
          hg__estimate(k, &sl.inner, &d));
    /* the partials' pitch: whole float4s */
    p.n = 250;
    CHECK(hg__slices_plan(k, &p, &d, &sl) == 1 && sl.ldw == 252, "n = 250: pitch %lld", (long long)sl.ldw);
    p.n = 256;
    /* no cut of k into equal rows of 8 elements */
    p.k = 131068, p.lda = p.ldb = 131072;
    CHECK(hg__slices_plan(k, &p, &d, &sl) == 0, "k = 131068 is not sliced");
    /* slices shorter than 512 (1000 = 8 x 125: 5 slices of 200 at most) */
    p.k = 1000, p.lda = p.ldb = 1000;
    CHECK(hg__slices_plan(k, &p, &d, &sl) == 0, "k = 1000 is not sliced");
    p.lda = p.ldb = 131072;
    p.k = 131072;
    /* tiles that fill the device; a batch */
    p.m = p.n = 4096, p.ldc = 4096;
    CHECK(hg__slices_plan(k, &p, &d, &sl) == 0, "4096 x 4096 x 131072 is not sliced");
    p.m = p.n = 256, p.ldc = 256;
    p.batch = 2, p.stride_a = p.stride_b = 256 * 131072, p.stride_c = 256 * 256;
    CHECK(hg__slices_plan(k, &p, &d, &sl) == 0, "a batch is not sliced");
    p.batch = 1, p.stride_a = p.stride_b = p.stride_c = 0;
    /* MN-major operands step k rows down */
    hg__problem q = hg__problem_make(HG_OP_T, HG_OP_N, 256, 256, 131072, 1.0f, A, 256, B, 256, 0.0f, C, 256, HG_F16);
    CHECK(hg__slices_plan(nt, &q, &d, &sl) == 1 && sl.inner.stride_a == sl.inner.k * 256 &&
              sl.inner.stride_b == sl.inner.k * 256,
          "NT: slices step %lld and %lld elements", (long long)sl.inner.stride_a, (long long)sl.inner.stride_b);
    /* AUTO takes them for 256 x 256 x 131072, and not with too little workspace */
    hg_handle h = NULL;
    if (hg__create_for_device(&h, &d) != HG_STATUS_SUCCESS) {
        CHECK(0, "handle");
        return;
    }
    hg_matmul_desc desc = HG_MATMUL_DESC_INIT;
    desc.opA = HG_OP_N, desc.opB = HG_OP_T, desc.m = 256, desc.n = 256, desc.k = 131072;
    desc.A = A, desc.lda = 131072, desc.B = B, desc.ldb = 131072, desc.C = C, desc.ldc = 256, desc.dtype = HG_F16;
    int64_t slices = 0;
    CHECK(hg__matmul_plan_slices(h, &desc, &slices) == HG_STATUS_SUCCESS && slices >= 2,
          "AUTO runs 256 x 256 x 131072 in %lld slices", (long long)slices);
    size_t ws = 0, most = 0;
    CHECK(hg_matmul_workspace_size(h, &desc, &ws) == HG_STATUS_SUCCESS &&
              ws >= (size_t)slices * 256 * 256 * 4,
          "its workspace: %zu bytes for %lld slices", ws, (long long)slices);
    /* the most a call can use covers the slices' partials with the largest
     * kernel plan beside them */
    CHECK(hg_get_max_workspace_size(h, &most) == HG_STATUS_SUCCESS && most >= ws &&
              most >= hg__ws_max_kernel_bytes(&d) + sl.bytes,
          "the most workspace %zu covers %zu", most, ws);
    /* a caller's workspace of that size takes the slices */
    CHECK(hg_set_workspace(h, (void *)(uintptr_t)0x100000, most) == HG_STATUS_SUCCESS &&
              hg__matmul_plan_slices(h, &desc, &slices) == HG_STATUS_SUCCESS && slices >= 2,
          "%zu bytes of workspace: %lld slices", most, (long long)slices);
    CHECK(hg_set_workspace(h, (void *)(uintptr_t)0x100000, 1 << 20) == HG_STATUS_SUCCESS, "set_workspace");
    CHECK(hg__matmul_plan_slices(h, &desc, &slices) == HG_STATUS_SUCCESS && slices == 0,
          "1 MiB of workspace: %lld slices", (long long)slices);
    hg_destroy(h);
}

static const hg_test_case cpu_tests[] = {
    {"cpu/status_strings", test_status_strings},
    {"cpu/kernel_names_and_table", test_kernel_names_and_table},
    {"cpu/null_handle", test_null_handle},
    {"cpu/create", test_create},
    {"cpu/invalid_arguments", test_invalid_arguments},
    {"cpu/arch_mismatch", test_arch_mismatch},
    {"cpu/dispatch", test_dispatch},
    {"cpu/repack_plan", test_repack_plan},
    {"cpu/slices_plan", test_slices_plan},
    {"cpu/conversions", test_conversions},
    {"cpu/reference_by_hand", test_reference_by_hand},
    {"cpu/rasterization", test_rasterization},
    {"cpu/fastdiv", test_fastdiv},
    {"cpu/stream-k-plan", test_stream_k_plan},
    {"cpu/tensor_map_params", test_tensor_map_params},
    {"cpu/tma_conditions", test_tma_conditions},
    {"cpu/testkit", test_testkit},
    {"cpu/overlap_exact", test_overlap_exact},
    {"cpu/call_corners", test_call_corners},
    {"cpu/matmul_desc", test_matmul_desc},
    {"cpu/matmul_c_f32", test_matmul_c_f32},
    {"cpu/matmul_batch", test_matmul_batch},
};

static int passed, failed, skipped;

/* --test PART: only the groups whose name holds PART. */
static const char *test_filter;

static void run(const hg_test_case *t)
{
    memset(&hg_t, 0, sizeof hg_t);
    if (test_filter && strstr(t->name, test_filter) == NULL) {
        skipped++;
        printf("skip %s: filtered out by --test\n", t->name);
        return;
    }
    t->fn();
    if (hg_t.skip_reason) {
        skipped++;
        printf("skip %s: %s\n", t->name, hg_t.skip_reason);
    } else if (hg_t.failures || hg_t.checks == 0) {
        failed++;
        printf("FAIL %s (%d of %d checks failed%s)\n", t->name, hg_t.failures, hg_t.checks,
               hg_t.checks == 0 ? "; a test that checks nothing fails" : "");
    } else {
        passed++;
        printf("ok   %s (%d checks)\n", t->name, hg_t.checks);
    }
    fflush(stdout);
}

int main(int argc, char **argv)
{
    int cpu = 1, gpu = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--cpu-only")) gpu = 0;
        else if (!strcmp(argv[i], "--gpu-only")) cpu = 0;
        else if (!strcmp(argv[i], "--quick")) hg_gpu_quick = 1;
        else if (!strcmp(argv[i], "--kernel") && i + 1 < argc) hg_gpu_kernel_filter = argv[++i];
        else if (!strcmp(argv[i], "--test") && i + 1 < argc) test_filter = argv[++i];
        else if (!strcmp(argv[i], "--multi-gpu-probe")) return hg_multi_gpu_probe();
        else {
            fprintf(stderr, "usage: hg-tests [--cpu-only | --gpu-only] [--quick] [--kernel NAME] [--test PART] | "
                            "--multi-gpu-probe\n");
            return 2;
        }
    }
    if (cpu)
        for (size_t i = 0; i < sizeof cpu_tests / sizeof cpu_tests[0]; i++) run(&cpu_tests[i]);
    if (gpu) {
        hg_handle h = NULL;
        hg_status s = hg_create(&h);
        if (s != HG_STATUS_SUCCESS) {
            for (int i = 0; i < hg_gpu_test_count + hg_gpu_stream_test_count; i++) {
                skipped++;
                printf("skip %s: no GPU (%s)\n",
                       i < hg_gpu_test_count ? hg_gpu_tests[i].name : hg_gpu_stream_tests[i - hg_gpu_test_count].name,
                       hg_last_error(NULL));
            }
        } else {
            hg_destroy(h);
            for (int i = 0; i < hg_gpu_test_count; i++) run(&hg_gpu_tests[i]);
            for (int i = 0; i < hg_gpu_stream_test_count; i++) run(&hg_gpu_stream_tests[i]);
        }
    }
    printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
    return failed ? 1 : 0;
}
