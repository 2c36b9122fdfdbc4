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

#include <type_traits>

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

/* Two floats to a packed pair, low half first (round to nearest even): one
 * cvt.rn.f16x2.f32 (bf16x2), where two conversions and a merge took three. */
template <int DT> static __device__ __forceinline__ uint32_t hg_pack2(float lo, float hi)
{
    uint32_t pair;
    if constexpr (DT == 0) {
        const __half2 h = __floats2half2_rn(lo, hi);
        memcpy(&pair, &h, sizeof pair);
    } else {
        const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
        memcpy(&pair, &h, sizeof pair);
    }
    return pair;
}

/* What the epilogue needs to write C = act(alpha * acc + beta * C + bias). */
typedef struct {
    void *C; /* elements of the kernel's CT: uint16_t (the inputs' dtype) or float (HG_C_F32) */
    int64_t ldc, m, n;
    float alpha, beta;
    const uint16_t *bias; /* NULL, or n elements: bias[col] joins column col */
    int act;              /* hg_activation */
    int64_t stride_c, stride_bias; /* a strided batch's steps (elements; 0 without a bias) */
} hg_epilogue;

/* The epilogue of product b of a strided batch: C (of CT elements) and the
 * bias moved on. */
template <class CT = uint16_t>
static __device__ __forceinline__ hg_epilogue hg_epilogue_at(const hg_epilogue &e, int64_t b)
{
    hg_epilogue r = e;
    r.C = (CT *)e.C + b * e.stride_c;
    r.bias += b * e.stride_bias;
    return r;
}

/* C's elements, CT: uint16_t, 16 bits of the inputs' dtype DT, or float
 * (hg_matmul's HG_C_F32). One element to and from fp32, and a pair of
 * neighbours as one store (4 bytes, or 8) and one load. */
template <class CT> static constexpr bool hg_c_is_f32 = std::is_same<CT, float>::value;
template <int DT, class CT> static __device__ __forceinline__ float hg_c_to_f32(CT v)
{
    if constexpr (hg_c_is_f32<CT>) return v;
    else return hg_elem_to_f32<DT>(v);
}
template <int DT, class CT> static __device__ __forceinline__ CT hg_f32_to_c(float f)
{
    if constexpr (hg_c_is_f32<CT>) return f;
    else return hg_f32_to_elem<DT>(f);
}
template <int DT, class CT> static __device__ __forceinline__ void hg_c_store2(CT *c, float v0, float v1)
{
    if constexpr (hg_c_is_f32<CT>) *(float2 *)c = make_float2(v0, v1);
    else *(uint32_t *)c = hg_pack2<DT>(v0, v1);
}
template <int DT, class CT> static __device__ __forceinline__ void hg_c_load2(const CT *c, float *v0, float *v1)
{
    if constexpr (hg_c_is_f32<CT>) {
        const float2 old = *(const float2 *)c;
        *v0 = old.x, *v1 = old.y;
    } else {
        const uint32_t old = *(const uint32_t *)c;
        *v0 = hg_elem_to_f32<DT>((uint16_t)(old & 0xFFFF)), *v1 = hg_elem_to_f32<DT>((uint16_t)(old >> 16));
    }
}

static inline hg_epilogue hg_epilogue_of(const hg__problem *p)
{
    hg_epilogue e;
    e.C = (uint16_t *)p->C;
    e.ldc = p->ldc;
    e.m = p->m;
    e.n = p->n;
    e.alpha = p->alpha;
    e.beta = p->beta;
    e.bias = (const uint16_t *)p->bias;
    e.act = (int)p->act;
    e.stride_c = p->batch > 1 ? p->stride_c : 0;
    e.stride_bias = p->batch > 1 && p->bias ? p->stride_bias : 0;
    return e;
}

/* GELU's tanh form (cuBLASLt's CUBLASLT_EPILOGUE_GELU): 0.5 v (1 + tanh(u)),
 * u = sqrt(2 / pi) (v + 0.044715 v^3), with the hardware's tanh (tanh.approx:
 * one MUFU operation, where exp and a reciprocal took two and bound the
 * epilogue at 8192^3). Its relative error, at most 2^-10.987, puts at most
 * 0.5 |v| 2^-10.987 on the result (hg__check_bound_act counts it). v = -inf
 * gives NaN, as the formula does; +inf gives +inf. */
