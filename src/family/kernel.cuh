/*
 * kernel.cuh: the family's kernel skeleton. A persistent, warp-specialized
 * kernel over a configuration (config.cuh): the scheduler (scheduler.cuh)
 * hands each cluster its pieces, the producer fills the ring (mainloop.cuh),
 * the consumers multiply and write C (epilogue.cuh).
 *
 * Per CTA: 1 to 3 consumer warp groups (config.cuh's CONSUMERS; setmaxnreg
 * up to REGS_CONSUMER), then a producer warp group (down to REGS_PRODUCER)
 * whose first warp runs the ring, one elected lane issuing every load. Both
 * sides walk the same list of pieces (hg_sk_next from the same cluster id),
 * so their ring cursors count the same stage uses, in every CTA of the
 * cluster.
 *
 * Ping-pong (Cfg::PINGPONG): consumer wg computes the pieces wg, wg + 2,
 * ... of the walk and skips the ring stages of the others; turn[wg]
 * completes when it is wg's turn to multiply (consumer 0's first turn is
 * given at init, then each consumer hands the turn on after its mainloop),
 * so the mainloops alternate in walk order and each epilogue overlaps the
 * other consumer's mainloop.
 *
 * A k split in the cluster (Cfg::CK > 1): every CTA of the cluster walks
 * the same tiles, each over its own range of their k blocks (scheduler.cuh),
 * and rank 0 sums the others' partials through distributed shared memory
 * and writes C (hg_fam_ck below).
 *
 * Phases: the producer's cursor starts at parity 1 (a fresh barrier lets it
 * through), the consumers' at 0; both flip when the stage wraps. The end
 * drain (producer_tail) waits for the release of every stage's last fill:
 * afterwards every remote arrive the peer's consumers will make on this CTA
 * has landed, and every byte this producer multicast into the peer was
 * consumed; the final cluster sync keeps both CTAs alive until then.
 */
#pragma once

#include "epilogue.cuh"
#include "mainloop.cuh"
#include "scheduler.cuh"

/* The dynamic shared memory, base rounded up to the swizzle atom (the same
 * padding in every CTA, as multicast needs: it writes at the same offset). */
template <class Cfg> static __device__ __forceinline__ hg_pipeline hg_fam_pipeline(uint8_t *smem)
{
    hg_pipeline p;
    p.full = (uint64_t *)(smem + Cfg::OFF_BARRIERS);
    p.empty = p.full + Cfg::STAGES;
    p.stages = Cfg::STAGES;
    return p;
}

/* The profiling build's rows (prof.cuh; tools/v6-profile.c reads them).
 * A configuration whose consumers hold two m64 atoms, or write a 128 x 256
 * tile's C per thread (its 64-bit addresses), has no register to spare for
 * the counters (it spills): it gets no rows, so its counts are dead code and
 * its profiling build is the shipped kernel. A swapped row's accumulator is
 * small enough (BN / 2 floats): it gets rows. A kernel writing an fp32 C
 * gets none either (the 128 x 256 bf16 ones spilled 4 bytes with them). Each translation unit that
 * instantiates kernels has its own rows (static); family_f16.cu reads its. */
#ifdef HG_V6_PROFILE
static __device__ uint32_t hg__fam_prof[HG_V6_PROF_CTAS * HG_V6_PROF_FIELDS];
#endif
template <class Cfg, class CT> static __device__ __forceinline__ uint32_t *hg_fam_prof_rows(void)
{
#ifdef HG_V6_PROFILE
    if constexpr (Cfg::M_ATOMS == 1 && (!Cfg::C_THREAD || Cfg::SWAP_AB) && !hg_c_is_f32<CT>) return hg__fam_prof;
#endif
    return nullptr;
}

/* Ping-pong: consumer wg's turn barrier (one arrival: the other consumer's
 * hand-over, or init's for consumer 0's first turn). */
