#include "bench.h"

/* ---- --plan: AUTO's model for one product, measuring nothing ------------- */

/* How AUTO's pick e cuts the product q it runs (the call's, or its copies'),
 * as the model sees it; the launch makes the same plan with the resident
 * clusters it finds on the device. */
static void print_decomposition(const hg__kernel_entry *e, const hg__problem *q, const hg__device *d)
{
    hg__model_grid g;
    hg__estimate_grid(e, q, d, &g);
    if (g.tiles <= 0 || g.slots < 1) return;
    printf("AUTO's decomposition (the model's): %.0f tiles of %d x %d (m x n) on %.0f resident units", g.tiles,
           e->unit_m, e->unit_n, g.slots);
    if (g.sk_workers > 0)
        printf(": %lld whole, then %lld cut over %lld workers (stream-K), %lld-%lld pieces a tile of %lld k blocks\n",
               (long long)g.dp_tiles, (long long)(g.tiles - (double)g.dp_tiles), (long long)g.sk_workers,
               (long long)g.pieces_fewest, (long long)g.pieces_most, (long long)g.k_tiles);
    else
        printf(", whole: %.2f rounds\n", g.tiles / g.slots);
}

/* For each registered kernel: whether it can serve the product, and if so
 * AUTO's estimate of its speed (hg__estimate, relative to cuBLAS-best), with
 * the library's own choice (hg_matmul_plan, with --bias and --act) marked. Pointers are made up, 16-byte
 * aligned and far apart (--plan never touches memory); the workspace is the
 * library's, as for a call without hg_set_workspace. On this machine's GPU
 * when there is one, else on the model of an H200, said so. */
int plan_kernels(const options *o)
{
    hg_handle h = NULL;
    hg__device d;
    char where[160];
    int count = 0;
    if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0 && hg_create(&h) == HG_STATUS_SUCCESS) {
        d = *hg__handle_device(h);
        snprintf(where, sizeof where, "this machine's device %d (%d SMs)", d.ordinal, d.sm_count);
    } else {
        (void)cudaGetLastError();
        d = hg__device_h200_model();
        if (hg__create_for_device(&h, &d) != HG_STATUS_SUCCESS) {
            fprintf(stderr, TOOL ": --plan: out of host memory\n");
            return BENCH_EXIT_FAIL;
        }
        snprintf(where, sizeof where, "no GPU here: an H200 as the model knows it (%d SMs)", d.sm_count);
    }
    d.workspace = NULL;
    d.workspace_bytes = SIZE_MAX;
    hg__set_slices(h, o->slices);
    hg__set_stream_k(h, o->stream_k);
    d.no_stream_k = !o->stream_k;
    hg__set_walk(h, o->walk);
    d.walk = o->walk;

    size_t na, nb, nc;
    int64_t lda, ldb, ldc;
    shape_sizes(o, &na, &nb, &nc, &lda, &ldb, &ldc);
    const uintptr_t base = (uintptr_t)1 << 32, apart = (uintptr_t)1 << 44;
    const void *A = (const void *)base, *B = (const void *)(base + apart);
    void *C = (void *)(base + 2 * apart);
    hg__problem p = options_problem(o);
    p.alpha = 1.0f;
    p.A = A, p.B = B, p.C = C;
    const void *bias = (const void *)(base + 3 * apart);
    p.bias = o->bias ? bias : NULL;
    p.batch = o->batch;
    batch_strides(o, &p.stride_a, &p.stride_b, &p.stride_c);

    printf("plan: %s%lld x %lld x %lld, %s%s, %s, lda %lld, ldb %lld, ldc %lld, beta %g, on %s\n",
           o->batch > 1 ? "a batch of " : "", (long long)o->m, (long long)o->n, (long long)o->k,
           dtype_name(o->dtype), o->c_type == HG_C_F32 ? " (C fp32)" : "", o->layout, (long long)lda, (long long)ldb,
           (long long)ldc, o->beta, where);
    /* #12's memory figure: what a kernel must move at the least, and the
     * time that takes at the copy rate the model assumes (--copy-bw
     * measures the board's). */
    const double bytes = bytes_moved(o);
    printf("bytes:   %.1f MB moved (A, B, C; C twice with beta): %.2f us at the model's copy rate, %.1f TB/s\n",
           bytes / 1e6, bytes / HG_MODEL_COPY_BW * 1e6, HG_MODEL_COPY_BW / 1e12);
    hg_kernel chosen = HG_KERNEL_AUTO;
    const hg_matmul_desc desc = call_desc(o, A, lda, B, ldb, C, ldc, bias);
    hg_status st = hg_matmul_plan(h, &desc, &chosen);
    if (st != HG_STATUS_SUCCESS) {
        printf("hg_matmul_plan: %s: %s\n", hg_status_string(st), hg_last_error(h));
        hg_destroy(h);
        return BENCH_EXIT_FAIL;
    }
    int64_t slices = 0;
    (void)hg__matmul_plan_slices(h, &desc, &slices);
    printf("%-30s %8s  %s\n", "kernel", "estimate", "");
    hg__repack r;
    const int copies = hg__repack_plan(&p, &r);
    const hg__kernel_entry *picked = NULL; /* AUTO's pick on the whole k (slices: their line says how they cut) */
    const hg__problem *picked_on = &p;
    for (int i = 0; i < hg__kernel_count; i++) {
        const hg__kernel_entry *e = &hg__kernels[i];
        const char *why;
        int repacked;
        const double est = hg__route_estimate(e, &p, copies ? &r : NULL, &d, &repacked, &why);
        if (hg__has_epilogue(&p) && !e->fuses_epilogue) printf("%-30s %8s  cannot serve: no fused epilogue\n", e->name, "-");
        else if (p.c_type == HG_C_F32 && !e->writes_f32)
            printf("%-30s %8s  cannot serve: writes C in the inputs' type only\n", e->name, "-");
        else if (est < 0) printf("%-30s %8s  cannot serve: %s\n", e->name, "-", why);
        else {
            if (e->id == chosen && !slices) picked = e, picked_on = repacked ? &r.inner : &p;
            printf("%-30s %8.3f  %s%s\n", e->name, est, e->id == chosen && !slices ? "<- auto" : "",
                   repacked ? (r.a_bytes && r.b_bytes ? " (on copies of A and B)"
                               : r.a_bytes           ? " (on a copy of A)"
                                                     : " (on a copy of B)")
                            : "");
            hg__slices sl;
            if (!repacked && hg__slices_plan(e, &p, &d, &sl))
                printf("%-30s %8.3f  %sin %lld k slices of %lld\n", e->name, hg__slices_estimate(e, &p, &sl, &d),
                       e->id == chosen && slices ? "<- auto " : "", (long long)sl.slices, (long long)sl.inner.k);
        }
    }
    if (picked) print_decomposition(picked, picked_on, &d);
    hg_destroy(h);
    return BENCH_EXIT_OK;
}
