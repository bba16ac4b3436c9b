/*
 * memlimit.c — host memory under TAMM_MEMORY_LIMIT (memlimit.h): the limit's
 * lifecycle and TAMM_STATS, and how much may be resident: the reservations
 * (admitted tasks' pins and private buffers, other units' holds, top-level
 * pins, what units keep for themselves), the admission of tasks against them
 * (tamm__ml_admit, tamm__ml_admit_unit, tamm__ml_hold), the queue of tasks
 * waiting for memory and the admitted tasks parked until their blocks are read
 * back.  Where a block's bytes are and how they move (the LRU, spare buffers,
 * the spill file, eviction, the I/O thread) is spill.c's; memlimit_int.h holds
 * what the two share.
 */
#include "memlimit_int.h"
#include "error.h"
#include "runtime.h"
#include "task.h"
#include "tensor.h"
#include "util.h"
#include "tamm_assert.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

int tamm__ml_on;

size_t tamm__ml_limit;
pthread_mutex_t tamm__ml_mlk = PTHREAD_MUTEX_INITIALIZER; /* mlk: the state below and spill.c's (memlimit_int.h) */
static size_t reserved;     /* bytes of blocks pinned by admitted tasks, and their private buffers */
static size_t top_bytes;    /* bytes pinned by top-level tamm_block */
static int nadmitted;       /* admitted tasks whose body (or unit's work) has not returned (the MPI flow's message tasks aside) */
static int nholds;          /* other units' holds on homes (tamm__ml_hold) */
static size_t fixed;        /* memory units keep for themselves (tamm__ml_fixed) */
static size_t fixed_max;    /* (TAMM_STATS) */
static int test_store;      /* TAMM_MEMORY_TEST_STORE=1 (tests only): no write-back from a unit holds a home */
static tamm__task_s *qhead, *qtail; /* tasks waiting for memory, FIFO (linked by t->next) */
static tamm__mblk **tops;    /* top-level pins, oldest first */
static int ntops, ctops;
/* admitted tasks whose spilled blocks are still being read back: they hold no
 * worker meanwhile, and the I/O thread queues each once its reads are done
 * (the scheduler is given only tasks whose blocks are resident) */
static tamm__task_s *phead, *ptail; /* linked by t->next, in admission order */
int tamm__ml_nparked;
/* TAMM_STATS */
tamm__ml_counters tamm__ml_st;

static void drain_locked(tamm__task_s **go, tamm__task_s **bad);
static void drained(tamm__task_s *go, tamm__task_s *bad);

void (*tamm__ml_wake)(void);

void tamm__ml_init(size_t lim, int nranks)
{
    (void)nranks; /* under MPI the limit covers each rank's homes and copies alike (memlimit.h) */
    tamm__ml_on = lim > 0; /* with GPUs too: their copies hold the homes they use (tamm__ml_hold) */
    const char *ts = getenv("TAMM_MEMORY_TEST_STORE");
    test_store = ts && *ts == '1';
    tamm__task_extra = (tamm__task_extra & TAMM_EXTRA_ROUTE) | (tamm__ml_on ? TAMM_EXTRA_MEMLIMIT : 0);
    tamm__ml_limit = lim;
    reserved = top_bytes = fixed = fixed_max = 0;
    nadmitted = nholds = 0;
    qhead = qtail = NULL;
    tamm__ml_spill_init();
    ntops = 0;
    atomic_store(&tamm__ml_st.spilled, 0); atomic_store(&tamm__ml_st.writes, 0); atomic_store(&tamm__ml_st.readback, 0);
    atomic_store(&tamm__ml_st.reads, 0); atomic_store(&tamm__ml_st.evict, 0); atomic_store(&tamm__ml_st.drop, 0);
    atomic_store(&tamm__ml_st.regen, 0); atomic_store(&tamm__ml_st.waits, 0); atomic_store(&tamm__ml_st.wait_ns, 0);
    atomic_store(&tamm__ml_st.over, 0);
    atomic_store(&tamm__ml_st.ahead, 0);
    atomic_store(&tamm__ml_st.nested_over, 0);
    atomic_store(&tamm__ml_st.msg_over, 0);
    atomic_store(&tamm__ml_st.parked, 0);
    atomic_store(&tamm__ml_st.in_task, 0);
    atomic_store(&tamm__ml_st.ahead_w, 0);
    atomic_store(&tamm__ml_st.holds, 0);
    atomic_store(&tamm__ml_st.holds_over, 0);
    atomic_store(&tamm__ml_st.stores, 0);
    phead = ptail = NULL;
    tamm__ml_nparked = 0;
}

