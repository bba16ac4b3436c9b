#include <tamm.h>

/* A permission range clause: a child within the range but beyond its mode
 * is an error; a child within both (the reader of X[1]) is not. */
void f(tamm_tensor *X)
{
#pragma tamm task permission(read: X[0:4])
    {
#pragma tamm task
        {
            double *x = tamm_block(X, 2);
            x[0] += 1;
        }
#pragma tamm task
        {
            const double *y = tamm_block(X, 1);
            (void)y[0];
        }
    }
}
// EXPECT: permission_range_child_accum.c:11:25: error: nested task needs accum permission on X[2] ('+=' at permission_range_child_accum.c:12:13), but its parent (line 7) declares only 'permission(read: X[0:4])' at permission_range_child_accum.c:7:36; widen the clause to cover the nested task
// EXPECT: permission_range_child_accum.c:7:36: note: the parent's 'permission(read: X[0:4])' clause is here
