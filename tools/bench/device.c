#include "bench.h"

/* ---- The device side: buffers, handles, launches ------------------------- */



static bool cu(bench *b, cudaError_t e, const char *what)
{
    if (e == cudaSuccess) return true;
    snprintf(b->err, sizeof b->err, "%s failed: %s", what, cudaGetErrorString(e));
    return false;
}

bool cb(bench *b, cublasStatus_t s, const char *what)
{
    if (s == CUBLAS_STATUS_SUCCESS) return true;
    snprintf(b->err, sizeof b->err, "%s failed: %s", what, cublasGetStatusString(s));
    return false;
}

void *ptr_a(const bench *b, int c) { return b->slab_a + (size_t)c * b->stride_a; }
void *ptr_b(const bench *b, int c) { return b->slab_b + (size_t)c * b->stride_b; }
void *ptr_c(const bench *b, int c) { return b->slab_c + (size_t)c * b->stride_c; }

static cudaDataType_t cuda_type(hg_dtype d) { return d == HG_BF16 ? CUDA_R_16BF : CUDA_R_16F; }
static cublasOperation_t cublas_op(hg_op op) { return op == HG_OP_N ? CUBLAS_OP_N : CUBLAS_OP_T; }

/* C's (and D's) type in the cuBLAS calls: --c-type's. */
static cudaDataType_t cuda_c_type(const options *o) { return o->c_type == HG_C_F32 ? CUDA_R_32F : cuda_type(o->dtype); }

const char *cublas_refuses(const options *o)
{
    /* cublasGemmEx and cuBLASLt take CUBLAS_COMPUTE_16F with Ctype CUDA_R_16F only. */
    if (o->c_type == HG_C_F32 && o->compute == HG_COMPUTE_16F)
        return "cuBLAS has no fp32 C with CUBLAS_COMPUTE_16F (--c-type f32 with --compute 16f)";
    return NULL;
}

int query_gpu(gpu_info *g, char *err, size_t errlen)
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

void bench_free(bench *b)
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
    (void)cudaFree(b->d_bias);
    (void)cudaFree(b->lt_bias32);
    free(b->h_bias);
    if (b->stream) (void)cudaStreamDestroy(b->stream);
    free(b->hA);
    free(b->hB);
    free(b->hC);
    free(b->hC0);
    free(b->hCref);
    free(b->si);
    free(b->sj);
    free(b->sref);
    free(b->sbound);
    memset(b, 0, sizeof *b);
}

static void *host_alloc(bench *b, size_t bytes)
{
    void *p = malloc(bytes);
    if (p == NULL) snprintf(b->err, sizeof b->err, "out of host memory (%zu bytes)", bytes);
    return p;
}

/* --batch on one of cuBLASLt's layouts: the count and the stride (elements). */
static bool lt_batch(bench *b, cublasLtMatrixLayout_t l, int64_t stride)
{
    const int count = (int)b->o->batch;
    if (count <= 1) return true;
    return cb(b, cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count),
              "setting BATCH_COUNT") &&
           cb(b, cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride),
              "setting STRIDED_BATCH_OFFSET");
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
        !cb(b,
            o->compute == HG_COMPUTE_16F ? cublasLtMatmulDescCreate(&b->lt_desc, CUBLAS_COMPUTE_16F, CUDA_R_16F)
                                         : cublasLtMatmulDescCreate(&b->lt_desc, CUBLAS_COMPUTE_32F, CUDA_R_32F),
            "cublasLtMatmulDescCreate") ||
        !cb(b, cublasLtMatmulDescSetAttribute(b->lt_desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta),
            "setting TRANSA") ||
        !cb(b, cublasLtMatmulDescSetAttribute(b->lt_desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb),
            "setting TRANSB"))
        return false;
    uint64_t a_rows = (uint64_t)(ta == CUBLAS_OP_N ? o->n : o->k), a_cols = (uint64_t)(ta == CUBLAS_OP_N ? o->k : o->n);
    uint64_t b_rows = (uint64_t)(tb == CUBLAS_OP_N ? o->k : o->m), b_cols = (uint64_t)(tb == CUBLAS_OP_N ? o->m : o->k);
    int64_t sa, sb, sc;
    batch_strides(o, &sa, &sb, &sc);
    return cb(b, cublasLtMatrixLayoutCreate(&b->lt_a, dt, a_rows, a_cols, b->ldb), "cublasLtMatrixLayoutCreate(B)") &&
           cb(b, cublasLtMatrixLayoutCreate(&b->lt_b, dt, b_rows, b_cols, b->lda), "cublasLtMatrixLayoutCreate(A)") &&
           cb(b, cublasLtMatrixLayoutCreate(&b->lt_c, cuda_c_type(o), (uint64_t)o->n, (uint64_t)o->m, b->ldc),
              "cublasLtMatrixLayoutCreate(C)") &&
           lt_batch(b, b->lt_a, sb) && lt_batch(b, b->lt_b, sa) && lt_batch(b, b->lt_c, sc) &&
           cu(b, cudaMalloc(&b->lt_ws, LT_WORKSPACE), "cudaMalloc(cuBLASLt workspace)");
}

