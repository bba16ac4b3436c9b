/* Loop bounds read from globals (issue 27 item 11): a 'const' global with an
 * initialiser keeps its value, so a loop up to it proves a write (used by its
 * value, also through a callee whose caller has a local of the same name); a
 * global that is not const may change after the submission, so its loop gives
 * no proof (readwrite).  The plain build is the oracle; TAMM_CHECK_ACCESS=1
 * (differential.sh) fails a write that leaves elements unwritten. */
#include <stdio.h>
#include <tamm.h>

#define NB 4
static const long TSC = 8;    /* the tile: a const global */
static long ts_var = 8;       /* the same value, not const */
static const int HALF = 4;    /* half a tile: no proof of the whole block */

static void fill_const(double *a, double v)
{
    for (long i = 0; i < TSC; i++) a[i] = v + i;
}

int main(int argc, char **argv)
{
    tamm_init(&argc, &argv);
    size_t dims[1] = { NB * 8 }, tile[1] = { 8 };
    tamm_tensor *A = tamm_tensor_create("A", TAMM_F64, 1, dims, tile);
    tamm_tensor *B = tamm_tensor_create("B", TAMM_F64, 1, dims, tile);
    long TSC = 3; /* shadows the global here: the callee's bound is the global's value, 8 */
    for (long b = 0; b < NB; b++) {
#pragma tamm task
        { double *a = tamm_block(A, b); for (long i = 0; i < 8; i++) a[i] = -1; }
#pragma tamm task
        { double *a = tamm_block(A, b); for (long i = 0; i < ts_var; i++) a[i] = b * 100 + i; }
#pragma tamm task
        fill_const(tamm_block(B, b), b * 10 + TSC);
#pragma tamm task
        { double *a = tamm_block(A, b); for (int i = 0; i < HALF; i++) a[i] += 0.5; }
    }
#pragma tamm taskwait
    for (long b = 0; b < NB; b++) {
        const double *a = tamm_block(A, b), *x = tamm_block(B, b);
        printf("A[%ld]:", b);
        for (int i = 0; i < 8; i++) printf(" %g", a[i]);
        printf("  B[%ld]:", b);
        for (int i = 0; i < 8; i++) printf(" %g", x[i]);
        printf("\n");
    }
    tamm_finalize();
    return 0;
}
