/*
 * v6-profile: where V6's cycles go, per CTA, from the profiling build's
 * counters (make prof; -DHG_V6_PROFILE). Runs V6 a few times on one shape,
 * then prints, over the CTAs of the last launch, the mean, min and max of
 * each count, and the means as a share of the consumers' total.
 *   build/prof/v6-profile [m n k]      (default 8192 8192 8192, fp16 TN)
 * The counters cost a few instructions per k block: for attribution, not
 * timing (hopgemm-bench times the unmodified kernel).
 *   build/prof/v6-profile m n k SECONDS
 * then also launches V6 back to back for about SECONDS and reports the time
 * per launch, the mean SM clock and the board's energy per launch (NVML, read
 * through dlopen, on the board of the CUDA device in use: tools/nvml.h).
 * Under a power cap, fewer cycles per GEMM can come back as a lower clock:
 * these three together tell which happened.
 *   build/prof/v6-profile m n k SECONDS cublas
 * times cublasGemmEx (default algorithm, fp32 compute) the same way instead,
 * for the same three figures on cuBLAS's kernel, and
 *   build/prof/v6-profile m n k SECONDS KERNEL [BETA [BATCH [SHARE]]]   (SECONDS may be 0)
 * any registered kernel of --list: the same three figures, and for the
 * family's configurations (sm90_...) their counters, which have V6's fields
 * (src/kernels/prof.cuh); BETA (default 0) is hg_gemm's beta, C holding
 * what the previous launch wrote; BATCH (default 1) runs a strided batch of
 * that many packed products through hg_matmul (cuBLAS:
 * cublasGemmStridedBatchedEx), the counters then covering the whole batch;
 * SHARE (after BATCH: a, b or ab) gives the shared operands stride 0, one
 * matrix every product reads (what the batch costs beyond its operands).
 * With HG_PROFILE_COLD=1 in the environment, the counters' launch (the last)
 * follows a write of twice the L2's size, so its operands come from HBM: a
 * decode product's 34 MB otherwise stays in the H100's 50 MB L2 across the
 * launches, and its counters then describe an L2-bound kernel. That launch
 * is also timed alone (events around it: the launch's own overhead in).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "hg_internal.h"
#include "nvml.h"

#ifndef HG_V6_PROFILE
#error "v6-profile needs the profiling build: make prof"
#endif

/* The printable counts, HG_V6_PROF_TOTAL to HG_V6_PROF_PIECES in order. */
static const char *const names[] = {
    "total (consumer 0)", "mainloop 0", "full waits 0", "starved k blocks 0", "epilogue 0",
    "mainloop 1", "full waits 1", "starved k blocks 1", "epilogue 1", "producer total",
    "empty waits", "k blocks", "pieces",
};
_Static_assert(sizeof names / sizeof names[0] == HG_V6_PROF_PIECES + 1, "a name per count");

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* An HG_PROFILE_* switch: on when the environment sets it to 1. */
static int env_on(const char *name)
{
    const char *v = getenv(name);
    return v != NULL && strcmp(v, "1") == 0;
}

static uint64_t ns_at(const uint32_t *row, int lo) { return (uint64_t)row[lo] | (uint64_t)row[lo + 1] << 32; }

/* fp16 values uniform in [-1, 1) from a xorshift generator. */
static int fill_random(void *dst, size_t count, uint64_t seed)
{
    uint16_t *h = malloc(count * sizeof *h);
    if (!h) return -1;
    uint64_t x = 0x9E3779B97F4A7C15ull * seed;
    for (size_t i = 0; i < count; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        h[i] = hg__f32_to_f16((float)(x >> 40) / 8388608.0f - 1.0f);
    }
    int rc = cudaMemcpy(dst, h, count * sizeof *h, cudaMemcpyHostToDevice) == cudaSuccess ? 0 : -1;
    free(h);
    return rc;
}

