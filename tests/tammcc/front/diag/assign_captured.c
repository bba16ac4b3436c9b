#include <tamm.h>

double f(tamm_tensor *A)
{
    double sum = 0;
#pragma tamm task
    {
        double *a = tamm_block(A, 0);
        sum = a[0];
    }
    return sum;
}
// EXPECT: assign_captured.c:9:9: error: the task assigns 'sum', a variable of the enclosing function: tasks capture such variables by value (like OpenMP firstprivate), so the assignment would be lost; keep the result in a tensor block
