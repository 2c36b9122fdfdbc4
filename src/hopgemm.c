/* The public API: handles, validation, dispatch, status strings, errors. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "hg_internal.h"

struct hg_handle_s {
    hg__device dev;
    cudaStream_t stream;
    hg_kernel kernel;
    int owns_workspace; /* dev.workspace came from cudaMalloc (not a test's) */
    char err[256];
};

/* Why the last hg_create of this thread failed (hg_last_error(NULL)). */
static _Thread_local char create_err[256];

void hg__err_set(hg__err *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
}

static hg_status fail(hg_handle h, hg_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static hg_status fail(hg_handle h, hg_status s, const char *fmt, ...)
{
    char *dst = h ? h->err : create_err;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, 256, fmt, ap);
    va_end(ap);
    return s;
}

static hg_status ok(hg_handle h)
{
    h->err[0] = '\0';
    return HG_STATUS_SUCCESS;
}

const char *hg_status_string(hg_status s)
{
    switch (s) {
    case HG_STATUS_SUCCESS: return "HG_STATUS_SUCCESS";
    case HG_STATUS_INVALID_VALUE: return "HG_STATUS_INVALID_VALUE";
    case HG_STATUS_NOT_SUPPORTED: return "HG_STATUS_NOT_SUPPORTED";
    case HG_STATUS_NO_DEVICE: return "HG_STATUS_NO_DEVICE";
    case HG_STATUS_ARCH_MISMATCH: return "HG_STATUS_ARCH_MISMATCH";
    case HG_STATUS_ALLOC_FAILED: return "HG_STATUS_ALLOC_FAILED";
    case HG_STATUS_EXECUTION_FAILED: return "HG_STATUS_EXECUTION_FAILED";
    case HG_STATUS_INTERNAL_ERROR: return "HG_STATUS_INTERNAL_ERROR";
    }
    return "HG_STATUS_UNKNOWN";
}

const char *hg_last_error(hg_handle h) { return h ? h->err : create_err; }

static int attr(int *out, enum cudaDeviceAttr a, int dev)
{
    return cudaDeviceGetAttribute(out, a, dev) == cudaSuccess;
}

hg_status hg_create(hg_handle *out)
{
    create_err[0] = '\0';
    if (out == NULL) return fail(NULL, HG_STATUS_INVALID_VALUE, "hg_create: out is NULL.");
    *out = NULL;
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver || (err == cudaSuccess && count == 0)) {
        (void)cudaGetLastError();
        return fail(NULL, HG_STATUS_NO_DEVICE, "no CUDA device is available (%s).",
                    err == cudaSuccess ? "the driver reports 0 devices" : cudaGetErrorString(err));
    }
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        return fail(NULL, HG_STATUS_EXECUTION_FAILED, "cudaGetDeviceCount failed: %s.", cudaGetErrorString(err));
    }
    hg__device d;
    memset(&d, 0, sizeof d);
    err = cudaGetDevice(&d.ordinal);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        return fail(NULL, HG_STATUS_EXECUTION_FAILED, "cudaGetDevice failed: %s.", cudaGetErrorString(err));
    }
    if (!attr(&d.cc_major, cudaDevAttrComputeCapabilityMajor, d.ordinal) ||
        !attr(&d.cc_minor, cudaDevAttrComputeCapabilityMinor, d.ordinal) ||
        !attr(&d.sm_count, cudaDevAttrMultiProcessorCount, d.ordinal) ||
        !attr(&d.smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, d.ordinal) ||
        !attr(&d.l2_bytes, cudaDevAttrL2CacheSize, d.ordinal) ||
        !attr(&d.cluster_launch, cudaDevAttrClusterLaunch, d.ordinal)) {
        err = cudaGetLastError();
        return fail(NULL, HG_STATUS_EXECUTION_FAILED, "reading device %d's attributes failed: %s.", d.ordinal,
                    cudaGetErrorString(err));
    }
    hg_handle h = (hg_handle)calloc(1, sizeof *h);
    if (h == NULL) return fail(NULL, HG_STATUS_ALLOC_FAILED, "hg_create: out of host memory.");
    /* V6's stream-K workspace, on a Hopper only. Not having it is no error:
     * V6 then runs its last round as whole tiles. The counters must start at
     * zero before any launch on any stream can use them, hence the wait. */
    if (d.cc_major == 9 && d.cc_minor == 0) {
        size_t bytes = hg__v6_workspace_bytes(d.sm_count);
        void *ws = NULL;
        if (cudaMalloc(&ws, bytes) == cudaSuccess) {
            if (cudaMemsetAsync(ws, 0, bytes, cudaStreamLegacy) == cudaSuccess &&
                cudaStreamSynchronize(cudaStreamLegacy) == cudaSuccess) {
                d.workspace = ws;
                d.workspace_bytes = bytes;
            } else {
                cudaFree(ws);
            }
        }
        (void)cudaGetLastError();
    }
    h->dev = d;
    h->owns_workspace = d.workspace != NULL;
    h->stream = NULL;
    h->kernel = HG_KERNEL_AUTO;
    *out = h;
    return HG_STATUS_SUCCESS;
}

