/*
 * dag.c — epochs and chains: the submission FSM (dep_fsm.c) applied to tasks,
 * per block and per tensor, in the top-level domain and in each parent's
 * domain of children.  See dag.h for the model.
 *
 * Concurrency, without locks: a chain's fields (its newest epoch, generation,
 * the number of tasks that joined that epoch) belong to the one thread that
 * submits into its domain (the top-level thread, or the parent task's body).
 * An epoch's other threads only ever do single atomic steps on it:
 *  - completers count down `count`, which starts at UNSEALED; sealing the
 *    epoch (no more joins) subtracts UNSEALED - joined, so it reaches 0 exactly
 *    when the epoch is sealed and every member has completed, and the thread
 *    whose step takes it to 0 completes the epoch;
 *  - `waiters` is a stack of members waiting for the start; starting swaps in
 *    STARTED, after which a joining task does not wait;
 *  - `dependents` is a stack of later epochs waiting for the completion;
 *    completing swaps in DONE, after which a new dependent does not wait;
 *  - `refs` (the chain's reference and the completion's) frees the epoch.
 * So joining a started epoch reads it and writes nothing, and completing a
 * member is one atomic decrement: the submitter and the workers do not pass
 * the epoch's line back and forth for every task.  `next` and `barrier` are
 * set by the submitter before it seals the epoch and read by the completer
 * after, ordered by the acquire-release steps on `count`.
 */
#include "dag.h"
#include "buffer.h"
#include "dep_fsm.h"
#include "runtime.h"
#include "task.h"
#include "tensor.h"
#include "tamm_assert.h"
#include <string.h>

/* One cache line: what the submitter and the completers of its members touch. */
struct tamm__epoch {
    atomic_int count;         /* UNSEALED - completed members, then members left once sealed */
    atomic_int npreds;        /* unfinished predecessors (+1 guard while being built) */
    atomic_int refs;          /* 2: the chain's (until retired) and the completion's */
    unsigned char mode;       /* tamm__dep_state of the set: READ, WRITE or ACC (immutable) */
    unsigned char coarse;     /* a whole-tensor epoch (immutable) */
    unsigned char sealed;     /* the submitter's: no more joins */
    _Atomic(tamm__dep *) waiters;       /* members waiting for the start, or STARTED */
    _Atomic(tamm__epoch *) dependents;  /* epochs waiting for the completion (dep_link), or DONE */
    _Atomic(tamm__epoch *) next;        /* later epoch of the same chain, waiting for this one */
    _Atomic(struct tamm__task_s *) next_first; /* next's first member: a hint for prefetching only */
    tamm__epoch *barrier;      /* whole-tensor epoch waiting for this block epoch */
    tamm__epoch *dep_link;     /* link in another epoch's dependents stack */
};
_Static_assert(sizeof(struct tamm__epoch) <= TAMM_CACHELINE, "an epoch fits in one cache line");

#define UNSEALED (1 << 30)
static char started_mark, done_mark;
#define STARTED ((tamm__dep *)(void *)&started_mark)
#define DONE ((tamm__epoch *)(void *)&done_mark)

/* Edge recording only (TAMM_DAG / TAMM_TRACE): follows the epoch in the same
 * pool object, which is that much larger when recording is on. */
typedef struct tamm_epoch_rec {
    uint64_t *ids, *pred_ids;
    int nids, capids, npred_ids, cappred;
} tamm_epoch_rec;
#define EREC(e) ((tamm_epoch_rec *)((char *)(e) + TAMM_CACHELINE))

size_t tamm__dag_epoch_size(int recording)
{
    return recording ? TAMM_CACHELINE + sizeof(tamm_epoch_rec) : sizeof(struct tamm__epoch);
}

/* ------------------------------------------------------------------ */
/* epoch allocation                                                      */
/* ------------------------------------------------------------------ */
static pthread_mutex_t foreign_lock = PTHREAD_MUTEX_INITIALIZER;
static tamm__pool_cache foreign_cache;