#define HG_GELU_SQRT_2_OVER_PI 0.7978845608028654f
#define HG_GELU_CUBIC 0.044715f
/* GELU of v = 2 w, from w = v / 2: w (1 + tanh(w (2 LIN + 8 CUB w^2))), the
 * same value as from v (the factors of 2 are exact), so a caller that forms v
 * by multiply-adds folds the halving into them (hg_fin's pre). */
static __device__ __forceinline__ float hg_gelu_tanh_half(float w)
{
    constexpr float LIN2 = 2.0f * HG_GELU_SQRT_2_OVER_PI, CUB8 = 8.0f * (HG_GELU_SQRT_2_OVER_PI * HG_GELU_CUBIC);
    return fmaf(w, hg_tanh_approx(w * fmaf(CUB8, w * w, LIN2)), w);
}

/* hg_matmul's part of the epilogue, after alpha * acc + beta * C: a bias per
 * column, then an activation, as compile-time choices. A kernel carries the
 * code of the choices it may run and a call runs one of them, chosen once
 * (hg_fin_dispatch), so the per-element code stays short: with every choice
 * tested per element, the 128 x 256 epilogue ran 45% slower. */
template <int ACT, bool BIAS> struct hg_fin {
    static constexpr int act = ACT;
    static constexpr bool bias = BIAS;
    /* Whether it changes the value at all (hg_fin_none does not). */
    static constexpr bool active = BIAS || ACT != HG_ACT_NONE;
    /* The scale of the argument hg_fin_act takes: GELU's half (hg_gelu_tanh_half). */
    static constexpr float pre = ACT == HG_ACT_GELU_TANH ? 0.5f : 1.0f;
};
typedef hg_fin<HG_ACT_NONE, false> hg_fin_none;

/* Column col's bias (col < n), 0 where FIN has none. */
template <int DT, class FIN> static __device__ __forceinline__ float hg_fin_bias(const hg_epilogue &e, int64_t col)
{
    if constexpr (FIN::bias) return hg_elem_to_f32<DT>(__ldg(e.bias + col));
    else return 0.0f;
}

/* The activation of v, given pre * v (FIN::pre). */
template <class FIN> static __device__ __forceinline__ float hg_fin_act(float w)
{
    if constexpr (FIN::act == HG_ACT_RELU) return w < 0.0f ? 0.0f : w;
    else if constexpr (FIN::act == HG_ACT_GELU_TANH) return hg_gelu_tanh_half(w);
    else return w;
}

/* v + bias, then the activation; ReLU keeps a NaN. */
template <class FIN> static __device__ __forceinline__ float hg_fin_apply(float v, float bias)
{
    if constexpr (FIN::bias) v += bias;
    return hg_fin_act<FIN>(FIN::pre * v);
}

/* f(FIN()) with the finisher the call asks for. FUSED false (a kernel built
 * without hg_matmul's epilogue): f(hg_fin_none()) alone. The branch is
 * uniform: every thread takes the same one. */
template <bool FUSED, class F> static __device__ __forceinline__ void hg_fin_dispatch(const hg_epilogue &e, F &&f)
{
    if constexpr (!FUSED) {
        f(hg_fin_none());
    } else if (e.bias != nullptr) {
        if (e.act == HG_ACT_RELU) f(hg_fin<HG_ACT_RELU, true>());
        else if (e.act == HG_ACT_GELU_TANH) f(hg_fin<HG_ACT_GELU_TANH, true>());
        else f(hg_fin<HG_ACT_NONE, true>());
    } else {
        if (e.act == HG_ACT_RELU) f(hg_fin<HG_ACT_RELU, false>());
        else if (e.act == HG_ACT_GELU_TANH) f(hg_fin<HG_ACT_GELU_TANH, false>());
        else f(hg_fin_none());
    }
}

/* act(alpha * acc + beta * old + bias) at column col; with beta == 0, C is
 * not read (so NaN in C does not leak into the result, as BLAS promises). */
template <int DT, class FIN = hg_fin_none, class CT = uint16_t>
static __device__ __forceinline__ float hg_epilogue_value(const hg_epilogue &e, float acc, const CT *c, int64_t col)
{
    float v = e.alpha * acc;
    if (e.beta != 0.0f) v += e.beta * hg_c_to_f32<DT>(*c);
    return hg_fin_apply<FIN>(v, hg_fin_bias<DT, FIN>(e, col));
}

