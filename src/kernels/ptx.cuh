/*
 * ptx.cuh: one small wrapper per PTX instruction the kernels use, named after
 * the instruction. Section numbers are those of the PTX ISA 9.0 manual.
 *
 * Shared-memory addresses are passed as 32-bit shared-window addresses
 * (hg_smem_addr), as the instructions take them.
 *
 * Build with -DHG_DEBUG_WAIT to make every mbarrier wait trap once it has
 * waited HG_DEBUG_WAIT_NS of wall time (%globaltimer) instead of spinning
 * forever: a wrong phase then shows up as an "unspecified launch failure",
 * not a hang. A bound in time, not in tries, means the same under a
 * sanitizer, whose slowdown changes what a try costs.
 */
#pragma once

#include <stdint.h>
#include <cuda.h> /* CUtensorMap (the type only; the driver is reached at run time) */

#include "wgmma_gen.cuh"

#ifndef HG_DEBUG_WAIT_NS
#define HG_DEBUG_WAIT_NS 30000000000ull /* 30 s: far past any wait of a correct kernel */
#endif

/* %globaltimer, in nanoseconds (the debug build's wait bound) */
static __device__ __forceinline__ uint64_t hg_globaltimer(void)
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

static __device__ __forceinline__ uint32_t hg_smem_addr(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

/* %laneid, read where used (asm volatile: not hoisted, so not held in a
 * register across a mainloop, where the family's kernels have none to
 * spare). */
static __device__ __forceinline__ uint32_t hg_lane_id(void)
{
    uint32_t l;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(l));
    return l;
}

/* ---- 9.7.13.15 mbarrier --------------------------------------------------- */

/* mbarrier.init: arrive count = the arrivals that complete one phase. */
static __device__ __forceinline__ void hg_mbarrier_init(uint64_t *bar, uint32_t count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(hg_smem_addr(bar)), "r"(count)
                 : "memory");
}

/* fence.mbarrier_init.release.cluster: make barrier inits visible to the
 * cluster (peers' multicast TMA and remote arrives) before a cluster sync. */
static __device__ __forceinline__ void hg_fence_mbarrier_init_cluster(void)
{
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

/* mbarrier.arrive.expect_tx: one arrival, and tx_bytes more bytes to wait for. */
static __device__ __forceinline__ void hg_mbarrier_arrive_expect_tx(uint64_t *bar, uint32_t tx_bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(hg_smem_addr(bar)),
                 "r"(tx_bytes)
                 : "memory");
}

/* mbarrier.arrive: one arrival on a barrier of this CTA (release, CTA scope). */
static __device__ __forceinline__ void hg_mbarrier_arrive(uint64_t *bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(hg_smem_addr(bar)) : "memory");
}

/* mapa.shared::cluster: the address of the same shared-memory offset in the
 * cluster's CTA of rank cta_rank (9.7.9.21). */
static __device__ __forceinline__ uint32_t hg_mapa_shared_cluster(uint32_t smem_addr, uint32_t cta_rank)
{
    uint32_t out;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(out) : "r"(smem_addr), "r"(cta_rank));
    return out;
}

/* mbarrier.arrive.relaxed.cluster on a barrier of any CTA of the cluster
 * (address from hg_mapa_shared_cluster). Relaxed: a consumer that only read
 * the stage has nothing to publish, and release semantics at cluster scope
 * would wait for its earlier memory operations to become visible. */
static __device__ __forceinline__ void hg_mbarrier_arrive_remote_relaxed(uint32_t cluster_addr)
{
    asm volatile("mbarrier.arrive.relaxed.cluster.shared::cluster.b64 _, [%0];" ::"r"(cluster_addr)
                 : "memory");
}

