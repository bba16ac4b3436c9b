#include <tamm.h>

void f(tamm_tensor *A)
{
#pragma tamm task read(B[0])
    { double *a = tamm_block(A, 0); (void)a[0]; }
}
// EXPECT: undeclared_name.c:5:24: error: use of undeclared identifier 'B'
