/*
 * The CPU tier: what AUTO plans and what a kernel refuses on a made-up sm_90,
 * the copy of a ragged A or B (src/repack.c), and the k slices (src/slices.c).
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

/* A swapped TN row's TT twin (the same name ending _tt), or NULL. */
static const hg__kernel_entry *tt_twin(const hg__kernel_entry *tn)
{
    const size_t len = strlen(tn->name), tail = strlen("_swap_tn");
    if (len < tail || strcmp(tn->name + len - tail, "_swap_tn") != 0) return NULL;
    for (int i = 0; i < hg__kernel_count; i++) {
        const char *name = hg__kernels[i].name;
        if (strlen(name) == len && strncmp(name, tn->name, len - 2) == 0 && strcmp(name + len - 2, "tt") == 0)
            return &hg__kernels[i];
    }
    return NULL;
}

/* The lean 256 x 176 row (config.cuh's LEAN: 176 accumulators a consumer
 * thread) serves beta = 0 only and plans whole tiles only. AUTO takes it at
 * 4096 x 14336 x 4096, where its tiles make 9.94 rounds against 128 x 256's
 * 13.6 (H200, fresh 3: 0.978 of cuBLAS-best against 0.962), and its NN twin
 * there in NN; keeps 128 x 256 at 8192^3 (11.6 rounds against 15.5) but not
 * past HG_MODEL_LONG_FLOPS; takes another row with beta != 0; alpha = 0 is
 * C = beta C, which needs no kernel. */
