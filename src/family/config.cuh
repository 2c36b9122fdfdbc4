/*
 * config.cuh: one configuration of the family as a type. The compile-time
 * choices (configs.def) are its template parameters; everything the kernel
 * needs beyond them is derived here and named, so the kernel bodies hold no
 * literals.
 *
 * The layout a configuration implies:
 *   - 3 warp groups: 2 consumers and 1 producer (its first warp runs the
 *     ring, one elected lane issues every TMA). Cooperative (the default),
 *     both consumers work on each tile, rows [wg * WG_M, (wg + 1) * WG_M),
 *     all BN columns; ping-pong
 *     (PINGPONG), each consumer takes every other tile whole, and their
 *     mainloops take turns, so one's epilogue runs under the other's math.
 *   - A cluster of CM x CN CTAs (along m x along n). CTAs along m share B,
 *     CTAs along n share A: the shared operand is cut into CLUSTER pieces,
 *     each CTA loads one and multicasts it to all.
 *   - A ring of STAGES stages of BK = 64 (one 128-byte swizzle span of k):
 *     A's BM rows, then B's BN rows, both K-major, 128-byte swizzled.
 *   - The epilogue stages C in chunks of 64 rows by one 128-byte swizzle
 *     span of columns (64 16-bit elements, or 32 fp32: hg_fam_cgeo),
 *     EPI_SLOTS per consumer, each chunk one TMA store (and, with beta != 0,
 *     one TMA load of the old C first).
 */
#pragma once

#include <type_traits>

#include "../kernels/common.cuh"

/* The family's tensor maps: (inner, outer, batch), the batch a strided
 * batch's product (0 for a single product). */
static constexpr int HG_FAM_MAP_RANK = 3;

template <int BM_, int BN_, int STAGES_, int CM_, int CN_, int CK_, bool EARLY_RELEASE_, bool A_MN_, bool B_MN_,
          bool C_THREAD_, bool SWAP_AB_, bool PINGPONG_, bool ACC16_>
struct hg_fam_cfg {
    /* ---- the table's choices ---- */
    static constexpr int BM = BM_;         /* tile rows (m) per CTA */
    static constexpr int BN = BN_;         /* tile columns (n) per CTA */
    static constexpr int STAGES = STAGES_; /* ring depth */
    static constexpr int CM = CM_;         /* cluster CTAs along m (they share B) */
    static constexpr int CN = CN_;         /* cluster CTAs along n (they share A) */
    /* Cluster CTAs along k: CK > 1 cuts every tile's k blocks into CK
     * nearly equal ranges, one per CTA of the cluster (rank r: blocks
     * [K r / CK, K (r + 1) / CK)); each leaves its fp32 partial in its own
     * shared memory and rank 0 sums them, in rank order, through
     * distributed shared memory and writes C (kernel.cuh's
     * hg_fam_ck). No partial goes through L2, no counter, no second
     * launch: a long k over few tiles (decode's long-k products) reaches
     * CK times the SMs the tiles alone would. Whole tiles only (the plan
     * has no stream-K tail: host.cuh). */
    static constexpr int CK = CK_;
    /* true: a consumer waits for its stage's wgmmas and releases the stage
     * before it waits for the next one (nothing kept in flight); false: V5's
     * order, one wgmma group kept in flight, the previous stage released. */
    static constexpr bool EARLY_RELEASE = EARLY_RELEASE_;
    /* true: the kernel computes C^T = B A^T: its "A" (the BM side, wgmma's
     * m) is the call's B, its "B" (the BN side) the call's A, its m the
     * call's n. A small m then fills wgmma's narrow n side instead of
     * wasting most of an m64 atom (decode). Everything below is the
     * kernel's view; OP_A, OP_B and the epilogue translate. */
    static constexpr bool SWAP_AB = SWAP_AB_;
    /* The layout, the kernel's view: an operand is K-major (false: A stored
     * m x k; B stored n x k) or MN-major (true: A stored k x m; B stored
     * k x n). */
    static constexpr bool A_MN = A_MN_;
    static constexpr bool B_MN = B_MN_;
    /* The call's ops (hopgemm.h): opA = N is a K-major A, opB = T a K-major
     * B; swapped, the call's A is the kernel's B and the other way round. */
    static constexpr bool CALL_A_MN = SWAP_AB ? B_MN : A_MN;
    static constexpr bool CALL_B_MN = SWAP_AB ? A_MN : B_MN;
    static constexpr hg_op OP_A = CALL_A_MN ? HG_OP_T : HG_OP_N;
    static constexpr hg_op OP_B = CALL_B_MN ? HG_OP_N : HG_OP_T;
    /* true: C may break TMA's 16-byte rule (an odd ldc, a base off 16
     * bytes), so the consumers write it themselves: an interior tile with
     * beta == 0 and no bias or activation through the staging below, in
     * 16-byte units of C's own alignment (epilogue.cuh's tile_units); a
     * swapped row with beta == 0 through a stage of C^T, C's rows whole
     * (hg_fam_swap_store); anything else per thread from the fragment
     * (common.cuh's hg_store_wgmma_acc: 4-byte pairs where aligned, else
     * single elements). false: the staged TMA-store epilogue
     * (epilogue.cuh). */
    static constexpr bool C_THREAD = C_THREAD_;
    static_assert(C_THREAD || !SWAP_AB, "a swapped kernel writes C^T per thread (no TMA store of a transpose)");
    /* true: fp16 accumulators (hg_matmul's HG_COMPUTE_16F; fp16 inputs
     * only), two halves a register: half the registers of fp32's, so a
     * consumer holds two m64n256 atoms (the 256 x 256 tile). The epilogue
     * and the stream-K sums read them as fp32 pairs (hg_acc_pair). */
    static constexpr bool ACC16 = ACC16_;
    static_assert(!ACC16 || !C_THREAD, "fp16 accumulators go through the staged epilogue only");
    /* true: ping-pong consumers. Consumer wg takes the pieces wg, wg + 2,
     * ... of the CTA's walk, each whole (all BM rows), and skips the
     * others' stages in the ring; the two mainloops take turns (the turn
     * barriers), so one consumer's epilogue, its C stores and their waits,
     * runs while the other multiplies: short k, where a tile's epilogue
     * takes as long as its math (docs/family.md). */
    static constexpr bool PINGPONG = PINGPONG_;
    static_assert(!PINGPONG || !C_THREAD, "ping-pong consumers use the staged epilogue");
    static_assert(CK == 1 || (CM * CN == 1 && SWAP_AB && !ACC16),
                  "a k split in the cluster: swapped rows (their small fp32 accumulators), no multicast");

