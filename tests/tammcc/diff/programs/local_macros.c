/*
 * local_macros.c — macros written inside a function and used by its tasks,
 * whose code tammcc outlines before the function: a function-like and an
 * object-like #define in main() (in a task body and in a clause's index), a
 * file-scope macro #undef'd and redefined in main() (tasks before and after
 * see different definitions), #pragma push_macro / pop_macro in main() (also
 * around the last task), a
 * #define inside a task body (used there and by the code after the task), one
 * in a parent task's body used by its child, #if branches skipped and taken,
 * and a function after main() that uses a macro main() defines.
 * Differential test.
 */
#include <tamm.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#define MOD ((int64_t)1000000007)
#define STEP 3

static int64_t after_main(int64_t x);

static int64_t digest(const int64_t *a, size_t n)
{
    int64_t h = 0;
    for (size_t k = 0; k < n; k++)
        h = (h * 31 + a[k]) % MOD;
    return h;
}

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK)
        return 1;
    size_t dv[1] = {40}, tv[1] = {8}; /* 5 blocks */
    tamm_tensor *V = tamm_tensor_create("V", TAMM_I64, 1, dv, tv);
    if (!V)
        return 1;
    long nv = tamm_tensor_nblocks(V, 0);
#define EXT(b) tamm_block_extent(V, 0, (b))
#define FIRST 0

    for (long b = 0; b < nv; b++) {
        #pragma tamm task
        {
            int64_t *v = tamm_block(V, b);
            for (size_t k = 0; k < EXT(b); k++)
                v[k] = (int64_t)(b * 10) + (int64_t)k * STEP; /* STEP is 3 here */
        }
    }
    #pragma tamm task readwrite(V[FIRST])
    {
        int64_t *v = tamm_block(V, FIRST);
        v[0] += STEP;
    }
#undef STEP
#define STEP 5
    for (long b = 0; b < nv; b++) {
        #pragma tamm task
        {
            int64_t *v = tamm_block(V, b);
            for (size_t k = 0; k < EXT(b); k++)
                v[k] = (v[k] * STEP + 1) % MOD; /* STEP is 5 here */
        }
    }
#pragma push_macro("STEP")
#undef STEP
#define STEP 7
    #pragma tamm task
    {
        int64_t *v = tamm_block(V, 1);
        v[1] += STEP; /* 7 */
    }
#pragma pop_macro("STEP")
    #pragma tamm task
    {
        int64_t *v = tamm_block(V, 2);
        v[2] += STEP; /* 5 again */
    }
#if 0
#define TWICE(x) ((x) * 3)
#else
#define TWICE(x) ((x) * 2)
#endif
    #pragma tamm task
    {
#define INNER 11
        int64_t *v = tamm_block(V, 3);
        v[3] = TWICE(v[3]) + INNER;
    }
    int64_t inner = INNER; /* defined in the task body above */
    #pragma tamm task label("parent")
    {
#define CHILD_ADD 13
        for (long b = 0; b < nv; b++) {
            #pragma tamm task
            {
                int64_t *v = tamm_block(V, b);
                v[0] += CHILD_ADD + inner;
            }
        }
    }
#pragma push_macro("FIRST")
#undef FIRST
#define FIRST 4
    #pragma tamm task
    {
        int64_t *v = tamm_block(V, FIRST); /* V[4]; the last task: push_macro not yet popped */
        v[1] += FIRST;
    }
#pragma pop_macro("FIRST")
    #pragma tamm taskwait
    for (long b = FIRST; b < nv; b++) /* FIRST is 0 again */
        printf("V[%ld] %" PRId64 "\n", b, digest(tamm_block(V, b), EXT(b)));
    printf("after main: %" PRId64 "\n", after_main(1));
    tamm_finalize();
    return 0;
}

static int64_t after_main(int64_t x)
{
    return TWICE(x) + STEP + CHILD_ADD; /* the definitions main() left in effect */
}
