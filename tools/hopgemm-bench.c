/*
 * hopgemm-bench: times hopgemm's kernels against cuBLAS on one GEMM shape and
 * checks what each one computed. docs/benchmarking.md explains the method and
 * every option; the short version:
 *
 *   - A, B (and C when beta != 0) are uniform in [-1, 1], drawn fresh in every
 *     process by a host RNG and copied to the device. When A, B and C together
 *     are smaller than twice the L2, launches rotate among enough copies that
 *     the set exceeds twice the L2, so no launch finds its operands cached.
 *   - Per kernel, cuBLAS included: a cooldown sleep, warm-up launches, then
 *     --repeat launches each bracketed by its own pair of CUDA events. The
 *     figure is the median.
 *   - Baselines in the same process: cublasGemmEx (default algorithm) and
 *     "cublas-best", the fastest of cuBLASLt's top 8 heuristic candidates.
 *     Ratios are cublas-best ms / kernel ms (> 1: faster than cuBLAS-best).
 *   - After timing, C is poisoned with NaN and the kernel runs once more; the
 *     result is compared with a float64 CPU reference on sampled entries (and,
 *     with --check, elementwise with cuBLAS's output).
 *
 * --fresh N runs the measurement in N fresh processes (this binary again, with
 * a hidden flag that makes it print machine-readable lines) and reports, per
 * kernel, the median of the processes' medians. --ncu runs each kernel once
 * more under Nsight Compute for the tensor pipe's activity and the SM clock.
 *
 * stdout carries the header and the table; progress and details go to stderr.
 * Exit status: 0 all good; 1 a check failed, a kernel or a tool failed;
 * 2 no CUDA GPU; 64 bad command line.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>
#include <cublas_v2.h>
/* cublasLt.h declares cublasLtLoggerForceDisable() without a prototype. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <cublasLt.h>
#pragma GCC diagnostic pop

#include "hg_internal.h"
#include "hopgemm.h"

#define TOOL "hopgemm-bench"

enum { BENCH_EXIT_OK = 0, BENCH_EXIT_FAIL = 1, BENCH_EXIT_NO_GPU = 2, BENCH_EXIT_USAGE = 64 };

#define MAX_SEL 32
#define NAME_LEN 24
#define NOTE_LEN 256
#define ERR_LEN 512
#define LT_WORKSPACE ((size_t)64 << 20) /* cuBLAS-best's workspace: 64 MiB */
#define LT_CANDIDATES 8
#define CAND_WARMUP 2  /* a candidate's brief timing during cuBLAS-best's search */
#define CAND_REPEAT 10
#define SAMPLES_DEFAULT 1024
#define SAMPLES_CHECK 16384
#define MAX_FRESH 100
#define SHOW_MISMATCHES 5
#define CHILD_TAG "@hgb"

/* The hidden flags of the processes the tool starts itself. */
#define FLAG_CHILD "--hgb-child"
#define FLAG_NCU_CHILD "--hgb-ncu-child"

/* ncu's metrics: wgmma and mma.sync count on different tensor pipes. */
#define M_GMMA "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active"
#define M_HMMA "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"
#define M_CLOCK "sm__cycles_elapsed.avg.per_second"
#define M_TIME "gpu__time_duration.sum"

/* ---- Options ------------------------------------------------------------- */

typedef enum { SEL_HG, SEL_CUBLAS, SEL_CUBLAS_BEST } sel_kind;

/* One thing to measure: a hopgemm kernel (by id) or a cuBLAS baseline. */
typedef struct {
    char name[NAME_LEN];
    sel_kind kind;
    hg_kernel id;
    int variant; /* V6 with a mechanism taken away (hg__v6_launch_variant); 0: none */
} sel;

/* The V6 ablations (docs/v6.md): V6 with one mechanism taken away at a time. */
static const char *const v6_variants[] = {NULL, "v6-no-multicast", "v6-not-persistent", "v6-thread-epilogue",
                                          "v6-no-stream-k"};
#define V6_VARIANTS 5

typedef enum { MODE_MAIN, MODE_CHILD, MODE_NCU_CHILD } run_mode;

typedef struct {
    const char *kernel_arg; /* as given; children get it verbatim */
    sel sels[MAX_SEL];
    int nsel;
    int64_t m, n, k;
    const char *layout; /* "TN", "TT", "NN", "NT" */
    hg_op opA, opB;
    hg_dtype dtype;
    float alpha, beta;
    int repeat, warmup;
    double cooldown;
    double timeout; /* seconds one wait for the GPU may take; 0: forever */
    int fresh;
    bool check_full;
    const char *csv, *json;
    bool ncu, list, help;
    bool seed_set;
    uint64_t seed;
    run_mode mode;
} options;

/* Copies src into dst (n bytes), cut short when it does not fit: notes and
 * messages are for people, and a cut one still says what happened. */
static void copy_str(char *dst, size_t n, const char *src)
{
    size_t len = strlen(src);
    if (len >= n) len = n - 1;
    memcpy(dst, src, len);
    dst[len] = '\0';
}

static const char *dtype_name(hg_dtype d) { return d == HG_BF16 ? "bf16" : "f16"; }

static void usage(FILE *f)
{
    fprintf(f,
            "usage: " TOOL " [options]\n"
            "Times hopgemm's kernels and two cuBLAS baselines on one GEMM, row-major\n"
            "C[m,n] = alpha op(A) op(B) + beta C, and checks each result.\n"
            "\n"
            "  --kernel NAME[,NAME...]  what to measure: a kernel of --list, auto, cublas,\n"
            "                           cublas-best, or all (default: all). cublas and\n"
            "                           cublas-best are always measured too.\n"
            "  -m N  -n N  -k N         the shape (default 8192 each)\n"
            "  --layout TN|TT|NN|NT     TN: opA=N opB=T (default); TT: N,N; NN: T,T; NT: T,N\n"
            "  --dtype f16|bf16         element type of A, B, C (default f16)\n"
            "  --alpha X  --beta X      the scalars (default 1 and 0)\n"
            "  --repeat N               timed launches per kernel (default 30)\n"
            "  --warmup N               warm-up launches per kernel (default 5)\n"
            "  --cooldown S             seconds of idle before each kernel (default 3)\n"
            "  --timeout S              give up on a kernel that has not finished after S\n"
            "                           seconds, a hang (default 120; 0: wait forever)\n"
            "  --fresh N                run the measurement in N fresh processes and\n"
            "                           report the median of their medians\n"
            "  --check                  check harder: 16384 sampled entries against the\n"
            "                           float64 reference, and every entry against cuBLAS\n"
            "  --seed N                 seed of the input RNG (default: new every run)\n"
            "  --csv FILE               append result rows to FILE (header if new)\n"
            "  --json FILE              write the result rows to FILE as a JSON array\n"
            "  --ncu                    also profile one launch per kernel under Nsight\n"
            "                           Compute: tensor pipe active %%, SM clock\n"
            "  --list                   list the kernels and exit (needs no GPU)\n"
            "  --help                   this text\n"
            "\n"
            "Exit status: 0 all good; 1 a check or a kernel failed; 2 no CUDA GPU;\n"
            "64 bad command line. See docs/benchmarking.md.\n");
}

static int usage_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, TOOL ": ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (see --help)\n");
    va_end(ap);
    return BENCH_EXIT_USAGE;
}

static bool parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end != '\0' || v < lo || v > hi) return false;
    *out = (int64_t)v;
    return true;
}

static bool parse_f64(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end != '\0' || !(v >= lo && v <= hi)) return false;
    *out = v;
    return true;
}

/* Resolves one name of --kernel: cublas, cublas-best, or any name that
 * hg_kernel_name knows (registered or not: an unregistered one becomes "n/a"
 * with the library's reason instead of a command-line error). */
static bool resolve_name(const char *name, sel *out)
{
    memset(out, 0, sizeof *out);
    if (strcasecmp(name, "cublas") == 0) {
        snprintf(out->name, sizeof out->name, "cublas");
        out->kind = SEL_CUBLAS;
        return true;
    }
    if (strcasecmp(name, "cublas-best") == 0) {
        snprintf(out->name, sizeof out->name, "cublas-best");
        out->kind = SEL_CUBLAS_BEST;
        return true;
    }
    for (int v = 1; v < V6_VARIANTS; v++) {
        if (strcasecmp(name, v6_variants[v]) == 0) {
            copy_str(out->name, sizeof out->name, v6_variants[v]);
            out->kind = SEL_HG;
            out->id = HG_KERNEL_V6;
            out->variant = v;
            return true;
        }
    }
    for (int id = 0; id < 64; id++) {
        const char *kn = hg_kernel_name((hg_kernel)id);
        if (kn != NULL && strcasecmp(kn, name) == 0) {
            copy_str(out->name, sizeof out->name, kn);
            out->kind = SEL_HG;
            out->id = (hg_kernel)id;
            return true;
        }
    }
    return false;
}

static bool add_sel(options *o, const sel *s)
{
    for (int i = 0; i < o->nsel; i++)
        if (strcmp(o->sels[i].name, s->name) == 0) return true;
    if (o->nsel == MAX_SEL) return false;
    o->sels[o->nsel++] = *s;
    return true;
}

/* --kernel's list, "all" expanded to the registered kernels in the table's
 * order, then both baselines (the ratio needs cublas-best) except in an ncu
 * child, which profiles exactly the one it was given. */
static int build_selection(options *o)
{
    char buf[512];
    if (strlen(o->kernel_arg) >= sizeof buf) return usage_error("--kernel list too long: '%s'", o->kernel_arg);
    strcpy(buf, o->kernel_arg);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        sel s;
        if (strcasecmp(tok, "all") == 0) {
            for (int i = 0; i < hg_kernel_count(); i++) {
                memset(&s, 0, sizeof s);
                const char *kn = hg_kernel_info(i, &s.id, NULL);
                if (kn == NULL) continue;
                copy_str(s.name, sizeof s.name, kn);
                s.kind = SEL_HG;
                if (!add_sel(o, &s)) return usage_error("too many kernels in '%s'", o->kernel_arg);
            }
            continue;
        }
        if (!resolve_name(tok, &s)) return usage_error("unknown kernel '%s'; --list shows them", tok);
        if (!add_sel(o, &s)) return usage_error("too many kernels in '%s'", o->kernel_arg);
    }
    if (o->mode != MODE_NCU_CHILD) {
        sel s;
        if (!resolve_name("cublas", &s) || !add_sel(o, &s)) return usage_error("%s", "too many kernels");
        if (!resolve_name("cublas-best", &s) || !add_sel(o, &s)) return usage_error("%s", "too many kernels");
    }
    if (o->nsel == 0) return usage_error("--kernel '%s' names no kernel", o->kernel_arg);
    return 0;
}

