/*
 * hopgemm: dense matrix multiplication for NVIDIA Hopper GPUs (sm_90a).
 *
 * One call, cuBLAS-like, row-major throughout:
 *
 *     C[m,n] = alpha * op(A)[m,k] * op(B)[k,n] + beta * C[m,n]
 *
 *   opA = HG_OP_N: A is stored m x k, row-major, lda >= k.
 *   opA = HG_OP_T: A is stored k x m, row-major, lda >= m.
 *   opB = HG_OP_N: B is stored k x n, row-major, ldb >= n.
 *   opB = HG_OP_T: B is stored n x k, row-major, ldb >= k.
 *   C is stored m x n, row-major, ldc >= n.
 *
 * A, B and C share one element type (fp16 or bf16); the products are summed in
 * fp32, then alpha and beta are applied in fp32 and the result is rounded once
 * to the element type. A leading dimension is counted in elements.
 *
 * Layout names used by the tool and the docs (GEMM literature, cuBLAS kernel
 * names) are the flips of our row-major ops: opA=N,opB=T is "TN" (both operands
 * K-major, y = x W^T of a linear layer, the fastest path), opA=N,opB=N is "TT",
 * opA=T,opB=T is "NN", opA=T,opB=N is "NT".
 *
 * Threads and streams: a handle may be used by one host thread at a time, and
 * its calls may run on any number of streams, at the same time or inside CUDA
 * graph capture, with no ordering beyond what the caller gives them (each
 * stream, and each captured call, gets scratch memory of its own; see
 * hg_set_workspace for memory of the caller's). Handles are independent of
 * each other. A handle's work runs on its device from any thread, whatever
 * device or context is current there, and leaves the thread's current
 * context as it was.
 *
 * Errors: every call returns a status; the library never exits, aborts or
 * prints. hg_last_error() tells, in one sentence, what the last failing call
 * on a handle found. Invalid arguments are detected before any device memory
 * is touched.
 *
 * This header includes no CUDA header and compiles as C11 and as C++.
 */
#ifndef HOPGEMM_H
#define HOPGEMM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HG_VERSION_MAJOR 0
#define HG_VERSION_MINOR 17
#define HG_VERSION_PATCH 3
/* The version as one number, MAJOR * 10000 + MINOR * 100 + PATCH, as
 * hg_get_version returns it; a program built against this header can compare
 * the two (the library's major version is the 0 of libhopgemm.so.0). */
#define HG_VERSION (HG_VERSION_MAJOR * 10000 + HG_VERSION_MINOR * 100 + HG_VERSION_PATCH)

struct CUstream_st; /* cudaStream_t is a struct CUstream_st * */

/* An opaque handle: the bound device, its properties, the stream, the chosen
 * kernel and the last error message. */
typedef struct hg_handle_s *hg_handle;

/* Status codes. The values are pinned: they never change between versions. */
typedef enum {
    HG_STATUS_SUCCESS = 0,          /* the call did what it says */
    HG_STATUS_INVALID_VALUE = 1,    /* an argument is out of its domain */
    HG_STATUS_NOT_SUPPORTED = 2,    /* the chosen kernel cannot serve this call */
    HG_STATUS_NO_DEVICE = 3,        /* no CUDA device or no driver */
    HG_STATUS_ARCH_MISMATCH = 4,    /* the device is not a Hopper (sm_90) GPU */
    HG_STATUS_ALLOC_FAILED = 5,     /* host or device memory could not be had */
    HG_STATUS_EXECUTION_FAILED = 6, /* a launch or the CUDA runtime failed */
    HG_STATUS_INTERNAL_ERROR = 7    /* a bug in hopgemm: please report it */
} hg_status;

/* Element type of A, B and C (accumulation is fp32, unless hg_matmul's
 * compute asks for HG_COMPUTE_16F). */
typedef enum { HG_F16 = 0, HG_BF16 = 1 } hg_dtype;

/* hg_matmul's accumulation (its descriptor's `compute`):
 *   HG_COMPUTE_32F  fp32 accumulators (the default, and hg_gemm's)
 *   HG_COMPUTE_16F  fp16 accumulators allowed, for speed, at a cost in
 *                   precision that grows with k (cuBLAS's CUBLAS_COMPUTE_16F;
 *                   docs/family.md has the measured error). HG_F16 only.
 *                   A call that no fp16-accumulating kernel serves (another
 *                   layout, operands off TMA's alignment, ...) accumulates in fp32,
 *                   never less precisely; hg_matmul_plan names the kernel,
 *                   and the _f16acc ones are those that accumulate in fp16. */
