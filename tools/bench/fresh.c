#include "bench.h"

/* ---- Child processes (--fresh, --ncu) ------------------------------------ */


void arg_add(arglist *a, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

void arg_add(arglist *a, const char *fmt, ...)
{
    if (a->n >= 63) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->store[a->n], sizeof a->store[a->n], fmt, ap);
    va_end(ap);
    a->v[a->n] = a->store[a->n];
    a->v[++a->n] = NULL;
}

/* The measuring options, for a child to measure the same thing. */
void add_problem_args(arglist *a, const options *o, const char *kernels, bool for_ncu, int proc)
{
    arg_add(a, "--kernel=%s", kernels);
    arg_add(a, "-m");
    arg_add(a, "%lld", (long long)o->m);
    arg_add(a, "-n");
    arg_add(a, "%lld", (long long)o->n);
    arg_add(a, "-k");
    arg_add(a, "%lld", (long long)o->k);
    arg_add(a, "--layout=%s", o->layout);
    if (o->lda) arg_add(a, "--lda=%lld", (long long)o->lda);
    if (o->ldb) arg_add(a, "--ldb=%lld", (long long)o->ldb);
    if (o->ldc) arg_add(a, "--ldc=%lld", (long long)o->ldc);
    arg_add(a, "--dtype=%s", dtype_name(o->dtype));
    arg_add(a, "--alpha=%.9g", (double)o->alpha);
    arg_add(a, "--beta=%.9g", (double)o->beta);
    if (o->batch > 1) arg_add(a, "--batch=%lld", (long long)o->batch);
    if (o->share) arg_add(a, "--share=%s", share_name(o->share));
    if (o->stride_a) arg_add(a, "--stride-a=%lld", (long long)o->stride_a);
    if (o->stride_b) arg_add(a, "--stride-b=%lld", (long long)o->stride_b);
    if (o->compute == HG_COMPUTE_16F) arg_add(a, "--compute=16f");
    if (o->c_type != HG_C_AS_INPUTS) arg_add(a, "--c-type=%s", c_type_name(o->c_type));
    if (o->bias) arg_add(a, "--bias");
    if (o->act != HG_ACT_NONE) arg_add(a, "--act=%s", o->act == HG_ACT_RELU ? "relu" : "gelu");
    if (o->slices != HG__SLICES_BY_MODEL)
        arg_add(a, "--slices=%s", o->slices == HG__SLICES_NEVER ? "off" : "force");
    if (!o->stream_k) arg_add(a, "--stream-k=off");
    if (o->walk != HG__WALK_BY_RULE) arg_add(a, "--walk=%s", walk_name(o->walk));
    /* An ncu child profiles one launch after one warm-up; cooling down is moot
     * with the profiler's replays around it. */
    arg_add(a, "--repeat=%d", for_ncu ? 1 : o->repeat);
    arg_add(a, "--warmup=%d", for_ncu ? 1 : o->warmup);
    arg_add(a, "--cooldown=%.9g", for_ncu ? 0.0 : o->cooldown);
    arg_add(a, "--timeout=%.9g", o->timeout);
    if (o->sustain > 0.0 && !for_ncu) arg_add(a, "--sustain=%.9g", o->sustain);
    if (o->copy_bw && !for_ncu) arg_add(a, "--copy-bw");
    /* Each process draws its own inputs; with --seed, reproducibly so. */
    arg_add(a, "--seed=%llu", (unsigned long long)(o->seed + 1000003ull * (uint64_t)proc));
    if (o->check_full && !for_ncu) arg_add(a, "--check");
}

/* fork + exec; the child's stdout goes to *fd_out (a pipe), or to /dev/null
 * when fd_out is NULL; its stderr stays ours, so its progress shows. */
pid_t spawn(char *const argv[], int *fd_out)
{
    int fds[2] = {-1, -1};
    if (fd_out && pipe(fds) != 0) return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        if (fd_out) {
            close(fds[0]);
            close(fds[1]);
        }
        return -1;
    }
    if (pid == 0) {
        int out = fd_out ? fds[1] : open("/dev/null", O_WRONLY);
        if (out >= 0) dup2(out, STDOUT_FILENO);
        if (fd_out) close(fds[0]);
        if (out > STDOUT_FILENO) close(out);
        execv(argv[0], argv);
        fprintf(stderr, TOOL ": cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    if (fd_out) {
        close(fds[1]);
        *fd_out = fds[0];
    }
    return pid;
}