/* mbarrier.try_wait.parity: true once the phase with this parity completed.
 * try_wait suspends the thread for a while in hardware, so the loop is cheap.
 * ACQUIRE_CLUSTER: .acquire.cluster, so that the completion acquires what
 * the arrivals released at cluster scope (a k split's partials, written by
 * the cluster's other CTAs in their own shared memory); else the default,
 * acquire at CTA scope. */
#define HG__TRY_WAIT_PARITY_ASM(sem)                                                                                   \
    "{\n.reg .pred p;\n"                                                                                               \
    "mbarrier.try_wait.parity" sem ".shared::cta.b64 p, [%1], %2;\n"                                                   \
    "selp.u32 %0, 1, 0, p;\n}\n"
template <bool ACQUIRE_CLUSTER = false>
static __device__ __forceinline__ uint32_t hg_mbarrier_try_wait_parity(uint64_t *bar, uint32_t parity)
{
    uint32_t done;
    if constexpr (ACQUIRE_CLUSTER)
        asm volatile(HG__TRY_WAIT_PARITY_ASM(".acquire.cluster") : "=r"(done) : "r"(hg_smem_addr(bar)), "r"(parity)
                     : "memory");
    else
        asm volatile(HG__TRY_WAIT_PARITY_ASM("") : "=r"(done) : "r"(hg_smem_addr(bar)), "r"(parity) : "memory");
    return done;
}
#undef HG__TRY_WAIT_PARITY_ASM

/* Wait until the barrier's phase of the given parity has completed (with
 * ACQUIRE_CLUSTER, as above). */
template <bool ACQUIRE_CLUSTER = false>
static __device__ __forceinline__ void hg_mbarrier_wait(uint64_t *bar, uint32_t parity)
{
#ifdef HG_DEBUG_WAIT
    const uint64_t start = hg_globaltimer();
    while (!hg_mbarrier_try_wait_parity<ACQUIRE_CLUSTER>(bar, parity)) {
        if (hg_globaltimer() - start > HG_DEBUG_WAIT_NS) __trap();
    }
#else
    while (!hg_mbarrier_try_wait_parity<ACQUIRE_CLUSTER>(bar, parity)) {
    }
#endif
}

/* The same wait with its retry loop inside one asm statement, for code that
 * a whole warp runs together (the family's producer warp, its consumer warp
 * groups). To ptxas the C loop above is a branch each thread leaves on its
 * own predicate, so it treats everything after it as divergent: a TMA load
 * issued there gets a loop of its own (ELECT, R2UR of each operand,
 * BRA.U.ANY). One asm statement is one instruction to it, after which the
 * warp is converged as before. The labels are local to the statement's
 * braces, so every inlined copy has its own. The debug build reads the
 * time before and after each try and traps past the bound. */
#define HG__WAIT_CONVERGED_ASM(sem)                                                                            \
    "{\n.reg .pred p;\n"                                                                                        \
    "HG_WAIT:\n"                                                                                                \
    "mbarrier.try_wait.parity" sem ".shared::cta.b64 p, [%0], %1;\n"                                            \
    "@!p bra HG_WAIT;\n}\n"
#define HG__WAIT_CONVERGED_DEBUG_ASM(sem)                                                                      \
    "{\n.reg .pred p;\n.reg .u64 t0, t;\n"                                                                       \
    "mov.u64 t0, %%globaltimer;\n"                                                                             \
    "HG_WAIT:\n"                                                                                                \
    "mbarrier.try_wait.parity" sem ".shared::cta.b64 p, [%0], %1;\n"                                            \
    "@p bra HG_DONE;\n"                                                                                         \
    "mov.u64 t, %%globaltimer;\n"                                                                              \
    "sub.u64 t, t, t0;\n"                                                                                      \
    "setp.gt.u64 p, t, %2;\n"                                                                                  \
    "@p trap;\n"                                                                                                \
    "bra HG_WAIT;\n"                                                                                            \
    "HG_DONE:\n}\n"