void tamm__ml_fini(void)
{
    tamm__ml_spill_fini();
    free(tops);
    tops = NULL;
    ctops = ntops = 0;
    tamm__ml_on = 0;
    tamm__task_extra &= ~TAMM_EXTRA_MEMLIMIT;
}

void tamm__ml_stats(FILE *f, int r)
{
    if (!tamm__ml_on) return;
    fprintf(f, "tamm stats: rank %d: memory limit %zu bytes: %llu evictions (%llu dropped clean or regenerable), "
               "%llu bytes spilled in %llu writes (%llu ahead of their eviction, on the I/O thread), %llu bytes read back in %llu reads (%llu ahead of their task, on the "
               "I/O thread; %llu by a running task, which waited; %llu tasks queued only once their blocks were read back), "
               "%llu blocks regenerated, "
               "%llu tasks waited for memory (%.1f ms in all), %llu nested tasks admitted beyond the reservations, "
               "%llu message tasks admitted beyond the reservations, %llu allocations over the limit (nothing evictable)\n",
            r, tamm__ml_limit, (unsigned long long)tamm__ml_st.evict, (unsigned long long)tamm__ml_st.drop,
            (unsigned long long)tamm__ml_st.spilled, (unsigned long long)tamm__ml_st.writes,
            (unsigned long long)tamm__ml_st.ahead_w, (unsigned long long)tamm__ml_st.readback,
            (unsigned long long)tamm__ml_st.reads, (unsigned long long)tamm__ml_st.ahead,
            (unsigned long long)tamm__ml_st.in_task, (unsigned long long)tamm__ml_st.parked,
            (unsigned long long)tamm__ml_st.regen, (unsigned long long)tamm__ml_st.waits, (double)tamm__ml_st.wait_ns / 1e6,
            (unsigned long long)tamm__ml_st.nested_over, (unsigned long long)tamm__ml_st.msg_over,
            (unsigned long long)tamm__ml_st.over);
    if (atomic_load(&tamm__ml_st.holds) || atomic_load(&tamm__ml_st.stores) || fixed_max)
        fprintf(f, "tamm stats: rank %d: memory limit and other units: %llu copies held homes (%llu beyond the "
                   "reservations), %llu blocks stored back without a home (%zu bytes kept for that)\n",
                r, (unsigned long long)tamm__ml_st.holds, (unsigned long long)tamm__ml_st.holds_over,
                (unsigned long long)tamm__ml_st.stores, fixed_max);
}

/* ------------------------------------------------------------------ */
/* top-level pins                                                        */
/* ------------------------------------------------------------------ */
static void top_drop_at(int i)
{
    TAMM_ASSERT(i >= 0 && i < ntops);
    tamm__mblk *m = tops[i];
    TAMM_ASSERT(m->toppin && top_bytes >= m->T->blocks[m->lin].bytes);
    m->toppin = 0;
    top_bytes -= m->T->blocks[m->lin].bytes;
    memmove(&tops[i], &tops[i + 1], (size_t)(ntops - i - 1) * sizeof *tops);
    ntops--;
}

void tamm__ml_top_drop(tamm__mblk *m)
{
    for (int i = 0; i < ntops; i++)
        if (tops[i] == m) {
            top_drop_at(i);
            return;
        }
}

void tamm__ml_top_pin(tamm_tensor *T, long lin)
{
    if (!T->ml) return;
    tamm__mblk *m = &T->ml[lin];
    m->dirty = 1; /* top-level code may write through the pointer */
    pthread_mutex_lock(&tamm__ml_mlk);
    if (!m->toppin) {
        if (ntops == ctops) {
            ctops = ctops ? 2 * ctops : 16;
            tops = tamm__xrealloc(tops, (size_t)ctops * sizeof *tops);
        }
        tops[ntops++] = m;
        m->toppin = 1;
        top_bytes += T->blocks[lin].bytes;
        while (top_bytes > tamm__ml_limit / 2 && ntops > 1) top_drop_at(0); /* the oldest top-level pointer goes */
    }
    if (m->in_lru) tamm__ml_lru_front(m);
    pthread_mutex_unlock(&tamm__ml_mlk);
}

