/*
 * A handle's workspace: device scratch memory some plans need (V6's
 * stream-K partials), for any number of streams and for graph capture.
 *
 *   - The library's own: one slot per stream, made on that stream's first
 *     call that needs one and grown in stream order (cudaMallocFromPoolAsync
 *     / cudaFreeAsync from a pool of the handle's), so calls on different
 *     streams never share memory and never wait for each other.
 *   - Inside a stream capture: memory of the graph's own (an allocation node
 *     before the launch, a free node after), so every replay, on any stream,
 *     has its own and nothing is shared with eager calls.
 *   - The caller's (hg_set_workspace): used as given, by every call; the
 *     caller orders the calls that share it, as with cuBLAS.
 *
 * Every workspace starts with counters (hg__ws_counter_bytes) that are zero
 * before a launch and that every launch leaves at zero; they are zeroed once,
 * in stream order, when the memory is new to the library.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "hg_internal.h"

size_t hg__ws_counter_bytes(const hg__device *d)
{
    return hg__round_up((size_t)d->sm_count * HG_WS_COUNTERS_PER_SM * sizeof(uint32_t), HG_WS_ALIGN);
}

size_t hg__sk_workspace_bytes(const hg__device *d, int64_t workers, size_t per_worker)
{
    if (workers <= 0) return 0;
    return hg__ws_counter_bytes(d) + (size_t)workers * per_worker;
}

size_t hg__ws_past_kernel(const hg__device *d, size_t kernel_bytes)
{
    const size_t counters = hg__ws_counter_bytes(d);
    return hg__round_up(kernel_bytes > counters ? kernel_bytes : counters, HG_WS_ALIGN);
}

size_t hg__ws_limit(const hg__ws *w) { return w->user ? w->user_bytes : SIZE_MAX; }

void hg__ws_set_user(hg__ws *w, void *ptr, size_t bytes)
{
    w->user = ptr;
    w->user_bytes = ptr ? bytes : 0;
    w->user_zeroed = 0;
}

static int zero_counters(void *ptr, const hg__device *d, cudaStream_t s)
{
    return cudaMemsetAsync(ptr, 0, hg__ws_counter_bytes(d), s) == cudaSuccess;
}

static int ensure_pool(hg__ws *w, const hg__device *d)
{
    if (w->pool) return 1;
    int supported = 0;
    if (cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, d->ordinal) != cudaSuccess ||
        !supported)
        return 0;
    struct cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = d->ordinal;
    cudaMemPool_t pool = NULL;
    if (cudaMemPoolCreate(&pool, &props) != cudaSuccess) return 0;
    /* Never make one stream's allocation wait for another stream's frees. */
    int no = 0;
    (void)cudaMemPoolSetAttribute(pool, cudaMemPoolReuseAllowInternalDependencies, &no);
    w->pool = pool;
    return 1;
}

/* `bytes` of the pool's memory in s's order, its counters zeroed; NULL when
 * either fails (the error cleared). */
static void *alloc_zeroed(hg__ws *w, const hg__device *d, cudaStream_t s, size_t bytes)
{
    void *p = NULL;
    if (cudaMallocFromPoolAsync(&p, bytes, (cudaMemPool_t)w->pool, s) != cudaSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    if (!zero_counters(p, d, s)) {
        (void)cudaGetLastError();
        (void)cudaFreeAsync(p, s);
        (void)cudaGetLastError();
        return NULL;
    }
    return p;
}

/* The slot of stream s. A stream is known by its handle and its ID: a
 * stream made at the address of a destroyed one (whose last calls may still
 * run) gets fresh memory, and the old memory is freed once the device is
 * done with it (cudaFree waits: a rare event). */
static hg__ws_slot *slot_of(hg__ws *w, cudaStream_t s)
{
    unsigned long long id = 0;
    if (cudaStreamGetId(s, &id) != cudaSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    for (int i = 0; i < w->nslots; i++) {
        hg__ws_slot *slot = &w->slots[i];
        if (slot->stream != (struct CUstream_st *)s) continue;
        if (slot->id != id) {
            if (slot->ptr) (void)cudaFree(slot->ptr);
            (void)cudaGetLastError();
            slot->ptr = NULL;
            slot->bytes = 0;
            slot->id = id;
        }
        return slot;
    }
    if (w->nslots == w->cap) {
        int cap = w->cap ? 2 * w->cap : 4;
        hg__ws_slot *grown = (hg__ws_slot *)realloc(w->slots, (size_t)cap * sizeof *grown);
        if (grown == NULL) return NULL;
        w->slots = grown;
        w->cap = cap;
    }
    hg__ws_slot *slot = &w->slots[w->nslots++];
    slot->stream = (struct CUstream_st *)s;
    slot->id = id;
    slot->ptr = NULL;
    slot->bytes = 0;
    return slot;
}

void hg__ws_begin(hg__ws *w, const hg__device *d, struct CUstream_st *stream, size_t need, void **ptr,
                  size_t *bytes, void **graph_owned)
{
    cudaStream_t s = (cudaStream_t)stream;
    *ptr = NULL;
    *bytes = 0;
    *graph_owned = NULL;
    if (need == 0) return;
    enum cudaStreamCaptureStatus cap = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(s, &cap) != cudaSuccess) {
        (void)cudaGetLastError(); /* the launch will report what is wrong */
        return;
    }
    const int capturing = cap == cudaStreamCaptureStatusActive;
    if (w->user) {
        if (need > w->user_bytes) return;
        if (!w->user_zeroed && !zero_counters(w->user, d, s)) {
            (void)cudaGetLastError();
            return;
        }
        /* A capture's memset runs only when the graph does. */
        if (!capturing) w->user_zeroed = 1;
        *ptr = w->user;
        *bytes = w->user_bytes;
        return;
    }
    if (!ensure_pool(w, d)) return;
    if (capturing) {
        void *p = alloc_zeroed(w, d, s, need);
        if (p == NULL) return;
        *ptr = *graph_owned = p;
        *bytes = need;
        return;
    }
    hg__ws_slot *slot = slot_of(w, s);
    if (slot == NULL) return;
    if (slot->bytes < need) {
        /* Grow in stream order: the old slot's last user is on this stream. */
        size_t want = hg__round_up(need, HG_WS_ALIGN);
        void *p = alloc_zeroed(w, d, s, want);
        if (p == NULL) return;
        if (slot->ptr) (void)cudaFreeAsync(slot->ptr, s);
        (void)cudaGetLastError();
        slot->ptr = p;
        slot->bytes = want;
    }
    *ptr = slot->ptr;
    *bytes = slot->bytes;
}

void hg__ws_end(void *graph_owned, struct CUstream_st *stream)
{
    if (graph_owned == NULL) return;
    (void)cudaFreeAsync(graph_owned, (cudaStream_t)stream);
    (void)cudaGetLastError();
}

void hg__ws_free(hg__ws *w)
{
    /* cudaFree, not cudaFreeAsync: a slot's stream may be gone by now.
     * cudaFree waits for the device's outstanding work first. */
    for (int i = 0; i < w->nslots; i++)
        if (w->slots[i].ptr) (void)cudaFree(w->slots[i].ptr);
    if (w->pool) (void)cudaMemPoolDestroy((cudaMemPool_t)w->pool);
    (void)cudaGetLastError();
    free(w->slots);
    memset(w, 0, sizeof *w);
}
