/*
 * cuda_worker.c — GPUs in the runtime: discovery (TAMM_NUM_GPUS,
 * TAMM_CUDA_MEMORY_LIMIT), dispatch of ready tasks to the CPU or a GPU, and
 * one CUDA worker thread per GPU (gpu.h, docs/runtime.md "GPUs").
 *
 * Dispatch (tamm__gpu_route, called when a task becomes ready): the policy
 * (sched_gpu.c) picks the unit; before the task may run there, every copy of
 * its blocks that another unit holds newer than the home is flushed (and a
 * partial sum anywhere, unless the task only accumulates): the task is parked
 * with one start condition per flush, and routed again when they are done.
 * A task dispatched to the CPU that may change blocks makes their GPU copies
 * stale (the block's version).
 *
 * The CUDA worker owns its device: it issues each task on one of a few
 * reusable streams (fewest tasks in flight), runs the task's CUDA variant on
 * its thread (the variant's get_buf calls bring blocks in with asynchronous
 * copies, after cudaStreamWaitEvent on whatever another stream did to them
 * last), records an event, and finds completed events by polling them in its
 * progress loop (never from a stream callback, never blocking a CPU worker);
 * then it finishes the record and completes the task.  It sleeps on a
 * condition variable when it has nothing in flight and nothing queued, and
 * polls with a growing pause while work is in flight.
 *
 * Under TAMM_MEMORY_LIMIT a task is admitted on the host when the worker is
 * about to issue it (tamm__ml_admit_unit): the homes it reads are read back
 * first (it waits in the GPU's reading list meanwhile), and a task that does
 * not fit waits in the GPU's list of refused tasks, tried again in order once
 * host memory is given back (tamm__ml_wake), while the tasks queued behind it
 * are tried in turn (a nested one among them may be what frees that memory).
 */
#include "buffer.h"
#include "error.h"
#include "tamm_assert.h"
#include "fence.h"
#include "gpu.h"
#include "memlimit.h"
#include "perm.h"
#include "runtime.h"
#include "tensor.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

tamm__gpus_t tamm__gpus;
void (*tamm__gpu_recorder)(tamm__gpu *g, tamm__pend *r, uint64_t from, uint64_t to);
static _Thread_local tamm__pend *cur_rec; /* the record of the GPU task running on this thread */
static _Thread_local tamm__gpu *cur_gpu;

#define OPS (tamm__gpus.ops)

/* ------------------------------------------------------------------ */
/* public                                                                */
/* ------------------------------------------------------------------ */
int tamm_num_gpus(void) { return tamm__gpus.n; }
void *tamm_cuda_stream(void) { return cur_rec ? cur_gpu->stream[cur_rec->stream] : NULL; }
void *tamm_cublas_handle(void) { return cur_rec ? cur_gpu->blas[cur_rec->stream] : NULL; }

/* The libraries CUDA variants call through the runtime (TAMM_CUBLAS, TAMM_CUSOLVER): whether every
 * GPU can serve lib, decided once per run (cuBLAS: a handle on every task stream, made at start;
 * cuSOLVER: libcusolver loaded on the first question), with a warning for a real device that cannot. */
static pthread_mutex_t libs_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *const lib_names[2] = { "cuBLAS", "cuSOLVER" };

static int lib_usable(unsigned lib)
{
    int i = lib == TAMM_CUSOLVER;
    int st = atomic_load(&tamm__gpus.lib_state[i]); /* 0: not decided, 1: usable, 2: not */
    if (st) return st == 1;
    pthread_mutex_lock(&libs_lock);
    st = atomic_load(&tamm__gpus.lib_state[i]);
    if (!st) {
        int ok = i == 0 ? tamm__gpus.blas_ok : OPS->lib_open(lib) == 0;
        if (!ok && i == 1) snprintf(tamm__gpus.libs_why[1], sizeof tamm__gpus.libs_why[1], "%s", OPS->error());
        if (!ok && OPS == &tamm__devops_cuda)
            fprintf(stderr, "tamm: warning: %s cannot be used (%s): the tasks whose CUDA variant calls it run on the "
                            "CPUs\n", lib_names[i], tamm__gpus.libs_why[i]);
        st = ok ? 1 : 2;
        atomic_store(&tamm__gpus.lib_state[i], st);
    }
    pthread_mutex_unlock(&libs_lock);
    return st == 1;
}

int tamm_cuda_libs(unsigned libs)
{
    if (tamm__gpus.n == 0 || (libs & ~(unsigned)(TAMM_CUBLAS | TAMM_CUSOLVER))) return 0;
    if ((libs & TAMM_CUBLAS) && !lib_usable(TAMM_CUBLAS)) return 0;
    if ((libs & TAMM_CUSOLVER) && !lib_usable(TAMM_CUSOLVER)) return 0;
    return 1;
}

void *tamm_cuda_lib_sym(unsigned lib, const char *name)
{
    if (tamm__gpus.n == 0 || (lib != TAMM_CUBLAS && lib != TAMM_CUSOLVER) || !name || !lib_usable(lib)) return NULL;
    return OPS->lib_sym(lib, name);
}

void *tamm_cusolver_handle(void)
{
    if (!cur_rec || cur_rec->stream < 0) return NULL;
    tamm__gpu *g = cur_gpu;
    int k = cur_rec->stream;
    if (!g->solver[k] && !g->solver_failed[k]) { /* the CUDA worker's thread: no other touches g->solver */
        if (!lib_usable(TAMM_CUSOLVER) || OPS->solver_create(&g->solver[k], g->stream[k])) {
            g->solver[k] = NULL;
            g->solver_failed[k] = 1;
        }
    }
    return g->solver[k];
}

void *tamm_cuda_scratch(size_t bytes) { return cur_rec ? tamm__unit_scratch(cur_gpu, cur_rec, bytes) : NULL; }

void *tamm__gpu_get_buf(tamm_ctx *ctx, tamm_tensor *T, long lin, int req, int implicit, int canc)
{
    return tamm__unit_get(cur_gpu, (tamm__pend *)ctx->unit, ctx, T, lin, req, implicit, canc);
}

