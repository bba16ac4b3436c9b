/* frames_nqueens.c — BOTS nqueens written the OpenMP way (issue 27 item 10):
 * each task builds the board prefix in a variable-length array of its own
 * body and passes a pointer to it down to a task function whose tasks
 * capture that pointer; no task body waits for its children.  The plain
 * build ran every child at once, while the prefix was alive: tammcc must keep
 * the parent's frame until its children have completed.  The count goes to
 * a tensor block (accum). */
#include <tamm.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define NQ 9 /* board size: 352 solutions */

static tamm_tensor *C; /* C[0]: the solutions counted */

/* the first n queens of board a attack no other */
static int ok(int n, const char *a)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++) {
            int p = a[i], q = a[j];
            if (q == p || q == p - (i - j) || q == p + (i - j)) return 0;
        }
    return 1;
}

/* count the boards of size n that extend the prefix a of j queens */
static void nqueens(int n, int j, const char *a)
{
    if (n == j) {
#pragma tamm task
        {
            int64_t *c = tamm_block(C, 0);
            c[0] += 1;
        }
        return;
    }
    for (int i = 0; i < n; i++) {
#pragma tamm task
        {
            char b[n]; /* the parent's prefix, copied into this task's frame */
            memcpy(b, a, (size_t)j);
            b[j] = (char)i;
            if (ok(j + 1, b)) nqueens(n, j + 1, b);
        }
    }
}

int main(int argc, char **argv)
{
    tamm_init(&argc, &argv);
    size_t one[1] = {1};
    C = tamm_tensor_create("C", TAMM_I64, 1, one, one);
    int64_t *c = tamm_block(C, 0);
    c[0] = 0;
    char board[NQ];
    nqueens(NQ, 0, board);
#pragma tamm taskwait
    c = tamm_block(C, 0);
    printf("queens %d: %" PRId64 " solutions\n", NQ, c[0]);
    return tamm_finalize() == TAMM_OK ? 0 : 1;
}
