#include <tamm.h>

extern int g;

/* A block whose indices vary in the body (or read memory the body may change)
 * is fetched synchronously, with a warning; a clause that declares the block
 * (':' or a range where the index varies, or the same index) silences it. */
void f(tamm_tensor *A, tamm_tensor *B, int n, long j, long lo, long hi)
{
#pragma tamm task
    {
        for (long i = 0; i < n; i++) {
            double *a = tamm_block(A, i, j);
            a[0] += 1;
        }
    }
#pragma tamm task readwrite(A[:][j])
    {
        for (long i = 0; i < n; i++) {
            double *a = tamm_block(A, i, j);
            a[0] += 1;
        }
    }
#pragma tamm task readwrite(A[lo:hi][j])
    {
        for (long i = lo; i < hi; i++) {
            double *a = tamm_block(A, i, j);
            a[0] += 1;
        }
    }
#pragma tamm task permission(readwrite: A[:][:])
    {
        for (long i = 0; i < n; i++) {
            double *a = tamm_block(A, i, i);
            a[0] += 1;
        }
    }
#pragma tamm task read(B)
    {
        double s = 0;
        for (long i = 0; i < n; i++) s += *(double *)tamm_block(B, i);
        (void)s;
    }
#pragma tamm task readwrite(A[:][j])
    {
        /* j is named by the clause, but not i: the clause does not cover B */
        for (long i = 0; i < n; i++) {
            double *b = tamm_block(B, i);
            b[0] += 1;
        }
    }
#pragma tamm task read(B[:])
    {
        double *b = tamm_block(B, g);
        (void)b;
    }
#pragma tamm task read(B[g])
    {
        /* read(B[g]) names g's value at submission; the body may see another g */
        double *b = tamm_block(B, g);
        (void)b;
    }
#pragma tamm task
    {
        switch (n) { case 1: { double *a = tamm_block(A, 0, j); a[0] += 1; } }
    }
#pragma tamm task readwrite(A[:][j])
    {
        switch (n) { case 1: { double *a = tamm_block(A, 0, j); a[0] += 1; } }
    }
}
// EXPECT: warn_dynamic_index_declared.c:13:25: warning: block A[i][j] has indices that vary inside the task: it cannot be requested at submission and is fetched synchronously (the task's permission covers it as a slice)
// EXPECT: warn_dynamic_index_declared.c:48:25: warning: block B[i] has indices that vary inside the task: it cannot be requested at submission and is fetched synchronously (the task's permission covers it as a slice)
// EXPECT: warn_dynamic_index_declared.c:60:21: warning: block B[g] has an index that reads a global or static variable, which a call in the body may change: it is fetched synchronously when the body names it (the task's permission covers the whole tensor)
// EXPECT: warn_dynamic_index_declared.c:65:44: warning: block A[0][j] is used under a 'case' of a switch: it cannot be requested at submission and is fetched synchronously (the task's permission covers the whole tensor 'A')
