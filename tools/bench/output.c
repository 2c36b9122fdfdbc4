#include "bench.h"

/* ---- Output ------------------------------------------------------------------ */




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

/* Bytes moved per second, in TB/s (bytes_moved's bytes). */
static double tbps_of(const options *o, double ms) { return bytes_moved(o) / (ms * 1e-3) / 1e12; }

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
    int64_t lda, ldb, ldc;
    size_t na, nb, nc;
    shape_sizes(o, &na, &nb, &nc, &lda, &ldb, &ldc);
    fset(&f[n++], "lda", true, "%lld", (long long)lda);
    fset(&f[n++], "ldb", true, "%lld", (long long)ldb);
    fset(&f[n++], "ldc", true, "%lld", (long long)ldc);
    fnum(&f[n++], "ms", "%.6f", r->timed ? r->ms : NAN);
    fnum(&f[n++], "tflops", "%.2f", r->timed ? tflops(o, r->ms) : NAN);
    fnum(&f[n++], "ratio", "%.4f", ratio_of(rep, r));
    fset(&f[n++], "status", false, "%s", status_name(r->status));
    fnum(&f[n++], "ms_lo", "%.6f", r->timed ? r->ms_lo : NAN);
    fnum(&f[n++], "ms_hi", "%.6f", r->timed ? r->ms_hi : NAN);
    fnum(&f[n++], "host_us", "%.2f", r->host_us);
    fnum(&f[n++], "sustained_ms", "%.6f", r->sustained_ms);
    fnum(&f[n++], "sustained_j", "%.6f", r->sustained_j);
    fnum(&f[n++], "sustained_mhz", "%.0f", r->sustained_mhz);
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
    fset(&f[n++], "epilogue", false, "%s", epilogue_name(o));
    fset(&f[n++], "batch", true, "%lld", (long long)o->batch);
    fset(&f[n++], "share", false, "%s", share_name(o->share));
    /* (empty where not given: packed, or --share's 0) */
    fnum(&f[n++], "stride_a", "%.0f", o->stride_a ? (double)o->stride_a : NAN);
    fnum(&f[n++], "stride_b", "%.0f", o->stride_b ? (double)o->stride_b : NAN);
    fset(&f[n++], "compute", false, "%s", o->compute == HG_COMPUTE_16F ? "16f" : "32f");
    fset(&f[n++], "c_type", false, "%s", c_type_name(o->c_type));
    const double tbps = r->timed ? tbps_of(o, r->ms) : NAN;
    fnum(&f[n++], "bytes", "%.0f", bytes_moved(o));
    fnum(&f[n++], "tbps", "%.4f", tbps);
    fnum(&f[n++], "copy_tbps", "%.4f", r->copy_tbps);
    fnum(&f[n++], "of_copy", "%.4f", tbps / r->copy_tbps);
    fnum(&f[n++], "copy_same_tbps", "%.4f", r->copy_same_tbps);
    fset(&f[n++], "note", false, "%s", r->note);
    /* A column added past NFIELDS would have written beyond f: make it fail
     * the first run that prints a row, not corrupt memory silently. */
    if (n > NFIELDS) {
        fprintf(stderr, TOOL ": internal error: %d columns, room for %d (NFIELDS)\n", n, NFIELDS);
        exit(BENCH_EXIT_FAIL);
    }
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
bool csv_compatible(const report *rep, const char *path)
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

bool write_csv(const report *rep, const result *res, const char *path)
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

bool write_json(const report *rep, const result *res, const char *path)
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