typedef enum { HG_COMPUTE_32F = 0, HG_COMPUTE_16F = 1 } hg_compute;

/* hg_matmul's output type (its descriptor's `c_type`):
 *   HG_C_AS_INPUTS  C holds elements of the inputs' dtype (the default, zero,
 *                   and hg_gemm's)
 *   HG_C_F32        C holds fp32 elements (4 bytes: C 4-byte aligned, ldc and
 *                   stride_c in fp32 elements); the fp32 result is stored
 *                   without rounding to 16 bits, and beta reads the old C as
 *                   fp32. The bias stays in the inputs' dtype. */
typedef enum { HG_C_AS_INPUTS = 0, HG_C_F32 = 1 } hg_c_type;

/* Whether an operand is used as stored (N) or transposed (T); see above. */
typedef enum { HG_OP_N = 0, HG_OP_T = 1 } hg_op;

/* Kernels. AUTO picks, per call, the fastest registered kernel that can serve
 * the call. GENERIC serves every valid call. V0..V6 are the tutorial series;
 * each serves the TN layout (opA = N, opB = T) with 16-byte aligned A, B and C,
 * and lda, ldb, ldc multiples of 8 (what TMA needs); V6 also takes a C that
 * breaks that rule (any 2-byte aligned base and ldc), written per thread.
 * From 100 on, the configurations of hopgemm's own kernel family, named by
 * what they are: sm90_<tile m>x<tile n>x<k block>_s<stages>_c<cluster m>x<cluster n>
 * [_er: stages released early][_ct: C written per thread][_pp: ping-pong,
 * each consumer warp group a whole tile, one's stores of C under the other's
 * math][_f16acc: fp16 accumulators, only for hg_matmul with
 * HG_COMPUTE_16F]_<layout>. A _tn
 * configuration serves what V0..V5 serve; _tt, _nn and _nt serve that layout
 * (tt: opA = N, opB = N; nn: opA = T, opB = T; nt: opA = T, opB = N) with the
 * same alignment rules; _ct also serves a C that breaks them. A _swap
 * configuration computes C^T = B A^T, for a small m (decode): its tile is
 * <tile m> rows of n by <tile n> of m, and it writes C per thread (any ldc).
 * Some configurations serve less than their layout: the 256-row tiles apply
 * no bias or activation and write no fp32 C, and the 256 x 176 ones
 * (176 accumulators a thread) serve beta = 0 only. With such a kernel
 * chosen (hg_set_kernel), a call it cannot serve returns
 * HG_STATUS_NOT_SUPPORTED and hg_last_error says why; AUTO passes it by. A value's
 * meaning never changes; a configuration no longer built keeps its value and
 * name, and hg_set_kernel reports it as not built in. */
