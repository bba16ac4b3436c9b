/*
 * cuda_unit.c — one GPU's memory as a memory unit of the execution FSM
 * (docs/runtime.md "Block states"; memunit.h, gpu.h, docs/runtime.md "GPUs").
 *
 * A task running on GPU g gets its blocks here: the FSM step of the block in
 * g's unit (block_fsm.c, the same table as the host unit), whose actions become
 * stream-ordered device work — Allocate (evicting least recently used
 * unreferenced copies first, dirty ones written back), Get (host-to-device
 * copy from the pinned home), Put (device-to-host), AccAll (device-to-host
 * into pinned staging, summed into the home when the copy has landed).
 * Entering DirtyAcc zeroes the device buffer: a GPU's DirtyAcc copy holds a
 * partial sum, added to the home by AccAll.  Accumulations into a copy another
 * running task holds, temps and cancellable buffers use private device
 * buffers committed to the home when the task completes.
 *
 * Under TAMM_MEMORY_LIMIT the homes are the host unit's (memlimit.h): each
 * copy to or from a home holds it until its record completes (hold_home); a
 * write-back that finds no room beside the host's reservations is stored
 * synchronously through two small buffers (store_now) instead of waiting, and
 * staging buffers come from the limit (stage_get).
 *
 * Releases are applied when the task's event has been recorded, so a copy
 * is unreferenced (evictable) only once every stream operation on it is
 * behind an event; whoever writes a buffer next on another stream waits for
 * the events of its last writer and readers first, a reader only for its last
 * writer's (use_write, use_read).  Everything here runs on g's worker thread,
 * except tamm__tgpu_free and the home allocator.
 */
#include "error.h"
#include "gpu.h"
#include "hostmem.h"
#include "memlimit.h"
#include "runtime.h"
#include "tensor.h"
#include "buffer.h"
#include "perm.h"
#include "tamm_assert.h"
#include <stdio.h>
#include <string.h>

#define OPS (tamm__gpus.ops)

static inline tamm__ublk *U(const tamm__gpu *g, const tamm_tensor *T, long lin) { return &T->gpu->u[(size_t)g->id * (size_t)T->nblk + (size_t)lin]; }
static inline tamm__gblk *GB(const tamm_tensor *T, long lin) { return &T->gpu->blk[lin]; }
static inline unsigned BIT(const tamm__gpu *g) { return 1u << g->id; }
static inline void *task_stream(tamm__gpu *g, tamm__pend *rec) { return rec->stream < 0 ? g->copy_stream : g->stream[rec->stream]; }

/* ------------------------------------------------------------------ */
/* pinned host memory: homes and staging buffers                         */
/* ------------------------------------------------------------------ */
/* A pinned buffer starts with this header; freed buffers are kept for reuse
 * (cudaFreeHost synchronises the device) and released at shutdown.  When the
 * device cannot pin more memory, pageable host memory is used instead (copies
 * from it are slower, never wrong): a failed cudaHostAlloc is not an error. */
typedef struct pinned { struct pinned *next_free, *next_all; size_t cap; int pageable; char pad[36]; } pinned;
static pthread_mutex_t pin_lock = PTHREAD_MUTEX_INITIALIZER;
static pinned *pin_free, *pin_all;
static atomic_int pin_warned;

/* A pinned buffer of bytes with its header, pageable where the device cannot pin more. */
static pinned *pinned_new(size_t bytes)
{
    void *m = NULL;
    int pageable = 0;
    if (OPS->host_alloc(&m, sizeof(pinned) + bytes)) {
        if (!atomic_exchange(&pin_warned, 1))
            fprintf(stderr, "tamm: warning: cannot allocate %zu bytes of pinned host memory (%s): using pageable "
                            "memory for it and later such failures (slower copies)\n", bytes, OPS->error());
        m = tamm__xmalloc(sizeof(pinned) + bytes);
        pageable = 1;
    }
    pinned *p = m;
    p->cap = bytes;
    p->pageable = pageable;
    return p;
}

static void pinned_delete(pinned *p)
{
    if (p->pageable) free(p);
    else OPS->host_free(p);
}

/* A buffer of the pool of at least bytes (exact: of exactly bytes), or a new one; not counted. */
static pinned *pin_take(size_t bytes, int exact)
{
    pinned *p = NULL;
    pthread_mutex_lock(&pin_lock);
    for (pinned **q = &pin_free; *q; q = &(*q)->next_free)
        if (exact ? (*q)->cap == bytes : (*q)->cap >= bytes && (*q)->cap <= 2 * bytes + 4096) {
            p = *q;
            *q = p->next_free;
            break;
        }
    pthread_mutex_unlock(&pin_lock);
    if (!p) {
        p = pinned_new(bytes);
        pthread_mutex_lock(&pin_lock);
        p->next_all = pin_all;
        pin_all = p;
        pthread_mutex_unlock(&pin_lock);
    }
    return p;
}

/* Back to the pool (not counted). */
static void pin_give(pinned *p)
{
    pthread_mutex_lock(&pin_lock);
    p->next_free = pin_free;
    pin_free = p;
    pthread_mutex_unlock(&pin_lock);
}

static void *pinned_get(size_t bytes, int zero)
{
    pinned *p = pin_take(bytes, 0);
    if (zero) memset(p + 1, 0, bytes);
    tamm__mem_add(p->cap); /* held from here until pinned_put */
    return p + 1;
}

static void pinned_put(void *buf)
{
    if (!buf) return;
    pinned *p = (pinned *)buf - 1;
    tamm__mem_sub(p->cap);
    pin_give(p);
}

/* the homes of blocks while GPUs are in use: pinned, so that copies are asynchronous (hostmem.h) */
static void *home_get(size_t bytes) { return pinned_get(bytes, 1); /* counted there */ }
static void home_put(void *p, size_t bytes)
{
    (void)bytes;
    pinned_put(p);
}
/* Under TAMM_MEMORY_LIMIT, which counts this memory and reuses buffers of 64 KiB and more itself:
 * those are given back to the system at once (as its mappings are without GPUs), smaller ones
 * are pooled here by exact size (as calloc keeps them without GPUs: pinning memory takes far
 * longer than allocating it). */
#define RAW_POOLED_BELOW ((size_t)64 << 10)
static void *home_raw_get(size_t bytes)
{
    return (bytes < RAW_POOLED_BELOW ? pin_take(bytes, 1) : pinned_new(bytes)) + 1;
}
static void home_raw_put(void *p, size_t bytes)
{
    if (bytes < RAW_POOLED_BELOW) pin_give((pinned *)p - 1);
    else pinned_delete((pinned *)p - 1);
}
const tamm__home_ops tamm__pinned_homes = { home_get, home_put, home_raw_get, home_raw_put };

/* A staging buffer (write-backs of partial sums, commits of private buffers): within the host
 * memory limit when there is one (the reservation of its task or hold covers it). */
