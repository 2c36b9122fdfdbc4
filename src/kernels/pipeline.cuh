/*
 * pipeline.cuh: the producer/consumer ring of shared-memory stages (V4 on).
 *
 * A ring of `stages` slots. Each slot has two mbarriers:
 *   full[s]   producer -> consumers: the slot's TMA bytes have landed.
 *             Arrive count: the producer's one arrive.expect_tx; the phase
 *             completes when that arrival is in and every expected byte came.
 *   empty[s]  consumers -> producer: every consumer is done reading the slot.
 *             Arrive count: one arrival per consumer (warp group), times the
 *             CTAs that read it (V6: 2 consumers x 2 CTAs).
 *
 * Each side walks the ring with a cursor (stage, phase). The phase is the
 * parity of the barrier phase that side waits for; it flips each time the
 * stage wraps to 0. The producer starts at phase 1: on a fresh barrier (in
 * phase 0), a wait for parity 1 returns at once, since the phase "before" the
 * current one counts as complete; so the first lap finds every slot empty
 * without the consumers having arrived. The consumers start at phase 0: they
 * wait for the first real completion of full[s].
 */
#pragma once

#include "ptx.cuh"

typedef struct {
    uint64_t *full;  /* [stages] */
    uint64_t *empty; /* [stages] */
    int stages;
} hg_pipeline;

typedef struct {
    int stage;
    uint32_t phase;
} hg_pipe_cursor;

/* One thread initialises every barrier; the caller then syncs the CTA (or the
 * cluster, after hg_fence_mbarrier_init_cluster) before anyone uses them. */
static __device__ __forceinline__ void hg_pipeline_init(hg_pipeline p, uint32_t producer_arrivals,
                                                        uint32_t consumer_arrivals)
{
    for (int s = 0; s < p.stages; s++) {
        hg_mbarrier_init(&p.full[s], producer_arrivals);
        hg_mbarrier_init(&p.empty[s], consumer_arrivals);
    }
}

static __device__ __forceinline__ hg_pipe_cursor hg_pipe_producer_start(void)
{
    hg_pipe_cursor c = {0, 1};
    return c;
}

static __device__ __forceinline__ hg_pipe_cursor hg_pipe_consumer_start(void)
{
    hg_pipe_cursor c = {0, 0};
    return c;
}

static __device__ __forceinline__ void hg_pipe_advance(const hg_pipeline &p, hg_pipe_cursor *c)
{
    if (++c->stage == p.stages) {
        c->stage = 0;
        c->phase ^= 1;
    }
}

/* Moves the cursor past n uses of the ring without waiting: a consumer
 * steps over the stages of pieces another consumer takes (the family's
 * ping-pong). The phase flips once per wrap. */
static __device__ __forceinline__ void hg_pipe_skip(const hg_pipeline &p, hg_pipe_cursor *c, int64_t n)
{
    const int64_t to = c->stage + n;
    c->stage = (int)(to % p.stages);
    c->phase ^= (uint32_t)((to / p.stages) & 1);
}

/* Producer: wait until the slot under the cursor is empty. */
static __device__ __forceinline__ void hg_pipe_producer_acquire(const hg_pipeline &p, hg_pipe_cursor c)
{
    hg_mbarrier_wait(&p.empty[c.stage], c.phase);
}

/* Producer: the barrier its TMA loads for this slot complete on. */
static __device__ __forceinline__ uint64_t *hg_pipe_producer_barrier(const hg_pipeline &p, hg_pipe_cursor c)
{
    return &p.full[c.stage];
}

/* Consumer: wait until the slot under the cursor is full. */
static __device__ __forceinline__ void hg_pipe_consumer_acquire(const hg_pipeline &p, hg_pipe_cursor c)
{
    hg_mbarrier_wait(&p.full[c.stage], c.phase);
}

/* The same two waits for code a whole warp runs together (the family's
 * producer warp and consumer warp groups): the retry loop inside one asm
 * statement (ptx.cuh's hg_mbarrier_wait_converged), so the loads and
 * wgmmas after it are issued from converged, uniform code. */
