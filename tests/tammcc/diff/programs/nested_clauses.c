/*
 * nested_clauses.c — nested tasks whose clauses name variables of main() that
 * their parents' bodies do not otherwise use: the parent submits the child from
 * its outlined code, so it must capture them (the indices of the child's access
 * and permission clauses, priority, if; a grandchild's clause variable must
 * travel through both ancestors).  Differential test.
 */
#include <tamm.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#define MOD ((int64_t)1000000007)

static void bump(int64_t *a, const int64_t *b, size_t n)
{
    for (size_t k = 0; k < n; k++)
        a[k] = (a[k] * 7 + b[k % 4] + 1) % MOD;
}

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK)
        return 1;
    size_t dv[1] = {32}, tv[1] = {4}; /* 8 blocks */
    tamm_tensor *V = tamm_tensor_create("V", TAMM_I64, 1, dv, tv);
    if (!V)
        return 1;
    long nv = tamm_tensor_nblocks(V, 0);
    for (long b = 0; b < nv; b++) {
        #pragma tamm task write(V[b])
        {
            int64_t *v = tamm_block(V, b);
            for (long k = 0; k < 4; k++)
                v[k] = b * 4 + k;
        }
    }
    long src = 5, dst = 2, prio = 3, undeferred = 0, deep = 6, deep_prio = 1;
    (void)prio; /* only in clauses: unused in the plain build */
    (void)undeferred;
    (void)deep_prio;
    #pragma tamm task permission(readwrite: V) label("parent")
    {
        for (int r = 0; r < 3; r++) {
            #pragma tamm task readwrite(V[dst]) read(V[src]) priority((int)prio) if(!undeferred)
            bump(tamm_block(V, dst), tamm_block(V, src), 4);
        }
        #pragma tamm task permission(readwrite: V) label("middle")
        {
            #pragma tamm task readwrite(V[deep]) read(V[src]) priority((int)deep_prio)
            bump(tamm_block(V, deep), tamm_block(V, src), 4);
        }
    }
    #pragma tamm taskwait
    for (long b = 0; b < nv; b++) {
        const int64_t *v = tamm_block(V, b);
        printf("V[%ld] %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 "\n", b, v[0], v[1], v[2], v[3]);
    }
    tamm_finalize();
    return 0;
}