static bool set_layout(options *o, const char *v)
{
    static const struct {
        const char *name;
        hg_op a, b;
    } layouts[] = {{"TN", HG_OP_N, HG_OP_T}, {"TT", HG_OP_N, HG_OP_N}, {"NN", HG_OP_T, HG_OP_T}, {"NT", HG_OP_T, HG_OP_N}};
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
        if (strcasecmp(v, layouts[i].name) == 0) {
            o->layout = layouts[i].name;
            o->opA = layouts[i].a;
            o->opB = layouts[i].b;
            return true;
        }
    }
    return false;
}

/* One option and its value ("--x v" or "--x=v"). */
static int parse_option(options *o, const char *name, const char *v)
{
    int64_t i64;
    double f;
    if (strcmp(name, "--kernel") == 0) {
        o->kernel_arg = v;
    } else if (strcmp(name, "-m") == 0 || strcmp(name, "-n") == 0 || strcmp(name, "-k") == 0) {
        if (!parse_i64(v, 1, INT32_MAX, &i64)) return usage_error("bad size '%s' (1 to 2^31 - 1)", v);
        *(name[1] == 'm' ? &o->m : name[1] == 'n' ? &o->n : &o->k) = i64;
    } else if (strcmp(name, "--layout") == 0) {
        if (!set_layout(o, v)) return usage_error("bad layout '%s' (TN, TT, NN or NT)", v);
    } else if (strcmp(name, "--dtype") == 0) {
        if (strcasecmp(v, "f16") == 0 || strcasecmp(v, "fp16") == 0) o->dtype = HG_F16;
        else if (strcasecmp(v, "bf16") == 0) o->dtype = HG_BF16;
        else return usage_error("bad dtype '%s' (f16 or bf16)", v);
    } else if (strcmp(name, "--alpha") == 0 || strcmp(name, "--beta") == 0) {
        if (!parse_f64(v, -1e30, 1e30, &f)) return usage_error("bad scalar '%s'", v);
        *(name[2] == 'a' ? &o->alpha : &o->beta) = (float)f;
    } else if (strcmp(name, "--repeat") == 0) {
        if (!parse_i64(v, 1, 100000, &i64)) return usage_error("bad --repeat '%s' (1 to 100000)", v);
        o->repeat = (int)i64;
    } else if (strcmp(name, "--warmup") == 0) {
        if (!parse_i64(v, 0, 100000, &i64)) return usage_error("bad --warmup '%s' (0 to 100000)", v);
        o->warmup = (int)i64;
    } else if (strcmp(name, "--cooldown") == 0) {
        if (!parse_f64(v, 0.0, 3600.0, &f)) return usage_error("bad --cooldown '%s' (0 to 3600 s)", v);
        o->cooldown = f;
    } else if (strcmp(name, "--timeout") == 0) {
        if (!parse_f64(v, 0.0, 1e6, &f)) return usage_error("bad --timeout '%s' (0 to 1e6 s)", v);
        o->timeout = f;
    } else if (strcmp(name, "--fresh") == 0) {
        if (!parse_i64(v, 0, MAX_FRESH, &i64)) return usage_error("bad --fresh '%s' (0 to 100)", v);
        o->fresh = (int)i64;
    } else if (strcmp(name, "--seed") == 0) {
        if (!parse_i64(v, 0, INT64_MAX, &i64)) return usage_error("bad --seed '%s'", v);
        o->seed = (uint64_t)i64;
        o->seed_set = true;
    } else if (strcmp(name, "--csv") == 0) {
        o->csv = v;
    } else if (strcmp(name, "--json") == 0) {
        o->json = v;
    } else {
        return usage_error("unknown option '%s'", name);
    }
    return 0;
}

static int parse_args(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->kernel_arg = "all";
    o->m = o->n = o->k = 8192;
    set_layout(o, "TN");
    o->dtype = HG_F16;
    o->alpha = 1.0f;
    o->beta = 0.0f;
    o->repeat = 30;
    o->warmup = 5;
    o->cooldown = 3.0;
    o->timeout = 120.0;
    o->mode = MODE_MAIN;
    static const char *const flags[] = {"--check", "--list", "--ncu", "--help", "-h", FLAG_CHILD, FLAG_NCU_CHILD};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool is_flag = false;
        for (size_t j = 0; j < sizeof flags / sizeof flags[0]; j++) is_flag |= strcmp(a, flags[j]) == 0;
        if (is_flag) {
            if (strcmp(a, "--check") == 0) o->check_full = true;
            else if (strcmp(a, "--list") == 0) o->list = true;
            else if (strcmp(a, "--ncu") == 0) o->ncu = true;
            else if (strcmp(a, FLAG_CHILD) == 0) o->mode = MODE_CHILD;
            else if (strcmp(a, FLAG_NCU_CHILD) == 0) o->mode = MODE_NCU_CHILD;
            else o->help = true;
            continue;
        }
        char name[32];
        const char *v;
        const char *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
        if (eq != NULL) {
            size_t len = (size_t)(eq - a);
            if (len >= sizeof name) return usage_error("unknown option '%s'", a);
            memcpy(name, a, len);
            name[len] = '\0';
            v = eq + 1;
        } else {
            if (a[0] != '-') return usage_error("unexpected argument '%s'", a);
            if (strlen(a) >= sizeof name) return usage_error("unknown option '%s'", a);
            strcpy(name, a);
            if (i + 1 >= argc) return usage_error("option '%s' needs a value", a);
            v = argv[++i];
        }
        int rc = parse_option(o, name, v);
        if (rc) return rc;
    }
    return 0;
}

