#include "bench.h"

/* ---- One kernel: prepare, cool down, time, check -------------------------- */

static void describe_algo(const cublasLtMatmulAlgo_t *a, char *out, size_t n)
{
    int32_t id = -1;
    uint32_t tile = 0, stages = 0;
    size_t got;
    (void)cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof id, &got);
    (void)cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile, &got);
    (void)cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages, sizeof stages, &got);
    snprintf(out, n, "algo %d, tile id %u, stages id %u", (int)id, (unsigned)tile, (unsigned)stages);
}

/* cuBLAS-best: cuBLASLt's top candidates for this problem, each timed
 * briefly; the fastest goes into b->best. */
static bool search_best(bench *b, result *r)
{
    cublasLtMatmulHeuristicResult_t cand[LT_CANDIDATES];
    const int found = lt_heuristic(b, cand, LT_CANDIDATES);
    if (found < 1) {
        r->status = ST_ERROR;
        copy_str(r->note, sizeof r->note, b->err);
        return false;
    }
    double times[CAND_REPEAT], best_ms = INFINITY;
    int best = -1;
    for (int i = 0; i < found; i++) {
        char desc[128], err[ERR_LEN] = "";
        describe_algo(&cand[i].algo, desc, sizeof desc);
        launcher l = {SEL_CUBLAS_BEST, &cand[i].algo, 0};
        if (cand[i].state != CUBLAS_STATUS_SUCCESS ||
            time_launches(b, &l, CAND_WARMUP, CAND_REPEAT, false, times, err, sizeof err) != L_OK) {
            fprintf(stderr, TOOL ": cublas-best: candidate %d (%s) failed: %s\n", i + 1, desc,
                    err[0] ? err : cublasGetStatusString(cand[i].state));
            note_health(b);
            if (b->dead) break;
            continue;
        }
        double ms = median(times, CAND_REPEAT);
        fprintf(stderr, TOOL ": cublas-best: candidate %d of %d (%s): %.4f ms\n", i + 1, found, desc, ms);
        if (ms < best_ms) {
            best_ms = ms;
            best = i;
        }
    }
    if (best < 0) {
        r->status = ST_ERROR;
        snprintf(r->note, sizeof r->note, "no cuBLASLt candidate ran");
        return false;
    }
    b->best = cand[best].algo;
    char desc[128];
    describe_algo(&b->best, desc, sizeof desc);
    snprintf(r->note, sizeof r->note, "candidate %d of %d (%s)", best + 1, found, desc);
    return true;
}

/* hopgemm: choose the kernel; hg_matmul_plan says, without running
 * anything, whether it can serve this call, epilogue included (and which
 * kernel AUTO would run). */
static bool prepare_hg(bench *b, const sel *s, result *r)
{
    const options *o = b->o;
    hg_status st = hg_set_kernel(b->h, s->id);
    hg_kernel chosen = s->id;
    const hg_matmul_desc d = call_desc(o, ptr_a(b, 0), b->lda, ptr_b(b, 0), b->ldb, ptr_c(b, 0), b->ldc, b->d_bias);
    if (st == HG_STATUS_SUCCESS) st = hg_matmul_plan(b->h, &d, &chosen);
    if (st == HG_STATUS_NOT_SUPPORTED || st == HG_STATUS_ARCH_MISMATCH) {
        r->status = ST_NA;
        copy_str(r->note, sizeof r->note, hg_last_error(b->h));
        return false;
    }
    if (st != HG_STATUS_SUCCESS) {
        r->status = ST_ERROR;
        snprintf(r->note, sizeof r->note, "%s: %s", hg_status_string(st), hg_last_error(b->h));
        return false;
    }
    int64_t slices = 0;
    (void)hg__matmul_plan_slices(b->h, &d, &slices);
    char in_slices[64] = "";
    if (slices > 0) snprintf(in_slices, sizeof in_slices, "in %lld k slices", (long long)slices);
    if (!b->o->stream_k)
        snprintf(in_slices + strlen(in_slices), sizeof in_slices - strlen(in_slices), "%swhole tiles",
                 slices > 0 ? ", " : "");
    if (b->o->walk != HG__WALK_BY_RULE)
        snprintf(in_slices + strlen(in_slices), sizeof in_slices - strlen(in_slices), "%s%s walk",
                 in_slices[0] ? ", " : "", walk_name(b->o->walk));
    if (s->id == HG_KERNEL_AUTO)
        snprintf(r->note, sizeof r->note, "auto runs %s%s%s", hg_kernel_name(chosen), in_slices[0] ? " " : "",
                 in_slices);
    else copy_str(r->note, sizeof r->note, in_slices);
    return true;
}


