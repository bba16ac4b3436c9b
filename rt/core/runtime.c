/*
 * runtime.c — the core's part of the lifecycle (tamm__core_start and the
 * steps of tamm_finalize that rt/init/tamm.c calls between stopping the
 * layers) and the top-level API: waits, barriers, tamm_block outside tasks
 * (sequential elision), top-level temps, gather / scatter, and the small
 * public accessors.  With several ranks the top-level calls go to the
 * submission filter's entries (layer.h).
 */
#include "runtime.h"
#include "memlimit.h"
#include "buffer.h"
#include "check.h"
#include "error.h"
#include "fence.h"
#include "layer.h"
#include "divert.h"
#include "scope.h"
#include "tensor.h"
#include "xfer.h"
#include "stuck.h"
#include "tamm_assert.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

tamm__runtime tamm__rt;

int tamm_num_workers(void) { return tamm__rt.initialised ? tamm__rt.nworkers : 0; }

void tamm__core_start(const tamm__config *cfg, int rank, int nranks)
{
    memset(&tamm__rt, 0, sizeof tamm__rt);
    tamm__rt.cfg = *cfg;
    tamm__rt.rank = rank;
    tamm__rt.nranks = nranks;
    tamm__error_set_mode(cfg->on_error == TAMM_ONERR_RETURN);
    if (cfg->on_error == TAMM_ONERR_RETURN) tamm__error_exit_guard();
    tamm__error_take();
    tamm__rt.sched = cfg->sched == TAMM_SCHED_FIFO ? &tamm__sched_fifo
                   : cfg->sched == TAMM_SCHED_PRIO ? &tamm__sched_prio : &tamm__sched_ws;
    tamm__pool_init(&tamm__rt.task_pool, sizeof(tamm__task_s));
    tamm__rt.recording = cfg->trace_file || cfg->dag_file;
    tamm__check_on = cfg->check_access;
    tamm__pool_init(&tamm__rt.epoch_pool, tamm__dag_epoch_size(tamm__rt.recording));
    pthread_mutex_init(&tamm__rt.tensors_lock, NULL);
    /* tasks in flight before the submitter starts running some itself: enough
     * to keep every worker fed, few enough that task records stay in cache */
    tamm__rt.throttle = 256L * cfg->num_workers;
    /* an idle worker polls ~10-40 us before it sleeps, for the latency of the next task; when the
     * node's polling threads outnumber its cores, that polling takes the core from a thread with
     * work, another rank's most often (2 ranks of 2 workers on 2 cores: the random DAGs of
     * tests/rt/mpi took 3 to 4 times longer), so it polls only briefly then.  They are every rank's
     * workers, and each rank's message thread when ranks share the node (one rank per node:
     * its workers alone, as without MPI). */
    long pollers = (long)cfg->local_size * cfg->num_workers + (cfg->local_size > 1 ? cfg->local_size : 0);
    tamm__rt.spin_rounds = pollers > cfg->cores ? TAMM_SPIN_SHARED : TAMM_SPIN_ROUNDS;
    tamm__rt.t0 = tamm__now_ns();
    tamm__mem_reset_stats();
}

static int nothing_pending(void *arg)
{
    (void)arg;
    return tamm__top_pending() == 0;
}

static tamm_tensor *coll_token; /* orders collective tasks in one process (tamm_submit_ex) */

static int top_level_only(const char *what)
{
    if (!tamm__rt.initialised) {
        return tamm__not_init(what);
    }
    tamm__worker *w = tamm__self();
    if (!w) return tamm__error(NULL, TAMM_ESTATE, "%s called from a thread the runtime does not know", what);
    if (w->cur_ctx)
        return tamm__error(w->cur_ctx->task, TAMM_ESTATE,
                           "%s inside a task: a task never blocks (tammcc turns a taskwait into a continuation)", what);
    return TAMM_OK;
}

/* tamm_wait_all for the runtime's own callers (tamm_finalize, the taskwait
 * tammcc generates): an error it returns has not reached the program */
