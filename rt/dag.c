/*
 * dag.c — epochs and chains: the submission FSM (dep_fsm.c) applied to tasks,
 * per block and per tensor, in the top-level domain and in each parent's
 * domain of children.  See dag.h for the model.
 *
 * Locking: a chain's fields (its newest epoch, generation) belong to the one
 * thread that submits into its domain (the top-level thread, or the parent
 * task's body) and take no lock.  Each epoch has its own lock, so the
 * submitter, working on the newest epoch, and the workers completing tasks of
 * older epochs do not contend.  A thread holds one epoch lock at a time;
 * notifications to other epochs are made after unlocking.
 */
#include "dag.h"
#include "dep_fsm.h"
#include "runtime.h"
#include "task.h"
#include "tensor.h"
#include <string.h>

/* One cache line: what the submitter and the completers of its members touch. */
struct tamm_epoch {
    tamm_spin lock;           /* guards everything below but npreds */
    atomic_int npreds;        /* unfinished predecessors (+1 guard while being built) */
    int members;              /* members not yet completed */
    unsigned char mode;       /* tamm_dep_state of the set: READ, WRITE or ACC */
    unsigned char started, sealed, complete, coarse;
    unsigned char is_cur;     /* still its chain's newest epoch */
    tamm_dep *waiters;        /* members waiting for the start */
    tamm_epoch *next;         /* later epoch of the same chain, waiting for this one */
    tamm_epoch *barrier;      /* whole-tensor epoch waiting for this block epoch */
    tamm_epoch *dependents;   /* (whole-tensor) epochs waiting for this one */
    tamm_epoch *dep_link;     /* link in another epoch's dependents list */
};
_Static_assert(sizeof(struct tamm_epoch) <= TAMM_CACHELINE, "an epoch fits in one cache line");

/* Edge recording only (TAMM_DAG / TAMM_TRACE): follows the epoch in the same
 * pool object, which is that much larger when recording is on. */
typedef struct tamm_epoch_rec {
    uint64_t *ids, *pred_ids;
    int nids, capids, npred_ids, cappred;
} tamm_epoch_rec;
#define EREC(e) ((tamm_epoch_rec *)((char *)(e) + TAMM_CACHELINE))

size_t tamm__dag_epoch_size(int recording)
{
    return recording ? TAMM_CACHELINE + sizeof(tamm_epoch_rec) : sizeof(struct tamm_epoch);
}

/* ------------------------------------------------------------------ */
/* epoch allocation                                                      */
/* ------------------------------------------------------------------ */
static pthread_mutex_t foreign_lock = PTHREAD_MUTEX_INITIALIZER;
static tamm_pool_cache foreign_cache;

static tamm_epoch *epoch_new(int mode, int coarse)
{
    tamm_worker *w = tamm__self();
    tamm_epoch *e;
    if (TAMM_LIKELY(w != NULL)) {
        e = tamm__pool_get(&tamm__rt.epoch_pool, &w->epoch_cache);
    } else {
        pthread_mutex_lock(&foreign_lock);
        e = tamm__pool_get(&tamm__rt.epoch_pool, &foreign_cache);
        pthread_mutex_unlock(&foreign_lock);
    }
    tamm__spin_init(&e->lock);
    atomic_init(&e->npreds, 1); /* construction guard */
    e->members = 0;
    e->mode = (unsigned char)mode;
    e->started = e->sealed = e->complete = 0;
    e->coarse = (unsigned char)coarse;
    e->is_cur = 1;
    e->waiters = NULL;
    e->next = e->barrier = e->dependents = e->dep_link = NULL;
    if (TAMM_UNLIKELY(tamm__rt.recording)) memset(EREC(e), 0, sizeof(tamm_epoch_rec));
    return e;
}

static void epoch_free(tamm_epoch *e)
{
    if (TAMM_UNLIKELY(tamm__rt.recording)) {
        free(EREC(e)->ids);
        free(EREC(e)->pred_ids);
    }
    tamm_worker *w = tamm__self();
    if (TAMM_LIKELY(w != NULL)) {
        tamm__pool_put(&tamm__rt.epoch_pool, &w->epoch_cache, e);
    } else {
        pthread_mutex_lock(&foreign_lock);
        tamm__pool_put(&tamm__rt.epoch_pool, &foreign_cache, e);
        pthread_mutex_unlock(&foreign_lock);
    }
}

