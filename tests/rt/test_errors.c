/*
 * test_errors.c — every misuse a user can make ends well:
 *   default mode            -> message "tamm: error: ..." (naming the task's label and
 *                              FILE:LINE for misuse inside a task) and exit status 1;
 *   TAMM_ON_ERROR=return    -> the call returns the error code and/or the next
 *                              tamm_wait_all() returns it; the process goes on;
 *   never a signal (crash) and never a hang (each child is killed after a timeout).
 * Also: invalid TAMM_* environment values make tamm_init fail with a message naming
 * the variable, and valid ones are accepted.
 * docs/errors.md names, for each run-time error message, the case here (or the
 * other test) that produces it; cases with a `msg` pin its text.
 */
#include "tamm_util.h"
#include <pthread.h>
#include <sys/resource.h>
#include <sched.h>

#define TILE 4
#define LOC_FILE "misuse.c"

/* ------------------------------------------------------------------ */
/* Misuse inside a task                                                 */
/* ------------------------------------------------------------------ */
enum {
    T_PERM, T_REL_TWICE, T_NEVER_REL, T_CANCEL_WRITE, T_CANCEL_RW, T_CANCEL_ACC, T_WRITE_TWICE,
    T_REL_UNKNOWN, T_WRONG_KIND, T_NESTED, T_GET_RANGE, T_GET_NULL_T, T_GET_NULL_IDX, T_NESTED_BADREF,
    T_FENCE_WAIT, T_BLOCK_RANGE, T_REL_NULL, T_TMP_NOPERM, T_WAIT_IN_TASK, T_BLOCK_NIDX, T_COUNT
};
/* msg: the error's text where it is fixed (an index outside the tensor: its name, the indices and the ranges) */
static const struct { const char *label; unsigned perm; int code; int any_code; const char *msg; } tcases[T_COUNT] = {
    [T_PERM]         = { "perm_violation", TAMM_READ, TAMM_EPERM, 0 },
    [T_REL_TWICE]    = { "release_twice", TAMM_READ, TAMM_EBUF, 0 },
    [T_NEVER_REL]    = { "never_release", TAMM_WRITE, TAMM_ELEAK, 0 },
    [T_CANCEL_WRITE] = { "cancel_write", TAMM_WRITE, TAMM_ECANCEL, 0 },
    [T_CANCEL_RW]    = { "cancel_readwrite", TAMM_READWRITE, TAMM_ECANCEL, 0 },
    [T_CANCEL_ACC]   = { "cancel_accum", TAMM_ACCUM, TAMM_ECANCEL, 0 },
    [T_WRITE_TWICE]  = { "write_twice", TAMM_WRITE, TAMM_EFSM, 0 },
    [T_REL_UNKNOWN]  = { "release_unknown", TAMM_WRITE, TAMM_EBUF, 0 },
    [T_WRONG_KIND]   = { "read_released_by_add", TAMM_READ, TAMM_EBUF, 0 },
    [T_NESTED]       = { "nested_beyond_parent", TAMM_READ, TAMM_EPERM, 0 },
    [T_GET_RANGE]    = { "get_out_of_range", TAMM_WRITE, TAMM_ERANGE, 1,
                         "tamm: error: task 'get_out_of_range' (misuse.c:510): tamm_get_buf_read: block ErrT[5] is "
                         "outside the tensor 'ErrT' (blocks 0..1) [block index out of range]" },
    [T_GET_NULL_T]   = { "get_null_tensor", TAMM_WRITE, TAMM_EINVAL, 1 },
    [T_GET_NULL_IDX] = { "get_null_idx", TAMM_WRITE, TAMM_EINVAL, 1 },
    [T_NESTED_BADREF] = { "nested_bad_ref", TAMM_WRITE, TAMM_ERANGE, 1,
                          "tamm: error: task 'nested_child' (misuse.c:98): ref 0: block ErrT[7] is outside the tensor "
                          "'ErrT' (blocks 0..1) [block index out of range]" },
    [T_BLOCK_RANGE]  = { "block_out_of_range", TAMM_READ, TAMM_ERANGE, 1,
                         "tamm: error: task 'block_out_of_range' (misuse.c:515): tamm_block: block ErrT[-1] is outside "
                         "the tensor 'ErrT' (blocks 0..1) [block index out of range]" },
    [T_FENCE_WAIT]   = { "fence_wait_in_task", TAMM_WRITE, TAMM_ESTATE, 0, NULL },
    /* the cases below pin the message docs/errors.md quotes */
    [T_REL_NULL]     = { "release_null", TAMM_WRITE, TAMM_EBUF, 0, "tamm_release_put(NULL) [buffer misuse]" },
    [T_TMP_NOPERM]   = { "tmp_put_without_write", TAMM_READ, TAMM_EPERM, 0,
                         "tamm_release_put of a tmp buffer into ErrT[0]: the task has read permission on that block" },
    [T_WAIT_IN_TASK] = { "wait_all_in_task", TAMM_WRITE, TAMM_ESTATE, 0,
                         "tamm_wait_all inside a task: a task never blocks (tammcc turns a taskwait into a continuation)" },
    [T_BLOCK_NIDX]   = { "block_wrong_nidx", TAMM_READ, TAMM_EINVAL, 1,
                         "tamm_block on 'ErrT': 2 indices given, the tensor has 1 dimensions" },
};

typedef struct { tamm_tensor *T; int k; } targs;
static atomic_int call_rc;

static void nested_noop(tamm_ctx *ctx, void *vp) { (void)ctx; (void)vp; }

