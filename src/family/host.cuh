/*
 * host.cuh: the host side of one configuration in one dtype: its
 * instantiated kernels, can_serve, the grid and stream-K plan, the workspace
 * query and the launch. The library's entry points per row of configs.def
 * are in family.cu; each dtype's kernels are built in a translation unit of
 * their own (family_f16.cu, family_bf16.cu), so a parallel build compiles
 * them side by side.
 */
#pragma once

#include <string.h>

#include "kernel.cuh"

template <class Cfg, int DT> struct hg_fam_host {
    /* fp16 accumulators take fp16 inputs: no bf16 kernel of such a row. */
    static constexpr bool BUILT = !Cfg::ACC16 || DT == 0;

    typedef void (*kernel_fn)(const CUtensorMap, const CUtensorMap, const CUtensorMap, const CUtensorMap,
                              hg_epilogue, hg_sk_plan, hg_fam_sched<Cfg>, float *, uint32_t *,
                              const hg_fam_edge_map<Cfg>);

    template <bool EPI, class CT = uint16_t> static kernel_fn kernel() { return hg_fam_kernel<Cfg, DT, EPI, CT>; }

    static cudaLaunchConfig_t launch_config(cudaLaunchAttribute attr[1], int64_t clusters, cudaStream_t stream)
    {
        return hg_cluster_launch_config(attr, clusters, Cfg::CLUSTER, Cfg::THREADS, Cfg::SMEM_BYTES, stream);
    }

    /* How many clusters run at once, asked once per device. */
    static int64_t resident_clusters(const hg__device *d)
    {
        static int cached[HG_MAX_DEVICES];
        return hg_resident_clusters((const void *)kernel<false>(), Cfg::CLUSTER, Cfg::THREADS, Cfg::SMEM_BYTES, d,
                                    cached);
    }

    /* The launch's grid and decomposition; the workspace query sees the same. */
    struct grid {
        hg_fam_sched<Cfg> sched;
        int64_t clusters;
        hg_sk_plan plan;
        size_t ws_need;
        bool dynamic; /* the dynamic walk, given the workspace's counters */
    };
    static grid grid_of(const hg__problem *p, const hg__device *d)
    {
        grid g;
        g.sched.init(hg_cdiv(Cfg::SWAP_AB ? p->n : p->m, Cfg::UNIT_M), hg_cdiv(Cfg::SWAP_AB ? p->m : p->n, Cfg::UNIT_N),
                     p->batch);
        g.clusters = resident_clusters(d);
        if (g.clusters < 1) g.clusters = 1;
        const int64_t tiles = g.sched.m_units * g.sched.n_units * p->batch, k_tiles = hg_cdiv(p->k, Cfg::BK);
        /* A swapped row's one wave of whole tiles, or its nearly full last
         * round, stays whole, and an unswapped row's one wave on the
         * memory floor (hg_internal.h). */
        const bool whole = hg__fam_whole_tiles(p, Cfg::SWAP_AB, Cfg::SWAP_AB ? Cfg::UNIT_N : Cfg::UNIT_M,
                                               Cfg::SWAP_AB ? Cfg::UNIT_M : Cfg::UNIT_N, tiles, g.clusters);
        if (Cfg::WHOLE_ONLY) { /* its kernel has no fixup (config.cuh) */
            g.plan = hg_sk_make(tiles, k_tiles, g.clusters, 0);
        } else {
            g.plan = hg_sk_make_split(tiles, k_tiles, g.clusters, !d->no_stream_k && !whole,
                                      hg_sk_split_for_k(Cfg::SK_MAX_SPLIT, k_tiles, tiles, g.clusters));
            /* A tail after whole rounds only where it pays, its fixup
             * counted as AUTO's model counts it (tiling.h). */
            if (!hg_sk_tail_pays(&g.plan, (double)Cfg::SK_WORKER_BYTES / Cfg::CLUSTER, Cfg::SK_TREE))
                g.plan = hg_sk_make(tiles, k_tiles, g.clusters, 0);
        }
        g.ws_need = hg__sk_workspace_bytes(d, g.plan.sk_workers, Cfg::SK_WORKER_BYTES);
        /* The dynamic walk where the whole tiles take more than one round
         * and A and B (the whole batch's) overflow L2, so that clusters out
         * of step would read a band's blocks from HBM again (scheduler.cuh);
         * where they fit, every reread hits L2 and the claims' cost buys
         * nothing (16384^2 x 256: 3% slower; docs/NOTES.md, twenty-ninth
         * session). Its counters are the workspace's; its tickets run to
         * dp_tiles + workers, below 2^32. A shared operand (stride 0) is
         * one matrix in L2, however many products read it, and rows that
         * products share (a stride shorter than a matrix) are there once. */
        const double operand_bytes = (double)p->k * Cfg::ELEM_BYTES *
                                     ((double)p->m * hg__batch_copies_a(p) + (double)p->n * hg__batch_copies_b(p));
        g.dynamic = Cfg::DYNAMIC && g.plan.dp_tiles > g.clusters && g.plan.dp_tiles < ((int64_t)1 << 31) &&
                    d->walk != HG__WALK_STATIC &&
                    (d->walk == HG__WALK_DYNAMIC || operand_bytes > (double)d->l2_bytes);
        if (g.dynamic && g.ws_need < hg__ws_counter_bytes(d)) g.ws_need = hg__ws_counter_bytes(d);
        return g;
    }

    static const char *can_serve(const hg__problem *p, const hg__device *d)
    {
        /* Written per thread, C need only be what validation already
         * checked (element-aligned); else TMA stores it. */
        const char *why = Cfg::C_THREAD ? hg__tma_layout_ab_can_serve(p, d, Cfg::OP_A, Cfg::OP_B)
                                        : hg__tma_layout_can_serve(p, d, Cfg::OP_A, Cfg::OP_B);
        if (why) return why;
        if (Cfg::ACC16 && p->dtype != HG_F16) return "accumulates in fp16, which takes fp16 inputs only.";
        if (!Cfg::WRITES_F32 && p->c_type == HG_C_F32) return HG_WHY_NOT_F32;
        if (Cfg::LEAN && p->beta != 0.0f) return HG_WHY_NOT_BETA;
        if (!Cfg::BATCHES && p->batch > 1)
            return "runs one product per call (its consumers have no register to hold the product of a batch; config.cuh).";
        if ((why = hg__tma_batch_can_serve(p, !Cfg::C_THREAD)) != NULL) return why;
        if (!d->cluster_launch && Cfg::CLUSTER > 1)
            return "needs thread-block cluster launch, which this device lacks.";
        if (d->sm_count < Cfg::CLUSTER) return "needs as many SMs as its cluster has CTAs.";
        if (d->smem_optin < Cfg::SMEM_BYTES) return "needs more shared memory per block than this device allows.";
        return NULL;
    }

    static size_t workspace(const hg__problem *p, const hg__device *d)
    {
        if constexpr (!BUILT) {
            return 0;
        } else {
            if (p->m == 0 || p->n == 0 || can_serve(p, d) != NULL) return 0; /* can_serve refuses k = 0 */
            return grid_of(p, d).ws_need;
        }
    }

    static hg_status launch_t(const char *name, const hg__problem *p, const hg__device *d, cudaStream_t stream,
                              hg__err *e)
    {
        CUtensorMap map_a, map_b, map_c, map_cw;
        hg_fam_edge_map<Cfg> map_b_edge;
        /* The kernel's A and B: the call's, or swapped. */
        const void *ka = Cfg::SWAP_AB ? p->B : p->A, *kb = Cfg::SWAP_AB ? p->A : p->B;
        const int64_t ka_rows = Cfg::SWAP_AB ? p->n : p->m, kb_rows = Cfg::SWAP_AB ? p->m : p->n;
        const int64_t ka_ld = Cfg::SWAP_AB ? p->ldb : p->lda, kb_ld = Cfg::SWAP_AB ? p->lda : p->ldb;
        const int64_t ka_stride = Cfg::SWAP_AB ? p->stride_b : p->stride_a;
        const int64_t kb_stride = Cfg::SWAP_AB ? p->stride_a : p->stride_b;
        /* Rank 3 always: the batch is the third coordinate (0 for one product). */
        hg_status st = hg_operand_tensor_map(p, ka, ka_rows, ka_ld, Cfg::A_MN, Cfg::A_MAP_BOX_INNER,
                                             Cfg::A_MAP_BOX_OUTER, &map_a, e, HG_FAM_MAP_RANK, ka_stride,
                                             Cfg::L2_PROMO_BYTES);
        if (st == HG_STATUS_SUCCESS)
            st = hg_operand_tensor_map(p, kb, kb_rows, kb_ld, Cfg::B_MN, Cfg::B_MAP_BOX_INNER, Cfg::B_MAP_BOX_OUTER,
                                       &map_b, e, HG_FAM_MAP_RANK, kb_stride, Cfg::L2_PROMO_BYTES);
        /* B's edge box (config.cuh's B_EDGE_BOXES): the last unit of B's
         * rows is the only tile at the edge, in every column of tiles and
         * every product; without one the map is never read. */
        memset(&map_b_edge, 0, sizeof map_b_edge);
        if constexpr (Cfg::B_EDGE_BOXES) {
            const int edge_rows = hg_fam_b_edge_rows<Cfg>((hg_cdiv(kb_rows, Cfg::UNIT_N) - 1) * Cfg::UNIT_N, kb_rows);
            if (edge_rows > 0 && st == HG_STATUS_SUCCESS)
                st = hg_operand_tensor_map(p, kb, kb_rows, kb_ld, Cfg::B_MN, Cfg::B_MAP_BOX_INNER, edge_rows,
                                           &map_b_edge.box, e, HG_FAM_MAP_RANK, kb_stride, Cfg::L2_PROMO_BYTES);
        }
        const bool c_f32 = p->c_type == HG_C_F32; /* can_serve: only where WRITES_F32 */
        /* C's two maps, boxes of one chunk (the old C's loads and L2
         * prefetch) and of a warp's rows of it (the stores: epilogue.cuh). */
        const int c_cols = c_f32 ? hg_fam_cgeo<Cfg, float>::COLS : hg_fam_cgeo<Cfg, uint16_t>::COLS;
        if (Cfg::C_THREAD) {
            memset(&map_c, 0, sizeof map_c); /* never read: C may break TMA's rules */
            memset(&map_cw, 0, sizeof map_cw);
        } else if (st == HG_STATUS_SUCCESS) {
            st = hg_c_tensor_map(p, c_cols, Cfg::EPI_ROWS, Cfg::SWIZZLE_BYTES, &map_c, e, HG_FAM_MAP_RANK);
            if (st == HG_STATUS_SUCCESS)
                st = hg_c_tensor_map(p, c_cols, Cfg::EPI_WARP_ROWS, Cfg::SWIZZLE_BYTES, &map_cw, e, HG_FAM_MAP_RANK);
        }
        if (st != HG_STATUS_SUCCESS) return st;
        /* The fused epilogue's kernel only where the configuration has one;
         * an fp32 C always takes it (its only fp32 kernel). */
        const void *fn = (const void *)kernel<false>();
        if constexpr (Cfg::FUSES_EPILOGUE)
            if (hg__has_epilogue(p)) fn = (const void *)kernel<true>();
        if constexpr (Cfg::WRITES_F32)
            if (c_f32) fn = (const void *)kernel<true, float>();
        st = hg_set_smem(fn, Cfg::SMEM_BYTES, name, e);
        if (st != HG_STATUS_SUCCESS) return st;

        hg_epilogue epi = hg_epilogue_of(p);
        grid g = grid_of(p, d);
        float *partials;
        uint32_t *counters;
        if (!hg_sk_workspace(d, g.ws_need, &counters, &partials) && g.ws_need > 0) {
            g.plan = hg_sk_make(g.plan.tiles, g.plan.k_tiles, g.clusters, 0); /* too little: whole tiles, */
            g.dynamic = false;                                                 /* the static walk */
        }
        if (g.dynamic) g.sched.dyn = counters + hg__ws_dyn_counters(d);
        cudaLaunchAttribute attr[1];
        cudaLaunchConfig_t cfg = launch_config(attr, g.clusters, stream);
        /* A 1-CTA cluster is what every CTA is without the attribute; the
         * attribute only makes the launch a cluster launch (0.4-0.6 us on
         * small decode products, docs/NOTES.md). */
        if (Cfg::CLUSTER == 1) cfg.numAttrs = 0;
        void *args[10] = {(void *)&map_a,  (void *)&map_b,   (void *)&map_c,    (void *)&map_cw,
                          (void *)&epi,    (void *)&g.plan, (void *)&g.sched, (void *)&partials,
                          (void *)&counters, (void *)&map_b_edge};
        return hg_launch_ex(&cfg, fn, args, name, e);
    }

    static hg_status launch(const char *name, const hg__problem *p, const hg__device *d, struct CUstream_st *s,
                            hg__err *e)
    {
        if (p->m == 0 || p->n == 0) return HG_STATUS_SUCCESS;
        /* A direct call (the tests, the tool) gets dispatch's checks. */
        const char *why = can_serve(p, d);
        if (why) {
            hg__err_set(e, "kernel %s %s", name, why);
            return HG_STATUS_NOT_SUPPORTED;
        }
        if constexpr (BUILT) return launch_t(name, p, d, (cudaStream_t)s, e);
        else return HG_STATUS_INTERNAL_ERROR; /* can_serve refused this dtype above */
    }
};

