#include <tamm.h>

void f(tamm_tensor *A, tamm_tensor *B, long i, long n)
{
#pragma tamm task
    {
        int up = i > 0;
        double *b = tamm_block(B, i);
        if (up)
            b[0] += *(const double *)tamm_block(A, i - 1);
        if (i + 1 < n)
            b[0] += *(const double *)tamm_block(A, i + 1);
    }
}
// EXPECT: warn_guard_body.c:10:38: warning: block A[i-1] is used only if up, which depends on variables set in the task body: it cannot be requested at submission and is fetched synchronously (the task's permission covers the whole tensor 'A')
