/*
 * slice_sum.cu: the second launch of a product split into k slices
 * (src/slices.c). The slices' fp32 partials lie one after another in the
 * workspace, each m rows at a pitch of ldw (a multiple of 4) floats; C gets
 * act(alpha * (sum of the partials, in slice order) + beta * C + bias),
 * written through common.cuh's per-element epilogue, so it takes any ldc and
 * alignment, fp16, bf16 or fp32.
 *
 * A work item is 4 consecutive columns of one row: one float4 per slice,
 * loaded UNROLL slices at a time so that many loads are in flight (the
 * partials come from L2, just written by the first launch), added in slice
 * order. Items are walked grid-stride.
 */
#include <stdint.h>

#include "common.cuh"

#define HG_SLICE_SUM_THREADS 128
#define HG_SLICE_SUM_CTAS_PER_SM 8
#define HG_SLICE_SUM_VEC 4    /* floats per item: one float4 of each partial */
#define HG_SLICE_SUM_UNROLL 8 /* partials loaded before they are added */

template <int DT, class CT>
__global__ void __launch_bounds__(HG_SLICE_SUM_THREADS)
    hg_slice_sum_kernel(hg_epilogue e, const float *w, int64_t ldw, int64_t slices)
{
    const int64_t per_row = hg_cdiv(e.n, HG_SLICE_SUM_VEC);
    const int64_t items = e.m * per_row;
    const int64_t slice_floats = e.m * ldw;
    hg_fin_dispatch<true>(e, [&](auto fin) {
        using FIN = decltype(fin);
        for (int64_t it = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; it < items;
             it += (int64_t)gridDim.x * blockDim.x) {
            const int64_t r = it / per_row;
            const int64_t c = (it - r * per_row) * HG_SLICE_SUM_VEC;
            const float4 *from = (const float4 *)(w + r * ldw + c);
            const int64_t step = slice_floats / HG_SLICE_SUM_VEC;
            float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            int64_t s = 0;
            for (; s + HG_SLICE_SUM_UNROLL <= slices; s += HG_SLICE_SUM_UNROLL) {
                float4 v[HG_SLICE_SUM_UNROLL];
#pragma unroll
                for (int u = 0; u < HG_SLICE_SUM_UNROLL; u++) v[u] = __ldcg(from + (s + u) * step);
#pragma unroll
                for (int u = 0; u < HG_SLICE_SUM_UNROLL; u++)
                    sum.x += v[u].x, sum.y += v[u].y, sum.z += v[u].z, sum.w += v[u].w;
            }
            for (; s < slices; s++) {
                const float4 v = __ldcg(from + s * step);
                sum.x += v.x, sum.y += v.y, sum.z += v.z, sum.w += v.w;
            }
            /* (columns past n are the pitch's padding: never written) */
            const float out[HG_SLICE_SUM_VEC] = {sum.x, sum.y, sum.z, sum.w};
#pragma unroll
            for (int x = 0; x < HG_SLICE_SUM_VEC; x++) hg_store_one<DT, FIN, CT>(e, r, c + x, out[x]);
        }
    });
}

template <int DT, class CT> static const void *hg_slice_sum_fn(void)
{
    return (const void *)hg_slice_sum_kernel<DT, CT>;
}

extern "C" hg_status hg__slice_sum(const hg__problem *p, const float *w, int64_t ldw, int64_t slices, int sm_count,
                                   struct CUstream_st *stream, hg__err *e)
{
    hg_epilogue epi = hg_epilogue_of(p);
    const bool bf16 = p->dtype == HG_BF16, f32 = p->c_type == HG_C_F32;
    const void *fn = f32 ? (bf16 ? hg_slice_sum_fn<1, float>() : hg_slice_sum_fn<0, float>())
                         : (bf16 ? hg_slice_sum_fn<1, uint16_t>() : hg_slice_sum_fn<0, uint16_t>());
    const int64_t items = p->m * hg_cdiv(p->n, HG_SLICE_SUM_VEC);
    int64_t blocks = hg_cdiv(items, HG_SLICE_SUM_THREADS);
    const int64_t most = (int64_t)sm_count * HG_SLICE_SUM_CTAS_PER_SM;
    if (blocks > most) blocks = most;
    if (blocks < 1) blocks = 1;
    void *args[4] = {(void *)&epi, (void *)&w, (void *)&ldw, (void *)&slices};
    cudaError_t err = cudaLaunchKernel(fn, dim3((unsigned)blocks), dim3(HG_SLICE_SUM_THREADS), args, 0,
                                       (cudaStream_t)stream);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        hg__err_set(e, "slice_sum: launch failed: %s", cudaGetErrorString(err));
        return HG_STATUS_EXECUTION_FAILED;
    }
    return hg_launch_status("slice_sum", e);
}