/* gather / scatter: one block at a time, on the program's thread, so a flag suffices */
void tamm__ml_pin(tamm_tensor *T, long lin)
{
    if (!T->ml) return;
    pthread_mutex_lock(&tamm__ml_mlk);
    T->ml[lin].pins++;
    pthread_mutex_unlock(&tamm__ml_mlk);
}

void tamm__ml_unpin(tamm_tensor *T, long lin)
{
    if (!T->ml) return;
    pthread_mutex_lock(&tamm__ml_mlk);
    TAMM_ASSERT(T->ml[lin].pins > 0); /* every unpin follows its pin */
    T->ml[lin].pins--;
    pthread_mutex_unlock(&tamm__ml_mlk);
}

/* ------------------------------------------------------------------ */
/* admission                                                             */
/* ------------------------------------------------------------------ */
/* A private buffer the task may need for the block beside it: an accumulation
 * (zeroed partial sum) or a cancellable access (private copy). */
static inline size_t extra_of(const tamm__dep *d, size_t bytes)
{
    return (d->perm & (TAMM_ACCUM | TAMM_CANCELLABLE)) ? bytes : 0;
}

/* One pin on m goes back; at 0 its bytes are no longer reserved.  mlk held. */
void tamm__ml_unpin_mblk(tamm__mblk *m, size_t bytes)
{
    TAMM_ASSERT(tamm__mutex_held(&tamm__ml_mlk));
    TAMM_ASSERT(m->pins > 0); /* pins and unpins balance: never below zero */
    if (--m->pins == 0) {
        TAMM_ASSERT(reserved >= bytes);
        reserved -= bytes;
    }
}

/* `bytes` of private buffers are no longer reserved.  mlk held. */
static void unreserve(size_t bytes)
{
    TAMM_ASSERT(reserved >= bytes);
    reserved -= bytes;
}

/* ---- admitted tasks parked until their blocks are read back (spill.c) ---- */
/* Whether one of t's blocks is still to be read back.  mlk held. */
static int reads_pending(const tamm__task_s *t)
{
    for (int i = 0; i < t->ndep; i++) {
        const tamm__dep *d = &t->dep[i];
        if (d->lin >= 0 && d->T->ml && tamm__ml_read_pending(&d->T->ml[d->lin])) return 1;
    }
    return 0;
}

/* Take the parked tasks whose blocks are all resident off the parked list, in
 * order, as a list (linked by next) for the caller to queue after dropping
 * mlk.  mlk held. */
static tamm__task_s *unpark(void)
{
    tamm__task_s *go = NULL, *gotail = NULL, *prev = NULL;
    for (tamm__task_s *t = phead, *n; t; t = n) {
        n = t->next;
        if (reads_pending(t)) {
            prev = t;
            continue;
        }
        if (prev) prev->next = n;
        else phead = n;
        if (ptail == t) ptail = prev;
        TAMM_ASSERT(tamm__ml_nparked > 0);
        tamm__ml_nparked--;
        t->next = NULL;
        if (gotail) gotail->next = t;
        else go = t;
        gotail = t;
    }
    return go;
}

static void push_all(tamm__task_s *go)
{
    while (go) {
        tamm__task_s *n = go->next;
        go->next = NULL;
        tamm__task_push(go);
        go = n;
    }
}

/* Queue the parked tasks that can run now.  mlk held; dropped while queuing. */
void tamm__ml_unpark_and_push(void)
{
    if (!phead) return;
    tamm__task_s *go = unpark();
    if (!go) return;
    pthread_mutex_unlock(&tamm__ml_mlk);
    push_all(go);
    pthread_mutex_lock(&tamm__ml_mlk);
}

/* Whether `need` more bytes fit beside the reservations (those of admitted
 * tasks, other units' holds, top-level pointers and what units keep).  mlk held. */
static inline int fits(size_t need) { return reserved + top_bytes + fixed + need <= tamm__ml_limit; }
/* Whether something that will give memory back is under way: an admitted body
 * (or a unit's task) or another unit's hold.  Else nothing would ever make room,
 * and the first in line goes whatever it needs.  mlk held. */
static inline int releasing(void) { return nadmitted || nholds; }

