/*
 * tamm_util.h — small helpers for the tests that drive libtammrt through its
 * public API: refs, explicit task submission, shared flags, waiting with a
 * timeout inside a task.  Header-only (static inline), include after harness.h.
 */
#ifndef TAMM_TEST_UTIL_H
#define TAMM_TEST_UTIL_H

#include "harness.h"
#include <stdatomic.h>
#include <stdint.h>
#include <tamm.h>

/** A ref to one block of a 1-D or 2-D tensor. */
static inline tamm_ref tu_ref1(tamm_tensor *T, unsigned mode, long i)
{
    tamm_ref r;
    memset(&r, 0, sizeof r);
    r.tensor = T; r.nidx = 1; r.idx[0] = i; r.mode = mode;
    return r;
}
static inline tamm_ref tu_ref2(tamm_tensor *T, unsigned mode, long i, long j)
{
    tamm_ref r;
    memset(&r, 0, sizeof r);
    r.tensor = T; r.nidx = 2; r.idx[0] = i; r.idx[1] = j; r.mode = mode;
    return r;
}
/** The whole tensor. */
static inline tamm_ref tu_ref_all(tamm_tensor *T, unsigned mode)
{
    tamm_ref r;
    memset(&r, 0, sizeof r);
    r.tensor = T; r.nidx = 0; r.mode = mode;
    return r;
}

static inline tamm_task tu_task(tamm_fn fn, const void *args, size_t args_size, const tamm_ref *refs, int nrefs,
                                const char *label, const char *file, int line)
{
    tamm_task t;
    memset(&t, 0, sizeof t);
    t.cpu = fn; t.args = args; t.args_size = args_size;
    t.refs = refs; t.nrefs = nrefs;
    t.label = label; t.priority = 0; t.rank = -1;
    t.file = file; t.line = line;
    return t;
}

/** Submit fn with a copy of *args (may be NULL) and the refs given inline, from this line. */
#define TU_SUBMIT(ctx, fn, argp, label, ...)                                                      \
    tu_submit_at((ctx), (fn), (argp), sizeof *(argp), (const tamm_ref[]){ __VA_ARGS__ },          \
                 (int)(sizeof((const tamm_ref[]){ __VA_ARGS__ }) / sizeof(tamm_ref)), (label), __FILE__, __LINE__)

static inline int tu_submit_at(tamm_ctx *ctx, tamm_fn fn, const void *args, size_t asz, const tamm_ref *refs,
                               int nrefs, const char *label, const char *file, int line)
{
    tamm_task t = tu_task(fn, args, asz, refs, nrefs, label, file, line);
    return tamm_submit(ctx, &t);
}

/** A 1-D int64 tensor of n blocks of `tile` elements. */
static inline tamm_tensor *tu_vec(const char *name, long nblocks, size_t tile)
{
    size_t dims[1] = { (size_t)nblocks * tile }, t[1] = { tile };
    return tamm_tensor_create(name, TAMM_I64, 1, dims, t);
}

/** Spin (politely) until *flag >= want or timeout_s passes; returns 1 if reached. */
static inline int tu_wait_flag(atomic_int *flag, int want, double timeout_s)
{
    double end = h_now() + timeout_s;
    while (atomic_load(flag) < want) {
        if (h_now() > end) return 0;
        h_sleep_ms(1);
    }
    return 1;
}

/** Runs in a child: tamm_init, or a failed check and exit 4. */
static inline void tu_init(void)
{
    static int argc = 1;
    static char arg0[] = "tamm-test";
    static char *argv0[] = { arg0, NULL };
    static char **argv = argv0;
    int rc = tamm_init(&argc, &argv);
    if (rc != TAMM_OK) {
        h__check(0, __FILE__, __LINE__, "tamm_init returned %d (%s)", rc, tamm_strerror(rc));
        printf("\n@@H passed=%d failed=%d\n", h__.passed, h__.failed);
        fflush(stdout);
        exit(4);
    }
}

/* Checks inside task bodies run on worker threads: they count into an atomic
 * and print; the top level then asserts the count is zero (CHECK_TASKS_OK). */
static atomic_int tu_task_failures __attribute__((unused));
static inline void tu__task_fail(const char *file, int line, const char *what)
{
    atomic_fetch_add(&tu_task_failures, 1);
    fprintf(stderr, "TASK FAIL %s:%d: %s\n", file, line, what);
    fflush(stderr);
}
#define TCHECK(cond) ((cond) ? (void)0 : tu__task_fail(__FILE__, __LINE__, #cond))
#define TCHECK_MSG(cond, ...) do { if (!(cond)) { char tu_m_[512]; snprintf(tu_m_, sizeof tu_m_, __VA_ARGS__); \
    tu__task_fail(__FILE__, __LINE__, tu_m_); } } while (0)
#define CHECK_TASKS_OK() do { int tu_n_ = atomic_exchange(&tu_task_failures, 0); \
    CHECK_MSG(tu_n_ == 0, "%d check(s) inside tasks failed (see TASK FAIL lines)", tu_n_); } while (0)

/** In a child: finalize and check it succeeded. */
#define TU_FINALIZE() do { int tu_rc_ = tamm_finalize(); CHECK_EQ_INT(tu_rc_, TAMM_OK); } while (0)

#endif
