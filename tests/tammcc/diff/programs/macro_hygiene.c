/* macro_hygiene.c — the user's macros named like everything tammcc's
 * generated code and tamm_cc.h use (parameters, locals, tamm_ref's fields):
 * the file must compile and run under tammcc exactly as under cc. */
#include <tamm.h>
#include <stdio.h>
#define T 10
#define n 4
#define r 2
#define s 3
#define a 5
#define how 1
#define buf x
#define b y
#define ctx z
#define idx w
#define mode m
#define tensor tt
#define nidx nn
#define bytes q
#define d 7
#define lo 0
#define hi 1
int main(int argc, char **argv)
{
    tamm_init(&argc, &argv);
    size_t dims[1] = { 16 }, tile[1] = { T - 6 };
    tamm_tensor *A = tamm_tensor_create("A", TAMM_F64, 1, dims, tile);
    for (long k = 0; k < 4; k++) {
#pragma tamm task
        { double *p = tamm_block(A, k); for (int i = 0; i < n; i++) p[i] = i + r + d + k; }
    }
    for (long k = 0; k < 4; k++) {
#pragma tamm task
        {
            double *p = tamm_block(A, k);
            const double *q0 = k > 0 ? tamm_block(A, k - 1) : NULL;
#pragma tamm task
            { double *c = tamm_block(A, k); c[0] += s; }
#pragma tamm taskwait
            p[1] = p[0] * a + (q0 ? 1 : 0);
        }
#pragma tamm taskwait
    }
    for (long k = 0; k < 4; k++) {
        const double *p = tamm_block(A, k);
        printf("block %ld: %g %g %g %g\n", k, p[0], p[1], p[2], p[3]);
    }
    tamm_tensor_destroy(A);
    return tamm_finalize();
}