static void lean_row(hg_handle h, const void *A, const void *B, void *C)
{
    const hg_kernel lean = HG_KERNEL_SM90_256X176X64_S3_C1X2_TN;
    const hg__kernel_entry *e = hg__find_kernel(lean);
    if (e == NULL) return; /* a build without the family */
    CHECK(e->unit_k == 0 && HG_FAM_LEAN(256, 176, 0, 0, 0) && !HG_FAM_LEAN(128, 256, 0, 0, 0) &&
              !HG_FAM_LEAN(128, 128, 1, 0, 0) && !HG_FAM_LEAN(256, 256, 0, 1, 0) &&
              HG_FAM_LEAN(64, 96, 0, 0, 0) && !HG_FAM_LEAN(128, 32, 0, 0, 1),
          "lean: the 176-accumulator row and a staged tile of partial chunks (64 x 96), not a per-thread C; AUTO's model gives a lean row no stream-K tail");
    hg_kernel k = HG_KERNEL_AUTO;
    CHECK(hg_set_kernel(h, HG_KERNEL_AUTO) == HG_STATUS_SUCCESS, "choose auto");
    hg_matmul_desc md = HG_MATMUL_DESC_INIT;
    md.opA = HG_OP_N, md.opB = HG_OP_T, md.m = 4096, md.n = 14336, md.k = 4096, md.A = A, md.B = B, md.C = C;
    md.lda = 4096, md.ldb = 4096, md.ldc = 14336;
    CHECK(hg_matmul_plan(h, &md, &k) == HG_STATUS_SUCCESS && k == lean, "4096 x 14336 x 4096 takes %s, got %s",
          hg_kernel_name(lean), hg_kernel_name(k));
    md.beta = 1.0f;
    CHECK(hg_matmul_plan(h, &md, &k) == HG_STATUS_SUCCESS && k != lean, "... with beta = 1 another row, got %s",
          hg_kernel_name(k));
    md.beta = 0.0f, md.opA = md.opB = HG_OP_T;
    CHECK(hg_matmul_plan(h, &md, &k) == HG_STATUS_SUCCESS &&
              (k == HG_KERNEL_SM90_256X176X64_S3_C1X2_NN || !hg__find_kernel(HG_KERNEL_SM90_256X176X64_S3_C1X2_NN)),
          "... in NN its NN twin, got %s", hg_kernel_name(k));
    md.opA = HG_OP_N, md.opB = HG_OP_T;
    /* Past HG_MODEL_LONG_FLOPS it takes full waves too: 16384^3 1.007 of
     * cuBLAS-best against 128 x 256's 0.976; shorter, 128 x 256 keeps them
     * (H200, fresh 3). */
    const struct {
        int64_t m, n, k;
        hg_kernel want;
    } runs[] = {{16384, 16384, 16384, lean},
                {8192, 8192, 8192, HG_KERNEL_SM90_128X256X64_S4_C2X1_TN},
                {8192, 28672, 4096, HG_KERNEL_SM90_128X256X64_S4_C2X1_TN},
                {4096, 4096, 4096, HG_KERNEL_SM90_128X256X64_S4_C2X1_TN}};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        md.m = runs[i].m, md.n = runs[i].n, md.k = runs[i].k, md.lda = md.ldb = md.k, md.ldc = md.n;
        CHECK(hg_matmul_plan(h, &md, &k) == HG_STATUS_SUCCESS && k == runs[i].want, "%lld x %lld x %lld takes %s, got %s",
              (long long)md.m, (long long)md.n, (long long)md.k, hg_kernel_name(runs[i].want), hg_kernel_name(k));
    }
    md.m = md.n = md.k = 8192, md.lda = md.ldb = md.ldc = 8192;
    CHECK(hg_set_kernel(h, lean) == HG_STATUS_SUCCESS, "choose %s", e->name);
    md.beta = 0.5f;
    hg_status s = hg_matmul_plan(h, &md, &k);
    CHECK(s == HG_STATUS_NOT_SUPPORTED && strstr(hg_last_error(h), "beta = 0 only") != NULL,
          "%s refuses beta != 0, saying so: %s (%s)", e->name, hg_status_string(s), hg_last_error(h));
    md.alpha = 0.0f;
    CHECK(hg_matmul_plan(h, &md, &k) == HG_STATUS_SUCCESS && k == HG_KERNEL_GENERIC,
          "alpha = 0 with %s chosen is C = beta C by generic, got %s", e->name, hg_kernel_name(k));
    md.alpha = 1.0f, md.beta = 0.0f;
    CHECK(hg_matmul_plan(h, &md, &k) == HG_STATUS_SUCCESS && k == lean, "%s serves beta = 0", e->name);
    CHECK(hg_set_kernel(h, HG_KERNEL_AUTO) == HG_STATUS_SUCCESS, "choose auto again");
}

/* AUTO's choices and an explicit kernel's refusals, on a made-up sm_90. The
 * pointers are never dereferenced: hg_plan launches nothing. */