    /* ---- element and instruction geometry ---- */
    static constexpr int ELEM_BYTES = 2;               /* fp16 / bf16 */
    static constexpr int SWIZZLE_BYTES = 128;          /* TMA and wgmma swizzle span */
    static constexpr int BK = SWIZZLE_BYTES / ELEM_BYTES; /* 64: one swizzled row of k */
    static constexpr int MMA_M = 64;                   /* wgmma's m */
    static constexpr int MMA_K = 16;                   /* wgmma's k for 16-bit inputs */
    static constexpr int MMA_N_MAX = 256;              /* widest wgmma */
    static constexpr int K_SLICES = BK / MMA_K;        /* wgmmas per stage per atom */
    static constexpr int DESC_UNIT_BYTES = 16;         /* descriptors count addresses in 16-byte units */
    static constexpr int HW_NAMED_BARRIERS = 16;       /* bar.sync ids 0-15 */

    /* ---- warp groups ---- */
    static constexpr int WARP_THREADS = 32;
    static constexpr int WG_THREADS = 4 * WARP_THREADS; /* a warp group */
    /* Consumer warp groups (hg_internal.h's HG_FAM_CONSUMERS): one m64 atom
     * of rows each where the tile is one (a 64-row tile: skinny products,
     * cuBLAS's 64 x 64 decode tiles) or three (192 x 192, cuBLAS's tile at
     * 6144^3), else two (each its own rows, or with ping-pong each its own
     * tiles). */
    static constexpr int CONSUMERS = HG_FAM_CONSUMERS(BM, PINGPONG);
    static constexpr int THREADS = (CONSUMERS + 1) * WG_THREADS;
    static constexpr int PRODUCER_FIRST_THREAD = CONSUMERS * WG_THREADS;
    static constexpr int TILE_CONSUMERS = HG_FAM_TILE_CONSUMERS(BM, PINGPONG); /* consumers that share a tile */
    static constexpr int WG_M = BM / TILE_CONSUMERS;     /* rows per consumer */
    static constexpr int M_ATOMS = WG_M / MMA_M;         /* m64 wgmmas per k16 slice */
    static constexpr int ACC_ATOM = BN / 2;              /* accumulator floats per thread per atom (m64nBN) */
    static constexpr int ACC = M_ATOMS * ACC_ATOM;       /* accumulator elements per thread */
    using acc_t = std::conditional_t<ACC16, uint32_t, float>; /* one accumulator register */
    static constexpr int ACC_PER_REG = ACC16 ? 2 : 1;
    static constexpr int ACC_REGS = ACC / ACC_PER_REG;        /* accumulator registers per thread */
    static constexpr int ACC_ATOM_REGS = ACC_ATOM / ACC_PER_REG;
    /* A piece's first k16 slice runs its wgmmas with scale-d = 0 (d = A B),
     * so no zeroing moves sit between one tile's epilogue and the next
     * tile's math. Not in the rows at ptxas's register edge, a full m64n256
     * atom's registers and a per-thread C, one CTA, or early release: with
     * it, ptxas 13.0 spilled 4 bytes in each (one build or another); those
     * zero by moves, as before. So do the k split's rows (CK > 1): a rank
     * may have no k blocks (k < CK blocks), and its mainloop is skipped; a
     * zeroing in a branch beside the wgmmas made ptxas serialize them
     * (C7518). */
    static constexpr int ACC_REGS_EDGE = MMA_N_MAX / 2;
    static constexpr bool ZERO_BY_SCALE_D =
        CK == 1 && (SWAP_AB || !(ACC_REGS == ACC_REGS_EDGE && (C_THREAD || CM * CN == 1 || EARLY_RELEASE)));
    /* A consumer of more accumulators than that (the 256 x 176 row's 176)
     * leaves ptxas no registers for the general epilogue (the old C, C's
     * edges through chunk()) or the stream-K fixup beside them: with both,
     * 216 bytes spilled (ptxas 13.0). Such a row is lean: its epilogue has
     * only the beta = 0 steps (epilogue.cuh's tile_lean), it serves
     * beta = 0 only and runs whole tiles only (host.cuh;
     * hg_internal.h's HG_FAM_LEAN tells dispatch and AUTO's model). So is
     * a row of three consumers: at 152 registers a thread the general
     * epilogue spilled 88-156 bytes (ptxas 13.0, 192 x 192), and whole tiles
     * spare the stream-K counters, which at three parts a tile would pass
     * the workspace's HG_WS_COUNTERS_PER_SM. */
    static constexpr bool LEAN = ACC_REGS > ACC_REGS_EDGE || HG_FAM_PARTIAL_CHUNK(BN, C_THREAD) || CONSUMERS == 3;
    static_assert(HG_FAM_C_SPAN_BYTES == SWIZZLE_BYTES && HG_FAM_C_ELEM_BYTES == ELEM_BYTES,
                  "hg_internal.h's partial-chunk test (for dispatch's C) measures the same span as this row");
    /* Whole tiles only, no stream-K tail or fixup: a lean row, and a k
     * split in the cluster (its pieces are the cluster's CTAs). host.cuh's
     * plan, the kernel and (hg_internal.h's HG_FAM_WHOLE_ONLY) AUTO's model
     * all ask this. */
    static constexpr bool WHOLE_ONLY = LEAN || CK > 1;
    /* setmaxnreg: at entry each thread has 65536 / THREADS registers
     * (__launch_bounds__(THREADS, 1)); the producer gives up what the
     * consumers take. */
    static constexpr int REGS_AT_ENTRY = 65536 / THREADS;
    /* ptxas 13.0 spills the 128 x 192 tile's kernel (4-24 bytes, in one
     * build or another) with every split from 232 / 40 to 208 / 88, and in
     * none of the three builds with 200 / 104; its 96 accumulators leave the
     * consumers room. */
    static constexpr bool NARROW_CONSUMERS = BN == 192 && CONSUMERS == 2;
    /* Whether the staged epilogue applies hg_matmul's bias and activation:
     * not where its code spills (hg_internal.h's HG_FAM_FUSES_EPILOGUE
     * says the same to dispatch). */
    static constexpr bool FUSES_EPILOGUE = HG_FAM_FUSES_EPILOGUE(BM, BN, C_THREAD);
    /* Whether it runs a strided batch (else one product per call): a batch
     * holds the tile's product in a register across the mainloop, which the
     * two-atom consumers (256 x 128) and the _ct rows' per-thread stores of
     * a product's C have none left for (their bf16 kernels spilled). */
    static constexpr bool BATCHES = (M_ATOMS == 1 || PINGPONG) && (!C_THREAD || SWAP_AB);
    /* The operands' L2 promotion (hg__tmap_params): 128 bytes in the
     * one-consumer swapped rows (64-row decode tiles), measured faster so;
     * 0 elsewhere: by the pitch (the 128-row swapped rows measured the same
     * either way: docs/NOTES.md, eighth session). */
    static constexpr int L2_PROMO_BYTES = SWAP_AB && CONSUMERS == 1 ? 128 : 0;
    /* Three consumers (512 threads, 128 registers each at entry): 152 for
     * each consumer thread, 56 left to the producer's. */
    static constexpr int REGS_CONSUMER = CONSUMERS == 3 ? 152 : NARROW_CONSUMERS ? 200 : 232;
    static constexpr int REGS_PRODUCER = CONSUMERS == 3 ? 56 : NARROW_CONSUMERS ? 104 : 40;