static int wait_all(void);
int tamm__wait_all(void) { return wait_all(); }
static int wait_all(void)
{
    int rc = top_level_only("tamm_wait_all");
    if (rc) return rc;
    if (TAMM_UNLIKELY(tamm__submit_divert)) (void)tamm__scope_flush(); /* kept streaming tasks */
    if (tamm__flow_on) tamm__flow->sync_wait(); /* close accumulation runs; compare streams */
    rc = tamm__help_until(nothing_pending, NULL);
    atomic_store(&tamm__rt.top_waiting, 0);
    tamm__deadlock_detail(rc);
    long stuck = tamm__top_pending();
    if (rc) return tamm__error(NULL, rc, "tamm_wait_all: %ld top-level task%s can never run (each waits for a fence "
                                         "that is never signalled, or for another stuck task)",
                               stuck, stuck == 1 ? "" : "s");
    return tamm__error_take();
}

/* A wait the program called: an error it returns has reached the program. */
static int seen(int rc)
{
    if (rc) tamm__error_seen();
    return rc;
}

int tamm_wait_all(void) { return seen(wait_all()); }

static int xfence_reached(void *arg) { return tamm__xfence_fired(arg); }

/* The blocking execution fence: a fence, then wait until it has fired, that
 * is until every task submitted before it has completed on every rank. */
static int barrier(const char *what)
{
    int rc = top_level_only(what);
    if (rc) return rc;
    if (TAMM_UNLIKELY(tamm__submit_divert)) (void)tamm__scope_flush(); /* kept streaming tasks */
    if (tamm__flow_on) tamm__flow->sync_wait(); /* close accumulation runs; compare streams */
    tamm__xfence *x = tamm__xfence_new();
    rc = tamm__help_until(xfence_reached, x);
    atomic_store(&tamm__rt.top_waiting, 0);
    if (rc) return tamm__error(NULL, rc, "%s: %ld tasks can never run (they wait for fences that are never signalled, "
                                         "or for each other)", what, tamm__top_pending());
    return tamm__error_take();
}

int tamm_barrier(void) { return seen(barrier("tamm_barrier")); }

int tamm_cc_fence(void)
{
    /* the generated code drops the result: an error stays for the program's next wait and its exit */
    int rc = barrier("#pragma tamm fence");
    tamm__error_put_back(rc);
    return rc;
}

/* The non-blocking execution fence: every top-level task submitted after it
 * waits for it (fence.h); the submitting thread goes on at once. */
int tamm_fence_submit(void)
{
    int rc = top_level_only("tamm_fence_submit");
    if (rc) return seen(rc);
    if (TAMM_UNLIKELY(tamm__submit_divert)) (void)tamm__scope_flush(); /* kept streaming tasks */
    tamm__xfence_new();
    return TAMM_OK;
}


/* every child of task p has completed: only its body is pending */
static int children_done(void *arg)
{
    tamm__task_s *p = arg;
    return atomic_load_explicit(&p->pending, memory_order_acquire) == 1;
}

int tamm_cc_taskwait(void)
{
    if (!tamm__rt.initialised) {
        return tamm__not_init("a taskwait");
    }
    tamm__worker *w = tamm__self();
    if (!w || !w->cur_ctx) { /* at top level: every task submitted; the generated code drops the
                                * result, so an error stays for the program's next wait and its exit */
        int rc = wait_all();
        tamm__error_put_back(rc);
        return rc;
    }
    tamm_ctx *ctx = w->cur_ctx;
    tamm__task_s *p = ctx->task;
    if (ctx->unit)
        return tamm__error(p, TAMM_ENOTSUP, "a taskwait in a function called from a task that runs on a GPU");
    int held = tamm__ctx_held(ctx);
    if (held > 0) /* tammcc gives the blocks back before it calls a task function */
        return tamm__error(p, TAMM_ESTATE, "a taskwait in a function called from a task that still holds %d block "
                                           "buffer%s (its children could never get them)", held, held == 1 ? "" : "s");
    if (w->wait_depth >= TAMM_MAX_TASKWAIT_DEPTH)
        return tamm__error(p, TAMM_ENOTSUP, "taskwaits in task functions nest %d deep on one worker (each waiting task "
                                            "runs other tasks on its stack); the limit is %d",
                           w->wait_depth + 1, TAMM_MAX_TASKWAIT_DEPTH);
    w->wait_depth++;
    atomic_fetch_add_explicit(&tamm__rt.nested_waiting, 1, memory_order_seq_cst);
    tamm__worker_flush(w);
    int rc = tamm__help_until_nested(children_done, p);
    int was = atomic_fetch_sub_explicit(&tamm__rt.nested_waiting, 1, memory_order_seq_cst);
    TAMM_ASSERT(was >= 1 && w->wait_depth > 0);
    w->wait_depth--;
    tamm__deadlock_detail(rc);
    if (rc) return tamm__error(p, rc, "a taskwait in a task function: the task's children can never run");
    return TAMM_OK;
}