void test_dispatch(void)
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
        /* Past HG_MODEL_LONG_FLOPS the lean 256 x 176 row where it is built
         * (lean_row). */
        const hg_kernel long_run =
            hg__find_kernel(HG_KERNEL_SM90_256X176X64_S3_C1X2_TN) ? HG_KERNEL_SM90_256X176X64_S3_C1X2_TN : fam;
        const struct {
            int64_t m, n, k, ldc;
            hg_kernel want;
        } picks[] = {{8192, 8192, 8192, 8192, fam},   {4096, 4096, 4096, 4096, fam}, {8192, 28672, 8192, 28672, long_run},
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
     * 21.1 us, 128 x 16 cut 21.6). At m <= 8 the 8-wide rows, listed
     * before their 16-wide twins, tie with them in the model and take it
     * (2026-12-04, fresh 3, bf16: 1 x 4096 x 14336 on 128 x 8 35.7 us, 128 x
     * 16 36.3); they never serve a second unit of m (m = 9 keeps 64 x 16).
     * At m = 128 with n = 6144 the swapped 128
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
        } dec[] = {{1, 8192, 8192, 8192, HG_KERNEL_SM90_64X8X64_S8_C1X1_SWAP_TN},
                   {16, 8192, 8192, 8192, HG_KERNEL_SM90_64X16X64_S8_C1X1_SWAP_TN},
                   {1, 6144, 4096, 6144, HG_KERNEL_SM90_64X8X64_S8_C1X1_SWAP_TN},
                   {8, 6144, 4096, 6144, HG_KERNEL_SM90_64X8X64_S8_C1X1_SWAP_TN},
                   {9, 6144, 4096, 6144, HG_KERNEL_SM90_64X16X64_S8_C1X1_SWAP_TN},
                   /* one round of 64-row tiles, k split over 2-CTA clusters
                    * (hg__k_split_fits) */
                   {1, 4096, 14336, 4096, HG_KERNEL_SM90_64X8X64_S16_C1X1_K2_SWAP_TN},
                   {16, 4096, 14336, 4096, HG_KERNEL_SM90_64X32X64_S16_C1X1_K2_SWAP_TN},
                   {32, 4096, 14336, 4096, HG_KERNEL_SM90_64X32X64_S16_C1X1_K2_SWAP_TN},
                   {48, 4096, 8192, 4096, HG_KERNEL_SM90_64X64X64_S12_C1X1_K2_SWAP_TN},
                   {64, 4096, 14336, 4096, HG_KERNEL_SM90_64X64X64_S12_C1X1_K2_SWAP_TN},
                   {64, 3072, 4096, 3072, HG_KERNEL_SM90_64X64X64_S12_C1X1_K2_SWAP_TN},
                   /* ... not over two units of m, nor over several rounds
                    * on a wider m side */
                   {65, 4096, 14336, 4096, HG_KERNEL_SM90_128X32X64_S10_C1X1_SWAP_TN},
                   {32, 28672, 4096, 28672, HG_KERNEL_SM90_128X32X64_S10_C1X1_SWAP_TN},
                   /* ... but at m <= 8 over at least 4 rounds of k >= 4096
                    * (hg__k_split_rounds), not over 2.4 or a short k */
                   {1, 28672, 4096, 28672, HG_KERNEL_SM90_64X8X64_S16_C1X1_K2_SWAP_TN},
                   {8, 28672, 4096, 28672, HG_KERNEL_SM90_64X8X64_S16_C1X1_K2_SWAP_TN},
                   {1, 128256, 4096, 128256, HG_KERNEL_SM90_64X8X64_S16_C1X1_K2_SWAP_TN},
                   {1, 10240, 8192, 10240, HG_KERNEL_SM90_128X8X64_S6_C1X1_SWAP_TN},
                   {1, 28672, 1024, 28672, HG_KERNEL_SM90_128X8X64_S6_C1X1_SWAP_TN},
                   {48, 8192, 8192, 8192, HG_KERNEL_SM90_64X64X64_S12_C1X1_SWAP_TN},
                   {64, 8192, 8192, 8192, HG_KERNEL_SM90_64X64X64_S12_C1X1_SWAP_TN},
                   {64, 8192, 28672, 8192, HG_KERNEL_SM90_64X64X64_S12_C1X1_SWAP_TN},
                   {64, 57344, 8192, 57344, HG_KERNEL_SM90_128X64X64_S8_C1X1_SWAP_TN},
                   {128, 8192, 8192, 8192, HG_KERNEL_SM90_128X64X64_S8_C1X1_SWAP_TN},
                   {128, 1024, 4096, 1024, HG_KERNEL_SM90_128X64X64_S8_C1X1_SWAP_TN},
                   /* one wave of the 64 x 96 row's whole tiles over one
                    * unit of m (HG_FAM_ONE_WAVE_ONLY): 96-128 x 5888-6144 x
                    * 4096 bf16, 20.1-22.3 us against 21.9-28.2 on the
                    * swapped rows (H200, 2026-12-05, fresh 3) */
                   {128, 6144, 4096, 6144, HG_KERNEL_SM90_64X96X64_S10_C2X1_TN},
                   {96, 6144, 4096, 6144, HG_KERNEL_SM90_64X96X64_S10_C2X1_TN},
                   {128, 5888, 4096, 5888, HG_KERNEL_SM90_64X96X64_S10_C2X1_TN},
                   /* ... not at a short k (HG_ONE_WAVE_MIN_K: 96 x 5888 x
                    * 1024, 12.0 us against 11.1, H100) nor over two units */
                   {96, 5888, 1024, 5888, HG_KERNEL_SM90_128X64X64_S8_C1X1_SWAP_TN},
                   {160, 6144, 4096, 6144, HG_KERNEL_SM90_128X128X64_S6_C1X1_SWAP_TN},
                   {128, 4096, 4096, 4096, HG_KERNEL_SM90_64X64X64_S12_C1X1_SWAP_TN},
                   {128, 4096, 14336, 4096, HG_KERNEL_SM90_64X64X64_S12_C1X1_SWAP_TN},
                   {256, 6144, 4096, 6144, HG_KERNEL_SM90_128X128X64_S6_C1X1_SWAP_TN},
                   {512, 4096, 14336, 4096, HG_KERNEL_SM90_128X128X64_S6_C1X1_SWAP_TN},
                   /* one wave of 128 x 256 tiles, 0.85 full, on the memory
                    * floor: whole, with A multicast (hg__floor_whole_tiles) */
                   {128, 28672, 4096, 28672, HG_KERNEL_SM90_128X256X64_S4_C1X2_TN},
                   {1, 50257, 4096, 50257, HG_KERNEL_SM90_64X8X64_S16_C1X1_K2_SWAP_TN},
                   /* m = 257-512 over a narrow n: one whole wave of up to
                    * HG_SWAP_MAX_M_UNITS_WHOLE units (hg_internal.h) */
                   {512, 512, 512, 512, HG_KERNEL_SM90_128X16X64_S6_C1X1_SWAP_TN},
                   {512, 256, 1024, 256, HG_KERNEL_SM90_64X16X64_S8_C1X1_SWAP_TN}};
        /* The whole-tile rule itself: one wave, at least HG_SWAP_WHOLE_TILES
         * of the slots. */
        CHECK(hg__swap_whole_tiles(96, 132) && hg__swap_whole_tiles(132, 132), "96 and 132 tiles on 132 run whole");
        CHECK(!hg__swap_whole_tiles(64, 132) && !hg__swap_whole_tiles(133, 132),
              "64 tiles (too few) and 133 (past one wave) on 132 are cut by stream-K's rule");
        /* ... and a last round after whole ones of at least HG_SWAP_WHOLE_TAIL */
        CHECK(hg__swap_whole_tail(224, 132, 1, 128) && hg__swap_whole_tail(250, 132, 1, 128),
              "last rounds of 92 and 118 of 132 run whole");
        CHECK(!hg__swap_whole_tail(448, 132, 1, 128) && !hg__swap_whole_tail(264, 132, 1, 128) &&
                  !hg__swap_whole_tail(96, 132, 1, 128),
              "a last round of 52 of 132 is cut; whole rounds and one wave are not this rule's");
        CHECK(!hg__swap_whole_tail(448, 132, 2, 128) && !hg__swap_whole_tail(896, 132, 1, 64),
              "over two units of m, and on 64-row tiles, the rule was not measured (and misled the model)");
        /* The unswapped rows' twin: one wave, at least HG_FLOOR_WHOLE_TILES
         * full, under the model's balance, m filling the blocks' rows. */
        hg__problem fl;
        memset(&fl, 0, sizeof fl);
        fl.opA = HG_OP_N, fl.opB = HG_OP_T, fl.m = 128, fl.n = 28672, fl.k = 4096, fl.alpha = 1.0f, fl.dtype = HG_BF16;
        CHECK(hg__floor_whole_tiles(&fl, 128, 112, 132), "128 x 28672 x 4096: 112 tiles of 128 rows on 132 run whole");
        CHECK(!hg__floor_whole_tiles(&fl, 128, 96, 132) && !hg__floor_whole_tiles(&fl, 128, 133, 132),
              "96 tiles (too few) and 133 (past one wave) are cut by stream-K's rule");
        CHECK(!hg__floor_whole_tiles(&fl, 256, 112, 132), "a 256-row block over m = 128: its empty rows, not measured");
        fl.m = 4096; /* 4096 x 28672 x 4096: past the balance */
        CHECK(!hg__floor_whole_tiles(&fl, 128, 112, 132), "a product past the model's balance keeps the split");
        for (size_t i = 0; i < sizeof dec / sizeof dec[0]; i++)
            if (hg__find_kernel(dec[i].want))
                check_auto_pick(h, A, B, C, dec[i].m, dec[i].n, dec[i].k, dec[i].ldc, HG_BF16, dec[i].want);
        /* TT (B stored k x n: x @ W with W stored [in, out]) takes the
         * swapped TT twin of the TN pick where one is registered: the model
         * weighs geometry, not layout. */
        int tt_twins = 0;
        for (size_t i = 0; i < sizeof dec / sizeof dec[0]; i++) {
            const hg__kernel_entry *tn = hg__find_kernel(dec[i].want);
            const hg__kernel_entry *tt = tn ? tt_twin(tn) : NULL;
            if (tt == NULL || dec[i].n % 8 != 0) continue; /* (ldb = n: TMA's 16-byte rule) */
            tt_twins++;
            hg_kernel got = HG_KERNEL_AUTO;
            CHECK(hg_plan(h, HG_OP_N, HG_OP_N, dec[i].m, dec[i].n, dec[i].k, A, dec[i].k, B, dec[i].n, C, dec[i].ldc,
                          HG_BF16, &got) == HG_STATUS_SUCCESS &&
                      got == tt->id,
                  "TT %lld x %lld x %lld takes %s, got %s", (long long)dec[i].m, (long long)dec[i].n,
                  (long long)dec[i].k, tt->name, hg_kernel_name(got));
        }
        CHECK(tt_twins >= 10 || !hg__find_kernel(HG_KERNEL_SM90_64X64X64_S12_C1X1_SWAP_TT),
              "the TT twins are checked on the decode cases (%d)", tt_twins);
        hg__problem big;
        memset(&big, 0, sizeof big);
        /* n = 1024: too few tiles for a whole wave, which would let a swapped
         * row serve a larger m (hg__estimate). */
        big.opA = HG_OP_N, big.opB = HG_OP_T, big.m = 4096, big.n = 1024, big.k = 4096;
        hg__device dv = fake_device(9, 0);
        for (int i = 0; i < hg__kernel_count; i++) {
            const hg__kernel_entry *e = &hg__kernels[i];
            if (!e->swap_ab || e->cluster_k > 1) continue; /* (a k split: below) */
            hg__problem over = big;
            const int64_t max_m = hg__swap_max_m(e);
            /* An 8-wide m side serves its one unit only, whole wave or not. */
            const int narrow = e->unit_m <= HG_SWAP_NARROW_M_SIDE;
            over.m = narrow ? e->unit_m + 1
                   : e->unit_m * HG_SWAP_MAX_M_UNITS < max_m ? e->unit_m * HG_SWAP_MAX_M_UNITS + 1
                                                              : max_m + 1;
            CHECK(hg__estimate(e, &over, &dv) == 0.0, "%s is not weighed for m = %lld", e->name, (long long)over.m);
            over.m = narrow ? e->unit_m : e->unit_m + 1;
            CHECK(over.m > HG_SWAP_MAX_M || hg__estimate(e, &over, &dv) > 0.0, "%s is weighed for m = %lld",
                  e->name, (long long)over.m);
        }
        /* A k split in the cluster is weighed in one round of whole tiles
         * over one unit of m only (hg__k_split_fits). */
        CHECK(hg__k_split_fits(64, 66, 1) && hg__k_split_fits(48, 66, 1), "64 and 48 tiles on 66 clusters: one round");
        CHECK(!hg__k_split_fits(67, 66, 1) && !hg__k_split_fits(40, 66, 1) && !hg__k_split_fits(64, 66, 2),
              "past one round, too few tiles, or two units of m: not weighed");
        CHECK(hg__k_split_rounds(264, 66, 1, 8, 4096) && !hg__k_split_rounds(263, 66, 1, 8, 4096) &&
                  !hg__k_split_rounds(448, 66, 1, 8, 4095) && !hg__k_split_rounds(448, 66, 1, 32, 4096) &&
                  !hg__k_split_rounds(448, 66, 2, 8, 4096),
              "a k split over many rounds: 4 rounds or more of k >= 4096, an m side of 8, one unit of m");
        for (int i = 0; i < hg__kernel_count; i++) {
            const hg__kernel_entry *e = &hg__kernels[i];
            if (e->cluster_k <= 1) continue;
            hg__problem one = big;
            one.m = e->unit_m, one.n = 64 * e->unit_n, one.k = 14336; /* 64 tiles: one round of 2-CTA clusters */
            hg__problem several = one, many = one, wider = one;
            several.n = 3 * one.n; /* 192 tiles: 2.9 rounds */
            many.n = 7 * one.n;    /* 448 tiles: 6.8 rounds */
            wider.m = e->unit_m + 1;
            CHECK(hg__estimate(e, &one, &dv) > 0.0, "%s is weighed at %lld x %lld x %lld", e->name, (long long)one.m,
                  (long long)one.n, (long long)one.k);
            CHECK(hg__estimate(e, &several, &dv) == 0.0 && hg__estimate(e, &wider, &dv) == 0.0,
                  "%s is not weighed over 2.9 rounds or two units of m", e->name);
            CHECK((hg__estimate(e, &many, &dv) > 0.0) == (e->unit_m <= HG_SWAP_NARROW_M_SIDE),
                  "%s is weighed over 6.8 rounds only on an m side of 8", e->name);
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
    lean_row(h, A, B, C);
    hg_destroy(h);
}

