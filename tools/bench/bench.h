/* hopgemm-bench's parts, one concern a file: options.c (the command line),
 * util.c (arithmetic, inputs, results), device.c (buffers, handles, launches,
 * timing), measure.c (one kernel: prepare, time, check), fresh.c (child
 * processes), ncu.c (Nsight Compute), output.c (table, CSV, JSON), main.c.
 * This header holds the types they share and the functions one file gives
 * the others. */
#ifndef HG_BENCH_H
#define HG_BENCH_H

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

#include "../nvml.h"
#include "hg_internal.h"
#include "hopgemm.h"


#define TOOL "hopgemm-bench"

enum { BENCH_EXIT_OK = 0, BENCH_EXIT_FAIL = 1, BENCH_EXIT_NO_GPU = 2, BENCH_EXIT_USAGE = 64 };

#define MAX_SEL 64 /* --kernel all: every registered kernel and the two cuBLAS baselines */
#define NAME_LEN 40
#define NOTE_LEN 256
#define ERR_LEN 512
#define LT_WORKSPACE ((size_t)64 << 20) /* cuBLAS-best's workspace: 64 MiB */
#define LT_CANDIDATES 8
#define CAND_WARMUP 2  /* a candidate's brief timing during cuBLAS-best's search */
#define CAND_REPEAT 10
#define COPY_BW_BYTES ((size_t)256 << 20) /* --copy-bw's board rate: a copy of this many bytes */
#define SAMPLES_DEFAULT 1024
#define SAMPLES_CHECK 16384
#define MAX_FRESH 100
#define SHOW_MISMATCHES 5
#define HOST_CALLS 64 /* launches whose host time is averaged (time_host) */
#define CHILD_TAG "@hgb"

/* The hidden flags of the processes the tool starts itself. */
#define FLAG_CHILD "--hgb-child"
#define FLAG_NCU_CHILD "--hgb-ncu-child"

/* ncu's metrics: wgmma and mma.sync count on different tensor pipes. */
#define M_GMMA "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active"
#define M_HMMA "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"
#define M_CLOCK "sm__cycles_elapsed.avg.per_second"
#define M_TIME "gpu__time_duration.sum"

typedef enum { SEL_HG, SEL_CUBLAS, SEL_CUBLAS_BEST } sel_kind;

/* One thing to measure: a hopgemm kernel (by id) or a cuBLAS baseline. */
typedef struct {
    char name[NAME_LEN];
    sel_kind kind;
    hg_kernel id;
    int variant; /* V6 with a mechanism taken away (hg__v6_launch_variant); 0: none */
} sel;

extern const char *const v6_variants[];
#define V6_VARIANTS 5
typedef enum { MODE_MAIN, MODE_CHILD, MODE_NCU_CHILD } run_mode;

/* --share's operands: stride 0, one matrix every product of the batch reads. */
enum { SHARE_A = 1, SHARE_B = 2 };

typedef struct {
    const char *kernel_arg; /* as given; children get it verbatim */
    sel sels[MAX_SEL];
    int nsel;
    int64_t m, n, k;
    int64_t lda, ldb, ldc; /* as asked (--lda ...); 0: the smallest the layout allows */
    const char *layout; /* "TN", "TT", "NN", "NT" */
    hg_op opA, opB;
    hg_dtype dtype;
    float alpha, beta;
    int64_t batch;          /* --batch: products of a strided batch, packed one after another */
    int share;              /* --share: SHARE_A | SHARE_B, that operand one matrix for every product (stride 0) */
    int64_t stride_a, stride_b; /* --stride-a, --stride-b: elements from one product's A (B) to the next's;
                                 * 0: not given (packed, or --share's 0) */
    bool bias;              /* --bias: hg_matmul with a random bias of n elements */
    hg_activation act;      /* --act */
    hg_compute compute;     /* --compute: hg_matmul's accumulation, and cuBLAS's */
    hg_c_type c_type;       /* --c-type: C's elements (hg_matmul's c_type), and cuBLAS's */
    int slices;             /* --slices: HG__SLICES_BY_MODEL (on), _NEVER (off), _ALWAYS (force) */
    int stream_k;           /* --stream-k: 1 on (default), 0 off (hg__set_stream_k) */
    int walk;               /* --walk: HG__WALK_BY_RULE (rule), _STATIC, _DYNAMIC (hg__set_walk) */
    int repeat, warmup;
    double cooldown;
    double sustain; /* --sustain: seconds of launches back to back per kernel (0: none) */
    double timeout; /* seconds one wait for the GPU may take; 0: forever */
    bool copy_bw;   /* --copy-bw: measure the board's device-to-device copy rate too */
    int fresh;
    bool check_full;
    const char *csv, *json;
    const char *shapes; /* --shapes FILE: a sweep, one product a line */
    bool ncu, list, plan, help;
    bool seed_set;
    uint64_t seed;
    run_mode mode;
} options;

