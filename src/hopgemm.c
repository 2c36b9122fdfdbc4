/* The public API: handles, validation, dispatch, status strings, errors. */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "hg_internal.h"

/* What AUTO's choice depends on, beyond the handle's device: the call's
 * shape, layout, type and accumulation, whether C is read, the low bits of the pointers
 * (TMA's and the copies' alignment rules) and the workspace a call may get.
 * Servers repeat a few shapes: the last key's choice is kept, so a repeat
 * skips the model (hg__estimate over every kernel). */
typedef struct {
    int64_t m, n, k, lda, ldb, ldc;
    int64_t batch, stride_a, stride_b, stride_c;
    int ops, dtype, beta_nonzero, epilogue, compute, c_type;
    unsigned low_a, low_b, low_c;
    size_t ws_limit;
} plan_key;
#define PLAN_KEY_LOW_BITS 0xFFu /* alignment up to 256 bytes */

struct hg_handle_s {
    hg__device dev; /* workspace fields unused: see ws */
    hg__ctx ctx;    /* where the work runs (none for a test's made-up device) */
    int real;       /* a device of this machine, not a test's */
    cudaStream_t stream;
    hg_kernel kernel;
    hg__ws ws;
    /* AUTO's last choice: valid when `last_kernel` is set */
    plan_key last_key;
    const hg__kernel_entry *last_kernel;
    int last_repacked, last_sliced;
    int slices_mode; /* hg__set_slices: HG__SLICES_BY_MODEL (0), _NEVER, _ALWAYS */
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

/* Records the sentence on h, or for hg_create (h NULL) in create_err. A call
 * given a NULL handle records nothing: hg_last_error(NULL) keeps hg_create's
 * reason. */
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

int hg_get_version(void) { return HG_VERSION; }

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
    /* Nothing is allocated on the device and nothing waits: the workspace
     * comes per stream on first need (src/workspace.c). */
    hg__err e;
    hg_status s = hg__ctx_bind(&h->ctx, d.ordinal, &e);
    if (s != HG_STATUS_SUCCESS) {
        free(h);
        return fail(NULL, s, "hg_create: %s", e.msg);
    }
    h->dev = d;
    h->real = 1;
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
    h->dev.workspace = NULL;
    h->dev.workspace_bytes = 0;
    h->kernel = HG_KERNEL_AUTO;
    *out = h;
    return HG_STATUS_SUCCESS;
}

void hg_destroy(hg_handle h)
{
    if (h == NULL) return;
    if (h->real) {
        void *saved;
        hg__err e;
        if (hg__ctx_enter(&h->ctx, &saved, &e) == HG_STATUS_SUCCESS) {
            hg__ws_free(&h->ws);
            hg__ctx_leave(&h->ctx, saved);
        }
        hg__ctx_unbind(&h->ctx);
    }
    free(h->ws.slots);
    free(h);
}

hg_status hg_set_stream(hg_handle h, struct CUstream_st *stream)
{
    if (h == NULL) return HG_STATUS_INVALID_VALUE;
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
#define HG_FAMILY_CONFIG(name, id, bm, bn, stages, cm, cn, ck, early, c_thread, swap, pp, acc, layout, speed) \
    case id: return #name;
#include "family/configs.def"
#undef HG_FAMILY_CONFIG
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
    if (h == NULL) return HG_STATUS_INVALID_VALUE;
    if (hg_kernel_name(k) == NULL) return fail(h, HG_STATUS_INVALID_VALUE, "hg_set_kernel: %d is not a hg_kernel.", (int)k);
    if (k != HG_KERNEL_AUTO && hg__find_kernel(k) == NULL)
        return fail(h, HG_STATUS_NOT_SUPPORTED, "hg_set_kernel: kernel %s is not built into this library.",
                    hg_kernel_name(k));
    h->kernel = k;
    return ok(h);
}

/* The device as a plan sees it: no memory yet, and as much workspace as
 * the call may get (ws_limit). */
static hg__device planning_device(hg_handle h, size_t ws_limit)
{
    hg__device d = h->dev;
    d.workspace = NULL;
    d.workspace_bytes = ws_limit;
    return d;
}

