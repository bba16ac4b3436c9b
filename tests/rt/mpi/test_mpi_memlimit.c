/*
 * test_mpi_memlimit.c — TAMM_MEMORY_LIMIT over several ranks (docs/runtime.md
 * "Several MPI ranks", "Memory limit"): copies of other ranks' blocks are
 * evicted when a rank's cache exceeds the limit, and a reader that needs an
 * evicted version again receives it again.  Run by ctest with a limit of a
 * few blocks, far below the remote data each rank reads.
 *
 *   1. integer GEMM C += A * B (tiles of 8 x 8, 2-D block-cyclic), twice,
 *      with A changed by its owners between the passes: every rank reads
 *      most of A and B, so copies are dropped and received again;
 *   2. accumulations from every rank (on(r)) into many blocks of V within one
 *      run: contributions dropped from a full cache are summed at the owner
 *      first;
 *   3. a task whose remote blocks cannot fit is a clear error (checked by
 *      tests/rt/mpi/CMakeLists.txt with a tiny limit: mode "toobig").
 * Results are exact integers, compared with the same computation done
 * plainly on every rank; with several ranks, some rank must have evicted
 * (the runtime's statistics).  Failures are summed over the ranks.
 */
#include <tamm.h>
#include <mpi.h>
#include "mpi_flow.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures, checks;
#define CHECK(c, ...) do { checks++; if (!(c)) { failures++; fprintf(stderr, "rank %d: FAIL %s:%d: %s: ", tamm_rank(), __FILE__, __LINE__, #c); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

enum { NT = 6, NB = 8, N = NT * NB, NV = 24 };

typedef struct { tamm_tensor *A, *B, *C; long i, j, k; } gemm_args;
static void gemm_tile(tamm_ctx *ctx, void *va)
{
    gemm_args *g = va;
    long ai[2] = { g->i, g->k }, bi[2] = { g->k, g->j }, ci[2] = { g->i, g->j };
    const int64_t *a = tamm_get_buf_read(ctx, g->A, ai);
    const int64_t *b = tamm_get_buf_read(ctx, g->B, bi);
    int64_t *c = tamm_get_buf_readwrite(ctx, g->C, ci);
    for (int i = 0; i < NB; i++)
        for (int k = 0; k < NB; k++)
            for (int j = 0; j < NB; j++) c[i * NB + j] += a[i * NB + k] * b[k * NB + j];
    tamm_release_put(ctx, (void *)a);
    tamm_release_put(ctx, (void *)b);
    tamm_release_put(ctx, c);
}

typedef struct { tamm_tensor *A; long i, j; int64_t add; } bump_args;
static void bump(tamm_ctx *ctx, void *va)
{
    bump_args *g = va;
    long ix[2] = { g->i, g->j };
    int64_t *a = tamm_get_buf_readwrite(ctx, g->A, ix);
    for (int e = 0; e < NB * NB; e++) a[e] = a[e] * 3 + g->add;
    tamm_release_put(ctx, a);
}

typedef struct { tamm_tensor *V, *A; long v, ai, aj; } acc_args;
static void acc(tamm_ctx *ctx, void *va)
{
    acc_args *g = va;
    long vi[1] = { g->v }, ax[2] = { g->ai, g->aj };
    const int64_t *a = tamm_get_buf_read(ctx, g->A, ax);
    int64_t *v = tamm_get_buf_accum(ctx, g->V, vi);
    for (int e = 0; e < NB * NB; e++) v[e] += a[e] + g->v;
    tamm_release_put(ctx, (void *)a);
    tamm_release_add(ctx, v);
}

static tamm_ref ref2(tamm_tensor *T, unsigned mode, long i, long j)
{
    tamm_ref r;
    memset(&r, 0, sizeof r);
    r.tensor = T;
    r.nidx = 2;
    r.idx[0] = i;
    r.idx[1] = j;
    r.mode = mode;
    return r;
}

static int submit(tamm_fn fn, const void *args, size_t asz, const tamm_ref *refs, int n, int rank, const char *label)
{
    tamm_task t;
    memset(&t, 0, sizeof t);
    t.cpu = fn;
    t.args = args;
    t.args_size = asz;
    t.refs = refs;
    t.nrefs = n;
    t.rank = rank;
    t.label = label;
    t.file = __FILE__;
    t.line = __LINE__;
    return tamm_submit(NULL, &t);
}

/* element (r, c) of a tiled N x N matrix stored as a plain row-major array */
static int64_t *el(int64_t *m, long r, long c) { return &m[r * N + c]; }