    /* ---- cluster and multicast ---- */
    static constexpr int TILE_CTAS = CM * CN;     /* the CTAs of a cluster's output block (they multicast) */
    static constexpr int CLUSTER = TILE_CTAS * CK;
    static constexpr bool MCAST_A = CN > 1;
    static constexpr bool MCAST_B = CM > 1;
    static constexpr uint16_t CLUSTER_MASK = (uint16_t)((1u << CLUSTER) - 1); /* (multicast: CK == 1) */

    /* ---- shared memory: the ring ---- */
    static constexpr int ROW_BYTES = BK * ELEM_BYTES;             /* 128 */
    static constexpr int SWIZZLE_ATOM_BYTES = 8 * ROW_BYTES;      /* 1024: 8 rows, the alignment */
    static constexpr int A_BYTES = BM * ROW_BYTES;
    static constexpr int B_BYTES = BN * ROW_BYTES;
    static constexpr int STAGE_BYTES = A_BYTES + B_BYTES;
    static constexpr int A_BOX_ROWS = BM / CN;                    /* this CTA's load of A (a piece when shared) */
    static constexpr int B_BOX_ROWS = BN / CM;
    static constexpr int A_BOX_BYTES = A_BOX_ROWS * ROW_BYTES;
    static constexpr int B_BOX_BYTES = B_BOX_ROWS * ROW_BYTES;
    /* A swapped row's B is the call's A, m rows (decode's activation). TMA
     * fills a box's rows past m with zeros in every stage, which costs: the
     * 64 x 64 swapped row ran 26% slower at m = 80 (48 of the edge tile's
     * 64 rows empty) than at 128 over as many tiles (docs/NOTES.md,
     * forty-first session). So the tile at m's edge loads B in one box of
     * its rows of m rounded up to a swizzle atom (hg_fam_b_edge_rows, the
     * same for every edge tile of a call), from one more map that the host
     * builds with that box, and arms the stage's barrier with those bytes.
     * Several 8-row boxes instead cost more than the zeros they saved
     * (forty-second session). The rows left out keep a stage's old bytes:
     * they feed only columns of C^T past m, which no epilogue writes.
     * K-major B, one CTA a tile (the edge tile is then the last unit). */
    static constexpr int B_ATOM_ROWS = SWIZZLE_ATOM_BYTES / ROW_BYTES;
    static constexpr bool B_EDGE_BOXES = SWAP_AB && !B_MN && CM * CN == 1 && B_BOX_ROWS > B_ATOM_ROWS;
    static constexpr int ATOM_A_BYTES = MMA_M * ROW_BYTES;        /* one m64 atom of A */
    static constexpr int WG_A_BYTES = WG_M * ROW_BYTES;           /* one consumer's rows of A */

