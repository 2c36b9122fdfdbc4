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

/*
 * Division by a divisor fixed at launch (1 <= d <= 2^31) of a numerator
 * below 2^31, as a multiply: q = (umulhi(n, mul) + n) >> shift with
 * shift = ceil(log2 d), mul = floor(2^32 (2^shift - d) / d) + 1 (Granlund and
 * Montgomery 1994, fig. 4.1; n < 2^31 keeps the sum below 2^32). A kernel's
 * division by a run-time value is a chain of some twenty dependent
 * instructions (MUFU.RCP and its fix-ups), on the path between one tile and
 * the next; this is three.
 */
typedef struct {
    uint32_t d, mul, shift;
} hg_fastdiv;

HG_HD hg_fastdiv hg_fastdiv_make(uint32_t d)
{
    hg_fastdiv f;
    uint32_t l = 0;
    while (((uint64_t)1 << l) < d) l++;
    f.d = d;
    f.shift = l;
    f.mul = (uint32_t)(((uint64_t)1 << 32) * (((uint64_t)1 << l) - d) / d + 1);
    return f;
}

HG_HD uint32_t hg_fastdiv_q(hg_fastdiv f, uint32_t n)
{
#ifdef __CUDA_ARCH__
    const uint32_t hi = __umulhi(n, f.mul);
#else
    const uint32_t hi = (uint32_t)(((uint64_t)n * f.mul) >> 32);
#endif
    return (hi + n) >> f.shift;
}

/* The width of hg_raster_tile's last band (group, or fewer). */
HG_HD int64_t hg_raster_last_width(int64_t n_blocks, int64_t group) { return n_blocks - (n_blocks - 1) / group * group; }

/* hg_raster_tile for linear < 2^31 with the run-time divisors precomputed:
 * per_band = m_blocks * group, last_width = hg_raster_last_width. group is
 * a compile-time value where the kernels call it (its division a shift). */
HG_HD void hg_raster_tile_fast(uint32_t linear, hg_fastdiv per_band, hg_fastdiv last_width, uint32_t n_blocks,
                               uint32_t group, int64_t *m_block, int64_t *n_block)
{
    const uint32_t band = hg_fastdiv_q(per_band, linear);
    const uint32_t in_band = linear - band * per_band.d;
    const uint32_t first_n = band * group;
    uint32_t mb, nb;
    if (n_blocks - first_n >= group) {
        mb = in_band / group;
        nb = first_n + in_band % group;
    } else {
        mb = hg_fastdiv_q(last_width, in_band);
        nb = first_n + (in_band - mb * last_width.d);
    }
    *m_block = mb;
    *n_block = nb;
}

/*
 * Stream-K tail (V6). A persistent kernel with W workers (V6: clusters) and T
 * tiles of K k blocks each runs T / W full rounds of whole tiles; the last
 * round's R = T % W tiles would keep only R of the W workers busy. Instead,
 * their R * K k blocks are laid end to end (tile-major) and split into S
 * nearly equal ranges, one per worker 0 .. S-1, so the tail takes about
 * R * K / S k blocks instead of K. A range cuts tiles into pieces; every piece
 * leaves its fp32 partial sum in a workspace and counts itself, and whichever
 * piece of a tile finishes last adds them up, in piece (k) order, and writes
 * C. No piece waits for another, so no launch can hang on a worker that is
 * not resident.
 *
 *   unit u (0 <= u < R * K): k block u % K of tile dp_tiles + u / K
 *   worker w's range:        [hg_sk_begin(w), hg_sk_begin(w + 1))
 *
 * The plan never splits when it would not pay: S is capped so that no range
 * is shorter than HG_SK_MIN_BLOCKS k blocks (a piece's partial costs about as
 * much as a few k blocks to write and read) and no tile is cut into more than
 * about HG_SK_MAX_SPLIT pieces, and the tail must shrink by at least
 * HG_SK_MIN_GAIN k blocks. S > R always, so a range is shorter than K and a
 * worker gets at most 2 pieces, each with its own workspace slot: 0 for the
 * piece that starts its range, 1 for one that starts a tile inside it.
 */
#define HG_SK_MIN_BLOCKS 8
#define HG_SK_MAX_SPLIT 4
#define HG_SK_MIN_GAIN 8

typedef struct {
    int64_t tiles;      /* T */
    int64_t k_tiles;    /* K (>= 1) */
    int64_t workers;    /* W (>= 1) */
    int64_t dp_tiles;   /* tiles [0, dp_tiles) whole: worker w takes w, w + W, ... */
    int64_t sk_workers; /* S: workers [0, S) split the rest; 0 when nothing is split */
} hg_sk_plan;

/* One piece of work: k blocks [k_begin, k_end) of tile `tile`. sk_tile < 0:
 * the whole tile, written directly. Otherwise the tile is the tail's tile
 * number sk_tile, cut among workers first_worker .. last_worker (one piece
 * each, in k order), and slot (0 or 1) is where this piece's partial goes in
 * its worker's workspace. */