/* a GPU's memory as a memory unit of the core (layer.h) */
const tamm__unit_ops tamm__gpu_unit_ops = { "GPU", tamm__gpu_get_buf, tamm__unit_release };

/* TAMM_MEMORY_LIMIT: host memory may have been given back; a worker waiting for it tries again */
static void mem_wake(void)
{
    atomic_fetch_add(&tamm__gpus.mem_gen, 1);
    for (int i = 0; i < tamm__gpus.n; i++) {
        tamm__gpu *g = &tamm__gpus.g[i];
        /* (none waiting now: one that starts to wait read mem_gen before it tried, so it sees this bump) */
        if (!atomic_load(&g->nwaiting)) continue;
        pthread_mutex_lock(&g->req_lock);
        pthread_cond_signal(&g->cond);
        pthread_mutex_unlock(&g->req_lock);
    }
}

/* the CUDA workers as executors of ready tasks (layer.h) */
static const tamm__route_ops gpu_router = { tamm__gpu_route, tamm__gpu_cpu_ran };

/* the blocks' state in the GPUs' memories, per tensor (layer.h) */
static int tgpu_created(tamm_tensor *T)
{
    T->gpu = tamm__tgpu_new(T, tamm__gpus.n);
    return TAMM_OK;
}
static const tamm__tensor_hooks tgpu_hooks = { tgpu_created, tamm__tgpu_free };

void tamm__gpu_fail(tamm__gpu *g, const tamm__task_s *t, const char *what)
{
    /* the cause first: tasks routed once fatal is seen report theirs after it */
    tamm__error(t, TAMM_ENOTSUP, "GPU %d (%s): %s: %s", g->id, g->info.name, what, OPS->error());
    g->fatal = 1;
}

/* ------------------------------------------------------------------ */
/* records                                                               */
/* ------------------------------------------------------------------ */
tamm__pend *tamm__rec_get(tamm__gpu *g)
{
    tamm__pend *r = g->free_recs;
    if (r) {
        g->free_recs = r->next;
    } else {
        r = tamm__xcalloc(1, sizeof *r);
        if (OPS->event_create(&r->ev)) {
            tamm__gpu_fail(g, NULL, "creating an event");
            r->ev = NULL;
        }
    }
    atomic_fetch_add(&g->live_recs, 1);
    r->next = NULL;
    r->closed = 0;
    r->task = NULL;
    r->reserved = 0;
    r->est_ns = 0;
    r->nitems = r->nwaiters = r->ntcopies = r->nholds = 0;
    r->home_reads = r->ahead = 0;
    return r;
}

static void rec_put(tamm__gpu *g, tamm__pend *r)
{
    int live = atomic_fetch_sub(&g->live_recs, 1);
    TAMM_ASSERT(live >= 1); /* a record goes back once */
    r->seq++;
    r->next = g->free_recs;
    g->free_recs = r;
}

static void rec_destroy_all(tamm__gpu *g)
{
    while (g->free_recs) {
        tamm__pend *r = g->free_recs;
        g->free_recs = r->next;
        if (r->ev) OPS->event_destroy(r->ev);
        free(r->items);
        free(r->waiters);
        free(r->tcopies);
        free(r->holds);
        free(r);
    }
}

/* ------------------------------------------------------------------ */
/* dispatch                                                              */
/* ------------------------------------------------------------------ */
typedef struct { tamm_tensor *T; long lin; int h; } flushneed;
typedef struct { flushneed *v; int n, cap; flushneed inl[16]; } needvec;

static void need_add(needvec *nv, tamm_tensor *T, long lin, int h)
{
    if (nv->n == nv->cap) {
        int nc = nv->cap * 2;
        flushneed *n = tamm__xmalloc((size_t)nc * sizeof *n);
        memcpy(n, nv->v, (size_t)nv->n * sizeof *n);
        if (nv->v != nv->inl) free(nv->v);
        nv->v = n;
        nv->cap = nc;
    }
    nv->v[nv->n++] = (flushneed){ T, lin, h };
}

/* The flushes block (T, b) needs before a task with permission perm runs on unit. */
static void block_needs(needvec *nv, tamm_tensor *T, long b, unsigned perm, int unit)
{
    tamm__gblk *gb = &T->gpu->blk[b];
    unsigned w = atomic_load(&gb->dirty_w), a = atomic_load(&gb->dirty_a);
    if ((perm & (7u | TAMM__PERM_ORDERED)) == TAMM_ACCUM) a = 0; /* partial sums and accumulations commute (not
                                                                     * in submission order: ordered ones wait) */
    if (unit > 0) w &= ~(1u << (unit - 1)); /* the unit's own newer copy is what it uses */
    for (unsigned m = w | a; m; m &= m - 1) need_add(nv, T, b, __builtin_ctz(m));
}

static void post_flush(tamm__gpu *g, tamm_tensor *T, long lin, tamm__task_s *t)
{
    pthread_mutex_lock(&g->req_lock);
    if (g->nreqs == g->capreqs) {
        g->capreqs = g->capreqs ? 2 * g->capreqs : 64;
        g->reqs = tamm__xrealloc(g->reqs, (size_t)g->capreqs * sizeof *g->reqs);
    }
    g->reqs[g->nreqs++] = (tamm__flushreq){ T, lin, t };
    pthread_cond_signal(&g->cond);
    pthread_mutex_unlock(&g->req_lock);
}

/* The home of every block t may change on the CPU is about to change: GPU copies become stale. */
static void cpu_writes(const tamm__task_s *t)
{
    for (int i = 0; i < t->ndep; i++) {
        const tamm__dep *d = &t->dep[i];
        if (!(d->perm & (TAMM_WRITE | TAMM_ACCUM)) || !d->T->gpu) continue;
        long b0 = d->lin >= 0 ? d->lin : 0, b1 = d->lin >= 0 ? d->lin + 1 : d->T->nblk;
        for (long b = b0; b < b1; b++) {
            atomic_fetch_add(&d->T->gpu->blk[b].ver, 1);
            atomic_store(&d->T->gpu->blk[b].valid, 0);
        }
    }
}