static void plain_gemm(int64_t *C, const int64_t *A, const int64_t *B)
{
    for (long i = 0; i < N; i++)
        for (long k = 0; k < N; k++)
            for (long j = 0; j < N; j++) C[i * N + j] += A[i * N + k] * B[k * N + j];
}

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK) return 2;
    int me = tamm_rank(), P = tamm_nranks();
    const char *mode = argc > 1 ? argv[1] : "ok";
    size_t dims[2] = { N, N }, tile[2] = { NB, NB };
    tamm_tensor *A = tamm_tensor_create("A", TAMM_I64, 2, dims, tile);
    tamm_tensor *B = tamm_tensor_create("B", TAMM_I64, 2, dims, tile);
    tamm_tensor *C = tamm_tensor_create("C", TAMM_I64, 2, dims, tile);
    size_t vd = (size_t)NV * NB * NB, vt = NB * NB;
    tamm_tensor *V = tamm_tensor_create("V", TAMM_I64, 1, &vd, &vt);

    if (!strcmp(mode, "toobig")) {
        /* one task reading a whole row of A and a column of B on one rank */
        tamm_ref r[2 * NT + 1];
        for (long k = 0; k < NT; k++) {
            r[2 * k] = ref2(A, TAMM_READ, 0, k);
            r[2 * k + 1] = ref2(B, TAMM_READ, k, 0);
        }
        r[2 * NT] = ref2(C, TAMM_READWRITE, 0, 0);
        gemm_args g = { A, B, C, 0, 0, 0 };
        int64_t *a00 = tamm_block(A, 1, 1); /* every block written, so copies must come by message */
        (void)a00;
        submit(gemm_tile, &g, sizeof g, r, 2 * NT + 1, P - 1, "row times column");
        int rc = tamm_wait_all();
        printf("rank %d: toobig: wait_all %d\n", me, rc);
        tamm_finalize();
        return rc == TAMM_OK ? 0 : 1;
    }

    int64_t *a = malloc(sizeof(int64_t) * N * N), *b = malloc(sizeof(int64_t) * N * N);
    int64_t *c = calloc((size_t)N * N, sizeof(int64_t)), *got = malloc(sizeof(int64_t) * N * N);
    int64_t *v = calloc(vd, sizeof(int64_t)), *vgot = malloc(sizeof(int64_t) * vd);
    for (long r = 0; r < N; r++)
        for (long q = 0; q < N; q++) {
            *el(a, r, q) = (r * 7 + q * 3) % 11 - 5;
            *el(b, r, q) = (r * 5 + q * 2) % 13 - 6;
        }
    CHECK(tamm_tensor_scatter(A, a) == TAMM_OK, "scatter A");
    CHECK(tamm_tensor_scatter(B, b) == TAMM_OK, "scatter B");

    for (int pass = 0; pass < 2; pass++) {
        for (long i = 0; i < NT; i++)
            for (long j = 0; j < NT; j++)
                for (long k = 0; k < NT; k++) {
                    gemm_args g = { A, B, C, i, j, k };
                    tamm_ref r[3] = { ref2(C, TAMM_READWRITE, i, j), ref2(A, TAMM_READ, i, k), ref2(B, TAMM_READ, k, j) };
                    CHECK(submit(gemm_tile, &g, sizeof g, r, 3, -1, "gemm") == TAMM_OK, "submit gemm");
                }
        plain_gemm(c, a, b);
        /* A changes at its owners: every cached copy of A is stale */
        for (long i = 0; i < NT; i++)
            for (long j = 0; j < NT; j++) {
                bump_args g = { A, i, j, pass + 1 };
                tamm_ref r = ref2(A, TAMM_READWRITE, i, j);
                CHECK(submit(bump, &g, sizeof g, &r, 1, -1, "bump") == TAMM_OK, "submit bump");
                for (long x = i * NB; x < (i + 1) * NB; x++)
                    for (long y = j * NB; y < (j + 1) * NB; y++) *el(a, x, y) = *el(a, x, y) * 3 + pass + 1;
            }
    }
    /* accumulations from every rank into every block of V, one run per block */
    for (int round = 0; round < 2; round++)
        for (long t = 0; t < NV; t++)
            for (int r = 0; r < P; r++) {
                long ai = (t + r) % NT, aj = (t * 5 + r + round) % NT;
                acc_args g = { V, A, t, ai, aj };
                tamm_ref rf[2];
                memset(rf, 0, sizeof rf);
                rf[0].tensor = V;
                rf[0].nidx = 1;
                rf[0].idx[0] = t;
                rf[0].mode = TAMM_ACCUM;
                rf[1] = ref2(A, TAMM_READ, ai, aj);
                CHECK(submit(acc, &g, sizeof g, rf, 2, r, "acc") == TAMM_OK, "submit acc");
                for (long e = 0; e < NB * NB; e++)
                    v[t * NB * NB + e] += *el(a, ai * NB + e / NB, aj * NB + e % NB) + t;
            }
    CHECK(tamm_wait_all() == TAMM_OK, "wait_all");

    CHECK(tamm_tensor_gather(C, got) == TAMM_OK, "gather C");
    long bad = 0;
    for (long e = 0; e < (long)N * N; e++) bad += got[e] != c[e];
    CHECK(bad == 0, "C differs from the plain computation in %ld of %d elements", bad, N * N);
    CHECK(tamm_tensor_gather(V, vgot) == TAMM_OK, "gather V");
    bad = 0;
    for (size_t e = 0; e < vd; e++) bad += vgot[e] != v[e];
    CHECK(bad == 0, "V differs from the plain computation in %ld of %zu elements", bad, vd);

    tamm__flow_stats fs;
    memset(&fs, 0, sizeof fs);
    if (P > 1) tamm__flow_get_stats(&fs);
    tamm_tensor_destroy(A);
    tamm_tensor_destroy(B);
    tamm_tensor_destroy(C);
    tamm_tensor_destroy(V);
    CHECK(tamm_finalize() == TAMM_OK, "finalize");

    long ev = (long)fs.evictions, evsum = ev;
    if (P > 1) MPI_Allreduce(&ev, &evsum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    const char *lim = getenv("TAMM_MEMORY_LIMIT");
    if (P > 1 && lim && *lim) CHECK(evsum > 0, "no rank evicted a copy under TAMM_MEMORY_LIMIT=%s", lim);
    int tot = failures;
    if (P > 1) MPI_Allreduce(&failures, &tot, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("rank %d of %d: %d checks, %d failed here, %d failed on all ranks; %ld copies evicted here, %ld on all ranks\n",
           me, P, checks, failures, tot, ev, evsum);
    free(a);
    free(b);
    free(c);
    free(got);
    free(v);
    free(vgot);
    return tot ? 1 : 0;
}