typedef struct {
    int64_t tile, k_begin, k_end;
    int64_t sk_tile, first_worker, last_worker;
    int slot;
} hg_sk_piece;

typedef struct {
    int64_t dp_next;        /* next whole tile */
    int64_t sk_pos, sk_end; /* the rest of this worker's tail range */
    int64_t worker;         /* whose pieces these are */
} hg_sk_cursor;

/* As hg_sk_make below, with a tile cut into at most about max_split pieces
 * (a kernel whose partials are small can afford more of them). */
HG_HD hg_sk_plan hg_sk_make_split(int64_t tiles, int64_t k_tiles, int64_t workers, int enable, int64_t max_split)
{
    hg_sk_plan p;
    p.tiles = tiles;
    p.k_tiles = k_tiles;
    p.workers = workers;
    p.dp_tiles = tiles;
    p.sk_workers = 0;
    if (!enable || workers < 2 || k_tiles < 1 || tiles < 1) return p;
    int64_t rem = tiles % workers;
    if (rem == 0) return p;
    int64_t total = rem * k_tiles;
    int64_t s = workers;
    if (s > total / HG_SK_MIN_BLOCKS) s = total / HG_SK_MIN_BLOCKS;
    if (s > rem * max_split) s = rem * max_split;
    if (s <= rem) return p;
    if (k_tiles - hg_cdiv(total, s) < HG_SK_MIN_GAIN) return p;
    p.dp_tiles = tiles - rem;
    p.sk_workers = s;
    return p;
}

/* The family's rule for a long k: a tile may be cut into one piece per
 * HG_SK_LONG_K_BLOCKS k blocks when that is more than max_split (the fixup
 * reads grow with the pieces, the work of each piece with k), so a few tiles
 * of a long k (256 x 256 x 131072: 2 cluster blocks of 2048 k blocks) reach
 * every SM. Only when the usual split leaves more than half of the workers
 * idle: past that, more pieces no longer line up with the tiles and their
 * fixups cost more than the idle workers (1024 x 1024 x 32768 on the
 * 128 x 256 row: 107 us with 4 pieces per tile over 64 of 66 clusters, 143 us
 * with 66 unaligned pieces). */
#define HG_SK_LONG_K_BLOCKS 64
/* A family tile of more pieces than this is summed in two levels, groups of
 * this many pieces first (scheduler.cuh's hg_fam_sk_fixup). */
#define HG_SK_FIXUP_GROUP 8
HG_HD int64_t hg_sk_split_for_k(int64_t max_split, int64_t k_tiles, int64_t tiles, int64_t workers)
{
    const int64_t rem = workers > 0 ? tiles % workers : 0;
    if (2 * rem * max_split >= workers) return max_split;
    const int64_t by_k = k_tiles / HG_SK_LONG_K_BLOCKS;
    return by_k > max_split ? by_k : max_split;
}
HG_HD hg_sk_plan hg_sk_make(int64_t tiles, int64_t k_tiles, int64_t workers, int enable)
{
    return hg_sk_make_split(tiles, k_tiles, workers, enable, HG_SK_MAX_SPLIT);
}
/* The tail's length in k blocks, R * K (0 when nothing is split). */
HG_HD int64_t hg_sk_units(const hg_sk_plan *p) { return (p->tiles - p->dp_tiles) * p->k_tiles; }

/* What a stream-K tail costs beyond its share of k blocks (the pieces'
 * partials written, the last piece's reads, the pieces' pipeline drains), in
 * k blocks, for partials of HG_SK_FIXUP_REF_BYTES per SM (V6's and the
 * family's 128 x 256 rows); smaller partials pay in proportion.
 *   - A tail after whole rounds: measured on the H200 (2026-12-04, median of
 *     3 fresh processes), the family's 128 x 256 row ran whole tiles faster
 *     than its tail of 37 k blocks (rounds of 64) at 4096 x 14336 x 4096,
 *     by 0.2-0.4%, and of 70 (rounds of 96) at 6144^3, by 0.6%: about 30
 *     each.
 *   - Split tiles only (fewer tiles than workers: decode, a long k over few
 *     tiles): 16, V6's tail at 4096^3 (2026-11-29), with which the swapped
 *     rows' speeds were fitted; 30 there made AUTO pick a row 35% slower at
 *     128 x 3072 x 8192 (tools/auto_check.py against stored measurements). */
#define HG_SK_FIXUP_BLOCKS_TAIL 30.0
#define HG_SK_FIXUP_BLOCKS_SPLIT 16.0
#define HG_SK_FIXUP_REF_BYTES (2.0 * 128 * 256 * 4)
/* The tail's time in k blocks, its fixup included, for a kernel whose
 * partials take ws_bytes_per_sm per SM: AUTO's model (kernel_table.c) and
 * the family's run-time rule (host.cuh) count it the same way. The last
 * piece of a tile reads every piece's partial (with sk_tree, past
 * HG_SK_FIXUP_GROUP pieces: its group's, then the groups' sums); past
 * HG_SK_MAX_SPLIT reads, the fixup grows with them. */
