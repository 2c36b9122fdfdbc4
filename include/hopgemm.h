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
 * Threading: a handle may be used by one host thread at a time. Handles are
 * independent of each other. A handle owns a device workspace (below), so
 * calls through one handle must not run at the same time on the GPU: keep
 * them on one stream (or order the streams), or use one handle per stream.
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

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HG_VERSION_MAJOR 0
#define HG_VERSION_MINOR 1
#define HG_VERSION_PATCH 0

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

/* Element type of A, B and C (accumulation is always fp32). */
typedef enum { HG_F16 = 0, HG_BF16 = 1 } hg_dtype;

/* Whether an operand is used as stored (N) or transposed (T); see above. */
typedef enum { HG_OP_N = 0, HG_OP_T = 1 } hg_op;

/* Kernels. AUTO picks, per call, the fastest registered kernel that can serve
 * the call. GENERIC serves every valid call. V0..V6 are the tutorial series;
 * each serves the TN layout (opA = N, opB = T) with 16-byte aligned A, B and C,
 * and lda, ldb, ldc multiples of 8 (what TMA needs). */
typedef enum {
    HG_KERNEL_AUTO = 0,
    HG_KERNEL_GENERIC = 1,
    HG_KERNEL_V0 = 10,
    HG_KERNEL_V1,
    HG_KERNEL_V2,
    HG_KERNEL_V3,
    HG_KERNEL_V4,
    HG_KERNEL_V5,
    HG_KERNEL_V6
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
 * and the reason is kept for hg_last_error(NULL).
 * On a Hopper the handle allocates a workspace of 320 KiB per SM (41 MiB on a
 * 132-SM H200) for V6's stream-K tail, and waits for the default stream once
 * to zero it. If that memory cannot be had, the handle still works: V6 then
 * runs its last round of tiles unsplit (slower on some shapes; the sums are
 * then added in another order, so the last bits may differ).
 */
hg_status hg_create(hg_handle *out);

/* hg_destroy: free a handle and its workspace. NULL is a no-op. Freeing the
 * workspace (cudaFree) waits for the device's outstanding work. */
void hg_destroy(hg_handle h);

/*
 * hg_set_stream: run later hg_gemm calls on this stream (a cudaStream_t; NULL is
 * the legacy default stream).
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
 * m, n or k of 0 is valid: m = 0 or n = 0 does nothing; k = 0 gives
 * C = beta * C. With beta = 0, C is never read (NaN in C cannot leak through);
 * with alpha = 0, A and B are never read (C = beta * C), as in BLAS. The work
 * runs on the handle's device, whichever device is current at the call.
 * A and B must not overlap C.
 *   HG_STATUS_SUCCESS          the work is queued on the stream.
 *   HG_STATUS_INVALID_VALUE    h is NULL; m, n or k < 0; opA, opB or dtype not a
 *                              value of its enum; a pointer is NULL while the
 *                              matrix it holds has elements; a leading dimension
 *                              smaller than its row length (or < 1). Nothing is
 *                              touched.
 *   HG_STATUS_NOT_SUPPORTED    the kernel chosen with hg_set_kernel cannot serve
 *                              this call (layout, alignment, leading dimension);
 *                              hg_last_error says why. AUTO never returns this.
 *   HG_STATUS_ARCH_MISMATCH    the handle's device is not sm_90.
 *   HG_STATUS_EXECUTION_FAILED the launch failed (the CUDA error is in the message).
 *   HG_STATUS_INTERNAL_ERROR   a tensor map could not be encoded for inputs that
 *                              passed validation (a bug).
 * Errors of kernels already running are reported by the stream, not here.
 */
hg_status hg_gemm(hg_handle h, hg_op opA, hg_op opB, int64_t m, int64_t n, int64_t k,
                  float alpha, const void *A, int64_t lda, const void *B, int64_t ldb,
                  float beta, void *C, int64_t ldc, hg_dtype dtype);

/* hg_status_string: a constant name for a status ("HG_STATUS_SUCCESS", ...);
 * "HG_STATUS_UNKNOWN" for a value outside the enum. Never NULL. */
const char *hg_status_string(hg_status s);

/* hg_last_error: what the last failing call on h found, in one sentence; "" when
 * the last call succeeded. hg_last_error(NULL) tells why the last hg_create of
 * this thread failed. Valid until the next call on h. Never NULL. */
const char *hg_last_error(hg_handle h);

/* ---- Introspection, used by the tool and the tests ---------------------- */

/* hg_kernel_count: the number of registered kernels (the tool's --list). */
int hg_kernel_count(void);

/* hg_kernel_info: the i-th registered kernel, 0 <= i < hg_kernel_count(), in
 * AUTO's order of preference (fastest first, generic last). Writes its id and
 * returns its name ("v6", "generic", ...), or NULL when i is out of range.
 * *summary, when summary is not NULL, gets a one-line description. */
const char *hg_kernel_info(int i, hg_kernel *id, const char **summary);

/* hg_kernel_name: the name of a kernel id ("auto", "generic", "v0", ...), or
 * NULL for a value outside the enum. */
const char *hg_kernel_name(hg_kernel k);

/*
 * hg_plan: which kernel hg_gemm would run for these arguments (with an alpha
 * other than 0), without running anything. Same arguments and statuses as
 * hg_gemm (validation included), and HG_STATUS_INVALID_VALUE for a NULL
 * chosen; on success *chosen holds the kernel (never AUTO).
 */
hg_status hg_plan(hg_handle h, hg_op opA, hg_op opB, int64_t m, int64_t n, int64_t k,
                  const void *A, int64_t lda, const void *B, int64_t ldb, const void *C,
                  int64_t ldc, hg_dtype dtype, hg_kernel *chosen);

#ifdef __cplusplus
}
#endif

#endif /* HOPGEMM_H */
