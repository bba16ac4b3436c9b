#include <tamm.h>

/* a body that names a block after a nested task that writes it, with no taskwait between:
 * warned (line 15); not after a taskwait (X[1]), not in the other branch of an if (X[2]),
 * not when both only read (X[3]) */
void f(tamm_tensor *X, tamm_tensor *Y, int c)
{
#pragma tamm task
    {
#pragma tamm task
        {
            double *x = tamm_block(X, 0);
            x[0] = 1;
        }
        const double *x = tamm_block(X, 0);
        double *y = tamm_block(Y, 0);
        y[0] = x[0];
#pragma tamm task
        {
            double *x1 = tamm_block(X, 1);
            x1[0] = 2;
        }
#pragma tamm taskwait
        {
            const double *x1 = tamm_block(X, 1);
            double *y1 = tamm_block(Y, 1);
            y1[0] = x1[0];
        }
        if (c) {
#pragma tamm task
            { double *x2 = tamm_block(X, 2); x2[0] = 3; }
        } else {
            const double *x2 = tamm_block(X, 2);
            double *y2 = tamm_block(Y, 2);
            y2[0] = x2[0];
        }
#pragma tamm task
        { const double *x3 = tamm_block(X, 3); double *y3 = tamm_block(Y, 3); y3[0] = x3[0]; }
        {
            const double *x3 = tamm_block(X, 3);
            double *y4 = tamm_block(Y, 4);
            y4[0] = x3[0];
        }
#pragma tamm taskwait
    }
}
// EXPECT: warn_missing_taskwait.c:15:27: warning: the task names X[0] here, after the nested task at line 10 that writes it, with no taskwait between: that task may not have run yet (the plain build runs it at once); add '#pragma tamm taskwait' before this use (TAMM_CHECK_ACCESS=1 reports it at run time)