void tamm__chain_init(tamm_chain *c)
{
    c->cur = NULL;
    c->gen = 0;
    c->touched = 0;
}

/* ------------------------------------------------------------------ */
/* edge recording (TAMM_DAG / TAMM_TRACE)                                */
/* ------------------------------------------------------------------ */
static pthread_mutex_t rec_lock = PTHREAD_MUTEX_INITIALIZER;
static tamm_edge *edges;
static size_t nedges, capedges;
const tamm_edge *tamm__dag_edges(size_t *n)
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
static void rec_pred(tamm_epoch *e, tamm_epoch *pred)
{
    tamm_epoch_rec *er = EREC(e), *pr = EREC(pred);
    for (int i = 0; i < pr->nids; i++)
        ids_push(&er->pred_ids, &er->npred_ids, &er->cappred, pr->ids[i]);
}

/* ------------------------------------------------------------------ */
/* starting and completing epochs                                       */
/* ------------------------------------------------------------------ */
static void epoch_start(tamm_epoch *e)
{
    tamm__spin_lock(&e->lock);
    e->started = 1;
    tamm_dep *w = e->waiters;
    e->waiters = NULL;
    tamm__spin_unlock(&e->lock);
    while (w) {
        tamm_dep *n = w->next_waiter;
        tamm__task_dep_satisfied(w->task);
        w = n;
    }
}

static inline void notify(tamm_epoch *e)
{
    if (atomic_fetch_sub_explicit(&e->npreds, 1, memory_order_acq_rel) == 1)
        epoch_start(e);
}

/* The set of epochs to notify when one completes. */
typedef struct { tamm_epoch *next, *barrier, *dependents; } notify_set;

static inline void notify_all(notify_set *s)
{
    if (s->next) notify(s->next);
    if (TAMM_UNLIKELY(s->barrier != NULL)) notify(s->barrier);
    tamm_epoch *d = s->dependents;
    while (TAMM_UNLIKELY(d != NULL)) {
        tamm_epoch *n = d->dep_link; /* read before d may start, run and be freed */
        notify(d);
        d = n;
    }
}

/* e is sealed and has no members left: it is complete.  e's lock held.
 * Returns 1 if the caller must free e after unlocking (it is no longer its
 * chain's newest epoch, so nothing refers to it). */
static int epoch_complete_locked(tamm_epoch *e, notify_set *s)
{
    e->complete = 1;
    s->next = e->next;
    s->barrier = e->barrier;
    s->dependents = e->dependents;
    e->next = e->barrier = e->dependents = NULL;
    return !e->is_cur;
}

/* ------------------------------------------------------------------ */
/* domains                                                              */
/* ------------------------------------------------------------------ */
typedef struct dom_ent {
    const tamm_tensor *T;
    long lin;             /* -1: the tensor's chain */
    tamm_chain *chain;
} dom_ent;

struct tamm_domain {
    dom_ent *tab;
    size_t cap, n;
};

tamm_domain *tamm__domain_new(void)
{
    tamm_domain *d = tamm__xcalloc(1, sizeof *d);
    d->cap = 16;
    d->tab = tamm__xcalloc(d->cap, sizeof *d->tab);
    return d;
}

static size_t dom_hash(const tamm_tensor *T, long lin)
{
    uint64_t h = (uint64_t)(uintptr_t)T * 0x9E3779B97F4A7C15ull ^ ((uint64_t)lin + 0x7F4A7C15ull) * 0xBF58476D1CE4E5B9ull;
    return (size_t)(h ^ (h >> 31));
}

static tamm_chain *dom_chain(tamm_domain *d, const tamm_tensor *T, long lin)
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
    tamm_chain *c = tamm__xmalloc(sizeof *c);
    tamm__chain_init(c);
    d->tab[j].T = T;
    d->tab[j].lin = lin;
    d->tab[j].chain = c;
    d->n++;
    return c;
}

