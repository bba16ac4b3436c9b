/*
 * guarded.c — guarded blocks (docs/language.md "Guarded blocks"): a block stencil whose neighbour
 * blocks exist only inside the grid, written with every guard form tammcc
 * follows: `?:`, `if`/`else`, `&&`, `||`; a guard on a variable of the task
 * body (the block is then fetched synchronously); guards around nested tasks
 * (the parent's permission is guarded too); a guarded block after a taskwait
 * (a continuation); a parent's own guarded uses beside children that need
 * the same blocks under other conditions.  At the boundary the neighbour is outside the tensor, so
 * requesting it unconditionally at submission stops the run.  Several sweeps
 * with the two tensors swapped.  Differential test.
 */
#include <tamm.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#define N 11   /* elements per dimension: 4 blocks of 3, the last one 2 wide */
#define TB 3
#define MOD ((int64_t)1000003)

/* the sum of a block's n elements (0 for a missing block) */
static int64_t bsum(const int64_t *p, size_t n)
{
    int64_t s = 0;
    for (size_t k = 0; p && k < n; k++)
        s = (s + p[k]) % MOD;
    return s;
}

static void combine(int64_t *c, const int64_t *a, size_t n, int64_t add)
{
    for (size_t k = 0; k < n; k++)
        c[k] = (a[k] * 3 + c[k] + add + (int64_t)k) % MOD;
}

static size_t elems(tamm_tensor *T, long i, long j)
{
    return tamm_block_extent(T, 0, i) * tamm_block_extent(T, 1, j);
}

static void print(const char *what, tamm_tensor *T, long nb)
{
    printf("%s:", what);
    for (long i = 0; i < nb; i++)
        for (long j = 0; j < nb; j++)
            printf(" %" PRId64, bsum(tamm_block(T, i, j), elems(T, i, j)));
    printf("\n");
}

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK)
        return 1;
    size_t d[2] = {N, N}, t[2] = {TB, TB};
    tamm_tensor *A = tamm_tensor_create("A", TAMM_I64, 2, d, t);
    tamm_tensor *B = tamm_tensor_create("B", TAMM_I64, 2, d, t);
    if (!A || !B)
        return 1;
    long nb = tamm_tensor_nblocks(A, 0);
    for (long i = 0; i < nb; i++)
        for (long j = 0; j < nb; j++) {
            int64_t *a = tamm_block(A, i, j);
            for (size_t k = 0; k < elems(A, i, j); k++)
                a[k] = (i * 7 + j * 3 + (int64_t)k) % 11;
        }

    for (int sweep = 0; sweep < 3; sweep++) {
        for (long I = 0; I < nb; I++)
            for (long J = 0; J < nb; J++) {
                /* the four guard forms; B[I][J] from A's block and its neighbours */
                #pragma tamm task label("stencil")
                {
                    const int64_t *up = I > 0 ? tamm_block(A, I - 1, J) : NULL;
                    const int64_t *dn;
                    if (I + 1 < nb)
                        dn = tamm_block(A, I + 1, J);
                    else
                        dn = NULL;
                    const int64_t *rt = NULL, *lf = NULL;
                    int has_rt = J + 1 < nb && (rt = tamm_block(A, I, J + 1)) != NULL;
                    if (J == 0 || !(lf = tamm_block(A, I, J - 1)))
                        lf = NULL;
                    int64_t add = bsum(up, up ? elems(A, I - 1, J) : 0) + bsum(dn, dn ? elems(A, I + 1, J) : 0) +
                                  (has_rt ? bsum(rt, elems(A, I, J + 1)) : 0) + bsum(lf, lf ? elems(A, I, J - 1) : 0);
                    combine(tamm_block(B, I, J), tamm_block(A, I, J), elems(A, I, J), add % MOD);
                }
                /* a guard on a variable of the body: fetched synchronously */
                #pragma tamm task label("body_guard")
                {
                    int corner = I == nb - 1 && J == nb - 1;
                    int64_t *c = tamm_block(B, I, J);
                    if (!corner) {
                        const int64_t *x = tamm_block(A, I + (I + 1 < nb), J + (I + 1 == nb));
                        c[0] = (c[0] + x[0]) % MOD;
                    }
                }
            }
        /* guards around nested tasks, and a guarded block after a taskwait */
        for (long I = 0; I < nb; I++) {
            #pragma tamm task label("row")
            {
                for (long J = 0; J < nb; J++) {
                    if (I > 0) {
                        #pragma tamm task label("from_above")
                        combine(tamm_block(B, I, J), tamm_block(A, I - 1, J), elems(A, I, J), 1);
                    }
                    #pragma tamm task label("from_below")
                    {
                        const int64_t *dn = I + 1 < nb ? tamm_block(A, I + 1, J) : NULL;
                        int64_t *c = tamm_block(B, I, J);
                        c[1] = (c[1] + bsum(dn, dn ? elems(A, I + 1, J) : 0)) % MOD;
                    }
                }
                #pragma tamm taskwait
                int64_t *c = tamm_block(B, I, 0);
                const int64_t *nx = I + 1 < nb ? tamm_block(B, I + 1, 0) : NULL;
                if (nx)
                    c[0] = (c[0] + nx[0]) % MOD;
            }
        }
        /* a parent's own guarded uses, and children that need the same blocks in the other
         * branch (a whole-tensor slice) or under a condition of the parent's loop */
        for (long I = 0; I < nb; I++) {
            #pragma tamm task label("mixed")
            {
                if (sweep % 2 == 0) {
                    for (long i = 0; i < nb; i++)
                        for (long j = 0; j < nb; j++) {
                            int64_t *p = tamm_block(B, i, j);
                            p[2] = (p[2] + i + j + I) % MOD;
                        }
                } else {
                    for (long i = 0; i < nb; i++)
                        for (long j = 0; j < nb; j++) {
                            #pragma tamm task label("mixed_slice")
                            combine(tamm_block(B, i, j), tamm_block(A, i, j), elems(A, i, j), I);
                        }
                }
            }
            #pragma tamm task label("mixed2")
            {
                if (sweep % 2 == 1)
                    for (long i = 0; i < nb; i++)
                        for (long j = 0; j < nb; j++) {
                            int64_t *p = tamm_block(B, i, j);
                            p[3] = (p[3] + i * j + I) % MOD;
                        }
                if (I > 0) {
                    int64_t *p = tamm_block(B, I, 0);
                    p[0] = (p[0] + 1) % MOD;
                }
                for (long j = 0; j < 2; j++)
                    if (j == 1) {
                        #pragma tamm task label("mixed_child")
                        {
                            int64_t *q = tamm_block(B, I, 0);
                            q[1] = (q[1] + 2) % MOD;
                        }
                    }
            }
        }
        print("B", B, nb);
        tamm_tensor *s = A;
        A = B;
        B = s;
    }
    #pragma tamm taskwait
    print("A", A, nb);
    tamm_tensor_destroy(A);
    tamm_tensor_destroy(B);
    tamm_finalize();
    return 0;
}
