/* Tensor maps for TMA. The driver's cuTensorMapEncodeTiled is reached through
 * the runtime (cudaGetDriverEntryPointByVersion), so the library links the
 * CUDA runtime only and loads on machines without a driver. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cudaTypedefs.h>

#include "hg_internal.h"

const char *hg__tmap_check(const hg__tmap_params *tp, const void *base)
{
    if (!hg__tma_base_ok(base)) return "the base address is not 16-byte aligned.";
    for (int i = 0; i < 2; i++) {
        if (tp->dim[i] == 0 || tp->dim[i] > ((uint64_t)1 << 32)) return "a dimension is 0 or above 2^32.";
        if (tp->box[i] == 0 || tp->box[i] > 256) return "a box dimension is 0 or above 256.";
    }
    if (tp->stride1 % 16 != 0) return "the row stride is not a multiple of 16 bytes.";
    if (tp->stride1 >= ((uint64_t)1 << 40)) return "the row stride is 2^40 bytes or more.";
    if (tp->rank != 2 && tp->rank != 3) return "the rank is not 2 or 3.";
    if (tp->rank == 3) {
        if (tp->batch == 0 || tp->batch > ((uint64_t)1 << 32)) return "the batch is 0 or above 2^32.";
        if (tp->stride2 % 16 != 0) return "the matrix stride is not a multiple of 16 bytes.";
        if (tp->stride2 >= ((uint64_t)1 << 40)) return "the matrix stride is 2^40 bytes or more.";
    }
    if ((tp->box[0] * (uint32_t)tp->elem_bytes) % 16 != 0) return "the inner box is not a multiple of 16 bytes.";
    if (tp->swizzle_bytes != 0 && tp->swizzle_bytes != 32 && tp->swizzle_bytes != 64 &&
        tp->swizzle_bytes != 128)
        return "the swizzle is not 0, 32, 64 or 128 bytes.";
    if (tp->swizzle_bytes != 0 && tp->box[0] * (uint32_t)tp->elem_bytes > (uint32_t)tp->swizzle_bytes)
        return "the inner box is wider than the swizzle span.";
    if (tp->l2_promo_bytes != 0 && tp->l2_promo_bytes != 128 && tp->l2_promo_bytes != 256)
        return "the L2 promotion is not 0 (by the pitch), 128 or 256 bytes.";
    return NULL;
}

static _Atomic(PFN_cuTensorMapEncodeTiled_v12000) encode_fn;

static PFN_cuTensorMapEncodeTiled_v12000 get_encode(hg__err *e)
{
    PFN_cuTensorMapEncodeTiled_v12000 fn = atomic_load(&encode_fn);
    if (fn) return fn;
    if (!hg__driver_symbol("cuTensorMapEncodeTiled", &fn, sizeof fn)) {
        hg__err_set(e, "the driver has no cuTensorMapEncodeTiled.");
        return NULL;
    }
    atomic_store(&encode_fn, fn);
    return fn;
}

/* An L2 line: the unit of the promotion rule below. */
#define HG__TMAP_LINE_BYTES 128

/* 256 bytes where rows start on 128-byte lines (a box row's neighbour, the
 * next k block's, comes along); 128 where they do not, since a 256-byte span
 * around a row that straddles lines is mostly unused (measured at 3000^3,
 * lda = 3000: docs/NOTES.md, the tensor maps' L2 promotion). A caller may
 * choose instead (the family's one-consumer swapped rows: config.cuh);
 * hg__tmap_check admits only 128 or 256 there. */
int hg__tmap_l2_promo(const hg__tmap_params *tp)
{
    if (tp->l2_promo_bytes != 0) return tp->l2_promo_bytes;
    return tp->stride1 % HG__TMAP_LINE_BYTES == 0 ? 2 * HG__TMAP_LINE_BYTES : HG__TMAP_LINE_BYTES;
}

hg_status hg__tmap_encode(void *out, const void *base, hg_dtype dtype, const hg__tmap_params *tp, hg__err *e)
{
    const char *why = hg__tmap_check(tp, base);
    if (why) {
        hg__err_set(e, "tensor map rejected before encoding: %s", why);
        return HG_STATUS_INTERNAL_ERROR;
    }
    PFN_cuTensorMapEncodeTiled_v12000 fn = get_encode(e);
    if (!fn) return HG_STATUS_EXECUTION_FAILED;
    cuuint64_t dims[3] = {tp->dim[0], tp->dim[1], tp->batch};
    cuuint64_t strides[2] = {tp->stride1, tp->stride2};
    cuuint32_t box[3] = {tp->box[0], tp->box[1], 1};
    cuuint32_t estr[3] = {1, 1, 1};
    CUtensorMapSwizzle sw = tp->swizzle_bytes == 128 ? CU_TENSOR_MAP_SWIZZLE_128B
                            : tp->swizzle_bytes == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                            : tp->swizzle_bytes == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                                      : CU_TENSOR_MAP_SWIZZLE_NONE;
    /* 4-byte elements: an fp32 C (HG_C_F32); else the inputs' dtype. */
    CUtensorMapDataType dt = tp->elem_bytes == 4   ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32
                             : dtype == HG_BF16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                                : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    const CUtensorMapL2promotion promo =
        hg__tmap_l2_promo(tp) == 256 ? CU_TENSOR_MAP_L2_PROMOTION_L2_256B : CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
    CUresult r = fn((CUtensorMap *)out, dt, (cuuint32_t)tp->rank, (void *)base, dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
                    sw, promo, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        hg__err_set(e, "cuTensorMapEncodeTiled failed (CUresult %d) for dims %llux%llu, box %ux%u.", (int)r,
                    (unsigned long long)tp->dim[0], (unsigned long long)tp->dim[1], tp->box[0], tp->box[1]);
        return HG_STATUS_INTERNAL_ERROR;
    }
    return HG_STATUS_SUCCESS;
}
