/*
 * hopgemm's test runner. The CPU tier (cpu_*.c) runs everywhere; the GPU
 * tier (gpu_*.c) runs where hg_create finds a device and is counted as
 * skipped, with the reason, where it does not.
 *
 *   hg-tests [--cpu-only | --gpu-only] [--quick] [--kernel NAME]
 *   hg-tests --multi-gpu-probe   (run by the GPU tier's gpu/multi_gpu)
 *
 * Ends with the line "N passed, N failed, N skipped"; exits non-zero when a
 * test failed.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cpu_tests.h"
#include "hg_internal.h"
#include "testlib.h"

hg_test_state hg_t;
int hg_gpu_quick;
const char *hg_gpu_kernel_filter;

/* ---- helpers the CPU tier shares (cpu_tests.h) ----------------------------- */

hg__device fake_device(int major, int minor)
{
    hg__device d = hg__device_h200_model();
    d.cc_major = major;
    d.cc_minor = minor;
    return d;
}

hg_handle fake_handle(int major, int minor)
{
    hg__device d = fake_device(major, minor);
    hg_handle h = NULL;
    if (hg__create_for_device(&h, &d) != HG_STATUS_SUCCESS) return NULL;
    return h;
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
    {"cpu/model_grid", test_model_grid},
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
    /* A line at a time even into a file or pipe: a run killed by a timeout
     * keeps every failed check and finished part it printed. */
    setvbuf(stdout, NULL, _IOLBF, 0);
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
