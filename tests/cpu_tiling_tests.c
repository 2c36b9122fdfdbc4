/*
 * The CPU tier: host-side tile logic (rasterization, the divisions by
 * precomputed divisors, the stream-K plan), the tensor maps and TMA's
 * conditions, and the exact overlap rule.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_tests.h"
#include "hg_internal.h"
#include "testlib.h"
#include "tiling.h"

void test_rasterization(void)
{
    static const int64_t shapes[][3] = {{1, 1, 4}, {7, 5, 4}, {8, 8, 8}, {13, 33, 8}, {64, 64, 4}, {3, 100, 8}, {100, 3, 4}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int64_t mb = shapes[s][0], nb = shapes[s][1], g = shapes[s][2];
        char *seen = (char *)calloc((size_t)(mb * nb), 1);
        int ok = 1, band_ok = 1;
        for (int64_t t = 0; t < mb * nb; t++) {
            int64_t m, n;
            hg_raster_tile(t, mb, nb, g, &m, &n);
            if (m < 0 || m >= mb || n < 0 || n >= nb || seen[m * nb + n]) {
                ok = 0;
                break;
            }
            seen[m * nb + n] = 1;
            if (n / g != t / (mb * g)) band_ok = 0; /* each band of g columns is walked whole */
        }
        CHECK(ok, "raster %lldx%lld group %lld is a bijection", (long long)mb, (long long)nb, (long long)g);
        CHECK(band_ok, "raster %lldx%lld group %lld walks bands in order", (long long)mb, (long long)nb, (long long)g);
        free(seen);
    }
    int64_t m, n;
    hg_raster_tile(5, 4, 8, 4, &m, &n); /* band 0 (cols 0-3), row 1, col 1 */
    CHECK(m == 1 && n == 1, "tile 5 of 4x8 group 4 is (1,1), got (%lld,%lld)", (long long)m, (long long)n);
    hg_raster_tile(4 * 8 - 1, 4, 8, 4, &m, &n);
    CHECK(m == 3 && n == 7, "last tile is (3,7)");
    hg_raster_tile(16, 4, 5, 4, &m, &n); /* narrow last band (1 column) starts after 4 x 4 tiles */
    CHECK(m == 0 && n == 4, "first tile of the narrow band is (0,4), got (%lld,%lld)", (long long)m, (long long)n);
    CHECK(hg_cdiv(0, 64) == 0 && hg_cdiv(1, 64) == 1 && hg_cdiv(64, 64) == 1 && hg_cdiv(65, 64) == 2, "cdiv");
    CHECK(hg_cdiv(((int64_t)1 << 40) + 1, 128) == ((int64_t)1 << 33) + 1, "cdiv is 64-bit");

    /* The family's walk divides by precomputed divisors: the same order. */
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const int64_t mb = shapes[s][0], nb = shapes[s][1], g = shapes[s][2];
        const hg_fastdiv per_band = hg_fastdiv_make((uint32_t)(mb * g));
        const hg_fastdiv last = hg_fastdiv_make((uint32_t)hg_raster_last_width(nb, g));
        int same = 1;
        for (int64_t t = 0; t < mb * nb && same; t++) {
            int64_t m0, n0, m1, n1;
            hg_raster_tile(t, mb, nb, g, &m0, &n0);
            hg_raster_tile_fast((uint32_t)t, per_band, last, (uint32_t)nb, (uint32_t)g, &m1, &n1);
            same = m0 == m1 && n0 == n1;
        }
        CHECK(same, "fast raster %lldx%lld group %lld walks as hg_raster_tile", (long long)mb, (long long)nb,
              (long long)g);
    }
}

/* The divisors test_fastdiv tries: 1 .. 4096, then x 1.5 steps, then 2^31. */
static uint64_t next_divisor(uint64_t d)
{
    const uint64_t last = (uint64_t)1 << 31;
    if (d < 4096 || d == last) return d + 1;
    return d * 3 / 2 < last ? d * 3 / 2 : last;
}

/* hg_fastdiv against the division it replaces: every divisor up to 2^12 and
 * a spread to 2^31, each with numerators at the edges (0, multiples of d and
 * their neighbours, the top of the range) and a pseudo-random spread. */