/* cuBLASLt's heuristic refuses a 16-bit bias (BIAS_DATA_TYPE CUDA_R_16F or
 * CUDA_R_16BF) with an fp32 D ("unsupported value", cuBLAS 13.0 on an
 * H200): with --c-type f32 cublas-best reads the bias widened to fp32, the
 * same values exactly. */
static bool lt_bias_f32(bench *b)
{
    const size_t n = (size_t)b->o->n;
    float *h = host_alloc(b, n * sizeof *h);
    if (h == NULL) return false;
    for (size_t j = 0; j < n; j++) h[j] = hg__to_f32(b->h_bias[j], b->o->dtype);
    const bool ok = cu(b, cudaMalloc((void **)&b->lt_bias32, n * sizeof *h), "cudaMalloc(fp32 bias)") &&
                    cu(b, cudaMemcpy(b->lt_bias32, h, n * sizeof *h, cudaMemcpyHostToDevice), "cudaMemcpy(fp32 bias)");
    free(h);
    return ok;
}

/* cublas-best with hg_matmul's epilogue (--bias, --act): cuBLASLt's own.
 * Its bias has as many elements as the rows of its D, C^T, that is our n:
 * one per column of our C, as hg_matmul's. */
static bool lt_epilogue(bench *b)
{
    const options *o = b->o;
    cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_DEFAULT;
    if (o->act == HG_ACT_RELU) epi = o->bias ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_RELU;
    else if (o->act == HG_ACT_GELU_TANH) epi = o->bias ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_GELU;
    else if (o->bias) epi = CUBLASLT_EPILOGUE_BIAS;
    if (!cb(b, cublasLtMatmulDescSetAttribute(b->lt_desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi),
            "setting the epilogue"))
        return false;
    if (!o->bias) return true;
    /* hg_matmul's bias, in the inputs' type; with an fp32 D the same values
     * in fp32 (lt_bias_f32). */
    const bool f32 = o->c_type == HG_C_F32;
    const void *bias = f32 ? (const void *)b->lt_bias32 : (const void *)b->d_bias;
    const cudaDataType_t bias_type = f32 ? CUDA_R_32F : cuda_type(o->dtype);
    return cb(b, cublasLtMatmulDescSetAttribute(b->lt_desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias),
              "setting the bias pointer") &&
           cb(b, cublasLtMatmulDescSetAttribute(b->lt_desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type,
                                                sizeof bias_type),
              "setting the bias type");
}

/* C's start values (beta != 0) in C's type: the generator's, and in fp32
 * all 24 bits of them, so that a kernel reading the old C at 16 bits shows
 * in the check (at small k, where the accumulation's bound is narrow). */
static void fill_c(const options *o, void *h, size_t count, uint64_t *st)
{
    if (o->c_type != HG_C_F32) {
        hg__fill_uniform(h, count, o->dtype, st, 0);
        return;
    }
    float *f = h;
    for (size_t i = 0; i < count; i++) f[i] = 2.0f * ((float)(hg__rng_next(st) >> 40) * (1.0f / 16777216.0f)) - 1.0f;
}

/* Fills every copy with fresh values; copy 0 last, so that the host buffers
 * end up holding it. C is poisoned (bytes 0xFF: NaN as fp16, bf16 and fp32
 * alike) when beta = 0, since no kernel may read it; with beta != 0 it holds
 * known values instead. */
