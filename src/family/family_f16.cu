/*
 * family_f16.cu: the family's fp16 kernels (instantiate.cuh), and the
 * profiling build's counters, which count fp16 launches.
 */
#define HG_FAM_DT 0
#define HG_FAM_DT_NAME f16
#include "instantiate.cuh"

#ifdef HG_V6_PROFILE
/* The last fp16 family launch's counters (any configuration), `ctas` rows. */
extern "C" int hg__fam_profile_read(uint32_t *rows, int ctas) { return hg_prof_read(hg__fam_prof, rows, ctas); }
#endif
