#include <tamm.h>

#define SPAWN _Pragma("tamm tsk")

void f(tamm_tensor *A)
{
    SPAWN
    { double *a = tamm_block(A, 0); a[0] += 1; }
}
// EXPECT: pragma_macro_typo.c:7:5: error: unknown tamm directive 'tsk'; did you mean 'task'?
