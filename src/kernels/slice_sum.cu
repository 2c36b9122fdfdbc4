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
 * order. Items are walked grid-stride. The launch is short and its loads
 * are its time: written as one group and a tail loop, ptxas interleaved
 * each load with the adds before it and kept 2-3 in flight; the predicated
 * form below issues all of a group's loads first (2.4 us off 256 x 256 x
 * 131072 on an H100: docs/NOTES.md, forty-third session).
 */
#include <stdint.h>

#include "common.cuh"

#define HG_SLICE_SUM_THREADS 128
#define HG_SLICE_SUM_CTAS_PER_SM 8
#define HG_SLICE_SUM_VEC 4    /* floats per item: one float4 of each partial */
#define HG_SLICE_SUM_UNROLL 16 /* partials loaded before they are added */

template <int DT, class CT>
__global__ void __launch_bounds__(HG_SLICE_SUM_THREADS)
    hg_slice_sum_kernel(hg_epilogue e, const float *w, int64_t ldw, int64_t slices)
{
    /* Launched as the first launch's programmatic dependent: wait for it
     * to end and its partials to be visible. */
    hg_griddepcontrol_wait();
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
            /* UNROLL partials' loads in flight, the last group's
             * predicated (slices is uniform: no divergence), then added in
             * slice order. A short tail loop instead would wait a round
             * trip a slice: fewer slices than UNROLL would run serially. */
            for (int64_t s = 0; s < slices; s += HG_SLICE_SUM_UNROLL) {
                float4 v[HG_SLICE_SUM_UNROLL];
#pragma unroll
                for (int u = 0; u < HG_SLICE_SUM_UNROLL; u++)
                    if (s + u < slices) v[u] = __ldcg(from + (s + u) * step);
#pragma unroll
                for (int u = 0; u < HG_SLICE_SUM_UNROLL; u++)
                    if (s + u < slices) sum.x += v[u].x, sum.y += v[u].y, sum.z += v[u].z, sum.w += v[u].w;
            }
            /* (columns past n are the pitch's padding: never written) */
            const float out[HG_SLICE_SUM_VEC] = {sum.x, sum.y, sum.z, sum.w};
#pragma unroll
            for (int x = 0; x < HG_SLICE_SUM_VEC; x++) hg_store_one<DT, FIN, CT>(e, r, c + x, out[x]);
        }
    });
}

template <int DT, class CT>
static hg_status hg_slice_sum_launch(hg_epilogue epi, const float *w, int64_t ldw, int64_t slices, int64_t blocks,
                                     cudaStream_t stream, hg__err *e)
{
    /* Programmatic stream serialization: this launch is processed once
     * the first one's CTAs have exited, without waiting for that grid's
     * completion to be signalled, so its start-up overlaps the first
     * launch's end; the kernel's griddepcontrol.wait keeps the order. (The
     * first launch issues no griddepcontrol.launch_dependents: at its start
     * that cost an unsliced row 0.8%, after the producer's last load it made
     * 256 x 256 x 131072 1.3% slower; docs/NOTES.md, forty-fourth and
     * forty-fifth sessions.) */
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    const cudaLaunchConfig_t cfg = hg_launch_config(attr, blocks, HG_SLICE_SUM_THREADS, 0, stream);
    void *args[] = {&epi, &w, &ldw, &slices};
    return hg_launch_ex(&cfg, (const void *)hg_slice_sum_kernel<DT, CT>, args, "slice_sum", e);
}

extern "C" hg_status hg__slice_sum(const hg__problem *p, const float *w, int64_t ldw, int64_t slices, int sm_count,
                                   struct CUstream_st *stream, hg__err *e)
{
    const hg_epilogue epi = hg_epilogue_of(p);
    const int64_t items = p->m * hg_cdiv(p->n, HG_SLICE_SUM_VEC); /* m, n > 0: at least one */
    const int64_t blocks = hg_grid_stride_blocks(items, HG_SLICE_SUM_THREADS, sm_count, HG_SLICE_SUM_CTAS_PER_SM);
    const cudaStream_t s = (cudaStream_t)stream;
    const bool bf16 = p->dtype == HG_BF16;
    if (p->c_type == HG_C_F32)
        return bf16 ? hg_slice_sum_launch<1, float>(epi, w, ldw, slices, blocks, s, e)
                    : hg_slice_sum_launch<0, float>(epi, w, ldw, slices, blocks, s, e);
    return bf16 ? hg_slice_sum_launch<1, uint16_t>(epi, w, ldw, slices, blocks, s, e)
                : hg_slice_sum_launch<0, uint16_t>(epi, w, ldw, slices, blocks, s, e);
}
