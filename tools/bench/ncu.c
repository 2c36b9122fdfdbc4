#include "bench.h"

/* ---- --ncu ----------------------------------------------------------------- */

bool executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* ncu on PATH, else where the CUDA toolkit or Nsight Compute installs it. */
bool find_ncu(char *out, size_t n)
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
int profile_ncu(const options *o, const char *exe, const char *ncu, result *res)
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