typedef enum {
    HG_KERNEL_AUTO = 0,
    HG_KERNEL_GENERIC = 1,
    HG_KERNEL_V0 = 10,
    HG_KERNEL_V1,
    HG_KERNEL_V2,
    HG_KERNEL_V3,
    HG_KERNEL_V4,
    HG_KERNEL_V5,
    HG_KERNEL_V6,
    HG_KERNEL_SM90_128X256X64_S4_C2X1_TN = 100,
    HG_KERNEL_SM90_256X128X64_S4_C1X2_TN = 101,
    HG_KERNEL_SM90_128X256X64_S4_C2X1_ER_TN = 102,
    HG_KERNEL_SM90_128X256X64_S3_C2X1_TN = 103,
    HG_KERNEL_SM90_128X256X64_S4_C1X1_TN = 104,
    HG_KERNEL_SM90_128X128X64_S6_C2X1_TN = 105,
    HG_KERNEL_SM90_128X256X64_S4_C2X1_TT = 106,
    HG_KERNEL_SM90_128X256X64_S4_C2X1_NN = 107,
    HG_KERNEL_SM90_128X256X64_S4_C2X1_NT = 108,
    HG_KERNEL_SM90_128X256X64_S4_C2X1_CT_TN = 109,
    HG_KERNEL_SM90_128X256X64_S4_C2X1_CT_TT = 110,
    HG_KERNEL_SM90_128X256X64_S4_C2X1_CT_NN = 111,
    HG_KERNEL_SM90_128X256X64_S4_C2X1_CT_NT = 112,
    HG_KERNEL_SM90_128X16X64_S12_C1X1_SWAP_TN = 113,
    HG_KERNEL_SM90_128X32X64_S10_C1X1_SWAP_TN = 114,
    HG_KERNEL_SM90_128X64X64_S8_C1X1_SWAP_TN = 115,
    HG_KERNEL_SM90_128X128X64_S6_C1X1_SWAP_TN = 116,
    HG_KERNEL_SM90_128X16X64_S6_C1X1_SWAP_TN = 117,
    HG_KERNEL_SM90_128X192X64_S4_C2X1_TN = 118,
    HG_KERNEL_SM90_128X128X64_S6_C2X1_TT = 119,
    HG_KERNEL_SM90_128X256X64_S4_C2X1_F16ACC_TN = 120,
    HG_KERNEL_SM90_256X256X64_S3_C2X1_F16ACC_TN = 121,
    HG_KERNEL_SM90_128X128X64_S6_C2X1_PP_TN = 122, /* since 0.4.0 */
    HG_KERNEL_SM90_64X64X64_S12_C1X1_SWAP_TN = 123,  /* since 0.5.0 */
    HG_KERNEL_SM90_64X128X64_S8_C1X1_SWAP_TN = 124,  /* since 0.5.0 */
    HG_KERNEL_SM90_64X16X64_S8_C1X1_SWAP_TN = 125,   /* since 0.5.0 */
    HG_KERNEL_SM90_256X176X64_S3_C1X2_TN = 126,      /* since 0.6.0 */
    HG_KERNEL_SM90_256X176X64_S3_C1X2_NN = 127,      /* since 0.6.0 */
    HG_KERNEL_SM90_128X8X64_S6_C1X1_SWAP_TN = 128,   /* since 0.7.0 */
    HG_KERNEL_SM90_64X8X64_S8_C1X1_SWAP_TN = 129,    /* since 0.7.0 */
    HG_KERNEL_SM90_128X256X64_S4_C1X2_TN = 130,      /* since 0.8.0 */
    HG_KERNEL_SM90_64X8X64_S16_C1X1_K2_SWAP_TN = 131,  /* since 0.9.0 */
    HG_KERNEL_SM90_64X32X64_S16_C1X1_K2_SWAP_TN = 132, /* since 0.9.0 */
    HG_KERNEL_SM90_64X64X64_S12_C1X1_K2_SWAP_TN = 133, /* since 0.10.0 */
    HG_KERNEL_SM90_64X96X64_S10_C2X1_TN = 135,         /* since 0.11.0 (134 is not used) */
    HG_KERNEL_SM90_64X8X64_S16_C1X1_K2_SWAP_TT = 136,  /* since 0.15.0 */
    HG_KERNEL_SM90_64X32X64_S16_C1X1_K2_SWAP_TT = 137, /* since 0.16.0 */
    HG_KERNEL_SM90_64X64X64_S12_C1X1_K2_SWAP_TT = 138, /* since 0.16.0 */
    HG_KERNEL_SM90_64X64X64_S12_C1X1_SWAP_TT = 139     /* since 0.17.0 */
} hg_kernel;

/*
 * hg_create: make a handle bound to the calling thread's current CUDA device,
 * using the default stream and HG_KERNEL_AUTO.
 *   HG_STATUS_SUCCESS        *out holds a new handle.
 *   HG_STATUS_INVALID_VALUE  out is NULL.
 *   HG_STATUS_NO_DEVICE      no CUDA device, or no driver (*out is NULL).
 *   HG_STATUS_ALLOC_FAILED   host memory for the handle could not be had.
 *   HG_STATUS_EXECUTION_FAILED  the CUDA runtime failed while reading the device.
 * A device older than Hopper still gets a handle: the generic kernel needs only
 * sm_80's mma.sync, but it is built for sm_90a alone, so every kernel then
 * returns HG_STATUS_ARCH_MISMATCH from hg_gemm. On failure *out is set to NULL
 * and the reason is kept for hg_last_error(NULL) until the thread's next
 * hg_create.
 * The handle holds the device's CUDA context (the one current on the thread
 * if it belongs to that device, else the device's primary context). It
 * allocates no device memory and waits for nothing: scratch memory (the
 * workspace, see hg_set_workspace) comes on first need.
 */