/* What a call runs: a kernel on the call as given, or (repacked) on copies
 * of A or B that meet TMA's rules (src/repack.c), or (sliced) on
 * slices of k summed by a second launch (src/slices.c). kernel NULL:
 * nothing to do (m = 0 or n = 0, or C = 1 * C). */
typedef struct {
    const hg__kernel_entry *kernel;
    int repacked;
    hg__repack r;
    int sliced;
    hg__slices sl;
} call_plan;

/* The problem cp's kernel runs for the call p: the copies', the slices'
 * batch, or p itself. */
static const hg__problem *plan_problem(const call_plan *cp, const hg__problem *p)
{
    return cp->repacked ? &cp->r.inner : cp->sliced ? &cp->sl.inner : p;
}

/* The call's workspace: the kernel's kernel_bytes, then any copies or
 * partials after them. */
static size_t plan_workspace(const call_plan *cp, const hg__device *d, size_t kernel_bytes)
{
    return cp->repacked ? hg__repack_workspace(&cp->r, d, kernel_bytes)
           : cp->sliced ? hg__slices_workspace(&cp->sl, d, kernel_bytes)
                        : kernel_bytes;
}

/* Why kernel k cannot take p whatever its can_serve says (what p asks of it
 * beyond a product: an epilogue, a batch), or NULL. */
static const char *lacks(const hg__kernel_entry *k, const hg__problem *p)
{
    if (hg__has_epilogue(p) && !k->fuses_epilogue) return "does not apply a bias or an activation.";
    if (p->batch > 1 && !k->batched) return "does not run a batch (batch_count > 1).";
    if (k->acc16 && p->compute != HG_COMPUTE_16F)
        return "accumulates in fp16, and the call asks for fp32 (HG_COMPUTE_32F; hg_gemm always does).";
    if (p->c_type == HG_C_F32 && !k->writes_f32) return HG_WHY_NOT_F32;
    return NULL;
}

