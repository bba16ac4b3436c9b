/*
 * cublas_emu.c — a stand-in cuBLAS for tests (libcublas.so.<major>): handles
 * bound to a stream of the stand-in CUDA runtime (cudart_emu.c), and the
 * routines CUDA variants call (tamm_blas_cuda.h: gemm, symm, syrk, trsm, trmm,
 * gemv, axpy, scal, dot, geam in single and double precision), each checked
 * at the call as cuBLAS checks its arguments (CUBLAS_STATUS_INVALID_VALUE) and
 * then enqueued on the handle's stream as device work (tamm_emu_cudart_library:
 * the device pointers of its job are what it may touch; not timed by the
 * watchdog), so that it runs in stream order on the emulated device's memory.  They compute with
 * OpenBLAS's column-major CBLAS, the library the CPU variants call: a row-major
 * CBLAS call computes its column-major transpose in OpenBLAS too, so a task
 * gives the same bits on the emulated GPU as on a CPU when its row-major call
 * was mapped right.  Scalars are read at the call in host pointer mode and when
 * the routine runs in device pointer mode; dot's result is written then (device
 * mode), or into device memory copied to the host before the call returns (host
 * mode, as cuBLAS synchronises: device work never writes host memory).
 */
#include "cudart_emu.h"
#include <cblas.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>

#define API __attribute__((visibility("default")))

struct cublasContext { cudaStream_t s; cublasPointerMode_t mode; };

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
API cublasStatus_t cublasSetPointerMode(cublasHandle_t h, cublasPointerMode_t m)
{
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (m != CUBLAS_POINTER_MODE_HOST && m != CUBLAS_POINTER_MODE_DEVICE) return CUBLAS_STATUS_INVALID_VALUE;
    h->mode = m;
    return CUBLAS_STATUS_SUCCESS;
}

/* ---- one job on the stream: the routine and its arguments */
enum { GEMM, SYMM, SYRK, TRSM, TRMM, GEMV, AXPY, SCAL, DOT, GEAM };
typedef struct job {
    int op, dbl;                 /* routine; double (1) or float (0) */
    int o1, o2, o3, o4;          /* operations, fill mode, side, diagonal, as CBLAS values */
    int m, n, k, lda, ldb, ldc;
    double alpha, beta;          /* host pointer mode: the values; device: read when it runs */
    const void *palpha, *pbeta;  /* device pointer mode */
    const void *a, *b;
    void *c;
} job;

static double val(const job *j, const void *p, double v)
{
    if (!p) return v;
    return j->dbl ? *(const double *)p : *(const float *)p;
}

#define MAT(T, p, ld, i, j) (((T *)(p))[(size_t)(i) + (size_t)(j) * (size_t)(ld)])