/* (ACQUIRE_CLUSTER: as hg_mbarrier_wait's) */
template <bool ACQUIRE_CLUSTER = false>
static __device__ __forceinline__ void hg_mbarrier_wait_converged(uint64_t *bar, uint32_t parity)
{
#ifdef HG_DEBUG_WAIT
    if constexpr (ACQUIRE_CLUSTER)
        asm volatile(HG__WAIT_CONVERGED_DEBUG_ASM(".acquire.cluster")::"r"(hg_smem_addr(bar)), "r"(parity),
                     "n"(HG_DEBUG_WAIT_NS)
                     : "memory");
    else
        asm volatile(HG__WAIT_CONVERGED_DEBUG_ASM("")::"r"(hg_smem_addr(bar)), "r"(parity), "n"(HG_DEBUG_WAIT_NS)
                     : "memory");
#else
    if constexpr (ACQUIRE_CLUSTER)
        asm volatile(HG__WAIT_CONVERGED_ASM(".acquire.cluster")::"r"(hg_smem_addr(bar)), "r"(parity) : "memory");
    else
        asm volatile(HG__WAIT_CONVERGED_ASM("")::"r"(hg_smem_addr(bar)), "r"(parity) : "memory");
#endif
}
#undef HG__WAIT_CONVERGED_ASM
#undef HG__WAIT_CONVERGED_DEBUG_ASM

/* The k split inside a cluster (the family's _k rows): a CTA publishes its
 * partial, written to its own shared memory, to the cluster's CTA that sums
 * it, which reads it there (ld.shared::cluster) once the barrier says so. */

/* mbarrier.arrive.release.cluster on a barrier of any CTA of the cluster:
 * this thread's earlier writes (its partial) are visible, at cluster scope,
 * to whoever acquires the phase this arrival completes. */
static __device__ __forceinline__ void hg_mbarrier_arrive_remote_release(uint32_t cluster_addr)
{
    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(cluster_addr)
                 : "memory");
}

/* ld.shared::cluster.v4.f32: 16 bytes of any CTA's shared memory in the
 * cluster (address from hg_mapa_shared_cluster). */
static __device__ __forceinline__ float4 hg_ld_shared_cluster_f4(uint32_t cluster_addr)
{
    float4 v;
    asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "r"(cluster_addr)
                 : "memory");
    return v;
}

/* st.async.shared::cluster.mbarrier::complete_tx::bytes.u32: 4 bytes into
 * another CTA of the cluster, counted as 4 transaction bytes on its barrier
 * (both addresses from hg_mapa_shared_cluster). The family's dynamic walk
 * hands a claimed tile to the peer with it: unlike a store and a
 * release.cluster arrival, it waits for none of the thread's earlier memory
 * operations (docs/NOTES.md, twenty-eighth session). Not to this CTA's own
 * memory (an illegal instruction there). */
static __device__ __forceinline__ void hg_st_async_u32(uint32_t cluster_addr, uint32_t v, uint32_t cluster_bar)
{
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%0], %1, [%2];" ::"r"(cluster_addr),
                 "r"(v), "r"(cluster_bar)
                 : "memory");
}

/* ---- 9.7.13 elect.sync ---------------------------------------------------- */

/* elect.sync over the whole warp: true in one lane (the same one each time),
 * false in the others. Every lane of the warp must execute it together. */
static __device__ __forceinline__ bool hg_elect_one(void)
{
    uint32_t elected;
    asm volatile(
        "{\n.reg .pred p;\n"
        "elect.sync _|p, 0xffffffff;\n"
        "selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(elected));
    return elected != 0;
}

/* ---- 9.7.9.25 cp.async.bulk.tensor (TMA) ---------------------------------- */

/* 2-D tiled load global -> shared, completing tx bytes on bar. c0 is the inner
 * (contiguous) coordinate, c1 the outer; out-of-bounds elements read as zero. */
static __device__ __forceinline__ void hg_tma_load_2d(void *dst, const CUtensorMap *map, uint64_t *bar,
                                                      int32_t c0, int32_t c1)
{
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%3, %4}], [%2];" ::"r"(hg_smem_addr(dst)),
        "l"((uint64_t)map), "r"(hg_smem_addr(bar)), "r"(c0), "r"(c1)
        : "memory");
}