/* Try to admit t.  mlk held.  1: admitted (pinned), 2: admitted, but some of
 * its blocks are being read back (park it), 0: does not fit now, -1: can
 * never fit (*total: its footprint).  want (NULL: every block): which
 * spilled blocks to read back before it runs. */
static int try_admit(tamm__task_s *t, size_t *total, tamm_ml_want want, void *warg)
{
    size_t all = 0, need = 0;
    for (int i = 0; i < t->ndep; i++) {
        tamm__dep *d = &t->dep[i];
        if (d->lin < 0 || !d->T->ml) continue; /* whole-tensor accesses: paged on use, not reserved */
        tamm__mblk *m = &d->T->ml[d->lin];
        size_t bytes = d->T->blocks[d->lin].bytes;
        if (m->toppin) tamm__ml_top_drop(m); /* a task uses it now: the top-level pointer's time is over */
        all += bytes + extra_of(d, bytes);
        need += (m->pins ? 0 : bytes) + extra_of(d, bytes);
    }
    *total = all;
    int msg = (t->flags & TAMM_TF_PSEUDO) != 0;
    /* (a message task is never refused: an eviction of copies frees its blocks; a block over
     * the limit received for a task is that task's error) */
    if (all > tamm__ml_limit && !msg) return -1;
    if ((releasing() || msg) && !fits(need)) {
        /* A nested task never waits: its parent's body may be waiting for it with its own blocks
         * reserved (tamm_cc_taskwait, an undeferred child, TAMM_SEQUENTIAL), and would wait for
         * ever.  It is admitted over the reservations (its blocks still cannot be evicted while it
         * runs); eviction keeps the rest within the limit where it can.  Neither does the MPI
         * flow's side of a block message (send, receive, zeroing of a contribution, eviction of
         * copies): another rank's tasks may wait for it, and that rank's memory for them. */
        if (!t->parent && !msg) return 0;
        atomic_fetch_add(msg ? &tamm__ml_st.msg_over : &tamm__ml_st.nested_over, 1);
    }
    int reading = 0;
    for (int i = 0; i < t->ndep; i++) {
        tamm__dep *d = &t->dep[i];
        if (d->lin < 0 || !d->T->ml) continue;
        tamm__mblk *m = &d->T->ml[d->lin];
        size_t bytes = d->T->blocks[d->lin].bytes;
        if (m->pins++ == 0) reserved += bytes;
        reserved += extra_of(d, bytes);
        if (m->in_lru) tamm__ml_lru_front(m);
        else if (m->valid && !msg && (!want || want(warg, d))) { /* spilled: read it back before the task runs */
            if (!tamm__ml_read_pending(m)) tamm__ml_io_enqueue(m);
            reading |= tamm__ml_read_pending(m); /* (0 if the I/O thread could not start: the task reads on use) */
        }
    }
    if (!msg) nadmitted++; /* a message task's pins may last until its message arrives: not a running body */
    t->flags |= TAMM_TF_MLRES;
    return reading ? 2 : 1;
}

/* t waits for the reads of its blocks, holding no worker.  mlk held. */
static void park(tamm__task_s *t)
{
    t->next = NULL;
    if (ptail) ptail->next = t;
    else phead = t;
    ptail = t;
    tamm__ml_nparked++;
    atomic_fetch_add(&tamm__ml_st.parked, 1);
}

/* t can never fit: reported, and completed as skipped. */
static TAMM_COLD void fail_task(tamm__task_s *t)
{
    char list[512];
    int o = 0, shown = 0;
    size_t total = 0;
    list[0] = 0;
    for (int i = 0; i < t->ndep; i++) {
        tamm__dep *d = &t->dep[i];
        if (d->lin < 0 || !d->T->ml) continue;
        char bn[128];
        size_t bytes = d->T->blocks[d->lin].bytes;
        total += bytes + extra_of(d, bytes);
        if (o >= 400) continue;
        o += snprintf(list + o, sizeof list - (size_t)o, "%s%s %zu%s", shown++ ? ", " : "",
                      tamm__block_name(d->T, d->lin, bn, sizeof bn), bytes, extra_of(d, bytes) ? " (+ a private buffer)" : "");
    }
    if (o >= 400) snprintf(list + o, sizeof list - (size_t)o, ", ...");
    tamm__error(t, TAMM_ENOMEM, "the task's blocks need %zu bytes (%s), more than TAMM_MEMORY_LIMIT of %zu bytes: "
                "it cannot run (use smaller tiles or a larger limit)", total, list, tamm__ml_limit);
    atomic_fetch_add_explicit(&tamm__rt.nskipped, 1, memory_order_relaxed); /* TAMM_STATS */
    tamm__task_body_done(t); /* skipped, so nothing waits forever */
}