static void *stage_get(size_t bytes) { return tamm__ml_on ? tamm__ml_buf_get(bytes) : pinned_get(bytes, 0); }
static void stage_put(void *p, size_t bytes)
{
    if (tamm__ml_on) tamm__ml_buf_put(p, bytes);
    else pinned_put(p);
}

static void pinned_release_all(void)
{
    pthread_mutex_lock(&pin_lock);
    pinned *p = pin_all;
    pin_all = pin_free = NULL;
    pthread_mutex_unlock(&pin_lock);
    while (p) {
        pinned *n = p->next_all;
        pinned_delete(p);
        p = n;
    }
}

/* ------------------------------------------------------------------ */
/* tensors                                                               */
/* ------------------------------------------------------------------ */
tamm__tgpu *tamm__tgpu_new(tamm_tensor *T, int ngpu)
{
    tamm__tgpu *tg = tamm__xcalloc(1, sizeof *tg);
    tg->blk = tamm__xcalloc((size_t)T->nblk, sizeof *tg->blk);
    tg->u = tamm__xcalloc((size_t)T->nblk * (size_t)ngpu, sizeof *tg->u);
    for (long b = 0; b < T->nblk; b++) {
        atomic_init(&tg->blk[b].dirty_w, 0);
        atomic_init(&tg->blk[b].dirty_a, 0);
        atomic_init(&tg->blk[b].valid, 0);
        atomic_init(&tg->blk[b].ver, 1);
        for (int g = 0; g < ngpu; g++) {
            tamm__ublk *u = &tg->u[(size_t)g * (size_t)T->nblk + (size_t)b];
            u->state = TAMM_BS_UNALLOC;
            u->T = T;
            u->lin = b;
        }
    }
    return tg;
}

void tamm__tgpu_free(tamm_tensor *T)
{
    if (!T->gpu) return;
    for (int i = 0; i < tamm__gpus.n; i++) {
        tamm__gpu *g = &tamm__gpus.g[i];
        pthread_mutex_lock(&g->lock);
        for (long b = 0; b < T->nblk; b++) {
            tamm__ublk *u = U(g, T, b);
            if (u->in_lru) {
                u->prev->next = u->next;
                u->next->prev = u->prev;
                u->in_lru = 0;
            }
            if (u->buf) {
                if (g->nfrees == g->capfrees) {
                    g->capfrees = g->capfrees ? 2 * g->capfrees : 64;
                    g->frees = tamm__xrealloc(g->frees, (size_t)g->capfrees * sizeof *g->frees);
                }
                g->frees[g->nfrees++] = u->buf;
                g->used -= T->blocks[b].bytes;
                u->buf = NULL;
            }
        }
        pthread_mutex_unlock(&g->lock);
    }
    free(T->gpu->u);
    free(T->gpu->blk);
    free(T->gpu);
    T->gpu = NULL;
}

void tamm__unit_drain_frees(tamm__gpu *g)
{
    pthread_mutex_lock(&g->lock);
    if (g->nfrees) /* a task that ended its dependences early may still use them: free after what is issued */
        for (int k = 0; k < g->nstreams; k++)
            if (g->fifo_tail[k] && OPS->wait(g->copy_stream, g->fifo_tail[k]->ev))
                tamm__gpu_fail(g, NULL, "ordering the release of a destroyed tensor's copies");
    for (int i = 0; i < g->nfrees; i++)
        if (OPS->free(g->frees[i], g->copy_stream)) tamm__gpu_fail(g, NULL, "releasing the copies of a destroyed tensor");
    g->nfrees = 0;
    pthread_mutex_unlock(&g->lock);
}

size_t tamm__task_footprint(const tamm__task_s *t)
{
    size_t n = 0;
    for (int i = 0; i < t->ndep; i++) {
        const tamm__dep *d = &t->dep[i];
        if (d->lin >= 0) { n += d->T->blocks[d->lin].bytes; continue; }
        for (long b = 0; b < d->T->nblk; b++) n += d->T->blocks[b].bytes;
    }
    return n;
}

/* ------------------------------------------------------------------ */
/* records, ordering, LRU                                                */
/* ------------------------------------------------------------------ */
static void item_add(tamm__pend *rec, tamm__pi_kind k, tamm_tensor *T, long lin, tamm__ublk *u, void *staging, size_t bytes)
{
    if (rec->nitems == rec->capitems) {
        rec->capitems = rec->capitems ? 2 * rec->capitems : 8;
        rec->items = tamm__xrealloc(rec->items, (size_t)rec->capitems * sizeof *rec->items);
    }
    rec->items[rec->nitems++] = (tamm__pitem){ k, T, lin, u, staging, bytes };
}

/* Recording: rec issued a copy of block (T, lin) (the trace draws it when rec completes). */
static void trace_copy(tamm__pend *rec, tamm__cp_dir dir, tamm_tensor *T, long lin, size_t bytes)
{
    if (TAMM_LIKELY(!tamm__rt.recording)) return;
    if (rec->ntcopies == rec->captcopies) {
        rec->captcopies = rec->captcopies ? 2 * rec->captcopies : 8;
        rec->tcopies = tamm__xrealloc(rec->tcopies, (size_t)rec->captcopies * sizeof *rec->tcopies);
    }
    rec->tcopies[rec->ntcopies++] = (tamm__tcopy){ tamm__now_ns(), bytes, T, lin, (int)dir };
}

static void waiter_add(tamm__pend *rec, tamm__task_s *t)
{
    if (rec->nwaiters == rec->capwaiters) {
        rec->capwaiters = rec->capwaiters ? 2 * rec->capwaiters : 8;
        rec->waiters = tamm__xrealloc(rec->waiters, (size_t)rec->capwaiters * sizeof *rec->waiters);
    }
    rec->waiters[rec->nwaiters++] = t;
}

static inline int live(const tamm__pend *p, uint64_t seq) { return p && p->seq == seq; }

static tamm__pend *batch(tamm__gpu *g)
{
    if (!g->batch) {
        tamm__pend *r = tamm__rec_get(g);
        r->stream = -1;
        r->task = NULL;
        r->t_issue = tamm__now_ns();
        g->batch = r;
    }
    return g->batch;
}

void tamm__unit_close_batch(tamm__gpu *g)
{
    tamm__pend *r = g->batch;
    if (!r) return;
    g->batch = NULL;
    if (OPS->record(r->ev, g->copy_stream)) tamm__gpu_fail(g, NULL, "recording the copy stream's event");
    r->closed = 1;
    r->next = NULL;
    int s = TAMM_GPU_STREAMS;
    if (g->fifo_tail[s]) g->fifo_tail[s]->next = r; else g->fifo_head[s] = r;
    g->fifo_tail[s] = r;
}

/* Order rec's stream after record p (another stream's) unless p is done. */
static void wait_rec(tamm__gpu *g, tamm__pend *p, uint64_t seq, tamm__pend *rec)
{
    if (!live(p, seq) || p == rec) return;
    if (p->task && rec->task && (p->task->flags & TAMM_TF_DEPS_ENDED)) rec->ahead = 1; /* behind its parent in flight */
    if (p->stream == rec->stream) return;
    if (!p->closed) tamm__unit_close_batch(g); /* only the open batch can be unrecorded */
    if (OPS->wait(task_stream(g, rec), p->ev)) tamm__gpu_fail(g, rec->task, "ordering streams (cudaStreamWaitEvent)");
}