static bool fill_inputs(bench *b)
{
    const options *o = b->o;
    uint64_t st = b->seed;
    for (int c = b->copies - 1; c >= 0; c--) {
        hg__fill_uniform(b->hA, b->na, o->dtype, &st, 0);
        hg__fill_uniform(b->hB, b->nb, o->dtype, &st, 0);
        if (!cu(b, cudaMemcpy(ptr_a(b, c), b->hA, b->na * 2, cudaMemcpyHostToDevice), "cudaMemcpy(A)") ||
            !cu(b, cudaMemcpy(ptr_b(b, c), b->hB, b->nb * 2, cudaMemcpyHostToDevice), "cudaMemcpy(B)"))
            return false;
        if (o->beta != 0.0f) {
            fill_c(o, b->hC0, b->nc, &st);
            if (!cu(b, cudaMemcpy(ptr_c(b, c), b->hC0, b->nc * c_bytes(o), cudaMemcpyHostToDevice), "cudaMemcpy(C)"))
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

hg__problem host_problem(const bench *b)
{
    hg__problem p = options_problem(b->o); /* b's leading dimensions are the options' */
    p.bias = b->h_bias; /* the reference reads host copies */
    return p;
}

/* The entries the check compares with the float64 reference: all of them
 * when C is small, else the four corners (edge tiles) and random others. The
 * reference is computed once here and serves every kernel of the process. A
 * --batch's products are packed, so its C is one (batch m) x n matrix: row i
 * is row i % m of product i / m. */
static bool choose_samples(bench *b)
{
    const options *o = b->o;
    int64_t want = o->check_full ? SAMPLES_CHECK : SAMPLES_DEFAULT;
    const int64_t rows = o->m * o->batch;
    int64_t total = rows * o->n;
    b->nsamp = total <= want ? total : want;
    b->si = malloc((size_t)b->nsamp * sizeof *b->si);
    b->sj = malloc((size_t)b->nsamp * sizeof *b->sj);
    b->sref = malloc((size_t)b->nsamp * sizeof *b->sref);
    b->sbound = malloc((size_t)b->nsamp * sizeof *b->sbound);
    if (!b->si || !b->sj || !b->sref || !b->sbound) {
        snprintf(b->err, sizeof b->err, "out of host memory for the check's samples");
        return false;
    }
    uint64_t st = b->seed ^ 0x5DEECE66Dull;
    for (int64_t s = 0; s < b->nsamp; s++) {
        if (total <= want) {
            b->si[s] = s / o->n;
            b->sj[s] = s % o->n;
        } else if (s < 4) {
            b->si[s] = (s & 1) ? rows - 1 : 0;
            b->sj[s] = (s & 2) ? o->n - 1 : 0;
        } else {
            b->si[s] = (int64_t)(hg__rng_next(&st) % (uint64_t)rows);
            b->sj[s] = (int64_t)(hg__rng_next(&st) % (uint64_t)o->n);
        }
    }
    fprintf(stderr, TOOL ": computing the float64 reference of %lld entries\n", (long long)b->nsamp);
    hg__problem p = host_problem(b);
    int64_t sa, sb, sc;
    batch_strides(o, &sa, &sb, &sc);
    const size_t c_product_bytes = (size_t)sc * c_bytes(o);
    for (int64_t s = 0; s < b->nsamp; s++) {
        double abs_sum;
        const int64_t prod = b->si[s] / o->m;
        const void *c0 = b->hC0 ? (const char *)b->hC0 + (size_t)prod * c_product_bytes : NULL;
        const double pre = hg__ref_element_abs(&p, b->hA + prod * sa, b->hB + prod * sb, c0, b->si[s] % o->m, b->sj[s],
                                               &abs_sum);
        b->sref[s] = hg__ref_activation(o->act, pre);
        b->sbound[s] = o->compute == HG_COMPUTE_16F
                           ? hg__check_bound_16f(o->act, b->sref[s], abs_sum, o->k)
                           : hg__check_bound_act(hg__check_rtol_c(&p), o->act, b->sref[s], pre,
                                                 hg__ref_bias(&p, b->sj[s]), abs_sum, hg__has_epilogue(&p));
    }
    return true;
}



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
        hg_status s;
        /* hg_gemm for the plain call (as it always ran); hg_matmul for what
         * hg_gemm cannot say. */
        if (o->bias || o->act != HG_ACT_NONE || o->batch > 1 || o->compute != HG_COMPUTE_32F ||
            o->c_type != HG_C_AS_INPUTS) {
            const hg_matmul_desc d = call_desc(o, A, b->lda, B, b->ldb, C, b->ldc, b->d_bias);
            s = hg_matmul(b->h, &d);
        } else {
            s = hg_gemm(b->h, o->opA, o->opB, o->m, o->n, o->k, alpha, A, b->lda, B, b->ldb, beta, C, b->ldc,
                        o->dtype);
        }
        if (s == HG_STATUS_SUCCESS) return L_OK;
        copy_str(err, n, hg_last_error(b->h));
        return s == HG_STATUS_NOT_SUPPORTED ? L_NA : L_ERR;
    }
    if (l->kind == SEL_CUBLAS && (o->bias || o->act != HG_ACT_NONE)) {
        copy_str(err, n, "no epilogue in this baseline (--bias, --act); cublas-best has it");
        return L_NA;
    }
    cublasStatus_t s;
    const char *what;
    /* With --compute 16f cuBLAS accumulates in fp16 and takes fp16 scalars. */
    const bool c16 = o->compute == HG_COMPUTE_16F;
    const uint16_t alpha_h = hg__f32_to_f16(alpha), beta_h = hg__f32_to_f16(beta);
    const void *alpha_arg = c16 ? (const void *)&alpha_h : (const void *)&alpha;
    const void *beta_arg = c16 ? (const void *)&beta_h : (const void *)&beta;
    const cublasComputeType_t ct = c16 ? CUBLAS_COMPUTE_16F : CUBLAS_COMPUTE_32F;
    /* With --c-type f32, Ctype CUDA_R_32F: CUBLAS_COMPUTE_32F takes it with
     * 16F or 16BF A and B (cublas_refuses says when it cannot). */
    const cudaDataType_t dt = cuda_type(o->dtype), ctype = cuda_c_type(o);
    if (l->kind == SEL_CUBLAS && o->batch > 1) {
        int64_t sa, sb, sc;
        batch_strides(o, &sa, &sb, &sc);
        s = cublasGemmStridedBatchedEx(b->cublas, cublas_op(o->opB), cublas_op(o->opA), (int)o->n, (int)o->m,
                                       (int)o->k, alpha_arg, B, dt, (int)b->ldb, sb, A, dt, (int)b->lda, sa, beta_arg, C,
                                       ctype, (int)b->ldc, sc, (int)o->batch, ct, CUBLAS_GEMM_DEFAULT);
        what = "cublasGemmStridedBatchedEx";
    } else if (l->kind == SEL_CUBLAS) {
        /* Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T. */
        s = cublasGemmEx(b->cublas, cublas_op(o->opB), cublas_op(o->opA), (int)o->n, (int)o->m, (int)o->k, alpha_arg, B,
                         dt, (int)b->ldb, A, dt, (int)b->lda, beta_arg, C, ctype, (int)b->ldc, ct, CUBLAS_GEMM_DEFAULT);
        what = "cublasGemmEx";
    } else {
        s = cublasLtMatmul(b->lt, b->lt_desc, alpha_arg, B, b->lt_a, A, b->lt_b, beta_arg, C, b->lt_c, C, b->lt_c, l->algo,
                           b->lt_ws, LT_WORKSPACE, b->stream);
        what = "cublasLtMatmul";
    }
    if (s == CUBLAS_STATUS_SUCCESS) return L_OK;
    snprintf(err, n, "%s failed: %s", what, cublasGetStatusString(s));
    return L_ERR;
}

lstatus launch_copy(bench *b, const launcher *l, int c, char *err, size_t n)
{
    return launch_on(b, l, ptr_a(b, c), ptr_b(b, c), ptr_c(b, c), err, n);
}

lstatus cuda_status(cudaError_t e, const char *what, char *err, size_t n)
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
lstatus wait_stream(bench *b, const char *what, char *err, size_t n)
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

/* times[i]: the milliseconds between event pair i (b->ev[2i], b->ev[2i + 1]),
 * for i < repeat, once the stream has drained. */
static lstatus event_times(bench *b, int repeat, double *times, char *err, size_t n)
{
    for (int i = 0; i < repeat; i++) {
        float ms = 0.0f;
        const lstatus st =
            cuda_status(cudaEventElapsedTime(&ms, b->ev[2 * i], b->ev[2 * i + 1]), "cudaEventElapsedTime", err, n);
        if (st != L_OK) return st;
        times[i] = ms;
    }
    return L_OK;
}

/* warmup launches, then repeat launches each between its own pair of events,
 * all queued back to back so the GPU never idles between them; times[i] gets
 * launch i's milliseconds. Launches rotate through the copies. With profile,
 * the timed launches are the only ones inside cudaProfilerStart/Stop, which
 * is what an ncu child (ncu --profile-from-start off) profiles. */
/* The host's time per call: HOST_CALLS launches queued back to back (the
 * stream's queue holds them all, so no call waits for the GPU), timed with
 * the monotonic clock, then drained. What a framework pays per product on
 * its CPU thread: validation, planning, tensor maps, the launch itself. */
lstatus time_host(bench *b, const launcher *l, double *us, char *err, size_t n)
{
    lstatus st = wait_stream(b, "the previous launches", err, n);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < HOST_CALLS && st == L_OK; i++) st = launch_copy(b, l, i % b->copies, err, n);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    lstatus sync = wait_stream(b, "the host-timed launches", err, n);
    if (st != L_OK) return st;
    if (sync != L_OK) return sync;
    *us = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / 1e3 / HOST_CALLS;
    return L_OK;
}