hg_status hg_create(hg_handle *out);

/* hg_destroy: free a handle and the workspace it allocated (never the
 * caller's). NULL is a no-op. When the handle allocated any, freeing it
 * (cudaFree) waits for the device's outstanding work. */
void hg_destroy(hg_handle h);

/*
 * hg_set_stream: run later hg_gemm calls on this stream (a cudaStream_t of the
 * handle's device; NULL is the legacy default stream). Switching streams is
 * free; the first call on a stream that needs workspace allocates it there.
 *   HG_STATUS_SUCCESS, HG_STATUS_INVALID_VALUE (h is NULL).
 */
hg_status hg_set_stream(hg_handle h, struct CUstream_st *stream);

/*
 * hg_set_kernel: choose the kernel for later hg_gemm calls (AUTO by default).
 *   HG_STATUS_SUCCESS
 *   HG_STATUS_INVALID_VALUE  h is NULL, or k is not a value of hg_kernel.
 *   HG_STATUS_NOT_SUPPORTED  k is a valid name but is not built into this
 *                            library (not registered); the choice is unchanged.
 */
hg_status hg_set_kernel(hg_handle h, hg_kernel k);

/*
 * hg_gemm: C = alpha * op(A) * op(B) + beta * C, asynchronously on the handle's
 * stream. A, B and C are device pointers (2-byte aligned suffices for GENERIC).
 * m, n or k of 0 is valid: m = 0 or n = 0 does nothing. k = 0 or alpha = 0
 * gives exactly C = beta * C (each element's fp32 product, rounded once),
 * whatever alpha is, Inf and NaN included, and A and B are never read, as in
 * BLAS; with beta = 1 as well, nothing is launched and C is untouched, bit for
 * bit. With beta = 0, C is never read (NaN in C cannot leak through). The work
 * runs on the handle's device, whichever device is current at the call.
 * C must share no element with A or B: overlap is judged on the elements each
 * operand uses (rows of its row length, leading dimension apart), so C may
 * interleave with A or B in one buffer.
 * An A or B that breaks TMA's rules (lda or ldb not a multiple of 8 elements,
 * base not 16-byte aligned) may first be copied, on the stream, into the
 * workspace with padded rows, for a TMA kernel to read: AUTO does so when its
 * model says the copy pays, and a kernel chosen with hg_set_kernel does so
 * rather than refuse. Where the copy finds no workspace (a caller's too small,
 * an allocation failing), the generic kernel runs on A and B as they are.
 *   HG_STATUS_SUCCESS          the work is queued on the stream.
 *   HG_STATUS_INVALID_VALUE    h is NULL (nothing is recorded); m, n or k < 0;
 *                              opA, opB or dtype not a value of its enum; a
 *                              pointer is NULL while the matrix it holds has
 *                              elements; a pointer not 2-byte aligned; a
 *                              leading dimension smaller than its row length (or
 *                              < 1); a matrix spanning more than 2^63 bytes; C
 *                              sharing an element with A or B (alpha != 0 and
 *                              k > 0). Nothing is touched.
 *   HG_STATUS_NOT_SUPPORTED    the kernel chosen with hg_set_kernel cannot serve
 *                              this call (layout; C's alignment or ldc; A or B
 *                              that break TMA's rules with a caller's workspace
 *                              too small for their copy); hg_last_error says
 *                              why. AUTO never returns this.
 *   HG_STATUS_ARCH_MISMATCH    the handle's device is not sm_90.
 *   HG_STATUS_EXECUTION_FAILED the launch failed (the CUDA error is in the message).
 *   HG_STATUS_INTERNAL_ERROR   a tensor map could not be encoded for inputs that
 *                              passed validation (a bug).
 * Errors of kernels already running are reported by the stream, not here.
 */
hg_status hg_gemm(hg_handle h, hg_op opA, hg_op opB, int64_t m, int64_t n, int64_t k,
                  float alpha, const void *A, int64_t lda, const void *B, int64_t ldb,
                  float beta, void *C, int64_t ldc, hg_dtype dtype);