static inline int sidx(const tamm__pend *rec) { return rec->stream < 0 ? TAMM_GPU_STREAMS : rec->stream; }

/* Before rec's stream reads u->buf: wait for the last record that wrote it on
 * another stream; rec becomes a reader.  Readers on different streams are not
 * ordered with each other (read-read sharing).  Unit lock held. */
static void use_read(tamm__gpu *g, tamm__ublk *u, tamm__pend *rec)
{
    TAMM_ASSERT(tamm__mutex_held(&g->lock));
    wait_rec(g, u->use, u->use_seq, rec);
    int k = sidx(rec);
    u->rd[k] = rec;
    u->rd_seq[k] = rec->seq;
}

/* Before rec's stream writes (or frees) u->buf: wait for the last writer and
 * for every reader since, on other streams; rec becomes the last writer.
 * Unit lock held. */
static void use_write(tamm__gpu *g, tamm__ublk *u, tamm__pend *rec)
{
    TAMM_ASSERT(tamm__mutex_held(&g->lock));
    wait_rec(g, u->use, u->use_seq, rec);
    for (int k = 0; k <= TAMM_GPU_STREAMS; k++) {
        if (u->rd[k]) wait_rec(g, u->rd[k], u->rd_seq[k], rec);
        u->rd[k] = NULL;
    }
    u->use = rec;
    u->use_seq = rec->seq;
}

/* rec (a task being issued: its event is not recorded yet) has touched u->buf */
static int touched_unrecorded(const tamm__ublk *u)
{
    if (live(u->use, u->use_seq) && u->use->task && !u->use->closed) return 1;
    for (int k = 0; k <= TAMM_GPU_STREAMS; k++)
        if (u->rd[k] && live(u->rd[k], u->rd_seq[k]) && u->rd[k]->task && !u->rd[k]->closed) return 1;
    return 0;
}

static void lru_remove(tamm__gpu *g, tamm__ublk *u)
{
    (void)g;
    if (!u->in_lru) return;
    u->prev->next = u->next;
    u->next->prev = u->prev;
    u->in_lru = 0;
}

static void lru_push(tamm__gpu *g, tamm__ublk *u)
{
    if (u->in_lru) lru_remove(g, u);
    u->prev = g->lru.prev;
    u->next = &g->lru;
    g->lru.prev->next = u;
    g->lru.prev = u;
    u->in_lru = 1;
}

void tamm__unit_init(tamm__gpu *g)
{
    pthread_mutex_init(&g->lock, NULL);
    g->lru.next = g->lru.prev = &g->lru;
}

void tamm__unit_fini(tamm__gpu *g)
{
    free(g->frees);
    g->frees = NULL;
    pthread_mutex_destroy(&g->lock);
    if (g->id == tamm__gpus.n - 1) pinned_release_all();
}

/* ------------------------------------------------------------------ */
/* flush and eviction (the FSM's FLUSH and EVICT)                        */
/* ------------------------------------------------------------------ */
static void *home_of(tamm_tensor *T, long lin)
{
    tamm__block_s *b = &T->blocks[lin];
    tamm__spin_lock(&b->lock);
    void *h = tamm__block_home(T, lin);
    tamm__spin_unlock(&b->lock);
    return h;
}

/* rec holds the home of (T, lin) (with extra staging bytes) until it completes */
static void rec_hold(tamm__pend *rec, tamm_tensor *T, long lin, size_t extra)
{
    if (rec->nholds == rec->capholds) {
        rec->capholds = rec->capholds ? 2 * rec->capholds : 8;
        rec->holds = tamm__xrealloc(rec->holds, (size_t)rec->capholds * sizeof *rec->holds);
    }
    rec->holds[rec->nholds++] = (tamm__phold){ T, lin, extra };
}

/* The home of (T, lin) for a copy rec issues now: one that reads it (read), or one that
 * overwrites it whole.  Under TAMM_MEMORY_LIMIT it is held until rec completes: a block of
 * rec's task is pinned by the task's admission already; any other (a whole-tensor ref's)
 * is held beyond the reservations if need be, as a CPU task's body makes it resident. */
static void *hold_home(tamm__pend *rec, tamm_tensor *T, long lin, int read)
{
    if (!tamm__ml_on) return home_of(T, lin);
    void *h = NULL;
    tamm__ml_hold(T, lin, 0, read ? TAMM_HOLD_READ : TAMM_HOLD_OVERWRITE, &h);
    rec_hold(rec, T, lin, 0);
    return h;
}

/* ---- write-backs without a hold (TAMM_MEMORY_LIMIT) ---- */
int tamm__unit_wb_init(tamm__gpu *g)
{
    size_t c = tamm__ml_chunk();
    if (OPS->event_create(&g->wb_ev)) return -1;
    g->wb[0] = tamm__ml_buf_get(c);
    g->wb[1] = tamm__ml_buf_get(c);
    tamm__ml_fixed((long)(2 * c)); /* kept for good: admissions leave room for them */
    return 0;
}

void tamm__unit_wb_fini(tamm__gpu *g)
{
    if (!g->wb[0]) return;
    size_t c = tamm__ml_chunk();
    tamm__ml_buf_put(g->wb[0], c);
    tamm__ml_buf_put(g->wb[1], c);
    tamm__ml_fixed(-(long)(2 * c));
    g->wb[0] = g->wb[1] = NULL;
    if (g->wb_ev) OPS->event_destroy(g->wb_ev);
    g->wb_ev = NULL;
}

typedef struct { tamm__gpu *g; tamm__ublk *u; } wb_arg;

/* tamm__ml_store's fetch: bytes [off, off + n) of the copy into dst, on the copy stream,
 * waited for here (the copy stream is ordered after the copy's last writer already) */
static int wb_fetch(void *arg, void *dst, size_t off, size_t n)
{
    wb_arg *a = arg;
    tamm__gpu *g = a->g;
    if (OPS->d2h(dst, (char *)a->u->buf + off, n, g->copy_stream) || OPS->record(g->wb_ev, g->copy_stream)) {
        tamm__gpu_fail(g, NULL, "writing a block back to the host memory limit's spill file");
        return -1;
    }
    unsigned us = 1;
    int q;
    while ((q = OPS->query(g->wb_ev)) == 0) {
        struct timespec ts = { 0, (long)us * 1000L };
        nanosleep(&ts, NULL);
        if (us < 50) us *= 2;
    }
    if (q < 0) {
        tamm__gpu_fail(g, NULL, "waiting for a write-back");
        return -1;
    }
    atomic_fetch_add_explicit(&g->bytes_d2h, n, memory_order_relaxed);
    return 0;
}