/* The plan of a copy of A or B (src/repack.c): which operand is copied,
 * its padded pitch and bytes, the kernel's view of the call, and the
 * copies kept clear of the workspace's counters. */
void test_repack_plan(void)
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

/* src/slices.c's plan on the H200 model: which products it cuts, into how
 * many slices, and the batch it makes of them. */
void test_slices_plan(void)
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
    /* m = k (A stored k x m) and n = k (B stored k x n): the stored columns
     * equal k, yet both operands are MN-major and step rows */
    q = hg__problem_make(HG_OP_T, HG_OP_N, 2048, 256, 2048, 1.0f, A, 2048, B, 256, 0.0f, C, 256, HG_F16);
    CHECK(hg__slices_plan(nt, &q, &d, &sl) == 1 && sl.inner.stride_a == sl.inner.k * 2048 &&
              sl.inner.stride_b == sl.inner.k * 256,
          "NT, m = k: slices step %lld and %lld elements", (long long)sl.inner.stride_a,
          (long long)sl.inner.stride_b);
    const hg__kernel_entry *tt = hg__find_kernel(HG_KERNEL_SM90_128X256X64_S4_C2X1_TT);
    q = hg__problem_make(HG_OP_N, HG_OP_N, 256, 2048, 2048, 1.0f, A, 2048, B, 2048, 0.0f, C, 2048, HG_F16);
    CHECK(tt && hg__slices_plan(tt, &q, &d, &sl) == 1 && sl.inner.stride_a == sl.inner.k &&
              sl.inner.stride_b == sl.inner.k * 2048,
          "TT, n = k: slices step %lld and %lld elements", (long long)sl.inner.stride_a,
          (long long)sl.inner.stride_b);
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