int tamm__gpu_route(tamm__task_s *t)
{
    int sentinel = (t->flags & TAMM_TF_SENTINEL) != 0;
    int unit = 0;
    double est = 0;
    /* reproducible accumulation: a kernel may add in another order or contract a*b+c
     * into an FMA, so a task with an ordered accumulation runs its CPU variant */
    if (!sentinel && t->cuda && !(t->cpu && (t->flags & TAMM_TF_ORDERED))) {
        size_t fp = tamm__task_footprint(t);
        tamm__pick_in in;
        tamm__gpu_pick_input(t, fp, &in);
        unit = tamm__gpu_pick(tamm__rt.cfg.gpu_sched, &in);
        if (unit < 0) {
            int failed = 0; /* a GPU that could hold it failed: not a lack of memory */
            for (int i = 0; i < tamm__gpus.n; i++) failed |= tamm__gpus.g[i].fatal && fp <= tamm__gpus.g[i].limit;
            tamm__error(t, failed ? TAMM_ENOTSUP : TAMM_ENOMEM, "the task has only a CUDA variant and no GPU can take "
                        "it: its blocks need %zu bytes, TAMM_CUDA_MEMORY_LIMIT allows %zu%s", fp, tamm__gpus.g[0].limit,
                        failed ? " (and the GPU failed)" : "");
            atomic_fetch_add_explicit(&tamm__rt.nskipped, 1, memory_order_relaxed); /* TAMM_STATS */
            tamm__task_body_done(t); /* under TAMM_ON_ERROR=return: skipped, so nothing waits forever */
            return 1;
        }
        est = tamm__eft_duration(&in, unit > 0);
    }
    needvec nv = { NULL, 0, 16, { { 0 } } };
    nv.v = nv.inl;
    for (int i = 0; i < t->ndep; i++) {
        const tamm__dep *d = &t->dep[i];
        if (!d->T->gpu) continue;
        if (d->lin >= 0) block_needs(&nv, d->T, d->lin, d->perm, unit);
        else for (long b = 0; b < d->T->nblk; b++) block_needs(&nv, d->T, b, d->perm, unit);
    }
    if (nv.n) {
        /* park: one start condition per flush, plus a guard while posting */
        atomic_store(&t->deps, nv.n + 1);
        for (int i = 0; i < nv.n; i++) post_flush(&tamm__gpus.g[nv.v[i].h], nv.v[i].T, nv.v[i].lin, t);
        if (nv.v != nv.inl) free(nv.v);
        tamm__task_dep_satisfied(t); /* routes t again once every flush is done */
        return 1;
    }
    t->est_ns = est; /* taken back when it has run (cpu_ran, complete) */
    if (unit == 0) {
        if (!(t->flags & TAMM_TF_WAIT_ONLY)) cpu_writes(t);
        if (sentinel) return 0;
        atomic_fetch_add(&tamm__gpus.cpu_running, 1);
        double b = atomic_load(&tamm__gpus.cpu_busy_ns);
        while (!atomic_compare_exchange_weak(&tamm__gpus.cpu_busy_ns, &b, b + est)) {}
        tamm__worker *w = tamm__self();
        if (w && w->id >= tamm__rt.nworkers) { /* a CUDA worker's thread: CPU workers take it from the shared queue */
            if (tamm__ml_on && !tamm__ml_admit(t)) return 1; /* (queued by the host memory limit once it fits) */
            tamm__rt.sched->push(NULL, t);
            tamm__wake_one();
            return 1;
        }
        return 0;
    }
    tamm__gpu *g = &tamm__gpus.g[unit - 1];
    atomic_fetch_add(&g->queued, 1);
    double b = atomic_load(&g->busy_ns);
    while (!atomic_compare_exchange_weak(&g->busy_ns, &b, b + est)) {}
    tamm__taskq_push_prio(&g->q, t);
    pthread_mutex_lock(&g->req_lock);
    pthread_cond_signal(&g->cond);
    pthread_mutex_unlock(&g->req_lock);
    return 1;
}

void tamm__gpu_cpu_ran(tamm__task_s *t, uint64_t ns)
{
    atomic_fetch_sub(&tamm__gpus.cpu_running, 1);
    double est = t->est_ns, b = atomic_load(&tamm__gpus.cpu_busy_ns);
    while (!atomic_compare_exchange_weak(&tamm__gpus.cpu_busy_ns, &b, b > est ? b - est : 0)) {}
    if (t->cuda) tamm__perf_record(t->label, tamm__task_footprint(t), 0, (double)ns);
}

