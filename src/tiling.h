/*
 * tiling.h: tile arithmetic shared by the host (tests, launchers) and the
 * kernels. Plain C; compiled by gcc for the tests and by nvcc for the device.
 */
#ifndef HG_TILING_H
#define HG_TILING_H

#include <stdint.h>

#ifdef __CUDACC__
#define HG_HD static __host__ __device__ __forceinline__
#else
#define HG_HD static inline
#endif

/* Number of tiles of size t covering x (x >= 0, t > 0). */
HG_HD int64_t hg_cdiv(int64_t x, int64_t t) { return (x + t - 1) / t; }

/*
 * Grouped ("swizzled") rasterization, as in the seeds: consecutive linear
 * indices walk a band of `group` tile columns (along N) row by row (along M),
 * so the CTAs running at one time share A rows and B columns in L2. The last
 * band is narrower when n_blocks is not a multiple of group.
 *   linear in [0, m_blocks * n_blocks)  ->  (m_block, n_block)
 */
HG_HD void hg_raster_tile(int64_t linear, int64_t m_blocks, int64_t n_blocks, int64_t group,
                          int64_t *m_block, int64_t *n_block)
{
    int64_t per_band = m_blocks * group;
    int64_t band = linear / per_band;
    int64_t in_band = linear - band * per_band;
    int64_t first_n = band * group;
    int64_t width = n_blocks - first_n;
    if (width > group) width = group;
    *m_block = in_band / width;
    *n_block = first_n + in_band % width;
}

#endif /* HG_TILING_H */