template <class Cfg> static __device__ __forceinline__ uint64_t *hg_fam_turn_barrier(uint8_t *smem, int wg)
{
    return hg_fam_cload_barriers<Cfg>(smem, Cfg::CONSUMERS) + wg;
}

/* What both roles derive at their start, after their setmaxnreg (a value
 * live across setmaxnreg is spilled by ptxas). */
template <class Cfg> struct hg_fam_cta {
    uint8_t *smem;      /* the aligned dynamic shared memory */
    hg_pipeline pipe;   /* the ring's barriers */
    uint32_t rank;      /* in the cluster */
    int64_t cluster_id; /* whose pieces this CTA computes */
};

template <class Cfg> static __device__ __forceinline__ hg_fam_cta<Cfg> hg_fam_cta_of(uint8_t *smem_raw)
{
    hg_fam_cta<Cfg> c;
    c.smem = hg_smem_align1024(smem_raw);
    c.pipe = hg_fam_pipeline<Cfg>(c.smem);
    /* The grid and the cluster are 1-D along x (hg_cluster_launch_config),
     * so the rank is blockIdx.x's place in its cluster: from blockIdx, ptxas
     * knows it is warp-uniform (from %cluster_ctarank it does not, and then
     * issues each load that uses it in a loop of its own). */
    c.rank = blockIdx.x % Cfg::CLUSTER;
    c.cluster_id = blockIdx.x / Cfg::CLUSTER;
    return c;
}

/* The producer's L2 prefetch of a tile's old C (beta != 0), box by box of
 * the C map: unrolled up to WARM_C_UNROLLED boxes (a 16-bit C's 128 x 256
 * tile, as measured), rolled past it: an fp32 C's 16 boxes, unrolled,
 * spilled the 40-register producer of the nt row (ptxas 13.0). */
static constexpr int HG_FAM_WARM_C_UNROLLED = 8;
template <class Cfg, class CT>
static __device__ __forceinline__ void hg_fam_warm_c(const CUtensorMap *map_c, int64_t m0, int64_t n0, int32_t batch)
{
    if constexpr (!Cfg::C_THREAD) { /* a C written per thread has no map */
        constexpr int COLS = hg_fam_cgeo<Cfg, CT>::COLS;
        if constexpr (Cfg::BM / Cfg::EPI_ROWS * (Cfg::BN / COLS) > HG_FAM_WARM_C_UNROLLED) {
#pragma unroll 1
            for (int r = 0; r < Cfg::BM; r += Cfg::EPI_ROWS)
#pragma unroll 1
                for (int c = 0; c < Cfg::BN; c += COLS)
                    hg_tma_prefetch_l2_3d(map_c, hg_fam_coord(n0 + c), hg_fam_coord(m0 + r), batch);
        } else {
            for (int r = 0; r < Cfg::BM; r += Cfg::EPI_ROWS)
                for (int c = 0; c < Cfg::BN; c += COLS)
                    hg_tma_prefetch_l2_3d(map_c, hg_fam_coord(n0 + c), hg_fam_coord(m0 + r), batch);
        }
    }
}

/* ---- the k split inside the cluster (Cfg::CK > 1) ----
 * Rank 0 of the cluster writes the tile; ranks 1 .. CK - 1 each computed
 * the tile over a later range of its k blocks. Per consumer, a rank r > 0
 * waits until rank 0 has read its previous partial (CK_FREE), writes its
 * accumulator to its own shared memory and arrives on rank 0's CK_FULL,
 * releasing the writes at cluster scope; rank 0 waits there (acquire),
 * adds the partials of ranks 1, 2, ... in that order (deterministic) and
 * arrives on each rank's CK_FREE. `seq` counts the consumer's tiles, the
 * barriers' phases. */
