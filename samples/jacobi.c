/*
 * jacobi.c — a 2-D Jacobi stencil over blocked tensors with guarded blocks.
 *
 *   jacobi [N [NB [SWEEPS]]]     (default N=200, NB=32: 7 x 7 blocks, the last ones 8 wide; SWEEPS=20)
 *
 * An N x N grid holds fixed values on its boundary; each sweep replaces every
 * interior point by the mean of its four neighbours, from tensor U into tensor
 * V, and the two are swapped for the next sweep.  One task per block: it reads
 * its own block of U and the neighbouring blocks it needs for the halo, which
 * exist only inside the grid of blocks.  The task body takes them under the
 * conditions that say so, in both forms tammcc follows:
 *
 *     const double *up = I > 0 ? tamm_block(U, I - 1, J) : NULL;
 *     if (I + 1 < nb) dn = tamm_block(U, I + 1, J);
 *
 * tammcc requests each neighbour at submission only when its condition holds
 * (`tammcc --explain jacobi.c` prints "read U[I-1][J] if (I > 0)"), so the
 * blocks of the grid's edge ask for no block outside the tensor.  The result
 * is checked exactly against the same sweeps on a plain array.
 */
#include <tamm.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the fixed boundary value of grid point (r, c) of an n x n grid; interior points start at 0 */
static double initial(long r, long c, long n)
{
    if (r == 0 || c == 0 || r == n - 1 || c == n - 1)
        return 1.0 + sin(0.05 * (double)(r + 2 * c));
    return 0.0;
}

/* The new value of interior point (i, j) of a block (c, h x w) from its four
 * neighbours: inside the block, or on the edge of the block above (up: its
 * last row), below (dn: its first row), left (lf, wl wide: its last column) or
 * right (rt, wr wide: its first column). */
static double point(const double *c, const double *up, const double *dn, const double *lf, const double *rt,
                    long i, long j, long nb, long h, long w, long wl, long wr)
{
    double u = i > 0 ? c[(i - 1) * w + j] : up[(nb - 1) * w + j];
    double d = i + 1 < h ? c[(i + 1) * w + j] : dn[j];
    double l = j > 0 ? c[i * w + j - 1] : lf[i * wl + wl - 1];
    double e = j + 1 < w ? c[i * w + j + 1] : rt[i * wr];
    return 0.25 * (u + d + l + e);
}

/* One sweep over block (bi, bj) (h x w) of an n x n grid cut into nb x nb
 * tiles: out from the block c and its neighbours.  Boundary points keep their
 * value; a neighbour is read only for interior points next to it, which is
 * exactly where that neighbour exists. */