/* The host has no room beside its reservations for copy u's write-back: store it now, chunk by
 * chunk, into its home or (not resident) its slot in the spill file, without holding host
 * memory (tamm__ml_store).  use_read on the copy stream was done.  1: stored (u is Ready, or UNI
 * after a sum), 0: not possible (the caller holds the home instead).  Unit lock held. */
static int store_now(tamm__gpu *g, tamm__ublk *u, tamm__pend *rec)
{
    TAMM_ASSERT(tamm__mutex_held(&g->lock) && u->rc == 0); /* a copy no task holds is written back */
    if (!g->wb[0] || g->fatal) return 0;
    int acc = u->state == TAMM_BS_DIRTYACC;
    wb_arg a = { g, u };
    if (tamm__ml_store(u->T, u->lin, acc, wb_fetch, &a, g->wb[0], g->wb[1])) return 0;
    tamm__gblk *gb = GB(u->T, u->lin);
    /* an earlier write-back of this copy still in flight clears the masks when it completes
     * (until then the home may lack what it brings) */
    int earlier = live(u->flush, u->flush_seq);
    trace_copy(rec, TAMM_CP_D2H, u->T, u->lin, u->T->blocks[u->lin].bytes);
    if (acc) { /* the home changed: every Ready copy is stale */
        u->state = TAMM_BS_UNI;
        atomic_fetch_add(&gb->ver, 1);
        atomic_store(&gb->valid, 0);
        if (!earlier) atomic_fetch_and(&gb->dirty_a, ~BIT(g));
    } else {
        u->state = TAMM_BS_READY;
        if (!earlier) atomic_fetch_and(&gb->dirty_w, ~BIT(g));
    }
    return 1;
}

/* FLUSH of a copy with RC == 0 on rec's stream: Dirty -> Put -> Ready,
 * DirtyAcc -> AccAll -> UNI.  The home is current when rec completes
 * (1), or already (0: nothing to flush, or stored at once under
 * TAMM_MEMORY_LIMIT).  Unit lock held. */
static int flush_locked(tamm__gpu *g, tamm__ublk *u, tamm__pend *rec)
{
    TAMM_ASSERT(tamm__mutex_held(&g->lock) && u->rc == 0); /* the table's FLUSH needs RC == 0 */
    tamm_tensor *T = u->T;
    size_t bytes = T->blocks[u->lin].bytes;
    void *s = task_stream(g, rec);
    if (u->state != TAMM_BS_DIRTY && u->state != TAMM_BS_DIRTYACC) return 0;
    use_read(g, u, rec);
    int acc = u->state == TAMM_BS_DIRTYACC;
    void *home = NULL;
    if (tamm__ml_on) {
        /* a task's own block (a commit) is pinned by its admission; a flush or an eviction
         * holds the home if the host has room beside its reservations, else stores at once */
        size_t extra = acc ? bytes : 0;
        unsigned how = acc ? 0 : TAMM_HOLD_OVERWRITE;
        if (!rec->task && !tamm__ml_hold(T, u->lin, extra, TAMM_HOLD_TRY | how, &home)) {
            if (store_now(g, u, rec)) return 0;
            tamm__ml_hold(T, u->lin, extra, how, &home);
        } else if (rec->task) {
            tamm__ml_hold(T, u->lin, extra, how, &home);
        }
        rec_hold(rec, T, u->lin, extra);
    } else if (!acc) {
        home = home_of(T, u->lin);
    }
    if (!acc) {
        if (OPS->d2h(home, u->buf, bytes, s)) tamm__gpu_fail(g, rec->task, "writing a block back (Put)");
        trace_copy(rec, TAMM_CP_D2H, T, u->lin, bytes);
        item_add(rec, TAMM_PI_PUT, T, u->lin, u, NULL, bytes);
        u->state = TAMM_BS_READY;
    } else {
        void *st = stage_get(bytes);
        if (OPS->d2h(st, u->buf, bytes, s)) tamm__gpu_fail(g, rec->task, "reading a partial sum back (AccAll)");
        trace_copy(rec, TAMM_CP_D2H, T, u->lin, bytes);
        item_add(rec, TAMM_PI_ACCALL, T, u->lin, u, st, bytes);
        u->state = TAMM_BS_UNI;
        atomic_fetch_and(&GB(T, u->lin)->valid, ~BIT(g));
    }
    u->flush = rec;
    u->flush_seq = rec->seq;
    atomic_fetch_add_explicit(&g->bytes_d2h, bytes, memory_order_relaxed);
    return 1;
}

/* EVICT the least recently used unreferenced copy: write it back if dirty
 * (on the copy stream), then free it in stream order.  A copy the task being
 * issued has touched (creadwrite reads it without holding it) is skipped: its
 * event is not recorded yet, so nothing could wait for it.  Unit lock held. */
static int evict_one(tamm__gpu *g)
{
    TAMM_ASSERT(tamm__mutex_held(&g->lock));
    tamm__ublk *u = g->lru.next;
    while (u != &g->lru && touched_unrecorded(u)) u = u->next;
    if (u == &g->lru) return -1;
    TAMM_ASSERT(u->rc == 0 && u->buf != NULL); /* the LRU holds only copies no task holds */
    lru_remove(g, u);
    tamm__pend *b = batch(g);
    flush_locked(g, u, b);
    use_write(g, u, b);
    if (OPS->free(u->buf, g->copy_stream)) tamm__gpu_fail(g, NULL, "freeing an evicted block");
    TAMM_ASSERT(g->used >= u->T->blocks[u->lin].bytes);
    g->used -= u->T->blocks[u->lin].bytes;
    u->buf = NULL;
    u->state = TAMM_BS_UNALLOC;
    atomic_fetch_and(&GB(u->T, u->lin)->valid, ~BIT(g));
    atomic_fetch_add_explicit(&g->nevict, 1, memory_order_relaxed);
    return 0;
}

/* Device memory for rec's stream within the limit, evicting as needed.
 * Returns NULL (and *why) when even an empty unit cannot hold it. */
static void *dev_alloc(tamm__gpu *g, tamm__pend *rec, size_t bytes, const char **why)
{
    int evicted = 0;
    while (g->used + bytes > g->limit) {
        if (evict_one(g)) { *why = "the limit is taken by blocks that running tasks hold"; return NULL; }
        evicted = 1;
    }
    void *s = task_stream(g, rec);
    if (evicted && g->batch && rec->stream >= 0) {
        /* the write-backs of what was evicted happen before this stream reuses the memory */
        tamm__pend *b = g->batch;
        tamm__unit_close_batch(g);
        if (OPS->wait(s, b->ev)) tamm__gpu_fail(g, rec->task, "ordering an eviction before reuse");
    }
    void *p = NULL;
    while (OPS->alloc(&p, bytes, s)) {
        /* the device itself is full (other users, fragmentation): evict and retry */
        if (evict_one(g)) { *why = OPS->error(); return NULL; }
    }
    g->used += bytes;
    if (g->used > g->peak) g->peak = g->used;
    return p;
}