static void misuse_body(tamm_ctx *ctx, void *vp)
{
    targs *a = vp;
    long idx[1] = { 0 }, bad[1] = { 5 };
    long local[TILE];
    long *p;
    int rc = 0;
    switch (a->k) {
    case T_PERM:
        p = tamm_get_buf_write(ctx, a->T, idx);
        TCHECK(p != NULL); /* scratch in return mode */
        if (p) p[0] = 1;
        break;
    case T_REL_TWICE:
        p = tamm_get_buf_read(ctx, a->T, idx);
        TCHECK(tamm_release_cancel(ctx, p) == TAMM_OK);
        rc = tamm_release_cancel(ctx, p);
        break;
    case T_NEVER_REL:
        p = tamm_get_buf_write(ctx, a->T, idx);
        if (p) p[0] = 1;
        break;
    case T_CANCEL_WRITE:
        p = tamm_get_buf_write(ctx, a->T, idx);
        rc = tamm_release_cancel(ctx, p);
        break;
    case T_CANCEL_RW:
        p = tamm_get_buf_readwrite(ctx, a->T, idx);
        rc = tamm_release_cancel(ctx, p);
        break;
    case T_CANCEL_ACC:
        p = tamm_get_buf_accum(ctx, a->T, idx);
        rc = tamm_release_cancel(ctx, p);
        break;
    case T_WRITE_TWICE: {
        p = tamm_get_buf_write(ctx, a->T, idx);
        long *q = tamm_get_buf_write(ctx, a->T, idx);
        TCHECK(q != NULL);
        if (q) q[0] = 2;
        if (p) { p[0] = 1; tamm_release_put(ctx, p); }
        break;
    }
    case T_REL_UNKNOWN:
        rc = tamm_release_put(ctx, local);
        break;
    case T_WRONG_KIND:
        p = tamm_get_buf_read(ctx, a->T, idx);
        rc = tamm_release_add(ctx, p);
        break;
    case T_NESTED: {
        tamm_ref r = tu_ref1(a->T, TAMM_WRITE, 0);
        tamm_task t = tu_task(nested_noop, a, sizeof *a, &r, 1, "nested_child", LOC_FILE, 99);
        rc = tamm_submit(ctx, &t);
        break;
    }
    case T_GET_RANGE:
        p = tamm_get_buf_read(ctx, a->T, bad);
        if (p) rc = -1000; /* got a scratch buffer: fine; the code comes from the wait */
        if (p) p[0] = 1;
        break;
    case T_BLOCK_RANGE:
        p = tamm_block(a->T, -1);
        if (p) p[0] = 1;
        break;
    case T_GET_NULL_T:
        p = tamm_get_buf_read(ctx, NULL, idx);
        break;
    case T_GET_NULL_IDX:
        p = tamm_get_buf_read(ctx, a->T, NULL);
        break;
    case T_FENCE_WAIT: { /* a task never blocks its worker: refused, even on a fence already reached */
        tamm_fence *f = tamm_fence_create();
        rc = tamm_fence_wait(f);
        (void)tamm_fence_destroy(f);
        break;
    }
    case T_REL_NULL:
        rc = tamm_release_put(ctx, NULL);
        break;
    case T_TMP_NOPERM:
        p = tamm_get_buf_tmp(ctx, a->T, idx);
        if (p) memset(p, 0, TILE * sizeof *p);
        rc = tamm_release_put(ctx, p);
        break;
    case T_WAIT_IN_TASK:
        rc = tamm_wait_all();
        break;
    case T_BLOCK_NIDX:
        p = tamm_block(a->T, 0, 0);
        break;
    case T_NESTED_BADREF: {
        tamm_ref r = tu_ref1(a->T, TAMM_WRITE, 7);
        tamm_task t = tu_task(nested_noop, a, sizeof *a, &r, 1, "nested_child", LOC_FILE, 98);
        rc = tamm_submit(ctx, &t);
        break;
    }
    default:
        break;
    }
    atomic_store(&call_rc, rc);
}

static int child_task_misuse(void *vp)
{
    int k = *(int *)vp;
    tu_init();
    tamm_tensor *T = tu_vec("ErrT", 2, TILE);
    CHECK_NOTNULL(T);
    targs a = { T, k };
    tamm_ref r = tu_ref1(T, tcases[k].perm | TAMM_PERMISSION_ONLY, 0);
    tamm_task t = tu_task(misuse_body, &a, sizeof a, &r, 1, tcases[k].label, LOC_FILE, 500 + k);
    atomic_store(&call_rc, 12345);
    CHECK_EQ_INT(tamm_submit(NULL, &t), TAMM_OK);
    int rc = tamm_wait_all();
    /* Only reached in return mode. */
    if (tcases[k].any_code) CHECK_MSG(rc < 0, "tamm_wait_all returned %d, expected an error", rc);
    else CHECK_EQ_INT(rc, tcases[k].code);
    int crc = atomic_load(&call_rc);
    if (k == T_REL_TWICE || k == T_CANCEL_WRITE || k == T_CANCEL_RW || k == T_CANCEL_ACC || k == T_REL_UNKNOWN ||
        k == T_WRONG_KIND || k == T_NESTED || k == T_REL_NULL || k == T_TMP_NOPERM || k == T_WAIT_IN_TASK)
        CHECK_EQ_INT(crc, tcases[k].code); /* the failing call itself returned the code */
    if (k == T_NESTED_BADREF) CHECK_MSG(crc < 0, "nested submit with a bad ref returned %d", crc);
    CHECK_TASKS_OK();
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK); /* taken by the first wait */
    /* the runtime still works after the error */
    long *b = tamm_block(T, 1);
    CHECK_NOTNULL(b);
    TU_FINALIZE();
    return 0;
}

