/*
 * The GPU tier's tests of one handle used the ways frameworks use it: many
 * streams at once, CUDA graph capture and replay, a caller's workspace, the
 * call's corners (k = 0, alpha = 0, interleaved operands), and two GPUs.
 * The stream-K shapes make V6 split its last round, so calls that shared
 * scratch memory would corrupt each other; results are compared bit for bit
 * with one-stream results, which are themselves checked against the float64
 * reference.
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cudaTypedefs.h>

#include "gpu_common.h"
#include "testlib.h"

/* Each splits V6's last round: 1 tile pair into 4 pieces, 4 pairs over 16
 * clusters, 16 pairs over 64. The quick ones (compute-sanitizer) split 1 pair
 * into 4 and into 2. Leading dimensions are the sizes: multiples of 8. */
static const tn_shape sk_shapes[] = {{256, 320, 65536}, {512, 640, 8232}, {1000, 1000, 3000}};
static const tn_shape sk_quick[] = {{256, 320, 4096}, {100, 304, 1024}};

static int v6_wanted(void)
{
    return hg__find_kernel(HG_KERNEL_V6) != NULL && gpu_kernel_selected(HG_KERNEL_V6);
}

/* hg_get_workspace_size for o's call (C: an address no operand uses; it is
 * never touched). */
static hg_status workspace_of(hg_handle h, const tn_operands *o, size_t *bytes)
{
    const void *C = (const char *)o->dB + (size_t)(o->s.n * o->s.k) * 2 + 256;
    return hg_get_workspace_size(h, HG_OP_N, HG_OP_T, o->s.m, o->s.n, o->s.k, o->dA, o->s.k, o->dB, o->s.k, C, o->s.n,
                                 o->dt, bytes);
}

/* The one-stream result of o through h (on h's current stream), checked
 * against the float64 reference; into *out (host, o->nc elements). */
static int reference_bits(hg_handle h, const tn_operands *o, uint16_t **out, const char *what)
{
    void *dC = NULL;
    *out = (uint16_t *)malloc(o->nc * 2);
    uint16_t *zeros = (uint16_t *)calloc(o->nc, 2);
    int ok = *out && zeros && cuda_ok(cudaMalloc(&dC, o->nc * 2), "cudaMalloc C") &&
             cuda_ok(cudaMemset(dC, 0xFF, o->nc * 2), "poison C");
    if (ok) {
        hg_status s = tn_operands_gemm(h, o, dC);
        CHECK(s == HG_STATUS_SUCCESS, "%s: %s", what, hg_last_error(h));
        ok = s == HG_STATUS_SUCCESS && cuda_ok(cudaDeviceSynchronize(), what) &&
             cuda_ok(cudaMemcpy(*out, dC, o->nc * 2, cudaMemcpyDeviceToHost), "copy C");
    }
    if (ok) {
        hg__problem p = tn_operands_problem(o);
        ok = hg_check_output(&p, o->hA, o->hB, zeros, *out, what);
    }
    cudaFree(dC);
    free(zeros);
    return ok;
}

static int64_t differing(const uint16_t *a, const uint16_t *b, size_t n)
{
    int64_t d = 0;
    for (size_t i = 0; i < n; i++) d += a[i] != b[i];
    return d;
}

#define MAX_SHAPES 3

/* The stream-K shapes (the quick ones under --quick), their operands on the
 * device, and the one-stream result of each through a handle pinned to V6:
 * what the stream and graph tests compare against. */
typedef struct {
    hg_handle h;
    int n;
    tn_operands o[MAX_SHAPES];
    uint16_t *ref[MAX_SHAPES];
} sk_fixture;

/* 1 when everything was made; the fixture can be closed either way. */
static int sk_fixture_open_with(sk_fixture *f, const char *what, hg_kernel kernel, const tn_shape *shapes, int n)
{
    memset(f, 0, sizeof *f);
    f->n = n;
    f->h = gpu_handle();
    if (!f->h) return 0;
    CHECK(hg_set_kernel(f->h, kernel) == HG_STATUS_SUCCESS, "choose the kernel");
    int ok = 1;
    for (int i = 0; i < f->n && ok; i++) ok = tn_operands_make(&f->o[i], shapes[i], HG_F16);
    for (int i = 0; i < f->n && ok; i++) ok = reference_bits(f->h, &f->o[i], &f->ref[i], what);
    return ok;
}