/* The kernel's operand majorness from the call's layout: swapped, its A is
 * the call's B (MN-major when opB = N) and its B the call's A. */
#define HG_FAM_KERNEL_A_MN(layout, swap) ((swap) ? HG_FAM_OP_B_##layout == HG_OP_N : HG_FAM_OP_A_##layout == HG_OP_T)
#define HG_FAM_KERNEL_B_MN(layout, swap) ((swap) ? HG_FAM_OP_A_##layout == HG_OP_T : HG_FAM_OP_B_##layout == HG_OP_N)
/* Each row as a type, hg__cfg_<name>. */
#define HG_FAMILY_CONFIG(name, id, bm, bn, stages, cm, cn, ck, early, c_thread, swap, pp, acc, layout, speed)               \
    typedef hg_fam_cfg<bm, bn, stages, cm, cn, ck, (early) != 0, HG_FAM_KERNEL_A_MN(layout, swap),                 \
                       HG_FAM_KERNEL_B_MN(layout, swap), (c_thread) != 0, (swap) != 0, (pp) != 0,                \
                       HG_FAM_ACC16_##acc != 0>                                                                \
        hg__cfg_##name;                                                                                        \
    static_assert(HG_FAM_SK_WORKER_BYTES(bm, bn, cm, cn, HG_FAM_ACC16_##acc) == hg__cfg_##name::SK_WORKER_BYTES, \
                  "hg_internal.h's HG_FAM_SK_WORKER_BYTES must match the kernel's partials");                  \
    static_assert(HG_FAM_WRITES_F32(bm, bn, c_thread, swap) == hg__cfg_##name::WRITES_F32,                            \
                  "hg_internal.h's HG_FAM_WRITES_F32 must match the kernel's");                                 \
    static_assert(HG_FAM_LEAN(bm, bn, pp, HG_FAM_ACC16_##acc, c_thread) == hg__cfg_##name::LEAN,                   \
                  "hg_internal.h's HG_FAM_LEAN must match the kernel's");                                         \
    static_assert(HG_FAM_WHOLE_ONLY(bm, bn, pp, HG_FAM_ACC16_##acc, c_thread, ck) == hg__cfg_##name::WHOLE_ONLY,  \
                  "hg_internal.h's HG_FAM_WHOLE_ONLY must match the kernel's");
#include "configs.def"
#undef HG_FAMILY_CONFIG

/* One dtype's launch and workspace query of a row: hg__<name>_launch_f16,
 * hg__<name>_workspace_bf16, ... (defined by family_<dt>.cu, called by
 * family.cu's entry points). */
#define HG_FAM_DT_FN(name, what, dt) HG_FAM_DT_FN_(name, what, dt) /* dt expanded first */
#define HG_FAM_DT_FN_(name, what, dt) hg__##name##_##what##_##dt
#define HG_FAM_DECLARE_DT(name, dt)                                                                            \
    extern "C" hg_status HG_FAM_DT_FN(name, launch, dt)(const hg__problem *p, const hg__device *d,             \
                                                        struct CUstream_st *s, hg__err *e);                    \
    extern "C" size_t HG_FAM_DT_FN(name, workspace, dt)(const hg__problem *p, const hg__device *d);
#define HG_FAMILY_CONFIG(name, id, bm, bn, stages, cm, cn, ck, early, c_thread, swap, pp, acc, layout, speed) \
    HG_FAM_DECLARE_DT(name, f16) HG_FAM_DECLARE_DT(name, bf16)
#include "configs.def"
#undef HG_FAMILY_CONFIG
