/*
 * family.cu: the library's entry points for each row of configs.def
 * (C linkage, declared by hg_internal.h from the same table): can_serve,
 * and the launch and workspace query, which go to the call's dtype's
 * translation unit (family_f16.cu, family_bf16.cu).
 */
#include "host.cuh"

#define HG_FAMILY_CONFIG(name, id, bm, bn, stages, cm, cn, ck, early, c_thread, swap, pp, acc, layout, speed)               \
    extern "C" const char *hg__##name##_can_serve(const hg__problem *p, const hg__device *d)                   \
    {                                                                                                          \
        return hg_fam_host<hg__cfg_##name, 0>::can_serve(p, d);                                                \
    }                                                                                                          \
    extern "C" hg_status hg__##name##_launch(const hg__problem *p, const hg__device *d, struct CUstream_st *s, \
                                             hg__err *e)                                                       \
    {                                                                                                          \
        return p->dtype == HG_BF16 ? HG_FAM_DT_FN(name, launch, bf16)(p, d, s, e)                              \
                                   : HG_FAM_DT_FN(name, launch, f16)(p, d, s, e);                              \
    }                                                                                                          \
    extern "C" size_t hg__##name##_workspace(const hg__problem *p, const hg__device *d)                        \
    {                                                                                                          \
        return p->dtype == HG_BF16 ? HG_FAM_DT_FN(name, workspace, bf16)(p, d)                                 \
                                   : HG_FAM_DT_FN(name, workspace, f16)(p, d);                                 \
    }
#include "configs.def"
#undef HG_FAMILY_CONFIG
