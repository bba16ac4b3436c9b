#include <tamm.h>

/* A permission clause on a whole tensor (and on a slice) holds every child's
 * block of it: a child beyond its mode is an error, not a second permission. */
void f(tamm_tensor *X, tamm_tensor *Y, long n)
{
#pragma tamm task permission(read: X) permission(read: Y[0][:])
    {
        for (long j = 0; j < n; j++) {
#pragma tamm task
            {
                double *x = tamm_block(X, j);
                x[0] += 1;
            }
        }
#pragma tamm task
        {
            double *y = tamm_block(Y, 0, 2);
            y[0] = 1;
        }
    }
}
// EXPECT: permission_whole_child_accum.c:12:29: error: nested task needs accum permission on X[j] ('+=' at permission_whole_child_accum.c:13:17), but its parent (line 7) declares only 'permission(read: X)' at permission_whole_child_accum.c:7:36; widen the clause to cover the nested task
// EXPECT: permission_whole_child_accum.c:7:36: note: the parent's 'permission(read: X)' clause is here
// EXPECT: permission_whole_child_accum.c:18:25: error: nested task needs write permission on Y[0][2] (stored to at permission_whole_child_accum.c:19:13), but its parent (line 7) declares only 'permission(read: Y[0][:])' at permission_whole_child_accum.c:7:56; widen the clause to cover the nested task
// EXPECT: permission_whole_child_accum.c:7:56: note: the parent's 'permission(read: Y[0][:])' clause is here