/* ------------------------------------------------------------------ */
/* Misuse at top level                                                  */
/* ------------------------------------------------------------------ */
enum {
    X_SUBMIT_RANGE, X_SUBMIT_NIDX, X_SUBMIT_NULLT, X_SUBMIT_NOFN, X_SUBMIT_NULL_TASK, X_SUBMIT_MODE0,
    X_SUBMIT_NREFS, X_SUBMIT_NULLREFS, X_CREATE_NDIM0, X_CREATE_NDIM9, X_CREATE_TILE0, X_CREATE_NULLDIMS,
    X_CREATE_DTYPE, X_BLOCK_RANGE, X_BLOCK_NIDX, X_BLOCK_NULL, X_TOP_PUT_BAD, X_DESTROY_NULL, X_FENCE_NULL,
    X_TOP_GETBUF, X_DEADLOCK, X_WAIT_ON_BAD, X_SUBMIT_ON_HIGH, X_SUBMIT_ON_NEG, X_SUBMIT_RANGE_TEXT, X_TEMP_RANGE,
    X_DEADLOCK_NESTED,
    X_DESTROY_TWICE, X_STREAMING_END, X_SUBMIT_BADMODE, X_SUBMIT_CREAD, X_SUBMIT_NULLARGS, X_SUBMIT_NULLFENCE,
    X_WAIT_ON_NEG, X_CREATE_DIST, X_CREATE_OWNER, X_CREATE_GRID_NEG, X_CREATE_GRID_PART, X_GATHER_NULL,
    X_RELEASE_TOP, X_SUBMIT_NULLSIGNAL, X_FENCE_STUCK, X_FENCE_DESTROY_STUCK, X_BLOCK_STUCK, X_UNDEFERRED_STUCK,
    X_SUBMIT_DESTROYED, X_CREATE_TOO_MANY, X_INIT_TWICE,
    X_DESTROY_DONE_TWICE, X_SUBMIT_DONE_DESTROYED, X_BLOCK_DONE_DESTROYED, X_TEMP_DONE_DESTROYED,
    X_GATHER_DONE_DESTROYED, X_SUBMIT_FOREIGN, X_WAIT_FOREIGN,
    X_COUNT
};
/* msg as in tcases */
static const struct { const char *name; int code; int any_code; const char *msg; } xcases[X_COUNT] = {
    [X_SUBMIT_RANGE]    = { "submit: block index out of range", TAMM_ERANGE, 0,
                            "tamm: error: task 'top_task' (misuse.c:700): ref 0: block TopT[2][0] is outside the "
                            "tensor 'TopT' (blocks 0..1 x 0..1) [block index out of range]" },
    [X_SUBMIT_RANGE_TEXT] = { "submit: block index out of range, with the ref's source text", TAMM_ERANGE, 0,
                              "tamm: error: task 'top_task' (misuse.c:724): block T[i+1][j] = T[2][:] is outside the "
                              "tensor 'TopT' (blocks 0..1 x 0..1) [block index out of range]" },
    [X_TEMP_RANGE]      = { "tamm_temp: index out of range", TAMM_ERANGE, 0,
                            "tamm: error: top level: tamm_temp: block TopT[0][-3] is outside the tensor 'TopT' "
                            "(blocks 0..1 x 0..1) [block index out of range]" },
    [X_SUBMIT_NIDX]     = { "submit: nidx does not match ndim", TAMM_EINVAL, 0,
                            "ref 0 on 'TopT' has 1 indices, the tensor has 2 dimensions (2 indices expected, or 0 "
                            "for the whole tensor)" },
    [X_SUBMIT_NULLT]    = { "submit: ref to a NULL tensor", TAMM_EINVAL, 0 },
    [X_SUBMIT_NOFN]     = { "submit: no variant", TAMM_EINVAL, 0 },
    [X_SUBMIT_NULL_TASK] = { "submit: NULL task", TAMM_EINVAL, 0 },
    [X_SUBMIT_MODE0]    = { "submit: ref mode 0", TAMM_EINVAL, 0 },
    [X_SUBMIT_NREFS]    = { "submit: nrefs < 0", TAMM_EINVAL, 0 },
    [X_SUBMIT_NULLREFS] = { "submit: refs NULL, nrefs 1", TAMM_EINVAL, 0 },
    [X_CREATE_NDIM0]    = { "tensor_create: ndim 0", TAMM_EINVAL, 0 },
    [X_CREATE_NDIM9]    = { "tensor_create: ndim 9", TAMM_EINVAL, 0 },
    [X_CREATE_TILE0]    = { "tensor_create: zero tile", TAMM_EINVAL, 0 },
    [X_CREATE_NULLDIMS] = { "tensor_create: NULL dims", TAMM_EINVAL, 0 },
    [X_CREATE_DTYPE]    = { "tensor_create: bad dtype", TAMM_EINVAL, 0 },
    [X_BLOCK_RANGE]     = { "tamm_block: index out of range", TAMM_ERANGE, 0,
                            "tamm: error: top level: tamm_block: block TopT[2][0] is outside the tensor 'TopT' "
                            "(blocks 0..1 x 0..1) [block index out of range]" },
    [X_BLOCK_NIDX]      = { "tamm_block: wrong number of indices", TAMM_EINVAL, 0 },
    [X_BLOCK_NULL]      = { "tamm_block: NULL tensor", TAMM_EINVAL, 0 },
    [X_TOP_PUT_BAD]     = { "tamm_put twice on a top-level temp", TAMM_EBUF, 0 },
    [X_DESTROY_NULL]    = { "tensor_destroy: NULL", TAMM_EINVAL, 0 },
    [X_FENCE_NULL]      = { "fence_wait: NULL", TAMM_EINVAL, 0 },
    [X_TOP_GETBUF]      = { "get_buf_read outside a task", TAMM_ESTATE, 1 },
    [X_DEADLOCK]        = { "task waits on a fence nobody signals", TAMM_EDEADLOCK, 0,
                            "  task 'top_task' (misuse.c:720) waits for fence #1, which no task signals" },
    [X_DEADLOCK_NESTED] = { "nested task waits on a fence nobody signals, the top level on its parent's block",
                            TAMM_EDEADLOCK, 0,
                            "tamm: error: top level: tamm_block: the tasks using the block can never run [deadlock: "
                            "tasks can never run]\n"
                            "  the 3 stuck tasks and what they wait for:\n"
                            "  task 'dl_child' (misuse.c:901) waits for fence #1, which no task signals\n"
                            "  the top level's tamm_block waits for block TopT[1][1], held until task 'dl_parent' "
                            "(misuse.c:900) completes\n"
                            "  task 'dl_parent' (misuse.c:900) waits for its 1 stuck child task\n" },
    [X_WAIT_ON_BAD]     = { "wait_on: out-of-range ref", TAMM_ERANGE, 1,
                            "ref 0: block TopT[9][9] is outside the tensor 'TopT' (blocks 0..1 x 0..1) [block index out "
                            "of range]" },
    [X_SUBMIT_ON_HIGH]  = { "submit: on(r) with r >= the number of ranks", TAMM_EINVAL, 0, NULL },
    [X_SUBMIT_ON_NEG]   = { "submit: on(r) with r < -1", TAMM_EINVAL, 0, NULL },
    /* the cases below pin the message docs/errors.md quotes */
    [X_DESTROY_TWICE]   = { "tensor_destroy twice", TAMM_EINVAL, 0, "top level: tensor 'TopT' destroyed twice" },
    [X_STREAMING_END]   = { "streaming_end without begin", TAMM_ESTATE, 0,
                            "top level: tamm_streaming_end without tamm_streaming_begin" },
    [X_SUBMIT_BADMODE]  = { "submit: unknown mode bits", TAMM_EINVAL, 0, "ref 0 on 'TopT': unknown mode bits 0x40" },
    [X_SUBMIT_CREAD]    = { "submit: cancellable read", TAMM_EINVAL, 0,
                            "ref 0 on 'TopT': only write, readwrite and accum can be cancellable" },
    [X_SUBMIT_NULLARGS] = { "submit: args_size without args", TAMM_EINVAL, 0, "task has args_size 4 but args is NULL" },
    [X_SUBMIT_NULLFENCE] = { "submit_ex: NULL wait fence", TAMM_EINVAL, 0, "wait fence 0 is NULL" },
    [X_WAIT_ON_NEG]     = { "wait_on: nrefs < 0", TAMM_EINVAL, 0, "top level: tamm_wait_on: bad ref list" },
    [X_CREATE_DIST]     = { "tensor_create_ex: unknown distribution", TAMM_EINVAL, 0,
                            "tensor 'Bad': unknown distribution 7" },
    [X_CREATE_OWNER]    = { "tensor_create_ex: owner not a rank", TAMM_EINVAL, 0,
                            "tensor 'Bad': owner rank 5 does not exist (1 ranks)" },
    [X_CREATE_GRID_NEG] = { "tensor_create_ex: negative grid size", TAMM_EINVAL, 0,
                            "tensor 'Bad': grid[0] is -1 (grid sizes are positive, or all 0 for the automatic grid)" },
    [X_CREATE_GRID_PART] = { "tensor_create_ex: partial grid", TAMM_EINVAL, 0,
                             "tensor 'Bad': grid[1] is 0 but other grid sizes are given (give all 2, or none)" },
    [X_GATHER_NULL]     = { "gather: NULL array", TAMM_EINVAL, 0, "top level: tamm_tensor_gather: the array is NULL" },
    [X_RELEASE_TOP]     = { "release_put with a NULL ctx", TAMM_ESTATE, 0,
                            "top level: tamm_release_put needs the context of a running task (ctx is NULL)" },
    [X_SUBMIT_NULLSIGNAL] = { "submit_ex: NULL signal fence", TAMM_EINVAL, 0, "signal fence 0 is NULL" },
    /* a task waits on a fence nobody signals (g), and what depends on it can never run either */
    [X_FENCE_STUCK]     = { "fence_wait: its signaller can never run", TAMM_EDEADLOCK, 0,
                            "top level: tamm_fence_wait: the tasks that signal the fence can never run" },
    [X_FENCE_DESTROY_STUCK] = { "fence_destroy: its waiter can never run", TAMM_EDEADLOCK, 0,
                                "top level: tamm_fence_destroy: tasks still wait on the fence and can never run" },
    [X_BLOCK_STUCK]     = { "tamm_block: the tasks using the block can never run", TAMM_EDEADLOCK, 0,
                            "top level: tamm_block: the tasks using the block can never run" },
    [X_UNDEFERRED_STUCK] = { "undeferred task that can never run", TAMM_EDEADLOCK, 0,
                             "undeferred task can never run: its dependences are never satisfied" },
    [X_SUBMIT_DESTROYED] = { "submit: a tensor whose destroy is pending", TAMM_EINVAL, 0,
                             "ref 0 names tensor 'TopT', which was destroyed" },
    [X_CREATE_TOO_MANY] = { "tensor_create: too many blocks", TAMM_EINVAL, 0, "top level: tensor 'Bad': too many blocks" },
    /* fatal by default; under TAMM_ON_ERROR=return returned and recorded for the next wait, like any misuse */
    [X_INIT_TWICE]      = { "tamm_init twice", TAMM_ESTATE, 0,
                            "tamm: error: top level: tamm_init called twice without tamm_finalize" },
    /* after a destroy has completed (its blocks are freed): the handle stays safe to pass, and every
     * call with it reports the destroyed tensor by name (no read of freed memory; clean under ASan) */
    [X_DESTROY_DONE_TWICE] = { "tensor_destroy twice, the first completed", TAMM_EINVAL, 0,
                               "top level: tensor 'TopT' destroyed twice" },
    [X_SUBMIT_DONE_DESTROYED] = { "submit: a destroyed tensor", TAMM_EINVAL, 0,
                                  "task 'top_task' (misuse.c:749): ref 0 names tensor 'TopT', which was destroyed" },
    [X_BLOCK_DONE_DESTROYED] = { "tamm_block: a destroyed tensor", TAMM_EINVAL, 0,
                                 "top level: tamm_block: tensor 'TopT' was destroyed" },
    [X_TEMP_DONE_DESTROYED] = { "tamm_temp: a destroyed tensor", TAMM_EINVAL, 0,
                                "top level: tamm_temp: tensor 'TopT' was destroyed" },
    [X_GATHER_DONE_DESTROYED] = { "gather: a destroyed tensor", TAMM_EINVAL, 0,
                                  "top level: tamm_tensor_gather: tensor 'TopT' was destroyed" },
    /* a thread the program started itself (not the one that called tamm_init, not a task) */
    [X_SUBMIT_FOREIGN] = { "submit from a thread the runtime does not know", TAMM_ESTATE, 0,
                           "top level: tamm_submit called from a thread that is neither the thread that called "
                           "tamm_init nor a task" },
    [X_WAIT_FOREIGN]   = { "wait_all from a thread the runtime does not know", TAMM_ESTATE, 0,
                           "top level: tamm_wait_all called from a thread the runtime does not know" },
};

