/* The CPU tier's tests, one file per concern (tests/cpu_*.c), and the
 * helpers they share (tests/hg_tests.c). */
#ifndef HG_CPU_TESTS_H
#define HG_CPU_TESTS_H

#include "hg_internal.h"

/* A made-up device of compute capability major.minor (the H200 model
 * otherwise), and a handle on it: nothing is launched. */
hg__device fake_device(int major, int minor);
hg_handle fake_handle(int major, int minor);

void test_status_strings(void);
void test_kernel_names_and_table(void);
void test_null_handle(void);
void test_create(void);
void test_invalid_arguments(void);
void test_arch_mismatch(void);
void test_dispatch(void);
void test_repack_plan(void);
void test_slices_plan(void);
void test_model_grid(void);
void test_conversions(void);
void test_reference_by_hand(void);
void test_rasterization(void);
void test_fastdiv(void);
void test_stream_k_plan(void);
void test_tensor_map_params(void);
void test_tma_conditions(void);
void test_testkit(void);
void test_overlap_exact(void);
void test_call_corners(void);
void test_matmul_desc(void);
void test_matmul_c_f32(void);
void test_matmul_batch(void);

#endif
