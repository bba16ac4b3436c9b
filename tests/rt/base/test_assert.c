/*
 * test_assert.c — the internal assertions (rt/base/tamm_assert.h, tammcc/cc_assert.h)
 * are live where the build enables them (TAMM_ASSERTIONS=1: Debug and the sanitizer
 * builds) and absent elsewhere, in this program and in the library it links.
 *
 *  - TAMM_ASSERT(e) / CC_ASSERT(e) with a side effect in e: evaluated exactly once with
 *    assertions, never without (compiled out, not merely ignored).
 *  - A broken invariant inside libtammrt: a child makes one start condition of a task
 *    too many satisfied (tamm__task_dep_satisfied on a task whose `deps` is already 0,
 *    the count rt/core/task.c asserts never goes below zero).  With assertions the child
 *    dies of SIGABRT after "tamm: internal error: assertion 'was >= 1' failed at
 *    .../task.c:N (tamm__task_dep_satisfied)"; without them the call returns, silently.
 *  - A failing TAMM_ASSERT / CC_ASSERT in a child prints the documented message and
 *    aborts (with assertions); compiled out, the child exits 0.
 * tests/assert_symbols.sh checks the same at link level (nm): no object of a build
 * without assertions calls tamm__assert_fail or cc_assert_fail.
 */
#include "harness.h"
#include "tamm_assert.h"
#include "task.h"
#ifdef TAMM_TEST_CC_ASSERT
#include "cc_assert.h"
#endif
#include <stdatomic.h>

static int evaluated;
static int touch(void)
{
    evaluated++;
    return 1;
}

/* the child's half: a task record whose start conditions are all satisfied, satisfied once more */
static int child_extra_dep(void *arg)
{
    (void)arg;
    tamm__task_s *t = calloc(1, sizeof *t);
    atomic_init(&t->deps, 0);
    tamm__task_dep_satisfied(t); /* deps 0 -> -1: task_ready is not reached either way */
    int left = atomic_load(&t->deps);
    free(t);
    return left == -1 ? 0 : 4;
}

static int child_tamm_assert(void *arg)
{
    int v = *(int *)arg;
    TAMM_ASSERT(v == 42);
    return 0;
}

#ifdef TAMM_TEST_CC_ASSERT
static int child_cc_assert(void *arg)
{
    int v = *(int *)arg;
    CC_ASSERT(v == 42);
    return 0;
}
#endif

/* One child that breaks an invariant: with assertions it must abort with `msg` (and
 * `where` in it), without them exit 0 printing nothing. */
static void expect(const char *name, h_child_fn fn, void *arg, const char *msg, const char *where)
{
    static char err[H_ERRBUF_SIZE];
    h_status st;
    h_context("%s (TAMM_ASSERTIONS=%d)", name, TAMM_ASSERTIONS);
    CHECK(run_child(fn, arg, NULL, 30, &st, err) == 0);
    if (TAMM_ASSERTIONS) {
        CHECK_MSG(st.signaled && st.sig == SIGABRT, "child did not abort (exited %d, status %d, signal %d)", st.exited,
                  st.code, st.sig);
        CHECK_CONTAINS(err, msg);
        CHECK_CONTAINS(err, where);
    } else {
        CHECK_MSG(st.exited && st.code == 0, "child did not exit 0 (exited %d, status %d, signal %d)", st.exited,
                  st.code, st.sig);
        CHECK_MSG(!strstr(err, "internal error"), "stderr: %s", err);
    }
}

int main(void)
{
    evaluated = 0;
    TAMM_ASSERT(touch());
    h_context("TAMM_ASSERT's expression (TAMM_ASSERTIONS=%d)", TAMM_ASSERTIONS);
    CHECK_EQ_INT(evaluated, TAMM_ASSERTIONS ? 1 : 0);
#ifdef TAMM_TEST_CC_ASSERT
    evaluated = 0;
    CC_ASSERT(touch());
    h_context("CC_ASSERT's expression (TAMM_ASSERTIONS=%d)", TAMM_ASSERTIONS);
    CHECK_EQ_INT(evaluated, TAMM_ASSERTIONS ? 1 : 0);
#endif

    expect("deps below zero in libtammrt", child_extra_dep, NULL,
           "tamm: internal error: assertion 'was >= 1' failed at ", "task.c:");
    expect("deps below zero in libtammrt (function)", child_extra_dep, NULL, "(tamm__task_dep_satisfied)\n",
           "core/task.c");
    int bad = 7;
    expect("TAMM_ASSERT in the program", child_tamm_assert, &bad,
           "tamm: internal error: assertion 'v == 42' failed at ", "test_assert.c:");
#ifdef TAMM_TEST_CC_ASSERT
    expect("CC_ASSERT", child_cc_assert, &bad, "tammcc: internal error: assertion 'v == 42' failed at ",
           "(child_cc_assert)");
#endif
    return test_summary();
}
