#include "bench.h"

/* ---- Options ------------------------------------------------------------- */



/* The V6 ablations (docs/v6.md): V6 with one mechanism taken away at a time. */
const char *const v6_variants[] = {NULL, "v6-no-multicast", "v6-not-persistent", "v6-thread-epilogue",
                                          "v6-no-stream-k"};



/* Copies src into dst (n bytes), cut short when it does not fit: notes and
 * messages are for people, and a cut one still says what happened. */
void copy_str(char *dst, size_t n, const char *src)
{
    size_t len = strlen(src);
    if (len >= n) len = n - 1;
    memcpy(dst, src, len);
    dst[len] = '\0';
}

const char *dtype_name(hg_dtype d) { return d == HG_BF16 ? "bf16" : "f16"; }

const char *c_type_name(hg_c_type t) { return t == HG_C_F32 ? "f32" : "inputs"; }

const char *walk_name(int walk)
{
    return walk == HG__WALK_STATIC ? "static" : walk == HG__WALK_DYNAMIC ? "dynamic" : "rule";
}

const char *share_name(int share)
{
    return share == (SHARE_A | SHARE_B) ? "ab" : share == SHARE_A ? "a" : share == SHARE_B ? "b" : "none";
}

hg_matmul_desc call_desc(const options *o, const void *A, int64_t lda, const void *B, int64_t ldb, void *C,
                         int64_t ldc, const void *bias)
{
    hg_matmul_desc d = HG_MATMUL_DESC_INIT;
    d.opA = o->opA, d.opB = o->opB, d.m = o->m, d.n = o->n, d.k = o->k, d.alpha = o->alpha, d.beta = o->beta;
    d.A = A, d.lda = lda, d.B = B, d.ldb = ldb, d.C = C, d.ldc = ldc, d.dtype = o->dtype;
    d.bias = o->bias ? bias : NULL, d.activation = o->act;
    /* A batch's products packed one after another; one bias for all. */
    d.batch_count = o->batch;
    batch_strides(o, &d.stride_a, &d.stride_b, &d.stride_c);
    d.compute = o->compute;
    d.c_type = o->c_type;
    return d;
}

const char *epilogue_name(const options *o)
{
    static const char *const names[2][3] = {{"none", "relu", "gelu"}, {"bias", "bias+relu", "bias+gelu"}};
    return names[o->bias ? 1 : 0][o->act == HG_ACT_RELU ? 1 : o->act == HG_ACT_GELU_TANH ? 2 : 0];
}