int tamm__unit_flush(tamm__gpu *g, tamm__flushreq *r)
{
    pthread_mutex_lock(&g->lock);
    if (!r->T->gpu) { pthread_mutex_unlock(&g->lock); tamm__task_dep_satisfied(r->t); return 1; }
    tamm__ublk *u = U(g, r->T, r->lin);
    int done_now = 0;
    if (u->state == TAMM_BS_DIRTY || u->state == TAMM_BS_DIRTYACC) {
        if (u->rc > 0) { pthread_mutex_unlock(&g->lock); return 0; }
        tamm__pend *b = batch(g);
        if (flush_locked(g, u, b)) waiter_add(b, r->t);
        else if (live(u->flush, u->flush_seq)) waiter_add(u->flush, r->t); /* stored now, after an earlier one */
        else done_now = 1;
    } else if (live(u->flush, u->flush_seq)) {
        waiter_add(u->flush, r->t);
    } else {
        done_now = 1;
    }
    pthread_mutex_unlock(&g->lock);
    if (done_now) tamm__task_dep_satisfied(r->t);
    return 1;
}

/* ------------------------------------------------------------------ */
/* prefetch                                                              */
/* ------------------------------------------------------------------ */
int tamm__unit_prefetch(tamm__gpu *g, tamm_tensor *T, long lin)
{
    if (!T->gpu) return 0;
    tamm__gblk *gb = GB(T, lin);
    /* the home is current (its task is ready: a newer copy elsewhere was flushed before it was queued) */
    if (atomic_load(&gb->dirty_w) || atomic_load(&gb->dirty_a)) return 0;
    size_t bytes = T->blocks[lin].bytes;
    int did = 0;
    pthread_mutex_lock(&g->lock);
    tamm__ublk *u = U(g, T, lin);
    if (u->state == TAMM_BS_READY && u->ver != atomic_load(&gb->ver)) u->state = TAMM_BS_UNI; /* the home changed */
    if ((u->state == TAMM_BS_UNALLOC || u->state == TAMM_BS_UNI) && u->rc == 0 &&
        (u->buf || g->used + bytes <= g->limit)) { /* never an eviction: room only */
        /* under TAMM_MEMORY_LIMIT only from a resident home, and only where the host has room to
         * hold it beside its reservations: a prefetch never reads back nor goes over */
        void *home = NULL;
        if (tamm__ml_on ? !tamm__ml_hold(T, lin, 0, TAMM_HOLD_TRY | TAMM_HOLD_READ | TAMM_HOLD_RESIDENT, &home)
                        : !(home = home_of(T, lin))) {
            pthread_mutex_unlock(&g->lock);
            return 0;
        }
        tamm__pend *b = batch(g);
        if (tamm__ml_on) rec_hold(b, T, lin, 0);
        if (!u->buf) {
            if (OPS->alloc(&u->buf, bytes, g->copy_stream)) { /* the device is full: not now */
                u->buf = NULL;
                pthread_mutex_unlock(&g->lock);
                return 0; /* (the batch lets the hold go when it completes) */
            }
            g->used += bytes;
            if (g->used > g->peak) g->peak = g->used;
        }
        use_write(g, u, b); /* after whatever still reads the old contents */
        if (OPS->h2d(u->buf, home, bytes, g->copy_stream)) tamm__gpu_fail(g, NULL, "prefetching a block");
        trace_copy(b, TAMM_CP_H2D, T, lin, bytes);
        atomic_fetch_add_explicit(&g->bytes_h2d, bytes, memory_order_relaxed);
        atomic_fetch_add_explicit(&g->npf, 1, memory_order_relaxed);
        u->state = TAMM_BS_READY;
        u->ver = atomic_load(&gb->ver);
        u->pf = 1;
        atomic_fetch_or(&gb->valid, BIT(g));
        lru_push(g, u); /* unreferenced: a task that needs the room may evict it */
        did = 1;
    }
    pthread_mutex_unlock(&g->lock);
    return did;
}

int tamm__unit_parent_stream(tamm__gpu *g, const tamm__task_s *t)
{
    int k = -1;
    pthread_mutex_lock(&g->lock);
    for (int i = 0; i < t->ndep && k < 0; i++) {
        const tamm__dep *d = &t->dep[i];
        if (d->lin < 0 || !d->T->gpu) continue;
        const tamm__ublk *u = U(g, d->T, d->lin);
        if (live(u->use, u->use_seq) && u->use->task && (u->use->task->flags & TAMM_TF_DEPS_ENDED)) k = u->use->stream;
    }
    pthread_mutex_unlock(&g->lock);
    return k;
}

int tamm__unit_home_busy(tamm__gpu *g, const tamm__task_s *t)
{
    int busy = 0;
    pthread_mutex_lock(&g->lock);
    for (int i = 0; i < t->ndep && !busy; i++) {
        const tamm__dep *d = &t->dep[i];
        if (!d->T->gpu) continue;
        long b0 = d->lin >= 0 ? d->lin : 0, b1 = d->lin >= 0 ? d->lin + 1 : d->T->nblk;
        for (long b = b0; b < b1 && !busy; b++) {
            const tamm__ublk *u = U(g, d->T, b);
            busy = u->buf && live(u->use, u->use_seq) && !u->use->task; /* a copy-stream write: a prefetch */
        }
    }
    pthread_mutex_unlock(&g->lock);
    return busy;
}

int tamm__unit_wants_home(void *arg, const tamm__dep *d)
{
    const tamm__gpu *g = arg;
    /* a read (or a creadwrite's copy) from the home, unless g holds a current or newer copy (the
     * masks are hints, read without a lock: a copy evicted since is read back on use) */
    if (d->lin < 0 || !(d->perm & (TAMM_READ | TAMM_CANCELLABLE)) || !d->T->gpu) return 0;
    const tamm__gblk *gb = GB(d->T, d->lin);
    return !((atomic_load_explicit(&gb->valid, memory_order_relaxed) | atomic_load_explicit(&gb->dirty_w, memory_order_relaxed)) &
             BIT(g));
}

/* ------------------------------------------------------------------ */
/* get_buf on a GPU                                                      */
/* ------------------------------------------------------------------ */
static void *record(tamm_ctx *ctx, void *ptr, tamm_tensor *T, long lin, size_t bytes, tamm__bufkind k, unsigned flags)
{
    tamm__bufrec *r = tamm__ctx_rec_add(ctx);
    r->ptr = ptr;
    r->T = T;
    r->lin = lin;
    r->bytes = bytes;
    r->kind = (unsigned char)k;
    r->flags = (unsigned char)flags;
    return ptr;
}

/* a private device buffer (accumulation, temp, cancellable, scratch) */
static void *private_dev(tamm__gpu *g, tamm__pend *rec, tamm_ctx *ctx, tamm_tensor *T, long lin, size_t bytes,
                         tamm__bufkind k, unsigned flags, int zero)
{
    const char *why = NULL;
    char bn[128];
    void *p = dev_alloc(g, rec, bytes, &why);
    if (!p) {
        tamm__error(ctx->task, TAMM_ENOMEM, "GPU %d: no room for a %zu-byte buffer of %s within %zu bytes (%s)", g->id,
                    bytes, T ? tamm__block_name(T, lin, bn, sizeof bn) : k == TAMM_BK_SCRATCH ? "scratch (tamm_cuda_scratch)"
                                                                                             : "a block", g->limit, why);
        return NULL;
    }
    if (zero && OPS->zero(p, bytes, task_stream(g, rec))) tamm__gpu_fail(g, ctx->task, "zeroing a buffer");
    return record(ctx, p, T, lin, bytes, k, flags);
}

