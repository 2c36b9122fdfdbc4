/*
 * The CPU tier: status strings, kernel names and the kernel table, handles,
 * every argument error and the architecture check.
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

void test_status_strings(void)
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

void test_kernel_names_and_table(void)
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
#define HG_FAMILY_CONFIG(name, id, bm, bn, stages, cm, cn, ck, early, c_thread, swap, pp, acc, layout, speed)                   \
    {                                                                                                              \
        char want[64], k_split[16] = "";                                                                           \
        if ((ck) > 1) snprintf(k_split, sizeof k_split, "_k%d", ck);                                               \
        snprintf(want, sizeof want, "sm90_%dx%dx64_s%d_c%dx%d%s%s%s%s%s_%s", bm, bn, stages, cm, cn, k_split,       \
                 early ? "_er" : "",                                                                               \
                 swap ? "_swap" : c_thread ? "_ct" : "", pp ? "_pp" : "", HG_FAM_ACC16_##acc ? "_f16acc" : "", #layout);           \
        CHECK(strcmp(#name, want) == 0, "configuration %s is named for what it is (%s)", #name, want);             \
        CHECK(!swap || c_thread, "%s: a swapped configuration writes C per thread", #name);                        \
        const hg__kernel_entry *e = hg__find_kernel(id);                                                           \
        const int um = swap ? (cn) * (bn) : (cm) * (bm), un = swap ? (cm) * (bm) : (cn) * (bn);                    \
        CHECK(e && e->unit_m == um && e->unit_n == un && e->units_per_sm * (cm) * (cn) * (ck) == 1.0,              \
              "%s: its entry models a %d x %d cluster block of C, one CTA per SM", #name, um, un);                 \
        CHECK(e && e->cluster_k == (ck) && ((ck) == 1 || e->unit_k == 0),                                          \
              "%s: a k split in the cluster runs whole tiles (no stream-K tail)", #name);                          \
    }
#include "family/configs.def"
#undef HG_FAMILY_CONFIG
}

/* ---- handles and invalid arguments ---------------------------------------- */

void test_null_handle(void)
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

void test_create(void)
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

void test_invalid_arguments(void)
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

void test_arch_mismatch(void)
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
