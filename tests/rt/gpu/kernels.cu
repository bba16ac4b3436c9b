/*
 * kernels.cu — what the GPU variants of tests/rt/gpu/test_gpu_fake.c do on a real
 * device (built with -DTAMM_TEST_REAL_GPU): the same arithmetic as the host
 * loops, as kernels launched on the task's stream, and a cuBLAS DGEMM on the
 * handle the runtime bound to it.  Every launch is checked.  The same file
 * compiled by a host C++ compiler (include/tamm_cuda_emu.h) runs the kernels on
 * the host in stream order, with the stand-in cuBLAS (test_gpu_device_emu).
 */
#ifdef __CUDACC__
#include <cublas_v2.h>
#include <cuda_runtime.h>
#define TG_LAUNCH(kernel, grid, block, stream, ...) kernel<<<(grid), (block), 0, (stream)>>>(__VA_ARGS__)
#else /* test_gpu_device_emu: compiled for the host, the launches in stream order on the stand-in CUDA runtime */
#include <tamm_cuda_emu.h>
#define TG_LAUNCH TAMM_CUDA_LAUNCH
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static void check_launch(const char *what)
{
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
        fprintf(stderr, "kernels.cu: launching %s failed: %s\n", what, cudaGetErrorString(e));
        exit(2);
    }
}

static __global__ void apply_k(uint64_t *dst, const uint64_t *src, int kind, uint64_t k, size_t n)
{
    for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < n; e += (size_t)blockDim.x * gridDim.x) {
        if (kind == 0) dst[e] = src[e] + k + e;
        else if (kind == 1) dst[e] = dst[e] * 3 + src[e] + k;
        else dst[e] += src[e] * 2 + k;
    }
}

static __global__ void fill_k(uint64_t *x, uint64_t v, int plus_index, size_t n)
{
    for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < n; e += (size_t)blockDim.x * gridDim.x)
        x[e] = v + (plus_index ? (uint64_t)e : 0);
}

static __global__ void axpb_k(uint64_t *x, uint64_t a, uint64_t b, size_t n)
{
    for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < n; e += (size_t)blockDim.x * gridDim.x)
        x[e] = a * x[e] + b;
}

static unsigned blocks(size_t n) { return (unsigned)((n + 127) / 128 < 1024 ? (n + 127) / 128 : 1024); }

extern "C" void tg_apply_dev(uint64_t *dst, const uint64_t *src, int kind, uint64_t k, size_t n, void *stream)
{
    TG_LAUNCH(apply_k, blocks(n), 128, (cudaStream_t)stream, dst, src, kind, k, n);
    check_launch("apply_k");
}

extern "C" void tg_fill_dev(uint64_t *x, uint64_t v, int plus_index, size_t n, void *stream)
{
    TG_LAUNCH(fill_k, blocks(n), 128, (cudaStream_t)stream, x, v, plus_index, n);
    check_launch("fill_k");
}

extern "C" void tg_axpb_dev(uint64_t *x, uint64_t a, uint64_t b, size_t n, void *stream)
{
    TG_LAUNCH(axpb_k, blocks(n), 128, (cudaStream_t)stream, x, a, b, n);
    check_launch("axpb_k");
}

/* c += a b for n x n row-major tiles: column-major cuBLAS computes c^T += b^T a^T */
extern "C" int tg_dgemm_dev(void *cublas, int n, const double *a, const double *b, double *c)
{
    const double one = 1.0;
    cublasStatus_t st = cublasDgemm((cublasHandle_t)cublas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b, n, a, n, &one, c, n);
    if (st != CUBLAS_STATUS_SUCCESS) fprintf(stderr, "kernels.cu: cublasDgemm: status %d\n", (int)st);
    return st == CUBLAS_STATUS_SUCCESS ? 0 : -1;
}
