/* The driver entry points the library uses (reached through the runtime, so
 * no libcuda is linked), and the context switch that runs a handle's work on
 * its device and leaves the calling thread exactly as it found it. */
#include <stdatomic.h>
#include <string.h>

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cudaTypedefs.h>

#include "hg_internal.h"

int hg__driver_symbol(const char *name, void *fn_out, size_t fn_size)
{
    void *p = NULL;
    enum cudaDriverEntryPointQueryResult q;
    cudaError_t err = cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &q);
    if (err != cudaSuccess || q != cudaDriverEntryPointSuccess || p == NULL) {
        (void)cudaGetLastError();
        return 0;
    }
    memcpy(fn_out, &p, fn_size); /* ISO C has no object-to-function pointer cast */
    return 1;
}

typedef struct {
    PFN_cuCtxGetCurrent_v4000 get;
    PFN_cuCtxSetCurrent_v4000 set;
    PFN_cuDevicePrimaryCtxRetain_v7000 retain;
    PFN_cuDevicePrimaryCtxRelease_v11000 release;
} ctx_api;

static ctx_api api;
static atomic_int api_state; /* 0 not tried, 1 loaded, -1 missing */

static const ctx_api *ctx_fns(void)
{
    int s = atomic_load(&api_state);
    if (s == 0) {
        ctx_api a;
        memset(&a, 0, sizeof a);
        int ok = hg__driver_symbol("cuCtxGetCurrent", &a.get, sizeof a.get) &&
                 hg__driver_symbol("cuCtxSetCurrent", &a.set, sizeof a.set) &&
                 hg__driver_symbol("cuDevicePrimaryCtxRetain", &a.retain, sizeof a.retain) &&
                 hg__driver_symbol("cuDevicePrimaryCtxRelease", &a.release, sizeof a.release);
        /* Racing threads store the same pointers. */
        if (ok) api = a;
        atomic_store(&api_state, ok ? 1 : -1);
        s = ok ? 1 : -1;
    }
    return s == 1 ? &api : NULL;
}

/* The handle's context: the one current on the thread at hg_create when it
 * belongs to the handle's device (what the runtime would use), else the
 * device's primary context, retained until hg__ctx_unbind. */
hg_status hg__ctx_bind(hg__ctx *c, int ordinal, hg__err *e)
{
    memset(c, 0, sizeof *c);
    const ctx_api *f = ctx_fns();
    if (f == NULL) {
        hg__err_set(e, "the driver lacks the context entry points (cuCtxGetCurrent, ...).");
        return HG_STATUS_EXECUTION_FAILED;
    }
    CUdevice dev = (CUdevice)ordinal;
    CUcontext cur = NULL;
    CUresult r = f->get(&cur);
    if (r == CUDA_SUCCESS && cur != NULL) {
        int cur_dev = -1;
        /* The runtime's device of the current context. */
        if (cudaGetDevice(&cur_dev) == cudaSuccess && cur_dev == ordinal) {
            c->ctx = cur;
            return HG_STATUS_SUCCESS;
        }
        (void)cudaGetLastError();
    }
    CUcontext primary = NULL;
    r = f->retain(&primary, dev);
    if (r != CUDA_SUCCESS || primary == NULL) {
        hg__err_set(e, "cuDevicePrimaryCtxRetain(%d) failed (CUresult %d).", ordinal, (int)r);
        return HG_STATUS_EXECUTION_FAILED;
    }
    c->ctx = primary;
    c->retained = 1;
    c->ordinal = ordinal;
    return HG_STATUS_SUCCESS;
}

void hg__ctx_unbind(hg__ctx *c)
{
    const ctx_api *f = ctx_fns();
    if (f && c->retained) f->release((CUdevice)c->ordinal);
    memset(c, 0, sizeof *c);
}

hg_status hg__ctx_enter(const hg__ctx *c, void **saved, hg__err *e)
{
    const ctx_api *f = ctx_fns();
    CUcontext cur = NULL;
    *saved = NULL;
    if (f == NULL || f->get(&cur) != CUDA_SUCCESS) {
        hg__err_set(e, "cuCtxGetCurrent failed.");
        return HG_STATUS_EXECUTION_FAILED;
    }
    *saved = (void *)cur;
    if (cur == (CUcontext)c->ctx) return HG_STATUS_SUCCESS;
    CUresult r = f->set((CUcontext)c->ctx);
    if (r != CUDA_SUCCESS) {
        hg__err_set(e, "cannot make the handle's context current (CUresult %d).", (int)r);
        return HG_STATUS_EXECUTION_FAILED;
    }
    return HG_STATUS_SUCCESS;
}

void hg__ctx_leave(const hg__ctx *c, void *saved)
{
    const ctx_api *f = ctx_fns();
    if (f && saved != c->ctx) (void)f->set((CUcontext)saved);
}
