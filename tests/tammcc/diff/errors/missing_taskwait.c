/* A parent reads a block that its nested task writes, with no taskwait between: the plain
 * build ran the nested task at once (y = 5); tamm runs it later, so the parent read 0, and
 * silently.  Under TAMM_CHECK_ACCESS=1 the parent's use is an error naming the block. */
#include <tamm.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK)
        return 1;
    size_t d[1] = {8}, t[1] = {4};
    tamm_tensor *X = tamm_tensor_create("X", TAMM_F64, 1, d, t);
    tamm_tensor *Y = tamm_tensor_create("Y", TAMM_F64, 1, d, t);
    double *x0 = tamm_block(X, 0), *y0 = tamm_block(Y, 0);
    for (int i = 0; i < 4; i++)
        x0[i] = y0[i] = 0;
    /* the nested task waits for f, which a task signals only after the parent has completed:
     * it cannot run before the parent's use (the error is reported, never a race with it) */
    tamm_fence *f = tamm_fence_create();
    #pragma tamm task
    {
        #pragma tamm task wait(f)
        {
            double *x = tamm_block(X, 0);
            for (int i = 0; i < 4; i++)
                x[i] = 5;
        }
        const double *x = tamm_block(X, 0);
        double *y = tamm_block(Y, 0);
        y[0] = x[0];
    }
    #pragma tamm task signal(f)
    {
        const double *y = tamm_block(Y, 0);
        (void)y;
    }
    tamm_wait_all();
    printf("%g\n", ((const double *)tamm_block(Y, 0))[0]);
    return tamm_finalize() == TAMM_OK ? 0 : 1;
}
// ENV: TAMM_CHECK_ACCESS=1
// EXPECT: tamm: error: task 'main:20' (missing_taskwait.c:20): uses block X[0] (tensor 'X') for readwrite while a nested task it submitted, which writes it, has not completed: the plain build runs a nested task at once, so a taskwait is missing between that submission and this use [access mode violated by the task's body]
