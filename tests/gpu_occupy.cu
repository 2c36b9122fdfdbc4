/*
 * gpu_occupy.cu: gpu/stagger's helper (tests/gpu_stagger_tests.c), a kernel
 * that holds SMs for a while. Each block takes all the shared memory a block
 * may opt into, so no CTA of the library's persistent kernels can start on
 * its SM until it ends.
 */
#include <cuda_runtime.h>

__global__ void hg_test_occupy_kernel(unsigned long long ns)
{
    extern __shared__ unsigned char held[];
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (t - t0 < ns);
    if (t == t0) held[threadIdx.x] = 0; /* (never true: keeps the allocation) */
}

extern "C" cudaError_t occupy_sms(cudaStream_t stream, int blocks, unsigned long long ns)
{
    const int threads = 32;
    int dev = 0, smem = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    if (e == cudaSuccess)
        e = cudaFuncSetAttribute(hg_test_occupy_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    if (e != cudaSuccess) return e;
    hg_test_occupy_kernel<<<blocks, threads, (size_t)smem, stream>>>(ns);
    return cudaGetLastError();
}
