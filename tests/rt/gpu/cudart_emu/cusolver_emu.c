/*
 * cusolver_emu.c — a stand-in cuSOLVER for tests (libcusolver.so.<major>):
 * dense handles bound to a stream of the stand-in CUDA runtime, and potrf,
 * getrf, geqrf with their workspace queries, in single and double precision.
 * Each checks its arguments at the call (CUSOLVER_STATUS_INVALID_VALUE, and a
 * workspace smaller than its query said), then runs in stream order on the
 * emulated device (tamm_emu_cudart_library: device work, its job's device
 * pointers what it may touch) with LAPACKE, the library the CPU
 * variants call: the workspace is overwritten with NaNs first (a workspace
 * that overlaps the matrix spoils the result), and LAPACK's info goes to
 * devInfo.  potrf of one triangle of a column-major matrix is computed as the
 * row-major factorisation of the other triangle of the same memory (the same
 * numbers: the transpose of a column-major matrix is the row-major one), which
 * is what a row-major LAPACKE_?potrf of a CPU variant computes: so a task
 * gives the same bits on the emulated GPU as on a CPU.
 *
 * TAMM_CUSOLVER_EMU_FAIL=create makes cusolverDnCreate fail (tests of a GPU
 * without cuSOLVER handles).
 */
#include "cudart_emu.h"
#include <cuda_runtime_api.h>
#include <cusolverDn.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define API __attribute__((visibility("default")))

struct cusolverDnContext { cudaStream_t s; };

API cusolverStatus_t cusolverDnCreate(cusolverDnHandle_t *h)
{
    const char *f = getenv("TAMM_CUSOLVER_EMU_FAIL");
    if (f && !strcmp(f, "create")) return CUSOLVER_STATUS_ALLOC_FAILED;
    *h = calloc(1, sizeof **h);
    return *h ? CUSOLVER_STATUS_SUCCESS : CUSOLVER_STATUS_ALLOC_FAILED;
}
API cusolverStatus_t cusolverDnDestroy(cusolverDnHandle_t h) { free(h); return CUSOLVER_STATUS_SUCCESS; }
API cusolverStatus_t cusolverDnSetStream(cusolverDnHandle_t h, cudaStream_t s)
{
    if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;
    h->s = s;
    return CUSOLVER_STATUS_SUCCESS;
}

enum { POTRF, GETRF, GEQRF };
typedef struct job {
    int op, dbl, lower, m, n, lda, lwork;
    void *a, *work, *tau;
    int *ipiv, *info;
} job;

/* the workspace each routine asks for (elements): some, and at least one */
static int work_size(int op, int m, int n) { return op == POTRF ? 2 * n + 1 : n * (op == GEQRF ? 4 : 2) + m + 1; }

static void run(void *p)
{
    const job *j = p;
    for (size_t i = 0; i < (size_t)j->lwork; i++) { /* the workspace holds nothing the result may use */
        if (j->dbl) ((double *)j->work)[i] = NAN;
        else ((float *)j->work)[i] = NAN;
    }
    lapack_int info = 0;
    switch (j->op) {
    case POTRF: /* column-major lower = row-major upper of the same memory */
        info = j->dbl ? LAPACKE_dpotrf_work(LAPACK_ROW_MAJOR, j->lower ? 'U' : 'L', j->n, j->a, j->lda)
                      : LAPACKE_spotrf_work(LAPACK_ROW_MAJOR, j->lower ? 'U' : 'L', j->n, j->a, j->lda);
        break;
    case GETRF:
        info = j->dbl ? LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, j->m, j->n, j->a, j->lda, j->ipiv)
                      : LAPACKE_sgetrf_work(LAPACK_COL_MAJOR, j->m, j->n, j->a, j->lda, j->ipiv);
        break;
    case GEQRF: {
        lapack_int lw = -1;
        if (j->dbl) {
            double q;
            LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, j->m, j->n, j->a, j->lda, j->tau, &q, lw);
            lw = (lapack_int)q > 0 ? (lapack_int)q : 1;
            double *w = malloc((size_t)lw * sizeof *w);
            info = w ? LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, j->m, j->n, j->a, j->lda, j->tau, w, lw) : -1000;
            free(w);
        } else {
            float q;
            LAPACKE_sgeqrf_work(LAPACK_COL_MAJOR, j->m, j->n, j->a, j->lda, j->tau, &q, lw);
            lw = (lapack_int)q > 0 ? (lapack_int)q : 1;
            float *w = malloc((size_t)lw * sizeof *w);
            info = w ? LAPACKE_sgeqrf_work(LAPACK_COL_MAJOR, j->m, j->n, j->a, j->lda, j->tau, w, lw) : -1000;
            free(w);
        }
        break;
    }
    }
    *j->info = (int)info;
}

