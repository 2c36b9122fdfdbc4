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
