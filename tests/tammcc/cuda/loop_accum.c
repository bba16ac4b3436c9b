/*
 * loop_accum.c — tasks that accumulate ('+=' / '-=') into blocks from loop
 * nests: tammcc infers accum; the row sums' kernel puts the rows on the grid
 * and sums each in a register of its thread (no atomic); the histogram-like
 * h[(i + j) % nb] has no thread per element and is no reduction: no kernel.
 * Values are small integers held in doubles, so every order of summation gives
 * the same bits.
 */
#include <tamm.h>

#include <stdio.h>

#define N 64
#define NB 16
#define NT (N / NB)

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK) return 1;
    size_t dims[2] = {N, N}, tile[2] = {NB, NB}, vdims[1] = {N}, vtile[1] = {NB};
    tamm_tensor *A = tamm_tensor_create("A", TAMM_F64, 2, dims, tile);
    tamm_tensor *R = tamm_tensor_create("R", TAMM_F64, 1, vdims, vtile);
    tamm_tensor *H = tamm_tensor_create("H", TAMM_I32, 1, vdims, vtile);
    int nb = NB;
    for (long bi = 0; bi < NT; bi++)
        for (long bj = 0; bj < NT; bj++) {
            #pragma tamm task
            {
                double *a = tamm_block(A, bi, bj);
                for (int i = 0; i < nb; i++)
                    for (int j = 0; j < nb; j++)
                        a[i * nb + j] = (double)((bi * nb + i + 3 * (bj * nb + j)) % 13) - 6.0;
            }
        }
    for (int rep = 0; rep < 2; rep++)
        for (long bi = 0; bi < NT; bi++)
            for (long bj = 0; bj < NT; bj++) {
                /* R[bi] += row sums of A[bi][bj]; H[bj] -= a histogram-ish count */
                #pragma tamm task
                {
                    const double *a = tamm_block(A, bi, bj);
                    double *r = tamm_block(R, bi);
                    for (int i = 0; i < nb; i++)
                        for (int j = 0; j < nb; j++)
                            r[i] += a[i * nb + j] * (rep + 1);
                }
                #pragma tamm task
                {
                    const double *a = tamm_block(A, bi, bj);
                    int *h = tamm_block(H, bj);
                    for (int i = 0; i < nb; i++)
                        for (int j = 0; j < nb; j++)
                            h[(i + j) % nb] -= (int)a[i * nb + j] + rep;
                }
            }
    #pragma tamm taskwait
    for (long b = 0; b < NT; b++) {
        const double *r = tamm_block(R, b);
        const int *h = tamm_block(H, b);
        double s = 0;
        long t = 0;
        for (int e = 0; e < NB; e++) {
            s += r[e] * (e + 1);
            t += (long)h[e] * (e + 2);
        }
        printf("loop_accum: block %ld: %.3f %ld\n", b, s, t);
    }
    tamm_tensor_destroy(A);
    tamm_tensor_destroy(R);
    tamm_tensor_destroy(H);
    return tamm_finalize() == TAMM_OK ? 0 : 1;
}