static cusolverStatus_t submit(cusolverDnHandle_t h, const job *t)
{
    static const char *const names[] = { "potrf", "getrf", "geqrf" };
    return tamm_emu_cudart_library(h->s, run, t, sizeof *t, names[t->op]) ? CUSOLVER_STATUS_EXECUTION_FAILED
                                                                          : CUSOLVER_STATUS_SUCCESS;
}

static int max1(int x) { return x > 1 ? x : 1; }
#define CHECK(h, bad) \
    do { \
        if (!(h)) return CUSOLVER_STATUS_NOT_INITIALIZED; \
        if (bad) return CUSOLVER_STATUS_INVALID_VALUE; \
    } while (0)
#define BAD_FILL(u) ((u) != CUBLAS_FILL_MODE_LOWER && (u) != CUBLAS_FILL_MODE_UPPER)

#define ROUTINES(P, T, DBL) \
API cusolverStatus_t cusolverDn##P##potrf_bufferSize(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, T *A, int lda, \
                                                     int *lwork) \
{ \
    (void)A; \
    CHECK(h, BAD_FILL(uplo) || n < 0 || lda < max1(n) || !lwork); \
    *lwork = work_size(POTRF, n, n); \
    return CUSOLVER_STATUS_SUCCESS; \
} \
API cusolverStatus_t cusolverDn##P##potrf(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, T *A, int lda, T *work, \
                                          int lwork, int *info) \
{ \
    CHECK(h, BAD_FILL(uplo) || n < 0 || lda < max1(n) || !work || !info || lwork < work_size(POTRF, n, n)); \
    job j = { POTRF, DBL, uplo == CUBLAS_FILL_MODE_LOWER, n, n, lda, lwork, A, work, NULL, NULL, info }; \
    return submit(h, &j); \
} \
API cusolverStatus_t cusolverDn##P##getrf_bufferSize(cusolverDnHandle_t h, int m, int n, T *A, int lda, int *lwork) \
{ \
    (void)A; \
    CHECK(h, m < 0 || n < 0 || lda < max1(m) || !lwork); \
    *lwork = work_size(GETRF, m, n); \
    return CUSOLVER_STATUS_SUCCESS; \
} \
API cusolverStatus_t cusolverDn##P##getrf(cusolverDnHandle_t h, int m, int n, T *A, int lda, T *work, int *ipiv, \
                                          int *info) \
{ \
    /* cuSOLVER takes no lwork here: the workspace is the size the query gave */ \
    CHECK(h, m < 0 || n < 0 || lda < max1(m) || !work || !info || !ipiv); \
    job j = { GETRF, DBL, 0, m, n, lda, work_size(GETRF, m, n), A, work, NULL, ipiv, info }; \
    return submit(h, &j); \
} \
API cusolverStatus_t cusolverDn##P##geqrf_bufferSize(cusolverDnHandle_t h, int m, int n, T *A, int lda, int *lwork) \
{ \
    (void)A; \
    CHECK(h, m < 0 || n < 0 || lda < max1(m) || !lwork); \
    *lwork = work_size(GEQRF, m, n); \
    return CUSOLVER_STATUS_SUCCESS; \
} \
API cusolverStatus_t cusolverDn##P##geqrf(cusolverDnHandle_t h, int m, int n, T *A, int lda, T *tau, T *work, int lwork, \
                                          int *info) \
{ \
    CHECK(h, m < 0 || n < 0 || lda < max1(m) || !work || !info || !tau || lwork < work_size(GEQRF, m, n)); \
    job j = { GEQRF, DBL, 0, m, n, lda, lwork, A, work, tau, NULL, info }; \
    return submit(h, &j); \
}

ROUTINES(S, float, 0)
ROUTINES(D, double, 1)
