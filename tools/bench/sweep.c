#include "bench.h"

/* ---- --shapes: a sweep of products ----------------------------------------- */

/* One line of a sweep file into o's shape; 1 parsed, 0 blank or a comment,
 * -1 malformed (why in err). */
static int parse_product(char *line, options *o, char *err, size_t n)
{
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    char *f[7];
    int nf = 0;
    char *save = NULL;
    for (char *t = strtok_r(line, " \t\r\n", &save); t && nf < 7; t = strtok_r(NULL, " \t\r\n", &save)) f[nf++] = t;
    if (nf == 0) return 0;
    if (nf < 5 || nf > 6) {
        snprintf(err, n, "want 'm n k layout dtype [beta]', got %d fields", nf);
        return -1;
    }
    /* Each field by the command line's own rules (parse_option says why). */
    static const char *const as_option[6] = {"-m", "-n", "-k", "--layout", "--dtype", "--beta"};
    o->beta = 0.0f;
    for (int i = 0; i < nf; i++)
        if (parse_option(o, as_option[i], f[i]) != 0) {
            snprintf(err, n, "field %d, '%s', is not a %s", i + 1, f[i], as_option[i]);
            return -1;
        }
    o->lda = o->ldb = o->ldc = 0; /* the sweep's products have the smallest */
    return 1;
}

int run_sweep(const options *base, int (*one)(const options *o))
{
    FILE *f = fopen(base->shapes, "r");
    if (!f) {
        fprintf(stderr, TOOL ": --shapes %s: %s\n", base->shapes, strerror(errno));
        return BENCH_EXIT_USAGE;
    }
    /* Read and check the whole file first: a typo fails now, not an hour in. */
    options *list = NULL;
    int n = 0, cap = 0, lineno = 0, rc = BENCH_EXIT_OK;
    char line[512], err[ERR_LEN];
    while (fgets(line, sizeof line, f)) {
        lineno++;
        options o = *base;
        int r = parse_product(line, &o, err, sizeof err);
        if (r < 0) {
            fprintf(stderr, TOOL ": --shapes %s:%d: %s\n", base->shapes, lineno, err);
            rc = BENCH_EXIT_USAGE;
            break;
        }
        if (r == 0) continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            options *grown = realloc(list, (size_t)cap * sizeof *list);
            if (!grown) {
                rc = BENCH_EXIT_FAIL;
                break;
            }
            list = grown;
        }
        list[n++] = o;
    }
    fclose(f);
    if (rc == BENCH_EXIT_OK && n == 0) {
        fprintf(stderr, TOOL ": --shapes %s: no products\n", base->shapes);
        rc = BENCH_EXIT_USAGE;
    }
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; rc != BENCH_EXIT_USAGE && i < n; i++) {
        const options *o = &list[i];
        fprintf(stderr, TOOL ": [%d/%d] %lld x %lld x %lld %s %s beta %g\n", i + 1, n, (long long)o->m,
                (long long)o->n, (long long)o->k, o->layout, dtype_name(o->dtype), (double)o->beta);
        int r = one(o);
        if (r == BENCH_EXIT_NO_GPU) {
            rc = r;
            break;
        }
        if (r != BENCH_EXIT_OK) rc = BENCH_EXIT_FAIL; /* the others still run */
        clock_gettime(CLOCK_MONOTONIC, &t);
        double spent = (double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec);
        fprintf(stderr, TOOL ": [%d/%d] done, %.0f s in, about %.0f s to go\n", i + 1, n, spent,
                spent / (i + 1) * (n - i - 1));
        fflush(NULL);
    }
    free(list);
    return rc;
}
