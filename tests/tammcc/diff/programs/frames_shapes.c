/* frames_shapes.c — children that reach their parent task's frame through a
 * pointer (issue 27 item 10), in the small shapes the plain build accepts
 * because it runs every child at once:
 *   - a child captures p = &v, v a local of its parent's body;
 *   - a child captures a pointer to a local array of its parent's body;
 *   - a parent passes its captured copy of an array to a task function whose
 *     task captures the pointer parameter;
 *   - a child captures a pointer to a local of a loop iteration's block;
 *   - a child captures a pointer into the body, then the parent waits and
 *     reads what the child wrote (a continuation);
 *   - a child captures a pointer, declared before a loop, to the loop's own
 *     variable (declared in the for statement).
 * No parent body ends with a taskwait: tammcc must keep each frame until the
 * children that may point into it have completed. */
#include <tamm.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#define NK 6 /* parent tasks per shape */
#define NR 3 /* loop iterations of the fourth shape */

static tamm_tensor *R; /* one block per child */

/* R[slot] = x[0] + 2 x[1] + 3 x[2] + 4 x[3], in a task that captures x */
static void put_sum(long slot, const int64_t *x)
{
#pragma tamm task
    {
        int64_t *r = tamm_block(R, slot);
        r[0] = x[0] + 2 * x[1] + 3 * x[2] + 4 * x[3];
    }
}

int main(int argc, char **argv)
{
    tamm_init(&argc, &argv);
    size_t dims[1] = {NK * (5 + 2 * NR)}, tile[1] = {1};
    R = tamm_tensor_create("R", TAMM_I64, 1, dims, tile);
    int64_t src[4] = {5, 7, 11, 13};
    for (long k = 0; k < NK; k++) {
#pragma tamm task
        {
            int64_t v = k * 3 + 1;
            int64_t *p = &v;
#pragma tamm task
            {
                int64_t *r = tamm_block(R, k);
                r[0] = *p;
            }
        }
#pragma tamm task
        {
            int64_t arr[4];
            for (int e = 0; e < 4; e++) arr[e] = k * 100 + e;
            const int64_t *q = arr;
#pragma tamm task
            {
                int64_t *r = tamm_block(R, NK + k);
                r[0] = q[0] + q[1] + q[2] + q[3];
            }
        }
#pragma tamm task
        put_sum(2 * NK + k, src);
#pragma tamm task
        {
            for (long i = 0; i < NR; i++) {
                int64_t w = k * 10 + i;
                const int64_t *pw = &w;
#pragma tamm task
                {
                    int64_t *r = tamm_block(R, 3 * NK + k * NR + i);
                    r[0] = *pw * *pw;
                }
            }
        }
#pragma tamm task
        {
            int64_t u = k + 1000;
            int64_t *pu = &u;
#pragma tamm task
            {
                int64_t *r = tamm_block(R, (3 + NR) * NK + k);
                r[0] = *pu * 2;
            }
#pragma tamm taskwait
            const int64_t *r = tamm_block(R, (3 + NR) * NK + k);
            int64_t *s = tamm_block(R, (4 + NR) * NK + k);
            s[0] = r[0] + u;
        }
#pragma tamm task
        {
            const long *pv = NULL;
            for (long v = k * 7; v < k * 7 + NR; v++) {
                pv = &v;
#pragma tamm task
                {
                    int64_t *r = tamm_block(R, (5 + NR) * NK + (v - k * 7) * NK + k);
                    r[0] = *pv + 1;
                }
            }
        }
    }
#pragma tamm taskwait
    int64_t sum = 0;
    for (long i = 0; i < NK * (5 + 2 * NR); i++) {
        const int64_t *r = tamm_block(R, i);
        printf("%" PRId64 "%c", r[0], i % NK == NK - 1 ? '\n' : ' ');
        sum += r[0] * (i + 1);
    }
    printf("checksum %" PRId64 "\n", sum);
    return tamm_finalize() == TAMM_OK ? 0 : 1;
}