void usage(FILE *f)
{
    fprintf(f,
            "usage: " TOOL " [options]\n"
            "Times hopgemm's kernels and two cuBLAS baselines on one GEMM, row-major\n"
            "C[m,n] = alpha op(A) op(B) + beta C, and checks each result.\n"
            "\n"
            "  --kernel NAME[,NAME...]  what to measure: a kernel of --list, auto, cublas,\n"
            "                           cublas-best, family (its configurations), or all\n"
            "                           (default: all). cublas and cublas-best are always\n"
            "                           measured too.\n"
            "  -m N  -n N  -k N         the shape (default 8192 each)\n"
            "  --layout TN|TT|NN|NT     TN: opA=N opB=T (default); TT: N,N; NN: T,T; NT: T,N\n"
            "  --lda N --ldb N --ldc N  leading dimensions in elements (default: the row\n"
            "                           lengths), to time padded or odd-strided operands\n"
            "  --shapes FILE            every product of FILE, a line each: m n k layout\n"
            "                           dtype [beta] (shared/bench/sweep.txt's format), one\n"
            "                           after the other, progress and ETA on stderr, rows\n"
            "                           appended to --csv; best with --fresh, so that a\n"
            "                           hang ends one process, not the sweep\n"
            "  --dtype f16|bf16         element type of A, B, the bias, and C unless --c-type\n"
            "                           f32 (default f16)\n"
            "  --alpha X  --beta X      the scalars (default 1 and 0)\n"
            "  --batch N                a strided batch of N products (hg_matmul's batch_count),\n"
            "                           packed one after another; cublas runs\n"
            "                           cublasGemmStridedBatchedEx, cublas-best cuBLASLt with\n"
            "                           the batch (default 1)\n"
            "  --share a|b|ab|none      with --batch: that operand is one matrix every product\n"
            "                           reads (stride 0; default none)\n"
            "  --stride-a N --stride-b N  with --batch: the elements from one product's A (B)\n"
            "                           to the next's, for hg_matmul and both cuBLAS baselines;\n"
            "                           shorter than a matrix, products overlap (default: one\n"
            "                           matrix, packed); not beside --share of the same operand\n"
            "  --compute 32f|16f        the accumulation (hg_matmul's compute; fp16 only for\n"
            "                           16f): 16f lets the _f16acc kernels run, cublas and\n"
            "                           cublas-best run CUBLAS_COMPUTE_16F, and the check's\n"
            "                           bound widens to fp16 accumulation's (default 32f)\n"
            "  --c-type inputs|f32      C's element type (hg_matmul's c_type): inputs, the\n"
            "                           inputs' dtype (default), or f32: C, the old C that\n"
            "                           beta reads, --ldc and the check count fp32 elements\n"
            "                           (the bias stays in the inputs' dtype); cublas and\n"
            "                           cublas-best write fp32 C (CUDA_R_32F; cuBLASLt reads\n"
            "                           the bias widened to fp32), which cuBLAS cannot with\n"
            "                           --compute 16f (n/a)\n");
    /* Two strings: C11 promises literals of 4095 characters only. */
    fprintf(f,
            "  --bias  --act relu|gelu  hg_matmul's epilogue: a bias per column of C (random)\n"
            "                           and an activation; cublas-best runs cuBLASLt's own\n"
            "                           (CUBLASLT_EPILOGUE_GELU_BIAS and the like), cublas\n"
            "                           (cublasGemmEx, none) does not run\n"
            "  --slices on|off|force    on: a long k over few tiles may run as k slices summed\n"
            "                           by a second launch, where AUTO's model prefers it, for\n"
            "                           a pinned kernel too (default); off: never, each kernel\n"
            "                           on the whole k (its own stream-K only); force: wherever\n"
            "                           the slices can run (to time what the model declines;\n"
            "                           AUTO then takes the row it ranks best on the whole k\n"
            "                           among those that can run slices: pin rows to compare)\n"
            "  --stream-k on|off        on: the family's kernels split the last round's tiles\n"
            "                           into pieces where tiling.h's rule says (default); off:\n"
            "                           whole tiles only, AUTO's model planning the same, to\n"
            "                           time what the stream-K tail is worth\n"
            "  --walk rule|static|dynamic  the family's order over whole tiles: by host.cuh's\n"
            "                           rule (default), fixed in advance, or claimed one by one\n"
            "                           wherever that can run, to time one against the other\n"
            "  --repeat N               timed launches per kernel (default 30)\n"
            "  --warmup N               warm-up launches per kernel (default 5)\n"
            "  --cooldown S             seconds of idle before each kernel (default 3)\n"
            "  --sustain S              after the timed launches, launch each kernel back to\n"
            "                           back for about S seconds between one pair of events\n"
            "                           (no idle, no event between launches, as a server or a\n"
            "                           training loop calls it): sustained_ms, its time per\n"
            "                           launch under the board's power limit (default 0: not)\n"
            "  --copy-bw                after the kernels, time device-to-device copies of\n"
            "                           256 MiB (the board's rate) and of the product's bytes,\n"
            "                           and print each kernel's bytes moved per second (A, B,\n"
            "                           C; C twice with beta) as a fraction of the board's\n"
            "                           (of copy; CSV copy_tbps, of_copy, copy_same_tbps)\n"
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
            "  --plan                   measure nothing: which kernels can serve the product,\n"
            "                           AUTO's estimate of each, its choice and how that cuts\n"
            "                           the product (tiles, rounds, stream-K pieces; needs no\n"
            "                           GPU: without one, an H200 as modeled); with --shapes,\n"
            "                           for every product; --kernel's names are checked, not\n"
            "                           used (every kernel is listed)\n"
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
 * registered kernel (hg_kernel_info) or auto. */
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
    if (strcasecmp(name, hg_kernel_name(HG_KERNEL_AUTO)) == 0) {
        copy_str(out->name, sizeof out->name, hg_kernel_name(HG_KERNEL_AUTO));
        out->kind = SEL_HG;
        out->id = HG_KERNEL_AUTO;
        return true;
    }
    hg_kernel id;
    const char *kn;
    for (int i = 0; (kn = hg_kernel_info(i, &id, NULL)) != NULL; i++) {
        if (strcasecmp(kn, name) == 0) {
            copy_str(out->name, sizeof out->name, kn);
            out->kind = SEL_HG;
            out->id = id;
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
 * order and "family" to the family's configurations (names sm90_...), then
 * both baselines (the ratio needs cublas-best) except in an ncu child, which
 * profiles exactly the one it was given. */
int build_selection(options *o)
{
    char buf[512];
    if (strlen(o->kernel_arg) >= sizeof buf) return usage_error("--kernel list too long: '%s'", o->kernel_arg);
    strcpy(buf, o->kernel_arg);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        sel s;
        const bool all = strcasecmp(tok, "all") == 0, family = strcasecmp(tok, "family") == 0;
        if (all || family) {
            for (int i = 0; i < hg_kernel_count(); i++) {
                memset(&s, 0, sizeof s);
                const char *kn = hg_kernel_info(i, &s.id, NULL);
                if (kn == NULL || (family && strncmp(kn, "sm90_", 5) != 0)) continue;
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

bool set_layout(options *o, const char *v)
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
int parse_option(options *o, const char *name, const char *v)
{
    int64_t i64;
    double f;
    if (strcmp(name, "--kernel") == 0) {
        o->kernel_arg = v;
    } else if (strcmp(name, "-m") == 0 || strcmp(name, "-n") == 0 || strcmp(name, "-k") == 0) {
        if (!parse_i64(v, 1, INT32_MAX, &i64)) return usage_error("bad size '%s' (1 to 2^31 - 1)", v);
        *(name[1] == 'm' ? &o->m : name[1] == 'n' ? &o->n : &o->k) = i64;
    } else if (strcmp(name, "--lda") == 0 || strcmp(name, "--ldb") == 0 || strcmp(name, "--ldc") == 0) {
        if (!parse_i64(v, 1, (int64_t)1 << 36, &i64)) return usage_error("bad %s '%s' (1 to 2^36)", name, v);
        *(name[4] == 'a' ? &o->lda : name[4] == 'b' ? &o->ldb : &o->ldc) = i64;
    } else if (strcmp(name, "--layout") == 0) {
        if (!set_layout(o, v)) return usage_error("bad layout '%s' (TN, TT, NN or NT)", v);
    } else if (strcmp(name, "--dtype") == 0) {
        if (strcasecmp(v, "f16") == 0 || strcasecmp(v, "fp16") == 0) o->dtype = HG_F16;
        else if (strcasecmp(v, "bf16") == 0) o->dtype = HG_BF16;
        else return usage_error("bad dtype '%s' (f16 or bf16)", v);
    } else if (strcmp(name, "--batch") == 0) {
        if (!parse_i64(v, 1, INT32_MAX, &i64)) return usage_error("bad --batch '%s' (1 to 2^31 - 1)", v);
        o->batch = i64;
    } else if (strcmp(name, "--share") == 0) {
        if (strcasecmp(v, "a") == 0) o->share = SHARE_A;
        else if (strcasecmp(v, "b") == 0) o->share = SHARE_B;
        else if (strcasecmp(v, "ab") == 0) o->share = SHARE_A | SHARE_B;
        else if (strcasecmp(v, "none") == 0) o->share = 0;
        else return usage_error("bad --share '%s' (a, b, ab or none)", v);
    } else if (strcmp(name, "--stride-a") == 0 || strcmp(name, "--stride-b") == 0) {
        if (!parse_i64(v, 1, (int64_t)1 << 40, &i64)) return usage_error("bad %s '%s' (1 to 2^40)", name, v);
        *(name[9] == 'a' ? &o->stride_a : &o->stride_b) = i64;
    } else if (strcmp(name, "--compute") == 0) {
        if (strcasecmp(v, "32f") == 0) o->compute = HG_COMPUTE_32F;
        else if (strcasecmp(v, "16f") == 0) o->compute = HG_COMPUTE_16F;
        else return usage_error("bad --compute '%s' (32f or 16f)", v);
    } else if (strcmp(name, "--c-type") == 0) {
        if (strcasecmp(v, "inputs") == 0) o->c_type = HG_C_AS_INPUTS;
        else if (strcasecmp(v, "f32") == 0 || strcasecmp(v, "fp32") == 0) o->c_type = HG_C_F32;
        else return usage_error("bad --c-type '%s' (inputs or f32)", v);
    } else if (strcmp(name, "--slices") == 0) {
        if (strcasecmp(v, "on") == 0) o->slices = HG__SLICES_BY_MODEL;
        else if (strcasecmp(v, "off") == 0) o->slices = HG__SLICES_NEVER;
        else if (strcasecmp(v, "force") == 0) o->slices = HG__SLICES_ALWAYS;
        else return usage_error("bad --slices '%s' (on, off or force)", v);
    } else if (strcmp(name, "--stream-k") == 0) {
        if (strcasecmp(v, "on") == 0) o->stream_k = 1;
        else if (strcasecmp(v, "off") == 0) o->stream_k = 0;
        else return usage_error("bad --stream-k '%s' (on or off)", v);
    } else if (strcmp(name, "--walk") == 0) {
        int w = HG__WALK_BY_RULE;
        while (w <= HG__WALK_DYNAMIC && strcasecmp(v, walk_name(w)) != 0) w++;
        if (w > HG__WALK_DYNAMIC) return usage_error("bad --walk '%s' (rule, static or dynamic)", v);
        o->walk = w;
    } else if (strcmp(name, "--act") == 0) {
        if (strcasecmp(v, "none") == 0) o->act = HG_ACT_NONE;
        else if (strcasecmp(v, "relu") == 0) o->act = HG_ACT_RELU;
        else if (strcasecmp(v, "gelu") == 0) o->act = HG_ACT_GELU_TANH;
        else return usage_error("bad activation '%s' (none, relu or gelu)", v);
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
    } else if (strcmp(name, "--sustain") == 0) {
        if (!parse_f64(v, 0.0, 600.0, &f)) return usage_error("bad --sustain '%s' (0 to 600 s)", v);
        o->sustain = f;
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
    } else if (strcmp(name, "--shapes") == 0) {
        o->shapes = v;
    } else if (strcmp(name, "--csv") == 0) {
        o->csv = v;
    } else if (strcmp(name, "--json") == 0) {
        o->json = v;
    } else {
        return usage_error("unknown option '%s'", name);
    }
    return 0;
}

int parse_args(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->kernel_arg = "all";
    o->m = o->n = o->k = 8192;
    o->batch = 1;
    o->compute = HG_COMPUTE_32F;
    o->c_type = HG_C_AS_INPUTS;
    set_layout(o, "TN");
    o->dtype = HG_F16;
    o->alpha = 1.0f;
    o->beta = 0.0f;
    o->repeat = 30;
    o->warmup = 5;
    o->cooldown = 3.0;
    o->stream_k = 1;
    o->timeout = 120.0;
    o->mode = MODE_MAIN;
    static const char *const flags[] = {"--check", "--bias", "--list", "--plan",   "--ncu",
                                        "--copy-bw", "--help", "-h", FLAG_CHILD, FLAG_NCU_CHILD};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool is_flag = false;
        for (size_t j = 0; j < sizeof flags / sizeof flags[0]; j++) is_flag |= strcmp(a, flags[j]) == 0;
        if (is_flag) {
            if (strcmp(a, "--check") == 0) o->check_full = true;
            else if (strcmp(a, "--bias") == 0) o->bias = true;
            else if (strcmp(a, "--list") == 0) o->list = true;
            else if (strcmp(a, "--plan") == 0) o->plan = true;
            else if (strcmp(a, "--ncu") == 0) o->ncu = true;
            else if (strcmp(a, "--copy-bw") == 0) o->copy_bw = true;
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
    /* A leading dimension below its row length is the library's
     * HG_STATUS_INVALID_VALUE; say so here, before any device work. */
    int64_t row_a = o->opA == HG_OP_N ? o->k : o->m, row_b = o->opB == HG_OP_N ? o->n : o->k;
    if (o->lda && o->lda < row_a) return usage_error("--lda %lld is below A's row length %lld", (long long)o->lda, (long long)row_a);
    if (o->ldb && o->ldb < row_b) return usage_error("--ldb %lld is below B's row length %lld", (long long)o->ldb, (long long)row_b);
    if (o->ldc && o->ldc < o->n) return usage_error("--ldc %lld is below n = %lld", (long long)o->ldc, (long long)o->n);
    if (o->share && o->batch == 1) return usage_error("--share takes --batch of 2 or more");
    if ((o->stride_a || o->stride_b) && o->batch == 1)
        return usage_error("--stride-a and --stride-b take --batch of 2 or more");
    const char both = o->share & SHARE_A && o->stride_a ? 'a' : o->share & SHARE_B && o->stride_b ? 'b' : 0;
    if (both) return usage_error("--stride-%c beside --share %s (a shared operand's stride is 0)", both, share_name(o->share));
    if (o->compute == HG_COMPUTE_16F && o->dtype != HG_F16)
        return usage_error("--compute 16f takes --dtype f16 (no kernel accumulates bf16 in 16 bits)");
    return 0;
}
