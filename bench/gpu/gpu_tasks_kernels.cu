/*
 * gpu_tasks_kernels.cu — the device side of gpu_tasks.c: a one-thread kernel
 * that adds 1 to an element (the "empty" task: its cost is the launch), its
 * launch on the task's stream, and the floor it is compared with: the same
 * launches issued back to back on one stream by plain CUDA, with no runtime.
 * Compiled by nvcc for a GPU, or as host C++ over include/tamm_cuda_emu.h for
 * the emulated device (no floor there: gt_bare returns -1).
 */
#ifdef __CUDACC__
#include <cuda_runtime.h>
#else
#include <tamm_cuda_emu.h>
#endif
#include <stdio.h>
#include <tamm_cc.h>
#include <time.h>

static __global__ void gt_inc(long *x) { x[0] += 1; }

/* one launch on stream; 0, or -1 when the launch failed */
extern "C" int gt_launch_inc(void *stream, long *x)
{
    (void)cudaGetLastError();
    TAMM_CUDA_LAUNCH(gt_inc, dim3(1), dim3(1), (cudaStream_t)stream, x);
    return cudaGetLastError() == cudaSuccess ? 0 : -1;
}

#ifdef __CUDACC__
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
#endif

/* n dependent launches of gt_inc on one stream, then one synchronisation: seconds per
 * launch (the best of 3), or -1 without a GPU; *ok is 1 when the element ends at 3n */
extern "C" double gt_bare(long n, int *ok)
{
#ifdef __CUDACC__
    long *d = NULL, h = 0;
    cudaStream_t s;
    double best = 1e30;
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) return -1;
    if (cudaMalloc((void **)&d, sizeof *d) != cudaSuccess) return -1;
    if (cudaMemsetAsync(d, 0, sizeof *d, s) != cudaSuccess) return -1;
    gt_inc<<<1, 1, 0, s>>>(d); /* warm-up: module load */
    if (cudaStreamSynchronize(s) != cudaSuccess || cudaMemsetAsync(d, 0, sizeof *d, s) != cudaSuccess) return -1;
    for (int r = 0; r < 3; r++) {
        double t0 = now();
        for (long i = 0; i < n; i++) gt_inc<<<1, 1, 0, s>>>(d);
        if (cudaStreamSynchronize(s) != cudaSuccess) return -1;
        double t = (now() - t0) / (double)n;
        if (t < best) best = t;
    }
    *ok = cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost) == cudaSuccess && h == 3 * n;
    cudaFree(d);
    cudaStreamDestroy(s);
    return best;
#else
    (void)n;
    *ok = 1;
    return -1;
#endif
}