    /* ---- operand layouts in a stage ----
     * K-major: BK elements of k per 128-byte row, one row per m (n), 8-row
     * swizzle atoms; one TMA box (BK x the piece's rows) per piece.
     * MN-major: blocks of MN_BLOCK m (n) per 128-byte row, one row per k (BK
     * rows), 8-row swizzle atoms; one box (MN_BLOCK x BK) per block. Either
     * way MN_BLOCK rows of an operand take MN_BLOCK_BYTES, so every offset
     * above (atoms, consumers' rows, multicast pieces) holds for both. */
    static constexpr int MN_BLOCK = SWIZZLE_BYTES / ELEM_BYTES;   /* 64 */
    static constexpr int MN_BLOCK_BYTES = BK * SWIZZLE_BYTES;     /* 8 KiB */
    static constexpr int TRANS_A = A_MN ? 1 : 0;                  /* wgmma's imm-trans-a, -b */
    static constexpr int TRANS_B = B_MN ? 1 : 0;
    /* A k16 slice starts MMA_K elements further along k: K-major, 32 bytes
     * along the row; MN-major, MMA_K rows of 128 bytes further. In the
     * descriptor's start-address field. */
    static constexpr int DESC_K_STEP_K = MMA_K * ELEM_BYTES / DESC_UNIT_BYTES;
    static constexpr int DESC_K_STEP_MN = MMA_K * SWIZZLE_BYTES / DESC_UNIT_BYTES;
    static constexpr int A_DESC_K_STEP = A_MN ? DESC_K_STEP_MN : DESC_K_STEP_K;
    static constexpr int B_DESC_K_STEP = B_MN ? DESC_K_STEP_MN : DESC_K_STEP_K;
    /* The tensor maps' boxes: (inner, outer) elements. */
    static constexpr int A_MAP_BOX_INNER = A_MN ? MN_BLOCK : BK;
    static constexpr int A_MAP_BOX_OUTER = A_MN ? BK : A_BOX_ROWS;
    static constexpr int B_MAP_BOX_INNER = B_MN ? MN_BLOCK : BK;
    static constexpr int B_MAP_BOX_OUTER = B_MN ? BK : B_BOX_ROWS;