static void show_mismatch(check_acc *a, const char *name, int64_t i, int64_t j, double x, double want,
                          double bound, const char *against)
{
    if (a->shown++ >= SHOW_MISMATCHES) return;
    fprintf(stderr, TOOL ": %s: C[%lld,%lld] = %.6g, %s %.6g (|diff| %.3g, bound %.3g)\n", name, (long long)i,
            (long long)j, x, against, want, fabs(x - want), bound);
}

/* Sampled entries against the float64 reference; err = |x - ref| / (1 + |ref|).
 * Returns how many (not NaN) are out of bound. */
static int64_t check_samples(const bench *b, const char *name, result *r)
{
    check_acc a;
    memset(&a, 0, sizeof a);
    const hg__problem p = host_problem(b);
    for (int64_t s = 0; s < b->nsamp; s++) {
        int64_t i = b->si[s], j = b->sj[s];
        double x = hg__c_value(&p, b->hC, i * b->ldc + j), ref = b->sref[s];
        double d = fabs(x - ref), e = d / (1.0 + fabs(ref));
        double bound = b->sbound[s]; /* the tests' rule (hg__check_bound_act) */
        if (isnan(x) || !(d <= bound)) {
            a.bad += !isnan(x); /* check_nan counts the NaNs, sampled or not */
            show_mismatch(&a, name, i, j, x, ref, bound, "reference");
        }
        if (isnan(e)) e = INFINITY;
        a.max_err = e > a.max_err ? e : a.max_err;
        a.sum_err += e;
        a.sum_d2 += d * d;
        a.sum_r2 += ref * ref;
    }
    r->samples = b->nsamp;
    r->max_err = a.max_err;
    r->mean_err = b->nsamp ? a.sum_err / (double)b->nsamp : 0.0;
    r->rel_fro = a.sum_r2 > 0.0 ? sqrt(a.sum_d2 / a.sum_r2) : sqrt(a.sum_d2);
    return a.bad;
}

/* NaN by its bits: an exponent of all ones and a mantissa not zero. A test
 * per entry of C, which at a batch's 2^31 entries must not cost a call and a
 * division each (it took about 10 s a kernel there). */
static bool nan_bits(const hg__problem *p, const void *row, int64_t j)
{
    if (p->c_type == HG_C_F32) return isnan(((const float *)row)[j]);
    const uint16_t v = ((const uint16_t *)row)[j];
    const uint16_t exp = p->dtype == HG_BF16 ? 0x7F80u : 0x7C00u, man = p->dtype == HG_BF16 ? 0x007Fu : 0x03FFu;
    return (v & exp) == exp && (v & man) != 0;
}

/* Every entry: NaN means unwritten (C was poisoned) or broken. Returns the count. */
static int64_t check_nan(const bench *b, const char *name)
{
    int64_t nan_count = 0;
    const hg__problem p = host_problem(b);
    const size_t rows = b->nc / (size_t)b->ldc, row_bytes = (size_t)b->ldc * c_bytes(b->o);
    for (size_t i = 0; i < rows; i++) {
        const void *row = (const char *)b->hC + i * row_bytes;
        for (int64_t j = 0; j < b->o->n; j++) { /* past n: padding, never written */
            if (!nan_bits(&p, row, j)) continue;
            if (nan_count++ < SHOW_MISMATCHES)
                fprintf(stderr, TOOL ": %s: C[%lld,%lld] is NaN (unwritten?)\n", name, (long long)i, (long long)j);
        }
    }
    if (nan_count)
        fprintf(stderr, TOOL ": %s: %lld of %lld entries are NaN\n", name, (long long)nan_count,
                (long long)(b->o->m * b->o->n));
    return nan_count;
}