/* --sustain: about `seconds` of launches (ms_each apart, from the timed
 * median) queued back to back between one pair of events, so neither an
 * idle GPU nor an event between launches shows: what a caller that keeps
 * the GPU busy sees, power limit and clock included. A kernel whose host
 * time per call exceeds its GPU time measures the host here. Where NVML
 * can be read (tools/nvml.h), also the board's energy per launch (its
 * counter read before the first launch is queued and after the last
 * finished) and the mean SM clock, sampled while launches are queued (the
 * queue fills, so queueing lasts about as long as the run); NaN where not. */
lstatus time_sustained(bench *b, const launcher *l, double seconds, double ms_each, sustained *out, char *err,
                       size_t n)
{
    out->ms = out->joules = out->mhz = NAN;
    double want = seconds * 1e3 / (ms_each > 1e-4 ? ms_each : 1e-4);
    const int64_t launches = want < 1.0 ? 1 : want > 1e6 ? 1000000 : (int64_t)want;
    const bool nvml = tool_nvml_open(b->dev.ordinal) == 0;
    unsigned long long mj0 = 0, mj1 = 0;
    double mhz_sum = 0.0;
    int samples = 0;
    struct timespec last;
    clock_gettime(CLOCK_MONOTONIC, &last);
    lstatus st = wait_stream(b, "the previous launches", err, n);
    const bool energy = nvml && tool_nvml_energy_mj(&mj0) == 0;
    if (st == L_OK) st = cuda_status(cudaEventRecord(b->ev[0], b->stream), "cudaEventRecord", err, n);
    for (int64_t i = 0; i < launches && st == L_OK; i++) {
        st = launch_copy(b, l, (int)(i % b->copies), err, n);
        unsigned mhz;
        if (nvml && i % SUSTAIN_SAMPLE_EVERY == 0 && seconds_since(&last) > SUSTAIN_SAMPLE_S &&
            tool_nvml_sm_mhz(&mhz) == 0) {
            mhz_sum += mhz, samples++;
            clock_gettime(CLOCK_MONOTONIC, &last);
        }
    }
    if (st == L_OK) st = cuda_status(cudaEventRecord(b->ev[1], b->stream), "cudaEventRecord", err, n);
    lstatus sync = wait_stream(b, "the sustained launches", err, n);
    if (st != L_OK) return st;
    if (sync != L_OK) return sync;
    float total = 0.0f;
    st = cuda_status(cudaEventElapsedTime(&total, b->ev[0], b->ev[1]), "cudaEventElapsedTime", err, n);
    if (st != L_OK) return st;
    out->ms = (double)total / (double)launches;
    if (energy && tool_nvml_energy_mj(&mj1) == 0 && mj1 > mj0) out->joules = (double)(mj1 - mj0) / 1e3 / (double)launches;
    if (samples) out->mhz = mhz_sum / samples;
    return L_OK;
}