static cublasHandle_t cublas; /* set: time cuBLAS instead of V6 */
static float beta;             /* hg_gemm's beta (cuBLAS runs beta = 0) */
static int64_t batch = 1;      /* packed products a launch */
static int64_t stride_a, stride_b; /* elements from one product's A (B) to the next's; 0: shared */

static int launch(hg_handle h, int64_t m, int64_t n, int64_t k, void *a, void *b, void *c)
{
    if (cublas) {
        /* Row-major C = A B^T is column-major C^T = B A^T. */
        const float one = 1.0f, zero = 0.0f;
        if (cublasGemmStridedBatchedEx(cublas, CUBLAS_OP_T, CUBLAS_OP_N, (int)n, (int)m, (int)k, &one, b, CUDA_R_16F,
                                       (int)k, stride_b, a, CUDA_R_16F, (int)k, stride_a, &zero, c, CUDA_R_16F, (int)n,
                                       m * n, (int)batch, CUBLAS_COMPUTE_32F,
                                       CUBLAS_GEMM_DEFAULT) != CUBLAS_STATUS_SUCCESS) {
            printf("v6-profile: cublasGemmStridedBatchedEx failed\n");
            return -1;
        }
        return 0;
    }
    hg_matmul_desc d = HG_MATMUL_DESC_INIT;
    d.opA = HG_OP_N, d.opB = HG_OP_T, d.m = m, d.n = n, d.k = k, d.beta = beta;
    d.A = a, d.lda = k, d.B = b, d.ldb = k, d.C = c, d.ldc = n;
    d.batch_count = batch, d.stride_a = stride_a, d.stride_b = stride_b, d.stride_c = m * n;
    if (hg_matmul(h, &d) != HG_STATUS_SUCCESS) {
        printf("v6-profile: %s\n", hg_last_error(h));
        return -1;
    }
    return 0;
}

/* Back-to-back launches for about `seconds`, in batches of 20; the SM clock
 * is sampled while a batch runs, the energy counter around the whole run. */
static void timed_run(hg_handle h, int64_t m, int64_t n, int64_t k, void *a, void *b, void *c, double seconds)
{
    int dev = 0;
    (void)cudaGetDevice(&dev);
    const int have_nvml = tool_nvml_open(dev) == 0;
    if (!have_nvml) printf("(NVML not available: no clock or energy)\n");
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0), cudaEventCreate(&e1);
    unsigned long long mj0 = 0, mj1 = 0;
    double clock_sum = 0;
    int samples = 0, launches = 0;
    float ms = 0;
    if (have_nvml) tool_nvml_energy_mj(&mj0);
    cudaEventRecord(e0, 0);
    while (ms < seconds * 1000.0) {
        for (int i = 0; i < 20; i++, launches++)
            if (launch(h, m, n, k, a, b, c) != 0) return;
        cudaEventRecord(e1, 0);
        unsigned mhz;
        if (have_nvml && tool_nvml_sm_mhz(&mhz) == 0) clock_sum += mhz, samples++;
        cudaEventSynchronize(e1);
        cudaEventElapsedTime(&ms, e0, e1);
    }
    if (have_nvml) tool_nvml_energy_mj(&mj1);
    double per = ms / launches;
    double flops = 2.0 * (double)batch * (double)m * (double)n * (double)k;
    printf("timed: %d launches, %.4f ms each (%.1f TFLOPS)", launches, per, flops / per / 1e9);
    if (samples) printf(", SM clock %.0f MHz", clock_sum / samples);
    if (have_nvml && mj1 > mj0)
        printf(", %.0f W, %.3f J per launch", (double)(mj1 - mj0) / ms, (double)(mj1 - mj0) / 1000.0 / launches);
    printf("\n");
}

