#include <tamm.h>

/* A task in a function other than main captures a pointer local of that
 * function, or the function passes a pointer to its local to a function that
 * submits tasks: the function may return before the task runs, and its frame
 * with it (docs/language.md, "Pointers into a parent's frame").  A taskwait
 * after the task or call, a pointer parameter passed on (the caller's memory)
 * or main's frame: no warning. */
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
// EXPECT: warn_frame_pointer.c:13:1: warning: the task captures 'p' (declared at line 12), which may point into the frame of late(); late() may return before the task runs: add '#pragma tamm taskwait' before it returns, or point into memory that outlives the task

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

static void pass_local(tamm_tensor *R, long i)
{
    long u = i + 1;
    from_caller(R, i, &u);
}
// EXPECT: warn_frame_pointer.c:45:5: warning: the call of from_caller passes a pointer to 'u' (declared at line 44) to the tasks it submits; pass_local() may return before they run: add '#pragma tamm taskwait' before it returns, or point into memory that outlives the tasks

static void pass_waited(tamm_tensor *R, long i)
{
    long u = i + 2;
    from_caller(R, i, &u);
#pragma tamm taskwait
}

static void pass_on(tamm_tensor *R, long i, const long *p)
{
    from_caller(R, i, p);
}

int main(int argc, char **argv)
{
    tamm_init(&argc, &argv);
    size_t dims[1] = {8}, tile[1] = {1};
    tamm_tensor *R = tamm_tensor_create("R", TAMM_I64, 1, dims, tile);
    long w = 9;
    long *q = &w;
    late(R, 0);
    waited(R, 1);
    from_caller(R, 2, q);
    pass_local(R, 4);
    pass_waited(R, 5);
    pass_on(R, 6, q);
#pragma tamm task
    {
        long *r = tamm_block(R, 3);
        r[0] = *q;
    }
#pragma tamm taskwait
    return tamm_finalize() == TAMM_OK ? 0 : 1;
}
