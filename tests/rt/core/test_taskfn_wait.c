/*
 * test_taskfn_wait.c — tamm_cc_taskwait, the taskwait of task functions
 * (include/tamm_cc.h): at top level it waits for every task; inside a running
 * task it returns only when that task's children (submitted so far, directly
 * or by functions it called) have completed, while the worker runs other
 * tasks; a task that still holds a block buffer is refused with an error
 * naming it, and so is nesting deeper than the limit.  Through the explicit
 * API only (no tammcc), at 1, 2 and 4 workers.
 */
#include "harness.h"
#include "tamm_util.h"
#include <tamm_cc.h>

#define N 24          /* leaves per tree */
static tamm_tensor *gV;
static atomic_int g_done[N];   /* leaf k completed */

typedef struct { long lo, hi; } range;

static void leaf(tamm_ctx *ctx, void *vp)
{
    const range *r = vp;
    int64_t *b = tamm_get_buf_write(ctx, gV, (const long[]){ r->lo });
    h_sleep_ms((int)(r->lo % 3)); /* children finish in varying orders */
    b[0] = r->lo + 1;
    tamm_release_put(ctx, b);
    atomic_store(&g_done[r->lo], 1);
}

/* a task function: called from a task, its submissions are that task's
 * children, and its taskwait waits for them */
static void tree(tamm_ctx *ctx, void *vp);
static void split(long lo, long hi)
{
    if (hi - lo == 1) {
        range r = { lo, hi };
        TCHECK(TU_SUBMIT(NULL, leaf, &r, "leaf", tu_ref1(gV, TAMM_WRITE, lo)) == TAMM_OK);
        return;
    }
    long mid = (lo + hi) / 2;
    range a = { lo, mid }, b = { mid, hi };
    tamm_ref pa = tu_ref_all(gV, TAMM_READWRITE | TAMM_PERMISSION_ONLY);
    TCHECK(tu_submit_at(NULL, tree, &a, sizeof a, &pa, 1, "tree", __FILE__, __LINE__) == TAMM_OK);
    TCHECK(tu_submit_at(NULL, tree, &b, sizeof b, &pa, 1, "tree", __FILE__, __LINE__) == TAMM_OK);
    TCHECK(tamm_cc_taskwait() == TAMM_OK);
    for (long k = lo; k < hi; k++) TCHECK_MSG(atomic_load(&g_done[k]), "leaf %ld not done after the taskwait", k);
}

static void tree(tamm_ctx *ctx, void *vp)
{
    (void)ctx;
    const range *r = vp;
    split(r->lo, r->hi);
}

static void scenario_tree(void)
{
    gV = tu_vec("V", N, 1);
    for (int k = 0; k < N; k++) atomic_store(&g_done[k], 0);
    range all = { 0, N };
    tamm_ref pa = tu_ref_all(gV, TAMM_READWRITE | TAMM_PERMISSION_ONLY);
    CHECK_EQ_INT(tu_submit_at(NULL, tree, &all, sizeof all, &pa, 1, "root", __FILE__, __LINE__), TAMM_OK);
    /* at top level tamm_cc_taskwait is tamm_wait_all */
    CHECK_EQ_INT(tamm_cc_taskwait(), TAMM_OK);
    int done = 0;
    for (int k = 0; k < N; k++) done += atomic_load(&g_done[k]);
    CHECK_EQ_INT(done, N);
    for (long k = 0; k < N; k++) CHECK_EQ_INT((int)*(const int64_t *)tamm_block(gV, k), (int)k + 1);
    CHECK_TASKS_OK();
    tamm_tensor_destroy(gV);
}

/* a task holding a buffer may not wait for children that could need it */
static void holder(tamm_ctx *ctx, void *vp)
{
    (void)vp;
    int64_t *b = tamm_get_buf_readwrite(ctx, gV, (const long[]){ 0 });
    int rc = tamm_cc_taskwait();
    TCHECK_MSG(rc == TAMM_ESTATE, "taskwait while holding a buffer returned %d", rc);
    tamm_release_put(ctx, b);
}

/* nesting deeper than the limit is an error, not a stack overflow */
static atomic_int g_deep_rc;
static void deep(tamm_ctx *ctx, void *vp)
{
    (void)ctx;
    int d = *(const int *)vp;
    int next = d + 1;
    tamm_ref pa = tu_ref_all(gV, TAMM_READ | TAMM_PERMISSION_ONLY);
    if (d < 600) TCHECK(tu_submit_at(NULL, deep, &next, sizeof next, &pa, 1, "deep", __FILE__, __LINE__) == TAMM_OK);
    int rc = tamm_cc_taskwait();
    if (rc != TAMM_OK) atomic_store(&g_deep_rc, rc);
}