static int sk_fixture_open(sk_fixture *f, const char *what)
{
    return sk_fixture_open_with(f, what, HG_KERNEL_V6, hg_gpu_quick ? sk_quick : sk_shapes,
                                hg_gpu_quick ? 2 : MAX_SHAPES);
}

static void sk_fixture_close(sk_fixture *f)
{
    for (int i = 0; i < f->n; i++) {
        free(f->ref[i]);
        tn_operands_free(&f->o[i]);
    }
    hg_destroy(f->h);
}

/* One handle, V6, calls alternating over 2 and then 4 non-blocking streams
 * with nothing ordering them; each call has its own output, compared bit for
 * bit with the one-stream result of its shape. */
static void test_streams(void)
{
    if (!v6_wanted()) SKIP("v6 not registered or filtered out by --kernel");
    const int calls = hg_gpu_quick ? 8 : 100;
    sk_fixture fx;
    int ok = sk_fixture_open(&fx, "one stream");
    for (int i = 0; ok && i < fx.n; i++) {
        size_t need = 0;
        CHECK(workspace_of(fx.h, &fx.o[i], &need) == HG_STATUS_SUCCESS && need > 0,
              "shape %d splits its last round (workspace %zu bytes): %s", i, need, hg_last_error(fx.h));
    }
    size_t most = 0;
    for (int i = 0; i < fx.n; i++) most = fx.o[i].nc > most ? fx.o[i].nc : most;
    for (int ns = 2; ok && ns <= 4; ns += 2) {
        cudaStream_t st[4];
        char *out = NULL;
        for (int i = 0; i < ns; i++) ok = ok && cuda_ok(cudaStreamCreateWithFlags(&st[i], cudaStreamNonBlocking), "stream");
        ok = ok && cuda_ok(cudaMalloc((void **)&out, (size_t)calls * most * 2), "cudaMalloc outputs") &&
             cuda_ok(cudaMemset(out, 0xFF, (size_t)calls * most * 2), "poison outputs");
        for (int c = 0; ok && c < calls; c++) {
            hg_status s = hg_set_stream(fx.h, (struct CUstream_st *)st[c % ns]);
            if (s == HG_STATUS_SUCCESS) s = tn_operands_gemm(fx.h, &fx.o[c % fx.n], out + (size_t)c * most * 2);
            CHECK(s == HG_STATUS_SUCCESS, "%d streams, call %d: %s", ns, c, hg_last_error(fx.h));
            ok = s == HG_STATUS_SUCCESS;
        }
        ok = ok && cuda_ok(cudaDeviceSynchronize(), "the calls");
        uint16_t *host = (uint16_t *)malloc(most * 2);
        int64_t wrong = 0, calls_wrong = 0;
        for (int c = 0; ok && host && c < calls; c++) {
            const tn_operands *oc = &fx.o[c % fx.n];
            ok = cuda_ok(cudaMemcpy(host, out + (size_t)c * most * 2, oc->nc * 2, cudaMemcpyDeviceToHost), "copy");
            int64_t d = ok ? differing(host, fx.ref[c % fx.n], oc->nc) : 0;
            wrong += d;
            calls_wrong += d > 0;
        }
        CHECK(ok && wrong == 0, "%d streams x %d calls: %lld elements in %lld calls differ from one stream's", ns,
              calls, (long long)wrong, (long long)calls_wrong);
        free(host);
        cudaFree(out);
        for (int i = 0; i < ns; i++) cudaStreamDestroy(st[i]);
        CHECK(hg_set_stream(fx.h, NULL) == HG_STATUS_SUCCESS, "back to the default stream");
    }
    sk_fixture_close(&fx);
}

/* The fixture's calls captured in a CUDA graph (global capture mode),
 * replayed 100 times on one stream while eager calls through the same handle
 * run on another: every replay's outputs, and the eager ones, bitwise equal
 * to the eager results from before the capture. Closes fx. */
