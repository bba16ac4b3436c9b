#include <tamm.h>

struct pair { tamm_tensor *T; };

static void set0(struct pair *p)
{
    double *a = tamm_block(p->T, 0);
    a[0] = 1;
}

void f(struct pair *p)
{
#pragma tamm task
    {
        set0(p);
    }
}
// The task function reaches a tensor through a structure member, which the task cannot name.
// EXPECT: taskfn_tensor_unnamed.c:15:9: error: the call of set0 reaches the tamm_block at taskfn_tensor_unnamed.c:7, on a tensor that cannot be named here, so the permissions of the task at line 13 cannot be inferred; give it a permission(...) clause naming the tensors
