/*
 * parent_touch.c — a task body that touches a block itself and then, before any
 * taskwait, submits nested tasks that touch the same block (the body does not
 * touch it again until after a taskwait).  This is valid under sequential
 * elision; the implementation must not let the parent's hold on the block
 * (obtained by its own tamm_block) conflict with the child's access, e.g. by
 * releasing the parent's buffer before the child is submitted, or by making
 * the child wait for it.  Also: a loop whose body reads a block after a
 * taskwait and whose next iteration's children write that block.
 * Differential test.
 */
#include <tamm.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#define MOD ((int64_t)1000000007)

static void step(int64_t *a, size_t n, int64_t c)
{
    for (size_t k = 0; k < n; k++)
        a[k] = (a[k] * 3 + c) % MOD;
}

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK)
        return 1;
    size_t d[1] = {12}, t[1] = {4};
    tamm_tensor *A = tamm_tensor_create("A", TAMM_I64, 1, d, t);
    size_t ds[1] = {4}, ts[1] = {1};
    tamm_tensor *S = tamm_tensor_create("S", TAMM_I64, 1, ds, ts);
    if (!A || !S)
        return 1;
    for (long b = 0; b < 3; b++) {
        #pragma tamm task
        step(tamm_block(A, b), tamm_block_extent(A, 0, b), b + 1);
    }
    /* touch, then a child on the same block, then taskwait, then touch again */
    for (long b = 0; b < 3; b++) {
        #pragma tamm task label("touch_then_child")
        {
            int64_t *a = tamm_block(A, b);
            a[0] = (a[0] * 5 + 1) % MOD;
            #pragma tamm task label("child")
            step(tamm_block(A, b), tamm_block_extent(A, 0, b), 7);
            #pragma tamm taskwait
            int64_t *s = tamm_block(S, b);
            s[0] = ((const int64_t *)tamm_block(A, b))[0];
        }
    }
    /* read after a taskwait, then the next iteration's children write that block */
    #pragma tamm task label("loop")
    {
        int64_t acc = 0;
        for (int it = 0; it < 3; it++) {
            for (long b = 0; b < 3; b++) {
                #pragma tamm task label("loop_child")
                step(tamm_block(A, b), tamm_block_extent(A, 0, b), it);
            }
            #pragma tamm taskwait
            acc = (acc * 31 + ((const int64_t *)tamm_block(A, it))[1]) % MOD;
        }
        int64_t *s = tamm_block(S, 3);
        s[0] = acc;
    }
    #pragma tamm taskwait
    for (long i = 0; i < 4; i++)
        printf("S[%ld] = %" PRId64 "\n", i, *(const int64_t *)tamm_block(S, i));
    for (long b = 0; b < 3; b++) {
        const int64_t *a = tamm_block(A, b);
        printf("A[%ld] = %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 "\n", b, a[0], a[1], a[2], a[3]);
    }
    tamm_finalize();
    return 0;
}
