/*
 * The kernel table: every registered kernel, in AUTO's order of preference
 * (fastest first, as measured on the H200; see docs/results.md). Dispatch,
 * the tool (--list, --kernel), and the tests all read this one table. A kernel
 * that is not finished is not listed here.
 */
#include "hg_internal.h"


const hg__kernel_entry hg__kernels[] = {
    {"v0", HG_KERNEL_V0, "TMA loads, one mbarrier, mma.sync from registers; 64x128 tile, 1 stage",
     hg__v0_can_serve, hg__v0_launch},
    {"generic", HG_KERNEL_GENERIC, "mma.sync + ldmatrix, cp.async ring; every layout, size and alignment",
     hg__generic_can_serve, hg__generic_launch},
};

const int hg__kernel_count = (int)(sizeof hg__kernels / sizeof hg__kernels[0]);