/* Write C[row, col] and C[row, col + 1] (each only where inside m x n), FIN
 * the bias and activation (hg_fin), C of CT elements. One store of the pair
 * when both are inside and it is aligned to the pair's size, which holds for
 * the TMA kernels (C 16-byte aligned, ldc a multiple of 16 bytes, col even). */
template <int DT, class FIN = hg_fin_none, class CT = uint16_t>
static __device__ __forceinline__ void hg_store_pair(const hg_epilogue &e, int64_t row, int64_t col, float v0,
                                                     float v1)
{
    if (row >= e.m || col >= e.n) return;
    CT *c = (CT *)e.C + row * e.ldc + col;
    if (col + 1 < e.n && (((uintptr_t)c) % (2 * sizeof(CT))) == 0) {
        float o0 = e.alpha * v0, o1 = e.alpha * v1;
        if (e.beta != 0.0f) {
            float c0, c1;
            hg_c_load2<DT>(c, &c0, &c1);
            o0 += e.beta * c0, o1 += e.beta * c1;
        }
        o0 = hg_fin_apply<FIN>(o0, hg_fin_bias<DT, FIN>(e, col));
        o1 = hg_fin_apply<FIN>(o1, hg_fin_bias<DT, FIN>(e, col + 1));
        hg_c_store2<DT>(c, o0, o1);
    } else {
        c[0] = hg_f32_to_c<DT, CT>(hg_epilogue_value<DT, FIN>(e, v0, c, col));
        if (col + 1 < e.n) c[1] = hg_f32_to_c<DT, CT>(hg_epilogue_value<DT, FIN>(e, v1, c + 1, col + 1));
    }
}

/* Write C[row, col] alone (when inside m x n). */
template <int DT, class FIN = hg_fin_none, class CT = uint16_t>
static __device__ __forceinline__ void hg_store_one(const hg_epilogue &e, int64_t row, int64_t col, float v)
{
    if (row >= e.m || col >= e.n) return;
    CT *c = (CT *)e.C + row * e.ldc + col;
    *c = hg_f32_to_c<DT, CT>(hg_epilogue_value<DT, FIN>(e, v, c, col));
}

/* Store an m64nN wgmma accumulator fragment (N/2 floats per thread of the warp
 * group) at C[row0.., col0..]. Fragment layout (9.7.15.5.1, D matrix): thread
 * t, warp w = t / 32, lane l: d[i] sits at row 16w + l/4 + 8*((i/2) % 2),
 * column 8*(i/4) + 2*(l%4) + (i%2). TRANSPOSED: the fragment is of C^T (a
 * kernel that computes B A^T), its row r and column c are C's row c and
 * column r; element by element then, since a fragment's neighbours along
 * C's rows sit in other lanes (the 8 lanes of one l % 4 write 16
 * contiguous bytes). */
template <int DT, int N, bool TRANSPOSED = false, class FIN = hg_fin_none, class CT = uint16_t>
static __device__ __forceinline__ void hg_store_wgmma_acc(const hg_epilogue &e, const float *d, int64_t row0,
                                                          int64_t col0, int tid_in_wg)
{
    int warp = tid_in_wg / 32, lane = tid_in_wg % 32;
    int64_t r = row0 + warp * 16 + lane / 4;
    int64_t c = col0 + 2 * (lane % 4);
#pragma unroll
    for (int j = 0; j < N / 8; j++) {
        if constexpr (TRANSPOSED) {
            hg_store_one<DT, FIN, CT>(e, c + 8 * j, r, d[4 * j + 0]);
            hg_store_one<DT, FIN, CT>(e, c + 8 * j + 1, r, d[4 * j + 1]);
            hg_store_one<DT, FIN, CT>(e, c + 8 * j, r + 8, d[4 * j + 2]);
            hg_store_one<DT, FIN, CT>(e, c + 8 * j + 1, r + 8, d[4 * j + 3]);
        } else {
            hg_store_pair<DT, FIN, CT>(e, r, c + 8 * j, d[4 * j + 0], d[4 * j + 1]);
            hg_store_pair<DT, FIN, CT>(e, r + 8, c + 8 * j, d[4 * j + 2], d[4 * j + 3]);
        }
    }
}

/* The dynamic shared memory, its start rounded up to 1024 bytes: the 128-byte
 * swizzle's atom (8 rows x 128 B) must start 1024-byte aligned. Launchers ask
 * for 1024 bytes more than they use. */