int tamm__core_quiesce(void)
{
    int rc = wait_all();
    /* execution fences with no task after them: every rank's agreement is
     * under way or to come, and the progress thread must still run it (one
     * rank stopping before its last fence fired would leave the others in the
     * barrier); no task waits for them, so wait_all did not */
    if (tamm__help_until(tamm__xfence_all_fired, NULL) && !rc)
        rc = tamm__error(NULL, TAMM_EDEADLOCK, "tamm_finalize: an execution fence can never be reached");
    return rc;
}

int tamm__core_release(void)
{
    int deadlocked = tamm__top_pending() != 0;
    if (!deadlocked) tamm__tensor_free_all(); /* tasks that can never run still point at their tensors */
    coll_token = NULL;
    tamm__ml_fini(); /* closes (and so frees) the spill file */
    tamm__fence_free_all();
    tamm__xfence_reset();
    for (int i = 0; i < tamm__rt.nthreads; i++) {
        tamm__deque_destroy(&tamm__rt.workers[i].dq);
        tamm__buf_cache_free(&tamm__rt.workers[i].bufs);
    }
    return deadlocked;
}

int tamm__core_end(int rc, int deadlocked)
{
    if (!deadlocked) {
        tamm__pool_destroy(&tamm__rt.task_pool);
        tamm__pool_destroy(&tamm__rt.epoch_pool);
    }
    free(tamm__rt.workers);
    tamm__rt.workers = NULL;
    tamm__tls_worker = NULL;
    pthread_mutex_destroy(&tamm__rt.tensors_lock);
    tamm__rt.initialised = 0;
    int e = tamm__error_take();
    tamm__error_finalized(rc ? rc : e);
    return rc ? rc : e;
}

/* ------------------------------------------------------------------ */
/* waiting on blocks: sentinel tasks                                     */
/* ------------------------------------------------------------------ */
static int sentinel_ready(void *arg)
{
    tamm__task_s *t = arg;
    return atomic_load_explicit(&t->ready_flag, memory_order_acquire) != 0;
}

/* Submit a bodiless task with refs and wait until it may run; the caller
 * then does its work and calls tamm__task_finish_sentinel. */
static int sentinel_wait(const tamm_ref *refs, int n, const char *what, unsigned flags, tamm__task_s **out)
{
    tamm_task sk;
    memset(&sk, 0, sizeof sk);
    sk.refs = refs;
    sk.nrefs = n;
    sk.label = what;
    sk.rank = -1;
    tamm__task_s *t = NULL;
    if (TAMM_UNLIKELY(tamm__submit_divert)) (void)tamm__scope_flush(); /* kept streaming tasks first */
    int rc = tamm__submit(NULL, &sk, NULL, TAMM_TF_SENTINEL | flags, &t);
    if (rc) return rc;
    rc = tamm__help_until(sentinel_ready, t);
    tamm__deadlock_detail(rc);
    if (rc) return tamm__error(NULL, rc, "%s: the tasks using the block can never run", what);
    *out = t;
    return TAMM_OK;
}

static int wait_on(const tamm_ref *refs, int nrefs);
int tamm_wait_on(const tamm_ref *refs, int nrefs) { return seen(wait_on(refs, nrefs)); }