void test_fastdiv(void)
{
    const uint32_t top = ((uint32_t)1 << 31) - 1; /* the largest numerator it serves */
    uint64_t bad = 0, tried = 0, x = 0x9E3779B97F4A7C15ull;
    for (uint64_t d = 1; d <= ((uint64_t)1 << 31); d = next_divisor(d)) {
        const uint32_t dd = (uint32_t)d; /* 1 .. 4096, then a spread, then 2^31 */
        const hg_fastdiv f = hg_fastdiv_make(dd);
        uint32_t probes[16 + 64];
        int np = 0;
        const uint32_t edges[] = {0, 1, dd - 1, dd, dd + 1, 2 * dd - 1, 2 * dd, top, top - 1, top - dd,
                                  top / dd * dd, top / dd * dd - 1};
        for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
            if (edges[i] <= top) probes[np++] = edges[i];
        for (int i = 0; i < 64; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            probes[np++] = (uint32_t)(x % ((uint64_t)top + 1));
        }
        for (int i = 0; i < np; i++, tried++) bad += hg_fastdiv_q(f, probes[i]) != probes[i] / dd;
    }
    CHECK(bad == 0, "fastdiv: %llu of %llu quotients wrong", (unsigned long long)bad, (unsigned long long)tried);
}

/* The stream-K plan (tiling.h) as V6's producer and consumers walk it: every
 * (tile, k block) exactly once, the tail split only where it pays, at most
 * two pieces per worker in distinct workspace slots, and each piece's view of
 * its tile (first and last worker, every worker's slot) the same as the
 * pieces that really exist. */
static void check_sk_plan_split(int64_t tiles, int64_t k_tiles, int64_t workers, int enable, int64_t max_split)
{
    hg_sk_plan p = hg_sk_make_split(tiles, k_tiles, workers, enable, max_split);
    int64_t rem = tiles % workers;
    int ok_shape = p.tiles == tiles && p.k_tiles == k_tiles && p.workers == workers;
    if (p.sk_workers == 0) {
        ok_shape = ok_shape && p.dp_tiles == tiles;
    } else {
        int64_t total = rem * k_tiles;
        ok_shape = ok_shape && enable && rem != 0 && p.dp_tiles == tiles - rem && p.sk_workers > rem &&
                   p.sk_workers <= workers && total / p.sk_workers >= HG_SK_MIN_BLOCKS &&
                   p.sk_workers <= rem * max_split && k_tiles - hg_cdiv(total, p.sk_workers) >= HG_SK_MIN_GAIN;
    }
    CHECK(ok_shape, "plan T=%lld K=%lld W=%lld: dp %lld, S %lld", (long long)tiles, (long long)k_tiles,
          (long long)workers, (long long)p.dp_tiles, (long long)p.sk_workers);
    int64_t nt = tiles * k_tiles;
    unsigned char *seen = (unsigned char *)calloc((size_t)nt, 1);
    /* the slot each worker's piece of each tail tile uses, or -1 */
    int64_t *slot_of = (int64_t *)malloc(sizeof(int64_t) * (size_t)(workers * (rem + 1)));
    int ok = seen && slot_of, views = 1, order = 1, whole = 1;
    for (int64_t i = 0; ok && i < workers * (rem + 1); i++) slot_of[i] = -1;
    for (int64_t w = 0; ok && w < workers; w++) {
        hg_sk_cursor c = hg_sk_start(&p, w);
        hg_sk_piece pc;
        int tail_pieces = 0, used[2] = {0, 0};
        while (hg_sk_next(&p, &c, &pc)) {
            if (pc.tile < 0 || pc.tile >= tiles || pc.k_begin < 0 || pc.k_end > k_tiles || pc.k_begin >= pc.k_end) {
                ok = 0;
                break;
            }
            for (int64_t kb = pc.k_begin; kb < pc.k_end; kb++) seen[pc.tile * k_tiles + kb]++;
            if (pc.tile < p.dp_tiles) {
                whole &= pc.k_begin == 0 && pc.k_end == k_tiles && pc.sk_tile < 0 && pc.tile % workers == w;
                continue;
            }
            int64_t j = pc.tile - p.dp_tiles;
            tail_pieces++;
            if (pc.sk_tile < 0) { /* a tail tile that one worker holds whole */
                whole &= pc.k_begin == 0 && pc.k_end == k_tiles;
                continue;
            }
            views &= pc.sk_tile == j && pc.sk_tile < workers && pc.first_worker <= w && w <= pc.last_worker &&
                     (pc.k_begin == 0) == (w == pc.first_worker) && (pc.k_end == k_tiles) == (w == pc.last_worker);
            order &= pc.slot == (tail_pieces == 1 ? 0 : 1) && !used[pc.slot];
            used[pc.slot] = 1;
            slot_of[w * (rem + 1) + j] = pc.slot;
        }
        CHECK(tail_pieces <= 2, "T=%lld K=%lld W=%lld: worker %lld has %d tail pieces", (long long)tiles,
              (long long)k_tiles, (long long)workers, (long long)w, tail_pieces);
    }
    int64_t wrong = 0;
    for (int64_t i = 0; ok && i < nt; i++) wrong += seen[i] != 1;
    CHECK(ok && wrong == 0, "T=%lld K=%lld W=%lld: %lld (tile, k block)s not covered exactly once", (long long)tiles,
          (long long)k_tiles, (long long)workers, (long long)wrong);
    CHECK(whole && views && order, "T=%lld K=%lld W=%lld: whole %d, views %d, slots %d", (long long)tiles,
          (long long)k_tiles, (long long)workers, whole, views, order);
    /* The last piece of tail tile j reads the partials of workers first ..
     * last from the slots hg_sk_slot_of names: each holds a piece of j there. */
    for (int64_t j = 0; ok && p.sk_workers > 0 && j < rem; j++) {
        int64_t first = hg_sk_worker_of(&p, j * k_tiles), last = hg_sk_worker_of(&p, (j + 1) * k_tiles - 1);
        int good = first <= last;
        for (int64_t v = first; first < last && v <= last; v++)
            good &= slot_of[v * (rem + 1) + j] == hg_sk_slot_of(&p, v, j);
        CHECK(good, "T=%lld K=%lld W=%lld: tail tile %lld, workers %lld-%lld", (long long)tiles, (long long)k_tiles,
              (long long)workers, (long long)j, (long long)first, (long long)last);
    }
    free(seen), free(slot_of);
}