static void chain_drop(tamm_chain *c)
{
    /* every task of the chain has completed: its current epoch, if any, has no
     * members, waiters or dependents left */
    if (c->cur) {
        tamm_epoch *e = c->cur;
        c->cur = NULL;
        epoch_free(e);
    }
}

void tamm__domain_free(tamm_domain *d)
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
static void rec_join(tamm_epoch *e, tamm_task_s *t)
{
    tamm_epoch_rec *r = EREC(e);
    ids_push(&r->ids, &r->nids, &r->capids, t->id);
    for (int i = 0; i < r->npred_ids; i++)
        rec_edge(r->pred_ids[i], t->id);
}

/* t joins e (locked, or not yet visible to other threads).  If e has not
 * started, t waits for it: one more start condition, counted in t->nwait and
 * added to t->deps when the submission guard is dropped (task.c). */
static inline void join(tamm_epoch *e, tamm_task_s *t, tamm_dep *dep)
{
    dep->epoch = e;
    dep->task = t;
    e->members++;
    if (!e->started) {
        t->nwait++;
        dep->next_waiter = e->waiters;
        e->waiters = dep;
    }
    if (TAMM_UNLIKELY(tamm__rt.recording)) rec_join(e, t);
}

/* Seal e (no more joins).  e's lock held. */
static void seal_locked(tamm_epoch *e, notify_set *s)
{
    e->sealed = 1;
    if (e->members == 0 && !e->complete)
        epoch_complete_locked(e, s);
}

/* How a later epoch waits for an earlier one. */
enum { LINK_NEXT, LINK_DEPENDENT, LINK_BARRIER };

/* e waits for pred (locked) to complete, unless it has. */
static void wait_for_locked(tamm_epoch *pred, tamm_epoch *e, int how)
{
    if (pred->complete) return;
    switch (how) {
    case LINK_NEXT: pred->next = e; break;               /* same chain */
    case LINK_BARRIER: pred->barrier = e; break;         /* block epoch -> whole-tensor epoch */
    default: e->dep_link = pred->dependents; pred->dependents = e; break; /* whole-tensor epoch -> many */
    }
    atomic_fetch_add_explicit(&e->npreds, 1, memory_order_relaxed);
}

/* cur (locked) stops being its chain's newest epoch and e comes after it:
 * seal it and make e wait for it.  Returns 1 if the caller must free cur
 * after unlocking (it has completed, so nothing refers to it any more). */
static int retire_locked(tamm_epoch *cur, tamm_epoch *e, int how, notify_set *ns)
{
    if (TAMM_UNLIKELY(tamm__rt.recording)) rec_pred(e, cur);
    cur->is_cur = 0;
    seal_locked(cur, ns);
    wait_for_locked(cur, e, how);
    return cur->complete;
}

/* The submission-FSM step for the chain's newest epoch: t joins it (returns
 * NULL), or a new epoch comes after it and becomes the newest (returned with
 * its construction guard; t has not joined it yet). */
static tamm_epoch *open_epoch(tamm_chain *c, tamm_task_s *t, unsigned perm, tamm_dep *dep, int coarse,
                              notify_set *ns)
{
    tamm_epoch *cur = c->cur;
    tamm_dep_state s = TAMM_DS_UNACCESSED;
    if (cur) {
        tamm__spin_lock(&cur->lock);
        s = (tamm_dep_state)cur->mode;
    }
    tamm_dep_step st = tamm__dep_step(s, tamm__dep_perm_of(perm));
    /* a sealed whole-tensor epoch, or one with block accesses after it, takes no more members */
    if (cur && !st.after && !cur->sealed && !c->touched) {
        join(cur, t, dep);
        tamm__spin_unlock(&cur->lock);
        return NULL;
    }
    tamm_epoch *e = epoch_new(st.next, coarse);
    if (cur) {
        int drop = retire_locked(cur, e, coarse ? LINK_DEPENDENT : LINK_NEXT, ns);
        tamm__spin_unlock(&cur->lock);
        if (drop) epoch_free(cur);
    }
    c->cur = e;
    return e;
}