/* One launch after L2 is flushed (HG_PROFILE_COLD), timed by events. */
static int cold_launch(hg_handle h, int64_t m, int64_t n, int64_t k, void *a, void *b, void *c)
{
    int dev = 0, l2 = 0;
    void *scratch;
    (void)cudaGetDevice(&dev);
    if (cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev) != cudaSuccess ||
        cudaMalloc(&scratch, 2 * (size_t)l2) != cudaSuccess) {
        printf("v6-profile: cannot allocate the L2 flush buffer\n");
        return -1;
    }
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0), cudaEventCreate(&e1);
    float ms = 0;
    const int rc = cudaMemset(scratch, 1, 2 * (size_t)l2) != cudaSuccess || cudaEventRecord(e0, 0) != cudaSuccess ||
                   launch(h, m, n, k, a, b, c) != 0 || cudaEventRecord(e1, 0) != cudaSuccess ||
                   cudaEventSynchronize(e1) != cudaSuccess || cudaEventElapsedTime(&ms, e0, e1) != cudaSuccess;
    if (!rc) printf("cold: one launch after a %d MB write, %.2f us (events)\n", 2 * l2 >> 20, 1e3 * ms);
    cudaEventDestroy(e0), cudaEventDestroy(e1);
    cudaFree(scratch);
    return rc ? -1 : 0;
}

/* The last launch's counters over the CTAs that ran: mean, min, max, and the
 * mean as a share of the consumers' total; then the clock the cycles imply
 * (cycles over %globaltimer nanoseconds) and the span from the first CTA's
 * start to the last one's end. */