/* Validate and choose. `who` names the public function. */
static hg_status plan(hg_handle h, const char *who, hg__problem *p, size_t ws_limit, call_plan *cp)
{
    memset(cp, 0, sizeof *cp);
    const char *why = hg__validate(p);
    if (why) return fail(h, HG_STATUS_INVALID_VALUE, "%s: %s", who, why);
    /* As in BLAS, alpha = 0 means A and B are not read, and k = 0 means there
     * is no product: both are C = beta * C exactly, whatever alpha is (an
     * Inf or NaN alpha, or in A or B, cannot leak into C). */
    if (p->alpha == 0.0f || p->k == 0) {
        p->alpha = 0.0f;
        p->k = 0;
    }
    if (h->dev.cc_major != 9 || h->dev.cc_minor != 0)
        return fail(h, HG_STATUS_ARCH_MISMATCH,
                    "%s: device %d is sm_%d%d; hopgemm's kernels are built for sm_90a (Hopper) only.", who,
                    h->dev.ordinal, h->dev.cc_major, h->dev.cc_minor);
    if (p->m == 0 || p->n == 0 || p->batch == 0) return ok(h);
    if (p->k == 0 && p->beta == 1.0f && !hg__has_epilogue(p)) return ok(h); /* C untouched, bit for bit */
    const hg__device d = planning_device(h, ws_limit);
    (void)hg__repack_plan(p, &cp->r);
    if (h->kernel == HG_KERNEL_AUTO) {
        plan_key key;
        memset(&key, 0, sizeof key); /* padding too: the keys are compared as bytes */
        key.m = p->m, key.n = p->n, key.k = p->k, key.lda = p->lda, key.ldb = p->ldb, key.ldc = p->ldc;
        key.ops = (int)p->opA * 2 + (int)p->opB, key.dtype = (int)p->dtype, key.beta_nonzero = p->beta != 0.0f;
        key.epilogue = hg__has_epilogue(p), key.compute = (int)p->compute;
        key.c_type = (int)p->c_type;
        key.batch = p->batch, key.stride_a = p->stride_a, key.stride_b = p->stride_b, key.stride_c = p->stride_c;
        key.low_a = (unsigned)((uintptr_t)p->A & PLAN_KEY_LOW_BITS);
        key.low_b = (unsigned)((uintptr_t)p->B & PLAN_KEY_LOW_BITS);
        key.low_c = (unsigned)((uintptr_t)p->C & PLAN_KEY_LOW_BITS);
        key.ws_limit = ws_limit;
        if (h->last_kernel && memcmp(&key, &h->last_key, sizeof key) == 0) {
            cp->kernel = h->last_kernel;
            cp->repacked = h->last_repacked;
            /* (the slices hold the call's pointers: made again) */
            cp->sliced = h->last_sliced && hg__slices_plan(cp->kernel, p, &d, &cp->sl);
            return ok(h);
        }
        double best = -1.0;
        for (int i = 0; i < hg__kernel_count; i++) {
            const hg__kernel_entry *k = &hg__kernels[i];
            if (lacks(k, p)) continue;
            int repacked;
            const double est = hg__route_estimate(k, p, &cp->r, &d, &repacked, &why);
            if (est > best) {
                best = est;
                cp->kernel = k;
                cp->repacked = repacked;
                cp->sliced = 0;
            }
            /* The same kernel over slices of k (never on copies). */
            hg__slices sl;
            if (est >= 0.0 && !repacked && h->slices_mode != HG__SLICES_NEVER && hg__slices_plan(k, p, &d, &sl)) {
                double est_sliced = hg__slices_estimate(k, p, &sl, &d);
                if (h->slices_mode == HG__SLICES_ALWAYS) est_sliced = est + 1.0;
                if (est_sliced > best) {
                    best = est_sliced;
                    cp->kernel = k;
                    cp->repacked = 0;
                    cp->sliced = 1;
                    cp->sl = sl;
                }
            }
        }
        if (cp->kernel) {
            h->last_key = key;
            h->last_kernel = cp->kernel;
            h->last_repacked = cp->repacked;
            h->last_sliced = cp->sliced;
            return ok(h);
        }
        return fail(h, HG_STATUS_INTERNAL_ERROR, "%s: no registered kernel serves this call (a bug).", who);
    }
    const hg__kernel_entry *k = hg__find_kernel(h->kernel);
    if (k == NULL) return fail(h, HG_STATUS_INTERNAL_ERROR, "%s: the chosen kernel is not registered.", who);
    if ((why = lacks(k, p)) != NULL) return fail(h, HG_STATUS_NOT_SUPPORTED, "%s: kernel %s %s", who, k->name, why);
    /* k = 0 is C = beta * C whatever kernel was chosen: no product to compute. */
    if (p->k == 0) k = hg__find_kernel(HG_KERNEL_GENERIC);
    why = k->can_serve(p, &d);
    if (why && hg__repack_serves(k, &cp->r, &d)) {
        cp->kernel = k;
        cp->repacked = 1;
        return ok(h);
    }
    if (why) return fail(h, HG_STATUS_NOT_SUPPORTED, "%s: kernel %s %s", who, k->name, why);
    cp->kernel = k;
    /* The run-time decomposition is the call's, as the kernel's stream-K is:
     * slices of k where the model prefers them. */
    if (p->k > 0 && h->slices_mode != HG__SLICES_NEVER && hg__slices_plan(k, p, &d, &cp->sl) &&
        (h->slices_mode == HG__SLICES_ALWAYS || hg__slices_estimate(k, p, &cp->sl, &d) > hg__estimate(k, p, &d)))
        cp->sliced = 1;
    return ok(h);
}

hg__problem hg__problem_make(hg_op opA, hg_op opB, int64_t m, int64_t n, int64_t k, float alpha, const void *A,
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
    p.bias = NULL;
    p.act = HG_ACT_NONE;
    p.batch = 1;
    p.stride_a = p.stride_b = p.stride_c = p.stride_bias = 0;
    p.compute = HG_COMPUTE_32F;
    p.c_type = HG_C_AS_INPUTS;
    p.sliced_k = 0;
    return p;
}