static __device__ __forceinline__ uint8_t *hg_smem_align1024(uint8_t *raw)
{
    uint32_t a = hg_smem_addr(raw);
    return raw + ((1024u - (a & 1023u)) & 1023u);
}

/* One 64-wide k block of a warp group's m64nN tile: four m64nNk16 wgmmas (the
 * k16 slice s starts 32 bytes along the 128-byte swizzled rows), one commit
 * group. The acc fence first pins every earlier write of acc (the zeroing)
 * before wgmma.fence, so no accumulator move lands between the wgmmas. */
template <int N, int DT>
static __device__ __forceinline__ void hg_wgmma_k64_block(float *acc, uint32_t a_addr, uint32_t b_addr)
{
    hg_acc_fence<N / 2>(acc);
    hg_wgmma_fence();
#pragma unroll
    for (int s = 0; s < 4; s++)
        hg_wgmma_m64k16<N, DT>(acc, hg_wgmma_desc_sw128(a_addr + s * 32), hg_wgmma_desc_sw128(b_addr + s * 32), 1);
    hg_wgmma_commit_group();
}

/* V1 to V3's math for one 64-wide k block: one warp group computes a 128 x 128
 * tile as two m64n128 halves (A rows 0-63 at a_addr, rows 64-127 at a_addr +
 * 8 KiB, both against the same 128 rows of B), issues the eight wgmmas as one
 * group and waits for it (wait_group 0: nothing stays in flight). The k16
 * slice s starts 32 bytes further into each 128-byte row; the swizzle is a
 * function of the address bits, so a slice's descriptor is the tile's with the
 * start address moved. */
template <int DT>
static __device__ __forceinline__ void hg_wgmma_128x128_k64_wait(float *acc0, float *acc1, uint32_t a_addr,
                                                                 uint32_t b_addr)
{
    hg_wgmma_fence();
#pragma unroll
    for (int s = 0; s < 4; s++) {
        const uint64_t db = hg_wgmma_desc_sw128(b_addr + s * 32);
        hg_wgmma_m64k16<128, DT>(acc0, hg_wgmma_desc_sw128(a_addr + s * 32), db, 1);
        hg_wgmma_m64k16<128, DT>(acc1, hg_wgmma_desc_sw128(a_addr + 64 * 128 + s * 32), db, 1);
    }
    hg_wgmma_commit_group();
    hg_wgmma_wait_group<0>();
    hg_acc_fence<64>(acc0);
    hg_acc_fence<64>(acc1);
}

/* ---- host side of a TMA launcher ------------------------------------------ */

/* A map's rank: 2, or 3 with p's batch as the third dimension, matrices
 * batch_stride elements apart. One matrix (batch 1) is never stepped over;
 * its stride is then a whole matrix's, a valid value whatever the call's. */
static inline void hg_tmap_batch(hg__tmap_params *t, const hg__problem *p, int rank, int64_t batch_stride)
{
    t->rank = rank;
    t->batch = rank == 3 ? (uint64_t)p->batch : 1;
    t->stride2 = t->stride1 * t->dim[1];
    if (rank == 3 && p->batch > 1) t->stride2 = (uint64_t)batch_stride * (uint64_t)t->elem_bytes;
    else if (t->stride2 >= ((uint64_t)1 << 40)) t->stride2 = 16;
}

/* One operand, A (mn = m) or B (mn = n), as a tensor map of `rank`
 * (hg_tmap_batch), 128-byte swizzled, boxes of box_inner x box_outer
 * elements: K-major (stored mn x k, k contiguous) or MN-major (stored k x mn,
 * mn contiguous); l2_promo_bytes as hg__tmap_params has it (0: by the pitch). */
static inline hg_status hg_operand_tensor_map(const hg__problem *p, const void *ptr, int64_t mn, int64_t ld,
                                              bool mn_major, uint32_t box_inner, uint32_t box_outer, CUtensorMap *map,
                                              hg__err *e, int rank = 2, int64_t batch_stride = 0,
                                              int l2_promo_bytes = 0)
{
    hg__tmap_params t;
    t.l2_promo_bytes = l2_promo_bytes;
    t.elem_bytes = 2;
    t.dim[0] = (uint64_t)(mn_major ? mn : p->k);
    t.dim[1] = (uint64_t)(mn_major ? p->k : mn);
    t.stride1 = (uint64_t)ld * 2;
    t.box[0] = box_inner;
    t.box[1] = box_outer;
    t.swizzle_bytes = 128;
    hg_tmap_batch(&t, p, rank, batch_stride);
    return hg__tmap_encode(map, ptr, p->dtype, &t, e);
}

