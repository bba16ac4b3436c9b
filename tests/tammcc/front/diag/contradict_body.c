#include <tamm.h>

void f(tamm_tensor *A)
{
#pragma tamm task read(A[0])
    { double *a = tamm_block(A, 0); a[0] = 1; }
}
// EXPECT: contradict_body.c:5:24: error: 'read' clause on A[0], but the task body writes it (stored to at contradict_body.c:6:37)
