/*
 * gemm_explicit.c — a tiled int64 GEMM, C += A * B, written by hand against the
 * explicit task API of tamm.h (what tammcc generates from `#pragma tamm task`).
 *
 *   gemm_explicit [N [NB]]        (default N=256, NB=64; N need not be a multiple of NB)
 *
 * A, B and C are N x N tensors of int64 in NB x NB tiles.  Tasks fill them
 * (write access: tamm_get_buf_write + tamm_release_put), then one task per
 * (i, j, k) adds A[i][k] * B[k][j] into C[i][j] (accumulate access:
 * tamm_get_buf_accum + tamm_release_add; the runtime sums the contributions
 * of the k tasks).  The result is gathered with tamm_tensor_gather and
 * compared, element for element, with a plain sequential triple loop.
 * Integer data, so the comparison is exact.  Exit status 0 iff it matches.
 */
#include <tamm.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Deterministic contents, small enough that no sum overflows. */
static int64_t a_val(size_t i, size_t j) { return (int64_t)((i * 7 + j * 3) % 11) - 5; }
static int64_t b_val(size_t i, size_t j) { return (int64_t)((i * 5 + j * 13) % 7) - 3; }
static int64_t c_val(size_t i, size_t j) { return (int64_t)i - (int64_t)j; }

enum { WHICH_A = 0, WHICH_B = 1, WHICH_C = 2 };

typedef struct {
    tamm_tensor *T;
    long bi, bj;
    int which;
    size_t nb;       /* tile size: block (bi, bj) starts at (bi*nb, bj*nb) */
} fill_args;

typedef struct {
    tamm_tensor *A, *B, *C;
    long i, j, k;
} gemm_args;

static void fill_task(tamm_ctx *ctx, void *p)
{
    const fill_args *a = p;
    const long idx[2] = {a->bi, a->bj};
    int64_t *buf = tamm_get_buf_write(ctx, a->T, idx);
    if (!buf)
        return;
    size_t rows = tamm_block_extent(a->T, 0, a->bi), cols = tamm_block_extent(a->T, 1, a->bj);
    size_t r0 = (size_t)a->bi * a->nb, c0 = (size_t)a->bj * a->nb;
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++) {
            size_t gi = r0 + r, gj = c0 + c;
            buf[r * cols + c] = a->which == WHICH_A ? a_val(gi, gj)
                              : a->which == WHICH_B ? b_val(gi, gj)
                                                    : c_val(gi, gj);
        }
    tamm_release_put(ctx, buf);
}

/* c[m x n] += a[m x l] * b[l x n], tiles row-major (edge tiles are smaller). */
static void gemm_task(tamm_ctx *ctx, void *p)
{
    const gemm_args *g = p;
    const long ia[2] = {g->i, g->k}, ib[2] = {g->k, g->j}, ic[2] = {g->i, g->j};
    const int64_t *a = tamm_get_buf_read(ctx, g->A, ia);
    const int64_t *b = tamm_get_buf_read(ctx, g->B, ib);
    int64_t *c = tamm_get_buf_accum(ctx, g->C, ic);
    if (a && b && c) {
        size_t m = tamm_block_extent(g->A, 0, g->i);
        size_t l = tamm_block_extent(g->A, 1, g->k);
        size_t n = tamm_block_extent(g->B, 1, g->j);
        for (size_t r = 0; r < m; r++)
            for (size_t q = 0; q < l; q++) {
                int64_t arq = a[r * l + q];
                for (size_t s = 0; s < n; s++)
                    c[r * n + s] += arq * b[q * n + s];
            }
    }
    if (a) tamm_release_put(ctx, (void *)a);
    if (b) tamm_release_put(ctx, (void *)b);
    if (c) tamm_release_add(ctx, c);
}

static int submit_fill(tamm_tensor *T, int which, size_t nb, long *ntasks)
{
    long nbi = tamm_tensor_nblocks(T, 0), nbj = tamm_tensor_nblocks(T, 1);
    for (long bi = 0; bi < nbi; bi++)
        for (long bj = 0; bj < nbj; bj++) {
            fill_args a = {T, bi, bj, which, nb};
            tamm_ref ref = {.tensor = T, .nidx = 2, .idx = {bi, bj}, .mode = TAMM_WRITE};
            tamm_task t = {.cpu = fill_task, .args = &a, .args_size = sizeof a,
                           .refs = &ref, .nrefs = 1, .label = "fill", .rank = -1,
                           .file = __FILE__, .line = __LINE__};
            int rc = tamm_submit(NULL, &t);
            if (rc != TAMM_OK) {
                fprintf(stderr, "gemm_explicit: tamm_submit(fill): %s\n", tamm_strerror(rc));
                return rc;
            }
            (*ntasks)++;
        }
    return TAMM_OK;
}