static tamm__epoch *epoch_new(int mode, int coarse)
{
    tamm__worker *w = tamm__self();
    tamm__epoch *e;
    if (TAMM_LIKELY(w != NULL)) {
        e = tamm__pool_get(&tamm__rt.epoch_pool, &w->epoch_cache);
    } else {
        pthread_mutex_lock(&foreign_lock);
        e = tamm__pool_get(&tamm__rt.epoch_pool, &foreign_cache);
        pthread_mutex_unlock(&foreign_lock);
    }
    atomic_init(&e->count, UNSEALED);
    atomic_init(&e->npreds, 1); /* construction guard */
    atomic_init(&e->refs, 2);
    e->mode = (unsigned char)mode;
    e->coarse = (unsigned char)coarse;
    e->sealed = 0;
    atomic_init(&e->waiters, NULL);
    atomic_init(&e->dependents, NULL);
    atomic_init(&e->next, NULL);
    atomic_init(&e->next_first, NULL);
    e->barrier = e->dep_link = NULL;
    if (TAMM_UNLIKELY(tamm__rt.recording)) memset(EREC(e), 0, sizeof(tamm_epoch_rec));
    return e;
}

static void epoch_free(tamm__epoch *e)
{
    if (TAMM_UNLIKELY(tamm__rt.recording)) {
        free(EREC(e)->ids);
        free(EREC(e)->pred_ids);
    }
    tamm__worker *w = tamm__self();
    if (TAMM_LIKELY(w != NULL)) {
        tamm__pool_put(&tamm__rt.epoch_pool, &w->epoch_cache, e);
    } else {
        pthread_mutex_lock(&foreign_lock);
        tamm__pool_put(&tamm__rt.epoch_pool, &foreign_cache, e);
        pthread_mutex_unlock(&foreign_lock);
    }
}

void tamm__chain_init(tamm__chain *c)
{
    c->cur = NULL;
    c->gen = 0;
    c->joined = 0;
    c->touched = 0;
    c->mode = TAMM_DS_UNACCESSED;
    c->started = 0;
}

/* ------------------------------------------------------------------ */
/* edge recording (TAMM_DAG / TAMM_TRACE)                                */
/* ------------------------------------------------------------------ */
static pthread_mutex_t rec_lock = PTHREAD_MUTEX_INITIALIZER;
static tamm__edge *edges;
static size_t nedges, capedges;
const tamm__edge *tamm__dag_edges(size_t *n)
{
    *n = nedges;
    return edges;
}

void tamm__dag_record_reset(void)
{
    free(edges);
    edges = NULL;
    nedges = capedges = 0;
}

static void rec_edge(uint64_t from, uint64_t to)
{
    if (from == to) return;
    pthread_mutex_lock(&rec_lock);
    if (nedges == capedges) {
        capedges = capedges ? capedges * 2 : 1024;
        edges = tamm__xrealloc(edges, capedges * sizeof *edges);
    }
    edges[nedges].from = from;
    edges[nedges].to = to;
    nedges++;
    pthread_mutex_unlock(&rec_lock);
}

static void ids_push(uint64_t **a, int *n, int *cap, uint64_t v)
{
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 8;
        *a = tamm__xrealloc(*a, (size_t)*cap * sizeof **a);
    }
    (*a)[(*n)++] = v;
}

/* The new epoch e waits for pred: its members become e's predecessors in the DAG. */
static void rec_pred(tamm__epoch *e, tamm__epoch *pred)
{
    tamm_epoch_rec *er = EREC(e), *pr = EREC(pred);
    for (int i = 0; i < pr->nids; i++)
        ids_push(&er->pred_ids, &er->npred_ids, &er->cappred, pr->ids[i]);
}

