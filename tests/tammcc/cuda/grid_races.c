/*
 * grid_races.c — loop nests whose iterations store to the same element: a
 * kernel that maps such a loop onto the grid races (the last store wins in the
 * sequential elision, any store on a GPU).  tammcc must map a loop onto the
 * grid only where the stored elements are distinct per iteration, proven or
 * checked at submission; where a check fails the task runs its CPU variant
 * (--explain says which, and why), never the nest in one GPU thread.  emu_kernels.sh runs the
 * kernels on the host, shuffled and on several threads (and under
 * ThreadSanitizer), and compares with the plain C build.
 */
#include <tamm.h>

#include <stdio.h>

#define N 64
#define NB 16

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK) return 1;
    size_t dims[1] = {N}, tile[1] = {NB};
    tamm_tensor *A = tamm_tensor_create("A", TAMM_F64, 1, dims, tile);
    tamm_tensor *H = tamm_tensor_create("H", TAMM_I64, 1, dims, tile);
    tamm_tensor *G = tamm_tensor_create("G", TAMM_F64, 1, dims, tile);
    int m = NB / 2, k = argc > 99 ? 1 : 0; /* k is 0 at run time */
    for (long b = 0; b < N / NB; b++) {
        /* a[i + j]: (i, j) and (i + 1, j - 1) store to one element */
        #pragma tamm task
        {
            double *a = tamm_block(A, b);
            for (int i = 0; i < m; i++)
                for (int j = 0; j < m; j++)
                    a[i + j] = (double)(b * 1000 + i * 10 + j);
        }
        #pragma tamm task
        {
            long *h = tamm_block(H, b);
            for (int i = 0; i < NB; i++)
                h[i] = -i;
        }
        /* h[i * k] with k == 0: every iteration stores to h[0] */
        #pragma tamm task
        {
            long *h = tamm_block(H, b);
            for (int i = 0; i < NB; i++)
                h[i * k] = b * 100 + i;
        }
        /* distinct per (i, j) when m <= NB / 2: both loops on the grid */
        #pragma tamm task
        {
            double *g = tamm_block(G, b);
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < m; j++)
                    g[i * m + j] = (double)(b + i * j);
        }
    }
    #pragma tamm taskwait
    for (long b = 0; b < N / NB; b++) {
        const double *a = tamm_block(A, b), *g = tamm_block(G, b);
        const long *h = tamm_block(H, b);
        for (int e = 0; e < NB; e++) printf("%ld %d: %g %ld %g\n", b, e, a[e], h[e], g[e]);
    }
    tamm_tensor_destroy(A);
    tamm_tensor_destroy(H);
    tamm_tensor_destroy(G);
    return tamm_finalize() == TAMM_OK ? 0 : 1;
}