static int wait_on(const tamm_ref *refs, int nrefs)
{
    int rc = top_level_only("tamm_wait_on");
    if (rc) return rc;
    if (nrefs < 0 || (nrefs > 0 && !refs)) return tamm__error(NULL, TAMM_EINVAL, "tamm_wait_on: bad ref list");
    if (nrefs == 0) return TAMM_OK;
    /* every earlier task that uses the blocks, readers included, whatever the refs' modes: the
     * sentinel is a readwrite access (a read one would join the readers' set and not wait) */
    tamm_ref *rw = tamm__xmalloc((size_t)nrefs * sizeof *rw);
    for (int i = 0; i < nrefs; i++) {
        rw[i] = refs[i];
        rw[i].mode = TAMM_READWRITE;
    }
    tamm__task_s *t = NULL;
    rc = sentinel_wait(rw, nrefs, "tamm_wait_on", TAMM_TF_WAIT_ONLY, &t);
    free(rw);
    if (rc) return rc;
    tamm__task_finish_sentinel(t);
    return tamm__error_take();
}

static int block_ref(tamm_tensor *T, const long *idx, int n, unsigned mode, tamm_ref *r, long *lin, const char *what)
{
    if (!T) return tamm__error(NULL, TAMM_EINVAL, "%s: the tensor is NULL", what);
    if (!idx || n != T->ndim)
        return tamm__error(NULL, TAMM_EINVAL, "%s on '%s': %d indices given, the tensor has %d dimensions", what,
                           T->name, idx ? n : 0, T->ndim);
    *lin = tamm__block_lin(T, idx, n);
    if (*lin < 0) {
        char pre[64];
        snprintf(pre, sizeof pre, "%s: ", what);
        return tamm__range_error(NULL, pre, T, idx, n, 0, NULL);
    }
    memset(r, 0, sizeof *r);
    r->tensor = T;
    r->nidx = n;
    memcpy(r->idx, idx, (size_t)n * sizeof(long));
    r->mode = mode;
    return TAMM_OK;
}

/* ------------------------------------------------------------------ */
/* the sequential elision's cancellation                                 */
/* ------------------------------------------------------------------ */
/* A plain build (cc, pragmas ignored) runs a task body such as
 *     #pragma tamm task cwrite(A[0])
 *     { double *a = tamm_block(A, 0); a[0] = 1; if (bad) tamm_cancel(a); }
 * at top level, where tamm_block returns the block's own memory.  For the
 * cancel to leave the block as the tammcc build does (docs/runtime.md
 * "Cancellation": the effects of a cancellable access are committed only if
 * the task does not cancel them),
 * top-level tamm_block in a plain build keeps a copy of the block as it returns
 * it, and top-level tamm_cancel of that memory copies it back; tamm_put and
 * tamm_add of it (commits) drop the copy.  A program holding code that tammcc
 * translated never runs a body at top level: tamm_cc.h's constructor calls
 * tamm_cc_translated() and no copy is kept (docs/runtime.md, "Cancellation"). */
static int translated;
void tamm_cc_translated(void) { translated = 1; }

/* wait for the tasks using block lin of T, then its memory (keep: and a copy for tamm_cancel) */
static void *top_block(tamm_tensor *T, const tamm_ref *r, long lin, int keep)
{
    tamm__task_s *t = NULL;
    if (sentinel_wait(r, 1, "tamm_block", 0, &t)) return NULL;
    tamm__block_s *b = &T->blocks[lin];
    tamm__spin_lock(&b->lock);
    void *home = tamm__block_home(T, lin); /* read back if it was spilled */
    if (T->ml) tamm__ml_top_pin(T, lin);   /* resident while top-level code uses it */
    tamm__spin_unlock(&b->lock);
    if (keep && home) {
        size_t bytes = tamm__block_elems_lin(T, lin) * T->esize;
        if (!T->undo) T->undo = tamm__xcalloc((size_t)T->nblk, sizeof *T->undo);
        if (!T->undo[lin]) T->undo[lin] = tamm__xmalloc(bytes);
        memcpy(T->undo[lin], home, bytes);
    }
    tamm__task_finish_sentinel(t);
    return home;
}