/* --check: every entry against cuBLAS's output, with twice the bound (both
 * are approximations of the same reference). */
static void check_vs_cublas(const bench *b, const char *name, result *r)
{
    check_acc a;
    memset(&a, 0, sizeof a);
    const hg__problem p = host_problem(b);
    const size_t rows = b->nc / (size_t)b->ldc;
    for (size_t i = 0; i < rows; i++) {
        for (int64_t j = 0; j < b->o->n; j++) { /* past n: padding */
            const int64_t e = (int64_t)i * b->ldc + j;
            double x = hg__c_value(&p, b->hC, e), y = hg__c_value(&p, b->hCref, e);
            double d = fabs(x - y), err = d / (1.0 + fabs(y));
            if (isnan(err)) err = INFINITY;
            a.max_err = err > a.max_err ? err : a.max_err;
            double bound = 2.0 * (b->atol + b->rtol * fabs(y));
            if (!(d <= bound)) {
                a.bad++;
                show_mismatch(&a, name, (int64_t)i, j, x, y, bound, "cuBLAS");
            }
        }
    }
    r->vs_done = true;
    r->vs_bad = a.bad;
    r->vs_max = a.max_err;
}

/* Poison C (or restore its known values), run once, read it back, compare. */
static void check_entry(bench *b, const sel *s, const launcher *l, result *r)
{
    const options *o = b->o;
    char err[ERR_LEN] = "";
    const size_t c_size = b->nc * c_bytes(o);
    /* On the measuring stream, so that the launch cannot overtake it; 0xFF
     * bytes are NaN in every C type. */
    lstatus st = o->beta == 0.0f ? cuda_status(cudaMemsetAsync(ptr_c(b, 0), 0xFF, c_size, b->stream),
                                               "cudaMemsetAsync(C)", err, sizeof err)
                                 : cuda_status(cudaMemcpyAsync(ptr_c(b, 0), b->hC0, c_size, cudaMemcpyHostToDevice,
                                                               b->stream),
                                               "cudaMemcpyAsync(C)", err, sizeof err);
    if (st == L_OK) st = launch_copy(b, l, 0, err, sizeof err);
    if (st == L_OK) st = wait_stream(b, "the check's launch", err, sizeof err);
    if (st == L_OK)
        st = cuda_status(cudaMemcpy(b->hC, ptr_c(b, 0), c_size, cudaMemcpyDeviceToHost), "cudaMemcpy(C back)", err,
                         sizeof err);
    if (st != L_OK) {
        r->status = ST_ERROR;
        snprintf(r->note, sizeof r->note, "check: %.240s", err);
        note_health(b);
        return;
    }
    r->checked = true;
    int64_t out_of_bound = check_samples(b, s->name, r), nans = check_nan(b, s->name);
    r->bad = out_of_bound + nans;
    if (o->check_full && s->kind != SEL_CUBLAS && b->hCref) check_vs_cublas(b, s->name, r);
    if (r->bad || r->vs_bad) {
        r->status = ST_FAIL;
        snprintf(r->note, sizeof r->note, "%lld of %lld samples out of bound, %lld NaN entries, %lld differ from cuBLAS",
                 (long long)out_of_bound, (long long)r->samples, (long long)nans, (long long)r->vs_bad);
    }
}