/* ---- Small helpers ----------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n) (sorts v). */
static double median(double *v, int n)
{
    if (n <= 0) return NAN;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void sleep_seconds(double s)
{
    if (s <= 0.0) return;
    struct timespec ts;
    ts.tv_sec = (time_t)s;
    ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
    while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {
    }
}

static double tflops(const options *o, double ms)
{
    return 2.0 * (double)o->m * (double)o->n * (double)o->k / (ms * 1e9);
}

/* splitmix64: fast, and plenty for test data. */
static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [-1, 1): never zeros, which run faster and hide unwritten outputs. */
static void fill_uniform(uint16_t *h, size_t count, hg_dtype dt, uint64_t *state)
{
    for (size_t i = 0; i < count; i++) {
        float u = (float)(rng_next(state) >> 40) * (1.0f / 16777216.0f);
        h[i] = hg__from_f32(2.0f * u - 1.0f, dt);
    }
}

/* Copies of A, B, C needed so that one pass over them exceeds twice the L2. */
static int copies_for(size_t set_bytes, int l2_bytes)
{
    if (l2_bytes <= 0 || set_bytes == 0 || set_bytes >= 2 * (size_t)l2_bytes) return 1;
    return (int)(2 * (size_t)l2_bytes / set_bytes) + 1;
}

static size_t round_up(size_t x, size_t to) { return (x + to - 1) / to * to; }

/* Elements of A, B, C as the layout stores them (leading dimensions minimal). */
static void shape_sizes(const options *o, size_t *na, size_t *nb, size_t *nc, int64_t *lda, int64_t *ldb,
                        int64_t *ldc)
{
    *na = (size_t)o->m * (size_t)o->k;
    *nb = (size_t)o->k * (size_t)o->n;
    *nc = (size_t)o->m * (size_t)o->n;
    *lda = o->opA == HG_OP_N ? o->k : o->m;
    *ldb = o->opB == HG_OP_N ? o->n : o->k;
    *ldc = o->n;
}

static size_t set_bytes_of(const options *o)
{
    size_t na, nb, nc;
    int64_t lda, ldb, ldc;
    shape_sizes(o, &na, &nb, &nc, &lda, &ldb, &ldc);
    return 2 * (na + nb + nc);
}

/* The check's bound |x - ref| <= atol + rtol |ref|: rtol is one unit in the
 * last place of the output type (rounding the result costs half of that);
 * atol grows like sqrt(k), as the rounding error of a k-term sum does. */
static double check_rtol(hg_dtype dt) { return dt == HG_BF16 ? ldexp(1.0, -7) : ldexp(1.0, -10); }

static double check_atol(const options *o)
{
    return check_rtol(o->dtype) * (1.0 + fabs((double)o->alpha) * sqrt((double)o->k));
}

/* ---- Results ------------------------------------------------------------- */

typedef enum { ST_OK, ST_NA, ST_FAIL, ST_ERROR } rstatus;

static const char *status_name(rstatus s)
{
    switch (s) {
    case ST_OK: return "ok";
    case ST_NA: return "n/a";
    case ST_FAIL: return "FAIL";
    case ST_ERROR: return "error";
    }
    return "?";
}

typedef struct {
    char name[NAME_LEN];
    rstatus status;
    bool timed;          /* ms, ms_lo, ms_hi hold a measurement */
    double ms, ms_lo, ms_hi; /* median, and the lowest and highest of what it was taken over */
    int nproc;           /* processes that contributed (--fresh) */
    bool checked;
    int64_t samples;     /* entries compared with the float64 reference */
    double max_err, mean_err, rel_fro;
    int64_t bad;         /* sampled entries out of bound, plus NaN entries anywhere */
    bool vs_done;        /* elementwise comparison with cuBLAS (--check) */
    int64_t vs_bad;
    double vs_max;
    char note[NOTE_LEN];
    /* --ncu */
    bool ncu_done;
    double gmma_pct, hmma_pct, tensor_pct, clock_mhz, ncu_ms;
    int ncu_kernels;
    char ncu_kernel[160];
} result;

static void result_init(result *r, const char *name)
{
    memset(r, 0, sizeof *r);
    copy_str(r->name, sizeof r->name, name);
    r->ms = r->ms_lo = r->ms_hi = NAN;
    r->max_err = r->mean_err = r->rel_fro = r->vs_max = NAN;
    r->gmma_pct = r->hmma_pct = r->tensor_pct = r->clock_mhz = r->ncu_ms = NAN;
}

/* ---- The device side: buffers, handles, launches ------------------------- */

typedef struct {
    char name[256];
    int cc_major, cc_minor, sms, l2_bytes;
} gpu_info;

typedef struct {
    const options *o;
    gpu_info gpu;
    cudaStream_t stream;
    hg_handle h;
    hg__device dev; /* what the V6 ablations' direct launches need, read once */
    void *v6_ws;    /* their workspace (counters zeroed), as large as any call needs */
    cublasHandle_t cublas;
    cublasLtHandle_t lt;
    cublasLtMatmulDesc_t lt_desc;
    cublasLtMatrixLayout_t lt_a, lt_b, lt_c; /* cuBLASLt's A is our B, its B our A */
    void *lt_ws;
    cublasLtMatmulAlgo_t best;
    /* Copy c of A lives at slab_a + c * stride_a, and so on. */
    char *slab_a, *slab_b, *slab_c;
    size_t stride_a, stride_b, stride_c;
    int copies;
    size_t na, nb, nc;
    int64_t lda, ldb, ldc;
    cudaEvent_t *ev;
    int nev;
    uint16_t *hA, *hB, *hC, *hC0, *hCref; /* copy 0 as the device holds it; C scratch; C's
                                             start values (beta != 0); cuBLAS's output */
    int64_t nsamp;
    int64_t *si, *sj;
    double *sref;
    double rtol, atol;
    uint64_t seed;
    bool dead; /* a sticky CUDA error: nothing more can run in this process */
    bool hung; /* a kernel never finished: only _exit can end this process */
    char err[ERR_LEN];
} bench;

static bool cu(bench *b, cudaError_t e, const char *what)
{
    if (e == cudaSuccess) return true;
    snprintf(b->err, sizeof b->err, "%s failed: %s", what, cudaGetErrorString(e));
    return false;
}

static bool cb(bench *b, cublasStatus_t s, const char *what)
{
    if (s == CUBLAS_STATUS_SUCCESS) return true;
    snprintf(b->err, sizeof b->err, "%s failed: %s", what, cublasGetStatusString(s));
    return false;
}

static void *ptr_a(const bench *b, int c) { return b->slab_a + (size_t)c * b->stride_a; }
static void *ptr_b(const bench *b, int c) { return b->slab_b + (size_t)c * b->stride_b; }
static void *ptr_c(const bench *b, int c) { return b->slab_c + (size_t)c * b->stride_c; }

static cudaDataType_t cuda_type(hg_dtype d) { return d == HG_BF16 ? CUDA_R_16BF : CUDA_R_16F; }
static cublasOperation_t cublas_op(hg_op op) { return op == HG_OP_N ? CUBLAS_OP_N : CUBLAS_OP_T; }

static int query_gpu(gpu_info *g, char *err, size_t errlen)
{
    memset(g, 0, sizeof *g);
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        copy_str(err, errlen, e != cudaSuccess ? cudaGetErrorString(e) : "the driver reports 0 devices");
        (void)cudaGetLastError();
        return BENCH_EXIT_NO_GPU;
    }
    int dev = 0;
    struct cudaDeviceProp p;
    if ((e = cudaGetDevice(&dev)) != cudaSuccess || (e = cudaGetDeviceProperties(&p, dev)) != cudaSuccess ||
        (e = cudaDeviceGetAttribute(&g->l2_bytes, cudaDevAttrL2CacheSize, dev)) != cudaSuccess) {
        snprintf(err, errlen, "reading the device's properties failed: %s", cudaGetErrorString(e));
        return BENCH_EXIT_FAIL;
    }
    copy_str(g->name, sizeof g->name, p.name);
    g->cc_major = p.major;
    g->cc_minor = p.minor;
    g->sms = p.multiProcessorCount;
    return 0;
}

static void bench_free(bench *b)
{
    if (b->ev)
        for (int i = 0; i < b->nev; i++)
            if (b->ev[i]) (void)cudaEventDestroy(b->ev[i]);
    free(b->ev);
    if (b->lt_a) (void)cublasLtMatrixLayoutDestroy(b->lt_a);
    if (b->lt_b) (void)cublasLtMatrixLayoutDestroy(b->lt_b);
    if (b->lt_c) (void)cublasLtMatrixLayoutDestroy(b->lt_c);
    if (b->lt_desc) (void)cublasLtMatmulDescDestroy(b->lt_desc);
    if (b->lt) (void)cublasLtDestroy(b->lt);
    if (b->cublas) (void)cublasDestroy(b->cublas);
    hg_destroy(b->h);
    (void)cudaFree(b->v6_ws);
    (void)cudaFree(b->lt_ws);
    (void)cudaFree(b->slab_a);
    (void)cudaFree(b->slab_b);
    (void)cudaFree(b->slab_c);
    if (b->stream) (void)cudaStreamDestroy(b->stream);
    free(b->hA);
    free(b->hB);
    free(b->hC);
    free(b->hC0);
    free(b->hCref);
    free(b->si);
    free(b->sj);
    free(b->sref);
    memset(b, 0, sizeof *b);
}

static bool host_alloc(bench *b, uint16_t **p, size_t elems)
{
    *p = malloc(elems * sizeof **p);
    if (*p == NULL) snprintf(b->err, sizeof b->err, "out of host memory (%zu bytes)", elems * sizeof **p);
    return *p != NULL;
}

/* cuBLASLt's descriptors for the row-major problem, seen column-major:
 * C^T[n,m] = op(B)^T op(A)^T, so Lt's A is our B (op from opB), Lt's B is
 * our A (op from opA), and each stored matrix is described as a column-major
 * matrix of its row length (rows) by its row count (cols). */