int tamm__gpu_busy(void)
{
    for (int i = 0; i < tamm__gpus.n; i++) {
        tamm__gpu *g = &tamm__gpus.g[i];
        if (atomic_load(&g->queued) || atomic_load(&g->running) || atomic_load(&g->live_recs) || atomic_load(&g->nwaiting))
            return 1;
        pthread_mutex_lock(&g->req_lock);
        int r = g->nreqs;
        pthread_mutex_unlock(&g->req_lock);
        if (r) return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* the CUDA worker                                                       */
/* ------------------------------------------------------------------ */
static void complete(tamm__gpu *g, tamm__pend *r, int k)
{
    tamm__task_s *t = r->task;
    /* a stream runs its records in order: r ran from its issue, or the previous one's completion, to now */
    uint64_t now = tamm__now_ns();
    uint64_t from = r->t_issue > g->last_done[k] ? r->t_issue : g->last_done[k];
    g->last_done[k] = now;
    /* recorded before the record's waiters run: one may destroy a tensor its copies name */
    if (TAMM_UNLIKELY(tamm__rt.recording) && tamm__gpu_recorder) tamm__gpu_recorder(g, r, from, now);
    tamm__unit_complete(g, r);
    if (t) {
        g->inflight[k]--;
        pthread_mutex_lock(&g->lock);
        g->reserved -= r->reserved;
        pthread_mutex_unlock(&g->lock);
        tamm__perf_record(t->label, r->reserved, g->id + 1, (double)(now - from));
        double b = atomic_load(&g->busy_ns);
        while (!atomic_compare_exchange_weak(&g->busy_ns, &b, b > r->est_ns ? b - r->est_ns : 0)) {}
        if (r->ctx.recs != r->ctx.inl) free(r->ctx.recs);
        if (t->flags & TAMM_TF_MLRES) tamm__ml_done(t); /* its pins on the host (TAMM_MEMORY_LIMIT) */
        atomic_fetch_add_explicit(&g->ntasks, 1, memory_order_relaxed);
        atomic_store_explicit(&g->w->ntasks, atomic_load_explicit(&g->w->ntasks, memory_order_relaxed) + 1,
                              memory_order_relaxed);
        rec_put(g, r);
        int running = atomic_fetch_sub(&g->running, 1);
        TAMM_ASSERT(running >= 1);
        tamm__task_body_done(t);
        return;
    }
    rec_put(g, r);
}

/* Finish every record whose event has fired.  A failed query is reported and
 * the record finished anyway: results are then wrong, but nothing hangs. */
static int inflight(tamm__gpu *g);
static int poll(tamm__gpu *g)
{
    int did = 0;
    if (TAMM_UNLIKELY(g->fatal) && inflight(g)) {
        /* the GPU failed: its records are finished without their events, but only once the work
         * already issued has stopped touching homes and staging (it still runs after an error) */
        for (int k = 0; k < g->nstreams; k++) OPS->sync(g->stream[k]);
        OPS->sync(g->copy_stream);
    }
    for (int k = 0; k <= TAMM_GPU_STREAMS; k++) {
        tamm__pend *r;
        while ((r = g->fifo_head[k])) {
            int q = g->fatal ? 1 : OPS->query(r->ev);
            if (q == 0) break;
            if (q < 0) tamm__gpu_fail(g, r->task, "waiting for an event");
            g->fifo_head[k] = r->next;
            if (!r->next) g->fifo_tail[k] = NULL;
            complete(g, r, k);
            did = 1;
        }
    }
    return did;
}

static int serve_requests(tamm__gpu *g)
{
    pthread_mutex_lock(&g->req_lock);
    int n = g->nreqs;
    if (!n) { pthread_mutex_unlock(&g->req_lock); return 0; }
    tamm__flushreq *v = g->reqs; /* take them all: the producers fill the spare array meanwhile */
    int cap = g->capreqs;
    g->reqs = g->spare;
    g->capreqs = g->capspare;
    g->spare = NULL;
    g->nreqs = 0;
    pthread_mutex_unlock(&g->req_lock);
    int did = 0;
    for (int i = 0; i < n; i++) {
        if (tamm__unit_flush(g, &v[i])) { did = 1; continue; }
        pthread_mutex_lock(&g->req_lock); /* its copy is in use: retry after a completion */
        if (g->nreqs == g->capreqs) {
            g->capreqs = g->capreqs ? 2 * g->capreqs : 64;
            g->reqs = tamm__xrealloc(g->reqs, (size_t)g->capreqs * sizeof *g->reqs);
        }
        g->reqs[g->nreqs++] = v[i];
        pthread_mutex_unlock(&g->req_lock);
    }
    pthread_mutex_lock(&g->req_lock);
    g->spare = v; /* kept for the next round */
    g->capspare = cap;
    pthread_mutex_unlock(&g->req_lock);
    return did;
}

/* May task t, just issued as record r, end its dependences now (GrCUDA's ordering: its
 * successors start while its device work is in flight)?  Sound when every successor is
 * ordered after that work by the device or by a flush:
 *   - on this GPU, get_buf makes it wait for r's event (use_read / use_write), or it runs
 *     on r's stream;
 *   - on another unit (the CPU, another GPU, a top-level wait, a tensor's destruction),
 *     each block t wrote is Dirty / DirtyAcc here, so dispatch first flushes it, and the
 *     flush waits for r's event; a block t only read is not touched here, so a successor
 *     that writes its home must not start while r still copies from that home: no early
 *     end after such a Get (home_reads).  Destroyed tensors' buffers are freed after what
 *     is issued (tamm__unit_drain_frees).
 * A write-back (Put) of a Dirty copy that t reads is allowed: the block stays marked dirty
 * on this GPU until r completes, so any other unit still waits for that completion.
 * Anything else falls back to completion: work the completion itself applies to homes
 * (items: sums, commits of private buffers), private buffers, nested
 * children, fences, errors under TAMM_ON_ERROR=return (the task may be skipped or cut
 * short), a failed device, several ranks (the MPI flow's messages), a prefetch of one of
 * its blocks still copying from the home (as a Get of its own), recording (the trace
 * of r names its tensors at completion), TAMM_CUDA_EARLY=0. */
static int early_end(tamm__gpu *g, tamm__pend *r, tamm__task_s *t)
{
    if (!tamm__rt.cfg.cuda_early || g->fatal || r->home_reads || tamm__rt.recording) return 0;
    for (int i = 0; i < r->nitems; i++) /* a write-back of a copy read: the block stays dirty until it lands */
        if (r->items[i].kind != TAMM_PI_PUT) return 0;
    if (t->flags & (TAMM_TF_SIGNALS | TAMM_TF_DESTROY | TAMM_TF_COLLECTIVE | TAMM_TF_SENTINEL)) return 0;
    if (atomic_load_explicit(&t->pending, memory_order_acquire) != 1 || tamm__error_returns() || tamm__rt.nranks > 1)
        return 0;
    for (int i = 0; i < r->ctx.n; i++) {
        unsigned k = r->ctx.recs[i].kind;
        if (k != TAMM_BK_READ && k != TAMM_BK_WRITE && k != TAMM_BK_RW && k != TAMM_BK_ACC_INPLACE) return 0;
    }
    return !tamm__unit_home_busy(g, t); /* a prefetch from one of its homes is in flight: as a Get */
}

static void run_task(tamm__gpu *g, tamm__task_s *t, int s, size_t fp)
{
    tamm__pend *r = tamm__rec_get(g);
    r->stream = s;
    r->task = t;
    r->reserved = fp;
    r->est_ns = t->est_ns;
    r->t_issue = tamm__now_ns();
    tamm_ctx *ctx = &r->ctx;
    ctx->task = t;
    ctx->w = g->w;
    ctx->n = 0;
    ctx->cap = TAMM_CTX_INLINE_BUFS;
    ctx->recs = ctx->inl;
    r->unit.ops = &tamm__gpu_unit_ops;
    ctx->unit = &r->unit;
    tamm_ctx *prev = g->w->cur_ctx;
    g->w->cur_ctx = ctx;
    cur_rec = r;
    atomic_fetch_add(&g->running, 1);
    t->cuda(ctx, t->args);
    cur_rec = NULL;
    g->w->cur_ctx = prev;
    tamm__unit_task_end(g, r);
    if (OPS->record(r->ev, g->stream[s])) tamm__gpu_fail(g, t, "recording a task's event");
    r->closed = 1;
    if (g->fifo_tail[s]) g->fifo_tail[s]->next = r; else g->fifo_head[s] = r;
    g->fifo_tail[s] = r;
    g->inflight[s]++;
    tamm__unit_task_released(g, r);
    if (r->ahead) atomic_fetch_add_explicit(&g->nahead, 1, memory_order_relaxed);
    if (early_end(g, r, t)) {
        atomic_fetch_add_explicit(&g->nearly, 1, memory_order_relaxed);
        /* its pins on the host go with its dependences (they are gone from t then); the homes its
         * copies still use are held by its record (TAMM_MEMORY_LIMIT) */
        if (t->flags & TAMM_TF_MLRES) tamm__ml_done(t);
        tamm__task_end_deps(t); /* successors become ready now (dispatched from this thread) */
    }
}

/* t cannot run: the device failed (reported), so it is skipped and nothing waits for ever. */
static void skip_failed(tamm__gpu *g, tamm__task_s *t)
{
    OPS->sync(g->copy_stream); /* after any prefetch from its homes (its successors may write them) */
    if (t->flags & TAMM_TF_MLRES) tamm__ml_done(t);
    atomic_fetch_add_explicit(&tamm__rt.nskipped, 1, memory_order_relaxed); /* TAMM_STATS */
    tamm__task_body_done(t);
}

/* TAMM_MEMORY_LIMIT: the first task of the reading list whose homes have all been read back
 * (taken off the list), or NULL. */
static tamm__task_s *read_done(tamm__gpu *g)
{
    for (tamm__task_s **p = &g->rd_head, *prev = NULL; *p; prev = *p, p = &(*p)->next) {
        tamm__task_s *t = *p;
        if (!g->fatal && tamm__ml_reading(t)) continue;
        *p = t->next;
        if (g->rd_tail == t) g->rd_tail = prev;
        t->next = NULL;
        TAMM_COUNT_DOWN(&g->nwaiting, memory_order_seq_cst);
        return t;
    }
    return NULL;
}

/* Append t to a list (linked by next). */
static void list_add(tamm__task_s **head, tamm__task_s **tail, tamm__task_s *t)
{
    t->next = NULL;
    if (*tail) (*tail)->next = t;
    else *head = t;
    *tail = t;
}

/* Issue queued tasks while a stream has room and the memory limits admit them. */
static int issue(tamm__gpu *g)
{
    int did = 0;
    unsigned gen = atomic_load(&tamm__gpus.mem_gen); /* before any try: a release after it wakes us */
    if (g->hw_head && (g->mem_seen != gen || g->fatal)) { /* host memory was given back: try those refused again */
        int n = 0;
        for (tamm__task_s *t = g->hw_head; t; t = t->next) n++;
        g->hw_retry = n;
        g->mem_seen = gen;
    }
    for (;;) {
        int s = -1;
        for (int k = 0; k < g->nstreams; k++)
            if (g->inflight[k] < TAMM_GPU_PER_STREAM && (s < 0 || g->inflight[k] < g->inflight[s])) s = k;
        if (s < 0) return did;
        size_t fp;
        int from_hw = 0;
        /* a task admitted on the host whose homes are back (its device memory is reserved already) */
        tamm__task_s *t = g->rd_head ? read_done(g) : NULL;
        if (t) {
            fp = tamm__task_footprint(t);
            if (g->fatal) {
                pthread_mutex_lock(&g->lock);
                g->reserved -= fp;
                pthread_mutex_unlock(&g->lock);
                skip_failed(g, t);
                did = 1;
                continue;
            }
            goto run;
        }
        if (g->rd_head) g->rd_seen = gen; /* none of them is back yet */
        if ((t = g->held)) { /* first: only this one may be held for the device's memory */
            g->held = NULL;
            TAMM_COUNT_DOWN(&g->nwaiting, memory_order_seq_cst);
        } else if ((from_hw = g->hw_retry > 0)) { /* refused by the host before */
            t = g->hw_head;
            g->hw_head = t->next;
            if (!g->hw_head) g->hw_tail = NULL;
            t->next = NULL;
            g->hw_retry--;
            TAMM_COUNT_DOWN(&g->nwaiting, memory_order_seq_cst);
        } else if ((t = tamm__taskq_pop(&g->q))) {
            TAMM_COUNT_DOWN(&g->queued, memory_order_seq_cst);
        } else {
            return did;
        }
        if (g->fatal) { /* the device failed (reported): the task is skipped, nothing waits forever */
            skip_failed(g, t);
            did = 1;
            continue;
        }
        fp = tamm__task_footprint(t);
        pthread_mutex_lock(&g->lock);
        int wait = g->reserved > 0 && g->reserved + fp > g->limit;
        if (!wait) g->reserved += fp;
        pthread_mutex_unlock(&g->lock);
        if (wait) { /* running tasks hold the memory it needs: after a completion */
            g->held = t;
            atomic_fetch_add(&g->nwaiting, 1);
            return did;
        }
        if (tamm__ml_on) { /* the host's memory limit: its homes pinned, those it reads read back */
            int a = tamm__ml_admit_unit(t, tamm__unit_wants_home, g);
            if (a != 1) {
                if (a != 2) { /* no room now, or never (reported) */
                    pthread_mutex_lock(&g->lock);
                    g->reserved -= fp;
                    pthread_mutex_unlock(&g->lock);
                }
                if (a == 0) { /* tried again once host memory is given back; the queue goes on */
                    if (from_hw) { /* back in its place, and those after it wait for the next release too */
                        t->next = g->hw_head;
                        g->hw_head = t;
                        if (!g->hw_tail) g->hw_tail = t;
                        g->hw_retry = 0;
                    } else {
                        list_add(&g->hw_head, &g->hw_tail, t);
                    }
                    atomic_fetch_add(&g->nwaiting, 1);
                } else if (a == 2) {
                    list_add(&g->rd_head, &g->rd_tail, t);
                    atomic_fetch_add(&g->nwaiting, 1);
                }
                did |= a != 0;
                continue;
            }
        }
    run:
        if (tamm__rt.cfg.cuda_early) { /* its parent's stream, if it is in flight there and has room */
            int ps = tamm__unit_parent_stream(g, t);
            if (ps >= 0 && ps < g->nstreams && g->inflight[ps] < TAMM_GPU_PER_STREAM) s = ps;
        }
        run_task(g, t, s, fp);
        did = 1;
    }
}

/* Prefetch: the tasks at the head of g's queue wait for a stream (or for memory); copy
 * the blocks they read in on the copy stream meanwhile, within the limit without evicting
 * (tamm__unit_prefetch), so that their Gets are hits when they are issued.  The queue is
 * popped only by this thread, so the tasks peeked at stay queued. */
#define TAMM_PREFETCH_DEPTH 4
static int prefetch(tamm__gpu *g)
{
    if (!tamm__rt.cfg.cuda_prefetch || g->fatal) return 0;
    tamm__task_s *v[TAMM_PREFETCH_DEPTH + 1];
    int n = 0;
    if (g->held) v[n++] = g->held;
    if (atomic_load_explicit(&g->q.n, memory_order_relaxed)) {
        pthread_mutex_lock(&g->q.lock);
        for (tamm__task_s *t = g->q.head; t && n < TAMM_PREFETCH_DEPTH + 1; t = t->next) v[n++] = t;
        pthread_mutex_unlock(&g->q.lock);
    }
    int did = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < v[i]->ndep; j++) {
            const tamm__dep *d = &v[i]->dep[j];
            if (d->lin >= 0 && (d->perm & TAMM_READ) && d->T->gpu) did |= tamm__unit_prefetch(g, d->T, d->lin);
        }
    return did;
}

static int inflight(tamm__gpu *g)
{
    for (int k = 0; k <= TAMM_GPU_STREAMS; k++)
        if (g->fifo_head[k]) return 1;
    return g->batch != NULL;
}

static void *gpu_main(void *arg)
{
    tamm__gpu *g = arg;
    tamm__tls_worker = g->w;
    cur_gpu = g;
    if (OPS->bind(g->dev)) tamm__gpu_fail(g, NULL, "binding the worker thread");
    unsigned pause_us = 1;
    for (;;) {
        int did = poll(g);
        did |= serve_requests(g);
        tamm__unit_drain_frees(g);
        tamm__unit_close_batch(g);
        did |= issue(g);
        did |= prefetch(g); /* what issue left queued */
        if (did) { pause_us = 1; continue; }
        if (inflight(g)) {
            struct timespec ts = { 0, (long)pause_us * 1000L };
            nanosleep(&ts, NULL);
            if (pause_us < 100) pause_us *= 2;
            continue;
        }
        /* idle: an execution fence armed while this thread completed the
         * last task before it may have missed that completion (fence.h) */
        tamm__xfence_poll();
        pthread_mutex_lock(&g->req_lock);
        int stop = atomic_load(&tamm__gpus.stop);
        /* waiting for host memory (TAMM_MEMORY_LIMIT) is idle too, until tamm__ml_wake says some
         * was given back (it signals under req_lock, after bumping mem_gen) */
        unsigned gen = atomic_load(&tamm__gpus.mem_gen);
        if (!stop && g->nreqs == 0 && atomic_load(&g->q.n) == 0 && !g->held && (!g->rd_head || gen == g->rd_seen) &&
            (!g->hw_head || (gen == g->mem_seen && !g->hw_retry))) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 50 * 1000000L;
            if (ts.tv_nsec >= 1000000000L) { ts.tv_sec++; ts.tv_nsec -= 1000000000L; }
            pthread_cond_timedwait(&g->cond, &g->req_lock, &ts);
        }
        pthread_mutex_unlock(&g->req_lock);
        if (stop && atomic_load(&g->q.n) == 0 && !g->held && !g->rd_head && !g->hw_head && !inflight(g)) break;
    }
    tamm__unit_drain_frees(g);
    tamm__pool_flush(&tamm__rt.task_pool, &g->w->task_cache);
    tamm__pool_flush(&tamm__rt.epoch_pool, &g->w->epoch_cache);
    return NULL;
}