/*
 * hg_matmul: hg_gemm with an epilogue fused into the same pass over C:
 *   C = act(alpha * op(A) * op(B) + beta * C + bias)
 * where bias (optional) holds n elements of dtype, bias[j] added to every
 * element of column j, and act is one of hg_activation. The call is described
 * by an hg_matmul_desc, cuBLASLt style: `size` is sizeof(hg_matmul_desc) as
 * the caller compiled it (the library reads no field past it, so a program
 * built against this header keeps working when later versions append
 * fields). Start from HG_MATMUL_DESC_INIT (size set, alpha 1, batch_count 1,
 * everything else zero: HG_OP_N, HG_F16, no bias, HG_ACT_NONE) and fill the
 * rest as for hg_gemm.
 * With bias = NULL and HG_ACT_NONE it is hg_gemm exactly. k = 0 or alpha = 0
 * gives C = act(beta * C + bias) (A and B not read); m = 0 or n = 0 does
 * nothing. Only the family's configurations and GENERIC fuse an epilogue: AUTO
 * picks among them, and a kernel chosen with hg_set_kernel that cannot
 * (the V0-V6 series) returns HG_STATUS_NOT_SUPPORTED.
 *   HG_ACT_NONE        no activation
 *   HG_ACT_RELU        max(v, 0) (NaN stays NaN)
 *   HG_ACT_GELU_TANH   0.5 v (1 + tanh(sqrt(2 / pi) (v + 0.044715 v^3))),
 *                      cuBLASLt's CUBLASLT_EPILOGUE_GELU; computed in fp32
 *                      with the GPU's tanh.approx, whose relative error (at
 *                      most 2^-10.987) puts at most 0.5 |v| 2^-10.987 on the
 *                      result before it is rounded to dtype: within fp16's
 *                      rounding of v itself (v = -inf gives NaN)
 * The bias and the activation are applied in fp32 to the fp32 product, and the
 * result is rounded to dtype once (GENERIC rounds the product to dtype before
 * its second pass).
 * Strided batches (cublasGemmStridedBatchedEx): batch_count products, product
 * i on A + i * stride_a, B + i * stride_b, C + i * stride_c and bias +
 * i * stride_bias (strides in elements, each >= 0; 0 shares one matrix or
 * bias among all products). batch_count 1 is one product (the strides are
 * not read), 0 does nothing. With batch_count > 1 the products' C must not
 * overlap one another (stride_c at least C's span, (m - 1) * ldc + n), and
 * the whole range of C's products must not share a byte with the range of
 * A's, B's or the bias's (a region test over the batch, not per element).
 * The family runs a batch as one launch when A, B and C each are 16-byte
 * aligned with strides that are multiples of 8 elements below 2^39: for A
 * and B any such stride, shorter than a matrix too (products that overlap,
 * a window sliding over rows or along k), or 0 (one matrix that every
 * product reads); for C at least one whole matrix (m x ldc). Its _swap
 * rows, which write C per thread, take any stride_c. Its 256 x 128 and _ct
 * rows run one product per call and refuse a batch when chosen with
 * hg_set_kernel (AUTO passes them by). Anything else runs GENERIC, one
 * product at a time. The series (V0-V6) returns HG_STATUS_NOT_SUPPORTED
 * for batch_count > 1. A descriptor whose size does not cover the batch's
 * fields (built against 0.1) is one product.
 * The accumulation: `compute` (hg_compute above); HG_COMPUTE_16F lets the
 * family's _f16acc configurations run the call: fp16 accumulators, converted
 * to fp32 for alpha, beta, the bias and the activation. A kernel chosen with
 * hg_set_kernel that accumulates in fp16 returns HG_STATUS_NOT_SUPPORTED for a
 * call that asks for HG_COMPUTE_32F (and hg_gemm's calls all do); one that
 * accumulates in fp32 serves both.
 * The output type: `c_type` (hg_c_type above); HG_C_F32 writes fp32 C
 * (cuBLASLt's Ctype = Dtype = CUDA_R_32F with 16-bit A and B). The family's
 * configurations with the staged epilogue write it (C 16-byte aligned, ldc
 * and stride_c multiples of 4 fp32 elements, for TMA); the _swap ones write
 * it per thread; GENERIC writes any other. The series, the _ct
 * configurations and those of 256-row tiles write C in the inputs' type only
 * and return HG_STATUS_NOT_SUPPORTED for it when chosen with hg_set_kernel
 * (AUTO passes them by); hg_matmul_plan names the kernel.
 * With HG_C_F32, "C's span" and the overlap rules below count fp32
 * elements, and no region of C may share a byte with A, B or the bias.
 * Statuses: those of hg_gemm, and HG_STATUS_INVALID_VALUE also for desc NULL,
 * a size smaller than the fields up to `activation`, an activation or a
 * compute or a c_type not of its enum, HG_COMPUTE_16F with HG_BF16, C not
 * 4-byte aligned with HG_C_F32, a bias not 2-byte aligned, a bias sharing an element with C, a
 * negative batch_count or stride, overlapping products of C, or C's range
 * meeting A's, B's or the bias's with batch_count > 1.
 */
