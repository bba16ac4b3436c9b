#include <tamm.h>

int f(tamm_tensor *A)
{
#pragma tamm task
    {
        double *a = tamm_block(A, 0);
        if (a[0] < 0)
            return 1;
    }
    return 0;
}
// EXPECT: return_in_task.c:9:13: error: 'return' inside a task body (line 5): a task cannot return from its enclosing function
