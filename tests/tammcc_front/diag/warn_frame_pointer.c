#include <tamm.h>

/* A task in a function other than main captures a pointer local of that
 * function: the function may return before the task runs, and its frame with
 * it (docs/language.md, "Pointers into a parent's frame").  A taskwait after
 * the task, a pointer parameter (the caller's memory) or main's frame: no
 * warning. */
static void late(tamm_tensor *R, long i)
{
    long v = i * 2;
    long *p = &v;
#pragma tamm task
    {
        long *r = tamm_block(R, i);
        r[0] = *p;
    }
}
// EXPECT: warn_frame_pointer.c:12:1: warning: the task captures 'p' (declared at line 11), which may point into the frame of late(); late() may return before the task runs: add '#pragma tamm taskwait' before it returns, or point into memory that outlives the task

static void waited(tamm_tensor *R, long i)
{
    long v = i * 3;
    long *p = &v;
#pragma tamm task
    {
        long *r = tamm_block(R, i);
        r[0] = *p;
    }
#pragma tamm taskwait
}

static void from_caller(tamm_tensor *R, long i, const long *p)
{
#pragma tamm task
    {
        long *r = tamm_block(R, i);
        r[0] = *p;
    }
}

int main(int argc, char **argv)
{
    tamm_init(&argc, &argv);
    size_t dims[1] = {4}, tile[1] = {1};
    tamm_tensor *R = tamm_tensor_create("R", TAMM_I64, 1, dims, tile);
    long w = 9;
    long *q = &w;
    late(R, 0);
    waited(R, 1);
    from_caller(R, 2, q);
#pragma tamm task
    {
        long *r = tamm_block(R, 3);
        r[0] = *q;
    }
#pragma tamm taskwait
    return tamm_finalize() == TAMM_OK ? 0 : 1;
}