static void graph_replays(sk_fixture fx, int ok)
{
    const int replays = hg_gpu_quick ? 3 : 100;
    size_t off[MAX_SHAPES + 1] = {0};
    for (int i = 0; i < fx.n; i++) off[i + 1] = off[i] + fx.o[i].nc * 2;
    const size_t total = off[fx.n];
    cudaStream_t cs = NULL, es = NULL;
    cudaGraph_t graph = NULL;
    cudaGraphExec_t exec = NULL;
    char *gout = NULL, *eout = NULL, *snaps = NULL;
    ok = ok && cuda_ok(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking), "stream") &&
         cuda_ok(cudaStreamCreateWithFlags(&es, cudaStreamNonBlocking), "stream") &&
         cuda_ok(cudaMalloc((void **)&gout, total), "graph outputs") &&
         cuda_ok(cudaMalloc((void **)&eout, total * replays), "eager outputs") &&
         cuda_ok(cudaMalloc((void **)&snaps, total * replays), "snapshots") &&
         cuda_ok(cudaMemset(eout, 0xFF, total * replays), "poison") && cuda_ok(cudaMemset(gout, 0xFF, total), "poison");
    if (ok) {
        ok = cuda_ok(cudaStreamBeginCapture(cs, cudaStreamCaptureModeGlobal), "begin capture");
        CHECK(hg_set_stream(fx.h, (struct CUstream_st *)cs) == HG_STATUS_SUCCESS, "capture stream");
        for (int i = 0; ok && i < fx.n; i++) {
            hg_status s = tn_operands_gemm(fx.h, &fx.o[i], gout + off[i]);
            CHECK(s == HG_STATUS_SUCCESS, "captured call %d: %s", i, hg_last_error(fx.h));
        }
        ok = cuda_ok(cudaStreamEndCapture(cs, &graph), "end capture") &&
             cuda_ok(cudaGraphInstantiate(&exec, graph, 0), "instantiate");
    }
    /* Replays on cs, each followed by a snapshot of its outputs; eager calls
     * on es meanwhile, each into outputs of its own. */
    CHECK(hg_set_stream(fx.h, (struct CUstream_st *)es) == HG_STATUS_SUCCESS, "eager stream");
    for (int r = 0; ok && r < replays; r++) {
        ok = cuda_ok(cudaGraphLaunch(exec, cs), "replay") &&
             cuda_ok(cudaMemcpyAsync(snaps + total * r, gout, total, cudaMemcpyDeviceToDevice, cs), "snapshot");
        int i = r % fx.n;
        hg_status s = tn_operands_gemm(fx.h, &fx.o[i], eout + total * r + off[i]);
        CHECK(s == HG_STATUS_SUCCESS, "eager call beside replay %d: %s", r, hg_last_error(fx.h));
    }
    ok = ok && cuda_ok(cudaDeviceSynchronize(), "replays");
    uint16_t *host = (uint16_t *)malloc(total);
    int64_t wrong_replay = 0, wrong_eager = 0;
    for (int r = 0; ok && host && r < replays; r++) {
        ok = cuda_ok(cudaMemcpy(host, snaps + total * r, total, cudaMemcpyDeviceToHost), "copy");
        for (int i = 0; ok && i < fx.n; i++) wrong_replay += differing(host + off[i] / 2, fx.ref[i], fx.o[i].nc);
        ok = ok && cuda_ok(cudaMemcpy(host, eout + total * r, total, cudaMemcpyDeviceToHost), "copy");
        int i = r % fx.n;
        if (ok) wrong_eager += differing(host + off[i] / 2, fx.ref[i], fx.o[i].nc);
    }
    CHECK(ok && wrong_replay == 0, "%d replays of %d captured calls: %lld elements differ from eager", replays,
          fx.n, (long long)wrong_replay);
    CHECK(ok && wrong_eager == 0, "eager calls beside the replays: %lld elements differ", (long long)wrong_eager);
    free(host);
    if (exec) cudaGraphExecDestroy(exec);
    if (graph) cudaGraphDestroy(graph);
    cudaFree(gout), cudaFree(eout), cudaFree(snaps);
    if (cs) cudaStreamDestroy(cs);
    if (es) cudaStreamDestroy(es);
    sk_fixture_close(&fx);
}

static void test_graph(void)
{
    if (!v6_wanted()) SKIP("v6 not registered or filtered out by --kernel");
    sk_fixture fx;
    const int ok = sk_fixture_open(&fx, "eager");
    graph_replays(fx, ok);
}

/* The k slices (src/slices.c) in a graph: AUTO's plan cuts these in k
 * slices, two launches (the batch of partials, then their sums) that the
 * graph must keep in order and give their own workspace. */