const hg__device *hg__handle_device(hg_handle h) { return h ? &h->dev : NULL; }

hg_status hg__create_for_device(hg_handle *out, const hg__device *d)
{
    hg_handle h = (hg_handle)calloc(1, sizeof *h);
    if (h == NULL) return HG_STATUS_ALLOC_FAILED;
    h->dev = *d;
    h->kernel = HG_KERNEL_AUTO;
    *out = h;
    return HG_STATUS_SUCCESS;
}

void hg_destroy(hg_handle h)
{
    if (h == NULL) return;
    if (h->owns_workspace) {
        int current = -1;
        if (cudaGetDevice(&current) == cudaSuccess && current != h->dev.ordinal) cudaSetDevice(h->dev.ordinal);
        cudaFree(h->dev.workspace);
        if (current >= 0 && current != h->dev.ordinal) cudaSetDevice(current);
        (void)cudaGetLastError();
    }
    free(h);
}

hg_status hg_set_stream(hg_handle h, struct CUstream_st *stream)
{
    if (h == NULL) return fail(NULL, HG_STATUS_INVALID_VALUE, "hg_set_stream: the handle is NULL.");
    h->stream = (cudaStream_t)stream;
    return ok(h);
}

const char *hg_kernel_name(hg_kernel k)
{
    switch (k) {
    case HG_KERNEL_AUTO: return "auto";
    case HG_KERNEL_GENERIC: return "generic";
    case HG_KERNEL_V0: return "v0";
    case HG_KERNEL_V1: return "v1";
    case HG_KERNEL_V2: return "v2";
    case HG_KERNEL_V3: return "v3";
    case HG_KERNEL_V4: return "v4";
    case HG_KERNEL_V5: return "v5";
    case HG_KERNEL_V6: return "v6";
    }
    return NULL;
}

int hg_kernel_count(void) { return hg__kernel_count; }

const char *hg_kernel_info(int i, hg_kernel *id, const char **summary)
{
    if (i < 0 || i >= hg__kernel_count) return NULL;
    if (id) *id = hg__kernels[i].id;
    if (summary) *summary = hg__kernels[i].summary;
    return hg__kernels[i].name;
}

const hg__kernel_entry *hg__find_kernel(hg_kernel id)
{
    for (int i = 0; i < hg__kernel_count; i++)
        if (hg__kernels[i].id == id) return &hg__kernels[i];
    return NULL;
}

hg_status hg_set_kernel(hg_handle h, hg_kernel k)
{
    if (h == NULL) return fail(NULL, HG_STATUS_INVALID_VALUE, "hg_set_kernel: the handle is NULL.");
    if (hg_kernel_name(k) == NULL) return fail(h, HG_STATUS_INVALID_VALUE, "hg_set_kernel: %d is not a hg_kernel.", (int)k);
    if (k != HG_KERNEL_AUTO && hg__find_kernel(k) == NULL)
        return fail(h, HG_STATUS_NOT_SUPPORTED, "hg_set_kernel: kernel %s is not built into this library.",
                    hg_kernel_name(k));
    h->kernel = k;
    return ok(h);
}

/* Validate and choose the kernel; *chosen is NULL when there is nothing to do
 * (m = 0 or n = 0). */