static void noop(tamm_ctx *ctx, void *vp) { (void)ctx; (void)vp; }

/* X_SUBMIT_FOREIGN, X_WAIT_FOREIGN: the call made from a thread of the program's own */
typedef struct { tamm_task *t; int wait; int rc; } foreign_call;
static void *foreign_thread(void *vp)
{
    foreign_call *f = vp;
    f->rc = f->wait ? tamm_wait_all() : tamm_submit(NULL, f->t);
    return NULL;
}

/* X_DEADLOCK_NESTED: a parent whose child waits for a fence nobody signals */
static tamm_fence *dl_fence;
static void dl_parent(tamm_ctx *ctx, void *vp)
{
    tamm_tensor *T = *(tamm_tensor **)vp;
    tamm_ref r = tu_ref2(T, TAMM_WRITE, 1, 1);
    int dummy = 0;
    tamm_task t = tu_task(noop, &dummy, sizeof dummy, &r, 1, "dl_child", LOC_FILE, 901);
    tamm_task_opts o;
    memset(&o, 0, sizeof o);
    o.wait = &dl_fence;
    o.nwait = 1;
    CHECK_EQ_INT(tamm_submit_ex(ctx, &t, &o), TAMM_OK);
}

/* X_DESTROY_TWICE: a task that uses the tensor until the top level lets it go */
static atomic_int g_hold;
static void hold_body(tamm_ctx *ctx, void *vp)
{
    (void)ctx;
    (void)vp;
    while (atomic_load(&g_hold)) sched_yield();
}