static bool lt_setup(bench *b)
{
    const options *o = b->o;
    cublasOperation_t ta = cublas_op(o->opB), tb = cublas_op(o->opA);
    cudaDataType_t dt = cuda_type(o->dtype);
    if (!cb(b, cublasLtCreate(&b->lt), "cublasLtCreate") ||
        !cb(b, cublasLtMatmulDescCreate(&b->lt_desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate") ||
        !cb(b, cublasLtMatmulDescSetAttribute(b->lt_desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta),
            "setting TRANSA") ||
        !cb(b, cublasLtMatmulDescSetAttribute(b->lt_desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb),
            "setting TRANSB"))
        return false;
    uint64_t a_rows = (uint64_t)(ta == CUBLAS_OP_N ? o->n : o->k), a_cols = (uint64_t)(ta == CUBLAS_OP_N ? o->k : o->n);
    uint64_t b_rows = (uint64_t)(tb == CUBLAS_OP_N ? o->k : o->m), b_cols = (uint64_t)(tb == CUBLAS_OP_N ? o->m : o->k);
    return cb(b, cublasLtMatrixLayoutCreate(&b->lt_a, dt, a_rows, a_cols, b->ldb), "cublasLtMatrixLayoutCreate(B)") &&
           cb(b, cublasLtMatrixLayoutCreate(&b->lt_b, dt, b_rows, b_cols, b->lda), "cublasLtMatrixLayoutCreate(A)") &&
           cb(b, cublasLtMatrixLayoutCreate(&b->lt_c, dt, (uint64_t)o->n, (uint64_t)o->m, b->ldc),
              "cublasLtMatrixLayoutCreate(C)") &&
           cu(b, cudaMalloc(&b->lt_ws, LT_WORKSPACE), "cudaMalloc(cuBLASLt workspace)");
}

/* Fills every copy with fresh values; copy 0 last, so that the host buffers
 * end up holding it. C is poisoned (NaN bits 0xFFFF) when beta = 0, since no
 * kernel may read it; with beta != 0 it holds known values instead. */
static bool fill_inputs(bench *b)
{
    const options *o = b->o;
    uint64_t st = b->seed;
    for (int c = b->copies - 1; c >= 0; c--) {
        fill_uniform(b->hA, b->na, o->dtype, &st);
        fill_uniform(b->hB, b->nb, o->dtype, &st);
        if (!cu(b, cudaMemcpy(ptr_a(b, c), b->hA, b->na * 2, cudaMemcpyHostToDevice), "cudaMemcpy(A)") ||
            !cu(b, cudaMemcpy(ptr_b(b, c), b->hB, b->nb * 2, cudaMemcpyHostToDevice), "cudaMemcpy(B)"))
            return false;
        if (o->beta != 0.0f) {
            fill_uniform(b->hC0, b->nc, o->dtype, &st);
            if (!cu(b, cudaMemcpy(ptr_c(b, c), b->hC0, b->nc * 2, cudaMemcpyHostToDevice), "cudaMemcpy(C)"))
                return false;
        }
    }
    if (o->beta == 0.0f &&
        !cu(b, cudaMemset(b->slab_c, 0xFF, b->stride_c * (size_t)b->copies), "cudaMemset(C, NaN)"))
        return false;
    /* The check trusts what the device holds, so read copy 0 back. These
     * copies ran on the legacy stream, which does not order with the
     * (non-blocking) measuring stream: finish them all before any launch. */
    return cu(b, cudaMemcpy(b->hA, ptr_a(b, 0), b->na * 2, cudaMemcpyDeviceToHost), "cudaMemcpy(A back)") &&
           cu(b, cudaMemcpy(b->hB, ptr_b(b, 0), b->nb * 2, cudaMemcpyDeviceToHost), "cudaMemcpy(B back)") &&
           cu(b, cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

static hg__problem host_problem(const bench *b)
{
    const options *o = b->o;
    hg__problem p;
    memset(&p, 0, sizeof p);
    p.opA = o->opA;
    p.opB = o->opB;
    p.m = o->m;
    p.n = o->n;
    p.k = o->k;
    p.alpha = o->alpha;
    p.beta = o->beta;
    p.lda = b->lda;
    p.ldb = b->ldb;
    p.ldc = b->ldc;
    p.dtype = o->dtype;
    return p;
}

/* The entries the check compares with the float64 reference: all of them
 * when C is small, else the four corners (edge tiles) and random others. The
 * reference is computed once here and serves every kernel of the process. */
static bool choose_samples(bench *b)
{
    const options *o = b->o;
    int64_t want = o->check_full ? SAMPLES_CHECK : SAMPLES_DEFAULT;
    int64_t total = o->m * o->n;
    b->nsamp = total <= want ? total : want;
    b->si = malloc((size_t)b->nsamp * sizeof *b->si);
    b->sj = malloc((size_t)b->nsamp * sizeof *b->sj);
    b->sref = malloc((size_t)b->nsamp * sizeof *b->sref);
    if (!b->si || !b->sj || !b->sref) {
        snprintf(b->err, sizeof b->err, "out of host memory for the check's samples");
        return false;
    }
    uint64_t st = b->seed ^ 0x5DEECE66Dull;
    for (int64_t s = 0; s < b->nsamp; s++) {
        if (total <= want) {
            b->si[s] = s / o->n;
            b->sj[s] = s % o->n;
        } else if (s < 4) {
            b->si[s] = (s & 1) ? o->m - 1 : 0;
            b->sj[s] = (s & 2) ? o->n - 1 : 0;
        } else {
            b->si[s] = (int64_t)(rng_next(&st) % (uint64_t)o->m);
            b->sj[s] = (int64_t)(rng_next(&st) % (uint64_t)o->n);
        }
    }
    fprintf(stderr, TOOL ": computing the float64 reference of %lld entries\n", (long long)b->nsamp);
    hg__problem p = host_problem(b);
    for (int64_t s = 0; s < b->nsamp; s++) b->sref[s] = hg__ref_element(&p, b->hA, b->hB, b->hC0, b->si[s], b->sj[s]);
    return true;
}

typedef enum { L_OK, L_NA, L_ERR } lstatus;

/* What to launch: a hopgemm kernel (the handle's choice), cublasGemmEx, or
 * cublasLtMatmul with a given algorithm. */
typedef struct {
    sel_kind kind;
    const cublasLtMatmulAlgo_t *algo;
    int variant; /* SEL_HG: a V6 ablation, launched directly (no dispatch) */
} launcher;

/* A V6 ablation: the library's internal entry, on the handle's stream. */
static lstatus launch_v6_variant(bench *b, int variant, const void *A, const void *B, void *C, char *err, size_t n)
{
    hg__problem p = host_problem(b);
    p.A = A;
    p.B = B;
    p.C = C;
    hg__err e;
    e.msg[0] = '\0';
    hg_status s = hg__v6_launch_variant(&p, &b->dev, (struct CUstream_st *)b->stream, &e, variant);
    if (s == HG_STATUS_SUCCESS) return L_OK;
    copy_str(err, n, e.msg);
    return s == HG_STATUS_NOT_SUPPORTED ? L_NA : L_ERR;
}

static lstatus launch_on(bench *b, const launcher *l, const void *A, const void *B, void *C, char *err, size_t n)
{
    const options *o = b->o;
    float alpha = o->alpha, beta = o->beta;
    if (l->kind == SEL_HG && l->variant > 0) return launch_v6_variant(b, l->variant, A, B, C, err, n);
    if (l->kind == SEL_HG) {
        hg_status s = hg_gemm(b->h, o->opA, o->opB, o->m, o->n, o->k, alpha, A, b->lda, B, b->ldb, beta, C, b->ldc,
                              o->dtype);
        if (s == HG_STATUS_SUCCESS) return L_OK;
        copy_str(err, n, hg_last_error(b->h));
        return s == HG_STATUS_NOT_SUPPORTED ? L_NA : L_ERR;
    }
    cublasStatus_t s;
    const char *what;
    if (l->kind == SEL_CUBLAS) {
        /* Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T. */
        cudaDataType_t dt = cuda_type(o->dtype);
        s = cublasGemmEx(b->cublas, cublas_op(o->opB), cublas_op(o->opA), (int)o->n, (int)o->m, (int)o->k, &alpha, B,
                         dt, (int)b->ldb, A, dt, (int)b->lda, &beta, C, dt, (int)b->ldc, CUBLAS_COMPUTE_32F,
                         CUBLAS_GEMM_DEFAULT);
        what = "cublasGemmEx";
    } else {
        s = cublasLtMatmul(b->lt, b->lt_desc, &alpha, B, b->lt_a, A, b->lt_b, &beta, C, b->lt_c, C, b->lt_c, l->algo,
                           b->lt_ws, LT_WORKSPACE, b->stream);
        what = "cublasLtMatmul";
    }
    if (s == CUBLAS_STATUS_SUCCESS) return L_OK;
    snprintf(err, n, "%s failed: %s", what, cublasGetStatusString(s));
    return L_ERR;
}

static lstatus launch_copy(bench *b, const launcher *l, int c, char *err, size_t n)
{
    return launch_on(b, l, ptr_a(b, c), ptr_b(b, c), ptr_c(b, c), err, n);
}

static lstatus cuda_status(cudaError_t e, const char *what, char *err, size_t n)
{
    if (e == cudaSuccess) return L_OK;
    snprintf(err, n, "%s failed: %s", what, cudaGetErrorString(e));
    return L_ERR;
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + 1e-9 * (double)(t.tv_nsec - t0->tv_nsec);
}

/* cudaStreamSynchronize with a deadline: a kernel that deadlocks (a barrier
 * phase bug, say) would otherwise hold the tool, and the GPU, forever. It
 * polls only after everything is queued, so the timing does not see it. */
static lstatus wait_stream(bench *b, const char *what, char *err, size_t n)
{
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        cudaError_t e = cudaStreamQuery(b->stream);
        if (e == cudaSuccess) return L_OK;
        if (e != cudaErrorNotReady) return cuda_status(e, what, err, n);
        if (b->o->timeout > 0.0 && seconds_since(&t0) > b->o->timeout) {
            b->hung = b->dead = true;
            snprintf(err, n, "%s did not finish within %g s (a hang?)", what, b->o->timeout);
            return L_ERR;
        }
        sleep_seconds(2e-4);
    }
}

/* warmup launches, then repeat launches each between its own pair of events,
 * all queued back to back so the GPU never idles between them; times[i] gets
 * launch i's milliseconds. Launches rotate through the copies. With profile,
 * the timed launches are the only ones inside cudaProfilerStart/Stop, which
 * is what an ncu child (ncu --profile-from-start off) profiles. */
static lstatus time_launches(bench *b, const launcher *l, int warmup, int repeat, bool profile, double *times,
                             char *err, size_t n)
{
    lstatus st = L_OK;
    int next = 0;
    for (int i = 0; i < warmup && st == L_OK; i++, next++) st = launch_copy(b, l, next % b->copies, err, n);
    if (st == L_OK && profile) st = cuda_status(cudaProfilerStart(), "cudaProfilerStart", err, n);
    for (int i = 0; i < repeat && st == L_OK; i++, next++) {
        st = cuda_status(cudaEventRecord(b->ev[2 * i], b->stream), "cudaEventRecord", err, n);
        if (st == L_OK) st = launch_copy(b, l, next % b->copies, err, n);
        if (st == L_OK) st = cuda_status(cudaEventRecord(b->ev[2 * i + 1], b->stream), "cudaEventRecord", err, n);
    }
    /* Drain whatever was queued, even after a failed launch. */
    lstatus sync = wait_stream(b, "the kernel", err, n);
    if (profile && !b->hung) (void)cudaProfilerStop();
    if (st != L_OK) return st;
    if (sync != L_OK) return sync;
    for (int i = 0; i < repeat; i++) {
        float ms = 0.0f;
        st = cuda_status(cudaEventElapsedTime(&ms, b->ev[2 * i], b->ev[2 * i + 1]), "cudaEventElapsedTime", err, n);
        if (st != L_OK) return st;
        times[i] = ms;
    }
    return L_OK;
}

/* Everything after the handle: stream, cuBLAS, events, buffers, inputs. */
static bool bench_setup(bench *b)
{
    const options *o = b->o;
    if (!cu(b, cudaStreamCreateWithFlags(&b->stream, cudaStreamNonBlocking), "cudaStreamCreate")) return false;
    if (hg_set_stream(b->h, b->stream) != HG_STATUS_SUCCESS) {
        snprintf(b->err, sizeof b->err, "hg_set_stream: %s", hg_last_error(b->h));
        return false;
    }
    if (!cb(b, cublasCreate(&b->cublas), "cublasCreate") ||
        !cb(b, cublasSetStream(b->cublas, b->stream), "cublasSetStream") || !lt_setup(b))
        return false;
    b->nev = 2 * (o->repeat > CAND_REPEAT ? o->repeat : CAND_REPEAT);
    b->ev = calloc((size_t)b->nev, sizeof *b->ev);
    if (b->ev == NULL) {
        snprintf(b->err, sizeof b->err, "out of host memory");
        return false;
    }
    for (int i = 0; i < b->nev; i++)
        if (!cu(b, cudaEventCreate(&b->ev[i]), "cudaEventCreate")) return false;
    if (!cu(b, cudaMalloc((void **)&b->slab_a, b->stride_a * (size_t)b->copies), "cudaMalloc(A)") ||
        !cu(b, cudaMalloc((void **)&b->slab_b, b->stride_b * (size_t)b->copies), "cudaMalloc(B)") ||
        !cu(b, cudaMalloc((void **)&b->slab_c, b->stride_c * (size_t)b->copies), "cudaMalloc(C)"))
        return false;
    if (!host_alloc(b, &b->hA, b->na) || !host_alloc(b, &b->hB, b->nb) || !host_alloc(b, &b->hC, b->nc) ||
        (o->beta != 0.0f && !host_alloc(b, &b->hC0, b->nc)))
        return false;
    fprintf(stderr, TOOL ": seed %llu, %d cop%s of A, B, C (%.1f MiB each set, L2 %.1f MiB)\n",
            (unsigned long long)b->seed, b->copies, b->copies == 1 ? "y" : "ies", (double)set_bytes_of(o) / 1048576.0,
            (double)b->gpu.l2_bytes / 1048576.0);
    /* An ncu child compares nothing. */
    return fill_inputs(b) && (o->mode == MODE_NCU_CHILD || choose_samples(b));
}

/* Returns 0, BENCH_EXIT_NO_GPU or BENCH_EXIT_FAIL, with b->err set. */
static int bench_init(bench *b, const options *o)
{
    memset(b, 0, sizeof *b);
    b->o = o;
    b->seed = o->seed;
    char why[ERR_LEN];
    int rc = query_gpu(&b->gpu, why, sizeof why);
    if (rc != 0) {
        copy_str(b->err, sizeof b->err, why);
        return rc;
    }
    shape_sizes(o, &b->na, &b->nb, &b->nc, &b->lda, &b->ldb, &b->ldc);
    b->copies = copies_for(set_bytes_of(o), b->gpu.l2_bytes);
    /* 256-byte aligned copies: what TMA (16) and cuBLAS (256) like best. */
    b->stride_a = round_up(b->na * 2, 256);
    b->stride_b = round_up(b->nb * 2, 256);
    b->stride_c = round_up(b->nc * 2, 256);
    b->rtol = check_rtol(o->dtype);
    b->atol = check_atol(o);
    hg_status hs = hg_create(&b->h);
    if (hs != HG_STATUS_SUCCESS) {
        snprintf(b->err, sizeof b->err, "hg_create: %s: %s", hg_status_string(hs), hg_last_error(NULL));
        return hs == HG_STATUS_NO_DEVICE ? BENCH_EXIT_NO_GPU : BENCH_EXIT_FAIL;
    }
    /* The device as the handle sees it, for the direct launches of the V6
     * ablations, with a workspace of their own; set up once, outside the
     * timed launches. */
    b->dev = *hg__handle_device(b->h);
    size_t ws_bytes = 0;
    if (hg_get_max_workspace_size(b->h, &ws_bytes) != HG_STATUS_SUCCESS ||
        !cu(b, cudaMalloc(&b->v6_ws, ws_bytes), "cudaMalloc(V6 workspace)") ||
        !cu(b, cudaMemset(b->v6_ws, 0, ws_bytes), "cudaMemset(V6 workspace)"))
        return BENCH_EXIT_FAIL;
    b->dev.workspace = b->v6_ws;
    b->dev.workspace_bytes = ws_bytes;
    return bench_setup(b) ? 0 : BENCH_EXIT_FAIL;
}

/* cuBLAS's output on copy 0, for --check's elementwise comparison. */
static bool cublas_reference(bench *b)
{
    const options *o = b->o;
    void *dc = NULL;
    char err[ERR_LEN] = "";
    launcher l = {SEL_CUBLAS, NULL, 0};
    bool ok = host_alloc(b, &b->hCref, b->nc) && cu(b, cudaMalloc(&dc, b->stride_c), "cudaMalloc(C ref)");
    if (ok && o->beta == 0.0f) ok = cu(b, cudaMemsetAsync(dc, 0xFF, b->nc * 2, b->stream), "cudaMemsetAsync");
    if (ok && o->beta != 0.0f)
        ok = cu(b, cudaMemcpyAsync(dc, b->hC0, b->nc * 2, cudaMemcpyHostToDevice, b->stream), "cudaMemcpyAsync");
    if (ok && launch_on(b, &l, ptr_a(b, 0), ptr_b(b, 0), dc, err, sizeof err) != L_OK) {
        copy_str(b->err, sizeof b->err, err);
        ok = false;
    }
    if (ok && wait_stream(b, "cuBLAS's reference", err, sizeof err) != L_OK) {
        copy_str(b->err, sizeof b->err, err);
        ok = false;
    }
    if (ok) ok = cu(b, cudaMemcpy(b->hCref, dc, b->nc * 2, cudaMemcpyDeviceToHost), "cudaMemcpy(C ref)");
    if (!b->hung) (void)cudaFree(dc); /* cudaFree would wait for a hung kernel */
    return ok;
}

/* After a failed launch or sync: is the context still usable? A sticky error
 * (an illegal address, say) ends every later CUDA call in this process. */
static void note_health(bench *b)
{
    if (b->hung) return; /* synchronizing would wait forever */
    (void)cudaGetLastError();
    if (cudaDeviceSynchronize() != cudaSuccess) b->dead = true;
}

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
    cublasLtMatmulPreference_t pref = NULL;
    cublasLtMatmulHeuristicResult_t cand[LT_CANDIDATES];
    int found = 0;
    size_t ws = LT_WORKSPACE;
    memset(cand, 0, sizeof cand);
    bool ok = cb(b, cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate") &&
              cb(b, cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws),
                 "setting the workspace size") &&
              cb(b, cublasLtMatmulAlgoGetHeuristic(b->lt, b->lt_desc, b->lt_a, b->lt_b, b->lt_c, b->lt_c, pref,
                                                   LT_CANDIDATES, cand, &found),
                 "cublasLtMatmulAlgoGetHeuristic");
    if (pref) (void)cublasLtMatmulPreferenceDestroy(pref);
    if (!ok || found == 0) {
        r->status = ST_ERROR;
        copy_str(r->note, sizeof r->note, ok ? "cuBLASLt offers no algorithm for this problem" : b->err);
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

/* hopgemm: choose the kernel; hg_plan says, without running anything,
 * whether it can serve this call (and which kernel AUTO would run). */
static bool prepare_hg(bench *b, const sel *s, result *r)
{
    const options *o = b->o;
    hg_status st = hg_set_kernel(b->h, s->id);
    hg_kernel chosen = s->id;
    if (st == HG_STATUS_SUCCESS)
        st = hg_plan(b->h, o->opA, o->opB, o->m, o->n, o->k, ptr_a(b, 0), b->lda, ptr_b(b, 0), b->ldb, ptr_c(b, 0),
                     b->ldc, o->dtype, &chosen);
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
    if (s->id == HG_KERNEL_AUTO) snprintf(r->note, sizeof r->note, "auto runs %s", hg_kernel_name(chosen));
    return true;
}

typedef struct {
    int64_t bad, shown;
    double max_err, sum_err, sum_d2, sum_r2;
} check_acc;

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
    for (int64_t s = 0; s < b->nsamp; s++) {
        int64_t i = b->si[s], j = b->sj[s];
        double x = (double)hg__to_f32(b->hC[i * b->ldc + j], b->o->dtype), ref = b->sref[s];
        double d = fabs(x - ref), e = d / (1.0 + fabs(ref));
        double bound = b->atol + b->rtol * fabs(ref);
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

/* Every entry: NaN means unwritten (C was poisoned) or broken. Returns the count. */
static int64_t check_nan(const bench *b, const char *name)
{
    int64_t nan_count = 0;
    for (size_t e = 0; e < b->nc; e++) {
        if (!isnan(hg__to_f32(b->hC[e], b->o->dtype))) continue;
        if (nan_count++ < SHOW_MISMATCHES)
            fprintf(stderr, TOOL ": %s: C[%lld,%lld] is NaN (unwritten?)\n", name, (long long)(e / (size_t)b->ldc),
                    (long long)(e % (size_t)b->ldc));
    }
    if (nan_count) fprintf(stderr, TOOL ": %s: %lld of %zu entries are NaN\n", name, (long long)nan_count, b->nc);
    return nan_count;
}

/* --check: every entry against cuBLAS's output, with twice the bound (both
 * are approximations of the same reference). */
static void check_vs_cublas(const bench *b, const char *name, result *r)
{
    check_acc a;
    memset(&a, 0, sizeof a);
    for (size_t e = 0; e < b->nc; e++) {
        double x = (double)hg__to_f32(b->hC[e], b->o->dtype), y = (double)hg__to_f32(b->hCref[e], b->o->dtype);
        double d = fabs(x - y), err = d / (1.0 + fabs(y));
        if (isnan(err)) err = INFINITY;
        a.max_err = err > a.max_err ? err : a.max_err;
        double bound = 2.0 * (b->atol + b->rtol * fabs(y));
        if (!(d <= bound)) {
            a.bad++;
            show_mismatch(&a, name, (int64_t)(e / (size_t)b->ldc), (int64_t)(e % (size_t)b->ldc), x, y, bound,
                          "cuBLAS");
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
    /* On the measuring stream, so that the launch cannot overtake it. */
    lstatus st = o->beta == 0.0f ? cuda_status(cudaMemsetAsync(ptr_c(b, 0), 0xFF, b->nc * 2, b->stream),
                                               "cudaMemsetAsync(C)", err, sizeof err)
                                 : cuda_status(cudaMemcpyAsync(ptr_c(b, 0), b->hC0, b->nc * 2, cudaMemcpyHostToDevice,
                                                               b->stream),
                                               "cudaMemcpyAsync(C)", err, sizeof err);
    if (st == L_OK) st = launch_copy(b, l, 0, err, sizeof err);
    if (st == L_OK) st = wait_stream(b, "the check's launch", err, sizeof err);
    if (st == L_OK)
        st = cuda_status(cudaMemcpy(b->hC, ptr_c(b, 0), b->nc * 2, cudaMemcpyDeviceToHost), "cudaMemcpy(C back)", err,
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
    if (o->check_full && s->kind != SEL_CUBLAS) check_vs_cublas(b, s->name, r);
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
    if (o->mode != MODE_NCU_CHILD) check_entry(b, s, &l, r);
}

/* Everything in this process: returns 0, or an exit status with err set.
 * *hung: a kernel never finished; the caller reports, then must _exit
 * (freeing device memory, or the runtime's exit handlers, would wait on it). */
static int measure_here(const options *o, result *res, bool *hung, char *err, size_t errlen)
{
    bench b;
    int rc = bench_init(&b, o);
    *hung = false;
    if (rc == 0 && o->check_full && o->mode != MODE_NCU_CHILD && !cublas_reference(&b)) rc = BENCH_EXIT_FAIL;
    if (rc != 0) {
        copy_str(err, errlen, b.err);
        *hung = b.hung;
        if (!b.hung) bench_free(&b);
        return rc;
    }
    for (int i = 0; i < o->nsel; i++) run_entry(&b, &o->sels[i], &res[i]);
    *hung = b.hung;
    if (!b.hung) bench_free(&b);
    return 0;
}

/* ---- Child processes (--fresh, --ncu) ------------------------------------ */

typedef struct {
    char *v[64];
    char store[64][512];
    int n;
} arglist;

static void arg_add(arglist *a, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void arg_add(arglist *a, const char *fmt, ...)
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
static void add_problem_args(arglist *a, const options *o, const char *kernels, bool for_ncu, int proc)
{
    arg_add(a, "--kernel=%s", kernels);
    arg_add(a, "-m");
    arg_add(a, "%lld", (long long)o->m);
    arg_add(a, "-n");
    arg_add(a, "%lld", (long long)o->n);
    arg_add(a, "-k");
    arg_add(a, "%lld", (long long)o->k);
    arg_add(a, "--layout=%s", o->layout);
    arg_add(a, "--dtype=%s", dtype_name(o->dtype));
    arg_add(a, "--alpha=%.9g", (double)o->alpha);
    arg_add(a, "--beta=%.9g", (double)o->beta);
    /* An ncu child profiles one launch after one warm-up; cooling down is moot
     * with the profiler's replays around it. */
    arg_add(a, "--repeat=%d", for_ncu ? 1 : o->repeat);
    arg_add(a, "--warmup=%d", for_ncu ? 1 : o->warmup);
    arg_add(a, "--cooldown=%.9g", for_ncu ? 0.0 : o->cooldown);
    arg_add(a, "--timeout=%.9g", o->timeout);
    /* Each process draws its own inputs; with --seed, reproducibly so. */
    arg_add(a, "--seed=%llu", (unsigned long long)(o->seed + 1000003ull * (uint64_t)proc));
    if (o->check_full && !for_ncu) arg_add(a, "--check");
}

/* fork + exec; the child's stdout goes to *fd_out (a pipe), or to /dev/null
 * when fd_out is NULL; its stderr stays ours, so its progress shows. */
static pid_t spawn(char *const argv[], int *fd_out)
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

static int wait_child(pid_t pid)
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
 * parse_child_row. */
static void print_child_row(const result *r)
{
    char note[NOTE_LEN];
    copy_str(note, sizeof note, r->note);
    sanitize(note);
    printf(CHILD_TAG "\trow\t%s\t%d\t%d\t%.9g\t%.9g\t%.9g\t%d\t%lld\t%.9g\t%.9g\t%.9g\t%lld\t%d\t%lld\t%.9g\t%s\n", r->name,
           (int)r->status, (int)r->timed, r->ms, r->ms_lo, r->ms_hi, (int)r->checked, (long long)r->samples, r->max_err,
           r->mean_err, r->rel_fro, (long long)r->bad, (int)r->vs_done, (long long)r->vs_bad, r->vs_max, note[0] ? note : "-");
}

static bool parse_child_row(char *line, result *r)
{
    char *f[20];
    int nf = 0;
    char *save = NULL;
    for (char *t = strtok_r(line, "\t\n", &save); t && nf < 20; t = strtok_r(NULL, "\t\n", &save)) f[nf++] = t;
    if (nf != 18 || strcmp(f[0], CHILD_TAG) != 0 || strcmp(f[1], "row") != 0) return false;
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
    copy_str(r->note, sizeof r->note, strcmp(f[17], "-") ? f[17] : "");
    return r->status >= ST_OK && r->status <= ST_ERROR;
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
    out->status = any_err ? ST_ERROR : any_fail ? ST_FAIL : any_ok ? ST_OK : ST_NA;
    free(ms);
}

static bool self_path(char *out, size_t n)
{
    ssize_t len = readlink("/proc/self/exe", out, n - 1);
    if (len <= 0) return false;
    out[len] = '\0';
    return true;
}

/* --fresh N: N processes, one after the other, each measuring everything. */
static int measure_fresh(const options *o, const char *exe, result *res, char *err, size_t errlen)
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

/* ---- --ncu ----------------------------------------------------------------- */

static bool executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* ncu on PATH, else where the CUDA toolkit or Nsight Compute installs it. */
static bool find_ncu(char *out, size_t n)
{
    const char *path = getenv("PATH");
    if (path) {
        char dirs[4096];
        copy_str(dirs, sizeof dirs, path);
        char *save = NULL;
        for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
            snprintf(out, n, "%s/ncu", d);
            if (executable(out)) return true;
        }
    }
    snprintf(out, n, "/usr/local/cuda/bin/ncu");
    if (executable(out)) return true;
    static const char *const patterns[] = {"/opt/nvidia/nsight-compute/*/ncu", "/usr/local/cuda/nsight-compute-*/ncu"};
    for (size_t p = 0; p < sizeof patterns / sizeof patterns[0]; p++) {
        glob_t g;
        bool found = false;
        if (glob(patterns[p], 0, NULL, &g) == 0) {
            /* glob sorts: the last match is the newest version. */
            for (size_t i = g.gl_pathc; i-- > 0 && !found;) {
                if (executable(g.gl_pathv[i])) {
                    copy_str(out, n, g.gl_pathv[i]);
                    found = true;
                }
            }
        }
        globfree(&g);
        if (found) return true;
    }
    return false;
}

/* Splits one CSV line in place ("a","b,c","d""e"); returns the field count. */
static int csv_split(char *line, char **fields, int maxf)
{
    int nf = 0;
    char *p = line;
    while (*p && *p != '\n' && *p != '\r' && nf < maxf) {
        char *w = p;
        fields[nf++] = w;
        if (*p == '"') {
            p++;
            for (;;) {
                if (*p == '\0') break;
                if (*p == '"' && p[1] == '"') {
                    *w++ = '"';
                    p += 2;
                } else if (*p == '"') {
                    p++;
                    break;
                } else {
                    *w++ = *p++;
                }
            }
            while (*p && *p != ',' && *p != '\n' && *p != '\r') p++;
        } else {
            while (*p && *p != ',' && *p != '\n' && *p != '\r') *w++ = *p++;
        }
        bool more = *p == ',';
        if (*p) p++;
        *w = '\0';
        if (!more) break;
    }
    return nf;
}

/* ncu's numbers may carry thousands separators. */
static double ncu_number(const char *s)
{
    char buf[64];
    size_t j = 0;
    for (; *s && j + 1 < sizeof buf; s++)
        if (*s != ',' && *s != ' ') buf[j++] = *s;
    buf[j] = '\0';
    char *end;
    double v = strtod(buf, &end);
    return end == buf ? NAN : v;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcasecmp(s + a - b, suffix) == 0;
}

/* A duration in ns, whatever time unit ncu printed it in. */
static double to_ns(double v, const char *unit)
{
    if (ends_with(unit, "nsecond") || strcasecmp(unit, "ns") == 0) return v;
    if (ends_with(unit, "usecond") || strcasecmp(unit, "us") == 0) return v * 1e3;
    if (ends_with(unit, "msecond") || strcasecmp(unit, "ms") == 0) return v * 1e6;
    if (ends_with(unit, "second") || strcasecmp(unit, "s") == 0) return v * 1e9;
    return v; /* --print-units base: nanoseconds */
}

/* A rate in Hz, whatever unit ncu printed it in. */
static double to_hz(double v, const char *unit)
{
    if (ends_with(unit, "/nsecond") || strcasecmp(unit, "ghz") == 0) return v * 1e9;
    if (ends_with(unit, "/usecond") || strcasecmp(unit, "mhz") == 0) return v * 1e6;
    if (ends_with(unit, "/msecond") || strcasecmp(unit, "khz") == 0) return v * 1e3;
    if (ends_with(unit, "/second") || strcasecmp(unit, "hz") == 0) return v;
    return v < 100.0 ? v * 1e9 : v < 1e5 ? v * 1e6 : v; /* no unit: guess by size */
}

#define NCU_MAX_LAUNCH 64

typedef struct {
    char id[16];
    char kernel[160];
    double gmma, hmma, hz, ns;
} ncu_launch;

static ncu_launch *ncu_launch_for(ncu_launch *l, int *n, const char *id, const char *kernel)
{
    for (int i = 0; i < *n; i++)
        if (strcmp(l[i].id, id) == 0) return &l[i];
    if (*n == NCU_MAX_LAUNCH) return NULL;
    ncu_launch *x = &l[(*n)++];
    copy_str(x->id, sizeof x->id, id);
    copy_str(x->kernel, sizeof x->kernel, kernel ? kernel : "?");
    x->gmma = x->hmma = x->hz = x->ns = NAN;
    return x;
}

static void ncu_store(ncu_launch *x, const char *metric, double v, const char *unit)
{
    if (strcmp(metric, M_GMMA) == 0) x->gmma = v;
    else if (strcmp(metric, M_HMMA) == 0) x->hmma = v;
    else if (strcmp(metric, M_CLOCK) == 0) x->hz = to_hz(v, unit);
    else if (strcmp(metric, M_TIME) == 0) x->ns = to_ns(v, unit);
}

static int column(char **head, int nh, const char *name)
{
    for (int i = 0; i < nh; i++)
        if (strcmp(head[i], name) == 0) return i;
    return -1;
}

/* Reads ncu's --csv log: the "details" page (one row per metric: ID, Kernel
 * Name, Metric Name, Metric Unit, Metric Value), or the "raw" page (one row
 * per launch, a column per metric, a units row with an empty ID). Keeps the
 * longest launch of the profiled range (cuBLAS may launch more than one). */
static bool parse_ncu_log(const char *path, result *r, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        snprintf(err, errlen, "cannot read ncu's log %.300s", path);
        return false;
    }
    ncu_launch launches[NCU_MAX_LAUNCH];
    int nl = 0;
    char *line = NULL, *hline = NULL, *head[256], *fl[256], *units[256];
    size_t cap = 0;
    int nh = 0, c_id = -1, c_kernel = -1, c_metric = -1, c_unit = -1, c_value = -1, nunits = 0;
    char *uline = NULL;
    while (getline(&line, &cap, f) > 0) {
        if (line[0] != '"') continue; /* ==PROF== lines and the like */
        if (nh == 0) {
            hline = strdup(line);
            if (hline == NULL) break;
            nh = csv_split(hline, head, 256);
            c_id = column(head, nh, "ID");
            c_kernel = column(head, nh, "Kernel Name");
            if (c_kernel < 0) c_kernel = column(head, nh, "Function Name");
            c_metric = column(head, nh, "Metric Name");
            c_unit = column(head, nh, "Metric Unit");
            c_value = column(head, nh, "Metric Value");
            continue;
        }
        int nf = csv_split(line, fl, 256);
        if (c_id < 0 || c_id >= nf) continue;
        if (fl[c_id][0] == '\0') { /* the raw page's units row */
            free(uline);
            uline = strdup(line); /* line was split in place: copy the fields */
            if (uline) {
                char *p = uline;
                for (int i = 0; i < nf; i++) {
                    size_t len = strlen(fl[i]);
                    memmove(p, fl[i], len + 1);
                    units[i] = p;
                    p += len + 1;
                }
                nunits = nf;
            }
            continue;
        }
        ncu_launch *x = ncu_launch_for(launches, &nl, fl[c_id], c_kernel >= 0 && c_kernel < nf ? fl[c_kernel] : NULL);
        if (x == NULL) continue;
        if (c_metric >= 0 && c_value >= 0 && c_metric < nf && c_value < nf) {
            ncu_store(x, fl[c_metric], ncu_number(fl[c_value]), c_unit >= 0 && c_unit < nf ? fl[c_unit] : "");
        } else {
            for (int i = 0; i < nf && i < nh; i++)
                ncu_store(x, head[i], ncu_number(fl[i]), i < nunits ? units[i] : "");
        }
    }
    free(line);
    free(hline);
    free(uline);
    fclose(f);
    if (nl == 0) {
        snprintf(err, errlen, "ncu reported no kernel launch");
        return false;
    }
    int pick = 0;
    for (int i = 1; i < nl; i++)
        if (launches[i].ns > launches[pick].ns || isnan(launches[pick].ns)) pick = i;
    const ncu_launch *x = &launches[pick];
    r->ncu_done = true;
    r->ncu_kernels = nl;
    r->gmma_pct = x->gmma;
    r->hmma_pct = x->hmma;
    r->tensor_pct = isnan(x->gmma) ? x->hmma : isnan(x->hmma) ? x->gmma : fmax(x->gmma, x->hmma);
    r->clock_mhz = x->hz / 1e6;
    r->ncu_ms = x->ns / 1e6;
    copy_str(r->ncu_kernel, sizeof r->ncu_kernel, x->kernel);
    return true;
}

static void print_file_tail(const char *path, int lines)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) return;
    char ring[8][512];
    int n = 0;
    while (fgets(ring[n % 8], sizeof ring[0], f)) n++;
    fclose(f);
    if (lines > 8) lines = 8;
    for (int i = n > lines ? n - lines : 0; i < n; i++) fprintf(stderr, "    %s", ring[i % 8]);
}

/* One ncu run per kernel, each a child profiling only that kernel's one timed
 * launch (cudaProfilerStart/Stop around it, ncu --profile-from-start off), so
 * every launch in the report belongs to the kernel asked for. */
static int profile_ncu(const options *o, const char *exe, const char *ncu, result *res)
{
    int rc = 0;
    const char *tmp = getenv("TMPDIR");
    for (int i = 0; i < o->nsel; i++) {
        result *r = &res[i];
        if (!r->timed) continue;
        char logpath[4096];
        snprintf(logpath, sizeof logpath, "%s/hopgemm-bench-ncu-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
        int fd = mkstemp(logpath);
        if (fd < 0) {
            fprintf(stderr, TOOL ": cannot make a temporary file: %s\n", strerror(errno));
            return BENCH_EXIT_FAIL;
        }
        close(fd);
        arglist a;
        a.n = 0;
        arg_add(&a, "%s", ncu);
        arg_add(&a, "--clock-control");
        arg_add(&a, "none");
        arg_add(&a, "--profile-from-start");
        arg_add(&a, "off");
        arg_add(&a, "--csv");
        arg_add(&a, "--page");
        arg_add(&a, "details");
        arg_add(&a, "--print-units");
        arg_add(&a, "base");
        arg_add(&a, "--log-file");
        arg_add(&a, "%s", logpath);
        arg_add(&a, "--metrics");
        arg_add(&a, "%s,%s,%s,%s", M_GMMA, M_HMMA, M_CLOCK, M_TIME);
        arg_add(&a, "%s", exe);
        arg_add(&a, FLAG_NCU_CHILD);
        add_problem_args(&a, o, r->name, true, 0);
        fprintf(stderr, TOOL ": ncu: profiling %s\n", r->name);
        pid_t pid = spawn(a.v, NULL);
        int code = pid < 0 ? -1 : wait_child(pid);
        char err[ERR_LEN] = "";
        if (code != 0) snprintf(err, sizeof err, "ncu ended with status %d", code);
        if (code != 0 || !parse_ncu_log(logpath, r, err, sizeof err)) {
            fprintf(stderr, TOOL ": ncu: %s: %s; the end of its log:\n", r->name, err);
            print_file_tail(logpath, 6);
            size_t len = strlen(r->note);
            snprintf(r->note + len, sizeof r->note - len, "%sncu: %s", len ? "; " : "", err);
            rc = BENCH_EXIT_FAIL;
        }
        unlink(logpath);
    }
    return rc;
}

/* ---- Output ------------------------------------------------------------------ */

typedef struct {
    const options *o;
    char date[32];
    const gpu_info *gpu;
    int copies;
    double best_ms; /* cublas-best's ms, NaN when it has none */
} report;

#define NFIELDS 34

typedef struct {
    const char *key;
    char val[320];
    bool num; /* a number, or empty (JSON null) */
} field;

static void fset(field *f, const char *key, bool num, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static void fset(field *f, const char *key, bool num, const char *fmt, ...)
{
    va_list ap;
    f->key = key;
    f->num = num;
    va_start(ap, fmt);
    vsnprintf(f->val, sizeof f->val, fmt, ap);
    va_end(ap);
}

/* A number, or empty when NaN (not measured). */
static void fnum(field *f, const char *key, const char *fmt, double v)
{
    f->key = key;
    f->num = true;
    if (isnan(v) || isinf(v)) f->val[0] = '\0';
    else snprintf(f->val, sizeof f->val, fmt, v);
}

static double ratio_of(const report *rep, const result *r)
{
    return r->timed && !isnan(rep->best_ms) ? rep->best_ms / r->ms : NAN;
}

/* The row of CSV and JSON; the first eleven columns are fixed by contract. */
static int row_fields(const report *rep, const result *r, field *f)
{
    const options *o = rep->o;
    int n = 0;
    fset(&f[n++], "date", false, "%s", rep->date);
    fset(&f[n++], "gpu", false, "%s", rep->gpu->name);
    fset(&f[n++], "kernel", false, "%s", r->name);
    fset(&f[n++], "dtype", false, "%s", dtype_name(o->dtype));
    fset(&f[n++], "layout", false, "%s", o->layout);
    fset(&f[n++], "m", true, "%lld", (long long)o->m);
    fset(&f[n++], "n", true, "%lld", (long long)o->n);
    fset(&f[n++], "k", true, "%lld", (long long)o->k);
    fnum(&f[n++], "ms", "%.6f", r->timed ? r->ms : NAN);
    fnum(&f[n++], "tflops", "%.2f", r->timed ? tflops(o, r->ms) : NAN);
    fnum(&f[n++], "ratio", "%.4f", ratio_of(rep, r));
    fset(&f[n++], "status", false, "%s", status_name(r->status));
    fnum(&f[n++], "ms_lo", "%.6f", r->timed ? r->ms_lo : NAN);
    fnum(&f[n++], "ms_hi", "%.6f", r->timed ? r->ms_hi : NAN);
    fset(&f[n++], "alpha", true, "%.9g", (double)o->alpha);
    fset(&f[n++], "beta", true, "%.9g", (double)o->beta);
    fset(&f[n++], "repeat", true, "%d", o->repeat);
    fset(&f[n++], "warmup", true, "%d", o->warmup);
    fset(&f[n++], "cooldown_s", true, "%g", o->cooldown);
    fset(&f[n++], "fresh", true, "%d", o->fresh);
    fset(&f[n++], "copies", true, "%d", rep->copies);
    fnum(&f[n++], "samples", "%.0f", r->checked ? (double)r->samples : NAN);
    fnum(&f[n++], "max_err", "%.3e", r->checked ? r->max_err : NAN);
    fnum(&f[n++], "mean_err", "%.3e", r->checked ? r->mean_err : NAN);
    fnum(&f[n++], "rel_fro", "%.3e", r->checked ? r->rel_fro : NAN);
    fnum(&f[n++], "bad", "%.0f", r->checked ? (double)r->bad : NAN);
    fnum(&f[n++], "vs_cublas_max_err", "%.3e", r->vs_done ? r->vs_max : NAN);
    fnum(&f[n++], "vs_cublas_bad", "%.0f", r->vs_done ? (double)r->vs_bad : NAN);
    fnum(&f[n++], "tensor_pct", "%.2f", r->ncu_done ? r->tensor_pct : NAN);
    fnum(&f[n++], "sm_clock_mhz", "%.0f", r->ncu_done ? r->clock_mhz : NAN);
    fnum(&f[n++], "ncu_ms", "%.6f", r->ncu_done ? r->ncu_ms : NAN);
    fset(&f[n++], "device_kernel", false, "%s", r->ncu_done ? r->ncu_kernel : "");
    fset(&f[n++], "note", false, "%s", r->note);
    return n;
}

static void csv_write_value(FILE *f, const char *s)
{
    if (strpbrk(s, ",\"\n\r") == NULL) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
    }
    fputc('"', f);
}

static void csv_header(const report *rep, char *out, size_t n)
{
    result dummy;
    field f[NFIELDS];
    result_init(&dummy, "");
    int nf = row_fields(rep, &dummy, f);
    out[0] = '\0';
    for (int i = 0; i < nf; i++) {
        size_t len = strlen(out);
        snprintf(out + len, n - len, "%s%s", i ? "," : "", f[i].key);
    }
}

/* Before measuring: an existing file must have our header, or rows would be
 * appended under the wrong columns. */
static bool csv_compatible(const report *rep, const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) return true;
    char want[2048], got[2048] = "";
    csv_header(rep, want, sizeof want);
    bool ok = fgets(got, sizeof got, f) == NULL || got[0] == '\n' || got[0] == '\0';
    if (!ok) {
        got[strcspn(got, "\r\n")] = '\0';
        ok = strcmp(got, want) == 0;
    }
    fclose(f);
    if (!ok) fprintf(stderr, TOOL ": %s has other columns than this tool writes; not appending to it\n", path);
    return ok;
}

static bool write_csv(const report *rep, const result *res, const char *path)
{
    struct stat st;
    bool fresh_file = stat(path, &st) != 0 || st.st_size == 0;
    FILE *f = fopen(path, "a");
    if (f == NULL) {
        fprintf(stderr, TOOL ": cannot open %s: %s\n", path, strerror(errno));
        return false;
    }
    if (fresh_file) {
        char head[2048];
        csv_header(rep, head, sizeof head);
        fprintf(f, "%s\n", head);
    }
    for (int i = 0; i < rep->o->nsel; i++) {
        field fl[NFIELDS];
        int nf = row_fields(rep, &res[i], fl);
        for (int j = 0; j < nf; j++) {
            if (j) fputc(',', f);
            csv_write_value(f, fl[j].val);
        }
        fputc('\n', f);
    }
    return fclose(f) == 0;
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

static bool write_json(const report *rep, const result *res, const char *path)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        fprintf(stderr, TOOL ": cannot open %s: %s\n", path, strerror(errno));
        return false;
    }
    fputs("[\n", f);
    for (int i = 0; i < rep->o->nsel; i++) {
        field fl[NFIELDS];
        int nf = row_fields(rep, &res[i], fl);
        fputs("  {", f);
        for (int j = 0; j < nf; j++) {
            fprintf(f, "%s\"%s\": ", j ? ", " : "", fl[j].key);
            if (fl[j].val[0] == '\0') fputs("null", f);
            else if (fl[j].num) fputs(fl[j].val, f);
            else json_string(f, fl[j].val);
        }
        fprintf(f, "}%s\n", i + 1 < rep->o->nsel ? "," : "");
    }
    fputs("]\n", f);
    return fclose(f) == 0;
}

static void print_header(const report *rep)
{
    const options *o = rep->o;
    const gpu_info *g = rep->gpu;
    printf(TOOL " %d.%d.%d, %s, %s (sm_%d%d, %d SMs, %.0f MiB L2)\n", HG_VERSION_MAJOR, HG_VERSION_MINOR,
           HG_VERSION_PATCH, rep->date, g->name, g->cc_major, g->cc_minor, g->sms, (double)g->l2_bytes / 1048576.0);
    printf("problem: %lld x %lld x %lld, %s, %s (opA=%c, opB=%c), alpha %g, beta %g\n", (long long)o->m,
           (long long)o->n, (long long)o->k, dtype_name(o->dtype), o->layout, o->opA == HG_OP_N ? 'N' : 'T',
           o->opB == HG_OP_N ? 'N' : 'T', (double)o->alpha, (double)o->beta);
    printf("method:  cooldown %g s, %d warm-up, median of %d event-timed launches", o->cooldown, o->warmup, o->repeat);
    if (o->fresh) printf("; median over %d fresh processes", o->fresh);
    printf("; %d cop%s of A, B, C\n", rep->copies, rep->copies == 1 ? "y" : "ies (L2 rotation)");
    printf("check:   err = |x - ref| / (1 + |ref|) on %s entries vs float64; bound atol + rtol |ref|, rtol 2^%d, "
           "atol %.3g%s\n",
           o->check_full ? "16384" : "1024", o->dtype == HG_BF16 ? -7 : -10, check_atol(o),
           o->check_full ? "; all entries vs cuBLAS" : "");
}

#define TCOLS 12
#define TROWS (MAX_SEL + 1)

typedef struct {
    int ncol;
    char cell[TROWS][TCOLS][48];
    bool right[TCOLS];
} table;

static void tcell(table *t, int row, int col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static void tcell(table *t, int row, int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->cell[row][col], sizeof t->cell[row][col], fmt, ap);
    va_end(ap);
}

/* The table, last on stdout: aligned columns, the note unpadded at the end. */
static void print_table(const report *rep, const result *res)
{
    const options *o = rep->o;
    table t;
    memset(&t, 0, sizeof t);
    int c = 0;
    const char *heads[TCOLS];
    heads[c++] = "kernel";
    heads[c++] = "ms";
    heads[c++] = "TFLOPS";
    heads[c++] = "vs best";
    heads[c++] = "max err";
    heads[c++] = "mean err";
    heads[c++] = "check";
    if (o->fresh) heads[c++] = "ms range";
    if (o->ncu) {
        heads[c++] = "tensor %";
        heads[c++] = "SM MHz";
    }
    t.ncol = c;
    for (int j = 0; j < c; j++) {
        tcell(&t, 0, j, "%s", heads[j]);
        t.right[j] = j > 0 && j != 6;
    }
    for (int i = 0; i < o->nsel; i++) {
        const result *r = &res[i];
        int row = i + 1, col = 0;
        tcell(&t, row, col++, "%s", r->name);
        if (r->timed) {
            tcell(&t, row, col++, "%.4f", r->ms);
            tcell(&t, row, col++, "%.1f", tflops(o, r->ms));
            double ratio = ratio_of(rep, r);
            if (isnan(ratio)) tcell(&t, row, col++, "-");
            else tcell(&t, row, col++, "%.3f", ratio);
        } else {
            tcell(&t, row, col++, "%s", r->status == ST_NA ? "n/a" : "-");
            tcell(&t, row, col++, "-");
            tcell(&t, row, col++, "-");
        }
        if (r->checked) {
            tcell(&t, row, col++, "%.2e", r->max_err);
            tcell(&t, row, col++, "%.2e", r->mean_err);
        } else {
            tcell(&t, row, col++, "-");
            tcell(&t, row, col++, "-");
        }
        tcell(&t, row, col++, "%s", r->status == ST_OK && !r->checked ? "-" : status_name(r->status));
        if (o->fresh) {
            if (r->timed) tcell(&t, row, col++, "%.4f-%.4f", r->ms_lo, r->ms_hi);
            else tcell(&t, row, col++, "-");
        }
        if (o->ncu) {
            if (r->ncu_done && !isnan(r->tensor_pct)) tcell(&t, row, col++, "%.1f", r->tensor_pct);
            else tcell(&t, row, col++, "-");
            if (r->ncu_done && !isnan(r->clock_mhz)) tcell(&t, row, col++, "%.0f", r->clock_mhz);
            else tcell(&t, row, col++, "-");
        }
    }
    int width[TCOLS] = {0};
    for (int i = 0; i <= o->nsel; i++)
        for (int j = 0; j < t.ncol; j++) {
            int w = (int)strlen(t.cell[i][j]);
            width[j] = w > width[j] ? w : width[j];
        }
    for (int i = 0; i <= o->nsel; i++) {
        for (int j = 0; j < t.ncol; j++)
            printf(t.right[j] ? "%s%*s" : "%s%-*s", j ? "  " : "", width[j], t.cell[i][j]);
        const char *note = i == 0 ? "note" : res[i - 1].note;
        printf("%s%s\n", note[0] ? "  " : "", note);
    }
}

/* With --ncu: which device kernel each row ran, before the table. */
static void print_ncu_kernels(const options *o, const result *res)
{
    printf("\nprofiled device kernels (ncu, one launch, clocks not locked):\n");
    for (int i = 0; i < o->nsel; i++) {
        const result *r = &res[i];
        if (!r->ncu_done) continue;
        printf("  %-12s %s", r->name, r->ncu_kernel);
        if (r->ncu_kernels > 1) printf(" (longest of %d launches)", r->ncu_kernels);
        printf(", %.4f ms under ncu\n", r->ncu_ms);
    }
}

static int list_kernels(void)
{
    printf("%-12s %s\n", "kernel", "summary");
    for (int i = 0; i < hg_kernel_count(); i++) {
        const char *summary = "";
        const char *name = hg_kernel_info(i, NULL, &summary);
        if (name) printf("%-12s %s\n", name, summary ? summary : "");
    }
    printf("%-12s %s\n", "auto", "hopgemm's dispatch: the fastest registered kernel that serves the call");
    printf("%-12s %s\n", "cublas", "baseline: cublasGemmEx, default algorithm, CUBLAS_COMPUTE_32F");
    printf("%-12s %s\n", "cublas-best",
           "baseline: fastest of cuBLASLt's top 8 heuristic candidates, 64 MiB workspace");
    if (hg__find_kernel(HG_KERNEL_V6) != NULL) {
        static const char *const what[] = {NULL, "V6 ablation: each CTA loads its whole B (no multicast)",
                                           "V6 ablation: one cluster per tile pair (not persistent)",
                                           "V6 ablation: per-thread stores instead of the TMA-store epilogue",
                                           "V6 ablation: the last round as whole tiles (no stream-K tail)"};
        for (int v = 1; v < V6_VARIANTS; v++) printf("%-18s %s\n", v6_variants[v], what[v]);
    }
    return BENCH_EXIT_OK;
}

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
    if ((rc = build_selection(&o)) != 0) return rc;
    if (!o.seed_set) {
        /* Fresh inputs every run; the seed is printed so a run can be redone. */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t s = (uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
        o.seed = rng_next(&s) >> 1;
    }
    return o.mode == MODE_MAIN ? run_main(&o) : run_child(&o);
}