/* The same load, multicast: the box lands at the same shared-memory offset in
 * every CTA of the cluster named in cta_mask, and completes tx bytes on the
 * barrier at bar's offset in each of them. */
static __device__ __forceinline__ void hg_tma_load_2d_multicast(void *dst, const CUtensorMap *map,
                                                                uint64_t *bar, int32_t c0, int32_t c1,
                                                                uint16_t cta_mask)
{
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
        ".multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;" ::"r"(hg_smem_addr(dst)),
        "l"((uint64_t)map), "r"(hg_smem_addr(bar)), "r"(c0), "r"(c1), "h"(cta_mask)
        : "memory");
}

/* 2-D tiled store shared -> global (bulk group completion); out-of-bounds
 * elements of the box are not written. */
static __device__ __forceinline__ void hg_tma_store_2d(const CUtensorMap *map, const void *src, int32_t c0,
                                                       int32_t c1)
{
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%2, %3}], [%1];" ::"l"(
                     (uint64_t)map),
                 "r"(hg_smem_addr(src)), "r"(c0), "r"(c1)
                 : "memory");
}

/* cp.async.bulk.prefetch.tensor (9.7.9.27): pull a 2-D box into L2 without
 * landing it anywhere (the family's producer warms C for a beta != 0
 * epilogue while the mainloop runs). */
static __device__ __forceinline__ void hg_tma_prefetch_l2_2d(const CUtensorMap *map, int32_t c0, int32_t c1)
{
    asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {%1, %2}];" ::"l"((uint64_t)map), "r"(c0),
                 "r"(c1)
                 : "memory");
}

/* The 3-D forms of the four above: c2 is a third coordinate (the family's
 * batch; its maps are 3-D, HG_FAM_MAP_RANK). */
static __device__ __forceinline__ void hg_tma_load_3d(void *dst, const CUtensorMap *map, uint64_t *bar,
                                                      int32_t c0, int32_t c1, int32_t c2)
{
    asm volatile(
        "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%3, %4, %5}], [%2];" ::"r"(hg_smem_addr(dst)),
        "l"((uint64_t)map), "r"(hg_smem_addr(bar)), "r"(c0), "r"(c1), "r"(c2)
        : "memory");
}

static __device__ __forceinline__ void hg_tma_load_3d_multicast(void *dst, const CUtensorMap *map,
                                                                uint64_t *bar, int32_t c0, int32_t c1, int32_t c2,
                                                                uint16_t cta_mask)
{
    asm volatile(
        "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
        ".multicast::cluster [%0], [%1, {%3, %4, %5}], [%2], %6;" ::"r"(hg_smem_addr(dst)),
        "l"((uint64_t)map), "r"(hg_smem_addr(bar)), "r"(c0), "r"(c1), "r"(c2), "h"(cta_mask)
        : "memory");
}

/* createpolicy.fractional.L2::evict_first (PTX ISA, createpolicy): an L2 policy under
 * which every line an access touches is among the first to be evicted. */
static __device__ __forceinline__ uint64_t hg_l2_policy_evict_first(void)
{
    uint64_t policy;
    asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
    return policy;
}

/* The 3-D tile store (shared -> global, one bulk group) under an L2 policy
 * (.L2::cache_hint). */
static __device__ __forceinline__ void hg_tma_store_3d_hint(const CUtensorMap *map, const void *src, int32_t c0,
                                                            int32_t c1, int32_t c2, uint64_t policy)
{
    asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group.L2::cache_hint"
                 " [%0, {%2, %3, %4}], [%1], %5;" ::"l"((uint64_t)map),
                 "r"(hg_smem_addr(src)), "r"(c0), "r"(c1), "r"(c2), "l"(policy)
                 : "memory");
}