/* ------------------------------------------------------------------ */
/* start and stop                                                        */
/* ------------------------------------------------------------------ */
static int cfg_error(const char *var, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int cfg_error(const char *var, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "tamm: error: %s: %s\n", var, msg);
    return TAMM_EINVAL;
}

/* Link bandwidth, host to device and back: one 8 MiB pinned copy each way. */
static void measure_bandwidth(tamm__gpu *g)
{
    g->bw_h2d = g->bw_d2h = 10.0; /* bytes per ns: the emulated device's, and the fallback */
    if (OPS == &tamm__devops_emu) return;
    size_t n = (size_t)8 << 20;
    void *h = NULL, *d = NULL, *ev = NULL;
    if (OPS->host_alloc(&h, n)) return;
    if (!OPS->alloc(&d, n, g->copy_stream) && !OPS->event_create(&ev)) {
        for (int dir = 0; dir < 2; dir++) {
            uint64_t t0 = tamm__now_ns();
            int rc = dir ? OPS->d2h(h, d, n, g->copy_stream) : OPS->h2d(d, h, n, g->copy_stream);
            if (rc || OPS->record(ev, g->copy_stream)) break;
            int q;
            while ((q = OPS->query(ev)) == 0) {}
            if (q < 0) break;
            double bw = (double)n / (double)(tamm__now_ns() - t0 + 1);
            if (dir) g->bw_d2h = bw; else g->bw_h2d = bw;
        }
    }
    if (ev) OPS->event_destroy(ev);
    if (d) OPS->free(d, g->copy_stream);
    OPS->sync(g->copy_stream);
    OPS->host_free(h);
}

