/*
 * gpu/stagger: persistent grids whose CTAs start at different times.
 *
 * Before each launch a kernel on a second stream holds a random number of
 * SMs for a random time (tests/gpu_occupy.cu), so that part of the grid
 * starts late: the dynamic walk's claims, the 2-CTA cluster's hand-over of
 * them and the stream-K tail's last-arriver sums then meet in orders the
 * rest of the tier does not produce. Every launch's C must be the first's,
 * bit for bit (the tail sums its partials in k order whoever arrives last),
 * and the first is checked against the float64 reference. A hang is the
 * runner's timeout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_common.h"
#include "testlib.h"

cudaError_t occupy_sms(cudaStream_t stream, int blocks, unsigned long long ns);

/* The longest and shortest hold: up to a few launches of the cases below. */
#define STAGGER_MIN_NS 5000ull
#define STAGGER_SPAN_NS 400000ull
#define STAGGER_REPS 200

typedef struct {
    hg_kernel kid; /* a row, or HG_KERNEL_AUTO */
    tn_shape s;
    hg_dtype dt;
    int walk; /* hg__set_walk's mode */
} stagger_case;

/* TN, beta = 0. The dynamic walk with a stream-K tail (the 64 x 64 swapped
 * row at 2560 x 2240 x 8192 takes both by rule), a 2-CTA cluster's claims,
 * and a decode product on the dynamic walk through AUTO. */
static const stagger_case stagger_cases[] = {
    {HG_KERNEL_SM90_64X64X64_S12_C1X1_SWAP_TN, {2560, 2240, 8192}, HG_BF16, HG__WALK_BY_RULE},
    {HG_KERNEL_SM90_128X256X64_S4_C2X1_TN, {2560, 2240, 8192}, HG_F16, HG__WALK_DYNAMIC},
    {HG_KERNEL_AUTO, {2560, 2240, 8192}, HG_BF16, HG__WALK_DYNAMIC},
    {HG_KERNEL_AUTO, {64, 28672, 4096}, HG_BF16, HG__WALK_DYNAMIC},
};

/* One case: 1 when it ran. */
static int stagger_one(const stagger_case *c, cudaStream_t work, cudaStream_t hold, int sms)
{
    const int auto_case = c->kid == HG_KERNEL_AUTO;
    const char *name = hg_kernel_name(c->kid);
    if (!auto_case && hg__find_kernel(c->kid) == NULL) return 0; /* not registered in this build */
    if (!gpu_kernel_selected(c->kid)) return 0; /* --kernel: that row's cases, "family" every row's, "auto" AUTO's */
    char what[160];
    snprintf(what, sizeof what, "%s TN %s %lld x %lld x %lld walk %d", name, c->dt == HG_BF16 ? "bf16" : "f16",
             (long long)c->s.m, (long long)c->s.n, (long long)c->s.k, c->walk);
    tn_operands o;
    int ok = tn_operands_make(&o, c->s, c->dt); /* sets o.nc whether or not it succeeds */
    const size_t c_bytes = o.nc * 2;
    uint16_t *first = malloc(c_bytes), *again = malloc(c_bytes);
    void *dC = NULL;
    hg_handle h = NULL;
    CHECK(first && again, "%s: host allocation", what);
    ok = ok && first && again && cuda_ok(cudaMalloc(&dC, c_bytes), "cudaMalloc C") && (h = gpu_handle()) != NULL;
    if (ok) {
        hg__set_walk(h, c->walk);
        CHECK(hg_set_stream(h, work) == HG_STATUS_SUCCESS, "%s: set_stream", what);
        CHECK(hg_set_kernel(h, c->kid) == HG_STATUS_SUCCESS, "%s: set_kernel", what);
    }
    int differ = 0, first_differ = -1;
    for (int r = 0; ok && r <= STAGGER_REPS; r++) {
        ok = cuda_ok(cudaMemsetAsync(dC, 0xff, c_bytes, work), "poison C"); /* NaN: every element rewritten */
        if (ok && r > 0) { /* the hold starts with the launch (the event), on 1 to sms - 1 SMs */
            cudaEvent_t ev;
            const int blocks = 1 + (int)(rng_next() % (uint64_t)(sms - 1));
            const unsigned long long ns = STAGGER_MIN_NS + rng_next() % STAGGER_SPAN_NS;
            ok = cuda_ok(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming), "event") &&
                 cuda_ok(cudaEventRecord(ev, work), "record") && cuda_ok(cudaStreamWaitEvent(hold, ev, 0), "wait") &&
                 cuda_ok(cudaEventDestroy(ev), "destroy event") && cuda_ok(occupy_sms(hold, blocks, ns), "occupy");
        }
        if (!ok) break;
        const hg_status s = tn_operands_gemm(h, &o, dC);
        CHECK(s == HG_STATUS_SUCCESS, "%s: launch %d: %s", what, r, hg_last_error(h));
        ok = s == HG_STATUS_SUCCESS && cuda_ok(cudaDeviceSynchronize(), what) &&
             cuda_ok(cudaMemcpy(r ? again : first, dC, c_bytes, cudaMemcpyDeviceToHost), "copy C back");
        if (ok && r == 0) {
            const hg__problem p = tn_operands_problem(&o);
            ok = hg_check_output(&p, o.hA, o.hB, NULL, first, what);
        } else if (ok && memcmp(again, first, c_bytes) != 0) {
            if (first_differ < 0) first_differ = r;
            differ++;
        }
    }
    if (ok) CHECK(differ == 0, "%s: %d of %d staggered launches differ from the first (first: %d)", what, differ,
                  STAGGER_REPS, first_differ);
    tn_operands_free(&o);
    cudaFree(dC);
    free(first), free(again);
    hg_destroy(h);
    return 1;
}

void test_stagger(void)
{
    /* --quick is the sanitizers' run (tools/sanitize.sh), where these long
     * products take minutes each and the timing this part perturbs is the
     * sanitizer's own. */
    if (hg_gpu_quick) SKIP("--quick: long products, timed perturbation; run without --quick");
    int dev = 0, sms = 0;
    if (!cuda_ok(cudaGetDevice(&dev), "cudaGetDevice") ||
        !cuda_ok(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), "SM count"))
        return;
    if (sms < 2) SKIP("one SM: nothing to stagger");
    cudaStream_t work = NULL, hold = NULL;
    if (!cuda_ok(cudaStreamCreateWithFlags(&work, cudaStreamNonBlocking), "stream") ||
        !cuda_ok(cudaStreamCreateWithFlags(&hold, cudaStreamNonBlocking), "stream"))
        return;
    int ran = 0;
    for (size_t i = 0; i < sizeof stagger_cases / sizeof stagger_cases[0]; i++)
        ran += stagger_one(&stagger_cases[i], work, hold, sms);
    cudaStreamDestroy(work), cudaStreamDestroy(hold);
    if (!ran) SKIP("no case selected by --kernel, or its row is not registered");
}