static __device__ __forceinline__ void hg_tma_prefetch_l2_3d(const CUtensorMap *map, int32_t c0, int32_t c1,
                                                             int32_t c2)
{
    asm volatile("cp.async.bulk.prefetch.tensor.3d.L2.global.tile [%0, {%1, %2, %3}];" ::"l"((uint64_t)map),
                 "r"(c0), "r"(c1), "r"(c2)
                 : "memory");
}

/* cp.async.bulk.commit_group (9.7.9.26): close a group of bulk stores. */
static __device__ __forceinline__ void hg_cp_async_bulk_commit_group(void)
{
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

/* cp.async.bulk.wait_group.read N: at most N groups still reading their
 * shared-memory source (the writes to global may still be in flight). */
template <int N> static __device__ __forceinline__ void hg_cp_async_bulk_wait_group_read(void)
{
    asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}

/* cp.async.bulk.wait_group N: at most N groups not yet complete (writes done). */
template <int N> static __device__ __forceinline__ void hg_cp_async_bulk_wait_group(void)
{
    asm volatile("cp.async.bulk.wait_group %0;" ::"n"(N) : "memory");
}

/* prefetch.tensormap: pull a __grid_constant__ tensor map into the cache. */
static __device__ __forceinline__ void hg_prefetch_tensormap(const CUtensorMap *map)
{
    asm volatile("prefetch.tensormap [%0];" ::"l"((uint64_t)map) : "memory");
}

/* ---- 9.7.12.4 fence.proxy.async ------------------------------------------- */

/* Order this thread's generic-proxy shared-memory accesses (st.shared,
 * stmatrix) before later async-proxy accesses (TMA store, wgmma). */
static __device__ __forceinline__ void hg_fence_proxy_async_shared_cta(void)
{
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

/* ---- 9.7.15.5 wgmma ------------------------------------------------------- */

/* wgmma.fence: registers (accumulators) written before are visible to the
 * wgmma that follows. Needed before the first wgmma and after touching the
 * accumulators from ordinary code. */
static __device__ __forceinline__ void hg_wgmma_fence(void)
{
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}

/* wgmma.commit_group: close a group over the wgmmas issued since the last. */
static __device__ __forceinline__ void hg_wgmma_commit_group(void)
{
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}

/* wgmma.wait_group N: at most N groups still pending. The accumulator
 * registers are passed through to keep the compiler from touching them
 * before the wait (see hg_wgmma_wait_acc in the kernels). */
template <int N> static __device__ __forceinline__ void hg_wgmma_wait_group(void)
{
    asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}

/* Make the compiler treat each accumulator register as read and written here,
 * so no use of it is scheduled across a wgmma.wait_group. */
template <int NREG> static __device__ __forceinline__ void hg_acc_fence(float *d)
{
#pragma unroll
    for (int i = 0; i < NREG; i++) asm volatile("" : "+f"(d[i])::"memory");
}

/* ... fp16 accumulators (two halves a register). */
template <int NREG> static __device__ __forceinline__ void hg_acc_fence(uint32_t *d)
{
#pragma unroll
    for (int i = 0; i < NREG; i++) asm volatile("" : "+r"(d[i])::"memory");
}

/* Shared-memory matrix descriptor (9.7.15.5.1), 128-byte swizzle, K-major:
 * rows of 64 halfwords (128 B), 8-row swizzle atoms 1024 B apart (SBO); the
 * leading byte offset is unused for swizzled K-major layouts (set to 1). The
 * tile must start 1024-byte aligned; a k16 slice at column kk starts at
 * +kk*2 bytes, added to the start address field. */
static __device__ __forceinline__ uint64_t hg_wgmma_desc_sw128(uint32_t smem_addr)
{
    uint64_t d = 0;
    d |= (uint64_t)((smem_addr & 0x3FFFF) >> 4);
    d |= (uint64_t)1 << 16;            /* leading byte offset (ignored) */
    d |= (uint64_t)(1024 >> 4) << 32;  /* stride byte offset: 8 rows x 128 B */
    d |= (uint64_t)1 << 62;            /* swizzle mode: 128 B */
    return d;
}

/* A descriptor for an MN-major operand in 128-byte swizzled blocks (9.7.15.5.1,
 * the MN-major canonical layout): a block is 64 rows of k, each 128 bytes of
 * 64 consecutive m (or n) elements, 8 rows per swizzle atom. SBO = 1024 (one
 * atom, 8 k rows, to the next); LBO = block_bytes, from one block of 64 m (n)
 * to the next, which an n wider than 64 walks. */
static __device__ __forceinline__ uint64_t hg_wgmma_desc_sw128_mn(uint32_t smem_addr, uint32_t block_bytes)
{
    uint64_t d = 0;
    d |= (uint64_t)((smem_addr & 0x3FFFF) >> 4);
    d |= (uint64_t)((block_bytes >> 4) & 0x3FFF) << 16; /* leading byte offset: block to block along m (n) */
    d |= (uint64_t)(1024 >> 4) << 32;                    /* stride byte offset: 8 k rows x 128 B */
    d |= (uint64_t)1 << 62;                              /* swizzle mode: 128 B */
    return d;
}

/* The wgmma of shape m64nNk16, fp32 accumulate, for element type DT (0 f16,
 * 1 bf16), A and B K-major (TA, TB = 0) or MN-major (1). A C++ template
 * because the kernels are compiled per dtype and layout. */
template <int N, int DT, int TA = 0, int TB = 0>
static __device__ __forceinline__ void hg_wgmma_m64k16(float *d, uint64_t da, uint64_t db, int scale_d)
{
    static_assert(N == 8 || N == 16 || N == 32 || N == 64 || N == 96 || N == 128 || N == 160 || N == 176 || N == 192 || N == 256, "no wrapper for this N");
    if constexpr (N == 8) {
        if constexpr (DT == 0) hg_wgmma_m64n8k16_f32_f16<TA, TB>(d, da, db, scale_d);
        else hg_wgmma_m64n8k16_f32_bf16<TA, TB>(d, da, db, scale_d);
    } else if constexpr (N == 16) {
        if constexpr (DT == 0) hg_wgmma_m64n16k16_f32_f16<TA, TB>(d, da, db, scale_d);
        else hg_wgmma_m64n16k16_f32_bf16<TA, TB>(d, da, db, scale_d);
    } else if constexpr (N == 32) {
        if constexpr (DT == 0) hg_wgmma_m64n32k16_f32_f16<TA, TB>(d, da, db, scale_d);
        else hg_wgmma_m64n32k16_f32_bf16<TA, TB>(d, da, db, scale_d);
    } else if constexpr (N == 64) {
        if constexpr (DT == 0) hg_wgmma_m64n64k16_f32_f16<TA, TB>(d, da, db, scale_d);
        else hg_wgmma_m64n64k16_f32_bf16<TA, TB>(d, da, db, scale_d);
    } else if constexpr (N == 96) {
        if constexpr (DT == 0) hg_wgmma_m64n96k16_f32_f16<TA, TB>(d, da, db, scale_d);
        else hg_wgmma_m64n96k16_f32_bf16<TA, TB>(d, da, db, scale_d);
    } else if constexpr (N == 128) {
        if constexpr (DT == 0) hg_wgmma_m64n128k16_f32_f16<TA, TB>(d, da, db, scale_d);
        else hg_wgmma_m64n128k16_f32_bf16<TA, TB>(d, da, db, scale_d);
    } else if constexpr (N == 160) {
        if constexpr (DT == 0) hg_wgmma_m64n160k16_f32_f16<TA, TB>(d, da, db, scale_d);
        else hg_wgmma_m64n160k16_f32_bf16<TA, TB>(d, da, db, scale_d);
    } else if constexpr (N == 176) {
        if constexpr (DT == 0) hg_wgmma_m64n176k16_f32_f16<TA, TB>(d, da, db, scale_d);
        else hg_wgmma_m64n176k16_f32_bf16<TA, TB>(d, da, db, scale_d);
    } else if constexpr (N == 192) {
        if constexpr (DT == 0) hg_wgmma_m64n192k16_f32_f16<TA, TB>(d, da, db, scale_d);
        else hg_wgmma_m64n192k16_f32_bf16<TA, TB>(d, da, db, scale_d);
    } else {
        if constexpr (DT == 0) hg_wgmma_m64n256k16_f32_f16<TA, TB>(d, da, db, scale_d);
        else hg_wgmma_m64n256k16_f32_bf16<TA, TB>(d, da, db, scale_d);
    }
}

/* ... fp16 accumulate (fp16 inputs only: wgmma accumulates bf16 in fp32). */
template <int N, int DT, int TA = 0, int TB = 0>
static __device__ __forceinline__ void hg_wgmma_m64k16(uint32_t *d, uint64_t da, uint64_t db, int scale_d)
{
    static_assert(DT == 0, "fp16 accumulators take fp16 inputs only");
    static_assert(N == 128 || N == 256, "no fp16-accumulate wrapper for this N (tools/gen_wgmma.py)");
    if constexpr (N == 128) hg_wgmma_m64n128k16_f16_f16<TA, TB>(d, da, db, scale_d);
    else hg_wgmma_m64n256k16_f16_f16<TA, TB>(d, da, db, scale_d);
}

/* ---- 9.7.19.5 setmaxnreg -------------------------------------------------- */

/* Raise / lower this warp group's register allotment (multiple of 8, 24..256).
 * Takes effect only with a register cap at entry (__launch_bounds__(T, 1)). */
template <int R> static __device__ __forceinline__ void hg_setmaxnreg_inc(void)
{
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(R));
}
template <int R> static __device__ __forceinline__ void hg_setmaxnreg_dec(void)
{
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(R));
}

