#include "bench.h"

/* ---- Small helpers ----------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n) (sorts v). */
double median(double *v, int n)
{
    if (n <= 0) return NAN;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void sleep_seconds(double s)
{
    if (s <= 0.0) return;
    struct timespec ts;
    ts.tv_sec = (time_t)s;
    ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
    while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {
    }
}

double tflops(const options *o, double ms)
{
    return 2.0 * (double)o->m * (double)o->n * (double)o->k * (double)o->batch / (ms * 1e9);
}

/* Copies of A, B, C needed so that one pass over them exceeds twice the L2. */
int copies_for(size_t set_bytes, int l2_bytes)
{
    if (l2_bytes <= 0 || set_bytes == 0 || set_bytes >= 2 * (size_t)l2_bytes) return 1;
    return (int)(2 * (size_t)l2_bytes / set_bytes) + 1;
}

size_t round_up(size_t x, size_t to) { return (x + to - 1) / to * to; }

/* Elements of A, B, C as the layout stores them (leading dimensions minimal). */
/* The leading dimensions: as asked, else the smallest the layout allows. */
static void leading_dims(const options *o, int64_t *lda, int64_t *ldb, int64_t *ldc)
{
    *lda = o->lda ? o->lda : o->opA == HG_OP_N ? o->k : o->m;
    *ldb = o->ldb ? o->ldb : o->opB == HG_OP_N ? o->n : o->k;
    *ldc = o->ldc ? o->ldc : o->n;
}

/* One matrix of A (B) as stored: its rows times the leading dimension
 * (padding is allocated and filled like any element, and never read). */
static int64_t stored_a(const options *o, int64_t lda) { return (o->opA == HG_OP_N ? o->m : o->k) * lda; }
static int64_t stored_b(const options *o, int64_t ldb) { return (o->opB == HG_OP_N ? o->k : o->n) * ldb; }

void shape_sizes(const options *o, size_t *na, size_t *nb, size_t *nc, int64_t *lda, int64_t *ldb,
                        int64_t *ldc)
{
    leading_dims(o, lda, ldb, ldc);
    int64_t sa, sb, sc;
    batch_strides(o, &sa, &sb, &sc);
    /* The last product's matrix after the others' strides (a shared
     * operand, stride 0: one matrix). */
    *na = (size_t)((o->batch - 1) * sa + stored_a(o, *lda));
    *nb = (size_t)((o->batch - 1) * sb + stored_b(o, *ldb));
    *nc = (size_t)sc * (size_t)o->batch;
}

void batch_strides(const options *o, int64_t *sa, int64_t *sb, int64_t *sc)
{
    int64_t lda, ldb, ldc;
    leading_dims(o, &lda, &ldb, &ldc);
    *sa = o->share & SHARE_A ? 0 : o->stride_a ? o->stride_a : stored_a(o, lda);
    *sb = o->share & SHARE_B ? 0 : o->stride_b ? o->stride_b : stored_b(o, ldb);
    *sc = o->m * ldc;
}

hg__problem options_problem(const options *o)
{
    int64_t lda, ldb, ldc;
    leading_dims(o, &lda, &ldb, &ldc);
    hg__problem p = hg__problem_make(o->opA, o->opB, o->m, o->n, o->k, o->alpha, NULL, lda, NULL, ldb, o->beta, NULL,
                                     ldc, o->dtype);
    p.act = o->act;
    p.compute = o->compute;
    p.c_type = o->c_type;
    return p;
}

size_t c_bytes(const options *o)
{
    const hg__problem p = options_problem(o);
    return (size_t)hg__c_bytes(&p);
}

/* Bytes of one copy of A, B and C (what the L2 rotation counts). */
size_t set_bytes_of(const options *o)
{
    size_t na, nb, nc;
    int64_t lda, ldb, ldc;
    shape_sizes(o, &na, &nb, &nc, &lda, &ldb, &ldc);
    return 2 * (na + nb) + c_bytes(o) * nc;
}

double bytes_moved(const options *o)
{
    hg__problem p = options_problem(o);
    p.batch = o->batch;
    batch_strides(o, &p.stride_a, &p.stride_b, &p.stride_c);
    /* A shared operand, and rows that products share, read once (as AUTO's
     * model counts them). */
    const double a = (double)o->m * hg__batch_copies_a(&p);
    const double b = (double)o->n * hg__batch_copies_b(&p);
    return 2.0 * (double)o->k * (a + b) + (double)o->batch * hg__c_traffic_bytes(&p);
}

/* The check's bound |x - ref| <= atol + rtol |ref|: rtol is one unit in the
 * last place of the output type (rounding the result costs half of that;
 * hg__check_rtol_c, the tests' rule); atol grows like sqrt(k), as the rounding
 * error of a k-term sum does. */
double check_atol(const options *o)
{
    const hg__problem p = options_problem(o);
    const double k = (double)o->k, alpha = fabs((double)o->alpha), rtol = hg__check_rtol_c(&p);
    /* Two fp16 accumulations (ours and cuBLAS's CUBLAS_COMPUTE_16F) differ by
     * their roundings: k / 16 steps of 2^-11 of a running sum near sqrt(k)
     * (the inputs are zero-mean, |x| <= 1), 8 standard deviations. */
    if (o->compute == HG_COMPUTE_16F) return rtol + 8.0 * sqrt(k / 16.0) * ldexp(alpha * sqrt(k), -11);
    if (o->c_type == HG_C_F32) {
        /* An fp32 C keeps the fp32 accumulations' own differences (summation
         * order, split-k), which C's rounding hides at 16 bits: the
         * reference's 2^-18 sum|terms|, sum|terms| about |alpha| k / 4 on the
         * generator's inputs (E|ab| = 1/4). GELU's tanh.approx puts up to
         * 0.5 |pre| 2^-10.987 on ours (hopgemm.h), |pre| within about
         * 1 + |alpha| sqrt(k). */
        const double atol = rtol + ldexp(alpha * k / 4.0, -18);
        return o->act == HG_ACT_GELU_TANH ? atol + ldexp(1.0 + alpha * sqrt(k), -11) : atol;
    }
    return rtol * (1.0 + alpha * sqrt(k));
}

/* ---- Results ------------------------------------------------------------- */


const char *status_name(rstatus s)
{
    switch (s) {
    case ST_OK: return "ok";
    case ST_NA: return "n/a";
    case ST_FAIL: return "FAIL";
    case ST_ERROR: return "error";
    }
    return "?";
}


void result_init(result *r, const char *name)
{
    memset(r, 0, sizeof *r);
    copy_str(r->name, sizeof r->name, name);
    r->ms = r->ms_lo = r->ms_hi = r->host_us = r->sustained_ms = r->sustained_j = r->sustained_mhz = NAN;
    r->copy_tbps = r->copy_same_tbps = NAN;
    r->max_err = r->mean_err = r->rel_fro = r->vs_max = NAN;
    r->gmma_pct = r->hmma_pct = r->tensor_pct = r->clock_mhz = r->ncu_ms = NAN;
}
