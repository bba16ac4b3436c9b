/*
 * emu_faults_kernels.cu — the kernels of tests/rt/gpu/emu_faults.c, which launch
 * them wrongly on purpose: with a host pointer, another GPU's buffer, an index
 * past the buffer, or never ending.  Compiled for the host only
 * (include/tamm_cuda_emu.h, the emulated device): each launch returns NULL or
 * the launch's error, as the variants tammcc generates check it.
 */
#ifdef __CUDACC__
#include <cuda_runtime.h>
#define TAMM_CUDA_LAUNCH(kernel, grid, block, stream, ...) kernel<<<(grid), (block), 0, (stream)>>>(__VA_ARGS__)
#else
#include <tamm_cuda_emu.h>
#include <unistd.h>
#endif
#include <stdint.h>

static __global__ void copy_k(uint64_t *dst, const uint64_t *src, size_t n)
{
    for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < n; e += (size_t)blockDim.x * gridDim.x)
        dst[e] = src[e] + 1;
}

static __global__ void poke_k(uint64_t *x, size_t at) { x[at] = 1; }

static volatile int ef_release; /* never set: hang_k never ends */
static __global__ void hang_k(uint64_t *x)
{
    while (!ef_release) {
#ifdef TAMM_CUDA_EMU
        usleep(1000);
#endif
    }
    x[0] = 1;
}

static const char *launched(void)
{
    cudaError_t e = cudaGetLastError();
    return e == cudaSuccess ? NULL : cudaGetErrorString(e);
}

extern "C" const char *ef_copy(uint64_t *dst, const uint64_t *src, size_t n, void *stream)
{
    TAMM_CUDA_LAUNCH(copy_k, dim3(1), dim3(32), (cudaStream_t)stream, dst, src, n);
    return launched();
}

extern "C" const char *ef_poke(uint64_t *x, size_t at, void *stream)
{
    TAMM_CUDA_LAUNCH(poke_k, dim3(1), dim3(1), (cudaStream_t)stream, x, at);
    return launched();
}

extern "C" const char *ef_hang(uint64_t *x, void *stream)
{
    TAMM_CUDA_LAUNCH(hang_k, dim3(1), dim3(1), (cudaStream_t)stream, x);
    return launched();
}
