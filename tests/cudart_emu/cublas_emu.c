/*
 * cublas_emu.c — a stand-in cuBLAS for tests (libcublas.so.<major>): handles
 * bound to a stream of the stand-in CUDA runtime (cudart_emu.c) and a
 * reference DGEMM enqueued on that stream as a kernel (tamm_emu_cudart_library:
 * its matrices are what it may touch; not timed by the watchdog), so that CUDA
 * variants calling cuBLAS on tamm_cublas_handle() run in stream order on the
 * emulated device.
 */
#include "cudart_emu.h"
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <stdlib.h>

#define API __attribute__((visibility("default")))

struct cublasContext { cudaStream_t s; };

API cublasStatus_t cublasCreate(cublasHandle_t *h)
{
    *h = calloc(1, sizeof **h);
    return *h ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_ALLOC_FAILED;
}
API cublasStatus_t cublasDestroy(cublasHandle_t h) { free(h); return CUBLAS_STATUS_SUCCESS; }
API cublasStatus_t cublasSetStream(cublasHandle_t h, cudaStream_t s)
{
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
    h->s = s;
    return CUBLAS_STATUS_SUCCESS;
}

typedef struct { int ta, tb, m, n, k, lda, ldb, ldc; double alpha, beta; const double *a, *b; double *c; } gemm_job;

static void gemm_run(void *p)
{
    const gemm_job *j = p;
    for (int col = 0; col < j->n; col++)
        for (int row = 0; row < j->m; row++) {
            double s = 0;
            for (int l = 0; l < j->k; l++) {
                double x = j->ta ? j->a[l + (size_t)row * j->lda] : j->a[row + (size_t)l * j->lda];
                double y = j->tb ? j->b[col + (size_t)l * j->ldb] : j->b[l + (size_t)col * j->ldb];
                s += x * y;
            }
            double *c = &j->c[row + (size_t)col * j->ldc];
            *c = j->alpha * s + (j->beta == 0 ? 0 : j->beta * *c);
        }
}

/* column-major, host pointer mode (alpha and beta are read at the call, as cuBLAS does) */
API cublasStatus_t cublasDgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                               const double *alpha, const double *A, int lda, const double *B, int ldb,
                               const double *beta, double *C, int ldc)
{
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (m < 0 || n < 0 || k < 0) return CUBLAS_STATUS_INVALID_VALUE;
    gemm_job j = { ta != CUBLAS_OP_N, tb != CUBLAS_OP_N, m, n, k, lda, ldb, ldc, *alpha, *beta, A, B, C };
    return tamm_emu_cudart_library(h->s, gemm_run, &j, sizeof j, "cublasDgemm") ? CUBLAS_STATUS_EXECUTION_FAILED
                                                                                : CUBLAS_STATUS_SUCCESS;
}