    /* ---- shared memory: the epilogue's staging (its columns: hg_fam_cgeo) ---- */
    static constexpr int EPI_ROWS = MMA_M;                        /* a chunk: one atom's rows ... */
    static constexpr int EPI_CHUNK_BYTES = EPI_ROWS * SWIZZLE_BYTES; /* ... by one swizzle span of columns */
    /* Each warp of a consumer stores its own rows of a chunk (the store
     * map's box): the accumulator fragment gives a warp 16 of an atom's rows. */
    static constexpr int EPI_WARP_ROWS = MMA_M / (WG_THREADS / WARP_THREADS);
    static constexpr int EPI_BOX_BYTES = EPI_WARP_ROWS * SWIZZLE_BYTES;
    /* A consumer's result in chunks of 16-bit C (an fp32 C: hg_fam_cgeo),
     * the last one partial where BN is not whole chunks (176). */
    static constexpr int EPI_TILE_CHUNKS = M_ATOMS * ((BN * ELEM_BYTES + SWIZZLE_BYTES - 1) / SWIZZLE_BYTES);
    /* A partial chunk's columns come in whole stmatrix.x4 groups (two
     * 8-column pair blocks) and whole 16-byte units of C. */
    static constexpr int EPI_PART_COLS = 16;
    static constexpr int SWIZZLE_UNIT_BYTES = 16;                 /* the swizzle permutes 16-byte units ... */
    static constexpr int SWIZZLE_ROWS = SWIZZLE_ATOM_BYTES / ROW_BYTES; /* ... by row mod 8 */
    /* With beta != 0 the producer pulls the tile's C into L2 this many k
     * blocks before the tile's last, so the epilogue's loads hit L2. */
    static constexpr int C_PREFETCH_BLOCKS = 2 * STAGES;
    /* Whether it has a kernel that writes an fp32 C (hg_matmul's HG_C_F32;
     * hg_internal.h's HG_FAM_WRITES_F32 says the same to dispatch): the
     * staged rows and the swapped rows (per thread); not the _ct rows. */
    static constexpr bool WRITES_F32 = FUSES_EPILOGUE && (!C_THREAD || SWAP_AB);

    /* hg_matmul's bias of the tile's columns, one copy per consumer (the
     * staged epilogue reads it from here, not from global memory). */
    static constexpr int BIAS_BYTES = C_THREAD || !FUSES_EPILOGUE ? 0 : CONSUMERS * BN * ELEM_BYTES;
    /* Staging slots per consumer: two (fill one while the other stores),
     * or, where shared memory has room beside the ring and the consumer's
     * result is at least EPI_SLOTS_MAX chunks, that many. Then a consumer stages its
     * whole result without waiting for a store to read a slot, and the
     * stores drain under the next tile's mainloop (short k, where writing C
     * takes as long as the math); with beta != 0 every chunk's old C loads
     * before the mainloop (epilogue.cuh). */
    static constexpr int SMEM_LIMIT = 232448; /* sm_90's opt-in maximum */
    static constexpr int EPI_SLOTS_MIN = 2;
    static constexpr int EPI_SLOTS_MAX = 4;
    static constexpr int BARRIER_BYTES = 8;
    static constexpr int FLAG_BYTES = 4;           /* stream-K: one u32 per consumer */
    /* The dynamic walk (scheduler.cuh's "dynamic walk"): the whole tiles
     * handed out in walk order from a counter, each claimed tile passed to
     * the CTA's consumers in a slot per stage (the stage of the piece's
     * first k block), and in a cluster to the other CTAs' producers through
     * UNIT_HANDOVERS hand-over barriers, one more than the stages. Not with
     * ping-pong (a consumer steps over the other's pieces without waiting
     * on their stages) or a k split in the cluster, and not in the 128 x 256
     * c1x2 row: its fused-epilogue kernels spilled 4-8 bytes with it
     * (ptxas 13.0). A slot's readers (lane 0 of each consumer warp) arrive
     * on its read barrier, UNIT_READERS arrivals, which the writer waits on
     * before it writes the slot again (scheduler.cuh). The tickets come
     * from the producer group's second warp through a ring of TICKET_SLOTS
     * words with a full and a free barrier each, drawn that many claims
     * ahead: one covers the atomic's round trip with a whole tile's time,
     * and each more would hold one more tile back from the clusters that
     * run out first at the end. */
    static constexpr bool DYNAMIC = !PINGPONG && CK == 1 && !(BM == 128 && BN == MMA_N_MAX && CN > 1);
    static constexpr int UNIT_SLOTS = DYNAMIC ? STAGES : 0;
    static constexpr int UNIT_HANDOVERS = DYNAMIC && TILE_CTAS > 1 ? STAGES + 1 : 0;
    static constexpr int UNIT_READ_BARRIERS = UNIT_SLOTS;
    static constexpr int TICKET_SLOTS = DYNAMIC ? 1 : 0;
    static constexpr int UNIT_BARRIERS = UNIT_HANDOVERS + UNIT_READ_BARRIERS + 2 * TICKET_SLOTS;
    static constexpr int UNIT_READERS = CONSUMERS * (WG_THREADS / WARP_THREADS);
    /* Named barriers: 0 the CTA's (__syncthreads), GROUP_BAR0 + wg each
     * consumer group's; END_BAR every consumer warp's, at the end of the
     * claims (kernel.cuh). */
    static constexpr int GROUP_BAR0 = 1;
    static constexpr int END_BAR = GROUP_BAR0 + CONSUMERS;
    static_assert(END_BAR < HW_NAMED_BARRIERS, "a named barrier id past the hardware's");
    static constexpr int END_BAR_THREADS = CONSUMERS * WG_THREADS;
    static constexpr int UNIT_BYTES = 4;           /* a claimed tile: u32 */
    static constexpr int SMEM_BESIDE_EPI = STAGES * STAGE_BYTES +
                                           (2 * STAGES + (PINGPONG ? CONSUMERS : 0) + UNIT_BARRIERS) * BARRIER_BYTES +
                                           CONSUMERS * FLAG_BYTES + (UNIT_SLOTS + TICKET_SLOTS) * UNIT_BYTES +
                                           BIAS_BYTES +
                                           SWIZZLE_ATOM_BYTES;
    /* EPI_SLOTS_MAX is a power of two, so seq % EPI_SLOTS stays a mask
     * (three slots spilled the 128 x 192 row). */
    static constexpr bool EPI_DEEP_FITS =
        SMEM_BESIDE_EPI + EPI_SLOTS_MAX * CONSUMERS * (EPI_CHUNK_BYTES + BARRIER_BYTES) <= SMEM_LIMIT;
    static constexpr int EPI_SLOTS =
        !C_THREAD && EPI_TILE_CHUNKS >= EPI_SLOTS_MAX && EPI_DEEP_FITS ? EPI_SLOTS_MAX : EPI_SLOTS_MIN;