static const tn_shape slice_shapes[] = {{256, 256, 16384}, {192, 256, 16384}};
static void test_graph_slices(void)
{
    if (!gpu_kernel_selected(HG_KERNEL_AUTO)) SKIP("filtered out by --kernel");
    sk_fixture fx;
    int ok = sk_fixture_open_with(&fx, "eager", HG_KERNEL_AUTO, slice_shapes, 2);
    for (int i = 0; ok && i < fx.n; i++) {
        hg_matmul_desc d = HG_MATMUL_DESC_INIT;
        d.opA = HG_OP_N, d.opB = HG_OP_T, d.m = fx.o[i].s.m, d.n = fx.o[i].s.n, d.k = fx.o[i].s.k;
        d.A = fx.o[i].dA, d.lda = d.k, d.B = fx.o[i].dB, d.ldb = d.k;
        d.C = (void *)(uintptr_t)0x300000000ull, d.ldc = d.n, d.dtype = HG_F16;
        int64_t slices = -1;
        CHECK(hg__matmul_plan_slices(fx.h, &d, &slices) == HG_STATUS_SUCCESS && slices > 1,
              "%lld x %lld x %lld: AUTO's plan has %lld k slices, the test wants some", (long long)d.m, (long long)d.n,
              (long long)d.k, (long long)slices);
    }
    graph_replays(fx, ok);
}

/* hg_create allocates nothing on the device; the size queries; a caller's
 * workspace (dirty when handed over) gives the library's bits; one too small
 * by a byte still gives right answers; NULL hands it back. */
enum { WORKSPACE_MEMORY_TRIES = 3 };
static void test_user_workspace(void)
{
    if (!v6_wanted()) SKIP("v6 not registered or filtered out by --kernel");
    size_t free0 = 0, free1 = 0, total = 0;
    hg_handle h0 = gpu_handle(); /* the context exists from here on */
    if (!h0) return;
    size_t most = 0;
    CHECK(hg_get_max_workspace_size(h0, &most) == HG_STATUS_SUCCESS && most > 0, "the most workspace: %zu", most);
    hg_destroy(h0);
    /* The free-memory count is the device's: it moves in pages, with a
     * sanitizer's own allocations and with other processes on the same GPU.
     * The workspace hg_create used to take is all of `most`, every time; a
     * neighbour's allocation does not land in all of three tries. */
    hg_handle h = NULL;
    long long took = 0;
    int ok = 0;
    for (int attempt = 0; attempt < WORKSPACE_MEMORY_TRIES && !ok; attempt++) {
        if (h) hg_destroy(h);
        int got = cuda_ok(cudaMemGetInfo(&free0, &total), "cudaMemGetInfo");
        h = gpu_handle();
        if (!h) return;
        got = got && cuda_ok(cudaMemGetInfo(&free1, &total), "cudaMemGetInfo");
        took = (long long)free0 - (long long)free1;
        ok = got && free1 + most / 4 >= free0;
    }
    CHECK(ok, "hg_create took %lld bytes of device memory (%d tries)", took, WORKSPACE_MEMORY_TRIES);
    CHECK(hg_set_kernel(h, HG_KERNEL_V6) == HG_STATUS_SUCCESS, "choose v6");
    tn_operands o;
    uint16_t *ref = NULL, *host = NULL;
    void *ws = NULL, *dC = NULL;
    size_t need = 0, none = 1;
    ok = tn_operands_make(&o, hg_gpu_quick ? sk_quick[0] : sk_shapes[1], HG_F16);
    ok = ok && reference_bits(h, &o, &ref, "library's workspace");
    CHECK(ok && workspace_of(h, &o, &need) == HG_STATUS_SUCCESS && need > hg__ws_counter_bytes(hg__handle_device(h)),
          "a stream-K call needs workspace: %zu (%s)", need, hg_last_error(h));
    tn_operands one_block = o;
    one_block.s.k = 64; /* one k block: nothing to split */
    CHECK(workspace_of(h, &one_block, &none) == HG_STATUS_SUCCESS && none == 0, "one k block splits nothing: %zu",
          none);
    if (need == 0) ok = 0;
    CHECK(hg_get_max_workspace_size(h, &most) == HG_STATUS_SUCCESS && most >= need, "the most (%zu) covers it", most);
    host = (uint16_t *)malloc(o.nc * 2);
    ok = ok && host && cuda_ok(cudaMalloc(&ws, need), "cudaMalloc workspace") &&
         cuda_ok(cudaMalloc(&dC, o.nc * 2), "cudaMalloc C");
    const size_t sizes[] = {need, most, need - 1};
    for (int t = 0; ok && t < 3; t++) {
        void *mem = ws;
        void *big = NULL;
        if (sizes[t] > need) ok = cuda_ok(cudaMalloc(&big, sizes[t]), "cudaMalloc"), mem = big;
        ok = ok && cuda_ok(cudaMemset(mem, 0xAB, sizes[t]), "dirty workspace") &&
             cuda_ok(cudaMemset(dC, 0xFF, o.nc * 2), "poison C");
        CHECK(hg_set_workspace(h, mem, sizes[t]) == HG_STATUS_SUCCESS, "set_workspace(%zu)", sizes[t]);
        for (int rep = 0; ok && rep < 2; rep++) { /* the second call finds the counters as the first left them */
            hg_status s = tn_operands_gemm(h, &o, dC);
            CHECK(s == HG_STATUS_SUCCESS, "with %zu bytes: %s", sizes[t], hg_last_error(h));
            ok = s == HG_STATUS_SUCCESS && cuda_ok(cudaMemcpy(host, dC, o.nc * 2, cudaMemcpyDeviceToHost), "copy");
            if (!ok) break;
            if (sizes[t] >= need) {
                CHECK(differing(host, ref, o.nc) == 0, "a caller's %zu bytes give the library's bits (call %d)",
                      sizes[t], rep);
            } else {
                uint16_t *zeros = (uint16_t *)calloc(o.nc, 2);
                hg__problem p = tn_operands_problem(&o);
                if (zeros) hg_check_output(&p, o.hA, o.hB, zeros, host, "a workspace a byte too small");
                free(zeros);
            }
        }
        CHECK(hg_set_workspace(h, NULL, 0) == HG_STATUS_SUCCESS, "hand it back");
        cudaFree(big);
    }
    ok = ok && cuda_ok(cudaMemset(dC, 0xFF, o.nc * 2), "poison C") && tn_operands_gemm(h, &o, dC) == HG_STATUS_SUCCESS &&
         cuda_ok(cudaMemcpy(host, dC, o.nc * 2, cudaMemcpyDeviceToHost), "copy");
    CHECK(ok && differing(host, ref, o.nc) == 0, "the library's workspace again");
    hg_destroy(h); /* before freeing the caller's memory it might still use */
    cudaFree(ws), cudaFree(dC);
    free(ref), free(host);
    tn_operands_free(&o);
}

