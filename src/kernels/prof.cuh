/*
 * prof.cuh: per-CTA cycle accounting for the profiling build (make prof,
 * -DHG_V6_PROFILE), shared by V6 and the family. A kernel file keeps its own
 * row array (HG_V6_PROF_CTAS rows of HG_V6_PROF_FIELDS words, the fields in
 * hg_internal.h) and passes it here; tools/v6-profile.c reads it back.
 * Without HG_V6_PROFILE hg_prof_clock() is 0, every sum is dead, the rows
 * pointer is NULL, and the compiler drops all of it: the kernel is unchanged.
 */
#pragma once

#include <cuda_runtime.h>
#include <stdint.h>

#include "../hg_internal.h"

/* A wait_group<1> shorter than this found the previous group already done. */
static constexpr uint32_t HG_PROF_STARVED_CYCLES = 64;

#ifdef HG_V6_PROFILE
/* SM cycles, through clock()'s builtin: the compiler may move it. */
static __device__ __forceinline__ uint32_t hg_prof_clock(void) { return (uint32_t)clock(); }

/* SM cycles through volatile asm, which keeps its place among the waits' and
 * wgmmas' asm: clock()'s builtin sank a piece's start past its mainloop (the
 * family's "mainloop" read a few cycles below zero a piece). Only where the
 * order matters: a read that cannot move can cost the consumers a register. */
static __device__ __forceinline__ uint32_t hg_prof_clock_in_order(void)
{
    uint32_t t;
    asm volatile("mov.u32 %0, %%clock;" : "=r"(t));
    return t;
}

/* The SM this thread runs on. */
static __device__ __forceinline__ uint32_t hg_prof_smid(void)
{
    uint32_t id;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
    return id;
}

/* Nanoseconds on the GPU's global timer, to turn cycles into a clock. */
static __device__ __forceinline__ uint64_t hg_prof_globaltimer(void)
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
#else
static __device__ __forceinline__ uint32_t hg_prof_clock(void) { return 0; }
static __device__ __forceinline__ uint32_t hg_prof_clock_in_order(void) { return 0; }
static __device__ __forceinline__ uint64_t hg_prof_globaltimer(void) { return 0; }
static __device__ __forceinline__ uint32_t hg_prof_smid(void) { return 0; }
#endif

/* One word of this CTA's row (rows NULL: not the profiling build). */
static __device__ __forceinline__ void hg_prof_put(uint32_t *rows, int field, uint32_t v)
{
#ifdef HG_V6_PROFILE
    if (rows && blockIdx.x < HG_V6_PROF_CTAS) rows[blockIdx.x * HG_V6_PROF_FIELDS + field] = v;
#else
    (void)rows, (void)field, (void)v;
#endif
}

/* One consumer warp group's counts, summed over its pieces. Its start
 * (cycles and %globaltimer) goes to the row at once rather than living in
 * registers through the kernel: the consumers have none to spare. */
struct hg_prof_consumer {
    uint32_t main, full, starved, epi, kblocks, pieces;

    static __device__ __forceinline__ hg_prof_consumer start(uint32_t *rows, int wg, int ctid)
    {
        hg_prof_consumer c;
        c.main = c.full = c.starved = c.epi = c.kblocks = c.pieces = 0;
        if (wg == 0 && ctid == 0) {
            const uint64_t ns = hg_prof_globaltimer();
            hg_prof_put(rows, HG_V6_PROF_T0_LO, (uint32_t)ns);
            hg_prof_put(rows, HG_V6_PROF_T0_HI, (uint32_t)(ns >> 32));
            hg_prof_put(rows, HG_V6_PROF_SMID, hg_prof_smid());
            hg_prof_put(rows, HG_V6_PROF_TOTAL, hg_prof_clock()); /* the start, until finish */
        }
        return c;
    }

    /* At the consumer's end: thread 0 of each group writes its four sums,
     * thread 0 of group 0 also the CTA-wide ones (its total, the end stamp,
     * the k blocks and pieces it computed). */
    __device__ __forceinline__ void finish(uint32_t *rows, int wg, int ctid) const
    {
        if (ctid != 0) return;
        const int f = wg * (HG_V6_PROF_MAIN1 - HG_V6_PROF_MAIN0);
        hg_prof_put(rows, HG_V6_PROF_MAIN0 + f, main);
        hg_prof_put(rows, HG_V6_PROF_FULL0 + f, full);
        hg_prof_put(rows, HG_V6_PROF_STARVED0 + f, starved);
        hg_prof_put(rows, HG_V6_PROF_EPI0 + f, epi);
        if (wg != 0) return;
#ifdef HG_V6_PROFILE
        if (rows && blockIdx.x < HG_V6_PROF_CTAS) {
            uint32_t *total = &rows[blockIdx.x * HG_V6_PROF_FIELDS + HG_V6_PROF_TOTAL];
            *total = hg_prof_clock() - *total;
        }
#endif
        const uint64_t ns_end = hg_prof_globaltimer();
        hg_prof_put(rows, HG_V6_PROF_T1_LO, (uint32_t)ns_end);
        hg_prof_put(rows, HG_V6_PROF_T1_HI, (uint32_t)(ns_end >> 32));
        hg_prof_put(rows, HG_V6_PROF_KBLOCKS, kblocks);
        hg_prof_put(rows, HG_V6_PROF_PIECES, pieces);
    }
};

#ifdef HG_V6_PROFILE
/* Host: the first `ctas` rows (at most HG_V6_PROF_CTAS) of a kernel file's
 * row array after its last launch completed; 0 on success. */
static inline int hg_prof_read(const void *symbol, uint32_t *rows, int ctas)
{
    if (ctas > HG_V6_PROF_CTAS) ctas = HG_V6_PROF_CTAS;
    return cudaMemcpyFromSymbol(rows, symbol, (size_t)ctas * HG_V6_PROF_FIELDS * sizeof(uint32_t)) == cudaSuccess
               ? 0
               : -1;
}
#endif