static void scenario_errors(void)
{
    gV = tu_vec("V", 2, 1);
    CHECK_EQ_INT(TU_SUBMIT(NULL, holder, &(int){ 0 }, "holder", tu_ref1(gV, TAMM_READWRITE, 0)), TAMM_OK);
    (void)tamm_wait_all();
    CHECK_TASKS_OK();
    atomic_store(&g_deep_rc, 0);
    int d0 = 0;
    tamm_ref pa = tu_ref_all(gV, TAMM_READ | TAMM_PERMISSION_ONLY);
    CHECK_EQ_INT(tu_submit_at(NULL, deep, &d0, sizeof d0, &pa, 1, "deep", __FILE__, __LINE__), TAMM_OK);
    (void)tamm_wait_all();
    CHECK_TASKS_OK();
    /* with one worker every level nests on its stack: the limit is reached */
    const char *w = getenv("TAMM_NUM_WORKERS");
    if (w && !strcmp(w, "1")) CHECK_EQ_INT(atomic_load(&g_deep_rc), TAMM_ENOTSUP);
    tamm_tensor_destroy(gV);
}

/* a taskwait whose children can never run (one waits for a fence nobody signals) is an error
 * naming the waiting task, not a hang */
static tamm_fence *g_never;
static atomic_int g_stuck_rc;
static void stuck_child(tamm_ctx *ctx, void *vp) { (void)ctx; (void)vp; }
static void stuck_parent(tamm_ctx *ctx, void *vp)
{
    (void)vp;
    tamm_task c = tu_task(stuck_child, NULL, 0, NULL, 0, "stuck_child", __FILE__, __LINE__);
    tamm_task_opts o;
    memset(&o, 0, sizeof o);
    o.wait = &g_never;
    o.nwait = 1;
    TCHECK(tamm_submit_ex(ctx, &c, &o) == TAMM_OK);
    atomic_store(&g_stuck_rc, tamm_cc_taskwait());
}

static int child_stuck(void *arg)
{
    (void)arg;
    tu_init();
    g_never = tamm_fence_create();
    tamm_task p = tu_task(stuck_parent, NULL, 0, NULL, 0, "stuck_parent", "tf.c", 7);
    CHECK_EQ_INT(tamm_submit(NULL, &p), TAMM_OK);
    (void)tamm_wait_all(); /* the child still waits for the fence */
    CHECK_EQ_INT(atomic_load(&g_stuck_rc), TAMM_EDEADLOCK);
    (void)tamm_finalize();
    return 0;
}

static int child_tree(void *arg)
{
    (void)arg;
    tu_init();
    for (int round = 0; round < 5; round++) scenario_tree();
    TU_FINALIZE();
    return 0;
}

static int child_errors(void *arg)
{
    (void)arg;
    tu_init();
    scenario_errors();
    (void)tamm_finalize();
    return 0;
}

int main(void)
{
    static const char *const workers[] = { "TAMM_NUM_WORKERS=1", "TAMM_NUM_WORKERS=2", "TAMM_NUM_WORKERS=4" };
    for (int k = 0; k < 3; k++) {
        const char *env[] = { workers[k], NULL };
        h_context("%s", workers[k]);
        run_test_child("tree of task functions", child_tree, NULL, env, 120);
    }
    static char errbuf[H_ERRBUF_SIZE];
    static h_status st;
    const char *env[] = { "TAMM_NUM_WORKERS=1", "TAMM_ON_ERROR=return", NULL };
    h_context("errors");
    if (run_child(child_errors, NULL, env, 120, &st, errbuf) == 0) {
        h__merge_counts(&st);
        CHECK(child_ok(&st));
        CHECK_CONTAINS(errbuf, "task 'holder'");
        CHECK_CONTAINS(errbuf, "still holds 1 block buffer");
        CHECK_CONTAINS(errbuf, "task 'deep'");
        CHECK_CONTAINS(errbuf, "nest 513 deep on one worker");
    } else {
        CHECK_MSG(0, "could not run the error child");
    }
    h_context("a taskwait whose children can never run");
    if (run_child(child_stuck, NULL, env, 60, &st, errbuf) == 0) {
        h__merge_counts(&st);
        CHECK(child_ok(&st));
        CHECK_CONTAINS(errbuf, "tamm: error: task 'stuck_parent' (tf.c:7): a taskwait in a task function: the task's "
                               "children can never run");
    } else {
        CHECK_MSG(0, "could not run the stuck child");
    }
    return test_summary();
}
