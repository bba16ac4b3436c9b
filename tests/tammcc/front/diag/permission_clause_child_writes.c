#include <tamm.h>

/* The parent declares read permission on X[i]; its child writes X[i]. The
 * clause is a declaration: tammcc does not widen it, it reports the child. */
void f(tamm_tensor *X, long i)
{
#pragma tamm task permission(read: X[i])
    {
#pragma tamm task
        {
            double *x = tamm_block(X, i);
            for (int e = 0; e < 4; e++)
                x[e] = 1;
        }
    }
}
// EXPECT: permission_clause_child_writes.c:11:25: error: nested task needs write permission on X[i] (stored to at permission_clause_child_writes.c:13:17), but its parent (line 7) declares only 'permission(read: X[i])' at permission_clause_child_writes.c:7:36; widen the clause to cover the nested task
// EXPECT: permission_clause_child_writes.c:7:36: note: the parent's 'permission(read: X[i])' clause is here
