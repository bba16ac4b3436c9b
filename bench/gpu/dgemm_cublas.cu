/*
 * dgemm_cublas.cu — the device side of dgemm_tiles.c: the tile variant (one
 * cublasDgemm on the task's stream, through the handle the runtime bound to
 * it) and the reference (one cublasDgemm on the whole matrix, with its
 * transfers).  Every CUDA and cuBLAS call is checked.
 */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <time.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "dgemm_cublas.cu:%d: %s: %s\n", __LINE__, #x, cudaGetErrorString(e_)); return -1; } } while (0)
#define CB(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { \
    fprintf(stderr, "dgemm_cublas.cu:%d: %s: status %d\n", __LINE__, #x, (int)s_); return -1; } } while (0)

/* c += a b, row-major m x n tiles with inner dimension k (cuBLAS is column-major: c^T += b^T a^T) */
extern "C" int dg_tile(void *handle, int m, int n, int k, const double *a, const double *b, double *c)
{
    const double one = 1.0;
    CB(cublasDgemm((cublasHandle_t)handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, n, a, k, &one, c, n));
    return 0;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

extern "C" void *dg_host_alloc(size_t bytes)
{
    void *p = NULL;
    return cudaMallocHost(&p, bytes) == cudaSuccess ? p : NULL;
}
extern "C" void dg_host_free(void *p) { cudaFreeHost(p); }

/* The reference: C = A B for n x n row-major matrices in pinned host memory,
 * with one cublasDgemm; *total includes the copies, *compute only the DGEMM. */
extern "C" int dg_whole(int n, const double *a, const double *b, double *c, double *total, double *compute)
{
    size_t bytes = (size_t)n * n * sizeof(double);
    double *da, *db, *dc;
    cublasHandle_t h;
    cudaEvent_t e0, e1;
    CB(cublasCreate(&h));
    CK(cudaMalloc(&da, bytes)); CK(cudaMalloc(&db, bytes)); CK(cudaMalloc(&dc, bytes));
    CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    CK(cudaDeviceSynchronize());
    double t0 = now();
    CK(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice));
    CK(cudaMemset(dc, 0, bytes));
    const double one = 1.0, zero = 0.0;
    CK(cudaEventRecord(e0, 0));
    CB(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, db, n, da, n, &zero, dc, n));
    CK(cudaEventRecord(e1, 0));
    CK(cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost));
    *total = now() - t0;
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    *compute = ms / 1e3;
    CK(cudaEventDestroy(e0)); CK(cudaEventDestroy(e1));
    CK(cudaFree(da)); CK(cudaFree(db)); CK(cudaFree(dc));
    CB(cublasDestroy(h));
    return 0;
}