int tamm__gpu_map(int ndev, int lrank, int lsize, int mode, const int *list, int nlist, int *dev, int *share, int *bad)
{
    int n = 0;
    if (lsize < 1) lsize = 1;
    if (lrank < 0 || lrank >= lsize) lrank = 0;
    if (mode == TAMM_CDEV_LIST) { /* the user's choice: not shared as far as this rank knows */
        for (int i = 0; i < nlist && n < TAMM_MAX_GPUS; i++) {
            if (list[i] < 0 || list[i] >= ndev) { *bad = list[i]; return -1; }
            dev[n] = list[i];
            share[n++] = 1;
        }
        return n;
    }
    if (ndev <= 0) return 0;
    if (mode == TAMM_CDEV_ALL || lsize == 1) { /* every device, each shared by every rank of the node */
        for (int d = 0; d < ndev && n < TAMM_MAX_GPUS; d++) {
            dev[n] = d;
            share[n++] = lsize;
        }
        return n;
    }
    if (ndev >= lsize) { /* a contiguous range of devices per rank, none shared */
        int d0 = (int)((long)lrank * ndev / lsize), d1 = (int)((long)(lrank + 1) * ndev / lsize);
        for (int d = d0; d < d1 && n < TAMM_MAX_GPUS; d++) {
            dev[n] = d;
            share[n++] = 1;
        }
        return n;
    }
    /* fewer devices than ranks: rank l uses device l mod ndev, with the other ranks of that residue */
    dev[0] = lrank % ndev;
    share[0] = lsize / ndev + (dev[0] < lsize % ndev);
    return 1;
}