hg__problem hg__problem_at(const hg__problem *p, int64_t i)
{
    hg__problem q = *p;
    /* (pointer arithmetic only on what the product reads: a NULL operand
     * stays NULL) */
    if (q.A) q.A = (const uint16_t *)q.A + i * p->stride_a;
    if (q.B) q.B = (const uint16_t *)q.B + i * p->stride_b;
    if (q.C) q.C = (char *)q.C + i * p->stride_c * hg__c_bytes(p);
    if (q.bias) q.bias = (const uint16_t *)q.bias + i * p->stride_bias;
    q.batch = 1;
    return q;
}

/* hg_plan's answer for a problem (hg_matmul_plan's too). */
static hg_status plan_kernel(hg_handle h, const char *who, hg__problem *p, hg_kernel *chosen)
{
    if (chosen == NULL) return fail(h, HG_STATUS_INVALID_VALUE, "%s: chosen is NULL.", who);
    call_plan cp;
    hg_status s = plan(h, who, p, hg__ws_limit(&h->ws), &cp);
    if (s != HG_STATUS_SUCCESS) return s;
    const hg__kernel_entry *e = cp.kernel;
    if (e == NULL) e = hg__find_kernel(h->kernel == HG_KERNEL_AUTO ? HG_KERNEL_GENERIC : h->kernel);
    *chosen = e ? e->id : HG_KERNEL_GENERIC;
    return HG_STATUS_SUCCESS;
}

hg_status hg_plan(hg_handle h, hg_op opA, hg_op opB, int64_t m, int64_t n, int64_t k, const void *A, int64_t lda,
                  const void *B, int64_t ldb, const void *C, int64_t ldc, hg_dtype dtype, hg_kernel *chosen)
{
    if (h == NULL) return HG_STATUS_INVALID_VALUE;
    hg__problem p = hg__problem_make(opA, opB, m, n, k, 1.0f, A, lda, B, ldb, 0.0f, (void *)C, ldc, dtype);
    return plan_kernel(h, "hg_plan", &p, chosen);
}

/* hg_get_workspace_size's answer for a problem (hg_matmul_workspace_size's too). */
static hg_status workspace_of(hg_handle h, const char *who, hg__problem *p, size_t *bytes)
{
    if (bytes == NULL) return fail(h, HG_STATUS_INVALID_VALUE, "%s: bytes is NULL.", who);
    *bytes = 0;
    call_plan cp;
    /* The plan with as much workspace as it wants, whatever the handle
     * holds now: what the call's best plan uses. */
    hg_status s = plan(h, who, p, SIZE_MAX, &cp);
    const hg__kernel_entry *e = cp.kernel;
    if (s != HG_STATUS_SUCCESS || e == NULL) return s;
    const hg__device d = planning_device(h, SIZE_MAX);
    size_t kernel_bytes = 0;
    if (e->workspace && h->real) {
        void *saved;
        hg__err err;
        s = hg__ctx_enter(&h->ctx, &saved, &err);
        if (s != HG_STATUS_SUCCESS) return fail(h, s, "%s: %s", who, err.msg);
        kernel_bytes = e->workspace(plan_problem(&cp, p), &d);
        hg__ctx_leave(&h->ctx, saved);
    }
    *bytes = plan_workspace(&cp, &d, kernel_bytes);
    return HG_STATUS_SUCCESS;
}

hg_status hg_get_workspace_size(hg_handle h, hg_op opA, hg_op opB, int64_t m, int64_t n, int64_t k,
                                const void *A, int64_t lda, const void *B, int64_t ldb, const void *C,
                                int64_t ldc, hg_dtype dtype, size_t *bytes)
{
    if (h == NULL) return HG_STATUS_INVALID_VALUE;
    hg__problem p = hg__problem_make(opA, opB, m, n, k, 1.0f, A, lda, B, ldb, 0.0f, (void *)C, ldc, dtype);
    return workspace_of(h, "hg_get_workspace_size", &p, bytes);
}

hg_status hg_get_max_workspace_size(hg_handle h, size_t *bytes)
{
    if (h == NULL) return HG_STATUS_INVALID_VALUE;
    if (bytes == NULL) return fail(h, HG_STATUS_INVALID_VALUE, "hg_get_max_workspace_size: bytes is NULL.");
    *bytes = hg__ws_max_bytes(&h->dev);
    return ok(h);
}