/* ------------------------------------------------------------------ */
/* starting and completing epochs                                       */
/* ------------------------------------------------------------------ */
static void epoch_start(tamm__epoch *e)
{
    tamm__dep *w = atomic_exchange_explicit(&e->waiters, STARTED, memory_order_acq_rel);
    while (w) {
        tamm__dep *n = w->next_waiter; /* read before the task may run and reuse w */
        if (n) TAMM_PREFETCH(n);  /* the next waiter's record, fetched while this one is woken */
        tamm__task_dep_satisfied(w->task);
        w = n;
    }
}

static inline void notify(tamm__epoch *e)
{
    int was = atomic_fetch_sub_explicit(&e->npreds, 1, memory_order_acq_rel);
    TAMM_ASSERT(was >= 1); /* a predecessor completed that e did not count */
    if (was == 1)
        epoch_start(e);
}

/* Drop one of e's two references (the chain's or the completion's). */
static inline void epoch_unref(tamm__epoch *e)
{
    int was = atomic_fetch_sub_explicit(&e->refs, 1, memory_order_acq_rel);
    TAMM_ASSERT(was == 1 || was == 2); /* two references: the chain's and the completion's */
    if (was == 1)
        epoch_free(e);
}

/* e is sealed and has no members left: it is complete (exactly one thread
 * gets here per epoch).  Its successors are notified once e is released. */
static TAMM_NOINLINE void epoch_complete(tamm__epoch *e)
{
    tamm__epoch *next = atomic_load_explicit(&e->next, memory_order_relaxed), *barrier = e->barrier;
    tamm__epoch *d = atomic_exchange_explicit(&e->dependents, DONE, memory_order_acq_rel);
    TAMM_ASSERT(d != DONE); /* exactly one completion per epoch */
    TAMM_ASSERT(e->sealed);
    epoch_unref(e);
    if (next) notify(next);
    if (TAMM_UNLIKELY(barrier != NULL)) notify(barrier);
    while (TAMM_UNLIKELY(d != NULL)) {
        tamm__epoch *n = d->dep_link; /* read before d may start, run and be freed */
        notify(d);
        d = n;
    }
}

/* Take k off e's count: completed members, or the seal's UNSEALED - joined.
 * The step that takes it to 0 completes e. */
static inline void count_down(tamm__epoch *e, int k)
{
    TAMM_ASSERT(k > 0);
    int was = atomic_fetch_sub_explicit(&e->count, k, memory_order_acq_rel);
    TAMM_ASSERT(was >= k); /* more members completed than joined */
    if (was == k)
        epoch_complete(e);
}

/* Seal e (no more joins; `joined` tasks joined it), if it is not sealed yet.
 * The submitter only. */
static void seal(tamm__epoch *e, int joined)
{
    if (e->sealed) return;
    TAMM_ASSERT(joined >= 0 && joined < UNSEALED);
    e->sealed = 1;
    count_down(e, UNSEALED - joined);
}

/* ------------------------------------------------------------------ */
/* domains                                                              */
/* ------------------------------------------------------------------ */
typedef struct dom_ent {
    const tamm_tensor *T;
    long lin;             /* -1: the tensor's chain */
    tamm__chain *chain;
} dom_ent;

struct tamm__domain {
    dom_ent *tab;
    size_t cap, n;
};

tamm__domain *tamm__domain_new(void)
{
    tamm__domain *d = tamm__xcalloc(1, sizeof *d);
    d->cap = 16;
    d->tab = tamm__xcalloc(d->cap, sizeof *d->tab);
    return d;
}

static size_t dom_hash(const tamm_tensor *T, long lin)
{
    uint64_t h = (uint64_t)(uintptr_t)T * 0x9E3779B97F4A7C15ull ^ ((uint64_t)lin + 0x7F4A7C15ull) * 0xBF58476D1CE4E5B9ull;
    return (size_t)(h ^ (h >> 31));
}