static int print_counters(const char *kernel, int (*read)(uint32_t *, int), int64_t m, int64_t n, int64_t k,
                          int sms)
{
    uint32_t *rows = calloc((size_t)sms * HG_V6_PROF_FIELDS, sizeof(uint32_t));
    if (!rows || read(rows, sms) != 0) {
        printf("v6-profile: cannot read the counters\n");
        free(rows);
        return -1;
    }
    /* HG_PROFILE_ROWS=1: every CTA with k blocks, one line each (block,
     * SM, end after the first start, consumer 0's mainloop), so runs can be
     * joined by SM. */
    if (env_on("HG_PROFILE_ROWS")) {
        uint64_t t_first = UINT64_MAX;
        for (int i = 0; i < sms; i++) {
            const uint32_t *row = &rows[i * HG_V6_PROF_FIELDS];
            if (row[HG_V6_PROF_KBLOCKS] != 0 && ns_at(row, HG_V6_PROF_T0_LO) < t_first)
                t_first = ns_at(row, HG_V6_PROF_T0_LO);
        }
        for (int i = 0; i < sms; i++) {
            const uint32_t *row = &rows[i * HG_V6_PROF_FIELDS];
            if (row[HG_V6_PROF_KBLOCKS] == 0) continue;
            printf("row block %d sm %u end_us %.3f main0 %u kblocks %u\n", i, row[HG_V6_PROF_SMID],
                   (double)(ns_at(row, HG_V6_PROF_T1_LO) - t_first) / 1e3, row[HG_V6_PROF_MAIN0],
                   row[HG_V6_PROF_KBLOCKS]);
        }
    }
    /* Rows of CTAs that computed (a grid smaller than the SM count leaves
     * the rest at the zeros the array starts with; a CTA the plan gave no
     * k block only starts and ends, and would pull every mean and minimum
     * down). */
    int ctas = 0, idle = 0;
    for (int i = 0; i < sms; i++) {
        const uint32_t *row = &rows[i * HG_V6_PROF_FIELDS];
        if (row[HG_V6_PROF_TOTAL] == 0) continue;
        if (row[HG_V6_PROF_KBLOCKS] == 0) {
            idle++;
            continue;
        }
        memmove(&rows[ctas++ * HG_V6_PROF_FIELDS], row, HG_V6_PROF_FIELDS * sizeof *rows);
    }
    if (ctas == 0) {
        printf("v6-profile: no counters were written (not the profiling build's kernel, or a family "
               "configuration with two m64 atoms per consumer, which has none)\n");
        free(rows);
        return -1;
    }
    printf("%s %lld x %lldx%lldx%lld fp16 TN, %d CTAs with k blocks (%d without, left out), "
           "cycles (SM clock) per CTA\n",
           kernel, (long long)batch, (long long)m, (long long)n, (long long)k, ctas, idle);
    printf("%-20s %12s %12s %12s %8s\n", "count", "mean", "min", "max", "of total");
    double total = 0;
    for (int i = 0; i < ctas; i++) total += rows[i * HG_V6_PROF_FIELDS + HG_V6_PROF_TOTAL];
    total /= ctas;
    for (int f = 0; f < (int)(sizeof names / sizeof names[0]); f++) {
        double sum = 0;
        uint32_t lo = UINT32_MAX, hi = 0;
        for (int i = 0; i < ctas; i++) {
            uint32_t v = rows[i * HG_V6_PROF_FIELDS + f];
            sum += v, lo = v < lo ? v : lo, hi = v > hi ? v : hi;
        }
        double mean = sum / ctas;
        int is_count = f == HG_V6_PROF_STARVED0 || f == HG_V6_PROF_STARVED1 || f >= HG_V6_PROF_KBLOCKS;
        if (is_count)
            printf("%-20s %12.1f %12u %12u\n", names[f], mean, lo, hi);
        else
            printf("%-20s %12.0f %12u %12u %7.2f%%\n", names[f], mean, lo, hi, 100.0 * mean / total);
    }
    uint64_t first = UINT64_MAX, last_start = 0, first_end = UINT64_MAX, last = 0;
    double mhz = 0;
    for (int i = 0; i < ctas; i++) {
        const uint32_t *row = &rows[i * HG_V6_PROF_FIELDS];
        uint64_t t0 = ns_at(row, HG_V6_PROF_T0_LO), t1 = ns_at(row, HG_V6_PROF_T1_LO);
        first = t0 < first ? t0 : first, last = t1 > last ? t1 : last;
        last_start = t0 > last_start ? t0 : last_start, first_end = t1 < first_end ? t1 : first_end;
        if (t1 > t0) mhz += 1e3 * row[HG_V6_PROF_TOTAL] / (double)(t1 - t0);
    }
    printf("SM clock from the counters %.0f MHz; first CTA start to last CTA end %.4f ms\n", mhz / ctas,
           (double)(last - first) / 1e6);
    /* How far apart the CTAs start and end: a launch's ramp and its tail,
     * beside the time per launch above (which also holds the gaps between
     * launches). */
    printf("CTA starts spread over %.2f us, ends over %.2f us\n", (double)(last_start - first) / 1e3,
           (double)(last - first_end) / 1e3);
    /* How evenly the SMs were served: the CTAs' ends after the first start,
     * and consumer 0's mainloop, at the 0th, 10th, 50th, 90th and 100th
     * percentiles (CTAs with equal work that end far apart had unequal
     * shares of the memory's bandwidth). */
    double *ends = malloc((size_t)ctas * sizeof *ends), *mains = malloc((size_t)ctas * sizeof *mains);
    if (ends && mains) {
        for (int i = 0; i < ctas; i++) {
            const uint32_t *row = &rows[i * HG_V6_PROF_FIELDS];
            ends[i] = (double)(ns_at(row, HG_V6_PROF_T1_LO) - first) / 1e3;
            mains[i] = row[HG_V6_PROF_MAIN0];
        }
        qsort(ends, (size_t)ctas, sizeof *ends, cmp_double);
        qsort(mains, (size_t)ctas, sizeof *mains, cmp_double);
        static const int pct[] = {0, 10, 50, 90, 100};
        const int npct = (int)(sizeof pct / sizeof pct[0]);
        printf("percentile          ");
        for (int j = 0; j < npct; j++) printf(" %9d", pct[j]);
        printf("\nCTA end, us         ");
        for (int j = 0; j < npct; j++) printf(" %9.2f", ends[(ctas - 1) * pct[j] / 100]);
        printf("\nmainloop 0, cycles  ");
        for (int j = 0; j < npct; j++) printf(" %9.0f", mains[(ctas - 1) * pct[j] / 100]);
        printf("\n");
    }
    free(ends), free(mains);
    free(rows);
    return 0;
}

