/*
 * The kernel table: every registered kernel. Dispatch, the tool (--list,
 * --kernel), and the tests all read this one table. A kernel that is not
 * finished is not listed here.
 *
 * AUTO takes, among the kernels that can serve a call, the one with the
 * highest hg__estimate: the full-wave speed below (the fraction of
 * cuBLAS-best each reached at 8192^3 fp16 TN on the H200, median of 3 fresh
 * processes, 2026-11-29 for the series, 2026-11-30 for the family in
 * configs.def; bench/results/) times the wave efficiency of the call's tile
 * count, where a stream-K tail shortens the last round. The family's 128 x
 * 256 configuration then takes the large TN products, its 128 x 128 one the
 * smallest, V6 a C that breaks TMA's rule. V6's speed is set below its
 * 8192^3 figure (0.951-0.974 on 2026-11-30): on smaller products it fell
 * further behind the model than the family did (3072^3: 0.714 against a
 * model's 0.864, the family 0.832 against 0.845), and at 0.95 AUTO chose it
 * there. Ties go to the earlier entry; generic, last, serves everything.
 */
#include <math.h>

#include "hg_internal.h"
#include "tiling.h"

#define HG_FAM_EARLY_0 ""
#define HG_FAM_EARLY_1 ", stages released early"
#define HG_FAM_CT_0 ""
#define HG_FAM_CT_1 ", C written per thread (any ldc)"

#define HG_FAM_ACC_f32 ""
#define HG_FAM_ACC_f16 ", fp16 accumulators (HG_COMPUTE_16F)"

#define HG_FAM_SWAP_0 ""
#define HG_FAM_SWAP_1 ", computes C^T = B A^T (small m)"

#define HG_FAM_PP_0 ""
#define HG_FAM_PP_1 ", ping-pong consumers (each a whole tile)"

#define HG_FAM_CK_1 ""
#define HG_FAM_CK_2 ", times 2 CTAs along k (each tile's k split in 2, summed in DSMEM)"
#define HG_FAM_CK_4 ", times 4 CTAs along k (each tile's k split in 4, summed in DSMEM)"

/* A family row: its unit is a cluster's output block (a swapped row's is
 * BN of m by BM of n), one cluster per CLUSTER SMs (CM x CN x CK), 64-deep k
 * blocks for its stream-K tail (none in a lean row or a k split's: whole
 * tiles only). */
