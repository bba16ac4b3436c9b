#include <tamm.h>
#include <string.h>

/* data outside tensors that a task reads without tammcc taking it at submission (rule 40: an
 * index that varies in the body, a read inside a called function, a read under an if, a task
 * nested in the task submitted), changed by the submitting code before the next taskwait (also
 * in the next iteration of a loop of submissions, or by a call given the pointer): warned, naming
 * the store and the read.  Not warned: a read taken at submission (p->coef at line 69), a store
 * after a taskwait (line 73), a store to the pointer variable itself, which the task captured
 * (line 74). */
struct params { long coef; };
long g_bias = 1;

static long scaled(const struct params *q, long v) { return q->coef * v; }
static long biased(long v) { return v + g_bias; }

void f(tamm_tensor *X, struct params *p, long *pw, int c)
{
#pragma tamm task
    {
        long *x = tamm_block(X, 0);
        for (int k = 0; k < 4; k++) x[0] += pw[k];
    }
    for (int k = 0; k < 4; k++) pw[k] = 10;
#pragma tamm taskwait
#pragma tamm task
    {
        long *x = tamm_block(X, 1);
        x[0] = scaled(p, 3);
    }
    p->coef = 7;
#pragma tamm taskwait
#pragma tamm task
    {
        long *x = tamm_block(X, 2);
        x[0] = biased(2);
    }
    g_bias = 2;
#pragma tamm taskwait
#pragma tamm task
    {
        long *x = tamm_block(X, 3);
        if (c) x[0] = p->coef;
    }
    memset(p, 0, sizeof *p);
#pragma tamm taskwait
    for (long b = 4; b < 6; b++) {
        pw[b] = b;
#pragma tamm task
        {
            long *x = tamm_block(X, b);
            for (int k = 0; k < c; k++) x[k] = pw[b + k];
        }
    }
#pragma tamm taskwait
#pragma tamm task
    {
#pragma tamm task
        {
            long *x = tamm_block(X, 6);
            x[0] = p->coef;
        }
    }
    p->coef = 8;
#pragma tamm taskwait
#pragma tamm task
    {
        long *x = tamm_block(X, 7);
        x[0] = p->coef;
    }
    p->coef = 9;
#pragma tamm taskwait
    pw[0] = 1;
    p = NULL;
#pragma tamm task
    {
        long *x = tamm_block(X, 8);
        x[0] = tamm_tensor_nblocks(X, 0);
    }
    tamm_tensor_scatter(X, pw); /* given the tensor, not data the task reads: not warned */
}
// EXPECT: warn_read_changed.c:24:33: warning: this store to 'pw[k]' comes after the task at line 19 was submitted, with no taskwait between, and that task reads 'pw[k]' at line 22: it may run after this store and see the new value (the plain build ran it at once and saw the old one); add '#pragma tamm taskwait' before this store, or pass the data in a tensor block
// EXPECT: warn_read_changed.c:31:5: warning: this store to 'p->coef' comes after the task at line 26 was submitted, with no taskwait between, and that task reads what 'p' points to (it passes 'p' to scaled() at line 29): it may run after this store and see the new value (the plain build ran it at once and saw the old one); add '#pragma tamm taskwait' before this store, or pass the data in a tensor block
// EXPECT: warn_read_changed.c:38:5: warning: this store to 'g_bias' comes after the task at line 33 was submitted, with no taskwait between, and that task reads 'g_bias' in biased(), called at line 36: it may run after this store and see the new value (the plain build ran it at once and saw the old one); add '#pragma tamm taskwait' before this store, or pass the data in a tensor block
// EXPECT: warn_read_changed.c:45:12: warning: this call, which passes 'p' to memset() and may store through it, comes after the task at line 40 was submitted, with no taskwait between, and that task reads 'p->coef' at line 43: it may run after this call and see the new value (the plain build ran it at once and saw the old one); add '#pragma tamm taskwait' before this call, or pass the data in a tensor block
// EXPECT: warn_read_changed.c:48:9: warning: this store to 'pw[b]' comes after the task at line 49 was submitted in an earlier iteration of the loop, with no taskwait between, and that task reads 'pw[b + k]' at line 52: it may run after this store and see the new value (the plain build ran it at once and saw the old one); add '#pragma tamm taskwait' before this store, or pass the data in a tensor block
// EXPECT: warn_read_changed.c:64:5: warning: this store to 'p->coef' comes after the task at line 56 was submitted, with no taskwait between, and that task reads 'p->coef' in its nested task at line 58, which reads it when submitted: it may run after this store and see the new value (the plain build ran it at once and saw the old one); add '#pragma tamm taskwait' before this store, or pass the data in a tensor block