static void run(void *p)
{
    const job *j = p;
    double al = val(j, j->palpha, j->alpha), be = val(j, j->pbeta, j->beta);
    const enum CBLAS_ORDER C = CblasColMajor;
    switch (j->op) {
    case GEMM:
        if (j->dbl) cblas_dgemm(C, j->o1, j->o2, j->m, j->n, j->k, al, j->a, j->lda, j->b, j->ldb, be, j->c, j->ldc);
        else cblas_sgemm(C, j->o1, j->o2, j->m, j->n, j->k, (float)al, j->a, j->lda, j->b, j->ldb, (float)be, j->c, j->ldc);
        break;
    case SYMM:
        if (j->dbl) cblas_dsymm(C, j->o3, j->o2, j->m, j->n, al, j->a, j->lda, j->b, j->ldb, be, j->c, j->ldc);
        else cblas_ssymm(C, j->o3, j->o2, j->m, j->n, (float)al, j->a, j->lda, j->b, j->ldb, (float)be, j->c, j->ldc);
        break;
    case SYRK:
        if (j->dbl) cblas_dsyrk(C, j->o2, j->o1, j->n, j->k, al, j->a, j->lda, be, j->c, j->ldc);
        else cblas_ssyrk(C, j->o2, j->o1, j->n, j->k, (float)al, j->a, j->lda, (float)be, j->c, j->ldc);
        break;
    case TRSM:
        if (j->dbl) cblas_dtrsm(C, j->o3, j->o2, j->o1, j->o4, j->m, j->n, al, j->a, j->lda, j->c, j->ldc);
        else cblas_strsm(C, j->o3, j->o2, j->o1, j->o4, j->m, j->n, (float)al, j->a, j->lda, j->c, j->ldc);
        break;
    case TRMM: /* cuBLAS's C := alpha op(A) B: B copied into C (unless it is C), then BLAS's in-place trmm */
        if (j->b != j->c) {
            size_t es = j->dbl ? 8 : 4;
            for (int col = 0; col < j->n; col++)
                memcpy((char *)j->c + (size_t)col * (size_t)j->ldc * es, (const char *)j->b + (size_t)col * (size_t)j->ldb * es,
                       (size_t)j->m * es);
        }
        if (j->dbl) cblas_dtrmm(C, j->o3, j->o2, j->o1, j->o4, j->m, j->n, al, j->a, j->lda, j->c, j->ldc);
        else cblas_strmm(C, j->o3, j->o2, j->o1, j->o4, j->m, j->n, (float)al, j->a, j->lda, j->c, j->ldc);
        break;
    case GEMV: /* x in b (incx: ldb), y in c (incy: ldc) */
        if (j->dbl) cblas_dgemv(C, j->o1, j->m, j->n, al, j->a, j->lda, j->b, j->ldb, be, j->c, j->ldc);
        else cblas_sgemv(C, j->o1, j->m, j->n, (float)al, j->a, j->lda, j->b, j->ldb, (float)be, j->c, j->ldc);
        break;
    case AXPY:
        if (j->dbl) cblas_daxpy(j->n, al, j->a, j->lda, j->c, j->ldc);
        else cblas_saxpy(j->n, (float)al, j->a, j->lda, j->c, j->ldc);
        break;
    case SCAL:
        if (j->dbl) cblas_dscal(j->n, al, j->c, j->ldc);
        else cblas_sscal(j->n, (float)al, j->c, j->ldc);
        break;
    case DOT:
        if (j->dbl) *(double *)j->c = cblas_ddot(j->n, j->a, j->lda, j->b, j->ldb);
        else *(float *)j->c = cblas_sdot(j->n, j->a, j->lda, j->b, j->ldb);
        break;
    case GEAM: /* C := alpha op(A) + beta op(B), column by column (C may be B: in place, element by element) */
        for (int col = 0; col < j->n; col++)
            for (int row = 0; row < j->m; row++) {
                int ta = j->o1 != CblasNoTrans, tb = j->o2 != CblasNoTrans;
                if (j->dbl) {
                    double x = ta ? MAT(const double, j->a, j->lda, col, row) : MAT(const double, j->a, j->lda, row, col);
                    double y = be == 0 ? 0 : tb ? MAT(const double, j->b, j->ldb, col, row) : MAT(const double, j->b, j->ldb, row, col);
                    MAT(double, j->c, j->ldc, row, col) = al * x + (be == 0 ? 0 : be * y);
                } else {
                    float x = ta ? MAT(const float, j->a, j->lda, col, row) : MAT(const float, j->a, j->lda, row, col);
                    float y = be == 0 ? 0 : tb ? MAT(const float, j->b, j->ldb, col, row) : MAT(const float, j->b, j->ldb, row, col);
                    MAT(float, j->c, j->ldc, row, col) = (float)al * x + (be == 0 ? 0 : (float)be * y);
                }
            }
        break;
    }
}

static int cop(cublasOperation_t o) { return o == CUBLAS_OP_N ? CblasNoTrans : o == CUBLAS_OP_T ? CblasTrans : CblasConjTrans; }
static int cfill(cublasFillMode_t f) { return f == CUBLAS_FILL_MODE_LOWER ? CblasLower : CblasUpper; }
static int cside(cublasSideMode_t s) { return s == CUBLAS_SIDE_LEFT ? CblasLeft : CblasRight; }
static int cdiag(cublasDiagType_t d) { return d == CUBLAS_DIAG_UNIT ? CblasUnit : CblasNonUnit; }
static int max1(int x) { return x > 1 ? x : 1; }
static int bad_op(cublasOperation_t o) { return o != CUBLAS_OP_N && o != CUBLAS_OP_T && o != CUBLAS_OP_C; }
static int bad_fill(cublasFillMode_t f) { return f != CUBLAS_FILL_MODE_LOWER && f != CUBLAS_FILL_MODE_UPPER; }
static int bad_side(cublasSideMode_t s) { return s != CUBLAS_SIDE_LEFT && s != CUBLAS_SIDE_RIGHT; }
static int bad_diag(cublasDiagType_t d) { return d != CUBLAS_DIAG_UNIT && d != CUBLAS_DIAG_NON_UNIT; }

