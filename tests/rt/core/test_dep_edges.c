/*
 * test_dep_edges.c — the dependence edges the runtime records (TAMM_DAG), block by block:
 * on every block of a 1-D tensor of 5 blocks and of a 2-D tensor of 3x3 blocks, the
 * sequence W R R W A A R (write, read, accumulate) gives exactly the edges of the
 * "Submission FSM" table of docs/runtime.md "Dependences":
 *     W1 -> R2, W1 -> R3, R2 -> W4, R3 -> W4, W4 -> A5, W4 -> A6, A5 -> R7, A6 -> R7
 * and no other (readers join readers, accumulators join accumulators, blocks are
 * independent).  The edges are recorded at submission, so the check does not depend on
 * timing: a dependence dropped on one block only (a read not waiting for the write of
 * block 1 before it, tests/mutants/dep_read_after_write.patch) is found here, where
 * test_dep_rt's timed cells on block 0 and the value checks of the random DAGs can miss it.
 */
#include "tamm_util.h"
#include "dag.h"
#include "perm.h"
#include "task.h"

#define SEQ 7
#define MAXB 16

/* [tensor][block][k]: the id of the k-th task of the block's sequence (from its body) */
static atomic_ullong ids[2][MAXB][SEQ];

typedef struct { int tn, blk, k; } targ;

static void body(tamm_ctx *ctx, void *vp)
{
    const targ *a = vp;
    atomic_store(&ids[a->tn][a->blk][a->k], (unsigned long long)ctx->task->id);
}

static const unsigned seq_mode[SEQ] = { TAMM_WRITE, TAMM_READ, TAMM_READ, TAMM_WRITE, TAMM_ACCUM, TAMM_ACCUM, TAMM_READ };
/* the expected edges, as positions in the sequence */
static const int want[][2] = { { 0, 1 }, { 0, 2 }, { 1, 3 }, { 2, 3 }, { 3, 4 }, { 3, 5 }, { 4, 6 }, { 5, 6 } };
#define NWANT ((int)(sizeof want / sizeof want[0]))

static int has_edge(const tamm__edge *e, size_t n, uint64_t from, uint64_t to)
{
    for (size_t i = 0; i < n; i++)
        if (e[i].from == from && e[i].to == to) return 1;
    return 0;
}

static int child(void *vp)
{
    (void)vp;
    tu_init();
    tamm_tensor *V = tu_vec("EdgeV", 5, 4);
    size_t dims[2] = { 6, 6 }, tile[2] = { 2, 2 };
    tamm_tensor *M = tamm_tensor_create("EdgeM", TAMM_I64, 2, dims, tile);
    CHECK_NOTNULL(V);
    CHECK_NOTNULL(M);
    if (!V || !M) return 0;
    int nb[2] = { 5, 9 };
    /* the sequences of the blocks interleaved: block b's k-th task after every block's (k-1)-th */
    for (int k = 0; k < SEQ; k++)
        for (int tn = 0; tn < 2; tn++)
            for (int b = 0; b < nb[tn]; b++) {
                targ a = { tn, b, k };
                tamm_ref r = tn == 0 ? tu_ref1(V, seq_mode[k] | TAMM_PERMISSION_ONLY, b)
                                     : tu_ref2(M, seq_mode[k] | TAMM_PERMISSION_ONLY, b / 3, b % 3);
                tamm_task t = tu_task(body, &a, sizeof a, &r, 1, "edge", __FILE__, __LINE__);
                CHECK_EQ_INT(tamm_submit(NULL, &t), TAMM_OK);
            }
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    size_t n = 0;
    const tamm__edge *e = tamm__dag_edges(&n);
    CHECK_EQ_INT((long)n, (long)(NWANT * (5 + 9)));
    for (int tn = 0; tn < 2; tn++)
        for (int b = 0; b < nb[tn]; b++) {
            uint64_t id[SEQ];
            for (int k = 0; k < SEQ; k++) {
                id[k] = atomic_load(&ids[tn][b][k]);
                CHECK_MSG(id[k] != 0, "%s block %d: task %d has no id (did it run, is TAMM_DAG on?)",
                          tn ? "EdgeM" : "EdgeV", b, k + 1);
            }
            for (int w = 0; w < NWANT; w++)
                CHECK_MSG(has_edge(e, n, id[want[w][0]], id[want[w][1]]),
                          "%s block %d: no edge from task %d (%s) to task %d (%s) of its sequence W R R W A A R",
                          tn ? "EdgeM" : "EdgeV", b, want[w][0] + 1, tamm__perm_name(seq_mode[want[w][0]]),
                          want[w][1] + 1, tamm__perm_name(seq_mode[want[w][1]]));
        }
    TU_FINALIZE();
    return 0;
}

int main(void)
{
    /* one worker and four: the edges are the same (recorded at submission) */
    char dag[] = "TAMM_DAG=/dev/null";
    const char *env1[] = { "TAMM_NUM_WORKERS=1", dag, NULL };
    const char *env4[] = { "TAMM_NUM_WORKERS=4", dag, NULL };
    h_context("1 worker");
    run_test_child("edges, 1 worker", child, NULL, env1, 25);
    h_context("4 workers");
    run_test_child("edges, 4 workers", child, NULL, env4, 25);
    h_context(NULL);
    return test_summary();
}