void *tamm__unit_scratch(tamm__gpu *g, tamm__pend *rec, size_t bytes)
{
    pthread_mutex_lock(&g->lock);
    void *p = private_dev(g, rec, &rec->ctx, NULL, 0, bytes ? bytes : 1, TAMM_BK_SCRATCH, 0, 0);
    pthread_mutex_unlock(&g->lock);
    return p;
}

void *tamm__unit_get(tamm__gpu *g, tamm__pend *rec, tamm_ctx *ctx, tamm_tensor *T, long lin, int req, int implicit,
                     int canc)
{
    size_t bytes = T->blocks[lin].bytes;
    void *s = task_stream(g, rec);
    unsigned flags = (implicit ? TAMM_BR_IMPLICIT : 0) | (canc ? TAMM_BR_CANCELLABLE : 0);
    char bn[128], why[160];
    pthread_mutex_lock(&g->lock);
    tamm__ublk *u = U(g, T, lin);
    tamm__gblk *gb = GB(T, lin);
    void *out = NULL;
    if (req == TAMM_REQ_TMP || req == TAMM_REQ_CWRITE || req == TAMM_REQ_CRW) {
        tamm__bufkind k = req == TAMM_REQ_TMP ? TAMM_BK_TMP : req == TAMM_REQ_CWRITE ? TAMM_BK_CWRITE : TAMM_BK_CRW;
        out = private_dev(g, rec, ctx, T, lin, bytes, k, flags, 0);
        if (out && req == TAMM_REQ_CRW) {
            int r;
            if (u->state == TAMM_BS_DIRTY) { /* this GPU holds the newest value */
                use_read(g, u, rec);
                r = OPS->d2d(out, u->buf, bytes, s);
                trace_copy(rec, TAMM_CP_D2D, T, lin, bytes);
            } else {
                /* a write-back of this GPU's copy still in flight (an eviction, a Put) brings the
                 * home its value: dispatch does not flush a GPU's own copies */
                wait_rec(g, u->flush, u->flush_seq, rec);
                r = OPS->h2d(out, hold_home(rec, T, lin, 1), bytes, s);
                trace_copy(rec, TAMM_CP_H2D, T, lin, bytes);
                atomic_fetch_add_explicit(&g->bytes_h2d, bytes, memory_order_relaxed);
            }
            if (r) tamm__gpu_fail(g, ctx->task, "copying a block for creadwrite");
        }
        pthread_mutex_unlock(&g->lock);
        return out;
    }
    tamm__blk_op op = req == TAMM_REQ_READ ? TAMM_BOP_READ : req == TAMM_REQ_WRITE ? TAMM_BOP_WRITE
                   : req == TAMM_REQ_RW ? TAMM_BOP_RW : TAMM_BOP_ACC;
    if (op == TAMM_BOP_ACC && (u->rc > 0 || canc)) {
        /* another running task holds the copy (or the sum may be cancelled): a private zeroed buffer */
        out = private_dev(g, rec, ctx, T, lin, bytes, TAMM_BK_ACC_PRIVATE, flags, 1);
        pthread_mutex_unlock(&g->lock);
        return out;
    }
    if (u->state == TAMM_BS_READY && u->ver != atomic_load(&gb->ver)) u->state = TAMM_BS_UNI; /* the home changed */
    if (u->state == TAMM_BS_DIRTYACC && op != TAMM_BOP_ACC) {
        /* dispatch flushes a partial sum before any other use (cuda_worker.c) */
        tamm__error(ctx->task, TAMM_EFSM, "GPU %d: %s holds a partial sum that was not flushed before a %s",
                    g->id, tamm__block_name(T, lin, bn, sizeof bn), tamm__blk_op_name(op));
        goto scratch;
    }
    unsigned char from = u->state;
    int got = 0;
    if (u->pf) { /* a prefetched copy: used, or replaced below if the home changed since */
        u->pf = 0;
        if (u->state == TAMM_BS_READY) atomic_fetch_add_explicit(&g->npf_used, 1, memory_order_relaxed);
    }
    if (u->buf) {
        if (op == TAMM_BOP_READ) use_read(g, u, rec); /* a Get below makes it a write */
        else use_write(g, u, rec);
    }
    TAMM_ASSERT(tamm__mutex_held(&g->lock)); /* the GPU's lock guards its units' states */
    for (;;) {
        TAMM_ASSERT(tamm__blk_consistent(u->state, u->rc));
        tamm__blk_step_t st = tamm__blk_step((tamm__blk_state)u->state, u->rc, 0, op);
        if (st.result != TAMM_BLK_OK) {
            tamm__blk_why((tamm__blk_state)u->state, u->rc, 0, op, why, sizeof why);
            tamm__error(ctx->task, TAMM_EFSM, "%s on %s (GPU %d): %s (a block can be held once for writing in a task)",
                        tamm__blk_op_name(op), tamm__block_name(T, lin, bn, sizeof bn), g->id, why);
            goto scratch;
        }
        if (st.actions & TAMM_ACT_ALLOCATE) {
            const char *w = NULL;
            u->buf = dev_alloc(g, rec, bytes, &w);
            if (!u->buf) {
                tamm__error(ctx->task, TAMM_ENOMEM, "GPU %d: no room for %s (%zu bytes) within TAMM_CUDA_MEMORY_LIMIT "
                            "(%zu bytes): %s", g->id, tamm__block_name(T, lin, bn, sizeof bn), bytes, g->limit, w);
                pthread_mutex_unlock(&g->lock);
                return NULL;
            }
            use_write(g, u, rec);
        }
        if (st.actions & TAMM_ACT_PUT) {
            if (OPS->d2h(hold_home(rec, T, lin, 0), u->buf, bytes, s)) tamm__gpu_fail(g, ctx->task, "writing a block back (Put)");
            trace_copy(rec, TAMM_CP_D2H, T, lin, bytes);
            item_add(rec, TAMM_PI_PUT, T, lin, u, NULL, bytes);
            u->flush = rec;
            u->flush_seq = rec->seq;
            atomic_fetch_add_explicit(&g->bytes_d2h, bytes, memory_order_relaxed);
        }
        if (st.actions & TAMM_ACT_GET) {
            if (op == TAMM_BOP_READ) {
                use_write(g, u, rec); /* replaces what earlier readers may still read */
                rec->home_reads++;    /* the home is read until rec's event: no early end (cuda_worker.c) */
            }
            if (OPS->h2d(u->buf, hold_home(rec, T, lin, 1), bytes, s)) tamm__gpu_fail(g, ctx->task, "fetching a block (Get)");
            trace_copy(rec, TAMM_CP_H2D, T, lin, bytes);
            atomic_fetch_add_explicit(&g->bytes_h2d, bytes, memory_order_relaxed);
            got = 1;
        }
        TAMM_ASSERT(tamm__blk_consistent(st.next, st.rc) && (st.next == TAMM_BS_UNALLOC || u->buf != NULL));
        u->state = (unsigned char)st.next;
        u->rc = st.rc;
        if (!st.again) break;
    }
    if (op == TAMM_BOP_READ || op == TAMM_BOP_RW)
        atomic_fetch_add_explicit(got ? &g->misses : &g->hits, 1, memory_order_relaxed);
    if (got) {
        u->ver = atomic_load(&gb->ver);
        atomic_fetch_or(&gb->valid, BIT(g));
    }
    if (u->state == TAMM_BS_DIRTY && from != TAMM_BS_DIRTY) {
        /* this copy becomes the newest value: every other copy is stale */
        u->ver = atomic_fetch_add(&gb->ver, 1) + 1;
        atomic_fetch_or(&gb->dirty_w, BIT(g));
        atomic_store(&gb->valid, BIT(g));
    }
    if (u->state == TAMM_BS_DIRTYACC && from != TAMM_BS_DIRTYACC) {
        if (OPS->zero(u->buf, bytes, s)) tamm__gpu_fail(g, ctx->task, "zeroing an accumulation buffer");
        atomic_fetch_or(&gb->dirty_a, BIT(g));
        atomic_fetch_and(&gb->valid, ~BIT(g));
    }
    lru_remove(g, u);
    tamm__bufkind k = op == TAMM_BOP_READ ? TAMM_BK_READ : op == TAMM_BOP_WRITE ? TAMM_BK_WRITE
                   : op == TAMM_BOP_RW ? TAMM_BK_RW : TAMM_BK_ACC_INPLACE;
    out = record(ctx, u->buf, T, lin, bytes, k, flags);
    pthread_mutex_unlock(&g->lock);
    return out;
scratch: /* under TAMM_ON_ERROR=return the task goes on with a buffer that is dropped */
    out = private_dev(g, rec, ctx, T, lin, bytes, TAMM_BK_SCRATCH, flags, 1);
    pthread_mutex_unlock(&g->lock);
    return out;
}