    /* ---- shared memory: the map ---- */
    static constexpr int OFF_EPI = STAGES * STAGE_BYTES;
    /* A swapped row stages each consumer's C^T block (BN rows of C by WG_M
     * columns) to store C's rows whole (epilogue.cuh's hg_fam_swap_store). */
    static constexpr int SWAP_STAGE_BYTES = BN * WG_M * ELEM_BYTES;
    /* A _ct row (C_THREAD, not swapped) stages its interior tiles in the
     * same slots, to write C in 16-byte units (epilogue.cuh's tile_units). */
    static constexpr int EPI_BYTES = SWAP_AB ? CONSUMERS * SWAP_STAGE_BYTES : CONSUMERS * EPI_SLOTS * EPI_CHUNK_BYTES;
    static constexpr int OFF_BARRIERS = OFF_EPI + EPI_BYTES;
    static constexpr int TURN_BARRIERS = PINGPONG ? CONSUMERS : 0;     /* ping-pong: whose mainloop is next */
    /* full, empty, C loads, turns, the dynamic walk's slots */
    static constexpr int BARRIERS = 2 * STAGES + CONSUMERS * EPI_SLOTS + TURN_BARRIERS + UNIT_BARRIERS;
    static constexpr int OFF_UNIT_BARRIERS = OFF_BARRIERS + (BARRIERS - UNIT_BARRIERS) * BARRIER_BYTES;
    static constexpr int OFF_UNIT_READ_BARRIERS = OFF_UNIT_BARRIERS + UNIT_HANDOVERS * BARRIER_BYTES;
    static constexpr int OFF_TICKET_BARRIERS = OFF_UNIT_READ_BARRIERS + UNIT_READ_BARRIERS * BARRIER_BYTES;
    static constexpr int OFF_FLAGS = OFF_BARRIERS + BARRIERS * BARRIER_BYTES;
    static constexpr int OFF_UNITS = OFF_FLAGS + CONSUMERS * FLAG_BYTES;
    static constexpr int OFF_TICKETS = OFF_UNITS + UNIT_SLOTS * UNIT_BYTES;
    static constexpr int OFF_BIAS = OFF_TICKETS + TICKET_SLOTS * UNIT_BYTES;
    /* The k split's exchange (CK > 1): per consumer, its fp32 partial in
     * fragment order (float4 i of thread t at i * WG_THREADS + t), and two
     * barriers: CK_FULL (rank 0's: the other ranks' partials are in) and
     * CK_FREE (each other rank's: rank 0 has read its partial). */
    static constexpr int CK_PARTIAL_BYTES = CK > 1 ? ACC_REGS * WG_THREADS * (int)sizeof(float) : 0;
    static constexpr int CK_VEC_BYTES = 16; /* one float4 */
    static constexpr int OFF_CK = CK > 1 ? (OFF_BIAS + BIAS_BYTES + CK_VEC_BYTES - 1) / CK_VEC_BYTES * CK_VEC_BYTES
                                         : OFF_BIAS + BIAS_BYTES;
    static constexpr int CK_BARRIERS = CK > 1 ? 2 * CONSUMERS : 0;
    static constexpr int OFF_CK_BARRIERS = OFF_CK + CONSUMERS * CK_PARTIAL_BYTES;
    static constexpr int SMEM_USED = OFF_CK_BARRIERS + CK_BARRIERS * BARRIER_BYTES;
    /* Arrivals: every thread of every other rank's consumer on CK_FULL (each
     * releases its own writes), every thread of rank 0's on each CK_FREE. */
    static constexpr int CK_FULL_ARRIVALS = (CK - 1) * WG_THREADS;
    static constexpr int CK_FREE_ARRIVALS = WG_THREADS;
    static constexpr int SMEM_BYTES = SMEM_USED + SWIZZLE_ATOM_BYTES;   /* slack to align the base */