static tamm__chain *dom_chain(tamm__domain *d, const tamm_tensor *T, long lin)
{
    if (d->n * 2 >= d->cap) {
        dom_ent *old = d->tab;
        size_t oc = d->cap;
        d->cap *= 2;
        d->tab = tamm__xcalloc(d->cap, sizeof *d->tab);
        for (size_t i = 0; i < oc; i++)
            if (old[i].chain) {
                size_t j = dom_hash(old[i].T, old[i].lin) & (d->cap - 1);
                while (d->tab[j].chain) j = (j + 1) & (d->cap - 1);
                d->tab[j] = old[i];
            }
        free(old);
    }
    size_t j = dom_hash(T, lin) & (d->cap - 1);
    while (d->tab[j].chain) {
        if (d->tab[j].T == T && d->tab[j].lin == lin)
            return d->tab[j].chain;
        j = (j + 1) & (d->cap - 1);
    }
    tamm__chain *c = tamm__xmalloc(sizeof *c);
    tamm__chain_init(c);
    d->tab[j].T = T;
    d->tab[j].lin = lin;
    d->tab[j].chain = c;
    d->n++;
    return c;
}

/* d's chain of (T, lin), or NULL: a lookup that adds nothing */
static tamm__chain *dom_find(const tamm__domain *d, const tamm_tensor *T, long lin)
{
    size_t j = dom_hash(T, lin) & (d->cap - 1);
    while (d->tab[j].chain) {
        if (d->tab[j].T == T && d->tab[j].lin == lin) return d->tab[j].chain;
        j = (j + 1) & (d->cap - 1);
    }
    return NULL;
}

int tamm__dag_outstanding(tamm__domain *d, const tamm_tensor *T, long lin)
{
    int worst = TAMM_DS_UNACCESSED;
    for (int k = 0; k < 2 && d; k++) {
        tamm__chain *c = dom_find(d, T, k ? -1 : lin);
        tamm__epoch *e = c ? c->cur : NULL;
        if (!e) continue;
        int count = atomic_load_explicit(&e->count, memory_order_acquire);
        int left = e->sealed ? count : c->joined - (UNSEALED - count);
        if (left <= 0) continue;
        /* members still to complete; an epoch that has not started also waits for an earlier one
         * of another mode in its chain: exclusive then */
        int started = atomic_load_explicit(&e->npreds, memory_order_acquire) == 0;
        int m = started && (e->mode == TAMM_DS_READ || e->mode == TAMM_DS_ACC) ? e->mode : TAMM_DS_WRITE;
        if (worst == TAMM_DS_UNACCESSED) worst = m;
        else if (worst != m) worst = TAMM_DS_WRITE;
    }
    return worst;
}

static void chain_drop(tamm__chain *c)
{
    /* every task of the chain has completed: sealing its current epoch, if
     * any, completes it (nothing waits for it) */
    if (c->cur) {
        tamm__epoch *e = c->cur;
        c->cur = NULL;
        seal(e, c->joined);
        epoch_unref(e);
    }
}

void tamm__domain_free(tamm__domain *d)
{
    if (!d) return;
    for (size_t i = 0; i < d->cap; i++)
        if (d->tab[i].chain) {
            chain_drop(d->tab[i].chain);
            free(d->tab[i].chain);
        }
    free(d->tab);
    free(d);
}

void tamm__dag_tensor_done(tamm_tensor *T)
{
    for (long b = 0; b < T->nblk; b++)
        chain_drop(&T->chains[b]);
    chain_drop(&T->coarse);
}

/* ------------------------------------------------------------------ */
/* registration                                                          */
/* ------------------------------------------------------------------ */
static void rec_join(tamm__epoch *e, tamm__task_s *t)
{
    tamm_epoch_rec *r = EREC(e);
    ids_push(&r->ids, &r->nids, &r->capids, t->id);
    for (int i = 0; i < r->npred_ids; i++)
        rec_edge(r->pred_ids[i], t->id);
}

