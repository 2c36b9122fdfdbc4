/*
 * family.cu: the host side of the family: for each row of configs.def, the
 * kernel's two dtype instantiations, can_serve, the launch and the workspace
 * query (C linkage, declared by hg_internal.h from the same table).
 */
#include <string.h>

#include "kernel.cuh"

template <class Cfg> struct hg_fam_host {
    typedef void (*kernel_fn)(const CUtensorMap, const CUtensorMap, const CUtensorMap, hg_epilogue, hg_sk_plan,
                              hg_fam_sched<Cfg>, float *, uint32_t *);

    template <int DT> static kernel_fn kernel() { return hg_fam_kernel<Cfg, DT>; }

    static cudaLaunchConfig_t launch_config(cudaLaunchAttribute attr[1], int64_t clusters, cudaStream_t stream)
    {
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = Cfg::CLUSTER;
        attr[0].val.clusterDim.y = 1;
        attr[0].val.clusterDim.z = 1;
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = dim3((unsigned)(clusters * Cfg::CLUSTER), 1, 1);
        cfg.blockDim = dim3(Cfg::THREADS, 1, 1);
        cfg.dynamicSmemBytes = Cfg::SMEM_BYTES;
        cfg.stream = stream;
        cfg.attrs = attr;
        cfg.numAttrs = 1;
        return cfg;
    }

    /* How many clusters run at once: one CTA per SM, fewer if the device
     * cannot co-schedule that many clusters. Asked once per device (both
     * dtypes' kernels have the same resources); 0 in the cache: not asked. */
    static constexpr int MAX_DEVICES = 64;
    static int64_t resident_clusters(const hg__device *d)
    {
        static int cached[MAX_DEVICES]; /* racing threads store the same answer */
        const int64_t most = d->sm_count / Cfg::CLUSTER;
        const bool cacheable = d->ordinal >= 0 && d->ordinal < MAX_DEVICES;
        if (cacheable && cached[d->ordinal] > 0) return cached[d->ordinal] < most ? cached[d->ordinal] : most;
        const void *fn = (const void *)kernel<0>();
        hg__err e;
        if (hg_set_smem(fn, Cfg::SMEM_BYTES, "family", &e) != HG_STATUS_SUCCESS) return most;
        cudaLaunchAttribute attr[1];
        cudaLaunchConfig_t cfg = launch_config(attr, most, NULL);
        int active = 0;
        if (cudaOccupancyMaxActiveClusters(&active, fn, &cfg) != cudaSuccess) {
            (void)cudaGetLastError();
            return most;
        }
        if (active > 0 && cacheable) cached[d->ordinal] = active;
        return active > 0 && active < most ? active : most;
    }

    /* The launch's grid and decomposition; the workspace query sees the same. */
    struct grid {
        hg_fam_sched<Cfg> sched;
        int64_t clusters;
        hg_sk_plan plan;
        size_t ws_need;
    };
    static grid grid_of(const hg__problem *p, const hg__device *d)
    {
        grid g;
        g.sched.m_units = hg_cdiv(p->m, Cfg::UNIT_M);
        g.sched.n_units = hg_cdiv(p->n, Cfg::UNIT_N);
        g.clusters = resident_clusters(d);
        if (g.clusters < 1) g.clusters = 1;
        g.plan = hg_sk_make(g.sched.m_units * g.sched.n_units, hg_cdiv(p->k, Cfg::BK), g.clusters, 1);
        g.ws_need = hg__sk_workspace_bytes(d, g.plan.sk_workers, Cfg::SK_WORKER_BYTES);
        return g;
    }

    static const char *can_serve(const hg__problem *p, const hg__device *d)
    {
        const char *why = hg__tma_tn_can_serve(p, d);
        if (why) return why;
        if (!d->cluster_launch && Cfg::CLUSTER > 1) return "needs thread-block cluster launch, which this device lacks.";
        if (d->sm_count < Cfg::CLUSTER) return "needs as many SMs as its cluster has CTAs.";
        if (d->smem_optin < Cfg::SMEM_BYTES) return "needs more shared memory per block than this device allows.";
        return NULL;
    }

    static size_t workspace(const hg__problem *p, const hg__device *d)
    {
        if (p->m == 0 || p->n == 0 || p->k == 0 || can_serve(p, d) != NULL) return 0;
        return grid_of(p, d).ws_need;
    }

    template <int DT>
    static hg_status launch_t(const char *name, const hg__problem *p, const hg__device *d, cudaStream_t stream,
                              hg__err *e)
    {
        CUtensorMap map_a, map_b, map_c;
        hg_status st = hg_tn_tensor_maps(p, Cfg::A_BOX_ROWS, Cfg::B_BOX_ROWS, &map_a, &map_b, e);
        if (st == HG_STATUS_SUCCESS)
            st = hg_c_tensor_map(p, Cfg::EPI_COLS, Cfg::EPI_ROWS, Cfg::SWIZZLE_BYTES, &map_c, e);
        if (st != HG_STATUS_SUCCESS) return st;
        const void *fn = (const void *)kernel<DT>();
        st = hg_set_smem(fn, Cfg::SMEM_BYTES, name, e);
        if (st != HG_STATUS_SUCCESS) return st;

        hg_epilogue epi = hg_epilogue_of(p);
        grid g = grid_of(p, d);
        float *partials = NULL;
        uint32_t *counters = NULL;
        if (g.ws_need > 0 && d->workspace != NULL && d->workspace_bytes >= g.ws_need) {
            counters = (uint32_t *)d->workspace;
            partials = (float *)((char *)d->workspace + hg__ws_counter_bytes(d));
        } else if (g.ws_need > 0) {
            /* Too little workspace: the last round runs whole tiles. */
            g.plan = hg_sk_make(g.plan.tiles, g.plan.k_tiles, g.clusters, 0);
        }
        cudaLaunchAttribute attr[1];
        cudaLaunchConfig_t cfg = launch_config(attr, g.clusters, stream);
        void *args[8] = {(void *)&map_a, (void *)&map_b,   (void *)&map_c,     (void *)&epi,
                         (void *)&g.plan, (void *)&g.sched, (void *)&partials, (void *)&counters};
        cudaError_t err = cudaLaunchKernelExC(&cfg, fn, args);
        if (err != cudaSuccess) {
            (void)cudaGetLastError();
            hg__err_set(e, "%s: launch failed: %s", name, cudaGetErrorString(err));
            return HG_STATUS_EXECUTION_FAILED;
        }
        return hg_launch_status(name, e);
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
        if (p->dtype == HG_BF16) return launch_t<1>(name, p, d, (cudaStream_t)s, e);
        return launch_t<0>(name, p, d, (cudaStream_t)s, e);
    }
};