/* k = 0 or alpha = 0 is exactly beta * C whatever alpha is; with beta = 1 C
 * is untouched bit for bit (NaN payloads included); A and C interleaved in
 * one buffer without sharing an element is a valid call. */
static void test_corners(void)
{
    if (!gpu_kernel_selected(HG_KERNEL_AUTO)) SKIP("filtered out by --kernel");
    hg_handle h = gpu_handle();
    if (!h) return;
    const int64_t m = 37, n = 45, k = 64;
    const size_t nc = (size_t)(m * n);
    uint16_t *c0 = (uint16_t *)malloc(nc * 2), *got = (uint16_t *)malloc(nc * 2);
    uint16_t *ab = (uint16_t *)malloc((size_t)(m + n) * k * 2);
    void *dC = NULL, *dAB = NULL;
    int ok = c0 && got && ab && cuda_ok(cudaMalloc(&dC, nc * 2), "cudaMalloc C") &&
             cuda_ok(cudaMalloc(&dAB, (size_t)(m + n) * k * 2), "cudaMalloc A, B");
    for (int dt = 0; ok && dt < 2; dt++) {
        const hg_dtype t = (hg_dtype)dt;
        for (size_t i = 0; i < nc; i++) c0[i] = rand_elem(t);
        c0[0] = 0x0000;                             /* +0: beta = -1 makes -0 */
        c0[1] = t == HG_F16 ? 0x7C01 : 0x7F81;      /* a signalling NaN, payload 1 */
        c0[2] = t == HG_F16 ? 0xFE55 : 0xFFD5;      /* a negative quiet NaN with a payload */
        for (int64_t i = 0; i < (m + n) * k; i++) ab[i] = POISON;
        ok = cuda_ok(cudaMemcpy(dAB, ab, (size_t)(m + n) * k * 2, cudaMemcpyHostToDevice), "copy A, B");
        const uint16_t *A = (const uint16_t *)dAB, *B = A + m * k;
        struct {
            int64_t k;
            float alpha, beta;
        } cases[] = {{0, INFINITY, 1.0f}, {0, NAN, 1.0f}, {k, 0.0f, 1.0f}, {0, NAN, 0.5f},
                     {0, INFINITY, 0.0f}, {k, 0.0f, -1.0f}, {0, -INFINITY, -2.0f}};
        for (size_t c = 0; ok && c < sizeof cases / sizeof cases[0]; c++) {
            ok = cuda_ok(cudaMemcpy(dC, c0, nc * 2, cudaMemcpyHostToDevice), "copy C");
            hg_status s = hg_gemm(h, HG_OP_N, HG_OP_T, m, n, cases[c].k, cases[c].alpha, A, k, B, k, cases[c].beta,
                                  dC, n, t);
            CHECK(s == HG_STATUS_SUCCESS, "corner %zu: %s", c, hg_last_error(h));
            ok = ok && s == HG_STATUS_SUCCESS && cuda_ok(cudaDeviceSynchronize(), "corner") &&
                 cuda_ok(cudaMemcpy(got, dC, nc * 2, cudaMemcpyDeviceToHost), "copy C back");
            int64_t wrong = 0;
            for (size_t i = 0; ok && i < nc; i++) {
                uint16_t want = cases[c].beta == 1.0f   ? c0[i]
                                : cases[c].beta == 0.0f ? (uint16_t)0
                                                        : hg__from_f32(cases[c].beta * hg__to_f32(c0[i], t), t);
                /* NaN times beta is a NaN; its payload is the hardware's. */
                if (cases[c].beta != 1.0f && cases[c].beta != 0.0f && is_nan_bits(c0[i], t))
                    wrong += !is_nan_bits(got[i], t);
                else wrong += got[i] != want;
            }
            CHECK(wrong == 0, "%s k=%lld alpha=%g beta=%g: %lld elements are not exactly beta * C",
                  t == HG_BF16 ? "bf16" : "f16", (long long)cases[c].k, cases[c].alpha, cases[c].beta,
                  (long long)wrong);
        }
    }
    /* A = buf, C = buf + 8, both with leading dimension 16, m = 4, n = k = 8:
     * the halves of each 16-element row. */
    uint16_t buf[4 * 16], bmat[8 * 8], out[4 * 16];
    void *dbuf = NULL, *dbm = NULL;
    for (int i = 0; i < 64; i++) buf[i] = rand_elem(HG_F16);
    for (int i = 0; i < 64; i++) bmat[i] = rand_elem(HG_F16);
    ok = ok && cuda_ok(cudaMalloc(&dbuf, sizeof buf), "cudaMalloc buf") &&
         cuda_ok(cudaMalloc(&dbm, sizeof bmat), "cudaMalloc B") &&
         cuda_ok(cudaMemcpy(dbuf, buf, sizeof buf, cudaMemcpyHostToDevice), "copy buf") &&
         cuda_ok(cudaMemcpy(dbm, bmat, sizeof bmat, cudaMemcpyHostToDevice), "copy B");
    if (ok) {
        hg_status s = hg_gemm(h, HG_OP_N, HG_OP_T, 4, 8, 8, 1.0f, dbuf, 16, dbm, 8, 0.5f, (uint16_t *)dbuf + 8, 16,
                              HG_F16);
        CHECK(s == HG_STATUS_SUCCESS, "interleaved A and C: %s", hg_last_error(h));
        ok = s == HG_STATUS_SUCCESS && cuda_ok(cudaMemcpy(out, dbuf, sizeof out, cudaMemcpyDeviceToHost), "copy");
    }
    if (ok) {
        hg__problem p = hg__problem_make(HG_OP_N, HG_OP_T, 4, 8, 8, 1.0f, NULL, 16, NULL, 8, 0.5f, NULL, 16, HG_F16);
        int64_t bad = 0;
        for (int i = 0; i < 4; i++) {
            for (int j = 0; j < 8; j++) {
                double mag, ref = hg__ref_element_abs(&p, buf, bmat, buf + 8, i, j, &mag);
                double x = hg__f16_to_f32(out[i * 16 + 8 + j]);
                bad += !(fabs(x - ref) <= hg__check_bound(HG_F16, ref, mag));
                bad += out[i * 16 + j] != buf[i * 16 + j]; /* A's half unchanged */
            }
        }
        CHECK(bad == 0, "interleaved A and C: %lld elements wrong", (long long)bad);
    }
    cudaFree(dC), cudaFree(dAB), cudaFree(dbuf), cudaFree(dbm);
    free(c0), free(got), free(ab);
    hg_destroy(h);
}