static void check_sk_plan(int64_t tiles, int64_t k_tiles, int64_t workers, int enable)
{
    check_sk_plan_split(tiles, k_tiles, workers, enable, HG_SK_MAX_SPLIT);
    check_sk_plan_split(tiles, k_tiles, workers, enable, HG_FAM_SK_MAX_SPLIT(128, 16));
}

void test_stream_k_plan(void)
{
    static const int64_t cases[][3] = {
        {832, 128, 66},  /* 8192^3 on V6: 12 rounds + 40 tile pairs */
        {208, 64, 66},   /* 4096^3 */
        {1, 32, 66},     /* one tile, split */
        {4, 129, 66},    {70, 128, 66}, {70, 63, 66}, {224, 16, 66}, {8, 16, 66}, {56, 32, 66},
        {65, 9, 66},     {67, 1000, 66}, {131, 200, 66}, {5, 7, 3}, {10, 100, 7}, {3, 3, 2}, {66, 128, 66},
        {1, 1, 1},       {100, 40, 1}, {2048, 8, 60}, {97, 513, 13},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        check_sk_plan(cases[i][0], cases[i][1], cases[i][2], 1);
        check_sk_plan(cases[i][0], cases[i][1], cases[i][2], 0);
    }
    /* a sweep of small cases */
    for (int64_t w = 1; w <= 9; w++)
        for (int64_t t = 1; t <= 3 * w + 1; t++)
            for (int64_t k = 1; k <= 70; k += 3) check_sk_plan(t, k, w, 1);
    hg_sk_plan p = hg_sk_make(832, 128, 66, 1);
    CHECK(p.dp_tiles == 792 && p.sk_workers == 66, "8192^3 splits its 40 tail pairs over all 66 clusters");
    p = hg_sk_make(832, 128, 66, 0);
    CHECK(p.sk_workers == 0, "disabled: no split");
    p = hg_sk_make(792, 128, 66, 1);
    CHECK(p.sk_workers == 0, "full rounds: no split");
    p = hg_sk_make(70, 10, 66, 1);
    CHECK(p.sk_workers == 0, "a short k: the tail would not shrink by HG_SK_MIN_GAIN");
    /* a long k: 256 x 256 x 131072 on the 128 x 128 row (2 cluster blocks of
     * 2048 k blocks) cuts each block 32 ways, not 8, and reaches 64 of the
     * 66 clusters; a short k keeps the row's own limit */
    CHECK(hg_sk_split_for_k(8, 2048, 2, 66) == 32 && hg_sk_split_for_k(8, 64, 2, 66) == 8 &&
              hg_sk_split_for_k(4, 511, 1, 66) == 7,
          "hg_sk_split_for_k");
    /* 1024 x 1024 x 32768 on the 128 x 256 row: 16 cluster blocks in 4
     * pieces already reach 64 of 66 clusters, so the row's own limit stays */
    CHECK(hg_sk_split_for_k(4, 512, 16, 66) == 4, "a long k with enough tiles keeps max_split");
    p = hg_sk_make_split(2, 2048, 66, 1, hg_sk_split_for_k(HG_FAM_SK_MAX_SPLIT(128, 128), 2048, 2, 66));
    CHECK(p.dp_tiles == 0 && p.sk_workers == 64, "256 x 256 x 131072 splits over 64 clusters, got %lld",
          (long long)p.sk_workers);
    check_sk_plan_split(2, 2048, 66, 1, hg_sk_split_for_k(HG_FAM_SK_MAX_SPLIT(128, 128), 2048, 2, 66));
    check_sk_plan_split(5, 4099, 132, 1, hg_sk_split_for_k(HG_SK_MAX_SPLIT, 4099, 5, 132));
    /* decode on a swapped row: 32 tiles of 128 x 16 along n = 4096, k = 14336
     * (224 k blocks) spread over every SM, not 4 pieces per tile */
    p = hg_sk_make_split(32, 224, 132, 1, HG_FAM_SK_MAX_SPLIT(128, 16));
    CHECK(p.dp_tiles == 0 && p.sk_workers == 132, "32 small tiles split over all 132 SMs, got %lld",
          (long long)p.sk_workers);
    /* Whether a tail after whole rounds pays, its fixup counted
     * (hg_sk_tail_pays), on the family's 128 x 256 row in 2 x 1 clusters
     * (66 of them, 256 KiB of partials per SM): 8192^3 (1024 cluster
     * blocks of 128 k blocks) splits its 34 last ones, a tail of 66 + 30;
     * 4096 x 14336 x 4096 (896 of 64: a tail of 37 + 30) and 6144^3 (576 of
     * 96: 70 + 30) run whole tiles, as measured faster; a plan of split
     * tiles only pays by definition (the model decides it). */
    const double fam_ws = (double)HG_FAM_SK_WORKER_BYTES(128, 256, 2, 1, 0) / 2; /* a cluster's over its 2 SMs */
    p = hg_sk_make(1024, 128, 66, 1);
    CHECK(p.sk_workers == 66 && hg_sk_tail_pays(&p, fam_ws, 0) && hg_sk_tail_blocks(&p, fam_ws, 0) == 66.0 + 30.0,
          "8192^3: the tail pays (%.1f k blocks against 128)", hg_sk_tail_blocks(&p, fam_ws, 0));
    p = hg_sk_make(896, 64, 66, 1);
    CHECK(p.sk_workers == 66 && !hg_sk_tail_pays(&p, fam_ws, 0),
          "4096 x 14336 x 4096: the tail (%.1f k blocks) does not beat a round of 64", hg_sk_tail_blocks(&p, fam_ws, 0));
    p = hg_sk_make(576, 96, 66, 1);
    CHECK(p.sk_workers > 0 && !hg_sk_tail_pays(&p, fam_ws, 0), "6144^3: the tail (%.1f k blocks) does not beat 96",
          hg_sk_tail_blocks(&p, fam_ws, 0));
    /* half the partials (a 128 x 128 tile's) pay half the fixup */
    p = hg_sk_make(896, 64, 66, 1);
    CHECK(hg_sk_tail_pays(&p, fam_ws / 2, 0) && hg_sk_tail_blocks(&p, fam_ws / 2, 0) == 37.0 + 15.0,
          "a smaller partial pays in proportion");
    p = hg_sk_make(1, 32, 66, 1);
    CHECK(p.dp_tiles == 0 && p.sk_workers == 4 && hg_sk_tail_pays(&p, fam_ws, 0) &&
              hg_sk_tail_blocks(&p, fam_ws, 0) == 8.0 + 16.0,
          "split tiles only: left to the model, which counts V6's fixup (%.1f k blocks)", hg_sk_tail_blocks(&p, fam_ws, 0));
    p = hg_sk_make(792, 128, 66, 1);
    CHECK(hg_sk_tail_pays(&p, fam_ws, 0) && hg_sk_tail_blocks(&p, fam_ws, 0) == 0.0, "no tail: nothing to pay");
}

