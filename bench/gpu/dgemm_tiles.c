/*
 * dgemm_tiles.c — tiled DGEMM on the tamm runtime with a cuBLAS tile variant
 * (explicit task API), against one cublasDgemm on the whole matrix.
 *
 *   dgemm_tiles N NB [reps]          (DGEMM_PHASES=1: also the time of each phase, on stderr)
 *
 * C = A B, N x N doubles in NB x NB tiles; task (i, j, k): C[i][j] += A[i][k]
 * B[k][j] (readwrite: the C tile stays on the GPU from one k to the next).
 * Both sides start from host memory and end with C in host memory: the tiled
 * time runs from the first submission to tamm_tensor_gather(C); the reference
 * from the first copy to the device to the last copy back (its DGEMM alone is
 * also printed).  Set TAMM_CUDA_MEMORY_LIMIT below 3 N^2 8 bytes to run out of
 * core (make gpu-check does, at half the data).  The result is
 * checked against the reference.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */
#include <tamm.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int dg_tile(void *handle, int m, int n, int k, const double *a, const double *b, double *c);
int dg_whole(int n, const double *a, const double *b, double *c, double *total, double *compute);
void *dg_host_alloc(size_t bytes);
void dg_host_free(void *p);

typedef struct { tamm_tensor *A, *B, *C; long i, j, k; } targs;
static int failures;

