/*
 * The kernel table: every registered kernel, in AUTO's order of preference
 * (fastest first, as measured on the H200; see docs/results.md). Dispatch,
 * the tool (--list, --kernel), and the tests all read this one table. A kernel
 * that is not finished is not listed here.
 */
#include "hg_internal.h"


const hg__kernel_entry hg__kernels[] = {
    {"v6", HG_KERNEL_V6,
     "setmaxnreg 232/40, 128x320 tile, 2-CTA cluster with B multicast, persistent, TMA-store epilogue, 3 stages",
     hg__v6_can_serve, hg__v6_launch},
    {"v5", HG_KERNEL_V5, "V4 with one wgmma group kept in flight (wait_group 1), 4 stages", hg__v5_can_serve,
     hg__v5_launch},
    {"v4", HG_KERNEL_V4, "pipeline ring, 1 producer warp + 2 consumer warp groups, 128x256 tile, 3 stages",
     hg__v4_can_serve, hg__v4_launch},
    {"v3", HG_KERNEL_V3, "warp specialization: producer warp + consumer warp group, full/empty barriers",
     hg__v3_can_serve, hg__v3_launch},
    {"v1", HG_KERNEL_V1, "wgmma from shared memory (descriptors, 128-byte swizzle), 128x128 tile, 1 stage",
     hg__v1_can_serve, hg__v1_launch},
    {"v2", HG_KERNEL_V2, "V1 with a 3-stage ring of full barriers, loads ahead, block-wide syncs",
     hg__v2_can_serve, hg__v2_launch},
    {"v0", HG_KERNEL_V0, "TMA loads, one mbarrier, mma.sync from registers; 64x128 tile, 1 stage",
     hg__v0_can_serve, hg__v0_launch},
    {"generic", HG_KERNEL_GENERIC, "mma.sync + ldmatrix, cp.async ring; every layout, size and alignment",
     hg__generic_can_serve, hg__generic_launch},
};

const int hg__kernel_count = (int)(sizeof hg__kernels / sizeof hg__kernels[0]);
