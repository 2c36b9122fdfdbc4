/*
 * common.cuh: what every kernel file shares: element types, the alpha/beta
 * epilogue, and the host-side glue of a launcher (tensor maps, launch errors).
 */
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "../hg_internal.h"
#include "../tiling.h"
#include "ptx.cuh"

/* Element type DT: 0 = fp16, 1 = bf16 (the values of hg_dtype). */
template <int DT> static __device__ __forceinline__ float hg_elem_to_f32(uint16_t v)
{
    if constexpr (DT == 0) return __half2float(__ushort_as_half(v));
    else return __bfloat162float(__ushort_as_bfloat16(v));
}

template <int DT> static __device__ __forceinline__ uint16_t hg_f32_to_elem(float f)
{
    if constexpr (DT == 0) return __half_as_ushort(__float2half_rn(f));
    else return __bfloat16_as_ushort(__float2bfloat16_rn(f));
}

/* Two floats to a packed pair, low half first (round to nearest even). */
template <int DT> static __device__ __forceinline__ uint32_t hg_pack2(float lo, float hi)
{
    return (uint32_t)hg_f32_to_elem<DT>(lo) | ((uint32_t)hg_f32_to_elem<DT>(hi) << 16);
}

/* What the epilogue needs to write C = alpha * acc + beta * C. */
typedef struct {
    uint16_t *C;
    int64_t ldc, m, n;
    float alpha, beta;
} hg_epilogue;

static inline hg_epilogue hg_epilogue_of(const hg__problem *p)
{
    hg_epilogue e;
    e.C = (uint16_t *)p->C;
    e.ldc = p->ldc;
    e.m = p->m;
    e.n = p->n;
    e.alpha = p->alpha;
    e.beta = p->beta;
    return e;
}

/* alpha * acc + beta * old; with beta == 0, C is not read (so NaN in C does
 * not leak into the result, as BLAS promises). */
template <int DT>
static __device__ __forceinline__ float hg_epilogue_value(const hg_epilogue &e, float acc, const uint16_t *c)
{
    float v = e.alpha * acc;
    if (e.beta != 0.0f) v += e.beta * hg_elem_to_f32<DT>(*c);
    return v;
}

/* Write C[row, col] and C[row, col + 1] (each only where inside m x n). A
 * 4-byte store when both are inside and the pair is 4-byte aligned, which
 * holds for the TMA kernels (C 16-byte aligned, ldc % 8 == 0, col even). */
template <int DT>
static __device__ __forceinline__ void hg_store_pair(const hg_epilogue &e, int64_t row, int64_t col, float v0,
                                                     float v1)
{
    if (row >= e.m || col >= e.n) return;
    uint16_t *c = e.C + row * e.ldc + col;
    if (col + 1 < e.n && (((uintptr_t)c) & 3) == 0) {
        float o0 = e.alpha * v0, o1 = e.alpha * v1;
        if (e.beta != 0.0f) {
            uint32_t old = *(const uint32_t *)c;
            o0 += e.beta * hg_elem_to_f32<DT>((uint16_t)(old & 0xFFFF));
            o1 += e.beta * hg_elem_to_f32<DT>((uint16_t)(old >> 16));
        }
        *(uint32_t *)c = hg_pack2<DT>(o0, o1);
    } else {
        c[0] = hg_f32_to_elem<DT>(hg_epilogue_value<DT>(e, v0, c));
        if (col + 1 < e.n) c[1] = hg_f32_to_elem<DT>(hg_epilogue_value<DT>(e, v1, c + 1));
    }
}

/* Store an m64nN wgmma accumulator fragment (N/2 floats per thread of the warp
 * group) at C[row0.., col0..]. Fragment layout (9.7.15.5.1, D matrix): thread
 * t, warp w = t / 32, lane l: d[i] sits at row 16w + l/4 + 8*((i/2) % 2),
 * column 8*(i/4) + 2*(l%4) + (i%2). */
template <int DT, int N>
static __device__ __forceinline__ void hg_store_wgmma_acc(const hg_epilogue &e, const float *d, int64_t row0,
                                                          int64_t col0, int tid_in_wg)
{
    int warp = tid_in_wg / 32, lane = tid_in_wg % 32;
    int64_t r = row0 + warp * 16 + lane / 4;
    int64_t c = col0 + 2 * (lane % 4);
#pragma unroll
    for (int j = 0; j < N / 8; j++) {
        hg_store_pair<DT>(e, r, c + 8 * j, d[4 * j + 0], d[4 * j + 1]);
        hg_store_pair<DT>(e, r + 8, c + 8 * j, d[4 * j + 2], d[4 * j + 3]);
    }
}

/* ---- host side of a TMA launcher ------------------------------------------ */

/* A (m x k) and B (n x k) of a TN problem as 2-D tensor maps with 128-byte
 * swizzled boxes of 64 (k) x rows. */
static inline hg_status hg_tn_tensor_maps(const hg__problem *p, uint32_t a_box_rows, uint32_t b_box_rows,
                                          CUtensorMap *map_a, CUtensorMap *map_b, hg__err *e)
{
    hg__tmap_params ta, tb;
    ta.elem_bytes = 2;
    ta.dim[0] = (uint64_t)p->k;
    ta.dim[1] = (uint64_t)p->m;
    ta.stride1 = (uint64_t)p->lda * 2;
    ta.box[0] = 64;
    ta.box[1] = a_box_rows;
    ta.swizzle_bytes = 128;
    tb = ta;
    tb.dim[1] = (uint64_t)p->n;
    tb.stride1 = (uint64_t)p->ldb * 2;
    tb.box[1] = b_box_rows;
    hg_status s = hg__tmap_encode(map_a, p->A, p->dtype, &ta, e);
    if (s != HG_STATUS_SUCCESS) return s;
    return hg__tmap_encode(map_b, p->B, p->dtype, &tb, e);
}

/* C (m x n) as a 2-D tensor map for TMA stores, boxes of cols x rows, no
 * swizzle. */
static inline hg_status hg_c_tensor_map(const hg__problem *p, uint32_t box_cols, uint32_t box_rows,
                                        CUtensorMap *map_c, hg__err *e)
{
    hg__tmap_params tc;
    tc.elem_bytes = 2;
    tc.dim[0] = (uint64_t)p->n;
    tc.dim[1] = (uint64_t)p->m;
    tc.stride1 = (uint64_t)p->ldc * 2;
    tc.box[0] = box_cols;
    tc.box[1] = box_rows;
    tc.swizzle_bytes = 0;
    return hg__tmap_encode(map_c, p->C, p->dtype, &tc, e);
}

/* After a launch: a launch error becomes HG_STATUS_EXECUTION_FAILED. */
static inline hg_status hg_launch_status(const char *kernel, hg__err *e)
{
    cudaError_t err = cudaGetLastError();
    if (err == cudaSuccess) return HG_STATUS_SUCCESS;
    hg__err_set(e, "%s: launch failed: %s", kernel, cudaGetErrorString(err));
    return HG_STATUS_EXECUTION_FAILED;
}

/* Raise a kernel's dynamic shared-memory limit (once per process is enough,
 * but it is cheap, and per-device state makes caching it error-prone). */
static inline hg_status hg_set_smem(const void *func, int bytes, const char *kernel, hg__err *e)
{
    cudaError_t err = cudaFuncSetAttribute(func, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    if (err == cudaSuccess) return HG_STATUS_SUCCESS;
    (void)cudaGetLastError();
    hg__err_set(e, "%s: cannot get %d bytes of shared memory: %s", kernel, bytes, cudaGetErrorString(err));
    return HG_STATUS_EXECUTION_FAILED;
}
