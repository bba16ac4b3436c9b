#include <tamm.h>

void f(tamm_tensor *A)
{
#pragma tamm task
    {
        double *a = tamm_block(A, 0);
        if (a[0] < 0)
            goto out;
    }
out:
    return;
}
// EXPECT: goto_out_of_task.c:9:13: error: 'goto' out of a task body (line 5)
