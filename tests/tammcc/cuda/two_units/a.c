/* two_units/a.c — with b.c: a task in a function named fill at line 10 of both files */
#include <tamm.h>
#include <stdio.h>

#define NB 32
void fill_b(tamm_tensor *X, long b);

static void fill(tamm_tensor *X, long b)
{
    #pragma tamm task
    {
        double *x = tamm_block(X, b);
        for (int i = 0; i < NB; i++)
            x[i] = 1.0 + b;
    }
}

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK) return 1;
    size_t dims[1] = {4 * NB}, tile[1] = {NB};
    tamm_tensor *X = tamm_tensor_create("X", TAMM_F64, 1, dims, tile);
    fill(X, 0);
    fill(X, 1);
    fill_b(X, 2);
    fill_b(X, 3);
    #pragma tamm taskwait
    double s = 0;
    for (long b = 0; b < 4; b++) {
        const double *x = tamm_block(X, b);
        for (int i = 0; i < NB; i++) s += x[i] * (i + 1);
    }
    printf("two_units: %g\n", s);
    tamm_tensor_destroy(X);
    return tamm_finalize() == TAMM_OK ? 0 : 1;
}
