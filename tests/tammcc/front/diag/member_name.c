#include <tamm.h>

struct s { tamm_tensor *T; };

void f(struct s x)
{
#pragma tamm task read(x.[0])
    { const double *a = tamm_block(x.T, 0); (void)a[0]; }
}
// EXPECT: member_name.c:7:26: error: expected a member name in 'read' list
