#include <tamm.h>

void f(tamm_tensor *A, int n)
{
#pragma tamm task
    {
        for (long i = 0; i < n; i++) {
            double *a = tamm_block(A, i);
            a[0] += 1;
        }
    }
}
// EXPECT: warn_dynamic_index.c:8:25: warning: block A[i] has indices that vary inside the task: it cannot be requested at submission and is fetched synchronously (the task's permission covers it as a slice)