/* the job with the handle's scalars, enqueued on its stream */
static cublasStatus_t submit(cublasHandle_t h, job *t, int dbl, const void *alpha, const void *beta)
{
    job j = *t; /* copied by the launch */
    j.dbl = dbl;
    if (h->mode == CUBLAS_POINTER_MODE_DEVICE) {
        j.palpha = alpha;
        j.pbeta = beta;
    } else {
        j.alpha = alpha ? (dbl ? *(const double *)alpha : *(const float *)alpha) : 0;
        j.beta = beta ? (dbl ? *(const double *)beta : *(const float *)beta) : 0;
    }
    static const char *const names[] = { "gemm", "symm", "syrk", "trsm", "trmm", "gemv", "axpy", "scal", "dot", "geam" };
    return tamm_emu_cudart_library(h->s, run, &j, sizeof j, names[j.op]) ? CUBLAS_STATUS_EXECUTION_FAILED
                                                                         : CUBLAS_STATUS_SUCCESS;
}

#define CHECK(h, bad) \
    do { \
        if (!(h)) return CUBLAS_STATUS_NOT_INITIALIZED; \
        if (bad) return CUBLAS_STATUS_INVALID_VALUE; \
    } while (0)

/* the routines of one precision (P: S or D, T: float or double) */
#define ROUTINES(P, T, DBL) \
API cublasStatus_t cublas##P##gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, \
                                   const T *alpha, const T *A, int lda, const T *B, int ldb, const T *beta, T *Cm, int ldc) \
{ \
    CHECK(h, bad_op(ta) || bad_op(tb) || m < 0 || n < 0 || k < 0 || lda < max1(ta == CUBLAS_OP_N ? m : k) || \
                 ldb < max1(tb == CUBLAS_OP_N ? k : n) || ldc < max1(m)); \
    job j = { GEMM, DBL, cop(ta), cop(tb), 0, 0, m, n, k, lda, ldb, ldc, 0, 0, 0, 0, A, B, Cm }; \
    return submit(h, &j, DBL, alpha, beta); \
} \
API cublasStatus_t cublas##P##symm(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, int m, int n, \
                                   const T *alpha, const T *A, int lda, const T *B, int ldb, const T *beta, T *Cm, int ldc) \
{ \
    CHECK(h, bad_side(side) || bad_fill(uplo) || m < 0 || n < 0 || lda < max1(side == CUBLAS_SIDE_LEFT ? m : n) || \
                 ldb < max1(m) || ldc < max1(m)); \
    job j = { SYMM, DBL, 0, cfill(uplo), cside(side), 0, m, n, 0, lda, ldb, ldc, 0, 0, 0, 0, A, B, Cm }; \
    return submit(h, &j, DBL, alpha, beta); \
} \
API cublasStatus_t cublas##P##syrk(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t tr, int n, int k, \
                                   const T *alpha, const T *A, int lda, const T *beta, T *Cm, int ldc) \
{ \
    CHECK(h, bad_fill(uplo) || bad_op(tr) || n < 0 || k < 0 || lda < max1(tr == CUBLAS_OP_N ? n : k) || ldc < max1(n)); \
    job j = { SYRK, DBL, cop(tr), cfill(uplo), 0, 0, 0, n, k, lda, 0, ldc, 0, 0, 0, 0, A, NULL, Cm }; \
    return submit(h, &j, DBL, alpha, beta); \
} \
API cublasStatus_t cublas##P##trsm(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t tr, \
                                   cublasDiagType_t diag, int m, int n, const T *alpha, const T *A, int lda, T *B, int ldb) \
{ \
    CHECK(h, bad_side(side) || bad_fill(uplo) || bad_op(tr) || bad_diag(diag) || m < 0 || n < 0 || \
                 lda < max1(side == CUBLAS_SIDE_LEFT ? m : n) || ldb < max1(m)); \
    job j = { TRSM, DBL, cop(tr), cfill(uplo), cside(side), cdiag(diag), m, n, 0, lda, ldb, ldb, 0, 0, 0, 0, A, B, B }; \
    return submit(h, &j, DBL, alpha, NULL); \
} \
API cublasStatus_t cublas##P##trmm(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t tr, \
                                   cublasDiagType_t diag, int m, int n, const T *alpha, const T *A, int lda, const T *B, \
                                   int ldb, T *Cm, int ldc) \
{ \
    CHECK(h, bad_side(side) || bad_fill(uplo) || bad_op(tr) || bad_diag(diag) || m < 0 || n < 0 || \
                 lda < max1(side == CUBLAS_SIDE_LEFT ? m : n) || ldb < max1(m) || ldc < max1(m) || \
                 (B == Cm && ldb != ldc)); \
    job j = { TRMM, DBL, cop(tr), cfill(uplo), cside(side), cdiag(diag), m, n, 0, lda, ldb, ldc, 0, 0, 0, 0, A, B, Cm }; \
    return submit(h, &j, DBL, alpha, NULL); \
} \
API cublasStatus_t cublas##P##gemv(cublasHandle_t h, cublasOperation_t tr, int m, int n, const T *alpha, const T *A, \
                                   int lda, const T *x, int incx, const T *beta, T *y, int incy) \
{ \
    CHECK(h, bad_op(tr) || m < 0 || n < 0 || lda < max1(m) || incx == 0 || incy == 0); \
    job j = { GEMV, DBL, cop(tr), 0, 0, 0, m, n, 0, lda, incx, incy, 0, 0, 0, 0, A, x, y }; \
    return submit(h, &j, DBL, alpha, beta); \
} \
API cublasStatus_t cublas##P##axpy(cublasHandle_t h, int n, const T *alpha, const T *x, int incx, T *y, int incy) \
{ \
    CHECK(h, n < 0); \
    job j = { AXPY, DBL, 0, 0, 0, 0, 0, n, 0, incx, 0, incy, 0, 0, 0, 0, x, NULL, y }; \
    return submit(h, &j, DBL, alpha, NULL); \
} \
API cublasStatus_t cublas##P##scal(cublasHandle_t h, int n, const T *alpha, T *x, int incx) \
{ \
    CHECK(h, n < 0); \
    job j = { SCAL, DBL, 0, 0, 0, 0, 0, n, 0, 0, 0, incx, 0, 0, 0, 0, NULL, NULL, x }; \
    return submit(h, &j, DBL, alpha, NULL); \
} \
API cublasStatus_t cublas##P##dot(cublasHandle_t h, int n, const T *x, int incx, const T *y, int incy, T *result) \
{ \
    CHECK(h, !result); \
    if (h->mode == CUBLAS_POINTER_MODE_DEVICE) { \
        job j = { DOT, DBL, 0, 0, 0, 0, 0, n, 0, incx, incy, 0, 0, 0, 0, 0, x, y, result }; \
        return submit(h, &j, DBL, NULL, NULL); \
    } \
    T *d = NULL; /* host mode: the device writes device memory, copied to the host once done */ \
    if (cudaMalloc((void **)&d, sizeof *d) != cudaSuccess) return CUBLAS_STATUS_ALLOC_FAILED; \
    job j = { DOT, DBL, 0, 0, 0, 0, 0, n, 0, incx, incy, 0, 0, 0, 0, 0, x, y, d }; \
    cublasStatus_t st = submit(h, &j, DBL, NULL, NULL); \
    if (st == CUBLAS_STATUS_SUCCESS && (cudaStreamSynchronize(h->s) != cudaSuccess || \
                                        cudaMemcpy(result, d, sizeof *d, cudaMemcpyDeviceToHost) != cudaSuccess)) \
        st = CUBLAS_STATUS_EXECUTION_FAILED; \
    cudaFree(d); \
    return st; \
} \
API cublasStatus_t cublas##P##geam(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, \
                                   const T *alpha, const T *A, int lda, const T *beta, const T *B, int ldb, T *Cm, int ldc) \
{ \
    CHECK(h, bad_op(ta) || bad_op(tb) || m < 0 || n < 0 || lda < max1(ta == CUBLAS_OP_N ? m : n) || ldc < max1(m) || \
                 (B && ldb < max1(tb == CUBLAS_OP_N ? m : n)) || (B == Cm && (tb != CUBLAS_OP_N || ldb != ldc))); \
    job j = { GEAM, DBL, cop(ta), cop(tb), 0, 0, m, n, 0, lda, ldb, ldc, 0, 0, 0, 0, A, B, Cm }; \
    return submit(h, &j, DBL, alpha, beta); \
}

ROUTINES(S, float, 0)
ROUTINES(D, double, 1)
