#include <tamm.h>

void f(tamm_tensor *A)
{
    _Pragma("tamm task read(A[0]) devcie(cpu)")
    { double *a = tamm_block(A, 0); (void)a[0]; }
}
// EXPECT: pragma_inline_typo.c:5:35: error: unknown clause 'devcie' in '#pragma tamm task'; did you mean 'device'?
