/* index_at_submission.c — block indices that read memory the body changes before
 * naming the block (a global bumped by a call, an element of a captured array):
 * plain C reads them where the body uses them, so must tammcc. */
#include <tamm.h>
#include <stdio.h>
static long g = 0;
static void bump(void) { g++; }
int main(int argc, char **argv)
{
    tamm_init(&argc, &argv);
    size_t d[1] = { 4 }, t[1] = { 1 };
    tamm_tensor *A = tamm_tensor_create("A", TAMM_F64, 1, d, t);
    long ix[2] = { 0, 1 };
    long k = 2, *pk = &k;
    for (long i = 0; i < 4; i++) {
#pragma tamm task
        { double *a = tamm_block(A, i); a[0] = 10 * i; }
    }
#pragma tamm task
    { bump(); double *a = tamm_block(A, g); a[0] += 1; }
#pragma tamm task
    { ix[0] = 3; double *a = tamm_block(A, ix[0]); a[0] += 100; }
#pragma tamm task
    { long b[2] = { 2, 3 }; double *a = tamm_block(A, b[1] - 1); a[0] += 1000; (void)pk; }
#pragma tamm taskwait
    for (long i = 0; i < 4; i++) printf("%g ", *(const double *)tamm_block(A, i));
    printf("\n");
    tamm_tensor_destroy(A);
    return tamm_finalize();
}