int main(int argc, char **argv)
{
    int64_t m = 8192, n = 8192, k = 8192;
    double seconds = 0;
    if (argc >= 4) m = atoll(argv[1]), n = atoll(argv[2]), k = atoll(argv[3]);
    if (argc >= 5) seconds = atof(argv[4]);
    if (argc >= 7) beta = (float)atof(argv[6]);
    if (argc >= 8) batch = atoll(argv[7]);
    if (batch < 1) batch = 1;
    const int share_a = argc >= 9 && strchr(argv[8], 'a') != NULL, share_b = argc >= 9 && strchr(argv[8], 'b') != NULL;
    stride_a = share_a ? 0 : m * k, stride_b = share_b ? 0 : n * k;
    int sms = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0) != cudaSuccess) {
        printf("v6-profile: no GPU\n");
        return 1;
    }
    void *a, *b, *c;
    /* A shared operand is one matrix. */
    const size_t na = (size_t)(share_a ? m * k : batch * m * k), nb = (size_t)(share_b ? n * k : batch * n * k);
    const size_t nc = (size_t)(batch * m * n);
    if (cudaMalloc(&a, na * 2) || cudaMalloc(&b, nb * 2) || cudaMalloc(&c, nc * 2)) {
        printf("v6-profile: cudaMalloc failed\n");
        return 1;
    }
    /* Uniform in [-1, 1), as hopgemm-bench draws them: the values do not
     * change the cycles, but they change the power (constant inputs drew 440
     * W against 690 W at 8192^3 on the H200), and so the clock. */
    if (fill_random(a, na, 1) != 0 || fill_random(b, nb, 2) != 0 || cudaMemset(c, 0, nc * 2) != cudaSuccess) {
        printf("v6-profile: cannot fill the inputs\n");
        return 1;
    }
    hg_kernel kid = HG_KERNEL_V6;
    if (argc >= 6 && strcmp(argv[5], "cublas") != 0) {
        const char *name;
        hg_kernel id;
        int found = 0;
        for (int i = 0; !found && (name = hg_kernel_info(i, &id, NULL)) != NULL; i++)
            if (strcmp(name, argv[5]) == 0) kid = id, found = 1;
        if (!found) {
            printf("v6-profile: no kernel %s (hopgemm-bench --list)\n", argv[5]);
            return 1;
        }
        printf("%s, beta %g:\n", argv[5], beta);
    }
    hg_handle h;
    if (hg_create(&h) != HG_STATUS_SUCCESS || hg_set_kernel(h, kid) != HG_STATUS_SUCCESS) {
        printf("v6-profile: %s\n", hg_last_error(NULL));
        return 1;
    }
    if (argc >= 6 && strcmp(argv[5], "cublas") == 0) {
        if (cublasCreate(&cublas) != CUBLAS_STATUS_SUCCESS) {
            printf("v6-profile: cublasCreate failed\n");
            return 1;
        }
        printf("cuBLAS (cublasGemmEx, default algorithm):\n");
    }
    for (int i = 0; i < 5; i++)
        if (launch(h, m, n, k, a, b, c) != 0) return 1;
    if (seconds > 0) timed_run(h, m, n, k, a, b, c, seconds);
    if (env_on("HG_PROFILE_COLD") && cold_launch(h, m, n, k, a, b, c) != 0) return 1;
    cudaDeviceSynchronize();
    /* The counters of the last V6 launch: the timed run's last when there
     * was one, so they describe the same conditions. */
    if (!cublas && kid == HG_KERNEL_V6 && print_counters("V6", hg__v6_profile_read, m, n, k, sms) != 0) return 1;
    if (!cublas && strncmp(hg_kernel_name(kid), "sm90_", 5) == 0 &&
        print_counters(hg_kernel_name(kid), hg__fam_profile_read, m, n, k, sms) != 0)
        return 1;
    if (cublas) cublasDestroy(cublas);
    hg_destroy(h);
    return 0;
}
