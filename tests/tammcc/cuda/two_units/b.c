/* two_units/b.c — with a.c: a task in a function named fill at line 10 of both files */
#include <tamm.h>

#define NB 32
void fill_b(tamm_tensor *X, long b);


static void fill(tamm_tensor *X, long b)
{
    #pragma tamm task
    {
        double *x = tamm_block(X, b);
        for (int i = 0; i < NB; i++)
            x[i] = 2.0 * b + i;
    }
}

void fill_b(tamm_tensor *X, long b) { fill(X, b); }