void *tamm_block_at(tamm_tensor *T, const long *idx, int n)
{
    if (!tamm__rt.initialised) {
        (void)tamm__not_init("tamm_block");
        return NULL;
    }
    tamm__worker *w = tamm__self();
    if (w && w->cur_ctx) {
        if (T && idx && n != T->ndim)
            tamm__error(w->cur_ctx->task, TAMM_EINVAL, "tamm_block on '%s': %d indices given, the tensor has %d dimensions",
                        T->name, n, T->ndim);
        return tamm__get_buf(w->cur_ctx, T, idx, n, TAMM_REQ_IMPLICIT);
    }
    if (T && tamm__tensor_gone(T, "tamm_block")) return NULL;
    if (tamm__flow_on) return tamm__flow->block_at(T, idx, n); /* a synchronised copy off the owner */
    tamm_ref r;
    long lin = -1;
    if (block_ref(T, idx, n, TAMM_READWRITE, &r, &lin, "tamm_block")) return NULL;
    return top_block(T, &r, lin, !translated);
}

void *tamm_cc_block_at(tamm_tensor *T, const long *idx, int n, const char *src)
{
    tamm__worker *w = tamm__rt.initialised ? tamm__self() : NULL;
    if (!w || !w->cur_ctx) return tamm_block_at(T, idx, n);
    if (T && idx && n != T->ndim)
        tamm__error(w->cur_ctx->task, TAMM_EINVAL, "tamm_block(%s): %d indices given, the tensor '%s' has %d dimensions",
                    src ? src : "?", n, T->name, T->ndim);
    return tamm__get_buf_src(w->cur_ctx, T, idx, n, TAMM_REQ_IMPLICIT, src);
}

/* ------------------------------------------------------------------ */
/* top-level temps                                                       */
/* ------------------------------------------------------------------ */
typedef struct toptemp { void *ptr; tamm_tensor *T; long idx[TAMM_MAX_DIMS]; int n; size_t bytes; struct toptemp *next; } toptemp;
static pthread_mutex_t temps_lock = PTHREAD_MUTEX_INITIALIZER;
static toptemp *temps;

void *tamm_temp_at(tamm_tensor *T, const long *idx, int n)
{
    if (!tamm__rt.initialised) return NULL;
    tamm__worker *w = tamm__self();
    if (w && w->cur_ctx) return tamm__get_buf(w->cur_ctx, T, idx, n, TAMM_REQ_TMP);
    tamm_ref r;
    long lin = -1;
    if (T && tamm__tensor_gone(T, "tamm_temp")) return NULL;
    if (block_ref(T, idx, n, TAMM_READWRITE, &r, &lin, "tamm_temp")) return NULL;
    toptemp *tt = tamm__xcalloc(1, sizeof *tt);
    tt->bytes = tamm__block_elems_lin(T, lin) * T->esize;
    tt->ptr = tamm__xmalloc(tt->bytes);
    tamm__mem_add(tt->bytes);
    tt->T = T;
    tt->n = n;
    memcpy(tt->idx, idx, (size_t)n * sizeof(long));
    pthread_mutex_lock(&temps_lock);
    tt->next = temps;
    temps = tt;
    pthread_mutex_unlock(&temps_lock);
    return tt->ptr;
}

/* The tensor and block whose memory (home) is p, if any. */
static int find_home(const void *p, tamm_tensor **TT, long *lin)
{
    int found = 0;
    pthread_mutex_lock(&tamm__rt.tensors_lock);
    for (tamm_tensor *T = tamm__rt.tensors; T && !found; T = T->next_live)
        for (long b = 0; b < T->nblk; b++)
            if (T->blocks[b].home == p) {
                *TT = T;
                *lin = b;
                found = 1;
                break;
            }
    pthread_mutex_unlock(&tamm__rt.tensors_lock);
    return found;
}

/* Top-level tamm_put / tamm_add / tamm_cancel of block lin's memory p (from
 * tamm_block): a put or add ends the use (the writes are in the block) and
 * drops the copy kept for a cancel; a cancel copies it back (see "the
 * sequential elision's cancellation"). */
