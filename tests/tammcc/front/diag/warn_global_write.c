#include <tamm.h>

double total;

void f(tamm_tensor *A)
{
#pragma tamm task
    {
        double *a = tamm_block(A, 0);
        total = a[0];
    }
}
// EXPECT: warn_global_write.c:10:9: warning: the task writes the global 'total': the runtime cannot order this write with other tasks (use a tensor block)
