#include <tamm.h>

/* every bad clause of a pragma is reported, each at its place; the good
 * clauses between them (label) and after a clause without parentheses
 * (read A[0], then priority) are parsed on */
void f(tamm_tensor *A)
{
#pragma tamm task raed(A[0]) label("t") device(fpga) priority(1) priority(2), read A[0] if (1) (A) collective
    { const double *a = tamm_block(A, 0); (void)a[0]; }
}
// EXPECT: several_bad_clauses.c:8:19: error: unknown clause 'raed' in '#pragma tamm task'; did you mean 'read'?
// EXPECT: several_bad_clauses.c:8:48: error: unknown device 'fpga'; expected cpu, cuda or any
// EXPECT: several_bad_clauses.c:8:66: error: clause 'priority' appears twice
// EXPECT: several_bad_clauses.c:8:84: error: expected '(' after 'read', found 'A'
// EXPECT: several_bad_clauses.c:8:96: error: expected a clause of '#pragma tamm task', found '('
// EXPECT: 5 errors generated.