    /* ---- pipeline arrivals ---- */
    static constexpr int FULL_ARRIVALS = 1;                  /* the producer's arrive.expect_tx */
    static constexpr int EMPTY_ARRIVALS = TILE_CONSUMERS * TILE_CTAS; /* every consumer of the stage's tile, in every CTA that writes here */

    /* ---- scheduling ---- */
    static constexpr int UNIT_M = CM * BM;   /* a cluster's output block */
    static constexpr int UNIT_N = CN * BN;
    static constexpr int RASTER_GROUP = 8;   /* cluster blocks per band along n (tiling.h) */

    /* ---- stream-K tail (tiling.h): one consumer's fp32 partial per (worker,
     * rank, piece slot, part): a part is a consumer's rows of the tile (one
     * part, the whole tile, with ping-pong) ---- */
    static constexpr int SK_SLOTS = 2;
    static constexpr int SK_MAX_SPLIT = HG_FAM_SK_MAX_SPLIT(BM, BN); /* pieces per tile at most */
    static constexpr bool SK_TREE = HG_FAM_SK_TREE(BM, BN, PINGPONG);     /* two-level fixup (scheduler.cuh) */
    static constexpr int SK_GROUP_FLOATS = ACC_REGS * WG_THREADS; /* a consumer's partial, its registers' bits */
    static constexpr int SK_PARTS = TILE_CONSUMERS;
    static constexpr size_t SK_WORKER_BYTES = (size_t)TILE_CTAS * SK_SLOTS * SK_PARTS * SK_GROUP_FLOATS * sizeof(float);

    static_assert(BK == 64, "the descriptors assume 128-byte swizzled rows of 64 elements");
    static_assert(MN_BLOCK_BYTES == MN_BLOCK * ROW_BYTES && ATOM_A_BYTES == MN_BLOCK_BYTES,
                  "both layouts put MN_BLOCK rows of an operand in the same bytes");
    static_assert(!A_MN || A_BOX_ROWS % MN_BLOCK == 0, "an MN-major A piece is whole blocks");
    static_assert(!B_MN || B_BOX_ROWS % MN_BLOCK == 0, "an MN-major B piece is whole blocks");
    static_assert(WG_M % MMA_M == 0 && M_ATOMS >= 1, "a consumer's rows are whole m64 atoms");
    static_assert(BN <= MMA_N_MAX && (C_THREAD || BN % EPI_PART_COLS == 0),
                  "BN: one wgmma wide, and for the staged epilogue a partial last chunk of whole stmatrix groups");
    static_assert(BN == 8 || BN == 16 || BN == 32 || BN == 64 || BN == 96 || BN == 128 || BN == 176 || BN == 192 || BN == 256,
                  "no wgmma wrapper for this BN (tools/gen_wgmma.py)");
    static_assert(ACC_REGS % 4 == 0, "stream-K partials move float4s");
    static_assert(!LEAN || (!FUSES_EPILOGUE && !C_THREAD && !PINGPONG && !ACC16),
                  "a lean row stages a 16-bit C without bias or activation, cooperatively");
    static_assert(TILE_CTAS == 1 || TILE_CTAS == 2, "a multicast cluster of 1 or 2 CTAs");
    static_assert(CK == 1 || CK == 2 || CK == 4, "a k split over 2 or 4 CTAs (a portable cluster)");
    static_assert(A_BOX_ROWS <= 256 && B_BOX_ROWS <= 256, "a TMA box is at most 256 rows");
    static_assert(B_BOX_ROWS % B_ATOM_ROWS == 0, "B's box is whole swizzle atoms");
    static_assert(A_BOX_BYTES % SWIZZLE_ATOM_BYTES == 0 && B_BOX_BYTES % SWIZZLE_ATOM_BYTES == 0 &&
                      STAGE_BYTES % SWIZZLE_ATOM_BYTES == 0 && EPI_BOX_BYTES % SWIZZLE_ATOM_BYTES == 0,
                  "every swizzled box starts 1024-byte aligned");
    static_assert(SMEM_BYTES <= SMEM_LIMIT, "the configuration does not fit in shared memory");
    static_assert(EPI_SLOTS == EPI_SLOTS_MIN || SMEM_BYTES == SMEM_BESIDE_EPI + EPI_SLOTS * CONSUMERS * (EPI_CHUNK_BYTES + BARRIER_BYTES),
                  "SMEM_BESIDE_EPI counts what the map puts beside the staging");
    static_assert(CONSUMERS * WG_THREADS * REGS_CONSUMER + WG_THREADS * REGS_PRODUCER <= THREADS * REGS_AT_ENTRY,
                  "the consumers' registers are not covered by the producer's");
    /* ptxas 13.0 fits 176 (the 256 x 176 row's plain kernel) beside the
     * rest of a consumer at 240 registers, not 192 (a 128 x 192 ping-pong
     * tile spilled 296 bytes; docs/NOTES.md, fourteenth session). */
    static_assert(ACC_REGS <= 176, "the accumulator must fit in the consumers' registers without spilling");
};

