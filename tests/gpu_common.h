/* What the GPU-tier files share (tests/gpu_tests.c defines it): inputs,
 * the CUDA error check, the one checking rule against the float64
 * reference, and one case run end to end. */
#ifndef HG_GPU_COMMON_H
#define HG_GPU_COMMON_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "hg_internal.h"

#define POISON 0xFFFFu   /* NaN in fp16 and in bf16 */
#define SENTINEL 0x1234u /* what C's padding columns hold; must survive */
/* The same for an fp32 C (HG_C_F32): NaN, and a value nothing writes. */
#define POISON_F32 0xFFFFFFFFu
#define SENTINEL_F32 0x12345678u

typedef struct {
    hg_op opA, opB;
    int64_t m, n, k;
    int64_t pad; /* extra elements per row of A, B and C */
    float alpha, beta;
    int misalign; /* offset A, B and C by one element (2-byte aligned only) */
    int ldc_extra; /* added to ldc after any rounding: an ldc that breaks TMA's rule */
    int c_off;     /* C's base offset by this many elements, A and B not (C alone off 16 bytes) */
} gcase;

uint64_t rng_next(void);
/* Uniform in [-1, 1], rounded to the element type. */
uint16_t rand_elem(hg_dtype dt);
void fill_random(uint16_t *p, size_t n, hg_dtype dt);
int is_nan_bits(uint16_t v, hg_dtype dt);
/* 1 when e is cudaSuccess; else a failed CHECK naming `what`. */
int cuda_ok(cudaError_t e, const char *what);
/* Whether --kernel keeps kid: no filter, its name ("auto" for AUTO), or
 * "family" for any family row. */
int gpu_kernel_selected(hg_kernel kid);
/* fn on every kernel that --kernel keeps ("family": every family row), then
 * on AUTO (e NULL), through one handle; fn returns 1 when it ran something.
 * How many did (-1: no handle). */
int gpu_each_kernel(int (*fn)(hg_handle h, hg_kernel kid, const char *name, const hg__kernel_entry *e));
/* The accumulation a kernel is tested with: HG_COMPUTE_16F for the family's
 * _f16acc rows (which serve nothing else; they take fp16 only), else
 * HG_COMPUTE_32F. */
hg_compute kernel_compute(hg_kernel kid);
/* A handle on the current device (a failed CHECK and NULL if none). */
hg_handle gpu_handle(void);
/* Element e of a host copy of C as bits (16 of the dtype, or 32 of fp32
 * with HG_C_F32), and the other way; the poison and the sentinel of its
 * type. */
uint32_t c_get(const void *C, int64_t e, hg_c_type ct);
void c_put(void *C, int64_t e, hg_c_type ct, uint32_t bits);
uint32_t c_poison(hg_c_type ct);
uint32_t c_sentinel(hg_c_type ct);
/* hOut (C as the call left it, of p->c_type elements) against the float64
 * reference on the inputs hA, hB, hC: see gpu_tests.c. */
int hg_check_output(const hg__problem *p, const uint16_t *hA, const uint16_t *hB, const void *hC, const void *hOut,
                    const char *what);
/* Runs one case on kernel kid (AUTO allowed) through h and checks it; 1 when
 * it ran and passed. */
int run_case(hg_handle h, hg_kernel kid, const gcase *c, hg_dtype dt);
/* ... with hg_matmul's epilogue: a random bias when with_bias, act. */
int run_case_epi(hg_handle h, hg_kernel kid, const gcase *c, hg_dtype dt, int with_bias, hg_activation act);
/* ... and C of type ct (HG_C_F32: an fp32 C; ldc rounded for TMA to 16 bytes). */
int run_case_c(hg_handle h, hg_kernel kid, const gcase *c, hg_dtype dt, int with_bias, hg_activation act,
               hg_c_type ct);
/* One TN product's inputs (tight leading dimensions), random, on the device
 * and kept on the host for the reference. */
typedef struct {
    int64_t m, n, k;
} tn_shape;
typedef struct {
    tn_shape s;
    hg_dtype dt;
    uint16_t *hA, *hB;
    void *dA, *dB;
    size_t nc; /* elements of C */
} tn_operands;
/* 1 when made (else a failed CHECK; tn_operands_free cleans up either way). */
int tn_operands_make(tn_operands *o, tn_shape s, hg_dtype dt);
void tn_operands_free(tn_operands *o);
/* hg_gemm of o into dC through h (alpha 1, beta 0, ldc n), and its problem
 * for hg_check_output. */
hg_status tn_operands_gemm(hg_handle h, const tn_operands *o, void *dC);
hg__problem tn_operands_problem(const tn_operands *o);
/* gpu/batched (tests/gpu_batch_tests.c): hg_matmul's strided batches. */
void test_batched(void);
/* gpu/stagger (tests/gpu_stagger_tests.c): persistent grids whose CTAs start
 * at different times, each launch's C the first's bit for bit. */
void test_stagger(void);

#endif
