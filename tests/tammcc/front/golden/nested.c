/* Nested tasks, and taskwaits inside task bodies (continuations) in a for
 * loop and an if; the parent's permissions are inferred from its children. */
#include <tamm.h>

static void add(const double *a, double *c, int n)
{
    for (int k = 0; k < n; k++)
        c[k] += a[k];
}

void row_sums(tamm_tensor *A, tamm_tensor *C, long i, long nt)
{
    #pragma tamm task
    {
        for (long j = 0; j < nt; j++) {
            #pragma tamm task
            add(tamm_block(A, i, j), tamm_block(C, i), 16);
            if (j % 4 == 3) {
                #pragma tamm taskwait
            }
        }
        #pragma tamm taskwait
        double *c = tamm_block(C, i);
        c[0] *= 2;
    }
}

void two_levels(tamm_tensor *A, long nt)
{
    #pragma tamm task permission(readwrite: A[:][:])
    {
        for (long i = 0; i < nt; i++) {
            #pragma tamm task
            {
                for (long j = 0; j < nt; j++) {
                    #pragma tamm task
                    {
                        double *a = tamm_block(A, i, j);
                        a[0] += 1;
                    }
                }
            }
        }
    }
}