typedef enum { ST_OK, ST_NA, ST_FAIL, ST_ERROR } rstatus;

typedef struct {
    char name[NAME_LEN];
    rstatus status;
    bool timed;          /* ms, ms_lo, ms_hi hold a measurement */
    double ms, ms_lo, ms_hi; /* median, and the lowest and highest of what it was taken over */
    double host_us;      /* host time per call, launches queued back to back (NaN: not measured) */
    double sustained_ms; /* time per launch over --sustain seconds of them back to back, one pair of
                          * events around them all (NaN: not measured) */
    double sustained_j;   /* the board's energy per launch over them (NaN: not measured, or no NVML) */
    double sustained_mhz; /* the mean SM clock while they ran (NaN: as sustained_j) */
    double copy_tbps;     /* --copy-bw: the board's copy rate, TB/s moved, measured in the same
                           * process after the kernels (NaN: not measured) */
    double copy_same_tbps; /* --copy-bw: the rate of a copy that moves the product's bytes */
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
    uint16_t *d_bias, *h_bias; /* --bias: on the device, and its host copy for the check */
    float *lt_bias32;          /* --bias with --c-type f32: d_bias widened, for cuBLASLt */
    size_t stride_a, stride_b, stride_c;
    int copies;
    size_t na, nb, nc;
    int64_t lda, ldb, ldc;
    cudaEvent_t *ev;
    int nev;
    uint16_t *hA, *hB; /* copy 0 as the device holds it */
    void *hC, *hC0, *hCref; /* C scratch; C's start values (beta != 0); cuBLAS's output: elements
                               of C's type (c_bytes; read with hg__c_value) */
    int64_t nsamp;
    int64_t *si, *sj;
    double *sref, *sbound; /* each sample's float64 reference and its bound (hg__check_bound_act) */
    double rtol, atol;
    uint64_t seed;
    bool dead; /* a sticky CUDA error: nothing more can run in this process */
    bool hung; /* a kernel never finished: only _exit can end this process */
    char err[ERR_LEN];
} bench;

typedef enum { L_OK, L_NA, L_ERR } lstatus;

/* What to launch: a hopgemm kernel (the handle's choice), cublasGemmEx, or
 * cublasLtMatmul with a given algorithm. */
typedef struct {
    sel_kind kind;
    const cublasLtMatmulAlgo_t *algo;
    int variant; /* SEL_HG: a V6 ablation, launched directly (no dispatch) */
} launcher;

typedef struct {
    int64_t bad, shown;
    double max_err, sum_err, sum_d2, sum_r2;
} check_acc;

typedef struct {
    char *v[64];
    char store[64][512];
    int n;
} arglist;

#define NCU_MAX_LAUNCH 64
typedef struct {
    char id[16];
    char kernel[160];
    double gmma, hmma, hz, ns;
} ncu_launch;

typedef struct {
    const options *o;
    char date[32];
    const gpu_info *gpu;
    int copies;
    double best_ms; /* cublas-best's ms, NaN when it has none */
} report;

/* Room for row_fields' columns (52 today; it checks that they fit). */
#define NFIELDS 64
typedef struct {
    const char *key;
    char val[320];
    bool num; /* a number, or empty (JSON null) */
} field;

#define TCOLS 16
#define TROWS (MAX_SEL + 1)
typedef struct {
    int ncol;
    char cell[TROWS][TCOLS][48];
    bool right[TCOLS];
} table;

void copy_str(char *dst, size_t n, const char *src);
const char *dtype_name(hg_dtype d);
/* --bias and --act as the CSV's epilogue column writes them: none, bias,
 * relu, gelu, bias+relu, bias+gelu. */
const char *epilogue_name(const options *o);
/* --c-type as the command line and the CSV's c_type column write it:
 * inputs or f32. */
const char *c_type_name(hg_c_type t);
const char *share_name(int share); /* "a", "b", "ab", or "none" */
const char *walk_name(int walk);   /* --walk's value: "rule", "static" or "dynamic" */
/* The call the options describe, as hg_matmul takes it (bias used only
 * with --bias). */
hg_matmul_desc call_desc(const options *o, const void *A, int64_t lda, const void *B, int64_t ldb, void *C,
                         int64_t ldc, const void *bias);
void usage(FILE *f);
int build_selection(options *o);
int parse_args(int argc, char **argv, options *o);
bool set_layout(options *o, const char *v);
/* One option and its value into o, by the command line's rules; 0, or the
 * usage exit status after saying why on stderr. */
int parse_option(options *o, const char *name, const char *v);
/* --shapes: runs `one` on every product of the file (sweep.c). */
int run_sweep(const options *o, int (*one)(const options *o));
double median(double *v, int n);
void sleep_seconds(double s);
double tflops(const options *o, double ms);
int copies_for(size_t set_bytes, int l2_bytes);
size_t round_up(size_t x, size_t to);
/* Elements of A, B and C (every product of a --batch), and the leading
 * dimensions. */
