#include <tamm.h>

void f(tamm_tensor *A)
{
#pragma tamm task
    double *a = tamm_block(A, 0);
    (void)a;
}
// EXPECT: on_declaration.c:6:5: error: '#pragma tamm task' applies to a statement, not a declaration (wrap it in braces)