lstatus time_launches(bench *b, const launcher *l, int warmup, int repeat, bool profile, double *times,
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
    return event_times(b, repeat, times, err, n);
}

/* --copy-bw: cudaMemcpyAsync of `each` bytes, CAND_REPEAT copies timed (the
 * events time_launches has room for) after COPY_BW_WARMUP, the median taken.
 * Copies step through buffers of at least four times the L2, as the
 * product's launches rotate through copies of A, B and C, so that a small
 * copy streams from HBM too. Buffers of its own, freed after. */
#define COPY_BW_WARMUP 3
lstatus time_copy_bw(bench *b, size_t each, double *tbps, char *err, size_t n)
{
    *tbps = NAN;
    each = round_up(each > 0 ? each : 1, 256);
    const size_t span = 4 * (size_t)b->gpu.l2_bytes, steps = each >= span ? 1 : (span + each - 1) / each;
    const size_t bytes = each * steps;
    char *src = NULL, *dst = NULL;
    lstatus st = cuda_status(cudaMalloc((void **)&src, bytes), "cudaMalloc(the copy's source)", err, n);
    if (st == L_OK) st = cuda_status(cudaMalloc((void **)&dst, bytes), "cudaMalloc(the copy's destination)", err, n);
    if (st == L_OK) st = cuda_status(cudaMemsetAsync(src, 0, bytes, b->stream), "cudaMemsetAsync(the copy's source)", err, n);
    size_t at = 0; /* the step of the next copy */
    for (int i = 0; i < COPY_BW_WARMUP + CAND_REPEAT && st == L_OK; i++, at = (at + 1) % steps) {
        const int t = i - COPY_BW_WARMUP; /* timed from 0 */
        if (t >= 0) st = cuda_status(cudaEventRecord(b->ev[2 * t], b->stream), "cudaEventRecord", err, n);
        if (st == L_OK)
            st = cuda_status(cudaMemcpyAsync(dst + at * each, src + at * each, each, cudaMemcpyDeviceToDevice, b->stream),
                             "cudaMemcpyAsync", err, n);
        if (st == L_OK && t >= 0) st = cuda_status(cudaEventRecord(b->ev[2 * t + 1], b->stream), "cudaEventRecord", err, n);
    }
    lstatus sync = wait_stream(b, "the copy", err, n);
    if (st == L_OK) st = sync;
    double times[CAND_REPEAT];
    if (st == L_OK) st = event_times(b, CAND_REPEAT, times, err, n);
    if (st == L_OK) *tbps = 2.0 * (double)each / (median(times, CAND_REPEAT) * 1e-3) / 1e12;
    if (!b->hung) {
        (void)cudaFree(src);
        (void)cudaFree(dst);
        (void)cudaGetLastError(); /* a failed cudaMalloc is not sticky; leave no trace of it */
    }
    return st;
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
    if (!(b->hA = host_alloc(b, b->na * 2)) || !(b->hB = host_alloc(b, b->nb * 2)) ||
        !(b->hC = host_alloc(b, b->nc * c_bytes(o))) || (o->beta != 0.0f && !(b->hC0 = host_alloc(b, b->nc * c_bytes(o)))))
        return false;
    if (o->bias) {
        uint64_t st = b->seed ^ 0xB1A5ull;
        if (!(b->h_bias = host_alloc(b, (size_t)o->n * 2)) ||
            !cu(b, cudaMalloc((void **)&b->d_bias, (size_t)o->n * 2), "cudaMalloc(bias)"))
            return false;
        hg__fill_uniform(b->h_bias, (size_t)o->n, o->dtype, &st, 0);
        if (!cu(b, cudaMemcpy(b->d_bias, b->h_bias, (size_t)o->n * 2, cudaMemcpyHostToDevice), "cudaMemcpy(bias)") ||
            (o->c_type == HG_C_F32 && !lt_bias_f32(b)))
            return false;
    }
    if ((o->bias || o->act != HG_ACT_NONE) && !lt_epilogue(b)) return false;
    fprintf(stderr, TOOL ": seed %llu, %d cop%s of A, B, C (%.1f MiB each set, L2 %.1f MiB)\n",
            (unsigned long long)b->seed, b->copies, b->copies == 1 ? "y" : "ies", (double)set_bytes_of(o) / 1048576.0,
            (double)b->gpu.l2_bytes / 1048576.0);
    /* An ncu child compares nothing. */
    return fill_inputs(b) && (o->mode == MODE_NCU_CHILD || choose_samples(b));
}