static hg_status plan(hg_handle h, hg__problem *p, const hg__kernel_entry **chosen)
{
    *chosen = NULL;
    const char *why = hg__validate(p);
    if (why) return fail(h, HG_STATUS_INVALID_VALUE, "hg_gemm: %s", why);
    /* As in BLAS, alpha = 0 means A and B are not read: C = beta * C, which is
     * the k = 0 problem (NaN or Inf in A or B cannot leak into C). */
    if (p->alpha == 0.0f) p->k = 0;
    if (h->dev.cc_major != 9 || h->dev.cc_minor != 0)
        return fail(h, HG_STATUS_ARCH_MISMATCH,
                    "hg_gemm: device %d is sm_%d%d; hopgemm's kernels are built for sm_90a (Hopper) only.",
                    h->dev.ordinal, h->dev.cc_major, h->dev.cc_minor);
    if (p->m == 0 || p->n == 0) return ok(h);
    if (h->kernel == HG_KERNEL_AUTO) {
        double best = -1.0;
        for (int i = 0; i < hg__kernel_count; i++) {
            if (hg__kernels[i].can_serve(p, &h->dev) != NULL) continue;
            double est = hg__estimate(&hg__kernels[i], p, &h->dev);
            if (est > best) {
                best = est;
                *chosen = &hg__kernels[i];
            }
        }
        if (*chosen) return ok(h);
        return fail(h, HG_STATUS_INTERNAL_ERROR, "hg_gemm: no registered kernel serves this call (a bug).");
    }
    const hg__kernel_entry *k = hg__find_kernel(h->kernel);
    if (k == NULL) return fail(h, HG_STATUS_INTERNAL_ERROR, "hg_gemm: the chosen kernel is not registered.");
    /* k = 0 is C = beta * C whatever kernel was chosen: no product to compute. */
    if (p->k == 0) k = hg__find_kernel(HG_KERNEL_GENERIC);
    why = k->can_serve(p, &h->dev);
    if (why) return fail(h, HG_STATUS_NOT_SUPPORTED, "hg_gemm: kernel %s %s", k->name, why);
    *chosen = k;
    return ok(h);
}

static hg__problem problem(hg_op opA, hg_op opB, int64_t m, int64_t n, int64_t k, float alpha, const void *A,
                           int64_t lda, const void *B, int64_t ldb, float beta, void *C, int64_t ldc,
                           hg_dtype dtype)
{
    hg__problem p;
    p.opA = opA;
    p.opB = opB;
    p.m = m;
    p.n = n;
    p.k = k;
    p.alpha = alpha;
    p.beta = beta;
    p.A = A;
    p.lda = lda;
    p.B = B;
    p.ldb = ldb;
    p.C = C;
    p.ldc = ldc;
    p.dtype = dtype;
    return p;
}

hg_status hg_plan(hg_handle h, hg_op opA, hg_op opB, int64_t m, int64_t n, int64_t k, const void *A, int64_t lda,
                  const void *B, int64_t ldb, const void *C, int64_t ldc, hg_dtype dtype, hg_kernel *chosen)
{
    if (h == NULL) return fail(NULL, HG_STATUS_INVALID_VALUE, "hg_plan: the handle is NULL.");
    if (chosen == NULL) return fail(h, HG_STATUS_INVALID_VALUE, "hg_plan: chosen is NULL.");
    hg__problem p = problem(opA, opB, m, n, k, 1.0f, A, lda, B, ldb, 0.0f, (void *)C, ldc, dtype);
    const hg__kernel_entry *e;
    hg_status s = plan(h, &p, &e);
    if (s != HG_STATUS_SUCCESS) return s;
    if (e == NULL) e = hg__find_kernel(h->kernel == HG_KERNEL_AUTO ? HG_KERNEL_GENERIC : h->kernel);
    *chosen = e ? e->id : HG_KERNEL_GENERIC;
    return HG_STATUS_SUCCESS;
}

hg_status hg_gemm(hg_handle h, hg_op opA, hg_op opB, int64_t m, int64_t n, int64_t k, float alpha, const void *A,
                  int64_t lda, const void *B, int64_t ldb, float beta, void *C, int64_t ldc, hg_dtype dtype)
{
    if (h == NULL) return fail(NULL, HG_STATUS_INVALID_VALUE, "hg_gemm: the handle is NULL.");
    hg__problem p = problem(opA, opB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, dtype);
    const hg__kernel_entry *e;
    hg_status s = plan(h, &p, &e);
    if (s != HG_STATUS_SUCCESS || e == NULL) return s;
    /* The handle's device, even if the caller has made another one current
     * since hg_create; the caller's choice is restored afterwards. */
    int current = -1;
    if (cudaGetDevice(&current) != cudaSuccess) {
        cudaError_t ce = cudaGetLastError();
        return fail(h, HG_STATUS_EXECUTION_FAILED, "hg_gemm: cudaGetDevice failed: %s", cudaGetErrorString(ce));
    }
    if (current != h->dev.ordinal && cudaSetDevice(h->dev.ordinal) != cudaSuccess) {
        cudaError_t ce = cudaGetLastError();
        return fail(h, HG_STATUS_EXECUTION_FAILED, "hg_gemm: cannot make device %d current: %s", h->dev.ordinal,
                    cudaGetErrorString(ce));
    }
    hg__err err;
    err.msg[0] = '\0';
    s = e->launch(&p, &h->dev, (struct CUstream_st *)h->stream, &err);
    if (current != h->dev.ordinal) (void)cudaSetDevice(current);
    if (s != HG_STATUS_SUCCESS) return fail(h, s, "hg_gemm: %s", err.msg);
    return ok(h);
}