void test_tensor_map_params(void)
{
    hg__tmap_params t;
    memset(&t, 0, sizeof t);
    t.elem_bytes = 2;
    t.rank = 2;
    t.dim[0] = 8192;
    t.dim[1] = 8192;
    t.stride1 = 8192 * 2;
    t.box[0] = 64;
    t.box[1] = 256;
    t.swizzle_bytes = 128;
    const void *base = (const void *)(uintptr_t)0x1000;
    CHECK(hg__tmap_check(&t, base) == NULL, "the TN operand map is valid");
    CHECK(hg__tmap_check(&t, (const char *)base + 8) != NULL, "an 8-byte aligned base is not");
    hg__tmap_params u = t;
    u.stride1 = 8200 * 2 + 2;
    CHECK(hg__tmap_check(&u, base) != NULL, "a stride of 8201 elements is not");
    u = t;
    u.box[1] = 320;
    CHECK(hg__tmap_check(&u, base) != NULL, "a 320-row box is not (<= 256)");
    u = t;
    u.box[0] = 128;
    CHECK(hg__tmap_check(&u, base) != NULL, "a 256-byte inner box under a 128-byte swizzle is not");
    u = t;
    u.dim[0] = 1;
    CHECK(hg__tmap_check(&u, base) == NULL, "k = 1 is fine (the box reaches past the edge)");
    u = t;
    u.dim[1] = 0;
    CHECK(hg__tmap_check(&u, base) != NULL, "an empty dimension is not");
    u = t;
    u.swizzle_bytes = 0;
    u.box[0] = 160;
    u.box[1] = 64;
    CHECK(hg__tmap_check(&u, base) == NULL, "the V6 store box (160 x 64, no swizzle) is valid");
    /* The family's 3-D maps: a batch of matrices. */
    u = t;
    u.rank = 3;
    u.batch = 512;
    u.stride2 = 8192ull * 8192 * 2;
    CHECK(hg__tmap_check(&u, base) == NULL, "a batch of 512 whole matrices is valid");
    u.stride2 += 2;
    CHECK(hg__tmap_check(&u, base) != NULL, "a matrix stride off 16 bytes is not");
    u.stride2 = 1ull << 40;
    CHECK(hg__tmap_check(&u, base) != NULL, "a matrix stride of 2^40 bytes is not");
    u.stride2 = 16;
    u.batch = 0;
    CHECK(hg__tmap_check(&u, base) != NULL, "an empty batch is not");
    u = t;
    u.rank = 4;
    CHECK(hg__tmap_check(&u, base) != NULL, "rank 4 is not");
    /* L2 promotion: by the row pitch unless the caller chooses. */
    CHECK(hg__tmap_l2_promo(&t) == 256, "rows on 128-byte lines promote 256 bytes, got %d", hg__tmap_l2_promo(&t));
    u = t;
    u.stride1 = 3000 * 2;
    CHECK(hg__tmap_l2_promo(&u) == 128, "rows off 128-byte lines promote 128, got %d", hg__tmap_l2_promo(&u));
    u.l2_promo_bytes = 256;
    CHECK(hg__tmap_check(&u, base) == NULL && hg__tmap_l2_promo(&u) == 256, "a chosen 256 overrides the pitch rule");
    u = t;
    u.l2_promo_bytes = 128;
    CHECK(hg__tmap_check(&u, base) == NULL && hg__tmap_l2_promo(&u) == 128, "a chosen 128 overrides the pitch rule");
    u.l2_promo_bytes = 64;
    CHECK(hg__tmap_check(&u, base) != NULL, "a promotion of 64 bytes is not");
}

