/* Guards that cannot be evaluated at submission: each block is fetched
 * synchronously in the body, with a warning that says why. */
#include <tamm.h>

int limit;                       /* a global: may change before a task runs */

static double sum(const double *p, long n)
{
    double s = 0;
    for (long k = 0; k < n; k++) s += p[k];
    return s;
}

void f(tamm_tensor *A, tamm_tensor *B, long I, long J, long n, const int *flags)
{
#pragma tamm task
    {
        double *c = tamm_block(B, I, J);
        if (flags[I] > 0) c[0] += sum(tamm_block(A, I - 1, J), n);
        if (I < limit) c[0] += sum(tamm_block(A, I + 1, J), n);
        if (sum(c, n) > 0) c[0] += sum(tamm_block(A, I, J + 1), n);
        switch (J) {
        case 0: break;
        default: c[0] += sum(tamm_block(A, I, J - 1), n);
        }
        if (J > 1 || sum(tamm_block(A, I, J), n) > 0)
            if (I > 0) c[0] += sum(tamm_block(A, I - 1, J - 1), n);
        if (I > 1) {
            if (J > 0) goto skip;
            c[0] += sum(tamm_block(A, I - 2, J), n);
        skip:;
        }
    }
#pragma tamm task
    {
#define LIM 3
        double *c = tamm_block(B, I, J);
        if (I < LIM) c[0] += sum(tamm_block(A, I + 1, J), n);
#undef LIM
    }
}
// EXPECT: warn_guard_sync.c:38:34: warning: block A[I+1][J] is used only if I < LIM, which uses the macro 'LIM' that the task body defines: it cannot be requested at submission and is fetched synchronously (the task's permission covers the whole tensor 'A')
// EXPECT: warn_guard_sync.c:19:39: warning: block A[I-1][J] is used only if flags[I] > 0, which reads an array element: it cannot be requested at submission and is fetched synchronously (the task's permission covers the whole tensor 'A')
// EXPECT: warn_guard_sync.c:20:36: warning: block A[I+1][J] is used only if I < limit, which reads 'limit', a global variable that may change before the task runs: it cannot be requested at submission and is fetched synchronously (the task's permission covers the whole tensor 'A')
// EXPECT: warn_guard_sync.c:21:40: warning: block A[I][J+1] is used only if sum(c, n) > 0, which depends on variables set in the task body: it cannot be requested at submission and is fetched synchronously (the task's permission covers the whole tensor 'A')
// EXPECT: warn_guard_sync.c:24:30: warning: block A[I][J-1] is used under a 'case' of a switch: it cannot be requested at submission and is fetched synchronously (the task's permission covers the whole tensor 'A')
// EXPECT: warn_guard_sync.c:26:26: warning: block A[I][J] is used under a condition, and the task body has a goto that may jump past it: it cannot be requested at submission and is fetched synchronously (the task's permission covers the whole tensor 'A')
// EXPECT: warn_guard_sync.c:27:36: warning: block A[I-1][J-1] is used only if J > 1 || sum(tamm_block(A, I, J), n) > 0, which calls 'sum': it cannot be requested at submission and is fetched synchronously (the task's permission covers the whole tensor 'A')
// EXPECT: warn_guard_sync.c:30:25: warning: block A[I-2][J] is used under a condition, and the task body has a goto that may jump past it: it cannot be requested at submission and is fetched synchronously (the task's permission covers the whole tensor 'A')
