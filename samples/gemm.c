/*
 * gemm.c — tiled double-precision GEMM, C += A * B, in pragma form.
 *
 *   gemm [N [NB]]        (default N=256, NB=48: edge tiles, since 48 does not divide 256)
 *
 * Built by tammcc, every `#pragma tamm task` statement becomes a task whose
 * block accesses are inferred from the tile kernels it calls:
 *   - init_tile stores every element of its tile in a canonical loop nest over
 *     the block's extent            -> write
 *   - gemm_tile reads `const` a and b, and only `+=` into c -> read, read, accum
 * Built by a plain C compiler the pragmas are ignored and it is the same
 * program, run sequentially (sequential elision).
 *
 * The result is checked against a plain serial triple loop on ordinary arrays
 * filled by the same formulas.  Exit status 0 iff it matches within rounding.
 */
#include <tamm.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { WHICH_A = 0, WHICH_B = 1, WHICH_C = 2 };

/* Deterministic initial contents. */
static double val(int which, size_t i, size_t j)
{
    switch (which) {
    case WHICH_A: return (double)((i * 7 + j * 3) % 11) / 11.0 - 0.5;
    case WHICH_B: return (double)((i * 5 + j * 13) % 7) / 7.0 - 0.25;
    default:      return (double)i * 0.001 - (double)j * 0.002;
    }
}

/* t (m x n) := val(r0 + i, c0 + j): every element stored -> write. */
static void init_tile(double *t, size_t m, size_t n, size_t r0, size_t c0, int which)
{
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++)
            t[i * n + j] = val(which, r0 + i, c0 + j);
}

/* c (m x n) += a (m x l) * b (l x n): a, b const -> read; only '+=' on c -> accum. */
static void gemm_tile(const double *a, const double *b, double *c, size_t m, size_t l, size_t n)
{
    for (size_t i = 0; i < m; i++)
        for (size_t k = 0; k < l; k++) {
            double aik = a[i * l + k];
            for (size_t j = 0; j < n; j++)
                c[i * n + j] += aik * b[k * n + j];
        }
}

static size_t parse_arg(const char *s, const char *what)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v <= 0 || v > 1L << 16) {
        fprintf(stderr, "gemm: bad %s '%s' (expected a positive integer)\n", what, s);
        exit(2);
    }
    return (size_t)v;
}

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK) {
        fprintf(stderr, "gemm: tamm_init failed\n");
        return 1;
    }
    size_t N = argc > 1 ? parse_arg(argv[1], "N") : 256;
    size_t NB = argc > 2 ? parse_arg(argv[2], "NB") : 48;

    size_t dims[2] = {N, N}, tile[2] = {NB, NB};
    tamm_tensor *A = tamm_tensor_create("A", TAMM_F64, 2, dims, tile);
    tamm_tensor *B = tamm_tensor_create("B", TAMM_F64, 2, dims, tile);
    tamm_tensor *C = tamm_tensor_create("C", TAMM_F64, 2, dims, tile);
    if (!A || !B || !C) {
        fprintf(stderr, "gemm: tamm_tensor_create failed\n");
        return 1;
    }
    long NT = tamm_tensor_nblocks(C, 0);

    /* Fill A, B and C by tasks (write access). */
    for (long i = 0; i < NT; i++)
        for (long j = 0; j < NT; j++) {
            #pragma tamm task label("init_A")
            init_tile(tamm_block(A, i, j), tamm_block_extent(A, 0, i), tamm_block_extent(A, 1, j),
                      (size_t)i * NB, (size_t)j * NB, WHICH_A);
            #pragma tamm task label("init_B")
            init_tile(tamm_block(B, i, j), tamm_block_extent(B, 0, i), tamm_block_extent(B, 1, j),
                      (size_t)i * NB, (size_t)j * NB, WHICH_B);
            #pragma tamm task label("init_C")
            init_tile(tamm_block(C, i, j), tamm_block_extent(C, 0, i), tamm_block_extent(C, 1, j),
                      (size_t)i * NB, (size_t)j * NB, WHICH_C);
        }

    /* C[i][j] += A[i][k] * B[k][j]: the NT contributions to C[i][j] run together. */
    for (long i = 0; i < NT; i++)
        for (long j = 0; j < NT; j++)
            for (long k = 0; k < NT; k++) {
                #pragma tamm task
                gemm_tile(tamm_block(A, i, k), tamm_block(B, k, j), tamm_block(C, i, j),
                          tamm_block_extent(A, 0, i), tamm_block_extent(A, 1, k),
                          tamm_block_extent(B, 1, j));
            }
    #pragma tamm taskwait

    /* The serial reference on plain arrays. */
    double *a = malloc(N * N * sizeof *a), *b = malloc(N * N * sizeof *b);
    double *c = malloc(N * N * sizeof *c);
    if (!a || !b || !c) {
        fprintf(stderr, "gemm: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < N; i++)
        for (size_t j = 0; j < N; j++) {
            a[i * N + j] = val(WHICH_A, i, j);
            b[i * N + j] = val(WHICH_B, i, j);
            c[i * N + j] = val(WHICH_C, i, j);
        }
    for (size_t i = 0; i < N; i++)
        for (size_t k = 0; k < N; k++) {
            double aik = a[i * N + k];
            for (size_t j = 0; j < N; j++)
                c[i * N + j] += aik * b[k * N + j];
        }

    /* Compare block by block (tamm_block outside a task: wait, then the block's memory). */
    double maxerr = 0.0;
    for (long bi = 0; bi < NT; bi++)
        for (long bj = 0; bj < NT; bj++) {
            const double *t = tamm_block(C, bi, bj);
            size_t m = tamm_block_extent(C, 0, bi), n = tamm_block_extent(C, 1, bj);
            if (!t) {
                fprintf(stderr, "gemm: tamm_block(C, %ld, %ld) failed\n", bi, bj);
                return 1;
            }
            for (size_t i = 0; i < m; i++)
                for (size_t j = 0; j < n; j++) {
                    double e = fabs(t[i * n + j] - c[(bi * NB + i) * N + bj * NB + j]);
                    if (!(e <= maxerr)) /* also catches NaN */
                        maxerr = isnan(e) ? INFINITY : e;
                }
        }
    free(a);
    free(b);
    free(c);
    double tol = 1e-12 * (double)N;
    int ok = maxerr <= tol;
    printf("gemm: N=%zu NB=%zu workers=%d %s (max err %.1e)\n", N, NB, tamm_num_workers(),
           ok ? "OK" : "FAILED", maxerr);
    tamm_finalize();
    return ok ? 0 : 1;
}