typedef enum {
    HG_ACT_NONE = 0,
    HG_ACT_RELU = 1,
    HG_ACT_GELU_TANH = 2
} hg_activation;

typedef struct {
    size_t size; /* sizeof(hg_matmul_desc) as the caller compiled it */
    hg_op opA, opB;
    int64_t m, n, k;
    float alpha, beta;
    const void *A;
    int64_t lda;
    const void *B;
    int64_t ldb;
    void *C;
    int64_t ldc;
    hg_dtype dtype;
    const void *bias;         /* NULL, or n elements of dtype */
    hg_activation activation;
    /* Strided batches (since 0.2.0; a size short of them: one product) */
    int64_t batch_count;      /* products (1: one, 0: none) */
    int64_t stride_a, stride_b, stride_c, stride_bias; /* elements from one product's to the next's */
    /* The accumulation (since 0.3.0; a size short of it: HG_COMPUTE_32F) */
    hg_compute compute;
    /* C's element type (since 0.5.0; a size short of it: HG_C_AS_INPUTS) */
    hg_c_type c_type;
} hg_matmul_desc;

#define HG_MATMUL_DESC_INIT                                                                              \
    {sizeof(hg_matmul_desc), HG_OP_N, HG_OP_N, 0, 0, 0, 1.0f, 0.0f, NULL, 0, NULL, 0, NULL, 0, HG_F16, NULL, \
     HG_ACT_NONE, 1, 0, 0, 0, 0, HG_COMPUTE_32F, HG_C_AS_INPUTS}

hg_status hg_matmul(hg_handle h, const hg_matmul_desc *desc);

/*
 * hg_matmul_plan: which kernel hg_matmul would run for *desc, without running
 * anything, given the handle's workspace as it is now (hg_plan for a
 * descriptor: alpha, beta, the bias and the activation count, since not
 * every kernel fuses an epilogue). hg_matmul_workspace_size: the workspace
 * bytes its plan uses when it can have all it wants (hg_get_workspace_size
 * for a descriptor). Same validation and statuses as hg_matmul (messages
 * begin with the function's name), and HG_STATUS_INVALID_VALUE for a NULL
 * chosen or bytes; *chosen is never AUTO.
 */
hg_status hg_matmul_plan(hg_handle h, const hg_matmul_desc *desc, hg_kernel *chosen);
hg_status hg_matmul_workspace_size(hg_handle h, const hg_matmul_desc *desc, size_t *bytes);

/* hg_get_version: the version of the library loaded at run time, as
 * HG_VERSION encodes it (MAJOR * 10000 + MINOR * 100 + PATCH). Needs no
 * device; never fails. */
int hg_get_version(void);

/* hg_status_string: a constant name for a status ("HG_STATUS_SUCCESS", ...);
 * "HG_STATUS_UNKNOWN" for a value outside the enum. Never NULL. */
const char *hg_status_string(hg_status s);

/* hg_last_error: what the last failing call on h found, in one sentence; "" when
 * the last call succeeded. hg_last_error(NULL) tells why the last hg_create of
 * this thread failed ("" if it succeeded), until the thread's next hg_create;
 * calls given a NULL handle return HG_STATUS_INVALID_VALUE and record nothing.
 * Valid until the next call on h. Never NULL. */
const char *hg_last_error(hg_handle h);

/* ---- Introspection, used by the tool and the tests ---------------------- */

/* hg_kernel_count: the number of registered kernels (the tool's --list). */
int hg_kernel_count(void);

/* hg_kernel_info: the i-th registered kernel, 0 <= i < hg_kernel_count(), in
 * AUTO's order of preference (fastest first, generic last). Writes its id and
 * returns its name ("v6", "generic", ...), or NULL when i is out of range.
 * *summary, when summary is not NULL, gets a one-line description. */
const char *hg_kernel_info(int i, hg_kernel *id, const char **summary);