int tamm__gpu_init(const tamm__config *cfg)
{
    memset(&tamm__gpus, 0, sizeof tamm__gpus);
    /* TAMM_CUDA_TEST_LIBDIR (tests): the CUDA backend over a stand-in libcudart, whose devices TAMM_CUDA_EMU counts */
    const char *td = getenv("TAMM_CUDA_TEST_LIBDIR");
    tamm__gpus.ops = cfg->fake_gpus && !(td && *td) ? &tamm__devops_emu : &tamm__devops_cuda;
    tamm__perf_reset();
    tamm__no_device_why = tamm__gpus.why_none;
    if (cfg->num_gpus == 0) {
        snprintf(tamm__gpus.why_none, sizeof tamm__gpus.why_none, "TAMM_NUM_GPUS=0");
        return TAMM_OK;
    }
    int found = OPS->count();
    if (found == 0) snprintf(tamm__gpus.why_none, sizeof tamm__gpus.why_none, "%s", OPS->error());
    /* which of them this rank uses: split among the ranks of the node (TAMM_CUDA_DEVICES) */
    int dev[TAMM_MAX_GPUS], share[TAMM_MAX_GPUS], bad = 0;
    int mine = tamm__gpu_map(found, cfg->local_rank, cfg->local_size, cfg->cuda_dev_mode, cfg->cuda_dev_list,
                             cfg->cuda_ndev_list, dev, share, &bad);
    if (mine < 0)
        return cfg_error("TAMM_CUDA_DEVICES", "device %d asked for, %d found (%s)", bad, found,
                         found ? "devices are numbered from 0" : tamm__gpus.why_none);
    if (cfg->num_gpus > mine) {
        if (mine < found)
            return cfg_error("TAMM_NUM_GPUS", "%d GPU%s asked for, %d for this rank: the node's %d are split among its "
                             "%d ranks (TAMM_CUDA_DEVICES=all gives every rank every GPU)", cfg->num_gpus,
                             cfg->num_gpus == 1 ? "" : "s", mine, found, cfg->local_size);
        return cfg_error("TAMM_NUM_GPUS", "%d GPU%s asked for, %d found (%s)", cfg->num_gpus, cfg->num_gpus == 1 ? "" : "s", found,
                         found ? "fewer devices" : tamm__gpus.why_none);
    }
    int n = cfg->num_gpus < 0 ? mine : cfg->num_gpus;
    if (n == 0) return TAMM_OK;
    tamm__gpus.g = tamm__xcalloc((size_t)n, sizeof *tamm__gpus.g);
    for (int i = 0; i < n; i++) {
        tamm__gpu *g = &tamm__gpus.g[i];
        g->id = i;
        g->dev = dev[i];
        g->share = share[i];
        g->nstreams = cfg->cuda_streams;
        if (OPS->info(g->dev, &g->info)) {
            fprintf(stderr, "tamm: error: GPU %d: %s\n", g->dev, OPS->error());
            free(tamm__gpus.g);
            tamm__gpus.g = NULL;
            return TAMM_ENOTSUP;
        }
        /* a device shared by several ranks: each takes its share of the memory (a limit in bytes is each rank's) */
        size_t part = g->info.total / (size_t)g->share;
        if (cfg->cuda_memory_pct > 0) g->limit = (size_t)((double)part * cfg->cuda_memory_pct / 100.0);
        else if (cfg->cuda_memory_limit) g->limit = cfg->cuda_memory_limit;
        else g->limit = (g->info.free < part ? g->info.free : part) / 10 * 9; /* room for the variants' own (cuBLAS) */
        if (g->limit > part) {
            size_t total = g->info.total, lim = g->limit;
            int sh = g->share, d = g->dev;
            free(tamm__gpus.g);
            tamm__gpus.g = NULL;
            if (sh > 1)
                return cfg_error("TAMM_CUDA_MEMORY_LIMIT", "%zu bytes for each of the %d ranks that share GPU %d is more "
                                 "than its memory (%zu bytes)", lim, sh, d, total);
            return cfg_error("TAMM_CUDA_MEMORY_LIMIT", "%zu bytes is more than GPU %d's memory (%zu bytes)", lim, d, total);
        }
        tamm__unit_init(g);
        pthread_mutex_init(&g->req_lock, NULL);
        pthread_cond_init(&g->cond, NULL);
        pthread_mutex_init(&g->q.lock, NULL);
        tamm__taskq_reset(&g->q);
    }
    tamm__gpus.n = n;
    /* the GPUs join the core: their memories beside the host's, their workers beside the CPU's */
    tamm__homes_shared = 1;
    tamm__home_pin_install(&tamm__pinned_homes);
    tamm__ml_wake = mem_wake;
    tamm__route_install(&gpu_router);
    tamm__tensor_hooks_add(&tgpu_hooks);
    return TAMM_OK;
}