hg_status hg_set_workspace(hg_handle h, void *ptr, size_t bytes)
{
    if (h == NULL) return HG_STATUS_INVALID_VALUE;
    if (ptr != NULL && ((uintptr_t)ptr % HG_WS_ALIGN) != 0)
        return fail(h, HG_STATUS_INVALID_VALUE, "hg_set_workspace: ptr is not %d-byte aligned.", HG_WS_ALIGN);
    if (ptr == NULL && bytes != 0)
        return fail(h, HG_STATUS_INVALID_VALUE, "hg_set_workspace: ptr is NULL but bytes is %zu.", bytes);
    hg__ws_set_user(&h->ws, ptr, bytes);
    return ok(h);
}

static hg_status run(hg_handle h, const char *who, hg__problem p);

hg_status hg_gemm(hg_handle h, hg_op opA, hg_op opB, int64_t m, int64_t n, int64_t k, float alpha, const void *A,
                  int64_t lda, const void *B, int64_t ldb, float beta, void *C, int64_t ldc, hg_dtype dtype)
{
    if (h == NULL) return HG_STATUS_INVALID_VALUE;
    return run(h, "hg_gemm", hg__problem_make(opA, opB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, dtype));
}

/* The descriptor's first fields (up to activation) are required; the
 * batch's, appended in 0.2.0, compute, in 0.3.0, and c_type, in 0.5.0, are read when size
 * covers them. */
#define DESC_V1_BYTES (offsetof(hg_matmul_desc, activation) + sizeof(hg_activation))
#define DESC_HAS(d, field) ((d)->size >= offsetof(hg_matmul_desc, field) + sizeof((d)->field))

/* A descriptor as an hg__problem; fails with who's sentence for a NULL desc
 * or a size short of the required fields. */
static hg_status desc_problem(hg_handle h, const char *who, const hg_matmul_desc *d, hg__problem *p)
{
    if (d == NULL) return fail(h, HG_STATUS_INVALID_VALUE, "%s: desc is NULL.", who);
    if (d->size < DESC_V1_BYTES)
        return fail(h, HG_STATUS_INVALID_VALUE,
                    "%s: desc->size is %zu; hg_matmul_desc's fields up to activation take %zu bytes (set it to "
                    "sizeof(hg_matmul_desc)).",
                    who, d->size, (size_t)DESC_V1_BYTES);
    *p = hg__problem_make(d->opA, d->opB, d->m, d->n, d->k, d->alpha, d->A, d->lda, d->B, d->ldb, d->beta, d->C,
                          d->ldc, d->dtype);
    p->bias = d->bias;
    p->act = d->activation;
    if (DESC_HAS(d, stride_bias)) {
        p->batch = d->batch_count;
        p->stride_a = d->stride_a;
        p->stride_b = d->stride_b;
        p->stride_c = d->stride_c;
        p->stride_bias = d->stride_bias;
    }
    if (DESC_HAS(d, compute)) p->compute = d->compute;
    if (DESC_HAS(d, c_type)) p->c_type = d->c_type;
    return HG_STATUS_SUCCESS;
}

hg_status hg_matmul(hg_handle h, const hg_matmul_desc *desc)
{
    if (h == NULL) return HG_STATUS_INVALID_VALUE;
    hg__problem p;
    const hg_status s = desc_problem(h, "hg_matmul", desc, &p);
    return s != HG_STATUS_SUCCESS ? s : run(h, "hg_matmul", p);
}

hg_status hg_matmul_plan(hg_handle h, const hg_matmul_desc *desc, hg_kernel *chosen)
{
    if (h == NULL) return HG_STATUS_INVALID_VALUE;
    hg__problem p;
    const hg_status s = desc_problem(h, "hg_matmul_plan", desc, &p);
    return s != HG_STATUS_SUCCESS ? s : plan_kernel(h, "hg_matmul_plan", &p, chosen);
}

void hg__set_slices(hg_handle h, int mode)
{
    if (h == NULL) return;
    h->slices_mode = mode;
    h->last_kernel = NULL; /* AUTO's kept choice may have been sliced */
}

