/* family_bf16.cu: the family's bf16 kernels (instantiate.cuh). */
#define HG_FAM_DT 1
#define HG_FAM_DT_NAME bf16
#include "instantiate.cuh"