/* ---- two GPUs ---------------------------------------------------------------
 * Runs in a process of its own (hg-tests --multi-gpu-probe), since whether a
 * call made a context on a device only shows in a process that has not
 * touched it. */

typedef struct {
    hg_handle h;
    const tn_operands *o;
    void *dC[2];
    int set_device; /* the thread's device before the calls; -1: touch nothing */
    hg_status s[2];
    int dev_after;
    void *ctx_before, *ctx_after;
} probe_job;

static PFN_cuCtxGetCurrent_v4000 probe_get_ctx;

static void *probe_thread(void *arg)
{
    probe_job *j = (probe_job *)arg;
    if (j->set_device >= 0) (void)cudaSetDevice(j->set_device);
    CUcontext c = NULL;
    probe_get_ctx(&c);
    j->ctx_before = c;
    for (int i = 0; i < 2; i++) {
        (void)hg_set_kernel(j->h, i == 0 ? HG_KERNEL_AUTO : HG_KERNEL_V6);
        j->s[i] = tn_operands_gemm(j->h, &j->o[i], j->dC[i]);
    }
    probe_get_ctx(&c);
    j->ctx_after = c;
    j->dev_after = -1;
    if (j->set_device >= 0) (void)cudaGetDevice(&j->dev_after);
    return NULL;
}

