/* _Pragma from a macro, and _Pragma written in code. */
#include <tamm.h>

#define ACC_TASK _Pragma("tamm task label(\"acc\")")
#define WAIT_ALL _Pragma("tamm taskwait")

void f(tamm_tensor *A, long n)
{
    for (long i = 0; i < n; i++) {
        ACC_TASK
        {
            double *a = tamm_block(A, i);
            a[0] += 1.0;
        }
    }
    _Pragma("tamm task read(A[0])")
    {
        double *a = tamm_block(A, 0);
        (void)a[0];
    }
    WAIT_ALL
}