void print_header(const report *rep)
{
    const options *o = rep->o;
    const gpu_info *g = rep->gpu;
    printf(TOOL " %d.%d.%d, %s, %s (sm_%d%d, %d SMs, %.0f MiB L2)\n", HG_VERSION_MAJOR, HG_VERSION_MINOR,
           HG_VERSION_PATCH, rep->date, g->name, g->cc_major, g->cc_minor, g->sms, (double)g->l2_bytes / 1048576.0);
    int64_t lda, ldb, ldc;
    size_t na, nb, nc;
    shape_sizes(o, &na, &nb, &nc, &lda, &ldb, &ldc);
    if (o->batch > 1) {
        printf("batch:   %lld products, packed one after another%s%s", (long long)o->batch,
               o->share ? ", one matrix for all of " : "", o->share ? share_name(o->share) : "");
        const char *sep = ", but ";
        if (o->stride_a) printf("%sA's %lld elements apart", sep, (long long)o->stride_a), sep = ", ";
        if (o->stride_b) printf("%sB's %lld elements apart", sep, (long long)o->stride_b);
        printf("\n");
    }
    printf("problem: %lld x %lld x %lld, %s%s, %s (opA=%c, opB=%c), lda %lld, ldb %lld, ldc %lld, alpha %g, beta %g\n",
           (long long)o->m, (long long)o->n, (long long)o->k, dtype_name(o->dtype),
           o->c_type == HG_C_F32 ? " (C fp32)" : "", o->layout, o->opA == HG_OP_N ? 'N' : 'T',
           o->opB == HG_OP_N ? 'N' : 'T', (long long)lda, (long long)ldb, (long long)ldc, (double)o->alpha,
           (double)o->beta);
    printf("method:  cooldown %g s, %d warm-up, median of %d event-timed launches, host us per call over %d "
           "queued launches",
           o->cooldown, o->warmup, o->repeat, HOST_CALLS);
    if (o->sustain > 0.0) printf("; sustained: about %g s back to back, one pair of events", o->sustain);
    if (o->fresh) printf("; median over %d fresh processes", o->fresh);
    printf("; %d cop%s of A, B, C\n", rep->copies, rep->copies == 1 ? "y" : "ies (L2 rotation)");
    if (o->compute == HG_COMPUTE_16F)
        printf("compute: 16f: hopgemm's _f16acc kernels and cuBLAS accumulate in fp16 (CUBLAS_COMPUTE_16F); the other "
               "hopgemm kernels in fp32, for the error beside; the bound: 4 sigma of k/16 fp16 roundings\n");
    const hg__problem p = options_problem(o);
    printf("check:   err = |x - ref| / (1 + |ref|) on %s entries vs float64; bound rtol |ref| + 2^-18 sum|terms|, "
           "rtol 2^%d (the tests' rule)",
           o->check_full ? "16384" : "1024", (int)lrint(log2(hg__check_rtol_c(&p))));
    if (o->check_full && !cublas_refuses(o)) /* check_atol's rule */
        printf("; all entries vs cuBLAS within 2 (atol + rtol |y|), atol %s",
               o->compute == HG_COMPUTE_16F ? "rtol + 8 sigma of k/16 fp16 roundings"
               : o->c_type == HG_C_F32    ? "rtol + 2^-18 |alpha| k / 4 (GELU: + 2^-11 (1 + |alpha| sqrt k))"
                                          : "rtol (1 + |alpha| sqrt k)");
    printf("\n");
}



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
void print_table(const report *rep, const result *res)
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
    heads[c++] = "TB/s";
    if (o->copy_bw) heads[c++] = "of copy";
    if (o->fresh) heads[c++] = "ms range";
    heads[c++] = "host us";
    if (o->sustain > 0.0) {
        heads[c++] = "sustained ms";
        heads[c++] = "J each";
        heads[c++] = "SM MHz";
    }
    if (o->ncu) {
        heads[c++] = "tensor %";
        heads[c++] = "SM MHz";
    }
    t.ncol = c;
    for (int j = 0; j < c; j++) {
        tcell(&t, 0, j, "%s", heads[j]);
        t.right[j] = j > 0 && j != 6; /* (6: check) */
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
        const double tbps = r->timed ? tbps_of(o, r->ms) : NAN;
        if (r->timed) tcell(&t, row, col++, "%.2f", tbps);
        else tcell(&t, row, col++, "-");
        if (o->copy_bw) {
            if (r->timed && !isnan(r->copy_tbps)) tcell(&t, row, col++, "%.3f", tbps / r->copy_tbps);
            else tcell(&t, row, col++, "-");
        }
        if (o->fresh) {
            if (r->timed) tcell(&t, row, col++, "%.4f-%.4f", r->ms_lo, r->ms_hi);
            else tcell(&t, row, col++, "-");
        }
        if (!isnan(r->host_us)) tcell(&t, row, col++, "%.1f", r->host_us);
        else tcell(&t, row, col++, "-");
        if (o->sustain > 0.0) {
            if (!isnan(r->sustained_ms)) tcell(&t, row, col++, "%.4f", r->sustained_ms);
            else tcell(&t, row, col++, "-");
            if (!isnan(r->sustained_j)) tcell(&t, row, col++, "%.4f", r->sustained_j);
            else tcell(&t, row, col++, "-");
            if (!isnan(r->sustained_mhz)) tcell(&t, row, col++, "%.0f", r->sustained_mhz);
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
void print_ncu_kernels(const options *o, const result *res)
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

int list_kernels(void)
{
    printf("%-30s %s\n", "kernel", "summary");
    for (int i = 0; i < hg_kernel_count(); i++) {
        const char *summary = "";
        const char *name = hg_kernel_info(i, NULL, &summary);
        if (name) printf("%-30s %s\n", name, summary ? summary : "");
    }
    printf("%-30s %s\n", "auto", "hopgemm's dispatch: the fastest registered kernel that serves the call");
    printf("%-30s %s\n", "cublas", "baseline: cublasGemmEx, default algorithm, CUBLAS_COMPUTE_32F");
    printf("%-30s %s\n", "cublas-best",
           "baseline: fastest of cuBLASLt's top 8 heuristic candidates, 64 MiB workspace");
    if (hg__find_kernel(HG_KERNEL_V6) != NULL) {
        static const char *const what[] = {NULL, "V6 ablation: each CTA loads its whole B (no multicast)",
                                           "V6 ablation: one cluster per tile pair (not persistent)",
                                           "V6 ablation: per-thread stores instead of the TMA-store epilogue",
                                           "V6 ablation: the last round as whole tiles (no stream-K tail)"};
        for (int v = 1; v < V6_VARIANTS; v++) printf("%-30s %s\n", v6_variants[v], what[v]);
    }
    return BENCH_EXIT_OK;
}