/* Operands of the two probe calls on the current device, C poisoned. */
static int probe_prepare(tn_operands o[2], void *dC[2])
{
    const tn_shape s[2] = {{300, 330, 136}, {256, 320, 4096}};
    for (int i = 0; i < 2; i++)
        if (!tn_operands_make(&o[i], s[i], HG_F16) || !cuda_ok(cudaMalloc(&dC[i], o[i].nc * 2), "cudaMalloc C") ||
            !cuda_ok(cudaMemset(dC[i], 0xFF, o[i].nc * 2), "poison C"))
            return 0;
    return 1;
}

static void probe_verify(int dev, const probe_job *j, const char *what)
{
    (void)cudaSetDevice(dev);
    cuda_ok(cudaDeviceSynchronize(), what);
    for (int i = 0; i < 2; i++) {
        CHECK(j->s[i] == HG_STATUS_SUCCESS, "%s call %d: %s", what, i, hg_last_error(j->h));
        uint16_t *host = (uint16_t *)malloc(j->o[i].nc * 2), *zeros = (uint16_t *)calloc(j->o[i].nc, 2);
        if (host && zeros && cuda_ok(cudaMemcpy(host, j->dC[i], j->o[i].nc * 2, cudaMemcpyDeviceToHost), what)) {
            hg__problem p = tn_operands_problem(&j->o[i]);
            hg_check_output(&p, j->o[i].hA, j->o[i].hB, zeros, host, what);
        }
        free(host), free(zeros);
    }
}