/* t becomes a member of e, its chain's newest epoch (c->joined counts it). */
static inline void member(tamm__chain *c, tamm__epoch *e, tamm__task_s *t, tamm__dep *dep)
{
    TAMM_ASSERT(e == c->cur && !e->sealed); /* only the newest, unsealed epoch takes members */
    dep->epoch = e;
    dep->task = t;
    c->joined++;
    if (TAMM_UNLIKELY(tamm__rt.recording)) rec_join(e, t);
}

/* t joins e, its chain's newest epoch.  If e has not started, t waits for it:
 * one more start condition, counted in t->nwait and added to t->deps when the
 * submission guard is dropped (task.c). */
static inline void join(tamm__chain *c, tamm__epoch *e, tamm__task_s *t, tamm__dep *dep)
{
    member(c, e, t, dep);
    /* once seen started, e's line is not read again: its completers write it */
    if (c->started) return;
    tamm__dep *old = atomic_load_explicit(&e->waiters, memory_order_acquire);
    while (old != STARTED) {
        dep->next_waiter = old;
        if (atomic_compare_exchange_weak_explicit(&e->waiters, &old, dep, memory_order_acq_rel,
                                                  memory_order_acquire)) {
            t->nwait++;
            return;
        }
    }
    c->started = 1;
}

/* The new epoch e (under construction) waits for the completion of the
 * whole-tensor epoch pred, unless it has completed. */
static void add_dependent(tamm__epoch *pred, tamm__epoch *e)
{
    TAMM_ASSERT(pred->coarse && pred != e); /* only whole-tensor epochs keep dependents */
    atomic_fetch_add_explicit(&e->npreds, 1, memory_order_relaxed);
    tamm__epoch *old = atomic_load_explicit(&pred->dependents, memory_order_acquire);
    for (;;) {
        if (old == DONE) { /* completed: nothing to wait for (e's guard keeps npreds > 0) */
            atomic_fetch_sub_explicit(&e->npreds, 1, memory_order_relaxed);
            return;
        }
        e->dep_link = old;
        if (atomic_compare_exchange_weak_explicit(&pred->dependents, &old, e, memory_order_acq_rel,
                                                  memory_order_acquire))
            break;
    }
    if (TAMM_UNLIKELY(tamm__rt.recording)) rec_pred(e, pred);
}

/* How a later epoch waits for an earlier one. */
enum { LINK_NEXT, LINK_DEPENDENT, LINK_BARRIER };

/* c's newest epoch stops being newest and e comes after it: e waits for it,
 * it is sealed, and the chain drops its reference.  A block epoch is sealed
 * only here, so the link is in place before it can complete. */
static void retire(tamm__chain *c, tamm__epoch *e, int how)
{
    tamm__epoch *cur = c->cur;
    TAMM_ASSERT(cur != NULL && cur != e);
    if (how == LINK_DEPENDENT) {
        add_dependent(cur, e);
    } else {
        if (TAMM_UNLIKELY(tamm__rt.recording)) rec_pred(e, cur);
        atomic_fetch_add_explicit(&e->npreds, 1, memory_order_relaxed);
        if (how == LINK_NEXT) {
            TAMM_ASSERT(atomic_load_explicit(&cur->next, memory_order_relaxed) == NULL); /* retired once */
            atomic_store_explicit(&cur->next, e, memory_order_relaxed);
        } else {
            TAMM_ASSERT(cur->barrier == NULL && e->coarse);
            cur->barrier = e;
        }
    }
    seal(cur, c->joined);
    epoch_unref(cur);
}

/* The submission-FSM step for the chain's newest epoch: t joins it (returns
 * NULL), or a new epoch comes after it and becomes the newest (returned with
 * its construction guard; t has not joined it yet). */