static int home_release(tamm_tensor *T, long lin, tamm__relkind how)
{
    char bn[128];
    void *undo = T->undo ? T->undo[lin] : NULL;
    if (how != TAMM_REL_CANCEL) {
        if (undo) {
            free(undo);
            T->undo[lin] = NULL;
        }
        return TAMM_OK;
    }
    if (!undo) {
        if (translated)
            return tamm__error(NULL, TAMM_ECANCEL,
                               "tamm_cancel on the memory of %s, which tamm_block returned at top level: outside a task "
                               "nothing is cancellable (cancel inside a task whose clause makes the block cancellable: "
                               "cwrite, creadwrite, caccum; or write into tamm_temp and tamm_put it)",
                               tamm__block_name(T, lin, bn, sizeof bn));
        return tamm__error(NULL, TAMM_EBUF, "tamm_cancel on the memory of %s: already put or cancelled since tamm_block "
                           "returned it", tamm__block_name(T, lin, bn, sizeof bn));
    }
    tamm_ref r;
    long idx[TAMM_MAX_DIMS], l2 = -1;
    tamm__block_idx(T, lin, idx);
    int rc = block_ref(T, idx, T->ndim, TAMM_READWRITE, &r, &l2, "tamm_cancel");
    void *home = rc ? NULL : top_block(T, &r, lin, 0);
    if (home) memcpy(home, undo, tamm__block_elems_lin(T, lin) * T->esize);
    free(undo);
    T->undo[lin] = NULL;
    return home ? TAMM_OK : TAMM_EINVAL;
}

static int top_release(void *buf, tamm__relkind how)
{
    pthread_mutex_lock(&temps_lock);
    toptemp **p = &temps, *tt = NULL;
    for (; *p; p = &(*p)->next)
        if ((*p)->ptr == buf) {
            tt = *p;
            *p = tt->next;
            break;
        }
    pthread_mutex_unlock(&temps_lock);
    if (!tt) {
        /* a pointer from tamm_block (see home_release); anything else is misuse */
        tamm_tensor *T = NULL;
        long lin = -1;
        if (buf && find_home(buf, &T, &lin)) return home_release(T, lin, how);
        return tamm__error(NULL, TAMM_EBUF, "%s(%p): not a live buffer from tamm_temp or tamm_block (released twice?)",
                           how == TAMM_REL_PUT ? "tamm_put" : how == TAMM_REL_ADD ? "tamm_add" : "tamm_cancel", buf);
    }
    int rc = TAMM_OK;
    if (how != TAMM_REL_CANCEL) {
        void *home = tamm_block_at(tt->T, tt->idx, tt->n);
        if (home)
            tamm__xfer_host(how == TAMM_REL_ADD ? TAMM_XK_ACCALL : TAMM_XK_PUT, home, tt->ptr, tt->bytes, tt->T->dtype);
        else
            rc = TAMM_EINVAL;
    }
    tamm__mem_sub(tt->bytes);
    free(tt->ptr);
    free(tt);
    return rc;
}

static int put_add_cancel(void *buf, tamm__relkind how)
{
    if (!tamm__rt.initialised) return TAMM_ESTATE;
    tamm__worker *w = tamm__self();
    if (w && w->cur_ctx) return tamm__release(w->cur_ctx, buf, how);
    return top_release(buf, how);
}

int tamm_put(void *buf) { return put_add_cancel(buf, TAMM_REL_PUT); }
int tamm_add(void *buf) { return put_add_cancel(buf, TAMM_REL_ADD); }
int tamm_cancel(void *buf) { return put_add_cancel(buf, TAMM_REL_CANCEL); }

/* ------------------------------------------------------------------ */
/* gather / scatter                                                      */
/* ------------------------------------------------------------------ */
/* Copy one block between its home (row-major tile) and a whole row-major array. */
void tamm__block_copy(tamm_tensor *T, long lin, void *home, void *arr, int to_arr)
{
    long bidx[TAMM_MAX_DIMS];
    tamm__block_idx(T, lin, bidx);
    size_t ext[TAMM_MAX_DIMS], off[TAMM_MAX_DIMS], stride[TAMM_MAX_DIMS];
    int nd = T->ndim;
    for (int d = 0; d < nd; d++) {
        off[d] = (size_t)bidx[d] * T->tile[d];
        ext[d] = tamm_block_extent(T, d, bidx[d]);
    }
    stride[nd - 1] = 1;
    for (int d = nd - 2; d >= 0; d--) stride[d] = stride[d + 1] * T->dims[d + 1];
    size_t row = ext[nd - 1] * T->esize;
    size_t cnt[TAMM_MAX_DIMS] = { 0 };
    char *h = home;
    for (;;) {
        size_t aoff = off[nd - 1];
        for (int d = 0; d < nd - 1; d++) aoff += (off[d] + cnt[d]) * stride[d];
        char *a = (char *)arr + aoff * T->esize;
        if (to_arr) memcpy(a, h, row); else memcpy(h, a, row);
        h += row;
        int d = nd - 2;
        while (d >= 0 && ++cnt[d] == ext[d]) { cnt[d] = 0; d--; }
        if (d < 0) break;
    }
}

