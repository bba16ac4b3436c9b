#include <tamm.h>
#include <stdint.h>

/* A 'read' clause on a block whose pointer escapes where tammcc cannot follow
 * it: the error says where it escapes and how to tell tammcc it is only read. */
static double sum_at(uintptr_t base, long n)
{
    double s = 0;
    for (long i = 0; i < n; i++) s += ((const double *)base)[i];
    return s;
}

void f(tamm_tensor *A, tamm_tensor *B)
{
#pragma tamm task read(A[0]) write(B[0])
    {
        const double *a = tamm_block(A, 0);
        double *b = tamm_block(B, 0);
        b[0] = sum_at((uintptr_t)a, 4);
    }
}
// EXPECT: read_clause_escape.c:15:24: error: 'read' clause on A[0], but the task body may modify it: the pointer is converted to an integer at read_clause_escape.c:19:23, where tammcc cannot follow it; if the body only reads through it, pass it on as a 'const T *' or TAMM_READS parameter (tammcc takes those as reads), or omit the clause (the block is then readwrite)