HG_HD double hg_sk_tail_blocks(const hg_sk_plan *p, double ws_bytes_per_sm, int sk_tree)
{
    if (p->sk_workers <= 0) return 0.0;
    const double r = ws_bytes_per_sm / HG_SK_FIXUP_REF_BYTES;
    const int64_t pieces = hg_cdiv(p->sk_workers, p->tiles - p->dp_tiles);
    const int64_t reads =
        sk_tree && pieces > HG_SK_FIXUP_GROUP ? HG_SK_FIXUP_GROUP + hg_cdiv(pieces, HG_SK_FIXUP_GROUP) : pieces;
    const double grow = reads > HG_SK_MAX_SPLIT ? (double)reads / HG_SK_MAX_SPLIT : 1.0;
    const double fixup = p->dp_tiles > 0 ? HG_SK_FIXUP_BLOCKS_TAIL : HG_SK_FIXUP_BLOCKS_SPLIT;
    return (double)hg_cdiv(hg_sk_units(p), p->sk_workers) + fixup * (r < 1.0 ? r : 1.0) * grow;
}
/* Whether a tail after whole rounds pays: its time, fixup included, under
 * one round of whole tiles (a plan of split tiles only, fewer tiles than
 * workers, is left to the model and the k slices: decode, long k). */
HG_HD int hg_sk_tail_pays(const hg_sk_plan *p, double ws_bytes_per_sm, int sk_tree)
{
    return p->sk_workers <= 0 || p->dp_tiles == 0 || hg_sk_tail_blocks(p, ws_bytes_per_sm, sk_tree) < (double)p->k_tiles;
}

/* First tail unit of worker w (0 <= w <= S; hg_sk_begin(S) = R * K). */
HG_HD int64_t hg_sk_begin(const hg_sk_plan *p, int64_t w) { return w * hg_sk_units(p) / p->sk_workers; }

/* The worker whose range holds tail unit u: the largest w with
 * hg_sk_begin(w) <= u, i.e. w * total < (u + 1) * S. */
HG_HD int64_t hg_sk_worker_of(const hg_sk_plan *p, int64_t u)
{
    int64_t total = hg_sk_units(p);
    return ((u + 1) * p->sk_workers + total - 1) / total - 1;
}

/* Worker v's partial for tail tile j sits in v's slot 0 when v's range starts
 * inside (or at the start of) the tile, else in slot 1. */
HG_HD int hg_sk_slot_of(const hg_sk_plan *p, int64_t v, int64_t j)
{
    return hg_sk_begin(p, v) >= j * p->k_tiles ? 0 : 1;
}

HG_HD hg_sk_cursor hg_sk_start(const hg_sk_plan *p, int64_t w)
{
    hg_sk_cursor c;
    c.dp_next = w;
    c.worker = w;
    c.sk_pos = c.sk_end = 0;
    if (w < p->sk_workers) {
        c.sk_pos = hg_sk_begin(p, w);
        c.sk_end = hg_sk_begin(p, w + 1);
    }
    return c;
}

/* Whole tile t (< dp_tiles) as a piece: all its k blocks, no fixup. */
HG_HD void hg_sk_whole_piece(const hg_sk_plan *p, int64_t t, hg_sk_piece *out)
{
    out->tile = t;
    out->k_begin = 0;
    out->k_end = p->k_tiles;
    out->sk_tile = -1;
    out->first_worker = out->last_worker = -1;
    out->slot = 0;
}

/* Worker w's next piece into *out; 0 when it has none left. Whole tiles come
 * first, then the tail range. */
HG_HD int hg_sk_next(const hg_sk_plan *p, hg_sk_cursor *c, hg_sk_piece *out)
{
    if (c->dp_next < p->dp_tiles) {
        hg_sk_whole_piece(p, c->dp_next, out);
        c->dp_next += p->workers;
        return 1;
    }
    if (c->sk_pos >= c->sk_end) return 0;
    int64_t j = c->sk_pos / p->k_tiles;
    int64_t kb = c->sk_pos - j * p->k_tiles;
    int64_t ke = kb + (c->sk_end - c->sk_pos);
    if (ke > p->k_tiles) ke = p->k_tiles;
    out->tile = p->dp_tiles + j;
    out->k_begin = kb;
    out->k_end = ke;
    out->first_worker = hg_sk_worker_of(p, j * p->k_tiles);
    out->last_worker = hg_sk_worker_of(p, (j + 1) * p->k_tiles - 1);
    out->sk_tile = out->first_worker == out->last_worker ? -1 : j;
    out->slot = hg_sk_slot_of(p, c->worker, j);
    c->sk_pos += ke - kb;
    return 1;
}

#endif /* HG_TILING_H */