static void tile_cuda(tamm_ctx *ctx, void *p)
{
    targs *t = p;
    long ai[2] = { t->i, t->k }, bi[2] = { t->k, t->j }, ci[2] = { t->i, t->j };
    const double *a = tamm_get_buf_read(ctx, t->A, ai), *b = tamm_get_buf_read(ctx, t->B, bi);
    double *c = tamm_get_buf_readwrite(ctx, t->C, ci);
    int m = (int)tamm_block_extent(t->C, 0, t->i), n = (int)tamm_block_extent(t->C, 1, t->j);
    int k = (int)tamm_block_extent(t->A, 1, t->k);
    if (!tamm_cublas_handle() || dg_tile(tamm_cublas_handle(), m, n, k, a, b, c)) __atomic_fetch_add(&failures, 1, 0);
    tamm_release_cancel(ctx, (void *)a);
    tamm_release_cancel(ctx, (void *)b);
    tamm_release_put(ctx, c);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 8192, nb = argc > 2 ? atol(argv[2]) : 2048;
    int reps = argc > 3 ? atoi(argv[3]) : 3;
    int phases = getenv("DGEMM_PHASES") && atoi(getenv("DGEMM_PHASES")) > 0;
    if (tamm_init(&argc, &argv) != TAMM_OK) return 1;
    if (tamm_num_gpus() == 0) {
        fprintf(stderr, "dgemm_tiles: no GPU\n");
        tamm_finalize();
        return 77;
    }
    size_t bytes = (size_t)n * (size_t)n * sizeof(double);
    double *a = dg_host_alloc(bytes), *b = dg_host_alloc(bytes), *c = dg_host_alloc(bytes), *ref = dg_host_alloc(bytes);
    if (!a || !b || !c || !ref) { fprintf(stderr, "dgemm_tiles: cannot allocate pinned memory\n"); return 1; }
    for (long i = 0; i < n * n; i++) { a[i] = (double)((i * 7) % 13) / 13 - 0.5; b[i] = (double)((i * 5) % 11) / 11 - 0.5; }
    double ref_total = 1e30, ref_compute = 1e30, tiled = 1e30, ph_sub = 0, ph_wait = 0, ph_gather = 0;
    for (int r = 0; r < reps; r++) {
        double tt, tc;
        if (dg_whole((int)n, a, b, ref, &tt, &tc)) return 1;
        if (tt < ref_total) ref_total = tt;
        if (tc < ref_compute) ref_compute = tc;
    }
    long nt = (n + nb - 1) / nb;
    for (int r = 0; r < reps; r++) {
        size_t dims[2] = { (size_t)n, (size_t)n }, tile[2] = { (size_t)nb, (size_t)nb };
        tamm_tensor *A = tamm_tensor_create("A", TAMM_F64, 2, dims, tile);
        tamm_tensor *B = tamm_tensor_create("B", TAMM_F64, 2, dims, tile);
        tamm_tensor *C = tamm_tensor_create("C", TAMM_F64, 2, dims, tile);
        tamm_tensor_scatter(A, a);
        tamm_tensor_scatter(B, b);
        tamm_tensor_scatter(C, memset(c, 0, bytes));
        double t0 = now();
        for (long i = 0; i < nt; i++)
            for (long j = 0; j < nt; j++)
                for (long k = 0; k < nt; k++) {
                    targs ta = { A, B, C, i, j, k };
                    tamm_ref refs[3];
                    memset(refs, 0, sizeof refs);
                    refs[0].tensor = A; refs[0].nidx = 2; refs[0].idx[0] = i; refs[0].idx[1] = k; refs[0].mode = TAMM_READ;
                    refs[1].tensor = B; refs[1].nidx = 2; refs[1].idx[0] = k; refs[1].idx[1] = j; refs[1].mode = TAMM_READ;
                    refs[2].tensor = C; refs[2].nidx = 2; refs[2].idx[0] = i; refs[2].idx[1] = j; refs[2].mode = TAMM_READWRITE;
                    tamm_task t;
                    memset(&t, 0, sizeof t);
                    t.cuda = tile_cuda;
                    t.args = &ta; t.args_size = sizeof ta; t.refs = refs; t.nrefs = 3;
                    t.label = "dgemm_tile"; t.rank = -1; t.file = __FILE__; t.line = __LINE__;
                    if (tamm_submit(NULL, &t) != TAMM_OK) return 1;
                }
        double t1 = now();
        if (phases && tamm_wait_all() != TAMM_OK) return 1; /* else C's tiles go home as their last task ends */
        double t2 = now();
        if (tamm_tensor_gather(C, c) != TAMM_OK) return 1;
        double t = now() - t0;
        if (t < tiled) { tiled = t; ph_sub = t1 - t0; ph_wait = t2 - t1; ph_gather = t - (t2 - t0); }
        tamm_tensor_destroy(A); tamm_tensor_destroy(B); tamm_tensor_destroy(C);
    }
    double err = 0;
    for (long i = 0; i < n * n; i++) {
        double d = fabs(c[i] - ref[i]) / (fabs(ref[i]) + 1);
        if (d > err) err = d;
    }
    double fl = 2.0 * (double)n * (double)n * (double)n;
    printf("dgemm N=%ld NB=%ld limit=%s: tiled %.1f GFLOP/s, whole cublasDgemm %.1f GFLOP/s with transfers "
           "(%.1f without): %.1f%%, max rel. error %.2e, %d failed tile calls\n",
           n, nb, getenv("TAMM_CUDA_MEMORY_LIMIT") ? getenv("TAMM_CUDA_MEMORY_LIMIT") : "none", fl / tiled / 1e9,
           fl / ref_total / 1e9, fl / ref_compute / 1e9, 100.0 * ref_total / tiled, err, failures);
    /* DGEMM_PHASES=1: where the best tiled run spent its time: submitting, computing (a tamm_wait_all
     * before the gather, which then no longer overlaps the computation), gathering C */
    if (phases) fprintf(stderr, "dgemm phases: submission %.1f ms, until tamm_wait_all %.1f ms, tamm_tensor_gather %.1f ms\n",
            1e3 * ph_sub, 1e3 * ph_wait, 1e3 * ph_gather);
    dg_host_free(a); dg_host_free(b); dg_host_free(c); dg_host_free(ref);
    int rc = tamm_finalize();
    return rc == TAMM_OK && err < 1e-9 && failures == 0 ? 0 : 1;
}