int wait_child(pid_t pid)
{
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

static void sanitize(char *s)
{
    for (; *s; s++)
        if (*s == '\t' || *s == '\n' || *s == '\r') *s = ' ';
}

/* A child's line for one result: tab-separated, fixed order, parsed back by
 * parse_child_row: the tag, "row", then 22 fields, the note last. */
#define CHILD_ROW_FIELDS 24
void print_child_row(const result *r)
{
    char note[NOTE_LEN];
    copy_str(note, sizeof note, r->note);
    sanitize(note);
    printf(CHILD_TAG
           "\trow\t%s\t%d\t%d\t%.9g\t%.9g\t%.9g\t%d\t%lld\t%.9g\t%.9g\t%.9g\t%lld\t%d\t%lld\t%.9g"
           "\t%.9g\t%.9g\t%.9g\t%.9g\t%.9g\t%.9g\t%s\n",
           r->name, (int)r->status, (int)r->timed, r->ms, r->ms_lo, r->ms_hi, (int)r->checked, (long long)r->samples,
           r->max_err, r->mean_err, r->rel_fro, (long long)r->bad, (int)r->vs_done, (long long)r->vs_bad, r->vs_max,
           r->host_us, r->sustained_ms, r->sustained_j, r->sustained_mhz, r->copy_tbps, r->copy_same_tbps,
           note[0] ? note : "-");
}

static bool parse_child_row(char *line, result *r)
{
    char *f[CHILD_ROW_FIELDS + 1];
    int nf = 0;
    char *save = NULL;
    for (char *t = strtok_r(line, "\t\n", &save); t && nf <= CHILD_ROW_FIELDS; t = strtok_r(NULL, "\t\n", &save))
        f[nf++] = t;
    if (nf != CHILD_ROW_FIELDS || strcmp(f[0], CHILD_TAG) != 0 || strcmp(f[1], "row") != 0) return false;
    result_init(r, f[2]);
    r->status = (rstatus)atoi(f[3]);
    r->timed = atoi(f[4]) != 0;
    r->ms = strtod(f[5], NULL);
    r->ms_lo = strtod(f[6], NULL);
    r->ms_hi = strtod(f[7], NULL);
    r->checked = atoi(f[8]) != 0;
    r->samples = strtoll(f[9], NULL, 10);
    r->max_err = strtod(f[10], NULL);
    r->mean_err = strtod(f[11], NULL);
    r->rel_fro = strtod(f[12], NULL);
    r->bad = strtoll(f[13], NULL, 10);
    r->vs_done = atoi(f[14]) != 0;
    r->vs_bad = strtoll(f[15], NULL, 10);
    r->vs_max = strtod(f[16], NULL);
    r->host_us = strtod(f[17], NULL);
    r->sustained_ms = strtod(f[18], NULL);
    r->sustained_j = strtod(f[19], NULL);
    r->sustained_mhz = strtod(f[20], NULL);
    r->copy_tbps = strtod(f[21], NULL);
    r->copy_same_tbps = strtod(f[22], NULL);
    copy_str(r->note, sizeof r->note, strcmp(f[23], "-") ? f[23] : "");
    return r->status >= ST_OK && r->status <= ST_ERROR;
}

/* The median over the processes of one double field of their results (at
 * `offset` in a result), those that measured it (not NaN); NaN if none. */
static double median_of_field(const result *per, int nproc, size_t offset)
{
    double *v = malloc((size_t)nproc * sizeof *v);
    if (!v) return NAN;
    int n = 0;
    for (int p = 0; p < nproc; p++) {
        const double x = *(const double *)((const char *)&per[p] + offset);
        if (!isnan(x)) v[n++] = x;
    }
    const double m = n ? median(v, n) : NAN;
    free(v);
    return m;
}

/* Per kernel over the processes: the median of their medians (and the
 * lowest and highest), the worst check, the first note. */
static void aggregate(result *per, int nproc, result *out)
{
    double *ms = malloc((size_t)nproc * sizeof *ms);
    int nms = 0, nchk = 0;
    double sum_mean = 0.0;
    bool any_ok = false, any_fail = false, any_err = false;
    result_init(out, per[0].name);
    for (int p = 0; p < nproc; p++) {
        const result *r = &per[p];
        any_ok |= r->status == ST_OK;
        any_fail |= r->status == ST_FAIL;
        any_err |= r->status == ST_ERROR;
        if (r->timed && ms) ms[nms++] = r->ms;
        if (out->note[0] == '\0' && r->note[0]) copy_str(out->note, sizeof out->note, r->note);
        if (r->checked) {
            out->checked = true;
            out->samples = r->samples > out->samples ? r->samples : out->samples;
            out->max_err = nchk == 0 || r->max_err > out->max_err ? r->max_err : out->max_err;
            out->rel_fro = nchk == 0 || r->rel_fro > out->rel_fro ? r->rel_fro : out->rel_fro;
            sum_mean += r->mean_err;
            out->bad += r->bad;
            nchk++;
        }
        if (r->vs_done) {
            out->vs_max = !out->vs_done || r->vs_max > out->vs_max ? r->vs_max : out->vs_max;
            out->vs_done = true;
            out->vs_bad += r->vs_bad;
        }
    }
    if (nchk) out->mean_err = sum_mean / nchk;
    if (nms) {
        out->timed = true;
        out->nproc = nms;
        out->ms = median(ms, nms);
        out->ms_lo = ms[0];
        out->ms_hi = ms[nms - 1];
    }
    out->host_us = median_of_field(per, nproc, offsetof(result, host_us));
    out->sustained_ms = median_of_field(per, nproc, offsetof(result, sustained_ms));
    out->sustained_j = median_of_field(per, nproc, offsetof(result, sustained_j));
    out->sustained_mhz = median_of_field(per, nproc, offsetof(result, sustained_mhz));
    out->copy_tbps = median_of_field(per, nproc, offsetof(result, copy_tbps));
    out->copy_same_tbps = median_of_field(per, nproc, offsetof(result, copy_same_tbps));
    out->status = any_err ? ST_ERROR : any_fail ? ST_FAIL : any_ok ? ST_OK : ST_NA;
    free(ms);
}

bool self_path(char *out, size_t n)
{
    ssize_t len = readlink("/proc/self/exe", out, n - 1);
    if (len <= 0) return false;
    out[len] = '\0';
    return true;
}

/* --fresh N: N processes, one after the other, each measuring everything. */
int measure_fresh(const options *o, const char *exe, result *res, char *err, size_t errlen)
{
    result *per = calloc((size_t)o->nsel * (size_t)o->fresh, sizeof *per);
    if (per == NULL) {
        snprintf(err, errlen, "out of host memory");
        return BENCH_EXIT_FAIL;
    }
    for (int i = 0; i < o->nsel * o->fresh; i++) {
        result_init(&per[i], o->sels[i / o->fresh].name);
        per[i].status = ST_ERROR;
        snprintf(per[i].note, sizeof per[i].note, "process %d gave no result", i % o->fresh + 1);
    }
    int rc = 0;
    for (int p = 0; p < o->fresh && rc == 0; p++) {
        arglist a;
        a.n = 0;
        arg_add(&a, "%s", exe);
        arg_add(&a, FLAG_CHILD);
        add_problem_args(&a, o, o->kernel_arg, false, p + 1);
        fprintf(stderr, TOOL ": fresh process %d of %d\n", p + 1, o->fresh);
        int fd = -1;
        pid_t pid = spawn(a.v, &fd);
        if (pid < 0) {
            snprintf(err, errlen, "cannot start a process: %s", strerror(errno));
            rc = BENCH_EXIT_FAIL;
            break;
        }
        FILE *f = fdopen(fd, "r");
        char *line = NULL;
        size_t cap = 0;
        while (f && getline(&line, &cap, f) > 0) {
            result r;
            if (strncmp(line, CHILD_TAG "\t", strlen(CHILD_TAG) + 1) != 0) {
                fputs(line, stderr); /* not ours: pass it on */
                continue;
            }
            if (!parse_child_row(line, &r)) continue;
            for (int i = 0; i < o->nsel; i++)
                if (strcmp(o->sels[i].name, r.name) == 0) per[i * o->fresh + p] = r;
        }
        free(line);
        if (f) fclose(f);
        else close(fd);
        int code = wait_child(pid);
        if (code == BENCH_EXIT_NO_GPU) {
            snprintf(err, errlen, "process %d found no CUDA GPU", p + 1);
            rc = BENCH_EXIT_NO_GPU;
        } else if (code != 0 && code != BENCH_EXIT_FAIL) {
            fprintf(stderr, TOOL ": fresh process %d ended with status %d\n", p + 1, code);
        }
    }
    for (int i = 0; i < o->nsel; i++) aggregate(&per[i * o->fresh], o->fresh, &res[i]);
    free(per);
    return rc;
}