void test_tma_conditions(void)
{
    hg__device d = fake_device(9, 0);
    hg__problem p = hg__problem_make(HG_OP_N, HG_OP_T, 100, 100, 100, 1.0f, (const void *)(uintptr_t)0x1000, 104,
                                     (const void *)(uintptr_t)0x100000, 104, 0.0f, (void *)(uintptr_t)0x200000, 104,
                                     HG_F16);
    CHECK(hg__tma_tn_can_serve(&p, &d) == NULL, "TN aligned");
    hg__problem q = p;
    q.ldb = 100;
    CHECK(hg__tma_tn_can_serve(&q, &d) != NULL, "ldb 100");
    q = p;
    q.C = (void *)(uintptr_t)0x200008;
    CHECK(hg__tma_tn_can_serve(&q, &d) != NULL, "C 8-byte aligned");
    CHECK(hg__tma_ab_can_serve(&q, &d) == NULL && !hg__tma_c_ok(&q), "... which A and B do not mind");
    q.C = p.C;
    q.ldc = 101;
    CHECK(hg__tma_tn_can_serve(&q, &d) != NULL && hg__tma_ab_can_serve(&q, &d) == NULL && !hg__tma_c_ok(&q),
          "ldc 101: C alone breaks TMA's rule");
    CHECK(hg__tma_c_ok(&p), "aligned C is TMA's");
    q = p;
    q.opB = HG_OP_N;
    CHECK(hg__tma_tn_can_serve(&q, &d) != NULL, "TT");
    hg__device old = fake_device(8, 9);
    CHECK(hg__tma_tn_can_serve(&p, &old) != NULL, "sm_89");
}