/* A block access (top level or nested). */
static void register_block(tamm_chain *c, tamm_chain *tc, tamm_task_s *t, unsigned perm, tamm_dep *dep)
{
    notify_set ns = { 0, 0, 0 }, tns = { 0, 0, 0 };
    tamm_epoch *e = open_epoch(c, t, perm, dep, 0, &ns);
    if (!e) return;
    if (TAMM_UNLIKELY(c->gen != tc->gen)) {
        /* first access to this block since a whole-tensor epoch: wait for it */
        c->gen = tc->gen;
        tc->touched = 1;
        tamm_epoch *ce = tc->cur;
        if (ce) {
            tamm__spin_lock(&ce->lock);
            seal_locked(ce, &tns);
            if (!ce->complete && TAMM_UNLIKELY(tamm__rt.recording)) rec_pred(e, ce);
            wait_for_locked(ce, e, LINK_DEPENDENT);
            tamm__spin_unlock(&ce->lock);
        }
    }
    /* Until its construction guard is dropped, e is this thread's alone (other
     * threads only decrement npreds), so t joins it without the lock, as a
     * waiter; if dropping the guard starts e, t does not wait after all. */
    join(e, t, dep);
    if (atomic_fetch_sub_explicit(&e->npreds, 1, memory_order_acq_rel) == 1) {
        e->started = 1;
        e->waiters = NULL;
        t->nwait--;
    }
    notify_all(&tns);
    notify_all(&ns);
}

/* A whole-tensor epoch e is being built: the block chain c ends its
 * generation, and e waits for c's newest epoch if it has not completed. */
static void end_generation(tamm_chain *c, tamm_epoch *e)
{
    tamm_epoch *be = c->cur;
    if (!be) return;
    c->cur = NULL;
    notify_set ns = { 0, 0, 0 };
    tamm__spin_lock(&be->lock);
    int drop = retire_locked(be, e, LINK_BARRIER, &ns);
    tamm__spin_unlock(&be->lock);
    if (drop) epoch_free(be);
    notify_all(&ns);
}

/* A whole-tensor access. */
static void register_tensor(tamm_domain *d, tamm_tensor *T, tamm_chain *tc, tamm_task_s *t, unsigned perm,
                            tamm_dep *dep)
{
    notify_set ns = { 0, 0, 0 };
    tamm_epoch *e = open_epoch(tc, t, perm, dep, 1, &ns);
    if (!e) return;
    tc->gen++;
    tc->touched = 0;
    notify_all(&ns);

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
    tamm__spin_lock(&e->lock);
    join(e, t, dep);
    tamm__spin_unlock(&e->lock);
    notify(e); /* drop the construction guard */
}

void tamm__dag_register(tamm_domain *d, tamm_task_s *t, tamm_tensor *T, long lin, unsigned perm, tamm_dep *dep)
{
    dep->next_waiter = NULL;
    if (d == NULL) {
        if (lin >= 0)
            register_block(&T->chains[lin], &T->coarse, t, perm, dep);
        else
            register_tensor(NULL, T, &T->coarse, t, perm, dep);
    } else {
        tamm_chain *tc = dom_chain(d, T, -1);
        if (lin >= 0)
            register_block(dom_chain(d, T, lin), tc, t, perm, dep);
        else
            register_tensor(d, T, tc, t, perm, dep);
    }
}

void tamm__dag_release(tamm_dep *dep)
{
    tamm_epoch *e = dep->epoch;
    if (!e) return;
    dep->epoch = NULL;
    notify_set ns = { 0, 0, 0 };
    int drop = 0;
    tamm__spin_lock(&e->lock);
    if (--e->members == 0 && e->sealed)
        drop = epoch_complete_locked(e, &ns);
    tamm__spin_unlock(&e->lock);
    if (drop) epoch_free(e);
    notify_all(&ns);
}

int tamm__dag_sole_member(tamm_dep *dep)
{
    tamm_epoch *e = dep->epoch;
    if (!e) return 0;
    tamm__spin_lock(&e->lock);
    int sole = e->sealed && e->members == 1 && !e->coarse;
    tamm__spin_unlock(&e->lock);
    return sole;
}