/* A gather or a scatter is a set of CPU tasks, each copying a run of blocks (a read of each
 * for a gather, a write for a scatter), then a wait for them: the copies run in parallel on
 * the workers, each as soon as its blocks are ready, so that a block a GPU changed is copied
 * back for its task alone while other blocks are still computed or copied, and a block beyond
 * the host memory limit is read back for its task like any other. */
typedef struct { tamm_tensor *T; char *arr; long b0, b1; int to_arr; } whole_args;

static void whole_copy(tamm_ctx *ctx, void *p)
{
    whole_args *a = p;
    for (long b = a->b0; b < a->b1; b++) {
        long idx[TAMM_MAX_DIMS];
        tamm__block_idx(a->T, b, idx);
        void *buf = a->to_arr ? tamm_get_buf_read(ctx, a->T, idx) : tamm_get_buf_write(ctx, a->T, idx);
        if (!buf) continue; /* the task's error is reported (TAMM_ON_ERROR=return) */
        tamm__block_copy(a->T, b, buf, a->arr, a->to_arr);
        if (a->to_arr) tamm_release_cancel(ctx, buf);
        else tamm_release_put(ctx, buf);
    }
}

/* Blocks per copy task: enough tasks to keep every worker busy (4 each), none over 4 MiB
 * unless one block is, and one block per task under a host memory limit (admission). */
static long whole_chunk(const tamm_tensor *T)
{
    long nw = tamm__rt.nworkers > 0 ? tamm__rt.nworkers : 1;
    size_t bb = T->esize;
    for (int d = 0; d < T->ndim; d++) bb *= T->tile[d];
    long by_tasks = (T->nblk + 4 * nw - 1) / (4 * nw);
    long by_bytes = bb ? (long)(((size_t)4 << 20) / bb) : T->nblk;
    long c = by_tasks < by_bytes ? by_tasks : by_bytes;
    return T->ml || c < 1 ? 1 : c;
}

static int whole(tamm_tensor *T, void *arr, int to_arr, const char *what)
{
    int rc = top_level_only(what);
    if (rc) return rc;
    if (!T || !arr) return tamm__error(NULL, TAMM_EINVAL, "%s: %s is NULL", what, T ? "the array" : "the tensor");
    if (tamm__tensor_gone(T, what)) return TAMM_EINVAL;
    if (tamm__flow_on) return tamm__flow->whole(T, arr, to_arr);
    if (TAMM_UNLIKELY(tamm__submit_divert)) (void)tamm__scope_flush(); /* kept streaming tasks first */
    long chunk = whole_chunk(T);
    tamm_ref *refs = tamm__xmalloc((size_t)chunk * sizeof *refs);
    for (long b0 = 0; b0 < T->nblk && !rc; b0 += chunk) {
        long b1 = b0 + chunk < T->nblk ? b0 + chunk : T->nblk;
        memset(refs, 0, (size_t)chunk * sizeof *refs);
        for (long b = b0; b < b1; b++) {
            tamm_ref *r = &refs[b - b0];
            r->tensor = T;
            r->nidx = T->ndim;
            tamm__block_idx(T, b, r->idx);
            r->mode = to_arr ? TAMM_READ : TAMM_WRITE;
        }
        whole_args a = { T, arr, b0, b1, to_arr };
        tamm_task t;
        memset(&t, 0, sizeof t);
        t.cpu = whole_copy;
        t.args = &a;
        t.args_size = sizeof a;
        t.refs = refs;
        t.nrefs = (int)(b1 - b0);
        t.label = what;
        t.rank = -1;
        rc = tamm__submit(NULL, &t, NULL, 0, NULL);
    }
    free(refs);
    if (rc) return rc;
    /* wait for the copies (the sentinel orders after readers too: a read-write wait) */
    tamm_ref r;
    memset(&r, 0, sizeof r);
    r.tensor = T;
    r.nidx = 0;
    r.mode = TAMM_READWRITE;
    tamm__task_s *s = NULL;
    rc = sentinel_wait(&r, 1, what, TAMM_TF_WAIT_ONLY, &s);
    if (rc) return rc;
    tamm__task_finish_sentinel(s);
    return tamm__error_take();
}

