/*
 * repack.cu: the copy behind src/repack.c. An operand whose rows break TMA's
 * 16-byte rule (an odd leading dimension, a base off 16 bytes) is copied row
 * by row into the workspace at a pitch that keeps every row 16-byte aligned.
 *
 * Why not cudaMemcpy2DAsync: with a source pitch that is not a multiple of
 * 16 bytes it ran at about 1.5 TB/s on the H200 (8192 x 8191 fp16 operands,
 * 2026-11-30), a quarter of the product's time; this copy moves 16 bytes per
 * thread per step.
 *
 * A work item is 8 consecutive elements of one row (VEC_ELEMS), numbered row
 * by row, walked grid-stride. The destination of an item is one aligned
 * 16-byte store. Its source starts `shift` elements past a 16-byte boundary
 * (the row's misalignment, the same for every item of the row): two aligned
 * 16-byte loads (the second is the neighbour item's first, an L1 hit) and
 * funnel shifts assemble it. Items whose two loads would reach outside the
 * row (the row's first when it is misaligned, its last one or two) copy
 * element by element, so no byte outside the operand is read.
 */
#include <stdint.h>

#include "common.cuh"

#define HG_REPACK_THREADS 256
#define HG_REPACK_CTAS_PER_SM 8
#define HG_REPACK_VEC_BYTES 16
#define HG_REPACK_VEC_ELEMS (HG_REPACK_VEC_BYTES / 2)
#define HG_REPACK_WORDS (HG_REPACK_VEC_BYTES / 4)

/* Words q .. q + 3 of the eight in lo:hi, shifted right by `half` 16-bit
 * elements (0 or 1): the item's 8 elements when its source starts 2q + half
 * elements past lo's boundary. q is the same across the row: a uniform
 * branch. */
static __device__ __forceinline__ uint4 hg_repack_pick(uint4 lo, uint4 hi, int q, int half)
{
    const uint32_t w[2 * HG_REPACK_WORDS] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
    uint32_t o[HG_REPACK_WORDS + 1];
    switch (q) { /* constant indices in each case: w stays in registers */
    case 0: o[0] = w[0], o[1] = w[1], o[2] = w[2], o[3] = w[3], o[4] = w[4]; break;
    case 1: o[0] = w[1], o[1] = w[2], o[2] = w[3], o[3] = w[4], o[4] = w[5]; break;
    case 2: o[0] = w[2], o[1] = w[3], o[2] = w[4], o[3] = w[5], o[4] = w[6]; break;
    default: o[0] = w[3], o[1] = w[4], o[2] = w[5], o[3] = w[6], o[4] = w[7]; break;
    }
    const uint32_t s = half ? 16u : 0u;
    return make_uint4(__funnelshift_r(o[0], o[1], s), __funnelshift_r(o[1], o[2], s), __funnelshift_r(o[2], o[3], s),
                      __funnelshift_r(o[3], o[4], s));
}

__global__ void __launch_bounds__(HG_REPACK_THREADS)
    hg_repack_kernel(uint16_t *dst, int64_t dst_ld, const uint16_t *src, int64_t src_ld, int64_t rows, int64_t cols)
{
    const int64_t per_row = hg_cdiv(cols, HG_REPACK_VEC_ELEMS);
    const int64_t items = rows * per_row;
    for (int64_t it = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; it < items;
         it += (int64_t)gridDim.x * blockDim.x) {
        const int64_t r = it / per_row;
        const int64_t c = (it - r * per_row) * HG_REPACK_VEC_ELEMS;
        const uint16_t *s = src + r * src_ld;
        uint16_t *d = dst + r * dst_ld + c;
        const int shift = (int)(((uintptr_t)s % HG_REPACK_VEC_BYTES) / 2);
        const uint16_t *s0 = s - shift; /* the row's 16-byte boundary */
        /* Loads of s0[c, c + 8) and, when shifted, s0[c + 8, c + 16): both
         * inside the row's [shift, shift + cols) of s0? */
        const bool inside = (shift == 0 || c >= shift) &&
                            c + (shift ? 2 : 1) * HG_REPACK_VEC_ELEMS <= (int64_t)shift + cols;
        if (inside) {
            const uint4 lo = *(const uint4 *)(s0 + c);
            const uint4 hi = shift ? *(const uint4 *)(s0 + c + HG_REPACK_VEC_ELEMS) : lo;
            *(uint4 *)d = hg_repack_pick(lo, hi, shift / 2, shift % 2);
        } else {
            const int64_t n = cols - c < HG_REPACK_VEC_ELEMS ? cols - c : HG_REPACK_VEC_ELEMS;
            for (int64_t i = 0; i < n; i++) d[i] = s[c + i];
        }
    }
}

/* Queues the copy of a rows x cols operand (2-byte elements, leading
 * dimension src_ld) to dst at pitch dst_ld (dst 16-byte aligned, dst_ld a
 * multiple of 8) on `stream`. */
extern "C" hg_status hg__repack_rows(void *dst, int64_t dst_ld, const void *src, int64_t src_ld, int64_t rows,
                                     int64_t cols, int sm_count, struct CUstream_st *stream, hg__err *e)
{
    if (rows <= 0 || cols <= 0) return HG_STATUS_SUCCESS;
    const int64_t items = rows * hg_cdiv(cols, HG_REPACK_VEC_ELEMS);
    const int64_t blocks = hg_grid_stride_blocks(items, HG_REPACK_THREADS, sm_count, HG_REPACK_CTAS_PER_SM);
    hg_repack_kernel<<<(unsigned)blocks, HG_REPACK_THREADS, 0, (cudaStream_t)stream>>>(
        (uint16_t *)dst, dst_ld, (const uint16_t *)src, src_ld, rows, cols);
    return hg_launch_status("repack", e);
}