/* ---- 9.7.13.4 barrier.cluster, cluster special registers ------------------ */

static __device__ __forceinline__ void hg_barrier_cluster_arrive(void)
{
    asm volatile("barrier.cluster.arrive.aligned;" ::: "memory");
}
static __device__ __forceinline__ void hg_barrier_cluster_wait(void)
{
    asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
}
/* Every thread of every CTA of the cluster arrives, then waits. */
static __device__ __forceinline__ void hg_cluster_sync(void)
{
    hg_barrier_cluster_arrive();
    hg_barrier_cluster_wait();
}
/* %cluster_ctarank: this CTA's rank in its cluster. */
static __device__ __forceinline__ uint32_t hg_cluster_ctarank(void)
{
    uint32_t r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}

/* ---- 9.7.13.x griddepcontrol (programmatic dependent launch) ------------- */

/* griddepcontrol.wait: until the grids this one depends on programmatically
 * (a launch with programmatic stream serialization) have completed and their
 * writes are visible; at once where it depends on none. */
static __device__ __forceinline__ void hg_griddepcontrol_wait(void)
{
    asm volatile("griddepcontrol.wait;" ::: "memory");
}

/* ---- 9.7.4.x bar (named barriers) ----------------------------------------- */

/* bar.sync id, nthreads: a barrier among a subset of the CTA's warps (one
 * warp group), so the other groups are not held. id 0 is __syncthreads. */