int tamm_tensor_gather(tamm_tensor *T, void *dst) { return whole(T, dst, 1, "tamm_tensor_gather"); }
int tamm_tensor_scatter(tamm_tensor *T, const void *src) { return whole(T, (void *)src, 0, "tamm_tensor_scatter"); }

/* ------------------------------------------------------------------ */
/* small public entry points                                             */
/* ------------------------------------------------------------------ */
int tamm_submit(tamm_ctx *ctx, const tamm_task *t) { return tamm__submit(ctx, t, NULL, 0, NULL); }
/* Collective tasks never overlap (docs/runtime.md "Collective tasks").  Several
 * ranks: the task flow orders them (mpi_flow.c).  One process: each top-level
 * collective also writes a hidden one-block tensor (coll_token), so that they
 * run one after another, in submission order, while ordinary tasks interleave. */

static int submit_local_collective(const tamm_task *t, const tamm_task_opts *o)
{
    if (!coll_token) {
        size_t one = 1;
        coll_token = tamm_tensor_create("tamm:collectives", TAMM_I32, 1, &one, &one);
        if (!coll_token) return TAMM_ENOMEM;
    }
    if (t->nrefs < 0 || (t->nrefs > 0 && !t->refs)) return tamm__submit(NULL, t, o, 0, NULL); /* its error */
    tamm_ref *refs = tamm__xmalloc((size_t)(t->nrefs + 1) * sizeof *refs);
    if (t->nrefs) memcpy(refs, t->refs, (size_t)t->nrefs * sizeof *refs);
    memset(&refs[t->nrefs], 0, sizeof refs[t->nrefs]);
    refs[t->nrefs].tensor = coll_token;
    refs[t->nrefs].nidx = 0;
    refs[t->nrefs].mode = TAMM_WRITE | TAMM_PERMISSION_ONLY;
    tamm_task u = *t;
    u.refs = refs;
    u.nrefs = t->nrefs + 1;
    int rc = tamm__submit(NULL, &u, o, 0, NULL);
    free(refs);
    return rc;
}

int tamm_submit_ex(tamm_ctx *ctx, const tamm_task *t, const tamm_task_opts *o)
{
    if (o && o->outside_store && t && tamm__rt.nranks > 1) {
        tamm__where at = { t->label, t->file, t->line };
        return tamm__error_where(&at, TAMM_ENOTSUP, "the task stores to %s, outside any tensor: with %d ranks the "
                                 "task runs on one rank and the others never see that store; keep the result in a "
                                 "tensor block", o->outside_store, tamm__rt.nranks);
    }
    if (o && o->collective && t && !ctx && tamm__rt.initialised && !tamm__flow_on) {
        tamm__worker *w = tamm__self();
        if (w && !w->cur_ctx) return submit_local_collective(t, o); /* top level */
    }
    return tamm__submit(ctx, t, o, 0, NULL);
}

tamm_ctx *tamm_current_ctx(void)
{
    tamm__worker *w = tamm__self();
    return w ? w->cur_ctx : NULL;
}

const char *tamm_ctx_label(const tamm_ctx *ctx) { return ctx && ctx->task ? ctx->task->label : NULL; }

int tamm_streaming_begin(void)
{
    int rc = top_level_only("tamm_streaming_begin");
    if (rc) return rc;
    tamm__scope_begin();
    return TAMM_OK;
}
int tamm_streaming_end(void)
{
    int rc = top_level_only("tamm_streaming_end");
    if (rc) return rc;
    if (tamm__scope_depth() == 0) return tamm__error(NULL, TAMM_ESTATE, "tamm_streaming_end without tamm_streaming_begin");
    return tamm__scope_end(); /* the outermost: the kept tasks are submitted, column by column */
}