static int child_top_misuse(void *vp)
{
    int k = *(int *)vp;
    tu_init();
    size_t dims[2] = { 8, 8 }, tile[2] = { 4, 4 }, zt[2] = { 4, 0 };
    tamm_tensor *T = tamm_tensor_create("TopT", TAMM_I64, 2, dims, tile);
    CHECK_NOTNULL(T);
    int dummy = 0;
    int rc = 12345;      /* what the call returned (codes) */
    int null_ret = -1;   /* 1 if a pointer-returning call returned NULL */
    tamm_ref r = tu_ref2(T, TAMM_READ, 0, 0);
    tamm_task t = tu_task(noop, &dummy, sizeof dummy, &r, 1, "top_task", LOC_FILE, 700 + k);
    switch (k) {
    case X_SUBMIT_RANGE: r = tu_ref2(T, TAMM_READ, 2, 0); t.refs = &r; rc = tamm_submit(NULL, &t); break;
    case X_SUBMIT_NIDX: r = tu_ref1(T, TAMM_READ, 0); t.refs = &r; rc = tamm_submit(NULL, &t); break;
    case X_SUBMIT_NULLT: r.tensor = NULL; t.refs = &r; rc = tamm_submit(NULL, &t); break;
    case X_SUBMIT_NOFN: t.cpu = NULL; t.cuda = NULL; rc = tamm_submit(NULL, &t); break;
    case X_SUBMIT_NULL_TASK: rc = tamm_submit(NULL, NULL); break;
    case X_SUBMIT_MODE0: r.mode = 0; t.refs = &r; rc = tamm_submit(NULL, &t); break;
    case X_SUBMIT_NREFS: t.nrefs = -1; rc = tamm_submit(NULL, &t); break;
    case X_SUBMIT_NULLREFS: t.refs = NULL; t.nrefs = 1; rc = tamm_submit(NULL, &t); break;
    case X_CREATE_NDIM0: null_ret = tamm_tensor_create("Bad", TAMM_F64, 0, dims, tile) == NULL; break;
    case X_CREATE_NDIM9: {
        size_t d9[9] = { 2, 2, 2, 2, 2, 2, 2, 2, 2 }, t9[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
        null_ret = tamm_tensor_create("Bad", TAMM_F64, 9, d9, t9) == NULL;
        break;
    }
    case X_CREATE_TILE0: null_ret = tamm_tensor_create("Bad", TAMM_F64, 2, dims, zt) == NULL; break;
    case X_CREATE_NULLDIMS: null_ret = tamm_tensor_create("Bad", TAMM_F64, 2, NULL, tile) == NULL; break;
    case X_CREATE_DTYPE: null_ret = tamm_tensor_create("Bad", (tamm_dtype)7, 2, dims, tile) == NULL; break;
    case X_BLOCK_RANGE: null_ret = tamm_block(T, 2, 0) == NULL; break;
    case X_BLOCK_NIDX: null_ret = tamm_block(T, 0) == NULL; break;
    case X_BLOCK_NULL: null_ret = tamm_block(NULL, 0, 0) == NULL; break;
    case X_TOP_PUT_BAD: {
        long *tmp = tamm_temp(T, 0, 0);
        CHECK_NOTNULL(tmp);
        if (tmp) memset(tmp, 0, 16 * sizeof(long));
        CHECK_EQ_INT(tamm_put(tmp), TAMM_OK);
        rc = tamm_put(tmp); /* released already */
        break;
    }
    case X_DESTROY_NULL: rc = tamm_tensor_destroy(NULL); break;
    case X_FENCE_NULL: rc = tamm_fence_wait(NULL); break;
    case X_TOP_GETBUF: {
        long idx[2] = { 0, 0 };
        void *p = tamm_get_buf_read(NULL, T, idx);
        rc = -2000;
        (void)p;
        break;
    }
    case X_DEADLOCK: {
        tamm_fence *f = tamm_fence_create();
        CHECK_NOTNULL(f);
        tamm_task_opts o;
        memset(&o, 0, sizeof o);
        o.wait = &f;
        o.nwait = 1;
        rc = tamm_submit_ex(NULL, &t, &o);
        CHECK_EQ_INT(rc, TAMM_OK);
        /* and a task that waits for the block the first one reads */
        tamm_ref wr = tu_ref2(T, TAMM_WRITE, 0, 0);
        tamm_task t2 = tu_task(noop, &dummy, sizeof dummy, &wr, 1, "top_writer", LOC_FILE, 800);
        CHECK_EQ_INT(tamm_submit(NULL, &t2), TAMM_OK);
        rc = 12345;
        break;
    }
    case X_DEADLOCK_NESTED: {
        dl_fence = tamm_fence_create();
        tamm_ref pr = tu_ref2(T, TAMM_WRITE, 1, 1);
        tamm_task pt = tu_task(dl_parent, &T, sizeof T, &pr, 1, "dl_parent", LOC_FILE, 900);
        CHECK_EQ_INT(tamm_submit(NULL, &pt), TAMM_OK);
        null_ret = tamm_block(T, 1, 1) == NULL; /* the top level waits for the parent */
        rc = 12345;
        break;
    }
    case X_WAIT_ON_BAD: r = tu_ref2(T, TAMM_READ, 9, 9); rc = tamm_wait_on(&r, 1); break;
    case X_SUBMIT_ON_HIGH: t.rank = tamm_nranks(); rc = tamm_submit(NULL, &t); break;
    case X_SUBMIT_ON_NEG: t.rank = -3; rc = tamm_submit(NULL, &t); break;
    case X_SUBMIT_RANGE_TEXT: {
        static const char *const text[1] = { "T[i+1][j]" };
        r = tu_ref2(T, TAMM_READ, 2, TAMM_ALL);
        t.refs = &r;
        t.ref_text = text;
        rc = tamm_submit(NULL, &t);
        break;
    }
    case X_TEMP_RANGE: null_ret = tamm_temp(T, 0, -3) == NULL; break;
    case X_DESTROY_TWICE: {
        /* A task still using T keeps the first destroy deferred, so T is alive at the second
         * (X_DESTROY_DONE_TWICE: the same once the first has completed). */
        atomic_store(&g_hold, 1);
        tamm_ref hr = tu_ref2(T, TAMM_READ, 0, 0);
        tamm_task ht = tu_task(hold_body, &dummy, sizeof dummy, &hr, 1, "holder", LOC_FILE, 800);
        CHECK_EQ_INT(tamm_submit(NULL, &ht), TAMM_OK);
        CHECK_EQ_INT(tamm_tensor_destroy(T), TAMM_OK);
        rc = tamm_tensor_destroy(T);
        atomic_store(&g_hold, 0);
        break;
    }
    case X_STREAMING_END: rc = tamm_streaming_end(); break;
    case X_SUBMIT_BADMODE: r.mode = TAMM_READ | 64u; t.refs = &r; rc = tamm_submit(NULL, &t); break;
    case X_SUBMIT_CREAD: r.mode = TAMM_READ | TAMM_CANCELLABLE; t.refs = &r; rc = tamm_submit(NULL, &t); break;
    case X_SUBMIT_NULLARGS: t.args = NULL; t.args_size = 4; rc = tamm_submit(NULL, &t); break;
    case X_SUBMIT_NULLFENCE: {
        tamm_fence *none = NULL;
        tamm_task_opts o;
        memset(&o, 0, sizeof o);
        o.wait = &none;
        o.nwait = 1;
        rc = tamm_submit_ex(NULL, &t, &o);
        break;
    }
    case X_WAIT_ON_NEG: rc = tamm_wait_on(&r, -1); break;
    case X_CREATE_DIST: case X_CREATE_OWNER: case X_CREATE_GRID_NEG: case X_CREATE_GRID_PART: {
        tamm_tensor_opts o;
        memset(&o, 0, sizeof o);
        if (k == X_CREATE_DIST) o.dist = (tamm_dist)7;
        if (k == X_CREATE_OWNER) { o.dist = TAMM_DIST_LOCAL; o.owner = 5; }
        if (k == X_CREATE_GRID_NEG) o.grid[0] = -1;
        if (k == X_CREATE_GRID_PART) o.grid[0] = 1;
        null_ret = tamm_tensor_create_ex("Bad", TAMM_F64, 2, dims, tile, &o) == NULL;
        break;
    }
    case X_GATHER_NULL: rc = tamm_tensor_gather(T, NULL); break;
    case X_SUBMIT_DESTROYED: { /* the holder keeps the destroy pending (see X_DESTROY_TWICE) */
        atomic_store(&g_hold, 1);
        tamm_ref hr = tu_ref2(T, TAMM_READ, 0, 0);
        tamm_task ht = tu_task(hold_body, &dummy, sizeof dummy, &hr, 1, "holder", LOC_FILE, 801);
        CHECK_EQ_INT(tamm_submit(NULL, &ht), TAMM_OK);
        CHECK_EQ_INT(tamm_tensor_destroy(T), TAMM_OK);
        rc = tamm_submit(NULL, &t);
        atomic_store(&g_hold, 0);
        break;
    }
    case X_INIT_TWICE: rc = tamm_init(NULL, NULL); break;
    case X_SUBMIT_FOREIGN: case X_WAIT_FOREIGN: {
        foreign_call f = { &t, k == X_WAIT_FOREIGN, 12345 };
        pthread_t th;
        CHECK_EQ_INT(pthread_create(&th, NULL, foreign_thread, &f), 0);
        pthread_join(th, NULL);
        rc = f.rc;
        break;
    }
    case X_DESTROY_DONE_TWICE: case X_SUBMIT_DONE_DESTROYED: case X_BLOCK_DONE_DESTROYED: case X_TEMP_DONE_DESTROYED:
    case X_GATHER_DONE_DESTROYED: {
        CHECK_EQ_INT(tamm_tensor_destroy(T), TAMM_OK);
        CHECK_EQ_INT(tamm_wait_all(), TAMM_OK); /* the destroy has completed: T's blocks are freed */
        if (k == X_DESTROY_DONE_TWICE) rc = tamm_tensor_destroy(T);
        if (k == X_SUBMIT_DONE_DESTROYED) rc = tamm_submit(NULL, &t);
        if (k == X_BLOCK_DONE_DESTROYED) null_ret = tamm_block(T, 0, 0) == NULL;
        if (k == X_TEMP_DONE_DESTROYED) null_ret = tamm_temp(T, 0, 0) == NULL;
        if (k == X_GATHER_DONE_DESTROYED) {
            long all[64];
            rc = tamm_tensor_gather(T, all);
        }
        /* the accessors read the record, which stays until tamm_finalize */
        CHECK_MSG(!strcmp(tamm_tensor_name(T), "TopT"), "tamm_tensor_name of a destroyed tensor: %s", tamm_tensor_name(T));
        long b0[2] = { 0, 0 };
        CHECK_EQ_INT(tamm_block_owner(T, b0), -1);
        break;
    }
    case X_CREATE_TOO_MANY: {
        size_t big[3] = { (size_t)1 << 30, (size_t)1 << 30, (size_t)1 << 30 }, one[3] = { 1, 1, 1 };
        null_ret = tamm_tensor_create("Bad", TAMM_F64, 3, big, one) == NULL;
        break;
    }
    case X_RELEASE_TOP: {
        long *tmp = tamm_temp(T, 0, 0);
        rc = tamm_release_put(NULL, tmp);
        if (rc != TAMM_OK && tmp) tamm_cancel(tmp);
        break;
    }
    case X_SUBMIT_NULLSIGNAL: {
        tamm_fence *none = NULL;
        tamm_task_opts o;
        memset(&o, 0, sizeof o);
        o.signal = &none;
        o.nsignal = 1;
        rc = tamm_submit_ex(NULL, &t, &o);
        break;
    }
    case X_FENCE_STUCK: case X_FENCE_DESTROY_STUCK: case X_BLOCK_STUCK: case X_UNDEFERRED_STUCK: {
        tamm_fence *g = tamm_fence_create(), *f = tamm_fence_create();
        CHECK_NOTNULL(g);
        CHECK_NOTNULL(f);
        tamm_task_opts o;
        memset(&o, 0, sizeof o);
        o.wait = &g; /* never signalled */
        o.nwait = 1;
        if (k == X_FENCE_STUCK) { o.signal = &f; o.nsignal = 1; }
        if (k == X_FENCE_DESTROY_STUCK) { o.wait = &f; }
        if (k == X_UNDEFERRED_STUCK) o.undeferred = 1;
        if (k == X_FENCE_DESTROY_STUCK) { /* f is signalled by a task stuck on g; t waits on f */
            tamm_task_opts so;
            memset(&so, 0, sizeof so);
            so.wait = &g;
            so.nwait = 1;
            so.signal = &f;
            so.nsignal = 1;
            tamm_task s2 = t;
            CHECK_EQ_INT(tamm_submit_ex(NULL, &s2, &so), TAMM_OK);
        }
        rc = tamm_submit_ex(NULL, &t, &o);
        if (k == X_UNDEFERRED_STUCK) break; /* the submission itself reports it */
        CHECK_EQ_INT(rc, TAMM_OK);
        if (k == X_FENCE_STUCK) rc = tamm_fence_wait(f);
        else if (k == X_FENCE_DESTROY_STUCK) rc = tamm_fence_destroy(f);
        else null_ret = tamm_block(T, 0, 0) == NULL, rc = 12345;
        break;
    }
    default: break;
    }
    /* Only reached in return mode (or where the default mode lets the call return). */
    if (null_ret >= 0) CHECK_MSG(null_ret == 1, "the call returned NULL");
    if (rc != 12345 && rc != -2000) {
        if (xcases[k].any_code) CHECK_MSG(rc < 0, "the call returned %d, expected an error", rc);
        else CHECK_EQ_INT(rc, xcases[k].code);
    }
    int w = tamm_wait_all();
    if (xcases[k].any_code) CHECK_MSG(w < 0, "tamm_wait_all returned %d, expected an error", w);
    else CHECK_EQ_INT(w, xcases[k].code);
    tamm_finalize(); /* may report the stuck task again; must not hang */
    return 0;
}

/* an allocation of the runtime that fails (a tensor whose block table alone needs terabytes):
 * "fatal: out of memory", exit status 1 in either mode (not under ASan or TSan: their allocators
 * stop the run on such a size themselves) */
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define TEST_OOM 1
static int child_oom(void *vp)
{
    (void)vp;
    tu_init();
    /* at most 1 TiB of address space, so that the allocation fails whatever the overcommit policy */
    struct rlimit rl = { (rlim_t)1 << 40, (rlim_t)1 << 40 };
    CHECK_EQ_INT(setrlimit(RLIMIT_AS, &rl), 0);
    size_t dims[1] = { (size_t)1 << 38 }, tile[1] = { 1 };
    tamm_tensor *T = tamm_tensor_create("Huge", TAMM_F64, 1, dims, tile);
    CHECK_MSG(T == NULL, "a tensor of 2^38 blocks was created");
    return 0;
}
#endif

/* ------------------------------------------------------------------ */
/* Before tamm_init / after tamm_finalize                                */
/* ------------------------------------------------------------------ */
static int child_init_finalize(void *vp)
{
    (void)vp;
    tu_init();
    return tamm_finalize() == TAMM_OK ? 0 : 2;
}

static int child_not_init(void *vp)
{
    (void)vp;
    int dummy = 0;
    tamm_task t = tu_task(noop, &dummy, sizeof dummy, NULL, 0, "early", LOC_FILE, 1);
    int rc = tamm_submit(NULL, &t);
    CHECK_MSG(rc < 0, "tamm_submit before tamm_init returned %d", rc);
    rc = tamm_wait_all();
    CHECK_MSG(rc < 0, "tamm_wait_all before tamm_init returned %d", rc);
    size_t d[1] = { 4 }, tl[1] = { 2 };
    CHECK_NULL(tamm_tensor_create("Early", TAMM_F64, 1, d, tl));
    rc = tamm_finalize();
    CHECK_MSG(rc < 0, "tamm_finalize before tamm_init returned %d", rc);
    /* and the runtime still starts afterwards */
    tu_init();
    TU_FINALIZE();
    rc = tamm_finalize();
    CHECK_MSG(rc < 0, "a second tamm_finalize returned %d", rc);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Environment                                                          */
/* ------------------------------------------------------------------ */
typedef struct { const char *var, *val; } envcase;

static const envcase bad_env[] = {
    { "TAMM_NUM_WORKERS", "abc" }, { "TAMM_NUM_WORKERS", "0" }, { "TAMM_NUM_WORKERS", "-3" },
    { "TAMM_NUM_WORKERS", "1025" }, { "TAMM_NUM_WORKERS", "4x" }, { "TAMM_NUM_WORKERS", "99999999999999999999" },
    { "TAMM_NUM_WORKERS", " 4" }, { "TAMM_NUM_WORKERS", "4 " }, { "TAMM_NUM_WORKERS", "+4" },
    { "TAMM_SCHED", "bogus" }, { "TAMM_ON_ERROR", "maybe" }, { "TAMM_SEQUENTIAL", "2" },
    { "TAMM_SEQUENTIAL", "yes" }, { "TAMM_STATS", "2" }, { "TAMM_MEMORY_LIMIT", "12Q" },
    { "TAMM_MEMORY_LIMIT", "abc" }, { "TAMM_MEMORY_LIMIT", "-5" }, { "TAMM_CUDA_MEMORY_LIMIT", "12Q" },
    { "TAMM_NUM_GPUS", "-1" }, { "TAMM_HUGEPAGES", "on" }, { "TAMM_HUGEPAGES", "2" },
    { "TAMM_CHECK_ACCESS", "yes2" }, { "TAMM_CHECK_ACCESS", "2" },
    { "TAMM_REPRODUCIBLE", "2" }, { "TAMM_REPRODUCIBLE", "yes" },
    { "TAMM_MPI", "2" }, { "TAMM_MPI", "yes" }, { "TAMM_MPI_STALL", "0.01" }, { "TAMM_MPI_STALL", "5s" },
};
static const envcase good_env[] = {
    { "TAMM_NUM_WORKERS", "1" }, { "TAMM_NUM_WORKERS", "3" }, { "TAMM_SCHED", "ws" }, { "TAMM_SCHED", "fifo" },
    { "TAMM_SCHED", "prio" }, { "TAMM_ON_ERROR", "abort" }, { "TAMM_ON_ERROR", "return" },
    { "TAMM_SEQUENTIAL", "0" }, { "TAMM_SEQUENTIAL", "1" }, { "TAMM_STATS", "0" },
    { "TAMM_MEMORY_LIMIT", "1048576" }, { "TAMM_MEMORY_LIMIT", "64K" }, { "TAMM_MEMORY_LIMIT", "64M" },
    { "TAMM_MEMORY_LIMIT", "2G" }, { "TAMM_MEMORY_LIMIT", "50%" }, { "TAMM_CUDA_MEMORY_LIMIT", "1G" },
    { "TAMM_HUGEPAGES", "0" }, { "TAMM_HUGEPAGES", "1" }, { "TAMM_CHECK_ACCESS", "0" }, { "TAMM_CHECK_ACCESS", "1" },
    { "TAMM_REPRODUCIBLE", "0" }, { "TAMM_REPRODUCIBLE", "1" },
    { "TAMM_MPI", "0" }, { "TAMM_MPI_STALL", "0.5" },
};

static int child_env(void *vp)
{
    const envcase *e = vp;
    static int argc = 1;
    static char arg0[] = "t";
    static char *argv0[] = { arg0, NULL };
    static char **argv = argv0;
    int rc = tamm_init(&argc, &argv);
    if (rc == TAMM_OK) {
        if (!strcmp(e->var, "TAMM_NUM_WORKERS")) CHECK_EQ_INT(tamm_num_workers(), atoi(e->val));
        tamm_finalize();
        return 0;
    }
    /* Return mode: tamm_init failed and returned; the process goes on. */
    CHECK_EQ_INT(rc, TAMM_EINVAL);
    /* with the variable fixed, the runtime starts */
    unsetenv(e->var);
    rc = tamm_init(&argc, &argv);
    CHECK_EQ_INT(rc, TAMM_OK);
    if (rc == TAMM_OK) tamm_finalize();
    return 10; /* "init failed and returned" */
}

static void test_env(void)
{
    static char err[H_ERRBUF_SIZE];
    static h_status st;
    char how[128], kv[128], quoted[128];
    for (size_t i = 0; i < sizeof bad_env / sizeof bad_env[0]; i++) {
        const envcase *e = &bad_env[i];
        snprintf(kv, sizeof kv, "%s=%s", e->var, e->val);
        snprintf(quoted, sizeof quoted, "'%s'", e->val);
        /* default mode: exit status 1 and the message */
        h_context("%s (default mode)", kv);
        const char *env[] = { kv, NULL };
        run_child(child_env, (void *)e, env, 15, &st, err);
        if (!CHECK_MSG(child_exit_is(&st, 1), "exit status 1 (got %s)", child_how(&st, how, sizeof how)))
            h_dump_child(kv, &st, err);
        CHECK_CONTAINS(err, "tamm: error");
        CHECK_CONTAINS(err, e->var);
        CHECK_CONTAINS(err, quoted);
        /* return mode: tamm_init returns TAMM_EINVAL */
        if (strcmp(e->var, "TAMM_ON_ERROR") != 0) {
            h_context("%s (TAMM_ON_ERROR=return)", kv);
            const char *env2[] = { kv, "TAMM_ON_ERROR=return", NULL };
            run_child(child_env, (void *)e, env2, 15, &st, err);
            h__merge_counts(&st);
            if (!CHECK_MSG(child_exit_is(&st, 10), "tamm_init returned the error (got %s)", child_how(&st, how, sizeof how)))
                h_dump_child(kv, &st, err);
            CHECK_CONTAINS(err, e->var);
        }
    }
    for (size_t i = 0; i < sizeof good_env / sizeof good_env[0]; i++) {
        const envcase *e = &good_env[i];
        snprintf(kv, sizeof kv, "%s=%s", e->var, e->val);
        h_context("%s (valid)", kv);
        const char *env[] = { kv, NULL };
        run_child(child_env, (void *)e, env, 15, &st, err);
        h__merge_counts(&st);
        if (!CHECK_MSG(child_ok(&st), "accepted (got %s)", child_how(&st, how, sizeof how)))
            h_dump_child(kv, &st, err);
        CHECK_NOT_CONTAINS(err, "tamm: error");
    }
    h_context(NULL);
}

/* ------------------------------------------------------------------ */

static void test_task_misuse(void)
{
    static char err[H_ERRBUF_SIZE];
    static h_status st;
    char how[128], loc[64];
    for (int k = 0; k < T_COUNT; k++) {
        /* a bad ref of a nested task is the nested task's error: its label and location */
        const char *label = k == T_NESTED_BADREF ? "nested_child" : tcases[k].label;
        snprintf(loc, sizeof loc, LOC_FILE ":%d", k == T_NESTED_BADREF ? 98 : 500 + k);
        h_context("%s (default mode)", tcases[k].label);
        const char *env[] = { "TAMM_NUM_WORKERS=2", NULL };
        run_child(child_task_misuse, &k, env, 20, &st, err);
        if (!CHECK_MSG(child_exit_is(&st, 1), "exit status 1 (got %s)", child_how(&st, how, sizeof how)))
            h_dump_child(tcases[k].label, &st, err);
        CHECK_CONTAINS(err, "tamm: error");
        CHECK_CONTAINS(err, label);
        CHECK_CONTAINS(err, loc);
        CHECK_EQ_INT(h_count(err, "tamm: error"), 1); /* reported once */
        if (tcases[k].msg) CHECK_CONTAINS(err, tcases[k].msg);

        h_context("%s (TAMM_ON_ERROR=return)", tcases[k].label);
        const char *env2[] = { "TAMM_NUM_WORKERS=2", "TAMM_ON_ERROR=return", NULL };
        run_child(child_task_misuse, &k, env2, 20, &st, err);
        h__merge_counts(&st);
        if (!CHECK_MSG(child_ok(&st), "ended cleanly (got %s)", child_how(&st, how, sizeof how)))
            h_dump_child(tcases[k].label, &st, err);
        CHECK_CONTAINS(err, "tamm: error");
        CHECK_CONTAINS(err, label);
        if (tcases[k].msg) CHECK_CONTAINS(err, tcases[k].msg);
    }
    h_context(NULL);
}

static void test_top_misuse(void)
{
    static char err[H_ERRBUF_SIZE];
    static h_status st;
    char how[128];
    for (int k = 0; k < X_COUNT; k++) {
        h_context("%s (default mode)", xcases[k].name);
        const char *env[] = { "TAMM_NUM_WORKERS=2", NULL };
        run_child(child_top_misuse, &k, env, 20, &st, err);
        if (!CHECK_MSG(child_exit_is(&st, 1), "exit status 1 (got %s)", child_how(&st, how, sizeof how)))
            h_dump_child(xcases[k].name, &st, err);
        CHECK_CONTAINS(err, "tamm: error");
        if (xcases[k].msg) CHECK_CONTAINS(err, xcases[k].msg);
        if (k == X_DEADLOCK) { /* the report lists every stuck task and what it waits for */
            CHECK_CONTAINS(err, "tamm_wait_all: 2 top-level tasks can never run");
            CHECK_CONTAINS(err, "  the 2 stuck tasks and what they wait for:\n");
            CHECK_CONTAINS(err, "  task 'top_writer' (misuse.c:800) waits for block TopT[0][0], held until task "
                                "'top_task' (misuse.c:720) completes");
        }

        h_context("%s (TAMM_ON_ERROR=return)", xcases[k].name);
        const char *env2[] = { "TAMM_NUM_WORKERS=2", "TAMM_ON_ERROR=return", NULL };
        run_child(child_top_misuse, &k, env2, 20, &st, err);
        h__merge_counts(&st);
        if (!CHECK_MSG(child_ok(&st), "ended cleanly (got %s)", child_how(&st, how, sizeof how)))
            h_dump_child(xcases[k].name, &st, err);
        CHECK_CONTAINS(err, "tamm: error");
        if (xcases[k].msg) CHECK_CONTAINS(err, xcases[k].msg);
    }
#ifdef TEST_OOM
    for (int mode = 0; mode < 2; mode++) {
        h_context("fatal: out of memory (%s)", mode ? "TAMM_ON_ERROR=return" : "default mode");
        const char *env[] = { "TAMM_NUM_WORKERS=2", mode ? "TAMM_ON_ERROR=return" : NULL, NULL };
        run_child(child_oom, NULL, env, 20, &st, err);
        if (!CHECK_MSG(child_exit_is(&st, 1), "exit status 1 (got %s)", child_how(&st, how, sizeof how)))
            h_dump_child("oom", &st, err);
        CHECK_CONTAINS(err, "tamm: fatal: out of memory (");
    }
#endif
    h_context("calls before tamm_init / after tamm_finalize");
    {
        const char *env[] = { "TAMM_NUM_WORKERS=2", "TAMM_ON_ERROR=return", NULL };
        run_child(child_not_init, NULL, env, 20, &st, err);
        h__merge_counts(&st);
        /* TAMM_ON_ERROR=return (read from the environment before tamm_init): the calls return */
        if (!CHECK_MSG(child_exit_is(&st, 0), "ended (got %s)", child_how(&st, how, sizeof how)))
            h_dump_child("not_init", &st, err);
        CHECK_CONTAINS(err, "tamm: error: tamm_submit called before tamm_init");
    }
    /* output files that cannot be written (a missing directory, a full disk) end the run with status 1 */
    static const char *const outs[][2] = {
        { "TAMM_TRACE=/nonexistent-dir/t.json", "TAMM_TRACE: cannot write '/nonexistent-dir/t.json'" },
        { "TAMM_DAG=/nonexistent-dir/d.dot", "TAMM_DAG: cannot write '/nonexistent-dir/d.dot'" },
        { "TAMM_TRACE=/dev/full", "TAMM_TRACE: writing '/dev/full' failed" },
        { "TAMM_DAG=/dev/full", "TAMM_DAG: writing '/dev/full' failed" },
    };
    for (int k = 0; k < 4; k++) {
        h_context("%s", outs[k][0]);
        const char *env[] = { "TAMM_NUM_WORKERS=2", outs[k][0], NULL };
        run_child(child_init_finalize, NULL, env, 20, &st, err);
        if (!CHECK_MSG(child_exit_is(&st, 1), "ended (got %s)", child_how(&st, how, sizeof how)))
            h_dump_child("output file", &st, err);
        CHECK_CONTAINS(err, outs[k][1]);
    }
    h_context("a call before tamm_init, default mode: status 1, not 0");
    {
        const char *env[] = { "TAMM_NUM_WORKERS=2", NULL };
        run_child(child_not_init, NULL, env, 20, &st, err);
        if (!CHECK_MSG(child_exit_is(&st, 1), "ended (got %s)", child_how(&st, how, sizeof how)))
            h_dump_child("not_init_abort", &st, err);
        CHECK_CONTAINS(err, "tamm: error: tamm_submit called before tamm_init");
    }
    h_context(NULL);
}

int main(void)
{
    test_task_misuse();
    test_top_misuse();
    test_env();
    return test_summary();
}