template <class Cfg> struct hg_fam_ck {
    float4 *mine;     /* this thread's first float4 of its consumer's partial */
    uint64_t *full;   /* the consumer's CK_FULL (used in rank 0) */
    uint64_t *free_;  /* the consumer's CK_FREE (used in the other ranks) */
    uint32_t k_rank;  /* 0: sums and writes C */
    uint32_t seq;

    __device__ __forceinline__ void init(uint8_t *smem, uint32_t rank, int wg, int ctid)
    {
        mine = (float4 *)(smem + Cfg::OFF_CK + wg * Cfg::CK_PARTIAL_BYTES) + ctid;
        full = (uint64_t *)(smem + Cfg::OFF_CK_BARRIERS) + wg;
        free_ = full + Cfg::CONSUMERS;
        k_rank = rank / Cfg::TILE_CTAS;
        seq = 0;
    }

    /* After the consumer's mainloop of a tile: true in rank 0, acc then
     * the whole tile's sum; false in the others, their partial handed over. */
    __device__ __forceinline__ bool reduce(typename Cfg::acc_t *acc)
    {
        constexpr int VECS = Cfg::ACC_REGS / 4;
        const uint32_t parity = seq & 1u;
        seq++;
        if (k_rank != 0) {
            hg_mbarrier_wait<true>(free_, parity ^ 1u); /* the previous partial was read (a fresh barrier passes) */
#pragma unroll
            for (int i = 0; i < VECS; i++)
                mine[i * Cfg::WG_THREADS] = make_float4(acc[4 * i], acc[4 * i + 1], acc[4 * i + 2], acc[4 * i + 3]);
            hg_mbarrier_arrive_remote_release(hg_mapa_shared_cluster(hg_smem_addr(full), 0));
            return false;
        }
        hg_mbarrier_wait<true>(full, parity);
#pragma unroll
        for (uint32_t r = 1; r < (uint32_t)Cfg::CK; r++) {
            const uint32_t from = hg_mapa_shared_cluster(hg_smem_addr(mine), r * Cfg::TILE_CTAS);
            float4 x[VECS];
#pragma unroll
            for (int i = 0; i < VECS; i++) x[i] = hg_ld_shared_cluster_f4(from + i * Cfg::WG_THREADS * Cfg::CK_VEC_BYTES);
#pragma unroll
            for (int i = 0; i < VECS; i++)
                acc[4 * i] += x[i].x, acc[4 * i + 1] += x[i].y, acc[4 * i + 2] += x[i].z, acc[4 * i + 3] += x[i].w;
        }
        /* (release: the reads above are done before a rank overwrites its partial) */
#pragma unroll
        for (uint32_t r = 1; r < (uint32_t)Cfg::CK; r++)
            hg_mbarrier_arrive_remote_release(hg_mapa_shared_cluster(hg_smem_addr(free_), r * Cfg::TILE_CTAS));
        return true;
    }

    /* At the consumer's end: a rank r > 0 waits until rank 0 has read its
     * last partial, so no arrival is in flight to a CTA that has exited. */
    __device__ __forceinline__ void drain(void)
    {
        if (k_rank != 0) hg_mbarrier_wait<true>(free_, (seq & 1u) ^ 1u);
    }
};

/* EPI: compiled with hg_matmul's bias and activation (a call without them
 * runs the kernel that carries none of their code). CT: C's element,
 * uint16_t (the inputs' dtype) or float (HG_C_F32: the EPI kernel of the
 * rows that write it, Cfg::WRITES_F32). */