int tamm__ml_admit(tamm__task_s *t)
{
    if ((t->flags & (TAMM_TF_SENTINEL | TAMM_TF_DESTROY | TAMM_TF_COLLECTIVE)) || !t->ndep) return 1;
    size_t total = 0;
    int r = 0;
    pthread_mutex_lock(&tamm__ml_mlk);
    /* a nested task does not queue behind top-level ones: its parent's body may be waiting for it
     * (tamm_cc_taskwait) with its blocks reserved, which would hold up the line for ever */
    if (!qhead || t->parent || (t->flags & TAMM_TF_PSEUDO)) r = try_admit(t, &total, NULL, NULL);
    if (r == 2) park(t);
    if (r == 0) { /* waits for memory, behind those already waiting */
        t->next = NULL;
        t->ml_since = tamm__now_ns();
        if (qtail) qtail->next = t;
        else qhead = t;
        qtail = t;
    }
    pthread_mutex_unlock(&tamm__ml_mlk);
    if (r < 0) fail_task(t);
    return r == 1;
}

int tamm__ml_keep(tamm__task_s *t)
{
    if (!(t->flags & TAMM_TF_MLRES)) return 0;
    t->flags &= ~(unsigned)TAMM_TF_MLRES; /* (on the worker running t's body, which reads it after the body) */
    return 1;
}

static void unpin_and_drain(tamm__task_s *t);

void tamm__ml_done(tamm__task_s *t)
{
    t->flags &= ~(unsigned)TAMM_TF_MLRES;
    unpin_and_drain(t);
}

void tamm__ml_kept_done(tamm__task_s *t) { unpin_and_drain(t); }

/* Admit the tasks waiting for memory that fit now: those to queue into *go,
 * those that can never fit into *bad (lists linked by next), for drained()
 * once mlk is dropped.  mlk held. */
static void drain_locked(tamm__task_s **go, tamm__task_s **bad)
{
    tamm__task_s *gotail = NULL, *badtail = NULL;
    *go = *bad = NULL;
    uint64_t now = tamm__now_ns();
    while (qhead) {
        size_t total = 0;
        int r = try_admit(qhead, &total, NULL, NULL);
        if (r == 0) break;
        tamm__task_s *q = qhead;
        qhead = q->next;
        if (!qhead) qtail = NULL;
        atomic_fetch_add(&tamm__ml_st.waits, 1);
        atomic_fetch_add(&tamm__ml_st.wait_ns, now - q->ml_since);
        q->next = NULL;
        if (r < 0) {
            if (badtail) badtail->next = q;
            else *bad = q;
            badtail = q;
        } else if (r == 2) {
            park(q);
        } else {
            if (gotail) gotail->next = q;
            else *go = q;
            gotail = q;
        }
    }
}

/* After drain_locked, mlk dropped: queue what was admitted, report what never fits. */
static void drained(tamm__task_s *go, tamm__task_s *bad)
{
    push_all(go);
    while (bad) {
        tamm__task_s *n = bad->next;
        bad->next = NULL;
        fail_task(bad);
        bad = n;
    }
}

/* t's pins go back; the tasks waiting for memory that fit now are admitted. */
static void unpin_and_drain(tamm__task_s *t)
{
    tamm__task_s *go, *bad;
    pthread_mutex_lock(&tamm__ml_mlk);
    for (int i = 0; i < t->ndep; i++) {
        tamm__dep *d = &t->dep[i];
        if (d->lin < 0 || !d->T->ml) continue;
        tamm__mblk *m = &d->T->ml[d->lin];
        size_t bytes = d->T->blocks[d->lin].bytes;
        tamm__ml_unpin_mblk(m, bytes);
        unreserve(extra_of(d, bytes));
    }
    if (!(t->flags & TAMM_TF_PSEUDO)) {
        TAMM_ASSERT(nadmitted > 0);
        nadmitted--;
    }
    /* t's blocks may be dirty and evictable now: while memory is three-quarters full the I/O
     * thread writes such blocks back ahead of their eviction */
    tamm__ml_clean_ahead();
    drain_locked(&go, &bad);
    pthread_mutex_unlock(&tamm__ml_mlk);
    drained(go, bad);
    tamm__ml_wake_units();
}

