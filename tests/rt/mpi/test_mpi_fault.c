/*
 * test_mpi_fault.c MODE — programs that go wrong on one rank, for
 * fault.sh: each run must end (never hang) with a non-zero status and a
 * message naming the rank at fault.
 *   error   a task on rank 1 misuses a buffer: rank 1 stops on the error, the
 *           others stop saying rank 1 failed
 *   kill    a task on rank 1 kills its process (SIGKILL): the launcher stops
 *           the others and names rank 1
 *   extra   rank 1 submits one task more than the others
 *   order   rank 1 submits two tasks in the other order
 *   block   rank 0 alone calls tamm_block on a block rank 1 owns, then all finalize
 *   cross   rank 0 and rank 1 each wait in tamm_block for a different block
 *           (no synchronisation point is ever reached: found by the stall probe)
 *   fence   rank 0 alone submits an execution fence (tamm_fence_submit)
 *   barrier rank 0 alone calls tamm_barrier (it waits for ranks that never come)
 *   ok      nothing goes wrong (the script checks that this one passes)
 */
#include <tamm.h>

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef struct { tamm_tensor *T; long i; int how; } args;

static void body(tamm_ctx *ctx, void *va)
{
    args *a = va;
    long idx[1] = { a->i };
    int64_t *p = tamm_get_buf_readwrite(ctx, a->T, idx);
    p[0] += a->i + 1;
    tamm_release_put(ctx, p);
    if (a->how == 1) {
        static char bogus[8];
        tamm_release_put(ctx, bogus); /* not a buffer of this task: TAMM_EBUF, the rank stops */
    } else if (a->how == 2) {
        kill(getpid(), SIGKILL);
    }
}

static void task(tamm_tensor *T, long i, int rank, int how)
{
    args a = { T, i, how };
    tamm_ref r;
    memset(&r, 0, sizeof r);
    r.tensor = T;
    r.nidx = 1;
    r.idx[0] = i;
    r.mode = TAMM_READWRITE;
    tamm_task t;
    memset(&t, 0, sizeof t);
    t.cpu = body;
    t.args = &a;
    t.args_size = sizeof a;
    t.refs = &r;
    t.nrefs = 1;
    t.rank = rank;
    t.label = "fault";
    t.file = __FILE__;
    t.line = __LINE__;
    tamm_submit(NULL, &t);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "ok";
    if (tamm_init(&argc, &argv) != TAMM_OK) return 2;
    int me = tamm_rank();
    size_t d = 64, tile = 4;
    tamm_tensor *T = tamm_tensor_create("T", TAMM_I64, 1, &d, &tile); /* 16 blocks, block i on rank i % P */
    for (long i = 0; i < 16; i++) task(T, i, -1, 0);
    tamm_wait_all();
    if (!strcmp(mode, "error")) task(T, 3, 1, 1);
    if (!strcmp(mode, "kill")) task(T, 3, 1, 2);
    if (!strcmp(mode, "extra") && me == 1) task(T, 0, -1, 0);
    if (!strcmp(mode, "order")) {
        task(T, me == 1 ? 5 : 2, -1, 0);
        task(T, me == 1 ? 2 : 5, -1, 0);
    }
    if (!strcmp(mode, "block") && me == 0) (void)tamm_block(T, 1);
    if (!strcmp(mode, "cross") && me < 2) (void)tamm_block(T, me == 0 ? 1 : 0);
    if (!strcmp(mode, "fence") && me == 0) (void)tamm_fence_submit();
    if (!strcmp(mode, "barrier") && me == 0) (void)tamm_barrier();
    for (long i = 0; i < 16; i++) task(T, i, -1, 0);
    tamm_wait_all();
    const int64_t *p = tamm_block(T, 7);
    printf("rank %d: T[7][0] = %lld\n", me, (long long)p[0]);
    tamm_finalize();
    return 0;
}