int hg_multi_gpu_probe(void)
{
    PFN_cuDevicePrimaryCtxGetState_v7000 ctx_state = NULL;
    memset(&hg_t, 0, sizeof hg_t);
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count < 2 ||
        !hg__driver_symbol("cuCtxGetCurrent", &probe_get_ctx, sizeof probe_get_ctx) ||
        !hg__driver_symbol("cuDevicePrimaryCtxGetState", &ctx_state, sizeof ctx_state)) {
        printf("probe: needs 2 GPUs and the driver (%d found)\n", count);
        return 2;
    }
    /* 1. Only GPU 1 is used; a thread that never touched CUDA (its device 0
     * by default, no context) calls the handle of GPU 1. */
    tn_operands o1[2], o0[2];
    void *c1[2] = {0}, *c0[2] = {0};
    hg_handle h1 = NULL, h0 = NULL;
    int ok = cuda_ok(cudaSetDevice(1), "cudaSetDevice(1)") && hg_create(&h1) == HG_STATUS_SUCCESS &&
             probe_prepare(o1, c1);
    CHECK(ok, "GPU 1 set up: %s", hg_last_error(NULL));
    if (ok) {
        probe_job j = {h1, o1, {c1[0], c1[1]}, -1, {HG_STATUS_SUCCESS, HG_STATUS_SUCCESS}, 0, NULL, NULL};
        pthread_t t;
        ok = pthread_create(&t, NULL, probe_thread, &j) == 0 && pthread_join(t, NULL) == 0;
        CHECK(ok, "thread");
        CHECK(j.ctx_before == NULL && j.ctx_after == NULL, "the fresh thread has no context after the calls (%p)",
              j.ctx_after);
        unsigned flags = 0;
        int active = -1;
        CHECK(ctx_state(0, &flags, &active) == CUDA_SUCCESS && active == 0,
              "no context was made on GPU 0, which nothing used (active %d)", active);
        probe_verify(1, &j, "GPU 1 from a fresh thread");
    }
    /* 2. A handle per GPU, each called from a thread whose current device is
     * the other GPU, both at once. */
    ok = ok && cuda_ok(cudaSetDevice(0), "cudaSetDevice(0)") && hg_create(&h0) == HG_STATUS_SUCCESS &&
         probe_prepare(o0, c0);
    CHECK(ok, "GPU 0 set up: %s", hg_last_error(NULL));
    if (ok) {
        probe_job ja = {h0, o0, {c0[0], c0[1]}, 1, {HG_STATUS_SUCCESS, HG_STATUS_SUCCESS}, 0, NULL, NULL};
        probe_job jb = {h1, o1, {c1[0], c1[1]}, 0, {HG_STATUS_SUCCESS, HG_STATUS_SUCCESS}, 0, NULL, NULL};
        for (int i = 0; i < 2; i++) { /* fresh outputs */
            cudaSetDevice(0), cudaMemset(c0[i], 0xFF, o0[i].nc * 2);
            cudaSetDevice(1), cudaMemset(c1[i], 0xFF, o1[i].nc * 2);
        }
        pthread_t ta, tb;
        ok = pthread_create(&ta, NULL, probe_thread, &ja) == 0 && pthread_create(&tb, NULL, probe_thread, &jb) == 0 &&
             pthread_join(ta, NULL) == 0 && pthread_join(tb, NULL) == 0;
        CHECK(ok, "threads");
        CHECK(ja.dev_after == 1 && jb.dev_after == 0, "each thread's device unchanged (%d, %d)", ja.dev_after,
              jb.dev_after);
        CHECK(ja.ctx_after == ja.ctx_before && jb.ctx_after == jb.ctx_before, "each thread's context unchanged");
        probe_verify(0, &ja, "GPU 0's handle from a thread on GPU 1");
        probe_verify(1, &jb, "GPU 1's handle from a thread on GPU 0");
    }
    hg_destroy(h0), hg_destroy(h1);
    printf("probe: %d checks, %d failed\n", hg_t.checks, hg_t.failures);
    return hg_t.failures ? 1 : 0;
}

/* Runs the probe in a process of its own and takes its checks. */
static void test_multi_gpu(void)
{
    if (!gpu_kernel_selected(HG_KERNEL_AUTO)) SKIP("filtered out by --kernel");
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count < 2) SKIP("needs 2 GPUs");
    if (hg_gpu_quick) SKIP("--quick");
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) SKIP("cannot find this program's path");
    self[len] = '\0';
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "'%s' --multi-gpu-probe 2>&1", self);
    FILE *f = popen(cmd, "r");
    CHECK(f != NULL, "popen %s", cmd);
    if (!f) return;
    char line[512];
    int checks = -1, failed = -1;
    while (fgets(line, sizeof line, f)) {
        (void)sscanf(line, "probe: %d checks, %d failed", &checks, &failed);
        printf("    %s", line); /* the probe's failed CHECKs and its count, as they are */
    }
    int rc = pclose(f);
    CHECK(checks > 0 && failed == 0 && rc == 0, "the two-GPU probe: %d checks, %d failed, exit %d", checks, failed,
          rc);
}

const hg_test_case hg_gpu_stream_tests[] = {
    {"gpu/streams", test_streams}, {"gpu/graph", test_graph},         {"gpu/graph_slices", test_graph_slices},
    {"gpu/user_workspace", test_user_workspace},
    {"gpu/corners", test_corners}, {"gpu/multi_gpu", test_multi_gpu},
};
const int hg_gpu_stream_test_count = (int)(sizeof hg_gpu_stream_tests / sizeof hg_gpu_stream_tests[0]);
