#include <tamm.h>

void f(tamm_tensor *A, int lo, int hi)
{
#pragma tamm task read(A[lo:hi])
    {
        for (int i = lo; i < hi; i++) {
            double *a = tamm_block(A, i);
            a[0] = 1;
        }
    }
}
// EXPECT: range_contradicts_body.c:5:24: error: 'read' clause on A[lo:hi], but the task body writes A[:] in it (stored to at range_contradicts_body.c:9:13; not every element is provably stored: the loop at range_contradicts_body.c:7:9 is not of the form 'for (i = 0; i < N; i++)'; so readwrite)