static __device__ __forceinline__ void hg_bar_sync(int id, int nthreads)
{
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(nthreads) : "memory");
}

/* The same with the barrier and the count as immediates (no register). */
template <int ID, int NTHREADS> static __device__ __forceinline__ void hg_bar_sync_imm(void)
{
    asm volatile("bar.sync %0, %1;" ::"n"(ID), "n"(NTHREADS) : "memory");
}

/* ---- 9.7.12.x atom, st.relaxed (counters shared between CTAs: V6's
 * stream-K tail) ------------------------------------------------------------ */

/* atom.acq_rel.gpu.global.add.u32: releases what this thread, and (through a
 * preceding bar.sync, by cumulativity) its CTA-mates, wrote before it;
 * acquires what earlier adders released; returns the old value. */
static __device__ __forceinline__ uint32_t hg_atom_add_acq_rel_gpu(uint32_t *p, uint32_t v)
{
    uint32_t old;
    asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
    return old;
}

/* atom.relaxed.gpu.global.add.u32: a ticket (the family's dynamic walk),
 * ordering nothing else. */
static __device__ __forceinline__ uint32_t hg_atom_add_relaxed_gpu(uint32_t *p, uint32_t v)
{
    uint32_t old;
    asm volatile("atom.relaxed.gpu.global.add.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
    return old;
}

/* st.relaxed.gpu.global.u32 */
static __device__ __forceinline__ void hg_st_relaxed_gpu(uint32_t *p, uint32_t v)
{
    asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

/* ---- 9.7.14 warp-level matrix instructions (mma.sync path) ---------------- */

/* ldmatrix.sync.aligned.m8n8.x4.shared.b16: four 8x8 b16 matrices; lane l
 * supplies the row address of row (l % 8) of matrix (l / 8). */
static __device__ __forceinline__ void hg_ldmatrix_x4(uint32_t *r, uint32_t smem_addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_addr));
}

