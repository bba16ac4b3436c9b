/* Macros defined inside the function that holds the tasks: the outlined code,
 * emitted before the function, saves them (push_macro), replays the
 * function's #define / #undef lines that precede each task's body, and
 * restores them (pop_macro); a task statement keeps the #define it holds. */
#include <tamm.h>

#define STEP 1

void f(tamm_tensor *A, long n)
{
#define AT(p, k) ((p)[(k) % 4])
    for (long i = 0; i < n; i++) {
        #pragma tamm task
        {
            double *a = tamm_block(A, i);
            AT(a, i) += STEP;
        }
    }
#undef STEP
#define STEP 2
    #pragma tamm task label("parent")
    {
#define TWICE(x) (2 * (x))
        for (long i = 0; i < n; i++) {
            #pragma tamm task
            {
                double *a = tamm_block(A, i);
                AT(a, 0) += TWICE(STEP);
            }
        }
    }
    double after = TWICE(STEP);
    (void)after;
}