static long parse_arg(const char *s, const char *what)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v <= 0 || v > 1L << 20) {
        fprintf(stderr, "gemm_explicit: bad %s '%s' (expected a positive integer)\n", what, s);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    int rc = tamm_init(&argc, &argv);
    if (rc != TAMM_OK) {
        fprintf(stderr, "gemm_explicit: tamm_init: %s\n", tamm_strerror(rc));
        return 1;
    }
    size_t N = argc > 1 ? (size_t)parse_arg(argv[1], "N") : 256;
    size_t NB = argc > 2 ? (size_t)parse_arg(argv[2], "NB") : 64;
    if (argc > 3) {
        fprintf(stderr, "usage: gemm_explicit [N [NB]]\n");
        return 2;
    }

    size_t dims[2] = {N, N}, tile[2] = {NB, NB};
    tamm_tensor *A = tamm_tensor_create("A", TAMM_I64, 2, dims, tile);
    tamm_tensor *B = tamm_tensor_create("B", TAMM_I64, 2, dims, tile);
    tamm_tensor *C = tamm_tensor_create("C", TAMM_I64, 2, dims, tile);
    if (!A || !B || !C) {
        fprintf(stderr, "gemm_explicit: tamm_tensor_create failed\n");
        return 1;
    }

    long ntasks = 0;
    if (submit_fill(A, WHICH_A, NB, &ntasks) || submit_fill(B, WHICH_B, NB, &ntasks) ||
        submit_fill(C, WHICH_C, NB, &ntasks))
        return 1;

    long NT = tamm_tensor_nblocks(C, 0);
    for (long i = 0; i < NT; i++)
        for (long j = 0; j < NT; j++)
            for (long k = 0; k < NT; k++) {
                gemm_args g = {A, B, C, i, j, k};
                tamm_ref refs[3] = {
                    {.tensor = A, .nidx = 2, .idx = {i, k}, .mode = TAMM_READ},
                    {.tensor = B, .nidx = 2, .idx = {k, j}, .mode = TAMM_READ},
                    {.tensor = C, .nidx = 2, .idx = {i, j}, .mode = TAMM_ACCUM},
                };
                tamm_task t = {.cpu = gemm_task, .args = &g, .args_size = sizeof g,
                               .refs = refs, .nrefs = 3, .label = "gemm_tile", .rank = -1,
                               .file = __FILE__, .line = __LINE__};
                rc = tamm_submit(NULL, &t);
                if (rc != TAMM_OK) {
                    fprintf(stderr, "gemm_explicit: tamm_submit(gemm): %s\n", tamm_strerror(rc));
                    return 1;
                }
                ntasks++;
            }

    rc = tamm_wait_all();
    if (rc != TAMM_OK) {
        fprintf(stderr, "gemm_explicit: tamm_wait_all: %s\n", tamm_strerror(rc));
        return 1;
    }

    int64_t *got = malloc(N * N * sizeof *got);
    int64_t *ref = malloc(N * N * sizeof *ref);
    int64_t *ga = malloc(N * N * sizeof *ga);
    if (!got || !ref || !ga) {
        fprintf(stderr, "gemm_explicit: out of memory\n");
        return 1;
    }
    rc = tamm_tensor_gather(C, got);
    if (rc != TAMM_OK) {
        fprintf(stderr, "gemm_explicit: tamm_tensor_gather: %s\n", tamm_strerror(rc));
        return 1;
    }
    /* A as filled by the tasks, too (checks the write path on its own). */
    long bad_a = 0;
    if (tamm_tensor_gather(A, ga) != TAMM_OK)
        bad_a = -1;
    else
        for (size_t i = 0; i < N; i++)
            for (size_t j = 0; j < N; j++)
                bad_a += ga[i * N + j] != a_val(i, j);

    /* The sequential reference: C0 + A * B. */
    for (size_t i = 0; i < N; i++)
        for (size_t j = 0; j < N; j++)
            ref[i * N + j] = c_val(i, j);
    for (size_t i = 0; i < N; i++)
        for (size_t k = 0; k < N; k++) {
            int64_t aik = a_val(i, k);
            for (size_t j = 0; j < N; j++)
                ref[i * N + j] += aik * b_val(k, j);
        }

    long mismatches = 0;
    uint64_t checksum = 0;
    for (size_t e = 0; e < N * N; e++) {
        checksum = checksum * 1099511628211ULL + (uint64_t)got[e];
        if (got[e] != ref[e]) {
            if (mismatches < 5)
                fprintf(stderr, "gemm_explicit: C[%zu][%zu] = %" PRId64 ", expected %" PRId64 "\n",
                        e / N, e % N, got[e], ref[e]);
            mismatches++;
        }
    }
    int workers = tamm_num_workers();

    tamm_tensor_destroy(A);
    tamm_tensor_destroy(B);
    tamm_tensor_destroy(C);
    free(got);
    free(ref);
    free(ga);
    rc = tamm_finalize();

    if (mismatches || bad_a || rc != TAMM_OK) {
        printf("gemm_explicit: N=%zu NB=%zu workers=%d tasks=%ld FAILED (%ld of %zu elements of C "
               "differ, A %s, finalize %s)\n",
               N, NB, workers, ntasks, mismatches, N * N, bad_a ? "wrong" : "ok",
               tamm_strerror(rc));
        return 1;
    }
    printf("gemm_explicit: N=%zu NB=%zu workers=%d tasks=%ld OK (checksum %016" PRIx64 ")\n", N, NB,
           workers, ntasks, checksum);
    return 0;
}