template <class Cfg, int DT, bool EPI, class CT = uint16_t>
__global__ void __launch_bounds__(Cfg::THREADS, 1)
    hg_fam_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                  const __grid_constant__ CUtensorMap map_c, const __grid_constant__ CUtensorMap map_cw,
                  hg_epilogue epi, hg_sk_plan plan,
                  hg_fam_sched<Cfg> sched, float *sk_partials, uint32_t *sk_counters,
                  const __grid_constant__ hg_fam_edge_map<Cfg> map_b_edge)
{
    static_assert(!hg_c_is_f32<CT> || (Cfg::WRITES_F32 && EPI), "an fp32 C: the EPI kernel of a row that writes it");
    extern __shared__ __align__(1024) uint8_t smem_raw[];
    const int tid = threadIdx.x;

    if (tid == 0) {
        uint8_t *smem = hg_smem_align1024(smem_raw);
        hg_pipeline_init(hg_fam_pipeline<Cfg>(smem), Cfg::FULL_ARRIVALS, Cfg::EMPTY_ARRIVALS);
        for (int wg = 0; wg < Cfg::CONSUMERS; wg++)
            for (int s = 0; s < Cfg::EPI_SLOTS; s++) hg_mbarrier_init(hg_fam_cload_barriers<Cfg>(smem, wg) + s, 1);
        if constexpr (Cfg::CK > 1) {
            uint64_t *ck_bars = (uint64_t *)(smem + Cfg::OFF_CK_BARRIERS);
            for (int wg = 0; wg < Cfg::CONSUMERS; wg++) {
                hg_mbarrier_init(ck_bars + wg, Cfg::CK_FULL_ARRIVALS);
                hg_mbarrier_init(ck_bars + Cfg::CONSUMERS + wg, Cfg::CK_FREE_ARRIVALS);
            }
        }
        for (int s = 0; s < Cfg::UNIT_HANDOVERS; s++) /* one arrival: rank 0's hand-over */
            hg_mbarrier_init((uint64_t *)(smem + Cfg::OFF_UNIT_BARRIERS) + s, 1);
        for (int s = 0; s < Cfg::UNIT_READ_BARRIERS; s++) /* the slot's readers */
            hg_mbarrier_init((uint64_t *)(smem + Cfg::OFF_UNIT_READ_BARRIERS) + s, Cfg::UNIT_READERS);
        for (int s = 0; s < 2 * Cfg::TICKET_SLOTS; s++) /* the ticket ring's full and free: one thread each */
            hg_mbarrier_init((uint64_t *)(smem + Cfg::OFF_TICKET_BARRIERS) + s, 1);
        if constexpr (Cfg::PINGPONG) {
            for (int wg = 0; wg < Cfg::CONSUMERS; wg++) hg_mbarrier_init(hg_fam_turn_barrier<Cfg>(smem, wg), 1);
            hg_mbarrier_arrive(hg_fam_turn_barrier<Cfg>(smem, 0)); /* consumer 0 starts */
        }
        /* The inits are visible to the peer's multicasts and remote arrives
         * before the cluster sync below lets the peer start. */
        hg_fence_mbarrier_init_cluster();
    }
    hg_cluster_sync();

    /* Values are computed inside each branch, after its setmaxnreg (a value
     * live across it is spilled); consumers first in the source (with the
     * producer first, ptxas serializes the wgmmas: the seed's observation). */
    if (tid < Cfg::PRODUCER_FIRST_THREAD) {
        /* ---- consumers ---- */
        hg_setmaxnreg_inc<Cfg::REGS_CONSUMER>();
        const hg_fam_cta<Cfg> cta = hg_fam_cta_of<Cfg>(smem_raw);
        const int wg = tid / Cfg::WG_THREADS;
        const int ctid = tid % Cfg::WG_THREADS;
        const int bar_id = Cfg::GROUP_BAR0 + wg; /* this group's named barrier */
        /* The consumer's rows of a tile, as a part (config.cuh's SK_PARTS):
         * its own WG_M rows, or with ping-pong the whole tile. */
        const int part = Cfg::PINGPONG ? 0 : wg;
        volatile uint32_t *sk_last = (volatile uint32_t *)(cta.smem + Cfg::OFF_FLAGS) + wg;
        hg_fam_epilogue<Cfg, DT, EPI, CT> out;
        out.init(cta.smem, wg);
        typename Cfg::acc_t acc[Cfg::ACC_REGS];
        if constexpr (Cfg::ZERO_BY_SCALE_D) /* defined before the first wgmma reads them (scale-d ignores them) */
            for (int i = 0; i < Cfg::ACC_REGS; i++) acc[i] = 0;
        hg_pipe_cursor cur = hg_pipe_consumer_start();
        hg_prof_consumer pr = hg_prof_consumer::start(hg_fam_prof_rows<Cfg, CT>(), wg, ctid);
        hg_fam_ck<Cfg> ck;
        if constexpr (Cfg::CK > 1) ck.init(cta.smem, cta.rank, wg, ctid);

        hg_sk_cursor walk = hg_sk_start(&plan, cta.cluster_id);
        hg_sk_piece pc;
        int64_t offset_m, offset_n;
        uint32_t piece_no = 0; /* ping-pong: the walk's pieces so far */
        /* The dynamic walk: the whole tiles from the producer's claims
         * (walk.dp_next < 0 meanwhile: no register of its own, these rows
         * sit at ptxas's edge), then the plan's tail (scheduler.cuh). */
        if (Cfg::DYNAMIC && sched.dyn != nullptr) walk.dp_next = -1;
        for (;;) {
            if (Cfg::DYNAMIC && walk.dp_next < 0) {
                hg_fam_consumer_wait(cta.pipe, cur, &pr); /* the claimed piece's first stage */
                const uint32_t t = sched.claimed(cta.smem, cur.stage, cta.rank);
                if (t >= (uint64_t)plan.dp_tiles) { /* the end: nothing loaded in this stage */
                    /* consumer_release only once every consumer warp has
                     * waited on this stage. Elsewhere a wgmma (all four warps
                     * of a group) comes between; here, a warp still in the last
                     * epilogue would find the stage refilled, its barrier two
                     * phases on, and wait on the old parity for good. */
                    hg_bar_sync_imm<Cfg::END_BAR, Cfg::END_BAR_THREADS>();
                    if (ctid == 0) hg_fam_consumer_release<Cfg>(hg_pipe_consumer_barrier(cta.pipe, cur));
                    hg_pipe_advance(cta.pipe, &cur);
                    walk.dp_next = plan.dp_tiles;
                    continue;
                }
                sched.whole_piece(plan, t, &pc, cta.rank, &offset_m, &offset_n, &out.batch);
            } else if (!sched.next(plan, &walk, &pc, cta.rank, &offset_m, &offset_n, &out.batch)) {
                break;
            }
            if constexpr (Cfg::PINGPONG) {
                if (piece_no++ % Cfg::CONSUMERS != (uint32_t)wg) {
                    hg_pipe_skip(cta.pipe, &cur, pc.k_end - pc.k_begin); /* the other consumer's piece */
                    continue;
                }
            }
            if constexpr (!Cfg::ZERO_BY_SCALE_D) { /* else the first wgmmas overwrite them */
#pragma unroll
                for (int i = 0; i < Cfg::ACC_REGS; i++) acc[i] = 0; /* 0.0f, or two fp16 zeros */
                /* Pin the zeros before the first wgmma.fence, so no move of
                 * them lands between wgmmas (ptxas would then serialize them). */
                hg_acc_fence<Cfg::ACC_REGS>(acc);
            }
            const int64_t row0 = offset_m + (int64_t)part * Cfg::WG_M;
            /* The piece's start is taken off main now and its end added
             * below, so no clock lives in a register through the mainloop. */
            pr.main -= hg_prof_clock_in_order();
            pr.kblocks += (uint32_t)(pc.k_end - pc.k_begin), pr.pieces++;
            /* Only a whole tile surely writes C (a tail piece may not).
             * load_first waits for the previous tile's last stores to have
             * read the slots: a ping-pong consumer before its turn, the
             * others under the tile's first wgmmas. */
            const bool load_c = !Cfg::C_THREAD && pc.sk_tile < 0;
            bool first_loaded = false;
            if constexpr (Cfg::PINGPONG)
                first_loaded = load_c && out.load_first(&map_c, epi, row0, offset_n, ctid, bar_id);
            if constexpr (!Cfg::C_THREAD) out.prefetch_bias(epi, offset_n, ctid);
            if constexpr (Cfg::PINGPONG) /* this consumer's n-th turn (piece_no = n * CONSUMERS + wg + 1) */
                hg_mbarrier_wait(hg_fam_turn_barrier<Cfg>(cta.smem, wg), (piece_no - 1) / Cfg::CONSUMERS & 1u);
            /* (a k split's rank may have no k blocks, k < CK blocks: its
             * partial is the zeros above; config.cuh's ZERO_BY_SCALE_D) */
            if (Cfg::CK == 1 || pc.k_end > pc.k_begin)
                hg_fam_consume<Cfg, DT>(acc, cta.pipe, &cur, cta.smem, part, ctid, pc.k_end - pc.k_begin, &pr, [&] {
                    if constexpr (!Cfg::PINGPONG)
                        first_loaded = load_c && out.load_first(&map_c, epi, row0, offset_n, ctid, bar_id);
                });
            /* Its wgmmas are done (consume waited for them): the other
             * consumer's turn. */
            if (Cfg::PINGPONG && ctid == 0)
                hg_mbarrier_arrive(hg_fam_turn_barrier<Cfg>(cta.smem, (wg + 1) % Cfg::CONSUMERS));
            const uint32_t t_drained = hg_prof_clock_in_order();
            pr.main += t_drained;
            /* A piece of a tail tile: only the last piece to finish writes C.
             * (A WHOLE_ONLY row's plan has none: host.cuh.) */
            if constexpr (Cfg::CK > 1) {
                if (!ck.reduce(acc)) { /* handed to rank 0, which writes C */
                    pr.epi += hg_prof_clock() - t_drained;
                    continue;
                }
            }
            if constexpr (!Cfg::WHOLE_ONLY) {
                if (pc.sk_tile >= 0 && !hg_fam_sk_fixup<Cfg>(acc, plan, pc, cta.cluster_id, cta.rank, part, ctid,
                                                             bar_id, sk_last, sk_partials, sk_counters)) {
                    pr.epi += hg_prof_clock() - t_drained;
                    continue;
                }
            }
            if constexpr (Cfg::C_THREAD) {
                if (out.units_interior(acc, epi, row0, offset_n, ctid)) { /* in 16-byte units */
                    pr.epi += hg_prof_clock() - t_drained;
                    continue;
                }
                hg_fin_dispatch<EPI>(epi, [&](auto fin) {
                    const hg_epilogue &product = Cfg::BATCHES ? hg_epilogue_at<CT>(epi, out.batch) : epi;
                    /* An fp32 C per thread: its stage would take twice the
                     * bytes, more than the larger swapped rows' rings leave. */
                    if constexpr (Cfg::SWAP_AB && !hg_c_is_f32<CT>) {
                        if (epi.beta == 0.0f) { /* C's rows whole through the stage; beta reads C per thread */
                            hg_fam_swap_store<Cfg, DT, decltype(fin)>(
                                product, acc, cta.smem + Cfg::OFF_EPI + wg * Cfg::SWAP_STAGE_BYTES, row0, offset_n,
                                ctid, bar_id);
                            return;
                        }
                    }
#pragma unroll
                    for (int i = 0; i < Cfg::M_ATOMS; i++)
                        hg_store_wgmma_acc<DT, Cfg::BN, Cfg::SWAP_AB, decltype(fin), CT>(
                            product, acc + i * Cfg::ACC_ATOM, row0 + (int64_t)i * Cfg::MMA_M, offset_n, ctid);
                });
            } else {
                out.tile(&map_c, &map_cw, acc, epi, row0, offset_n, ctid, bar_id, first_loaded);
            }
            pr.epi += hg_prof_clock() - t_drained;
        }
        if constexpr (Cfg::CK > 1) ck.drain();
        pr.finish(hg_fam_prof_rows<Cfg, CT>(), wg, ctid);
        out.finish(ctid);
    } else {
        /* ---- producer ---- */
        hg_setmaxnreg_dec<Cfg::REGS_PRODUCER>();
        const hg_fam_cta<Cfg> cta = hg_fam_cta_of<Cfg>(smem_raw);
        /* The producer group's first warp runs the loop, all 32 lanes
         * together, so ptxas knows its values (the walk, the tile, k) to be
         * warp-uniform; one elected lane arms each barrier and issues the
         * loads, their operands moved to uniform registers once. Run by
         * one thread behind a C wait loop, the same code had ptxas wrap
         * every load in a loop of its own (docs/NOTES.md, "The producer's
         * SASS"). */
        if (tid / Cfg::WARP_THREADS == Cfg::PRODUCER_FIRST_THREAD / Cfg::WARP_THREADS) {
            const bool leader = hg_elect_one();
            if (leader) {
                hg_prefetch_tensormap(&map_a);
                hg_prefetch_tensormap(&map_b);
                if constexpr (Cfg::B_EDGE_BOXES) hg_prefetch_tensormap(&map_b_edge.box);
            }
            /* A C_THREAD C has no map; a WHOLE one loads before the mainloop. */
            const bool warm_c = epi.beta != 0.0f && !Cfg::C_THREAD && !hg_fam_cgeo<Cfg, CT>::WHOLE;
            const uint32_t t_start = hg_prof_clock();
            uint32_t t_empty = 0;
            hg_pipe_cursor cur = hg_pipe_producer_start();
            hg_sk_cursor walk = hg_sk_start(&plan, cta.cluster_id);
            hg_sk_piece pc;
            int64_t offset_m, offset_n;
            int32_t batch;
            /* The dynamic walk: claim each whole tile once its first stage
             * is free, then the plan's tail (scheduler.cuh). */
            /* (walk.dp_next < 0: claiming, as the consumers') */
            uint32_t claim_no = 0, read_phases = 0;
            if (Cfg::DYNAMIC && sched.dyn != nullptr) walk.dp_next = -1;
            for (;;) {
                bool first_acquired = false; /* the piece's first stage, acquired for its claim */
                if (Cfg::DYNAMIC && walk.dp_next < 0) {
                    const uint32_t t0 = hg_prof_clock();
                    hg_pipe_producer_acquire_converged(cta.pipe, cur);
                    t_empty += hg_prof_clock() - t0;
                    const uint32_t t = sched.claim(cta.smem, cta.rank, leader, claim_no++, cur.stage, &read_phases);
                    if (t >= (uint64_t)plan.dp_tiles) { /* the end: the stage carries only that */
                        if (leader) hg_mbarrier_arrive(hg_pipe_producer_barrier(cta.pipe, cur));
                        hg_pipe_advance(cta.pipe, &cur);
                        walk.dp_next = plan.dp_tiles;
                        continue;
                    }
                    sched.whole_piece(plan, t, &pc, cta.rank, &offset_m, &offset_n, &batch);
                    first_acquired = true;
                } else if (!sched.next(plan, &walk, &pc, cta.rank, &offset_m, &offset_n, &batch)) {
                    break;
                }
                /* k blocks < 2^25 (k < 2^31): 32 bits */
                const int32_t k_begin = (int32_t)pc.k_begin, k_end = (int32_t)pc.k_end;
                int32_t warm_at = k_end - Cfg::C_PREFETCH_BLOCKS;
                if (warm_at < k_begin) warm_at = k_begin;
                if constexpr (!Cfg::B_EDGE_BOXES) {
                    for (int32_t kt = k_begin; kt < k_end; kt++) {
                        /* producer_acquire: every consumer that reads this
                         * slot (both CTAs' with a cluster) released it. */
                        const uint32_t t0 = hg_prof_clock();
                        if (!(Cfg::DYNAMIC && first_acquired && kt == k_begin))
                            hg_pipe_producer_acquire_converged(cta.pipe, cur);
                        t_empty += hg_prof_clock() - t0;
                        if (leader)
                            hg_fam_produce_stage<Cfg>(cta.smem + cur.stage * Cfg::STAGE_BYTES,
                                                      hg_pipe_producer_barrier(cta.pipe, cur), &map_a, &map_b, kt,
                                                      offset_m, offset_n, batch, cta.rank);
                        hg_pipe_advance(cta.pipe, &cur);
                        if (warm_c && kt == warm_at && offset_m < epi.m && offset_n < epi.n && leader)
                            hg_fam_warm_c<Cfg, CT>(&map_c, offset_m, offset_n, batch);
                    }
                } else {
                    /* A row with B's edge box: the same loop, written once
                     * as k_loop and compiled twice, for the whole tiles
                     * and for the edge tile, so the first, each stage's hot
                     * path, has no test in it (one cost the 64 x 16 swapped
                     * row 9-15%; docs/NOTES.md, forty-second session). The
                     * rows without it keep the plain loop above: through
                     * k_loop, ptxas spilled 4 bytes in the profiling build
                     * of the 128 x 256 NT row. */
                    auto k_loop = [&](auto &&produce) {
                        for (int32_t kt = k_begin; kt < k_end; kt++) {
                            const uint32_t t0 = hg_prof_clock();
                            if (!(Cfg::DYNAMIC && first_acquired && kt == k_begin))
                                hg_pipe_producer_acquire_converged(cta.pipe, cur);
                            t_empty += hg_prof_clock() - t0;
                            if (leader)
                                produce(cta.smem + cur.stage * Cfg::STAGE_BYTES,
                                        hg_pipe_producer_barrier(cta.pipe, cur), kt);
                            hg_pipe_advance(cta.pipe, &cur);
                            if (warm_c && kt == warm_at && offset_m < epi.m && offset_n < epi.n && leader)
                                hg_fam_warm_c<Cfg, CT>(&map_c, offset_m, offset_n, batch);
                        }
                    };
                    const int edge_rows = hg_fam_b_edge_rows<Cfg>(offset_n, Cfg::SWAP_AB ? epi.m : epi.n);
                    if (edge_rows == 0) {
                        k_loop([&](uint8_t *st, uint64_t *full, int32_t kt) {
                            hg_fam_produce_stage<Cfg>(st, full, &map_a, &map_b, kt, offset_m, offset_n, batch,
                                                      cta.rank);
                        });
                    } else {
                        const uint32_t tx = Cfg::A_BYTES + (uint32_t)edge_rows * Cfg::ROW_BYTES;
                        k_loop([&](uint8_t *st, uint64_t *full, int32_t kt) {
                            hg_fam_produce_stage<Cfg>(st, full, &map_a, &map_b_edge.box, kt, offset_m, offset_n,
                                                      batch, cta.rank, tx);
                        });
                    }
                }
            }
            /* producer_tail: wait for the release of every stage's last
             * fill (a slot never filled passes at once on its fresh
             * barrier), so no arrival or multicast is outstanding at exit. */
            for (int i = 0; i < Cfg::STAGES; i++) {
                hg_pipe_producer_acquire_converged(cta.pipe, cur);
                hg_pipe_advance(cta.pipe, &cur);
            }
            if (leader) {
                hg_prof_put(hg_fam_prof_rows<Cfg, CT>(), HG_V6_PROF_PTOTAL, hg_prof_clock() - t_start);
                hg_prof_put(hg_fam_prof_rows<Cfg, CT>(), HG_V6_PROF_EMPTY, t_empty);
            }
        } else if (Cfg::DYNAMIC && sched.dyn != nullptr && (Cfg::TILE_CTAS == 1 || cta.rank == 0) &&
                   tid == Cfg::PRODUCER_FIRST_THREAD + Cfg::WARP_THREADS) {
            sched.draw_tickets(cta.smem, plan); /* the ticket warp: one lane */
        }
        __syncwarp();
    }
    /* No CTA exits while its peer may still multicast into it or arrive on
     * its barriers. */
    __syncwarp();
    hg_cluster_sync();
}