static void run_entry(bench *b, const sel *s, result *r)
{
    const options *o = b->o;
    result_init(r, s->name);
    if (b->dead) {
        r->status = ST_ERROR;
        snprintf(r->note, sizeof r->note, "skipped: an earlier failure broke the CUDA context");
        return;
    }
    launcher l = {s->kind, NULL, s->variant};
    const char *why = s->kind == SEL_HG ? NULL : cublas_refuses(o);
    if (why) {
        r->status = ST_NA;
        copy_str(r->note, sizeof r->note, why);
        fprintf(stderr, TOOL ": %s: %s: %s\n", s->name, status_name(r->status), r->note);
        return;
    }
    if (s->kind == SEL_HG && !prepare_hg(b, s, r)) {
        fprintf(stderr, TOOL ": %s: %s: %s\n", s->name, status_name(r->status), r->note);
        return;
    }
    if (s->kind == SEL_CUBLAS_BEST) {
        if (!search_best(b, r)) return;
        l.algo = &b->best;
    }
    fprintf(stderr, TOOL ": %s: cooldown %g s, %d warm-up, %d timed launches\n", s->name, o->cooldown, o->warmup,
            o->repeat);
    sleep_seconds(o->cooldown);
    double *times = malloc((size_t)o->repeat * sizeof *times);
    char err[ERR_LEN] = "";
    lstatus st = times ? time_launches(b, &l, o->warmup, o->repeat, o->mode == MODE_NCU_CHILD, times, err, sizeof err)
                       : L_ERR;
    if (times == NULL) snprintf(err, sizeof err, "out of host memory");
    if (st != L_OK) {
        r->status = st == L_NA ? ST_NA : ST_ERROR;
        copy_str(r->note, sizeof r->note, err);
        fprintf(stderr, TOOL ": %s: %s: %s\n", s->name, status_name(r->status), err);
        free(times);
        if (st == L_ERR) note_health(b);
        return;
    }
    r->timed = true;
    r->nproc = 1;
    r->ms = median(times, o->repeat); /* sorts times */
    r->ms_lo = times[0];
    r->ms_hi = times[o->repeat - 1];
    free(times);
    fprintf(stderr, TOOL ": %s: %.4f ms, %.1f TFLOPS\n", s->name, r->ms, tflops(o, r->ms));
    if (o->mode == MODE_NCU_CHILD) return;
    sustained sus = {NAN, NAN, NAN};
    if (time_host(b, &l, &r->host_us, err, sizeof err) != L_OK ||
        (o->sustain > 0.0 && time_sustained(b, &l, o->sustain, r->ms, &sus, err, sizeof err) != L_OK)) {
        r->status = ST_ERROR;
        copy_str(r->note, sizeof r->note, err);
        note_health(b);
        return;
    }
    r->sustained_ms = sus.ms, r->sustained_j = sus.joules, r->sustained_mhz = sus.mhz;
    check_entry(b, s, &l, r);
}

/* Everything in this process: returns 0, or an exit status with err set.
 * *hung: a kernel never finished; the caller reports, then must _exit
 * (freeing device memory, or the runtime's exit handlers, would wait on it). */
int measure_here(const options *o, result *res, bool *hung, char *err, size_t errlen)
{
    bench b;
    int rc = bench_init(&b, o);
    *hung = false;
    if (rc == 0 && o->check_full && o->mode != MODE_NCU_CHILD && !cublas_reference(&b))
        rc = BENCH_EXIT_FAIL;
    if (rc != 0) {
        copy_str(err, errlen, b.err);
        *hung = b.hung;
        if (!b.hung) bench_free(&b);
        return rc;
    }
    for (int i = 0; i < o->nsel; i++) run_entry(&b, &o->sels[i], &res[i]);
    if (o->copy_bw && o->mode != MODE_NCU_CHILD && !b.dead) {
        /* After the kernels, so that none of them waits on its buffers: the
         * board's rate (COPY_BW_BYTES at a time), then a copy that moves what
         * the product does (half of it read, half written). */
        const size_t sizes[2] = {COPY_BW_BYTES, (size_t)(bytes_moved(o) / 2.0)};
        for (int c = 0; c < 2 && !b.dead; c++) {
            double tbps;
            char cerr[ERR_LEN] = "";
            if (time_copy_bw(&b, sizes[c], &tbps, cerr, sizeof cerr) == L_OK) {
                fprintf(stderr, TOOL ": copy of %.1f MB: %.3f TB/s moved (device to device)\n", (double)sizes[c] / 1e6,
                        tbps);
                for (int i = 0; i < o->nsel; i++) *(c == 0 ? &res[i].copy_tbps : &res[i].copy_same_tbps) = tbps;
            } else {
                fprintf(stderr, TOOL ": copy of %.1f MB: not measured: %s\n", (double)sizes[c] / 1e6, cerr);
                note_health(&b);
            }
        }
    }
    *hung = b.hung;
    if (!b.hung) bench_free(&b);
    return 0;
}