int tamm__unit_release(tamm_ctx *ctx, tamm__bufrec *r, int how)
{
    tamm__task_s *t = ctx->task;
    char bn[128];
    int rc = TAMM_OK, eff = how;
    const char *name = r->T ? tamm__block_name(r->T, r->lin, bn, sizeof bn) : "?";
    switch ((tamm__bufkind)r->kind) {
    case TAMM_BK_READ:
        if (how == TAMM_REL_ADD) {
            rc = tamm__error(t, TAMM_EBUF, "tamm_release_add on the read buffer of %s (use tamm_release_put or "
                             "tamm_release_cancel)", name);
            eff = TAMM_REL_CANCEL;
        }
        break;
    case TAMM_BK_WRITE: case TAMM_BK_RW: case TAMM_BK_ACC_INPLACE: {
        int want_add = r->kind == TAMM_BK_ACC_INPLACE;
        if (how == TAMM_REL_CANCEL)
            rc = tamm__error(t, TAMM_ECANCEL, "tamm_release_cancel on the %s buffer of %s, which is not cancellable",
                             tamm__buf_kind_name(r->kind), name);
        else if ((how == TAMM_REL_ADD) != want_add)
            rc = tamm__error(t, TAMM_EBUF, "%s on the %s buffer of %s (use %s)", tamm__rel_name((tamm__relkind)how), tamm__buf_kind_name(r->kind), name,
                             want_add ? "tamm_release_add" : "tamm_release_put");
        eff = TAMM_REL_PUT; /* the copy is released either way */
        break;
    }
    case TAMM_BK_ACC_PRIVATE:
        if (how == TAMM_REL_PUT) {
            rc = tamm__error(t, TAMM_EBUF, "tamm_release_put on the accum buffer of %s (use tamm_release_add)", name);
            eff = TAMM_REL_CANCEL;
        } else if (how == TAMM_REL_CANCEL && !(r->flags & TAMM_BR_CANCELLABLE)) {
            rc = tamm__error(t, TAMM_ECANCEL, "tamm_release_cancel on the accum buffer of %s, which is not cancellable "
                             "(declare the ref TAMM_ACCUM|TAMM_CANCELLABLE)", name);
        }
        break;
    case TAMM_BK_TMP:
        if (how != TAMM_REL_CANCEL) {
            unsigned perm = tamm__task_perm(t, r->T, r->lin, NULL);
            if (!tamm__perm_allows(how == TAMM_REL_PUT ? TAMM_OP_WRITE : TAMM_OP_ACC, perm)) {
                rc = tamm__error(t, TAMM_EPERM, "%s of a tmp buffer into %s: the task has %s permission on that block",
                                 tamm__rel_name((tamm__relkind)how), name, tamm__perm_name(perm));
                eff = TAMM_REL_CANCEL;
            }
        }
        break;
    case TAMM_BK_CWRITE: case TAMM_BK_CRW:
        if (how == TAMM_REL_ADD) {
            rc = tamm__error(t, TAMM_EBUF, "tamm_release_add on the %s buffer of %s (use tamm_release_put or "
                             "tamm_release_cancel)", tamm__buf_kind_name(r->kind), name);
            eff = TAMM_REL_CANCEL;
        }
        break;
    case TAMM_BK_SCRATCH:
        eff = TAMM_REL_CANCEL;
        break;
    }
    r->flags |= TAMM_BR_RELEASED | (eff == TAMM_REL_PUT ? TAMM_BR_GPU_PUT : eff == TAMM_REL_ADD ? TAMM_BR_GPU_ADD
                                                                                                  : TAMM_BR_GPU_CANCEL);
    return rc;
}

/* ------------------------------------------------------------------ */
/* the end of a task                                                     */
/* ------------------------------------------------------------------ */
static void free_private(tamm__gpu *g, tamm__pend *rec, tamm__bufrec *r)
{
    if (OPS->free(r->ptr, task_stream(g, rec))) tamm__gpu_fail(g, rec->task, "freeing a private buffer");
    g->used -= r->bytes;
}