/* hg_kernel_name: the name of a kernel id ("auto", "generic", "v0",
 * "sm90_128x256x64_s4_c2x1_tn", ...), or NULL for a value outside the enum. */
const char *hg_kernel_name(hg_kernel k);

/*
 * hg_plan: which kernel hg_gemm would run for these arguments (with an alpha
 * other than 0 and beta = 0), without running anything, given the handle's
 * workspace as it is now. Same arguments and statuses as hg_gemm (validation
 * included; messages begin "hg_plan:"), and HG_STATUS_INVALID_VALUE for a NULL
 * chosen; on success *chosen holds the kernel (never AUTO), also when it
 * would run on a copy of A or B (see hg_gemm).
 */
hg_status hg_plan(hg_handle h, hg_op opA, hg_op opB, int64_t m, int64_t n, int64_t k,
                  const void *A, int64_t lda, const void *B, int64_t ldb, const void *C,
                  int64_t ldc, hg_dtype dtype, hg_kernel *chosen);

/* ---- Workspace ------------------------------------------------------------
 *
 * Some plans need device scratch memory (a stream-K tail keeps fp32 partial
 * sums there, and so does a long k cut into slices that a second launch adds
 * up). By default the library allocates it: per stream, on the first
 * call on that stream that needs it, in stream order (a memory pool of the
 * handle's; nothing waits), grown when a later call needs more, and freed by
 * hg_destroy; inside stream capture each call gets memory of the graph's own
 * (an allocation node before it, a free node after), so replays share nothing
 * with eager calls or with each other. At most hg_get_max_workspace_size bytes
 * per stream (about 58 MiB on a 132-SM H200). CUDA does not let a graph with
 * allocation nodes become a child graph node or be launched from the device:
 * for those uses, capture with a caller's workspace (below), which adds no
 * allocation node.
 *
 * A caller that manages its own memory (one workspace per stream, as PyTorch
 * does for cuBLAS) hands it over with hg_set_workspace. Every call through the
 * handle then uses it, on whatever stream: calls that share it must be
 * ordered (one stream, or streams the caller orders), as with cuBLAS. A call
 * whose plan needs more than it holds is planned without it: the same
 * correctness contract and error bounds, maybe slower, and the last bits of C
 * may differ from a call with enough workspace (partial sums are added in
 * another order). With enough workspace, the same call gives the same bits
 * every time, on any stream, eager or replayed.
 */

/*
 * hg_get_workspace_size: the workspace bytes that this call's plan uses when it
 * can have all it wants (0 when it needs none). Same arguments, validation and
 * statuses as hg_plan, and HG_STATUS_INVALID_VALUE for a NULL bytes.
 */
hg_status hg_get_workspace_size(hg_handle h, hg_op opA, hg_op opB, int64_t m, int64_t n, int64_t k,
                                const void *A, int64_t lda, const void *B, int64_t ldb,
                                const void *C, int64_t ldc, hg_dtype dtype, size_t *bytes);

/*
 * hg_get_max_workspace_size: the most workspace any call on this handle's
 * device can use for its own scratch: a caller's workspace of this size never
 * limits a plan, except for a copy of an A or B that breaks TMA's rules (an
 * lda or ldb not a multiple of 8, a base off 16 bytes), which such a call
 * makes in the workspace to run a fast kernel on it. hg_get_workspace_size
 * counts that copy; without room for it the call runs the generic kernel.
 *   HG_STATUS_SUCCESS, HG_STATUS_INVALID_VALUE (h or bytes is NULL).
 */
hg_status hg_get_max_workspace_size(hg_handle h, size_t *bytes);

/*
 * hg_set_workspace: use the caller's device memory, ptr (bytes long, on the
 * handle's device, 256-byte aligned as cudaMalloc gives), as the workspace of
 * every later call through h; ptr = NULL (with bytes = 0) hands the workspace
 * back to the library. The caller owns the memory: it must stay allocated, and
 * not be touched by anything else, while calls that use it may run. The first
 * call that uses it zeroes its first few KiB, on its stream; its contents are
 * the library's from then on (set it again after writing to it).
 *   HG_STATUS_SUCCESS
 *   HG_STATUS_INVALID_VALUE  h is NULL; ptr not 256-byte aligned; ptr NULL with
 *                            bytes other than 0. The workspace is unchanged.
 */
hg_status hg_set_workspace(hg_handle h, void *ptr, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif /* HOPGEMM_H */