static void jacobi_block(double *out, const double *c, const double *up, const double *dn, const double *lf,
                         const double *rt, long bi, long bj, long n, long nb, long h, long w, long wl, long wr)
{
    for (long i = 0; i < h; i++)
        for (long j = 0; j < w; j++) {
            long r = bi * nb + i, col = bj * nb + j;
            int edge = r == 0 || col == 0 || r == n - 1 || col == n - 1;
            out[i * w + j] = edge ? c[i * w + j] : point(c, up, dn, lf, rt, i, j, nb, h, w, wl, wr);
        }
}

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK)
        return 1;
    long N = argc > 1 ? atol(argv[1]) : 200, NB = argc > 2 ? atol(argv[2]) : 32;
    int SWEEPS = argc > 3 ? atoi(argv[3]) : 20;
    if (N < 3 || NB < 1 || SWEEPS < 0) {
        fprintf(stderr, "usage: jacobi [N >= 3 [NB >= 1 [SWEEPS >= 0]]]\n");
        return 2;
    }
    size_t dims[2] = {(size_t)N, (size_t)N}, tile[2] = {(size_t)NB, (size_t)NB};
    tamm_tensor *U = tamm_tensor_create("U", TAMM_F64, 2, dims, tile);
    tamm_tensor *V = tamm_tensor_create("V", TAMM_F64, 2, dims, tile);
    double *ref = malloc((size_t)(N * N) * sizeof *ref), *tmp = malloc((size_t)(N * N) * sizeof *tmp);
    if (!U || !V || !ref || !tmp)
        return 1;
    long nb = tamm_tensor_nblocks(U, 0);

    /* both tensors hold the boundary (a sweep copies it) */
    for (long bi = 0; bi < nb; bi++)
        for (long bj = 0; bj < nb; bj++) {
            long h = (long)tamm_block_extent(U, 0, bi), w = (long)tamm_block_extent(U, 1, bj);
            double *u = tamm_block(U, bi, bj), *v = tamm_block(V, bi, bj);
            for (long i = 0; i < h; i++)
                for (long j = 0; j < w; j++)
                    u[i * w + j] = v[i * w + j] = initial(bi * NB + i, bj * NB + j, N);
        }

    for (int s = 0; s < SWEEPS; s++) {
        for (long I = 0; I < nb; I++)
            for (long J = 0; J < nb; J++) {
                #pragma tamm task label("jacobi")
                {
                    const double *up = I > 0 ? tamm_block(U, I - 1, J) : NULL;
                    const double *lf = J > 0 ? tamm_block(U, I, J - 1) : NULL;
                    const double *dn = NULL, *rt = NULL;
                    if (I + 1 < nb)
                        dn = tamm_block(U, I + 1, J);
                    if (J + 1 < nb)
                        rt = tamm_block(U, I, J + 1);
                    long wl = J > 0 ? (long)tamm_block_extent(U, 1, J - 1) : 0;
                    long wr = J + 1 < nb ? (long)tamm_block_extent(U, 1, J + 1) : 0;
                    jacobi_block(tamm_block(V, I, J), tamm_block(U, I, J), up, dn, lf, rt, I, J, N, NB,
                                 (long)tamm_block_extent(V, 0, I), (long)tamm_block_extent(V, 1, J), wl, wr);
                }
            }
        tamm_tensor *t = U;
        U = V;
        V = t;
    }
    #pragma tamm taskwait

    /* the same sweeps on a plain array */
    for (long r = 0; r < N; r++)
        for (long c = 0; c < N; c++)
            ref[r * N + c] = tmp[r * N + c] = initial(r, c, N);
    for (int s = 0; s < SWEEPS; s++) {
        for (long r = 1; r < N - 1; r++)
            for (long c = 1; c < N - 1; c++)
                tmp[r * N + c] = 0.25 * (ref[(r - 1) * N + c] + ref[(r + 1) * N + c] + ref[r * N + c - 1] + ref[r * N + c + 1]);
        double *x = ref;
        ref = tmp;
        tmp = x;
    }
    double maxdiff = 0, sum = 0;
    for (long bi = 0; bi < nb; bi++)
        for (long bj = 0; bj < nb; bj++) {
            long h = (long)tamm_block_extent(U, 0, bi), w = (long)tamm_block_extent(U, 1, bj);
            const double *u = tamm_block(U, bi, bj);
            for (long i = 0; i < h; i++)
                for (long j = 0; j < w; j++) {
                    double want = ref[(bi * NB + i) * N + bj * NB + j];
                    double d = fabs(u[i * w + j] - want);
                    if (d > maxdiff)
                        maxdiff = d;
                    sum += u[i * w + j];
                }
        }
    int ok = maxdiff == 0;
    printf("jacobi: N=%ld NB=%ld blocks=%ldx%ld sweeps=%d workers=%d %s (sum %.12g, max |diff| %g)\n", N, NB, nb, nb,
           SWEEPS, tamm_num_workers(), ok ? "OK" : "FAILED", sum, maxdiff);
    free(ref);
    free(tmp);
    tamm_tensor_destroy(U);
    tamm_tensor_destroy(V);
    tamm_finalize();
    return ok ? 0 : 1;
}