/* Returns 0, BENCH_EXIT_NO_GPU or BENCH_EXIT_FAIL, with b->err set. */
int bench_init(bench *b, const options *o)
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
    b->stride_c = round_up(b->nc * c_bytes(o), 256);
    const hg__problem p = options_problem(o);
    b->rtol = hg__check_rtol_c(&p);
    b->atol = check_atol(o);
    hg_status hs = hg_create(&b->h);
    if (hs != HG_STATUS_SUCCESS) {
        snprintf(b->err, sizeof b->err, "hg_create: %s: %s", hg_status_string(hs), hg_last_error(NULL));
        return hs == HG_STATUS_NO_DEVICE ? BENCH_EXIT_NO_GPU : BENCH_EXIT_FAIL;
    }
    hg__set_slices(b->h, o->slices);
    hg__set_stream_k(b->h, o->stream_k);
    hg__set_walk(b->h, o->walk);
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
int lt_heuristic(bench *b, cublasLtMatmulHeuristicResult_t *cand, int max)
{
    cublasLtMatmulPreference_t pref = NULL;
    int found = 0;
    size_t ws = LT_WORKSPACE;
    memset(cand, 0, sizeof *cand * (size_t)max);
    bool ok = cb(b, cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate") &&
              cb(b, cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws),
                 "setting the workspace size") &&
              cb(b, cublasLtMatmulAlgoGetHeuristic(b->lt, b->lt_desc, b->lt_a, b->lt_b, b->lt_c, b->lt_c, pref, max,
                                                   cand, &found),
                 "cublasLtMatmulAlgoGetHeuristic");
    if (pref) (void)cublasLtMatmulPreferenceDestroy(pref);
    if (ok && found == 0) copy_str(b->err, sizeof b->err, "cuBLASLt offers no algorithm for this problem");
    return ok ? found : -1;
}

