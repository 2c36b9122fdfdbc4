/*
 * probe_tma_phase.cu: what TMA does with a C whose rows break its 16-byte
 * rule (an odd ldc), viewed as 8 tensor maps, one per row phase p = row % 8:
 * rows p, p + 8, ... are 8 * ldc elements apart (a multiple of 16 bytes), and
 * the map's base is row p's start rounded down to 16 bytes, the remainder
 * (delta_p elements) added to every inner coordinate. Asks the hardware:
 *   1. does a tile store whose inner coordinate is not a multiple of 8
 *      elements write exactly the box's elements (no neighbour bytes in the
 *      partial 16-byte units at either end)?
 *   2. where does the store clip at the inner dimension's end (delta_p + n):
 *      per element, or per 16-byte unit (writing past n)?
 *   3. is the 128-byte swizzle of a box that starts 128 * odd bytes into a
 *      1024-byte atom taken from the shared address (row phase = address
 *      bits 7-9) or from the box's own row index?
 *   4. does a tile load at such coordinates bring the same elements back?
 * Build: nvcc -gencode arch=compute_90a,code=sm_90a -O2 -o probe tools/probe_tma_phase.cu
 * Prints one line per case and exits non-zero on a mismatch of hypothesis 1
 * (which the family's phase-map epilogue would rely on).
 */
#include <cuda.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PHASES 8
#define BOX_COLS 64 /* 128 bytes of 16-bit elements: one swizzle span */
#define BOX_ROWS 2
#define SROWS (PHASES * BOX_ROWS)
#define ROW_BYTES 128

struct maps { CUtensorMap m[PHASES]; };

static __device__ uint32_t smem_addr(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }
/* The layout under test: box p at p * spacing bytes, its rows 128 bytes
 * apart; with the 128-byte swizzle, the 16-byte unit permuted by the
 * address's bits 7-9 (the address-based hypothesis). */
struct probe_mode { int swizzle, spacing; };
static __device__ uint32_t srow_addr(probe_mode md, int s)
{
    return (uint32_t)((s / BOX_ROWS) * md.spacing + (s % BOX_ROWS) * ROW_BYTES);
}
static __device__ uint32_t swz(probe_mode md, int s, int c)
{
    const uint32_t a = srow_addr(md, s);
    if (!md.swizzle) return a + (uint32_t)(c * 2);
    return a + ((((uint32_t)c * 2) / 16) ^ ((a >> 7) & 7)) * 16 + (c * 2) % 16;
}
#define SMEM_BYTES (PHASES * 1024)

__global__ void store_kernel(const __grid_constant__ maps mp, const int *delta, int col0, int q0, probe_mode md)
{
    __shared__ __align__(1024) uint8_t sm[SMEM_BYTES];
    for (int i = threadIdx.x; i < SROWS * BOX_COLS; i += blockDim.x) {
        const int s = i / BOX_COLS, c = i % BOX_COLS;
        *(uint16_t *)(sm + swz(md, s, c)) = (uint16_t)((s << 8) | c);
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int p = 0; p < PHASES; p++)
            asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%2, %3}], [%1];" ::"l"(
                             (uint64_t)&mp.m[p]),
                         "r"(smem_addr(sm + p * md.spacing)), "r"(delta[p] + col0), "r"(q0)
                         : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
}

__global__ void load_kernel(const __grid_constant__ maps mp, const int *delta, int col0, int q0, uint16_t *dump,
                            probe_mode md)
{
    __shared__ __align__(1024) uint8_t sm[SMEM_BYTES];
    __shared__ __align__(8) uint64_t bar;
    for (int i = threadIdx.x; i < SMEM_BYTES / 2; i += blockDim.x) ((uint16_t *)sm)[i] = 0xEEEE;
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&bar)));
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(&bar)),
                     "r"(PHASES * BOX_ROWS * ROW_BYTES)
                     : "memory");
        for (int p = 0; p < PHASES; p++)
            asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                         " [%0], [%1, {%3, %4}], [%2];" ::"r"(smem_addr(sm + p * md.spacing)),
                         "l"((uint64_t)&mp.m[p]), "r"(smem_addr(&bar)), "r"(delta[p] + col0), "r"(q0)
                         : "memory");
        uint32_t done = 0;
        for (long tries = 0; !done && tries < (1L << 24); tries++)
            asm volatile("{\n.reg .pred q;\nmbarrier.try_wait.parity.shared::cta.b64 q, [%1], 0;\nselp.u32 %0, 1, 0, q;\n}"
                         : "=r"(done)
                         : "r"(smem_addr(&bar))
                         : "memory");
        if (!done) asm volatile("trap;");
    }
    __syncthreads();
    for (int i = threadIdx.x; i < SROWS * BOX_COLS; i += blockDim.x) {
        const int s = i / BOX_COLS, c = i % BOX_COLS;
        dump[i] = *(const uint16_t *)(sm + swz(md, s, c)); /* logical (s, c) under the address swizzle */
    }
}