/* The overlap rule against brute force: every element of each region
 * marked, on random small regions (ld >= cols) at random offsets. */
void test_overlap_exact(void)
{
    uint64_t s = 0x243F6A8885A308D3ull;
#define NEXT() (s ^= s << 13, s ^= s >> 7, s ^= s << 17, s)
    static unsigned char mark[4096];
    int meets = 0, apart = 0;
    for (int t = 0; t < 20000; t++) {
        hg__region r[2];
        for (int i = 0; i < 2; i++) {
            r[i].rows = 1 + (int64_t)(NEXT() % 12);
            r[i].cols = 1 + (int64_t)(NEXT() % 20);
            r[i].ld = r[i].cols + (int64_t)(NEXT() % 25);
            r[i].base = (int64_t)(NEXT() % 300);
        }
        memset(mark, 0, sizeof mark);
        int brute = 0;
        for (int i = 0; i < 2; i++)
            for (int64_t a = 0; a < r[i].rows; a++)
                for (int64_t b = 0; b < r[i].cols; b++) {
                    int64_t e = r[i].base + a * r[i].ld + b;
                    if (i == 0) mark[e] = 1;
                    else if (mark[e]) brute = 1;
                }
        int got = hg__regions_meet(r[0], r[1]);
        if (got != brute) {
            CHECK(got == brute,
                  "regions %lldx%lld ld %lld at %lld and %lldx%lld ld %lld at %lld: brute %d, got %d",
                  (long long)r[0].rows, (long long)r[0].cols, (long long)r[0].ld, (long long)r[0].base,
                  (long long)r[1].rows, (long long)r[1].cols, (long long)r[1].ld, (long long)r[1].base, brute, got);
            break;
        }
        CHECK(hg__regions_meet(r[1], r[0]) == got, "symmetric");
        brute ? meets++ : apart++;
    }
#undef NEXT
    CHECK(meets > 1000 && apart > 1000, "both outcomes exercised (%d meet, %d apart)", meets, apart);
    /* Far apart and huge: answered without walking rows. */
    hg__region big = {0, (int64_t)1 << 40, 1000, 1001};
    hg__region thin = {1000, (int64_t)1 << 40, 1, 1001};
    CHECK(!hg__regions_meet(big, thin), "a column in the gaps of 2^40 rows");
    thin.base = 999;
    CHECK(hg__regions_meet(big, thin), "a column through the last element of each row");
}
