/*
 * cholesky_cusolver.cu — the device side of cholesky_tiles.c: the tile kernels
 * of a right-looking tiled Cholesky (potrf through cuSOLVER, trsm / syrk / gemm
 * through cuBLAS, on the task's stream and the handle the runtime bound to it)
 * and the reference, one cusolverDnDpotrf on the whole matrix with its
 * transfers.  Tiles are row-major; cuBLAS and cuSOLVER are column-major, so
 * each routine sees a tile transposed: the row-major lower factor L of a tile
 * is the column-major upper factor U = L^T.  Every call is checked.
 */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <stdio.h>
#include <time.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "cholesky_cusolver.cu:%d: %s: %s\n", __LINE__, #x, cudaGetErrorString(e_)); return -1; } } while (0)
#define CB(x) do { int s_ = (int)(x); if (s_ != 0) { \
    fprintf(stderr, "cholesky_cusolver.cu:%d: %s: status %d\n", __LINE__, #x, s_); return -1; } } while (0)

/* cuSOLVER state per stream: the tasks of one GPU are issued by its one CUDA worker thread,
 * so the table needs no lock; each stream gets its own handle, workspace and info word, since
 * tasks on different streams run at once */
#define CH_MAX 16
static struct { cudaStream_t s; cusolverDnHandle_t h; double *work; int lwork, nb; int *info; } ch[CH_MAX];

static int solver_for(cudaStream_t s, int nb, int *k)
{
    int i = 0;
    while (i < CH_MAX && ch[i].h && ch[i].s != s) i++;
    if (i == CH_MAX) { fprintf(stderr, "cholesky_cusolver.cu: more than %d streams\n", CH_MAX); return -1; }
    if (!ch[i].h) {
        CB(cusolverDnCreate(&ch[i].h));
        CB(cusolverDnSetStream(ch[i].h, s));
        ch[i].s = s;
        CK(cudaMalloc((void **)&ch[i].info, sizeof(int)));
    }
    if (ch[i].nb != nb) {
        double *probe = NULL;
        int lw = 0;
        CB(cusolverDnDpotrf_bufferSize(ch[i].h, CUBLAS_FILL_MODE_UPPER, nb, probe, nb, &lw));
        if (lw > ch[i].lwork) {
            if (ch[i].work) CK(cudaFreeAsync(ch[i].work, s));
            CK(cudaMallocAsync((void **)&ch[i].work, (size_t)lw * sizeof(double), s));
            ch[i].lwork = lw;
        }
        ch[i].nb = nb;
    }
    *k = i;
    return 0;
}

/* A = L L^T for an nb x nb row-major tile (lower L in place) */
extern "C" int ch_potrf(void *stream, int nb, double *a)
{
    int k;
    if (solver_for((cudaStream_t)stream, nb, &k)) return -1;
    CB(cusolverDnDpotrf(ch[k].h, CUBLAS_FILL_MODE_UPPER, nb, a, nb, ch[k].work, ch[k].lwork, ch[k].info));
    return 0;
}
/* B := B L^-T (B below the diagonal tile L) */
extern "C" int ch_trsm(void *handle, int nb, const double *l, double *b)
{
    const double one = 1.0;
    CB(cublasDtrsm((cublasHandle_t)handle, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT,
                   nb, nb, &one, l, nb, b, nb));
    return 0;
}
/* C := C - A A^T (the lower triangle of a diagonal tile) */
extern "C" int ch_syrk(void *handle, int nb, const double *a, double *c)
{
    const double m1 = -1.0, one = 1.0;
    CB(cublasDsyrk((cublasHandle_t)handle, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_T, nb, nb, &m1, a, nb, &one, c, nb));
    return 0;
}
/* C := C - A B^T */
extern "C" int ch_gemm(void *handle, int nb, const double *a, const double *b, double *c)
{
    const double m1 = -1.0, one = 1.0;
    CB(cublasDgemm((cublasHandle_t)handle, CUBLAS_OP_T, CUBLAS_OP_N, nb, nb, nb, &m1, b, nb, a, nb, &one, c, nb));
    return 0;
}

extern "C" void ch_release(void)
{
    for (int i = 0; i < CH_MAX && ch[i].h; i++) {
        cudaStreamSynchronize(ch[i].s);
        cudaFree(ch[i].work);
        cudaFree(ch[i].info);
        cusolverDnDestroy(ch[i].h);
        ch[i].h = NULL;
    }
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

extern "C" void *ch_host_alloc(size_t bytes)
{
    void *p = NULL;
    return cudaMallocHost(&p, bytes) == cudaSuccess ? p : NULL;
}
extern "C" void ch_host_free(void *p) { cudaFreeHost(p); }

/* The reference: the lower Cholesky factor of the n x n row-major SPD matrix a (pinned host
 * memory) into l, with one cusolverDnDpotrf; *total includes the copies, *compute only potrf. */
extern "C" int ch_whole(int n, const double *a, double *l, double *total, double *compute)
{
    size_t bytes = (size_t)n * n * sizeof(double);
    double *d, *work;
    int *info, lw = 0, hinfo = 0;
    cusolverDnHandle_t h;
    cudaEvent_t e0, e1;
    CB(cusolverDnCreate(&h));
    CK(cudaMalloc((void **)&d, bytes));
    CK(cudaMalloc((void **)&info, sizeof(int)));
    CB(cusolverDnDpotrf_bufferSize(h, CUBLAS_FILL_MODE_UPPER, n, d, n, &lw));
    CK(cudaMalloc((void **)&work, (size_t)lw * sizeof(double)));
    CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    CK(cudaDeviceSynchronize());
    double t0 = now();
    CK(cudaMemcpy(d, a, bytes, cudaMemcpyHostToDevice));
    CK(cudaEventRecord(e0, 0));
    CB(cusolverDnDpotrf(h, CUBLAS_FILL_MODE_UPPER, n, d, n, work, lw, info));
    CK(cudaEventRecord(e1, 0));
    CK(cudaMemcpy(l, d, bytes, cudaMemcpyDeviceToHost));
    *total = now() - t0;
    CK(cudaMemcpy(&hinfo, info, sizeof hinfo, cudaMemcpyDeviceToHost));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    *compute = ms / 1e3;
    CK(cudaEventDestroy(e0)); CK(cudaEventDestroy(e1));
    CK(cudaFree(d)); CK(cudaFree(work)); CK(cudaFree(info));
    CB(cusolverDnDestroy(h));
    if (hinfo != 0) { fprintf(stderr, "cholesky_cusolver.cu: potrf info %d\n", hinfo); return -1; }
    return 0;
}
