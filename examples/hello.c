/* hello: the smallest program against an installed hopgemm. It prints the
 * library's version and, where a Hopper GPU is, multiplies two small
 * matrices of ones and checks the result; without a GPU it says why and
 * exits 0 (the library loads and answers without a driver). It allocates
 * with the CUDA runtime, as a user's program does; libhopgemm.so carries a
 * runtime of its own, and both work in the device's primary context.
 *   cc hello.c $(pkg-config --cflags --libs hopgemm) -I$CUDA_HOME/include -L$CUDA_HOME/lib64 -lcudart
 *   or examples/CMakeLists.txt */
#include <stdio.h>

#include <cuda_runtime_api.h>

#include "hopgemm.h"

int main(void)
{
    int v = hg_get_version();
    printf("hopgemm %d.%d.%d (header %d.%d.%d)\n", v / 10000, v / 100 % 100, v % 100, HG_VERSION_MAJOR,
           HG_VERSION_MINOR, HG_VERSION_PATCH);
    if (v / 10000 != HG_VERSION_MAJOR) return 1;
    hg_handle h;
    hg_status s = hg_create(&h);
    if (s == HG_STATUS_NO_DEVICE) {
        printf("no GPU: %s\n", hg_last_error(NULL));
        return 0;
    }
    if (s != HG_STATUS_SUCCESS) {
        printf("hg_create: %s: %s\n", hg_status_string(s), hg_last_error(NULL));
        return 1;
    }
    enum { M = 64, N = 64, K = 64 };
    static unsigned short a[M * K], b[N * K], c[M * N];
    for (int i = 0; i < M * K; i++) a[i] = 0x3C00; /* 1.0 in fp16 */
    for (int i = 0; i < N * K; i++) b[i] = 0x3C00;
    void *da, *db, *dc;
    if (cudaMalloc(&da, sizeof a) != cudaSuccess || cudaMalloc(&db, sizeof b) != cudaSuccess ||
        cudaMalloc(&dc, sizeof c) != cudaSuccess)
        return 1;
    cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice);
    cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice);
    s = hg_gemm(h, HG_OP_N, HG_OP_T, M, N, K, 1.0f, da, K, db, K, 0.0f, dc, N, HG_F16);
    if (s != HG_STATUS_SUCCESS) {
        printf("hg_gemm: %s\n", hg_last_error(h));
        return 1;
    }
    cudaMemcpy(c, dc, sizeof c, cudaMemcpyDeviceToHost); /* waits for the product */
    int bad = 0;
    for (int i = 0; i < M * N; i++) bad += c[i] != 0x5400; /* 64.0 */
    printf("%d x %d x %d of ones: %s\n", M, N, K, bad ? "WRONG" : "ok");
    cudaFree(da), cudaFree(db), cudaFree(dc);
    hg_destroy(h);
    return bad != 0;
}