int tamm__gpu_start(void)
{
    tamm__gpus.blas_ok = 1;
    for (int i = 0; i < tamm__gpus.n; i++) {
        tamm__gpu *g = &tamm__gpus.g[i];
        g->w = &tamm__rt.workers[tamm__rt.nworkers + i];
        if (OPS->bind(g->dev)) goto fail;
        for (int k = 0; k < g->nstreams; k++) {
            if (OPS->stream_create(&g->stream[k])) goto fail;
            if (OPS->blas_create(&g->blas[k], g->stream[k])) { /* no cuBLAS: variants get NULL */
                g->blas[k] = NULL;
                if (!tamm__gpus.libs_why[0][0])
                    snprintf(tamm__gpus.libs_why[0], sizeof tamm__gpus.libs_why[0], "%s", OPS->error());
            }
        }
        if (OPS->stream_create(&g->copy_stream)) goto fail;
        for (int k = 0; k < g->nstreams; k++) tamm__gpus.blas_ok &= g->blas[k] != NULL;
        if (tamm__ml_on && tamm__unit_wb_init(g)) goto fail;
        measure_bandwidth(g);
        if (pthread_create(&g->thread, NULL, gpu_main, g)) {
            fprintf(stderr, "tamm: error: cannot start the CUDA worker of GPU %d\n", i);
            return TAMM_ENOMEM;
        }
        continue;
    fail:
        fprintf(stderr, "tamm: error: GPU %d (%s): %s\n", i, g->info.name, OPS->error());
        return TAMM_ENOTSUP;
    }
    return TAMM_OK;
}

void tamm__gpu_stop(void)
{
    atomic_store(&tamm__gpus.stop, 1);
    for (int i = 0; i < tamm__gpus.n; i++) {
        tamm__gpu *g = &tamm__gpus.g[i];
        pthread_mutex_lock(&g->req_lock);
        pthread_cond_signal(&g->cond);
        pthread_mutex_unlock(&g->req_lock);
        if (g->w) pthread_join(g->thread, NULL);
        tamm__unit_wb_fini(g); /* (before the host memory limit ends) */
    }
}

void tamm__gpu_fini(void)
{
    for (int i = 0; i < tamm__gpus.n; i++) {
        tamm__gpu *g = &tamm__gpus.g[i];
        OPS->bind(g->dev);
        tamm__unit_drain_frees(g);
        for (int k = 0; k < TAMM_GPU_STREAMS; k++) {
            if (g->stream[k]) OPS->sync(g->stream[k]);
            if (g->blas[k]) OPS->blas_destroy(g->blas[k]);
            if (g->solver[k]) OPS->solver_destroy(g->solver[k]);
            if (g->stream[k]) OPS->stream_destroy(g->stream[k]);
        }
        if (g->copy_stream) { OPS->sync(g->copy_stream); OPS->stream_destroy(g->copy_stream); }
        rec_destroy_all(g);
        free(g->reqs);
        free(g->spare);
        pthread_mutex_destroy(&g->req_lock);
        pthread_cond_destroy(&g->cond);
        pthread_mutex_destroy(&g->q.lock);
    }
    for (int i = tamm__gpus.n - 1; i >= 0; i--) tamm__unit_fini(&tamm__gpus.g[i]);
    free(tamm__gpus.g);
    tamm__gpus.g = NULL;
    if (tamm__gpus.n) {
        tamm__route_install(NULL);
        tamm__home_pin_install(NULL);
        tamm__ml_wake = NULL;
        tamm__homes_shared = 0;
    }
    tamm__gpus.n = 0;
}

/* TAMM_STATS: one line per GPU, with the rank. */
void tamm__gpu_stats(FILE *f)
{
    int r = tamm__rt.rank;
    if (!tamm__gpus.n) {
        fprintf(f, "tamm stats: rank %d: GPUs: none (%s)\n", r, tamm__gpus.why_none[0] ? tamm__gpus.why_none : "no device");
        return;
    }
    for (int i = 0; i < tamm__gpus.n; i++) {
        tamm__gpu *g = &tamm__gpus.g[i];
        fprintf(f, "tamm stats: rank %d: GPU %d (%s, %s): %llu tasks, %llu bytes to device, %llu from device, %llu hits, "
                   "%llu misses, %llu evictions, peak %zu of %zu bytes of device memory, link %.1f/%.1f GB/s, "
                   "device %d, shared by %d rank%s, %llu tasks ended early, %llu issued behind a task in flight, "
                   "%llu blocks prefetched (%llu used)\n",
                r, i, g->info.name, tamm__rt.cfg.gpu_sched == TAMM_GPOL_EFT ? "eft" : tamm__gpu_policy_name(tamm__rt.cfg.gpu_sched),
                (unsigned long long)atomic_load(&g->ntasks), (unsigned long long)atomic_load(&g->bytes_h2d),
                (unsigned long long)atomic_load(&g->bytes_d2h), (unsigned long long)atomic_load(&g->hits),
                (unsigned long long)atomic_load(&g->misses), (unsigned long long)atomic_load(&g->nevict), g->peak,
                g->limit, g->bw_h2d, g->bw_d2h, g->dev, g->share, g->share == 1 ? "" : "s",
                (unsigned long long)atomic_load(&g->nearly), (unsigned long long)atomic_load(&g->nahead),
                (unsigned long long)atomic_load(&g->npf), (unsigned long long)atomic_load(&g->npf_used));
    }
    for (int i = 0; i < 2; i++) /* a library CUDA variants asked for and the GPUs cannot serve */
        if (atomic_load(&tamm__gpus.lib_state[i]) == 2)
            fprintf(f, "tamm stats: rank %d: %s: not available (%s): the tasks whose CUDA variant calls it ran on the CPUs\n",
                    r, lib_names[i], tamm__gpus.libs_why[i]);
}