#define CK(x)                                                                                                      \
    do {                                                                                                           \
        cudaError_t e_ = (x);                                                                                      \
        if (e_ != cudaSuccess) {                                                                                   \
            fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                                               \
            exit(2);                                                                                               \
        }                                                                                                          \
    } while (0)

static PFN_cuTensorMapEncodeTiled_v12000 encode;

/* One case: C of R rows, ldc, n columns, base offset off elements from a
 * 256-byte boundary; the chunk at (q0: row block of 8, col0). */
static probe_mode mode;
static int run_case(int R, int ldc, int n, int off, int col0, int q0)
{
    const size_t elems = (size_t)R * ldc + 64;
    uint16_t *g, *dump;
    int *ddelta;
    CK(cudaMalloc(&g, (elems + 16) * 2));
    CK(cudaMalloc(&dump, SROWS * BOX_COLS * 2));
    CK(cudaMalloc(&ddelta, PHASES * sizeof(int)));
    uint16_t *C = g + off;
    CK(cudaMemset(g, 0xFF, (elems + 16) * 2));
    maps mp;
    int delta[PHASES];
    for (int p = 0; p < PHASES; p++) {
        const uintptr_t row = (uintptr_t)(C + (size_t)p * ldc);
        const uintptr_t base = row & ~(uintptr_t)15;
        delta[p] = (int)((row - base) / 2);
        const int rows_p = p < R ? (R - p + PHASES - 1) / PHASES : 0;
        cuuint64_t dims[2] = {(cuuint64_t)(delta[p] + n), (cuuint64_t)(rows_p > 0 ? rows_p : 1)};
        cuuint64_t strides[1] = {(cuuint64_t)PHASES * ldc * 2};
        cuuint32_t box[2] = {BOX_COLS, BOX_ROWS}, estr[2] = {1, 1};
        CUresult r = encode(&mp.m[p], CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, (void *)base, dims, strides, box, estr,
                            CU_TENSOR_MAP_INTERLEAVE_NONE,
                            mode.swizzle ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_NONE,
                            CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
        if (r != CUDA_SUCCESS) {
            printf("encode failed %d (p %d)\n", (int)r, p);
            return 1;
        }
    }
    CK(cudaMemcpy(ddelta, delta, sizeof delta, cudaMemcpyHostToDevice));
    store_kernel<<<1, 128>>>(mp, ddelta, col0, q0, mode);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    uint16_t *h = (uint16_t *)malloc((elems + 16) * 2);
    CK(cudaMemcpy(h, g, (elems + 16) * 2, cudaMemcpyDeviceToHost));
    long ok_addr = 0, ok_box = 0, wrong = 0, stray = 0, expected = 0;
    for (size_t i = 0; i < elems + 16; i++) {
        const long e = (long)i - off;
        const long r = e >= 0 ? e / ldc : -1, c = e >= 0 ? e % ldc : -1;
        int in_box = 0, s = 0, cc = 0;
        if (r >= 0 && r < R && c >= col0 && c < col0 + BOX_COLS && c < n) {
            const long p = r % PHASES, q = r / PHASES;
            if (q == q0 || q == q0 + 1) in_box = 1, s = (int)(p * BOX_ROWS + (q - q0)), cc = (int)(c - col0);
        }
        if (in_box) {
            expected++;
            const uint16_t want_addr = (uint16_t)((s << 8) | cc);
            /* The box-row hypothesis: box row j swizzled by j, not by s. */
            const int j = s % BOX_ROWS;
            const int a7 = (s / BOX_ROWS) * mode.spacing / ROW_BYTES + j; /* the row's address bits 7-9 */
            const int c_box = mode.swizzle ? (((cc / 8) ^ j ^ (a7 % 8)) * 8) + cc % 8 : cc;
            const uint16_t want_box = (uint16_t)((s << 8) | c_box);
            if (h[i] == want_addr) ok_addr++;
            else if (h[i] == want_box) ok_box++;
            else wrong++;
        } else if (h[i] != 0xFFFF) {
            stray++;
            if (stray <= 4)
                printf("    stray write at element %ld (row %ld col %ld): 0x%04x\n", e, r, c, h[i]);
        }
    }
    /* The load back (question 4), only where the store matched. */
    load_kernel<<<1, 128>>>(mp, ddelta, col0, q0, dump, mode);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    uint16_t hd[SROWS * BOX_COLS];
    CK(cudaMemcpy(hd, dump, sizeof hd, cudaMemcpyDeviceToHost));
    long load_ok = 0, load_bad = 0;
    for (int s = 0; s < SROWS; s++)
        for (int cc = 0; cc < BOX_COLS; cc++) {
            const int p = s / BOX_ROWS, q = q0 + s % BOX_ROWS;
            const long r = (long)q * PHASES + p, c = col0 + cc;
            const int inside = r < R && c < n;
            const uint16_t want = inside ? (uint16_t)((s << 8) | cc) : 0; /* OOB reads as zero */
            if (hd[s * BOX_COLS + cc] == want) load_ok++;
            else load_bad++;
        }
    printf("R %d ldc %d n %d off %d col0 %d q0 %d: deltas", R, ldc, n, off, col0, q0);
    for (int p = 0; p < PHASES; p++) printf(" %d", delta[p]);
    printf(" | store: %ld expected, %ld address-swizzle, %ld box-swizzle, %ld wrong, %ld stray | load: %ld ok, %ld bad\n",
           expected, ok_addr, ok_box, wrong, stray, load_ok, load_bad);
    free(h);
    CK(cudaFree(g));
    CK(cudaFree(dump));
    CK(cudaFree(ddelta));
    return (wrong || ok_box || stray || load_bad) ? 1 : 0;
}

/* argv: swizzle (0 or 128), box spacing in bytes (256 or 1024), and
 * "aligned" to run only the cases whose inner coordinates are multiples of
 * 8 elements (ldc a multiple of 8, C's base on 16 bytes): one process per
 * mode, since a TMA fault ends the context. */
int main(int argc, char **argv)
{
    mode.swizzle = argc > 1 ? atoi(argv[1]) : 128;
    mode.spacing = argc > 2 ? atoi(argv[2]) : 256;
    const int aligned_only = argc > 3 && strcmp(argv[3], "aligned") == 0;
    printf("mode: swizzle %d, box spacing %d bytes%s\n", mode.swizzle, mode.spacing, aligned_only ? ", aligned cases" : "");
    void *p = NULL;
    enum cudaDriverEntryPointQueryResult q;
    CK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q));
    memcpy(&encode, &p, sizeof p);
    int bad = 0;
    if (aligned_only) {
        bad |= run_case(37, 1008, 1001, 0, 960, 2);
        bad |= run_case(37, 1008, 1008, 0, 0, 4);
        printf("%s\n", bad ? "MISMATCH" : "aligned cases as expected");
        return bad;
    }
    /* ldc == n (odd): a write past n lands on the next row's first elements. */
    bad |= run_case(37, 1001, 1001, 0, 0, 0);
    bad |= run_case(37, 1001, 1001, 0, 64, 1);
    bad |= run_case(37, 1001, 1001, 0, 960, 2);  /* straddles n: 41 of 64 columns */
    bad |= run_case(37, 1001, 1001, 0, 960, 4);  /* and rows past m */
    bad |= run_case(37, 1001, 1001, 3, 128, 0);  /* C's base off 16 bytes */
    bad |= run_case(37, 1001, 1001, 3, 960, 3);
    bad |= run_case(40, 1003, 1000, 1, 936, 0);  /* padding between n and ldc */
    bad |= run_case(24, 4098, 4096, 0, 4032, 1); /* ldc = 2 mod 8 */
    bad |= run_case(24, 4095, 4095, 5, 4032, 0);
    printf("%s\n", bad ? "MISMATCH" : "all cases as the phase maps need");
    return bad;
}