/* Commit private buffer r into the home when rec completes (by copy or by sum). */
static void commit_private(tamm__gpu *g, tamm__pend *rec, tamm__bufrec *r, int add)
{
    void *s = task_stream(g, rec);
    tamm__ublk *u = U(g, r->T, r->lin);
    /* the commit is applied at the home when rec completes: after any write-back of this GPU's
     * copy still in flight, which would otherwise overwrite it (rec's event waits for it) */
    wait_rec(g, u->flush, u->flush_seq, rec);
    if (u->rc == 0) {
        if (add) {
            /* a newer copy here reaches the home first (a partial sum here may stay: sums commute,
             * and no staging buffer beyond the commit's is needed) */
            if (u->state == TAMM_BS_DIRTY) flush_locked(g, u, rec);
        } else if (u->state == TAMM_BS_DIRTY) { /* the commit overwrites it */
            u->state = TAMM_BS_UNI;
            if (!live(u->flush, u->flush_seq)) atomic_fetch_and(&GB(r->T, r->lin)->dirty_w, ~BIT(g));
        }
        if (u->buf) use_write(g, u, rec);        /* after an in-flight write-back of it */
    }
    void *st = stage_get(r->bytes);
    if (tamm__ml_on) { /* the home it is applied to at completion stays pinned until then */
        tamm__ml_hold(r->T, r->lin, 0, 0, NULL);
        rec_hold(rec, r->T, r->lin, 0);
    }
    if (OPS->d2h(st, r->ptr, r->bytes, s)) tamm__gpu_fail(g, rec->task, "reading a private buffer back");
    trace_copy(rec, TAMM_CP_D2H, r->T, r->lin, r->bytes);
    atomic_fetch_add_explicit(&g->bytes_d2h, r->bytes, memory_order_relaxed);
    item_add(rec, add ? TAMM_PI_COMMIT_ADD : TAMM_PI_COMMIT_PUT, r->T, r->lin, NULL, st, r->bytes);
}

void tamm__unit_task_end(tamm__gpu *g, tamm__pend *rec)
{
    tamm_ctx *ctx = &rec->ctx;
    char bn[128];
    pthread_mutex_lock(&g->lock);
    for (int i = 0; i < ctx->n; i++) {
        tamm__bufrec *r = &ctx->recs[i];
        int private_kind = r->kind == TAMM_BK_ACC_PRIVATE || r->kind == TAMM_BK_TMP || r->kind == TAMM_BK_CWRITE ||
                           r->kind == TAMM_BK_CRW || r->kind == TAMM_BK_SCRATCH;
        if (!(r->flags & TAMM_BR_RELEASED)) {
            r->flags |= TAMM_BR_RELEASED;
            if (r->kind == TAMM_BK_SCRATCH) {
                r->flags |= TAMM_BR_GPU_CANCEL;
            } else if (r->flags & TAMM_BR_IMPLICIT) {
                r->flags |= (r->kind == TAMM_BK_ACC_INPLACE || r->kind == TAMM_BK_ACC_PRIVATE) ? TAMM_BR_GPU_ADD : TAMM_BR_GPU_PUT;
            } else {
                pthread_mutex_unlock(&g->lock);
                tamm__error(ctx->task, TAMM_ELEAK, "the buffer of %s was never released (call tamm_release_put, _add or _cancel)",
                            r->T ? tamm__block_name(r->T, r->lin, bn, sizeof bn) : "?");
                pthread_mutex_lock(&g->lock);
                r->flags |= private_kind ? TAMM_BR_GPU_CANCEL : TAMM_BR_GPU_PUT;
            }
        }
        if (!private_kind) continue;
        if (!(r->flags & TAMM_BR_GPU_CANCEL) && r->T) commit_private(g, rec, r, (r->flags & TAMM_BR_GPU_ADD) != 0);
        free_private(g, rec, r);
    }
    pthread_mutex_unlock(&g->lock);
}

void tamm__unit_task_released(tamm__gpu *g, tamm__pend *rec)
{
    tamm_ctx *ctx = &rec->ctx;
    pthread_mutex_lock(&g->lock);
    for (int i = 0; i < ctx->n; i++) {
        tamm__bufrec *r = &ctx->recs[i];
        if (r->kind != TAMM_BK_READ && r->kind != TAMM_BK_WRITE && r->kind != TAMM_BK_RW && r->kind != TAMM_BK_ACC_INPLACE)
            continue;
        tamm__ublk *u = U(g, r->T, r->lin);
        tamm__blk_op op = (r->kind == TAMM_BK_READ && (r->flags & TAMM_BR_GPU_CANCEL)) ? TAMM_BOP_CANCEL : TAMM_BOP_RELEASE;
        tamm__blk_step_t st = tamm__blk_step((tamm__blk_state)u->state, u->rc, 0, op);
        /* the task held this buffer, so the table allows its release (RC > 0) */
        TAMM_ASSERT(st.result == TAMM_BLK_OK && tamm__blk_consistent(st.next, st.rc));
        if (st.result == TAMM_BLK_OK) {
            u->state = (unsigned char)st.next;
            u->rc = st.rc;
        }
        if (u->rc == 0 && u->buf) lru_push(g, u);
    }
    pthread_mutex_unlock(&g->lock);
}

/* ------------------------------------------------------------------ */
/* completion                                                            */
/* ------------------------------------------------------------------ */
/* The home of (T, lin) changes by copy or sum of src: every Ready copy is stale. */
static void home_update(tamm_tensor *T, long lin, const void *src, size_t bytes, int add)
{
    tamm__block_s *b = &T->blocks[lin];
    tamm__spin_lock(&b->lock);
    void *h = tamm__block_home(T, lin);
    if (add) tamm__accumulate(T->dtype, h, src, bytes / T->esize);
    else memcpy(h, src, bytes);
    if (T->ml) tamm__ml_dirty(T, lin); /* newer than its copy in the spill file (TAMM_MEMORY_LIMIT) */
    atomic_fetch_add(&GB(T, lin)->ver, 1);
    atomic_store(&GB(T, lin)->valid, 0);
    tamm__spin_unlock(&b->lock);
}

void tamm__unit_complete(tamm__gpu *g, tamm__pend *rec)
{
    for (int i = 0; i < rec->nitems; i++) {
        tamm__pitem *it = &rec->items[i];
        if (it->kind == TAMM_PI_ACCALL || it->kind == TAMM_PI_COMMIT_ADD || it->kind == TAMM_PI_COMMIT_PUT) {
            home_update(it->T, it->lin, it->staging, it->bytes, it->kind != TAMM_PI_COMMIT_PUT);
            stage_put(it->staging, it->bytes);
        }
        if (it->u) {
            pthread_mutex_lock(&g->lock);
            tamm__ublk *u = it->u;
            if (u->flush == rec && u->flush_seq == rec->seq) {
                u->flush = NULL;
                tamm__gblk *gb = GB(it->T, it->lin);
                if (u->state != TAMM_BS_DIRTY) atomic_fetch_and(&gb->dirty_w, ~BIT(g));
                if (u->state != TAMM_BS_DIRTYACC) atomic_fetch_and(&gb->dirty_a, ~BIT(g));
            }
            pthread_mutex_unlock(&g->lock);
        }
    }
    rec->nitems = 0;
    /* the homes its copies used may be evicted now (the tensor lives until they are let go) */
    for (int i = 0; i < rec->nholds; i++) tamm__ml_unhold(rec->holds[i].T, rec->holds[i].lin, rec->holds[i].extra);
    rec->nholds = 0;
    /* last: a waiter may destroy the tensor as soon as it runs */
    int n = rec->nwaiters;
    rec->nwaiters = 0;
    for (int i = 0; i < n; i++) tamm__task_dep_satisfied(rec->waiters[i]);
}