static tamm__epoch *open_epoch(tamm__chain *c, tamm__task_s *t, unsigned perm, tamm__dep *dep, int coarse)
{
    tamm__epoch *cur = c->cur;
    tamm__dep_state s = cur ? (tamm__dep_state)c->mode : TAMM_DS_UNACCESSED;
    /* the from-state: UNACCESSED exactly when the chain has no epoch, else the newest epoch's mode */
    TAMM_ASSERT(cur ? s > TAMM_DS_UNACCESSED && s < TAMM_DS_COUNT && s == (tamm__dep_state)cur->mode
                    : c->mode < TAMM_DS_COUNT);
    tamm__dep_step_t st = tamm__dep_step(s, tamm__dep_perm_of(perm));
    /* the table: from UNACCESSED every permission follows; no transition leads back to it */
    TAMM_ASSERT(st.next != TAMM_DS_UNACCESSED && (cur || st.after));
    /* a whole-tensor epoch with block accesses after it takes no more members
     * (it is sealed then; a block chain's newest epoch is never sealed) */
    if (cur && !st.after && !c->touched) {
        join(c, cur, t, dep);
        return NULL;
    }
    tamm__epoch *e = epoch_new(st.next, coarse);
    if (cur) {
        if (!coarse) atomic_store_explicit(&cur->next_first, t, memory_order_relaxed);
        retire(c, e, coarse ? LINK_DEPENDENT : LINK_NEXT);
    }
    c->cur = e;
    c->mode = (unsigned char)st.next;
    c->joined = 0;
    c->started = 0;
    return e;
}

/* t joins the new epoch e of chain c, then e's construction guard is
 * dropped.  Until then nothing can start e, so t is its only waiter without
 * a CAS (the guard's release publishes it); if dropping the guard starts e,
 * t does not wait after all. */
static void join_new(tamm__chain *c, tamm__epoch *e, tamm__task_s *t, tamm__dep *dep)
{
    member(c, e, t, dep);
    TAMM_ASSERT(c->joined == 1); /* t is the new epoch's first member */
    dep->next_waiter = NULL;
    atomic_store_explicit(&e->waiters, dep, memory_order_relaxed);
    int was = atomic_fetch_sub_explicit(&e->npreds, 1, memory_order_acq_rel);
    TAMM_ASSERT(was >= 1); /* the construction guard is still held */
    if (was == 1) {
        atomic_store_explicit(&e->waiters, STARTED, memory_order_release);
        c->started = 1;
    } else {
        t->nwait++;
    }
}

/* A block access (top level or nested). */
static void register_block(tamm__chain *c, tamm__chain *tc, tamm__task_s *t, unsigned perm, tamm__dep *dep)
{
    tamm__epoch *e = open_epoch(c, t, perm, dep, 0);
    if (!e) return;
    if (TAMM_UNLIKELY(c->gen != tc->gen)) {
        /* first access to this block since a whole-tensor epoch: wait for it */
        c->gen = tc->gen;
        tc->touched = 1;
        tamm__epoch *ce = tc->cur;
        if (ce) {
            seal(ce, tc->joined);
            add_dependent(ce, e);
        }
    }
    join_new(c, e, t, dep);
}

/* A whole-tensor epoch e is being built: the block chain c ends its
 * generation, and e waits for c's newest epoch. */
static void end_generation(tamm__chain *c, tamm__epoch *e)
{
    if (!c->cur) return;
    retire(c, e, LINK_BARRIER);
    c->cur = NULL;
    c->joined = 0;
}

/* A whole-tensor access. */
static void register_tensor(tamm__domain *d, tamm_tensor *T, tamm__chain *tc, tamm__task_s *t, unsigned perm,
                            tamm__dep *dep)
{
    tamm__epoch *e = open_epoch(tc, t, perm, dep, 1);
    if (!e) return;
    tc->gen++;
    tc->touched = 0;

    /* every block chain touched since the previous whole-tensor epoch ends its
     * generation: e waits for its newest epoch */
    if (d == NULL) {
        for (long b = 0; b < T->nblk; b++)
            end_generation(&T->chains[b], e);
    } else {
        for (size_t i = 0; i < d->cap; i++)
            if (d->tab[i].chain && d->tab[i].T == T && d->tab[i].lin >= 0)
                end_generation(d->tab[i].chain, e);
    }
    join_new(tc, e, t, dep);
}

