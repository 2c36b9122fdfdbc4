/*
 * instantiate.cuh: one dtype's kernels for every row of configs.def, and
 * their launch and workspace query. Included once per dtype by
 * family_f16.cu and family_bf16.cu, which set HG_FAM_DT (the kernel's dtype
 * parameter: 0 fp16, 1 bf16) and HG_FAM_DT_NAME.
 */
#include "host.cuh"

#define HG_FAMILY_CONFIG(name, id, bm, bn, stages, cm, cn, ck, early, c_thread, swap, pp, acc, layout, speed)                 \
    extern "C" hg_status HG_FAM_DT_FN(name, launch, HG_FAM_DT_NAME)(const hg__problem *p, const hg__device *d,  \
                                                                    struct CUstream_st *s, hg__err *e)          \
    {                                                                                                            \
        return hg_fam_host<hg__cfg_##name, HG_FAM_DT>::launch(#name, p, d, s, e);                                \
    }                                                                                                            \
    extern "C" size_t HG_FAM_DT_FN(name, workspace, HG_FAM_DT_NAME)(const hg__problem *p, const hg__device *d)  \
    {                                                                                                            \
        return hg_fam_host<hg__cfg_##name, HG_FAM_DT>::workspace(p, d);                                          \
    }
#include "configs.def"
#undef HG_FAMILY_CONFIG
