#include "bench.h"

/* ---- main ------------------------------------------------------------------ */

static void no_gpu(const char *why)
{
    fprintf(stderr, TOOL ": no CUDA GPU is available (%s); nothing to measure.\n", why);
}

static int exit_status(const options *o, const result *res)
{
    for (int i = 0; i < o->nsel; i++)
        if (res[i].status == ST_FAIL || res[i].status == ST_ERROR) return BENCH_EXIT_FAIL;
    return BENCH_EXIT_OK;
}

/* A child: measure here, print machine-readable rows (none for ncu's). */
static int run_child(const options *o)
{
    result res[MAX_SEL];
    char err[ERR_LEN] = "";
    bool hung = false;
    int rc = measure_here(o, res, &hung, err, sizeof err);
    if (rc) fprintf(stderr, TOOL ": %s\n", err);
    if (rc == 0 && o->mode == MODE_CHILD)
        for (int i = 0; i < o->nsel; i++) print_child_row(&res[i]);
    if (rc == 0) rc = exit_status(o, res);
    fflush(NULL);
    if (hung) _exit(rc ? rc : BENCH_EXIT_FAIL);
    return rc;
}

static int run_main(const options *o)
{
    result res[MAX_SEL];
    gpu_info gpu;
    char err[ERR_LEN] = "", exe[4096] = "", ncu[4096] = "";
    int rc = query_gpu(&gpu, err, sizeof err);
    if (rc == BENCH_EXIT_NO_GPU) {
        no_gpu(err);
        return rc;
    }
    if (rc) {
        fprintf(stderr, TOOL ": %s\n", err);
        return rc;
    }
    if ((o->fresh || o->ncu) && !self_path(exe, sizeof exe)) {
        fprintf(stderr, TOOL ": cannot find my own executable (/proc/self/exe)\n");
        return BENCH_EXIT_FAIL;
    }
    if (o->ncu && !find_ncu(ncu, sizeof ncu)) {
        fprintf(stderr, TOOL ": --ncu: Nsight Compute (ncu) is not on PATH, in /usr/local/cuda/bin or under "
                        "/opt/nvidia/nsight-compute; nothing profiled.\n");
        return BENCH_EXIT_FAIL;
    }
    report rep;
    memset(&rep, 0, sizeof rep);
    rep.o = o;
    rep.gpu = &gpu;
    rep.copies = copies_for(set_bytes_of(o), gpu.l2_bytes);
    rep.best_ms = NAN;
    time_t now = time(NULL);
    struct tm tmv;
    gmtime_r(&now, &tmv);
    strftime(rep.date, sizeof rep.date, "%Y-%m-%dT%H:%M:%SZ", &tmv);
    if (o->csv && !csv_compatible(&rep, o->csv)) return BENCH_EXIT_FAIL;
    print_header(&rep);
    fflush(stdout);
    bool hung = false;
    rc = o->fresh ? measure_fresh(o, exe, res, err, sizeof err) : measure_here(o, res, &hung, err, sizeof err);
    if (rc == BENCH_EXIT_NO_GPU) {
        no_gpu(err);
        return rc;
    }
    if (rc) {
        fprintf(stderr, TOOL ": %s\n", err);
        fflush(NULL);
        if (hung) _exit(rc);
        return rc;
    }
    /* A hung kernel still holds the GPU: profiling now would measure nothing. */
    int ncu_rc = o->ncu && !hung ? profile_ncu(o, exe, ncu, res) : 0;
    for (int i = 0; i < o->nsel; i++)
        if (o->sels[i].kind == SEL_CUBLAS_BEST && res[i].timed) rep.best_ms = res[i].ms;
    bool files_ok = (!o->csv || write_csv(&rep, res, o->csv)) && (!o->json || write_json(&rep, res, o->json));
    if (o->ncu) print_ncu_kernels(o, res);
    printf("\n");
    print_table(&rep, res);
    rc = exit_status(o, res);
    rc = rc ? rc : ncu_rc ? ncu_rc : files_ok ? BENCH_EXIT_OK : BENCH_EXIT_FAIL;
    if (hung) {
        fprintf(stderr, TOOL ": a kernel hung; leaving without waiting for it\n");
        fflush(NULL);
        _exit(rc ? rc : BENCH_EXIT_FAIL);
    }
    return rc;
}

int main(int argc, char **argv)
{
    options o;
    int rc = parse_args(argc, argv, &o);
    if (rc) return rc;
    if (o.help) {
        usage(stdout);
        return BENCH_EXIT_OK;
    }
    if (o.list) return list_kernels();
    /* Before --plan too: a script's --kernel names are checked where no GPU
     * is (tools/bench-issues.sh under PLAN_ONLY=1), though --plan lists every
     * kernel whatever the selection. */
    if ((rc = build_selection(&o)) != 0) return rc;
    if (o.plan) return o.shapes ? run_sweep(&o, plan_kernels) : plan_kernels(&o);
    if (!o.seed_set) {
        /* Fresh inputs every run; the seed is printed so a run can be redone. */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t s = (uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
        o.seed = hg__rng_next(&s) >> 1;
    }
    if (o.mode != MODE_MAIN) return run_child(&o);
    return o.shapes ? run_sweep(&o, run_main) : run_main(&o);
}