void tamm__dag_register(tamm__domain *d, tamm__task_s *t, tamm_tensor *T, long lin, unsigned perm, tamm__dep *dep)
{
    TAMM_ASSERT(T != NULL && lin >= -1 && lin < T->nblk);
    dep->next_waiter = NULL;
    if (d == NULL) {
        if (lin >= 0)
            register_block(&T->chains[lin], &T->coarse, t, perm, dep);
        else
            register_tensor(NULL, T, &T->coarse, t, perm, dep);
    } else {
        tamm__chain *tc = dom_chain(d, T, -1);
        if (lin >= 0)
            register_block(dom_chain(d, T, lin), tc, t, perm, dep);
        else
            register_tensor(d, T, tc, t, perm, dep);
    }
}

void tamm__dag_release(tamm__dep *dep)
{
    tamm__epoch *e = dep->epoch;
    if (!e) return;
    dep->epoch = NULL;
    count_down(e, 1);
}

void tamm__dag_prefetch_completion(const tamm__dep *dep, int n)
{
    /* the loads of the epochs' lines are independent: they overlap */
    for (int i = 0; i < n; i++) {
        tamm__epoch *e = dep[i].epoch;
        if (!e) continue;
        TAMM_PREFETCHW(e); /* completion counts down there */
        tamm__epoch *next = atomic_load_explicit(&e->next, memory_order_relaxed);
        if (!next) continue;
        TAMM_PREFETCHW(next);
        struct tamm__task_s *f = atomic_load_explicit(&e->next_first, memory_order_relaxed);
        if (f) tamm__task_prefetch(f);
    }
}

void tamm__dag_flush(tamm__held *h)
{
    tamm__epoch *e = h->epoch;
    if (!e) return;
    if (h->rT) { /* before the count-downs: a writer they let in must find RC 0 */
        tamm__buf_drop_read(h->rT, h->rlin);
        h->rT = NULL;
    }
    int n = h->n;
    TAMM_ASSERT(n > 0); /* an epoch is held only with count-downs on it */
    h->epoch = NULL;
    h->n = 0;
    count_down(e, n);
}

void tamm__dag_release_held(tamm__dep *dep, tamm__held *h)
{
    tamm__epoch *e = dep->epoch;
    if (!e) return;
    if (dep->perm & TAMM_WRITE) { /* the only member of its epoch: nothing to fold */
        tamm__dag_release(dep);
        return;
    }
    dep->epoch = NULL;
    if (e != h->epoch) {
        tamm__dag_flush(h);
        h->epoch = e;
    }
    h->n++;
}

int tamm__dag_sole_member(tamm__dep *dep)
{
    /* count-downs this worker holds back on the epoch would hide members that are done */
    tamm__worker *w = tamm__self();
    if (w && w->held.epoch == dep->epoch) tamm__dag_flush(&w->held);
    /* count is 1 only once the epoch is sealed (UNSEALED is far above any
     * number of members), with dep's task its last member */
    tamm__epoch *e = dep->epoch;
    return e && !e->coarse && atomic_load_explicit(&e->count, memory_order_acquire) == 1;
}

/* ------------------------------------------------------------------ */
/* deadlock reports (stuck.c)                                            */
/* ------------------------------------------------------------------ */
int tamm__dag_dep_started(const tamm__dep *d)
{
    return !d->epoch || atomic_load_explicit(&d->epoch->waiters, memory_order_acquire) == STARTED;
}

int tamm__dag_dep_follows(const tamm__dep *later, const tamm__dep *earlier)
{
    return later->epoch && earlier->epoch && later->epoch != earlier->epoch &&
           atomic_load_explicit(&earlier->epoch->next, memory_order_acquire) == later->epoch;
}