#define HG_FAMILY_CONFIG(name, id, bm, bn, stages, cm, cn, ck, early, c_thread, swap, pp, acc, layout, speed)                   \
    {#name,                                                                                                        \
     id,                                                                                                           \
     "family: " #layout ", " #bm "x" #bn " tile, " #stages " stages, " #cm "x" #cn " cluster" HG_FAM_EARLY_##early \
         HG_FAM_CT_##c_thread HG_FAM_SWAP_##swap HG_FAM_PP_##pp HG_FAM_ACC_##acc HG_FAM_CK_##ck,                                                                  \
     hg__##name##_can_serve,                                                                                       \
     hg__##name##_launch,                                                                                          \
     speed,                                                                                                        \
     (swap) ? (cn) * (bn) : (cm) * (bm),                                                                           \
     (swap) ? (cm) * (bm) : (cn) * (bn),                                                                           \
     1.0 / ((cm) * (cn) * (ck)),                                                                                   \
     HG_FAM_WHOLE_ONLY(bm, bn, pp, HG_FAM_ACC16_##acc, c_thread, ck) ? 0 : 64, /* no stream-K tail */           \
     HG_FAM_SK_WORKER_BYTES(bm, bn, cm, cn, HG_FAM_ACC16_##acc),                                                                       \
     hg__##name##_workspace,                                                                                       \
     HG_FAM_OP_A_##layout,                                                                                         \
     HG_FAM_OP_B_##layout,                                                                                         \
     swap,                                                                                                         \
     HG_FAM_SK_MAX_SPLIT(bm, bn),                                                                                  \
     1,                                                                                                            \
     HG_FAM_SK_TREE(bm, bn, pp),                                                                                    \
     HG_FAM_FUSES_EPILOGUE(bm, bn, c_thread),                                                                      \
     1,                                                                                                            \
     HG_FAM_ACC16_##acc,                                                                                           \
     HG_FAM_WRITES_F32(bm, bn, c_thread, swap),                                                                    \
     HG_FAM_LEAN(bm, bn, pp, HG_FAM_ACC16_##acc, c_thread) ? HG_LEAN_LONG_GAIN : 1.0,                              \
     !(swap) && (cn) > 1 && (cm) == 1 ? 2 : 1,                                                                      \
     ck,                                                                                                           \
     HG_FAM_ONE_WAVE_ONLY(bm, swap)},

const hg__kernel_entry hg__kernels[] = {
#include "family/configs.def"
    {"v6", HG_KERNEL_V6,
     "setmaxnreg 232/40, 128x320 tile, 2-CTA cluster with B multicast, persistent, TMA-store epilogue, 3 stages",
     hg__v6_can_serve, hg__v6_launch, 0.92, 256, 320, 0.5, 64, HG_V6_SK_WORKER_BYTES, hg__v6_workspace, HG_OP_N,
     HG_OP_T, 0, HG_SK_MAX_SPLIT, 0, 0, 0, 0, 0, 0, 1.0, 0, 1, 0},
    {"v5", HG_KERNEL_V5, "V4 with one wgmma group kept in flight (wait_group 1), 4 stages", hg__v5_can_serve,
     hg__v5_launch, 0.92, 128, 256, 1.0, 0, 0, NULL, HG_OP_N, HG_OP_T, 0, HG_SK_MAX_SPLIT, 0, 0, 0, 0, 0, 0, 1.0, 0, 1, 0},
    {"v4", HG_KERNEL_V4, "pipeline ring, 1 producer warp + 2 consumer warp groups, 128x256 tile, 3 stages",
     hg__v4_can_serve, hg__v4_launch, 0.90, 128, 256, 1.0, 0, 0, NULL, HG_OP_N, HG_OP_T, 0, HG_SK_MAX_SPLIT, 0, 0, 0, 0, 0, 0, 1.0, 0, 1, 0},
    {"v3", HG_KERNEL_V3, "warp specialization: producer warp + consumer warp group, full/empty barriers",
     hg__v3_can_serve, hg__v3_launch, 0.81, 128, 128, 2.0, 0, 0, NULL, HG_OP_N, HG_OP_T, 0, HG_SK_MAX_SPLIT, 0, 0, 0, 0, 0, 0, 1.0, 0, 1, 0},
    {"v2", HG_KERNEL_V2, "V1 with a 3-stage ring of full barriers, loads ahead, block-wide syncs",
     hg__v2_can_serve, hg__v2_launch, 0.82, 128, 128, 2.0, 0, 0, NULL, HG_OP_N, HG_OP_T, 0, HG_SK_MAX_SPLIT, 0, 0, 0, 0, 0, 0, 1.0, 0, 1, 0},
    {"v1", HG_KERNEL_V1, "wgmma from shared memory (descriptors, 128-byte swizzle), 128x128 tile, 1 stage",
     hg__v1_can_serve, hg__v1_launch, 0.77, 128, 128, 3.0, 0, 0, NULL, HG_OP_N, HG_OP_T, 0, HG_SK_MAX_SPLIT, 0, 0, 0, 0, 0, 0, 1.0, 0, 1, 0},
    {"v0", HG_KERNEL_V0, "TMA loads, one mbarrier, mma.sync from registers; 64x128 tile, 1 stage",
     hg__v0_can_serve, hg__v0_launch, 0.51, 64, 128, 3.0, 0, 0, NULL, HG_OP_N, HG_OP_T, 0, HG_SK_MAX_SPLIT, 0, 0, 0, 0, 0, 0, 1.0, 0, 1, 0},
    {"generic", HG_KERNEL_GENERIC, "mma.sync + ldmatrix, cp.async ring; every layout, size and alignment",
     hg__generic_can_serve, hg__generic_launch, 0.48, 128, 256, 1.0, 0, 0, NULL, HG_OP_N, HG_OP_T, 0, HG_SK_MAX_SPLIT, 0, 0,
     1, 1, 0, 1, 1.0, 0, 1, 0},
};

#undef HG_FAMILY_CONFIG

const int hg__kernel_count = (int)(sizeof hg__kernels / sizeof hg__kernels[0]);

double hg__estimate(const hg__kernel_entry *k, const hg__problem *p, const hg__device *d)
{
    return hg__estimate_grid(k, p, d, NULL);
}

/* The tail's pieces per tile, fewest and most (tiling.h's plan). */
static void tail_pieces(const hg_sk_plan *sk, int64_t *fewest, int64_t *most)
{
    *fewest = INT64_MAX, *most = 0;
    for (int64_t j = 0; j < sk->tiles - sk->dp_tiles; j++) {
        const int64_t pieces = hg_sk_worker_of(sk, (j + 1) * sk->k_tiles - 1) - hg_sk_worker_of(sk, j * sk->k_tiles) + 1;
        if (pieces < *fewest) *fewest = pieces;
        if (pieces > *most) *most = pieces;
    }
}

double hg__estimate_grid(const hg__kernel_entry *k, const hg__problem *p, const hg__device *d, hg__model_grid *g)
{
    /* A swapped row is for a decode-sized m of a few of its units: past that
     * it streams all of B once per unit of m, the work an unswapped tile
     * does once (hg_internal.h). */
    const double m_units = ceil((double)p->m / k->unit_m), n_units = ceil((double)p->n / k->unit_n);
    /* A batch's products are tiles of one launch (operands per product) */
    const double batch = p->batch > 1 ? (double)p->batch : 1.0;
    double tiles = m_units * n_units * batch;
    double slots = floor(d->sm_count * k->units_per_sm);
    /* ... or for a mid-sized m whose tiles fill one wave whole (1024^3: 128
     * tiles of 64 x 128 on the 128 x 64 row, 10.7 us against 15.2 for the
     * unswapped 128 x 128 split in 2; H200, one process). */
    const int one_whole_wave = tiles <= slots && tiles * HG_SWAP_WHOLE_WAVE >= slots;
    /* A swapped row's wave that runs whole, stream-K or not (hg_internal.h;
     * tiles <= slots first: the cast needs a count that fits). */
    const int whole_wave = k->swap_ab && tiles <= slots && hg__swap_whole_tiles((int64_t)tiles, (int64_t)slots);
    /* A family row's plan that runs every tile whole (host.cuh asks the
     * same; tiles < 9e15: the cast needs a count that fits). */
    const int whole_tiles = k->whole_rules && tiles < 9e15 &&
                            hg__fam_whole_tiles(p, k->swap_ab, k->unit_m, k->unit_n, (int64_t)tiles, (int64_t)slots);
    if (g) *g = (hg__model_grid){tiles, slots, whole_tiles, 0, 0, 0, 0, 0};
    /* Past HG_SWAP_MAX_M, a wide swapped row (hg__swap_max_m) only where its
     * tiles run as one whole wave (256 x 6144 x 4096 on 128 x 128: 96 tiles;
     * 256^3 stays on the unswapped tiles measured there). */
    const int wide = whole_wave && p->m <= hg__swap_max_m(k) && m_units <= HG_SWAP_MAX_M_UNITS;
    const int past_max_m = k->swap_ab && (m_units > HG_SWAP_MAX_M_UNITS || p->m > HG_SWAP_MAX_M);
    if (past_max_m && !wide && !(one_whole_wave && m_units <= HG_SWAP_MAX_M_UNITS_WHOLE)) return 0.0;
    if (k->swap_ab && k->unit_m <= HG_SWAP_NARROW_M_SIDE && m_units > 1.0) return 0.0;
    const int k_split_rounds = k->cluster_k > 1 && tiles < 9e15 &&
                               hg__k_split_rounds((int64_t)tiles, (int64_t)slots, (int64_t)m_units, k->unit_m, p->k);
    if (k->cluster_k > 1 &&
        !(k_split_rounds || (tiles < 9e15 && hg__k_split_fits((int64_t)tiles, (int64_t)slots, (int64_t)m_units))))
        return 0.0;
    if (tiles <= 0 || slots < 1) return 0.0;
    if (k->one_wave_only && !(m_units == 1.0 && tiles <= slots && p->k >= HG_ONE_WAVE_MIN_K)) return 0.0;
    double waves = ceil(tiles / slots);
    int split_tiles = 0; /* the plan cuts tiles into pieces */
    int all_split = 0;   /* ... all of them */
    int drifting = 0;    /* ... and neighbouring tiles' pieces run at different k */
    if (k->unit_k > 0 && p->k > 0 && tiles < 9e15) {
        int64_t k_tiles = hg_cdiv(p->k, k->unit_k);
        const int64_t split = k->sk_long_k
                                  ? hg_sk_split_for_k(k->sk_max_split, k_tiles, (int64_t)tiles, (int64_t)slots)
                                  : k->sk_max_split;
        hg_sk_plan sk =
            hg_sk_make_split((int64_t)tiles, k_tiles, (int64_t)slots, !d->no_stream_k && !whole_tiles, split);
        if (sk.sk_workers > 0 && hg__sk_workspace_bytes(d, sk.sk_workers, k->unit_ws_bytes) <= d->workspace_bytes) {
            /* The tail, its fixup included (tiling.h); the family's rows
             * split after whole rounds only where this says it pays. */
            const double tail =
                hg_sk_tail_blocks(&sk, (double)k->unit_ws_bytes * k->units_per_sm, k->sk_tree) / (double)k_tiles;
            double w = floor(tiles / slots) + tail;
            if (w < waves) {
                if (g) {
                    g->k_tiles = k_tiles, g->dp_tiles = sk.dp_tiles, g->sk_workers = sk.sk_workers;
                    tail_pieces(&sk, &g->pieces_fewest, &g->pieces_most);
                }
                waves = w;
                split_tiles = 1;
                all_split = sk.dp_tiles == 0;
                drifting = all_split && sk.sk_workers % sk.tiles != 0;
            }
        }
    }
    /* One wave of whole tiles takes one tile's time, a ragged edge's tiles
     * included: the rate counts only the part of them inside C (256^3:
     * 128 x 128's two cluster tiles 8.1 us, 128 x 192's two, a third of them
     * outside C, 8.7; H200, fresh 3). Past one wave or with split tiles the
     * speeds and the fixup's cost were fitted without it, and with it 512 x
     * 4096 x 14336 bf16 would take 128 x 256 (100.8 us) over 128 x 192
     * (90.7). */
    double fill = waves == 1.0 && !split_tiles
                      ? batch * (double)p->m * (double)p->n / (tiles * k->unit_m * k->unit_n)
                      : 1.0;
    /* A product narrower than one unit leaves the same share of every tile
     * empty, however many rounds: 512 x (2048 x 128 x 2048) TT bf16 ran
     * 2.41 ms on 128 x 256 tiles, 1.24 on 128 x 128 (H200). Past one wave:
     * a swapped row's speed and the fixup of tiles that are all split were
     * fitted on narrow products (decode, m = 128) with it left out. */
    if (waves > 1.0 && !all_split && !k->swap_ab) {
        if (m_units == 1.0) fill *= (double)p->m / k->unit_m;
        if (n_units == 1.0) fill *= (double)p->n / k->unit_n;
    }
    /* ... and when all of them are split, an unswapped tile over a small m
     * still computes its empty rows in every piece: 128 x 6144 x 4096 bf16
     * on 128 x 256 in a 2 x 1 cluster (256 rows, half of them empty) took
     * 40 us where the model without this said 16 (H200, 2026-12-02). */
    if (all_split && !k->swap_ab && m_units == 1.0) fill *= (double)p->m / k->unit_m;
    const double flops = 2.0 * (double)p->m * (double)p->n * (double)p->k * batch;
    const double speed = (past_max_m && wide ? k->speed * HG_SWAP_WIDE_GAIN : k->speed) *
                         (flops > HG_MODEL_LONG_FLOPS ? k->long_gain : 1.0);
    const double rate = speed * fill * tiles / (waves * slots);
    /* The memory floor: the time to move A, B and C (C twice with beta) at
     * the kernel's share of the copy bandwidth, against the time of the
     * math at `rate`; the estimate keeps the larger. A swapped row over
     * several m units passes over B once per unit: from L2 with whole
     * tiles, from HBM with split ones (hg_internal.h). */
    if (flops <= 0.0) return rate;
    const double a_bytes = 2.0 * (double)p->m * (double)p->k;
    const double b_bytes = 2.0 * (double)p->n * (double)p->k;
    const double b_passes = k->swap_ab ? m_units : 1.0;
    /* When every tile is split and the pieces do not line up with the
     * tiles (workers not a multiple of them), the tiles that share a block
     * of A (B) read it at different k: an operand too large to stay in L2
     * comes from HBM once per tile that reads it (hg_internal.h). A stream-K
     * tail after whole waves is left out: not measured. */
    const int from_hbm_per_tile = drifting && !k->swap_ab;
    const double a_reads = from_hbm_per_tile && a_bytes > HG_MODEL_L2_RESIDENT ? n_units : 1.0;
    const double b_reads = from_hbm_per_tile && b_bytes > HG_MODEL_L2_RESIDENT ? m_units : 1.0;
    const double c_bytes = hg__c_traffic_bytes(p);
    /* A batch's shared operand (stride 0) comes from HBM once, and rows
     * its products share (a stride shorter than a matrix) once. */
    const double a_batch = hg__batch_copies_a(p);
    const double b_batch = hg__batch_copies_b(p);
    const double bytes = a_batch * a_bytes * a_reads + batch * c_bytes +
                         b_batch * b_bytes * (split_tiles ? b_passes * b_reads : 1.0);
    const double t_math = flops / (rate * HG_MODEL_REF_FLOPS);
    /* (an unswapped whole wave on the floor with A multicast streams as
     * a swapped row does: hg_internal.h) */
    const int floor_stream = whole_tiles && k->whole_rules == 2;
    double t_mem = bytes / ((k->swap_ab || floor_stream ? HG_BW_SWAP : HG_BW_TILED) * HG_MODEL_COPY_BW);
    /* A swapped row over one unit of m, nearly full, whose whole tiles make
     * one wave runs no stream-K fixup (hg_internal.h). */
    if (whole_wave && m_units == 1.0 &&
        (one_whole_wave || t_mem <= HG_SWAP_WHOLE_SHORT_S) && k->unit_m - p->m <= HG_SWAP_WHOLE_WAVE_PAD_ROWS)
        t_mem *= 1.0 - HG_SWAP_WHOLE_WAVE_GAIN;
    if (k_split_rounds) t_mem *= 1.0 - HG_K_SPLIT_ROUNDS_GAIN;
    const double t_l2 = batch * b_bytes * b_passes / HG_MODEL_L2_BW;
    if (!split_tiles && t_l2 > t_mem) t_mem = t_l2;
    /* A swapped row whose accumulator gathers its pieces one at a time,
     * its tiles cut into few pieces each, pays for each piece it gathers
     * (at least one), after the stream (hg_internal.h). */
    if (k->swap_ab && split_tiles && k->unit_m >= HG_SWAP_FIXUP_MIN_M && tiles * HG_SWAP_FIXUP_MAX_PIECES > slots) {
        const double gathered = slots / tiles - 1.0;
        const double t_fixup = HG_SWAP_FIXUP_S * (gathered > 1.0 ? gathered : 1.0);
        return flops / (((t_mem > t_math ? t_mem : t_math) + t_fixup) * HG_MODEL_REF_FLOPS);
    }
    /* (flops over the floor's time, not rate * t_math / t_mem: kernels on
     * the same floor then tie exactly, and the earlier entry wins) */
    return t_mem > t_math ? flops / (t_mem * HG_MODEL_REF_FLOPS) : rate;
}

size_t hg__ws_max_bytes(const hg__device *d) { return hg__ws_max_kernel_bytes(d) + hg__slices_max_bytes(d); }

size_t hg__ws_max_kernel_bytes(const hg__device *d)
{
    size_t most = 0;
    for (int i = 0; i < hg__kernel_count; i++) {
        const hg__kernel_entry *k = &hg__kernels[i];
        if (k->unit_k == 0) continue;
        size_t b = hg__sk_workspace_bytes(d, (int64_t)floor(d->sm_count * k->units_per_sm), k->unit_ws_bytes);
        if (b > most) most = b;
    }
    return most;
}