void shape_sizes(const options *o, size_t *na, size_t *nb, size_t *nc, int64_t *lda, int64_t *ldb,
                        int64_t *ldc);
/* The batch's strides: one product's elements of A, B and C (packed), or
 * 0 (--share), or --stride-a's and --stride-b's. */
void batch_strides(const options *o, int64_t *sa, int64_t *sb, int64_t *sc);
size_t set_bytes_of(const options *o);
/* What the product moves through HBM at the least: A, B and C once each, C
 * twice where beta reads it, every product of a batch, an operand's rows that
 * products share once (the bias left out); the bytes #12's copy-bandwidth
 * figure divides by the time. */
double bytes_moved(const options *o);
/* The options' product as the library's internal rules see it, without
 * pointers (leading dimensions as asked or the smallest; no batch): what
 * hg__c_bytes, hg__check_rtol_c and hg__c_value read C's type from. */
hg__problem options_problem(const options *o);
/* Bytes of one element of C: 2, or 4 with --c-type f32 (hg__c_bytes). */
size_t c_bytes(const options *o);
/* Why the cuBLAS baselines cannot run the options' call, or NULL. */
const char *cublas_refuses(const options *o);
double check_atol(const options *o);
const char *status_name(rstatus s);
void result_init(result *r, const char *name);
bool cb(bench *b, cublasStatus_t s, const char *what);
/* The problem the float64 reference reads: host copies (the bias's), no
 * device pointers. */
hg__problem host_problem(const bench *b);
void *ptr_a(const bench *b, int c);
void *ptr_b(const bench *b, int c);
void *ptr_c(const bench *b, int c);
int query_gpu(gpu_info *g, char *err, size_t errlen);
void bench_free(bench *b);
lstatus launch_copy(bench *b, const launcher *l, int c, char *err, size_t n);
lstatus cuda_status(cudaError_t e, const char *what, char *err, size_t n);
lstatus wait_stream(bench *b, const char *what, char *err, size_t n);
lstatus time_launches(bench *b, const launcher *l, int warmup, int repeat, bool profile, double *times,
                             char *err, size_t n);
lstatus time_host(bench *b, const launcher *l, double *us, char *err, size_t n);
/* --copy-bw: a device-to-device copy's rate in TB/s of bytes moved (read
 * and written), copying `each` bytes at a time (cudaMemcpyAsync) over
 * buffers of its own. */
lstatus time_copy_bw(bench *b, size_t each, double *tbps, char *err, size_t n);
/* --sustain's figures per launch (NaN: not measured): time, the board's
 * energy, the mean SM clock. */
typedef struct {
    double ms, joules, mhz;
} sustained;
/* Clock samples during --sustain: at most one per SUSTAIN_SAMPLE_S, checked
 * every SUSTAIN_SAMPLE_EVERY launches queued. */
#define SUSTAIN_SAMPLE_EVERY 16
#define SUSTAIN_SAMPLE_S 0.01
lstatus time_sustained(bench *b, const launcher *l, double seconds, double ms_each, sustained *out, char *err,
                       size_t n);
int bench_init(bench *b, const options *o);
/* cuBLASLt's heuristic candidates for the problem (at most max, the
 * workspace LT_WORKSPACE): how many, or -1 with b->err set. */
int lt_heuristic(bench *b, cublasLtMatmulHeuristicResult_t *cand, int max);
/* --check's reference output into b->hCref: cublasGemmEx, or with --bias or
 * --act cuBLASLt with its own epilogue. */
bool cublas_reference(bench *b);
void note_health(bench *b);
int measure_here(const options *o, result *res, bool *hung, char *err, size_t errlen);
void arg_add(arglist *a, const char *fmt, ...);
void add_problem_args(arglist *a, const options *o, const char *kernels, bool for_ncu, int proc);
pid_t spawn(char *const argv[], int *fd_out);
int wait_child(pid_t pid);
void print_child_row(const result *r);
bool self_path(char *out, size_t n);
int measure_fresh(const options *o, const char *exe, result *res, char *err, size_t errlen);
bool executable(const char *path);
bool find_ncu(char *out, size_t n);
int profile_ncu(const options *o, const char *exe, const char *ncu, result *res);
bool csv_compatible(const report *rep, const char *path);
bool write_csv(const report *rep, const result *res, const char *path);
bool write_json(const report *rep, const result *res, const char *path);
void print_header(const report *rep);
void print_table(const report *rep, const result *res);
void print_ncu_kernels(const options *o, const result *res);
int list_kernels(void);
/* --plan: AUTO's model for o's product per kernel (plan.c); needs no GPU. */
int plan_kernels(const options *o);

#endif