bool cublas_reference(bench *b)
{
    const options *o = b->o;
    void *dc = NULL;
    char err[ERR_LEN] = "";
    launcher l = {SEL_CUBLAS, NULL, 0};
    const char *why = cublas_refuses(o);
    if (why) {
        /* b->hCref stays NULL: check_entry compares with the reference alone. */
        fprintf(stderr, TOOL ": --check: no elementwise comparison with cuBLAS: %s\n", why);
        return true;
    }
    const size_t c_size = b->nc * c_bytes(o);
    /* With hg_matmul's epilogue, cuBLASLt's own (GELU_BIAS and the like):
     * its first heuristic candidate. */
    cublasLtMatmulHeuristicResult_t first;
    if (o->bias || o->act != HG_ACT_NONE) {
        if (lt_heuristic(b, &first, 1) < 1) return false;
        l.kind = SEL_CUBLAS_BEST, l.algo = &first.algo;
    }
    bool ok = (b->hCref = host_alloc(b, c_size)) != NULL && cu(b, cudaMalloc(&dc, b->stride_c), "cudaMalloc(C ref)");
    if (ok && o->beta == 0.0f) ok = cu(b, cudaMemsetAsync(dc, 0xFF, c_size, b->stream), "cudaMemsetAsync");
    if (ok && o->beta != 0.0f)
        ok = cu(b, cudaMemcpyAsync(dc, b->hC0, c_size, cudaMemcpyHostToDevice, b->stream), "cudaMemcpyAsync");
    if (ok && launch_on(b, &l, ptr_a(b, 0), ptr_b(b, 0), dc, err, sizeof err) != L_OK) {
        copy_str(b->err, sizeof b->err, err);
        ok = false;
    }
    if (ok && wait_stream(b, "cuBLAS's reference", err, sizeof err) != L_OK) {
        copy_str(b->err, sizeof b->err, err);
        ok = false;
    }
    if (ok) ok = cu(b, cudaMemcpy(b->hCref, dc, c_size, cudaMemcpyDeviceToHost), "cudaMemcpy(C ref)");
    if (!b->hung) (void)cudaFree(dc); /* cudaFree would wait for a hung kernel */
    return ok;
}

/* After a failed launch or sync: is the context still usable? A sticky error
 * (an illegal address, say) ends every later CUDA call in this process. */
void note_health(bench *b)
{
    if (b->hung) return; /* synchronizing would wait forever */
    (void)cudaGetLastError();
    if (cudaDeviceSynchronize() != cudaSuccess) b->dead = true;
}