/* A (m x k) and B (n x k) of a TN problem as 2-D tensor maps with 128-byte
 * swizzled boxes of 64 (k) x rows. */
static inline hg_status hg_tn_tensor_maps(const hg__problem *p, uint32_t a_box_rows, uint32_t b_box_rows,
                                          CUtensorMap *map_a, CUtensorMap *map_b, hg__err *e)
{
    hg_status s = hg_operand_tensor_map(p, p->A, p->m, p->lda, false, 64, a_box_rows, map_a, e);
    if (s != HG_STATUS_SUCCESS) return s;
    return hg_operand_tensor_map(p, p->B, p->n, p->ldb, false, 64, b_box_rows, map_b, e);
}

/* C (m x n) as a tensor map of `rank` (hg_tmap_batch) for TMA loads and
 * stores, boxes of cols x rows, swizzled as the staging in shared memory is
 * (0: packed rows). */
static inline hg_status hg_c_tensor_map(const hg__problem *p, uint32_t box_cols, uint32_t box_rows,
                                        int swizzle_bytes, CUtensorMap *map_c, hg__err *e, int rank = 2)
{
    hg__tmap_params tc;
    tc.l2_promo_bytes = 0;
    tc.elem_bytes = hg__c_bytes(p);
    tc.dim[0] = (uint64_t)p->n;
    tc.dim[1] = (uint64_t)p->m;
    tc.stride1 = (uint64_t)p->ldc * tc.elem_bytes;
    tc.box[0] = box_cols;
    tc.box[1] = box_rows;
    tc.swizzle_bytes = swizzle_bytes;
    hg_tmap_batch(&tc, p, rank, p->stride_c);
    return hg__tmap_encode(map_c, p->C, p->dtype, &tc, e);
}

/* Blocks of `threads` for a grid-stride walk over `items`: one item a
 * thread, but no more than ctas_per_sm blocks per SM. */
static inline int64_t hg_grid_stride_blocks(int64_t items, int threads, int sm_count, int ctas_per_sm)
{
    const int64_t blocks = hg_cdiv(items, threads), most = (int64_t)(sm_count > 0 ? sm_count : 1) * ctas_per_sm;
    return blocks > most ? most : blocks;
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

/* ---- launches with an attribute (cluster kernels, the slices' sum) ------- */

/* A 1-D launch of `blocks` CTAs of `threads`, smem bytes of dynamic shared
 * memory, carrying the one attribute attr[0] (the caller's storage, set by
 * the caller). */
static inline cudaLaunchConfig_t hg_launch_config(cudaLaunchAttribute attr[1], int64_t blocks, int threads, int smem,
                                                  cudaStream_t stream)
{
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((unsigned)blocks, 1, 1);
    cfg.blockDim = dim3((unsigned)threads, 1, 1);
    cfg.dynamicSmemBytes = (size_t)smem;
    cfg.stream = stream;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    return cfg;
}

/* The launch of `clusters` clusters of cluster_ctas CTAs (attr: its storage):
 * the persistent cluster kernels, V6 and the family. */
static inline cudaLaunchConfig_t hg_cluster_launch_config(cudaLaunchAttribute attr[1], int64_t clusters,
                                                          int cluster_ctas, int threads, int smem,
                                                          cudaStream_t stream)
{
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = (unsigned)cluster_ctas;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    return hg_launch_config(attr, clusters * cluster_ctas, threads, smem, stream);
}

/* Queue a configured launch (hg_launch_config's); a failure is reported
 * under the kernel's name. */
static inline hg_status hg_launch_ex(const cudaLaunchConfig_t *cfg, const void *fn, void **args, const char *name,
                                     hg__err *e)
{
    cudaError_t err = cudaLaunchKernelExC(cfg, fn, args);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        hg__err_set(e, "%s: launch failed: %s", name, cudaGetErrorString(err));
        return HG_STATUS_EXECUTION_FAILED;
    }
    return hg_launch_status(name, e);
}

/* A stream-K plan's memory in the launch's workspace: the counters at its
 * start, the partials after them. 0 when the plan needs none or the call
 * has less than `need` (the caller then plans without the split). */