#define HG_FAMILY_CONFIG(name, id, bm, bn, stages, cm, cn, early, speed)                                       \
    typedef hg_fam_cfg<bm, bn, stages, cm, cn, (early) != 0> hg__cfg_##name;                                  \
    static_assert(HG_FAM_SK_WORKER_BYTES(bm, bn, cm, cn) == hg__cfg_##name::SK_WORKER_BYTES,                  \
                  "hg_internal.h's HG_FAM_SK_WORKER_BYTES must match the kernel's partials");                 \
    extern "C" const char *hg__##name##_can_serve(const hg__problem *p, const hg__device *d)                  \
    {                                                                                                          \
        return hg_fam_host<hg__cfg_##name>::can_serve(p, d);                                                   \
    }                                                                                                          \
    extern "C" hg_status hg__##name##_launch(const hg__problem *p, const hg__device *d, struct CUstream_st *s, \
                                             hg__err *e)                                                       \
    {                                                                                                          \
        return hg_fam_host<hg__cfg_##name>::launch(#name, p, d, s, e);                                         \
    }                                                                                                          \
    extern "C" size_t hg__##name##_workspace(const hg__problem *p, const hg__device *d)                        \
    {                                                                                                          \
        return hg_fam_host<hg__cfg_##name>::workspace(p, d);                                                   \
    }
#include "configs.def"
#undef HG_FAMILY_CONFIG
