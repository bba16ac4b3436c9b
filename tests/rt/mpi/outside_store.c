/*
 * outside_store.c — tasks that store outside tensors (a global, memory through
 * a captured malloc'd pointer): tammcc warns, and with several ranks each
 * submission fails with TAMM_ENOTSUP naming the task and the store, since the
 * task runs on one rank and the others would never see the store (before, the
 * program printed wrong numbers: `1.1e-313 22 4.7e-310 54 0`, sequential
 * `6 22 38 54 1`).  ctest mpi_outside_store_np2 (run_error.sh with RANKS=2);
 * with one process the stores are the plain build's: ctest mpi_outside_store_np1
 * (differential.sh at 1, 2 and 4 workers).
 */
#include <tamm.h>

#include <stdio.h>
#include <stdlib.h>

double total;

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK)
        return 1;
    size_t d[1] = {16}, t[1] = {4};
    tamm_tensor *A = tamm_tensor_create("A", TAMM_F64, 1, d, t);
    double *res = malloc(4 * sizeof *res);
    if (!A || !res)
        return 1;
    for (long b = 0; b < 4; b++) {
        double *a = tamm_block(A, b);
        for (int i = 0; i < 4; i++)
            a[i] = (double)(b * 4 + i);
    }
    for (long b = 0; b < 4; b++) {
        #pragma tamm task
        {
            const double *a = tamm_block(A, b);
            double s = 0;
            for (int i = 0; i < 4; i++)
                s += a[i];
            res[b] = s;
        }
    }
    #pragma tamm task
    {
        const double *a = tamm_block(A, 0);
        total = a[1];
    }
    tamm_wait_all();
    printf("%g %g %g %g %g\n", res[0], res[1], res[2], res[3], total);
    free(res);
    return tamm_finalize() == TAMM_OK ? 0 : 1;
}
// EXPECT: tamm: error: task 'main:33' (outside_store.c:33): the task stores to memory through 'res' at outside_store.c:39, outside any tensor: with 2 ranks the task runs on one rank and the others never see that store; keep the result in a tensor block [not supported]