/* The rows of B's edge box for the tile at offset_n (b_rows: B's rows,
 * the call's m where swapped): its rows of B rounded up to a swizzle atom,
 * or 0 where it loads the whole box (not at the edge, or no fewer rows;
 * config.cuh's B_EDGE_BOXES). The host builds the edge map with it, the
 * producer picks the map by it. */
template <class Cfg> static __host__ __device__ __forceinline__ int hg_fam_b_edge_rows(int64_t offset_n, int64_t b_rows)
{
    if constexpr (!Cfg::B_EDGE_BOXES) {
        return 0;
    } else {
        const int64_t left = b_rows - offset_n;
        if (left <= 0 || left >= Cfg::B_BOX_ROWS) return 0;
        const int rows = (int)((left + Cfg::B_ATOM_ROWS - 1) / Cfg::B_ATOM_ROWS) * Cfg::B_ATOM_ROWS;
        return rows < Cfg::B_BOX_ROWS ? rows : 0;
    }
}

/* B's edge map as a kernel parameter, the kernel's last (empty in a row
 * without B_EDGE_BOXES, whose other parameters stay where they were). */
template <class Cfg, bool = Cfg::B_EDGE_BOXES> struct hg_fam_edge_map {
    CUtensorMap box;
};
template <class Cfg> struct hg_fam_edge_map<Cfg, false> {
};

/* The staged epilogue's chunk for C's element CT (uint16_t: the inputs'
 * dtype; float: hg_matmul's HG_C_F32): EPI_ROWS rows of one swizzle span,
 * so its bytes are the same either way and its columns are not. */
template <class Cfg, class CT> struct hg_fam_cgeo {
    static constexpr int BYTES = sizeof(CT);
    static constexpr int COLS = Cfg::SWIZZLE_BYTES / BYTES;        /* a chunk's columns */
    static constexpr int COL_CHUNKS = (Cfg::BN + COLS - 1) / COLS;
    /* The last chunk's columns: COLS, or fewer where BN is not whole chunks
     * (a 64-column TMA box would then write the next tile's columns, so the
     * warps copy it out themselves: epilogue.cuh's copy_units). */
    static constexpr int LAST_COLS = Cfg::BN - (COL_CHUNKS - 1) * COLS;
    static constexpr bool PARTIAL = LAST_COLS != COLS;
    static constexpr int ACC_PER_CHUNK = COLS / 2;                 /* fragment elements covering them */
    static constexpr int REGS_PER_CHUNK = ACC_PER_CHUNK / Cfg::ACC_PER_REG;
    static constexpr int TMA_ALIGN_ELEMS = 16 / BYTES;             /* TMA's 16-byte rule in elements */
    static constexpr int TILE_CHUNKS = Cfg::M_ATOMS * COL_CHUNKS;   /* a consumer's result */
    /* Every chunk of a consumer's result has its own slot. */
    static constexpr bool WHOLE = Cfg::EPI_SLOTS >= TILE_CHUNKS;
    static_assert(Cfg::C_THREAD || Cfg::EPI_ROWS * COLS * BYTES == Cfg::EPI_CHUNK_BYTES,
                  "chunks of one swizzle span (the staged epilogue)");
    static_assert(!PARTIAL || Cfg::SWAP_AB ||
                      (!Cfg::C_THREAD && LAST_COLS % Cfg::EPI_PART_COLS == 0 &&
                       LAST_COLS * BYTES % Cfg::SWIZZLE_UNIT_BYTES == 0),
                  "a partial last chunk: staged rows only (a swapped row stages its own way), whole stmatrix "
                  "groups and 16-byte units");
};

/* The accumulator registers, fp32 or fp16 pairs (Cfg::ACC16), as the
 * epilogue and the stream-K sums see them. hg_acc_pair: fragment elements
 * i and i + 1 (i even) as floats. */
static __device__ __forceinline__ void hg_acc_pair(const float *acc, int i, float *v0, float *v1)
{
    *v0 = acc[i], *v1 = acc[i + 1];
}
static __device__ __forceinline__ void hg_acc_pair(const uint32_t *acc, int i, float *v0, float *v1)
{
    const __half2 h = *(const __half2 *)&acc[i / 2];
    *v0 = __low2float(h), *v1 = __high2float(h);
}
/* A register's bits as a float (a partial is stored as float4s) ... */
static __device__ __forceinline__ float hg_acc_bits(float v) { return v; }
static __device__ __forceinline__ float hg_acc_bits(uint32_t v) { return __uint_as_float(v); }
/* ... and a partial's register added to an accumulator register. */
static __device__ __forceinline__ void hg_acc_add(float *a, float x) { *a += x; }
static __device__ __forceinline__ void hg_acc_add(uint32_t *a, float x)
{
    const __half2 s = __hadd2(*(const __half2 *)a, *(const __half2 *)&x);
    *a = *(const uint32_t *)&s;
}