/* stmatrix.sync.aligned.m8n8.x4.shared.b16: four 8x8 b16 matrices, register
 * i of lane l holding row l / 4, columns 2 (l % 4) and 2 (l % 4) + 1 of
 * matrix i (the mma and wgmma accumulators' layout); lane l supplies the row
 * address of row (l % 8) of matrix (l / 8). */
static __device__ __forceinline__ void hg_stmatrix_x4(uint32_t smem_addr, const uint32_t *r)
{
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(smem_addr), "r"(r[0]),
                 "r"(r[1]), "r"(r[2]), "r"(r[3])
                 : "memory");
}

/* The same, each 8x8 matrix transposed on the way (for operands stored the
 * other way round). */
static __device__ __forceinline__ void hg_ldmatrix_x4_trans(uint32_t *r, uint32_t smem_addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_addr));
}

/* mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}: d += a * b, fp32. a: 4
 * registers (16x16, row), b: 2 registers (16x8, col), d: 4 floats. */
template <int DT>
static __device__ __forceinline__ void hg_mma_m16n8k16(float *d, const uint32_t *a, const uint32_t *b)
{
    if constexpr (DT == 0) {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    } else {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
}

/* ---- 9.7.9.8 cp.async (Ampere-style, used by the generic kernel) ---------- */

/* cp.async.cg.shared.global 16 bytes; src_bytes < 16 zero-fills the rest. */
static __device__ __forceinline__ void hg_cp_async_16(uint32_t smem_addr, const void *gptr, int src_bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(smem_addr), "l"(gptr),
                 "r"(src_bytes)
                 : "memory");
}
static __device__ __forceinline__ void hg_cp_async_commit_group(void)
{
    asm volatile("cp.async.commit_group;" ::: "memory");
}
template <int N> static __device__ __forceinline__ void hg_cp_async_wait_group(void)
{
    asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

/* ---- 9.7.3 floating-point: the special-function unit (MUFU) ---------------- */

/* tanh.approx.f32: tanh(x), relative error at most 2^-10.987 (PTX ISA);
 * +-inf give +-1, NaN gives NaN. One MUFU operation. */
static __device__ __forceinline__ float hg_tanh_approx(float x)
{
    float y;
    asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}