static __device__ __forceinline__ void hg_pipe_producer_acquire_converged(const hg_pipeline &p, hg_pipe_cursor c)
{
    hg_mbarrier_wait_converged(&p.empty[c.stage], c.phase);
}

static __device__ __forceinline__ void hg_pipe_consumer_acquire_converged(const hg_pipeline &p, hg_pipe_cursor c)
{
    hg_mbarrier_wait_converged(&p.full[c.stage], c.phase);
}

/* Consumer: the empty barrier of the slot under the cursor ... */
static __device__ __forceinline__ uint64_t *hg_pipe_consumer_barrier(const hg_pipeline &p, hg_pipe_cursor c)
{
    return &p.empty[c.stage];
}

/* ... and of the slot one behind it (V5 on: with one wgmma group kept in
 * flight, the slot that is certainly done is the previous one). */
static __device__ __forceinline__ uint64_t *hg_pipe_prev_consumer_barrier(const hg_pipeline &p,
                                                                          hg_pipe_cursor c)
{
    return &p.empty[(c.stage + p.stages - 1) % p.stages];
}

/*
 * The producer of a one-tile TN kernel (V4, V5), run by one thread. For each
 * k block (bk wide): wait until the slot is empty, arm its full barrier with
 * the one arrival and the stage's bytes, issue the loads: A's box at the slot
 * start, B's box a_bytes after it. Out-of-bounds rows and columns (m, n or k
 * edges) arrive as zeros and still count, so the byte count is always the
 * full stage. Coordinates fit int32: row_a <= m - 1, row_b <= n - 1,
 * kt * bk <= k - 1, all below 2^31 (hg__tma_tn_can_serve).
 *
 * Then the drain: `stages` more acquires, i.e. wait until the consumers have
 * released every load still outstanding. Not needed for correctness in a
 * one-CTA kernel (the consumers wait on the full barrier of every load, so the
 * CTA cannot retire with a load in flight), but the thread that issued the
 * bulk copies then never exits before they landed and were consumed, the
 * rule we keep for every TMA issuer. Why `stages` acquires and not the seed's
 * min(stages, k_tiles): with k_tiles < stages, positions k_tiles..stages-1 are
 * slots never loaded, whose fresh barriers answer parity 1 at once, so
 * min(stages, k_tiles) acquires miss releases (with k_tiles = 1, all of them).
 * With `stages` acquires, position p (k_tiles <= p < k_tiles + stages) waits
 * for the release of load p - stages when p >= stages, and passes at once on
 * a never-loaded slot otherwise. A slot's empty barrier is never more than one
 * phase ahead of the producer's cursor, so each parity test is unambiguous.
 */
static __device__ __forceinline__ void hg_pipe_produce_tn(const hg_pipeline &pipe, uint8_t *smem,
                                                          uint32_t stage_bytes, uint32_t a_bytes, int bk,
                                                          const CUtensorMap *map_a, const CUtensorMap *map_b,
                                                          int k_tiles, int32_t row_a, int32_t row_b)
{
    hg_prefetch_tensormap(map_a);
    hg_prefetch_tensormap(map_b);
    hg_pipe_cursor c = hg_pipe_producer_start();
    for (int kt = 0; kt < k_tiles; kt++) {
        /* empty[s]: on the first lap (phase 1 on a fresh barrier) this returns
         * at once; after that it waits for the consumers' release of the load
         * that used this slot one lap earlier. */
        hg_pipe_producer_acquire(pipe, c);
        uint8_t *stage = smem + c.stage * stage_bytes;
        uint64_t *full = hg_pipe_producer_barrier(pipe, c);
        /* full[s]: arrive count 1 = this arrival; the phase completes once the
         * stage's bytes have landed too. */
        hg_mbarrier_arrive_expect_tx(full, stage_bytes);
        hg_tma_load_2d(stage, map_a, full, kt * bk, row_a);
        hg_tma_load_2d(stage + a_bytes, map_b, full, kt * bk, row_b);
        hg_pipe_advance(pipe, &c);
    }
    for (int s = 0; s < pipe.stages; s++) {
        hg_pipe_producer_acquire(pipe, c);
        hg_pipe_advance(pipe, &c);
    }
}
