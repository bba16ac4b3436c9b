#include <tamm.h>

void f(tamm_tensor *A, int n)
{
    for (int i = 0; i < n; i++) {
#pragma tamm task
        {
            double *a = tamm_block(A, i);
            if (a[0] < 0)
                break;
        }
    }
}
// EXPECT: break_out_of_task.c:10:17: error: 'break' out of a task body (line 6)