static inline int hg_sk_workspace(const hg__device *d, size_t need, uint32_t **counters, float **partials)
{
    *counters = NULL;
    *partials = NULL;
    if (need == 0 || d->workspace == NULL || d->workspace_bytes < need) return 0;
    *counters = (uint32_t *)d->workspace;
    *partials = (float *)((char *)d->workspace + hg__ws_counter_bytes(d));
    return 1;
}

/* How many clusters of `kern` run at once: one CTA per SM, fewer if the
 * device cannot co-schedule that many (SMs of a cluster share a GPC). The
 * answer depends on the device and the kernel only, so the caller keeps one
 * cache per kernel, HG_MAX_DEVICES entries, 0 meaning not asked yet (racing
 * threads store the same answer). */
#define HG_MAX_DEVICES 64
static inline int64_t hg_resident_clusters(const void *kern, int cluster_ctas, int threads, int smem,
                                           const hg__device *d, int cache[HG_MAX_DEVICES])
{
    const int64_t most = d->sm_count / cluster_ctas;
    const bool cacheable = d->ordinal >= 0 && d->ordinal < HG_MAX_DEVICES;
    if (cacheable && cache[d->ordinal] > 0) return cache[d->ordinal] < most ? cache[d->ordinal] : most;
    hg__err e;
    if (hg_set_smem(kern, smem, "cluster kernel", &e) != HG_STATUS_SUCCESS) return most;
    cudaLaunchAttribute attr[1];
    cudaLaunchConfig_t cfg = hg_cluster_launch_config(attr, most, cluster_ctas, threads, smem, NULL);
    int active = 0;
    if (cudaOccupancyMaxActiveClusters(&active, kern, &cfg) != cudaSuccess) {
        (void)cudaGetLastError();
        return most;
    }
    if (active > 0 && cacheable) cache[d->ordinal] = active;
    return active > 0 && active < most ? active : most;
}

/* ---- the one-CTA-per-tile kernels (V0 to V5) ------------------------------ */

/* They share one signature, (map_a, map_b, epi, k_tiles, m_blocks, n_blocks),
 * a 1-D grid of one CTA per bm x bn output tile, and so one launcher. */
typedef struct {
    const char *name;
    int bm, bn, bk;   /* tile and k block */
    int threads, smem; /* block size; dynamic shared memory, alignment slack included */
} hg_tile_grid;

static inline const char *hg_tile_grid_can_serve(const hg__problem *p, const hg__device *d, const hg_tile_grid *g)
{
    const char *why = hg__tma_tn_can_serve(p, d);
    if (why) return why;
    if (d->smem_optin < g->smem) return "needs more shared memory per block than this device allows.";
    if (hg_cdiv(p->m, g->bm) * hg_cdiv(p->n, g->bn) > (int64_t)0x7FFFFFFF)
        return "needs one block per tile, and m x n has more than 2^31 - 1 tiles.";
    return NULL;
}

/* kernel_f16 / kernel_bf16: the kernel's two instantiations. */
static inline hg_status hg_tile_grid_launch(const hg__problem *p, struct CUstream_st *s, hg__err *e,
                                            const hg_tile_grid *g, const void *kernel_f16, const void *kernel_bf16)
{
    CUtensorMap map_a, map_b;
    hg_status st = hg_tn_tensor_maps(p, (uint32_t)g->bm, (uint32_t)g->bn, &map_a, &map_b, e);
    if (st != HG_STATUS_SUCCESS) return st;
    int64_t m_blocks = hg_cdiv(p->m, g->bm), n_blocks = hg_cdiv(p->n, g->bn);
    int k_tiles = (int)hg_cdiv(p->k, g->bk);
    hg_epilogue epi = hg_epilogue_of(p);
    const void *fn = p->dtype == HG_BF16 ? kernel_bf16 : kernel_f16;
    st = hg_set_smem(fn, g->smem, g->name, e);
    if (st != HG_STATUS_SUCCESS) return st;
    void *args[6] = {&map_a, &map_b, &epi, &k_tiles, &m_blocks, &n_blocks};
    /* tiles < 2^31: hg_tile_grid_can_serve */
    cudaError_t err = cudaLaunchKernel(fn, dim3((unsigned)(m_blocks * n_blocks)), dim3((unsigned)g->threads), args,
                                       (size_t)g->smem, (cudaStream_t)s);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        hg__err_set(e, "%s: launch failed: %s", g->name, cudaGetErrorString(err));
        return HG_STATUS_EXECUTION_FAILED;
    }
    return hg_launch_status(g->name, e);
}
