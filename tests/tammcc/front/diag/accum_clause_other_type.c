#include <tamm.h>

/* an accum clause on a block the body adds to as bytes: the runtime sums contributions
 * in the tensor's dtype, and no dtype has 1-byte elements */
void f(tamm_tensor *D)
{
#pragma tamm task accum(D[0])
    {
        unsigned char *c = tamm_block(D, 0);
        c[3] += 1;
    }
}
// EXPECT: accum_clause_other_type.c:7:25: error: 'accum' clause on D[0], but the task body cannot accumulate into it ('+=' at accum_clause_other_type.c:10:9: added to through an element type that no tensor dtype has (float, double, int32_t, int64_t), which the runtime cannot sum in the tensor's dtype); declare it readwrite