/* ------------------------------------------------------------------ */
/* other memory units (memlimit.h)                                       */
/* ------------------------------------------------------------------ */
int tamm__ml_admit_unit(tamm__task_s *t, tamm_ml_want want, void *arg)
{
    if ((t->flags & (TAMM_TF_SENTINEL | TAMM_TF_DESTROY | TAMM_TF_COLLECTIVE)) || !t->ndep) return 1;
    size_t total = 0;
    int r = 0;
    pthread_mutex_lock(&tamm__ml_mlk);
    /* behind the CPU tasks waiting for memory (they go first), but a nested task never waits:
     * its parent may be waiting for it with its own blocks reserved */
    if (!qhead || t->parent) r = try_admit(t, &total, want, arg);
    if (r == 2) atomic_fetch_add(&tamm__ml_st.parked, 1); /* (it waits at its unit, holding nothing there) */
    pthread_mutex_unlock(&tamm__ml_mlk);
    if (r < 0) fail_task(t);
    return r;
}

int tamm__ml_reading(const tamm__task_s *t)
{
    pthread_mutex_lock(&tamm__ml_mlk);
    int r = reads_pending(t);
    pthread_mutex_unlock(&tamm__ml_mlk);
    return r;
}

int tamm__ml_hold(tamm_tensor *T, long lin, size_t extra, unsigned how, void **home)
{
    tamm__mblk *m = &T->ml[lin];
    tamm__block_s *b = &T->blocks[lin];
    size_t bytes = b->bytes;
    pthread_mutex_lock(&tamm__ml_mlk);
    size_t need = (m->pins ? 0 : bytes) + extra;
    /* (a home in the LRU is resident; once pinned it stays so) */
    int refuse = (how & TAMM_HOLD_TRY) && (qhead || (releasing() && !fits(need)) || (test_store && !(how & TAMM_HOLD_READ)));
    if (refuse || ((how & TAMM_HOLD_RESIDENT) && !m->in_lru)) {
        pthread_mutex_unlock(&tamm__ml_mlk);
        return 0;
    }
    if (!fits(need)) atomic_fetch_add(&tamm__ml_st.holds_over, 1);
    if (m->pins++ == 0) reserved += bytes;
    reserved += extra;
    m->holds++;
    nholds++;
    atomic_fetch_add(&tamm__ml_st.holds, 1);
    if (m->in_lru) tamm__ml_lru_front(m);
    pthread_mutex_unlock(&tamm__ml_mlk);
    if (how & (TAMM_HOLD_READ | TAMM_HOLD_OVERWRITE)) {
        tamm__spin_lock(&b->lock);
        void *h = b->home ? b->home : tamm__ml_home_in(T, lin, (how & TAMM_HOLD_OVERWRITE) != 0);
        if (how & TAMM_HOLD_OVERWRITE) m->dirty = 1; /* (a resident home: changed outside the FSM) */
        tamm__spin_unlock(&b->lock);
        *home = h;
    }
    return 1;
}

void tamm__ml_unhold(tamm_tensor *T, long lin, size_t extra)
{
    tamm__mblk *m = &T->ml[lin];
    tamm__task_s *go, *bad;
    pthread_mutex_lock(&tamm__ml_mlk);
    TAMM_ASSERT(m->holds > 0 && nholds > 0); /* an unhold for every hold */
    tamm__ml_unpin_mblk(m, T->blocks[lin].bytes);
    unreserve(extra);
    m->holds--;
    nholds--;
    pthread_cond_broadcast(&tamm__ml_io_idle); /* (tensor_free and ml_release wait for the holds on their blocks) */
    drain_locked(&go, &bad);
    pthread_mutex_unlock(&tamm__ml_mlk);
    drained(go, bad);
    tamm__ml_wake_units();
}

void tamm__ml_fixed(long bytes)
{
    pthread_mutex_lock(&tamm__ml_mlk);
    fixed = (size_t)((long)fixed + bytes);
    if (fixed > fixed_max) fixed_max = fixed;
    pthread_mutex_unlock(&tamm__ml_mlk);
    if (bytes < 0) tamm__ml_wake_units();
}