void hg__set_stream_k(hg_handle h, int on)
{
    if (h == NULL) return;
    h->dev.no_stream_k = !on;
    h->last_kernel = NULL; /* AUTO's kept choice was planned with the other rule */
}

void hg__set_walk(hg_handle h, int mode)
{
    if (h == NULL) return;
    h->dev.walk = mode;
}

hg_status hg__matmul_plan_slices(hg_handle h, const hg_matmul_desc *desc, int64_t *slices)
{
    if (h == NULL || slices == NULL) return HG_STATUS_INVALID_VALUE;
    *slices = 0;
    hg__problem p;
    hg_status s = desc_problem(h, "hg__matmul_plan_slices", desc, &p);
    if (s != HG_STATUS_SUCCESS) return s;
    call_plan cp;
    s = plan(h, "hg__matmul_plan_slices", &p, hg__ws_limit(&h->ws), &cp);
    if (s == HG_STATUS_SUCCESS && cp.sliced) *slices = cp.sl.slices;
    return s;
}

hg_status hg_matmul_workspace_size(hg_handle h, const hg_matmul_desc *desc, size_t *bytes)
{
    if (h == NULL) return HG_STATUS_INVALID_VALUE;
    hg__problem p;
    const hg_status s = desc_problem(h, "hg_matmul_workspace_size", desc, &p);
    return s != HG_STATUS_SUCCESS ? s : workspace_of(h, "hg_matmul_workspace_size", &p, bytes);
}

/* Plan, then queue: the copies of A or B if the plan wants them, the kernel. */
static hg_status run(hg_handle h, const char *who, hg__problem p)
{
    call_plan cp;
    hg_status s = plan(h, who, &p, hg__ws_limit(&h->ws), &cp);
    const hg__kernel_entry *e = cp.kernel;
    if (s != HG_STATUS_SUCCESS || e == NULL) return s;
    /* The handle's context, whichever is current on the calling thread; the
     * caller's is put back afterwards. */
    void *saved;
    hg__err err;
    err.msg[0] = '\0';
    s = hg__ctx_enter(&h->ctx, &saved, &err);
    if (s != HG_STATUS_SUCCESS) return fail(h, s, "%s: %s", who, err.msg);
    hg__device d = planning_device(h, hg__ws_limit(&h->ws));
    struct CUstream_st *stream = (struct CUstream_st *)h->stream;
    const hg__problem *run = plan_problem(&cp, &p);
    const size_t kernel_bytes = e->workspace ? e->workspace(run, &d) : 0;
    const size_t need = plan_workspace(&cp, &d, kernel_bytes);
    void *graph_owned = NULL;
    d.workspace_bytes = 0;
    if (need > 0) hg__ws_begin(&h->ws, &h->dev, stream, need, &d.workspace, &d.workspace_bytes, &graph_owned);
    hg__problem inner;
    if (cp.repacked && d.workspace_bytes < need) {
        /* No memory for the copies: the generic kernel reads A and B as they are. */
        e = hg__find_kernel(HG_KERNEL_GENERIC);
        run = &p;
    } else if (cp.sliced && d.workspace_bytes < need) {
        /* No memory for the partials: the kernel on the whole k (its own
         * stream-K takes what workspace there is). */
        cp.sliced = 0;
        run = &p;
    } else if (cp.sliced) {
        s = hg__slices_run(e, &p, &cp.sl, &d, d.workspace, kernel_bytes, stream, &err);
    } else if (cp.repacked) {
        s = hg__repack_copy(&p, &cp.r, &d, d.workspace, kernel_bytes, stream, &inner, &err);
        run = &inner;
        d.workspace_bytes = kernel_bytes; /* the kernel's part; the copies follow it */
    }
    if (s == HG_STATUS_SUCCESS && !cp.sliced) s = e->launch(run, &d, stream, &err);
    hg__ws_end(graph_owned, stream);
    hg__ctx_leave(&h->ctx, saved);
    if (s != HG_STATUS_SUCCESS) return fail(h, s, "%s: %s", who, err.msg);
    return ok(h);
}
