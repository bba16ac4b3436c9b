#include <tamm.h>
#include <stdio.h>

/* Pointers from tamm_block outside tasks, used after a task that writes their
 * block with no taskwait between: warned once per pointer (issue 27 item 4).
 * The other uses below are fine and must stay silent. */
void f(tamm_tensor *A, tamm_tensor *B, long n)
{
    double *a = tamm_block(A, 0);
    a[0] = 1;
#pragma tamm task
    { double *x = tamm_block(A, 0); x[0] = 5; }
    printf("%g\n", a[0]);                       /* stale: warned */

    double *b = tamm_block(B, 1);
#pragma tamm task
    { double *y = tamm_block(B, 1); y[0] += 2; }
#pragma tamm taskwait
    printf("%g\n", b[0]);                       /* after a taskwait: fine */

    double *c = tamm_block(A, 1);
#pragma tamm task
    { const double *x = tamm_block(A, 1); double *y = tamm_block(B, 2); y[0] = x[0]; }
    printf("%g\n", c[0]);                       /* the task only reads A[1]: fine */

    double *d = tamm_block(B, 3);
#pragma tamm task
    { double *y = tamm_block(B, 4); y[0] = 1; }
    printf("%g\n", d[0]);                       /* another block: fine */

    double *e = tamm_block(A, 2);
#pragma tamm task
    { double *x = tamm_block(A, 2); x[0] = 7; }
    e = tamm_block(A, 2);                       /* fetched again: waits for the task */
    printf("%g\n", e[0]);

    double *g = tamm_block(B, 5);
#pragma tamm task
    { double *y = tamm_block(B, 5); for (long i = 0; i < n; i++) y[i] *= 2; }
    tamm_wait_all();
    printf("%g\n", g[0]);                       /* after tamm_wait_all: fine */

    double *h = tamm_block(B, 6);
#pragma tamm task
    { double *y = tamm_block(B, 6); y[0] = 3; }
    h[1] = 4;                                   /* stale: warned (a store) */
    printf("%g\n", h[0]);                       /* once per pointer */
}
// EXPECT: warn_stale_pointer.c:13:20: warning: 'a' points to block A[0] (tamm_block at line 9), and the task at line 11 writes it; this use has no taskwait after that task, so it may see the block before the task ran (the plain build runs it at once): add '#pragma tamm taskwait' before this use, or call tamm_block again after it
// EXPECT: warn_stale_pointer.c:46:5: warning: 'h' points to block B[6] (tamm_block at line 43), and the task at line 44 writes it; this use has no taskwait after that task, so it may see the block before the task ran (the plain build runs it at once): add '#pragma tamm taskwait' before this use, or call tamm_block again after it
