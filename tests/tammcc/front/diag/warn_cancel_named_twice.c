#include <tamm.h>

/* A task that may cancel a block names it twice, or in a loop: the plain build
 * would cancel back to the last naming (docs/language.md, "Cancellable
 * accesses").  Named once, or never cancelled: no warning. */
void f(tamm_tensor *A, long i)
{
#pragma tamm task cwrite(A[i])
    {
        long *a = tamm_block(A, i);
        for (int e = 0; e < 4; e++)
            a[e] = 42;
        tamm_cancel(tamm_block(A, i));
    }
#pragma tamm task creadwrite(A[i])
    {
        for (int e = 0; e < 4; e++) {
            long *b = tamm_block(A, i);
            b[e] += 1;
        }
    if (i > 2) tamm_cancel(tamm_block(A, i));
    }
#pragma tamm task creadwrite(A[i])
    {
        long *c = tamm_block(A, i);
        for (int e = 0; e < 4; e++)
            c[e] = 7;
        if (c[0] == i) tamm_cancel(c);
    }
#pragma tamm task readwrite(A[i])
    {
        long *d = tamm_block(A, i);
        d[0] = *(long *)tamm_block(A, i) + 1;
    }
}
// EXPECT: warn_cancel_named_twice.c:13:21: warning: block A[i], which this task may cancel, is named again: in the plain build (pragmas ignored) each tamm_block of it keeps the copy that tamm_cancel puts back, so a cancel after this point keeps what the body wrote before it, which the tammcc build drops; name the block once, outside loops, and keep the pointer
// EXPECT: warn_cancel_named_twice.c:18:23: warning: block A[i], which this task may cancel, is named inside a loop: in the plain build (pragmas ignored) each tamm_block of it keeps the copy that tamm_cancel puts back, so a cancel after this point keeps what the body wrote before it, which the tammcc build drops; name the block once, outside loops, and keep the pointer