/* The decomposition AUTO's model assumes (hg__estimate_grid, which --plan
 * prints): whole tiles, or a stream-K tail and its pieces, on the H200
 * model; the estimate is hg__estimate's. */
void test_model_grid(void)
{
    const hg__kernel_entry *big = hg__find_kernel(HG_KERNEL_SM90_128X256X64_S4_C2X1_TN);
    const hg__kernel_entry *n32 = hg__find_kernel(HG_KERNEL_SM90_128X32X64_S10_C1X1_SWAP_TN);
    const hg__kernel_entry *n8 = hg__find_kernel(HG_KERNEL_SM90_128X8X64_S6_C1X1_SWAP_TN);
    if (!big || !n32 || !n8) SKIP("the 128 x 256 or the 128 x 32 / 128 x 8 swapped rows are not built");
    hg__device d = hg__device_h200_model();
    d.workspace_bytes = SIZE_MAX;
    const void *A = (const void *)(uintptr_t)0x100000000ull, *B = (const void *)(uintptr_t)0x200000000ull;
    void *C = (void *)(uintptr_t)0x300000000ull;
    hg__model_grid g;

    /* 8192^3: 1024 cluster tiles of 256 x 256 on 66 clusters, 15 rounds whole and a tail of 34 tiles
     * over the 66, each cut in 2 or 3 */
    hg__problem p = hg__problem_make(HG_OP_N, HG_OP_T, 8192, 8192, 8192, 1.0f, A, 8192, B, 8192, 0.0f, C, 8192, HG_F16);
    const double est = hg__estimate_grid(big, &p, &d, &g);
    CHECK(est == hg__estimate(big, &p, &d), "the same estimate: %g against %g", est, hg__estimate(big, &p, &d));
    CHECK(g.tiles == 1024 && g.slots == 66 && g.k_tiles == 128 && g.dp_tiles == 990 && g.sk_workers == 66 &&
              g.pieces_fewest == 2 && g.pieces_most == 3,
          "8192^3: %g tiles on %g, %lld whole, %lld workers, %lld-%lld pieces", g.tiles, g.slots,
          (long long)g.dp_tiles, (long long)g.sk_workers, (long long)g.pieces_fewest, (long long)g.pieces_most);

    /* 32 x 28672 x 4096 on 128 x 32 swapped: 224 tiles, a last round of 0.7 that runs whole */
    p = hg__problem_make(HG_OP_N, HG_OP_T, 32, 28672, 4096, 1.0f, A, 4096, B, 4096, 0.0f, C, 28672, HG_BF16);
    hg__estimate_grid(n32, &p, &d, &g);
    CHECK(g.tiles == 224 && g.slots == 132 && g.whole_tiles && g.sk_workers == 0,
          "32 x 28672 x 4096: %g tiles on %g, whole %d, %lld workers", g.tiles, g.slots, g.whole_tiles,
          (long long)g.sk_workers);

    /* 1 x 6144 x 8192 on 128 x 8 swapped: 48 tiles, all cut, over 132 workers into 3 or 4 pieces */
    p = hg__problem_make(HG_OP_N, HG_OP_T, 1, 6144, 8192, 1.0f, A, 8192, B, 8192, 0.0f, C, 6144, HG_BF16);
    hg__estimate_grid(n8, &p, &d, &g);
    CHECK(g.tiles == 48 && g.dp_tiles == 0 && g.sk_workers == 132 && g.pieces_fewest == 3 && g.pieces_most == 4,
          "1 x 6144 x 8192: %g tiles, %lld whole, %lld workers, %lld-%lld pieces", g.tiles, (long long)g.dp_tiles,
          (long long)g.sk_workers, (long long)g.pieces_fewest, (long long)g.pieces_most);
}
