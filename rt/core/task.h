/*
 * task.h — tasks: submission, readiness, execution and completion.
 *
 * A task is made ready when its `deps` counter (one per epoch that has not
 * started, one per unsignalled fence, plus a guard held during submission)
 * drops to zero.  It completes when its body has returned and all its
 * children have completed (`pending`); then it leaves its epochs, which may
 * start later ones.  Tasks come from per-worker pools and carry their
 * dependence records and small argument blocks inline, so submitting one
 * allocates nothing in the common case.
 *
 * Continuations (tamm_submit_continuation): a task's live children are
 * counted in one of two slots (`kids`, indexed by `kcur`); submitting a
 * continuation K closes the current slot (K waits for it to drain: its
 * `KIDS_ARMED` bit set, `cont` = K) and opens the other for K and the
 * children that come after it.  The child whose completion drains an armed
 * slot, or the submitter if it was empty, resets the slot and makes K ready.
 */
#ifndef TAMM_TASK_H
#define TAMM_TASK_H

#include "dag.h"
#include <tamm.h>
#include <stddef.h>
#include <stdint.h>

#define TAMM_TASK_INLINE_REFS 4
#define TAMM_TASK_INLINE_ARGS 96
#define TAMM_TASK_INLINE_BYTES (TAMM_TASK_INLINE_ARGS + TAMM_TASK_INLINE_REFS * (int)sizeof(tamm__dep))
/* Held in deps while a task is being submitted: larger than any number of
 * start conditions, so the task cannot become ready before it is dropped. */
#define TAMM_DEPS_GUARD (1 << 30)

enum {
    TAMM_TF_SENTINEL   = 1,   /* no body: a top-level wait on blocks */
    TAMM_TF_UNDEFERRED = 2,
    TAMM_TF_DESTROY    = 4,   /* frees destroy_tensor at completion */
    TAMM_TF_COLLECTIVE = 8,
    TAMM_TF_HEAP_DEPS  = 32,
    TAMM_TF_HEAP_ARGS  = 64,
    TAMM_TF_SIGNALS    = 128, /* signals fences at completion (t->signal, on the heap; a flag so
                                 * that completion reads nothing past the first line without) */
    TAMM_TF_COARSE     = 256, /* has a whole-tensor ref */
    TAMM_TF_CONT       = 512, /* a continuation of its parent */
    TAMM_TF_KSLOT1     = 1024, /* counted in its parent's kids[1] (else kids[0]) */
    TAMM_TF_INTERNAL   = 2048, /* submitted by the MPI flow itself (mpi_flow.c): not forwarded to it */
    TAMM_TF_AGREED     = 4096, /* a collective task all ranks are ready for */
    TAMM_TF_PSEUDO     = 8192, /* the flow's side of a block message: never run inline (TAMM_SEQUENTIAL) */
    TAMM_TF_MLRES      = 16384, /* holds pins under a host memory limit (memlimit.c) */
    TAMM_TF_DEPS_ENDED = 32768, /* its dependences were ended before it completed (tamm__task_end_deps) */
    TAMM_TF_WAIT_ONLY  = 65536, /* a sentinel whose waiter then touches none of its blocks (tamm_wait_on, the
                                 * end of a gather): copies of them elsewhere (a GPU's) stay valid */
    TAMM_TF_ORDERED    = 131072 /* accumulates into a tensor with reproducible accumulation: runs its CPU
                                 * variant when it has one (cuda_worker.c tamm__gpu_route) */
};

/* The armed bit of a kids slot: a continuation waits for the slot to drain. */
#define TAMM_KIDS_ARMED 0x80000000u

struct tamm_fence;
struct tamm__worker;

/* Laid out for the hot path, so that a small task spans as few cache lines
 * as possible (each one travels from the submitting core to the executing
 * one): the first line is what submission, readiness, running and completion
 * touch; the second what submission writes for messages and rarer features;
 * it ends with the continuation slots; then one inline area holding the
 * arguments followed by the dependence records (a task with up to 16 bytes of
 * arguments and one ref spans three lines); last the fields only some tasks
 * set. */
typedef struct tamm__task_s {
    tamm_fn cpu;
    void *args;
    tamm__dep *dep;
    struct tamm__task_s *parent;
    struct tamm__task_s *next;   /* queue link */
    tamm__domain *children;      /* dependence domain of its children, lazily */
    atomic_int deps;            /* start conditions outstanding (+TAMM_DEPS_GUARD during submission) */
    atomic_int pending;         /* 1 (the body) + children not complete */
    int ndep;
    unsigned flags;
    /* second line */
    const char *label, *file;
    tamm_fn cuda;
    uint64_t id;
    int line, priority;
    int nwait;                  /* during submission: epochs not started when t joined them */
    int kcur;                   /* the open continuation slot (the body's thread only) */
    /* continuations (nested children only touch these) */
    atomic_uint kids[2];        /* live children per slot (+ TAMM_KIDS_ARMED) */
    _Atomic(struct tamm__task_s *) cont; /* continuation waiting for a slot */
    /* third line on: arguments (up to TAMM_TASK_INLINE_ARGS bytes, rounded up
     * to 16), then dependence records (TAMM_TASK_INLINE_REFS at least) */
    _Alignas(16) unsigned char inl[TAMM_TASK_INLINE_BYTES];
    /* set only where used: with TAMM_TF_DESTROY, TAMM_TF_SIGNALS,
     * TAMM_TF_SENTINEL, and by GPU routing */
    union {
        struct tamm_tensor *destroy_tensor; /* TAMM_TF_DESTROY */
        uint64_t ml_since;      /* TAMM_MEMORY_LIMIT: when it began to wait for memory (never a destroy task) */
    };
    struct tamm_fence **signal;
    int nsignal;
    atomic_int ready_flag;      /* sentinel: dependences satisfied */
    double est_ns;              /* device selection's estimate of its duration (GPUs only) */
} tamm__task_s;
_Static_assert(offsetof(tamm__task_s, inl) == 2 * TAMM_CACHELINE, "the inline area starts the third line");

/** A buffer a running task holds. */
typedef struct tamm__bufrec {
    void *ptr;
    struct tamm_tensor *T;
    long lin;
    size_t bytes;
    unsigned char kind;     /* tamm__bufkind (buffer.h) */
    unsigned char flags;    /* TAMM_BR_* (buffer.h) */
    unsigned short shares;  /* TAMM_BR_ALIASED: releases still expected beyond the last */
    uint64_t fp;            /* TAMM_CHECK_ACCESS: fingerprint of a read buffer when handed out (check.h) */
} tamm__bufrec;

#define TAMM_CTX_INLINE_BUFS 8
struct tamm_ctx {
    tamm__task_s *task;
    struct tamm__worker *w;
    int n, cap;
    int nimplicit;              /* records made by tamm_block (given back at a nested submission) */
    tamm__bufrec *recs;
    struct tamm__unit_run *unit; /* the memory unit the task runs on (layer.h), NULL on the host */
    tamm__bufrec inl[TAMM_CTX_INLINE_BUFS];
};

/** One start condition of t is satisfied; schedules t when none remain. */
void tamm__task_dep_satisfied(tamm__task_s *t);
/** t's body (or CUDA work) has finished: completes t once its children have. */
void tamm__task_body_done(tamm__task_s *t);
/** End t's dependences now, before t completes: the tasks after it may start
 *  (t->ndep becomes 0, so its completion skips them; it still counts for waits
 *  and fences; TAMM_TF_DEPS_ENDED says it happened).
 *  Only for an executor that orders those tasks after t's effects by other
 *  means: a GPU whose device work is in flight, whose successors on that GPU
 *  wait for its event and on other units for the flush of its copies
 *  (gpu/cuda_worker.c, early_end).  Called once, by t's executor, before
 *  tamm__task_body_done. */
void tamm__task_end_deps(tamm__task_s *t);
/** Start moving to this core the lines of task t that making it ready and
 *  running it touch first: the first line (written: deps, pending) and the
 *  inline arguments and dependence records, three lines of them (up to 32
 *  bytes of arguments and three refs; addresses in t, so the fetches do not
 *  wait for one another, nor for t->ndep). */
static inline void tamm__task_prefetch(const tamm__task_s *t)
{
    TAMM_PREFETCHW(t);
    TAMM_PREFETCH(t->inl);
    TAMM_PREFETCH(t->inl + 64);
    TAMM_PREFETCH(t->inl + 128);
}
/** Run t's variant on worker w (t is ready). */
void tamm__task_run(struct tamm__worker *w, tamm__task_s *t);
/** What task_ready and task_run must do beyond the plain CPU path, one word
 *  so that the plain path tests one: a router is installed (layer.h,
 *  tamm__route_install), a host memory limit (memlimit.c). */
enum { TAMM_EXTRA_ROUTE = 1, TAMM_EXTRA_MEMLIMIT = 2 };
extern int tamm__task_extra;
/** Hand a ready task to the scheduler (task_ready past routing and admission). */
void tamm__task_push(tamm__task_s *t);
/** Validate a task description and its references as tamm__submit does
 *  (TAMM_OK, or the error reported naming the task): what the submission runs
 *  before handing a top-level task to a submission filter (layer.h). */
int tamm__task_check(const tamm_task *u, unsigned flags);
/** Submission shared by tamm_submit, tamm_submit_ex and internal tasks. */
/** on(rank) is valid: -1 (the owner decides) or 0..nranks-1; else TAMM_EINVAL naming `where`. */
int tamm__valid_on(const struct tamm__task_s *where, int rank);
int tamm__submit(tamm_ctx *ctx, const tamm_task *t, const tamm_task_opts *o, unsigned flags,
                 tamm__task_s **out);
/** Keep t from completing when its body returns (an operation it started
 *  completes later); tamm__task_unhold ends that (on a worker thread). */
void tamm__task_hold(tamm__task_s *t);
void tamm__task_unhold(tamm__task_s *t);
/** Schedule t (its start conditions are satisfied; a worker thread). */
void tamm__task_make_ready(tamm__task_s *t);
/** Complete a sentinel task once ready (top level). */
void tamm__task_finish_sentinel(tamm__task_s *t);
/** The permission bits of task t on block lin of T with TAMM_CANCELLABLE if a
 *  covering ref carries it (the raw union that tamm__task_perm splits). */
static inline unsigned tamm__task_perm_bits(const tamm__task_s *t, const struct tamm_tensor *T, long lin)
{
    unsigned m = 0;
    for (int i = 0; i < t->ndep; i++) {
        const tamm__dep *d = &t->dep[i];
        if (d->T == T && (d->lin == lin || d->lin < 0)) m |= d->perm;
    }
    return m;
}
/** Effective permission mask of task t on block lin of T: the union of its
 *  dependence records covering the block (refs are folded into those at
 *  submission: a slice into its blocks, every ref to a tensor it names whole
 *  into the whole-tensor record); *cancellable is set if a covering ref
 *  carries TAMM_CANCELLABLE. */
static inline unsigned tamm__task_perm(const tamm__task_s *t, const struct tamm_tensor *T, long lin, int *cancellable)
{
    unsigned m = tamm__task_perm_bits(t, T, lin);
    if (cancellable) *cancellable = (m & TAMM_CANCELLABLE) != 0;
    return m & 7u;
}
/** The dependence record of t for (T, lin), or NULL. */
tamm__dep *tamm__task_dep_for(tamm__task_s *t, const struct tamm_tensor *T, long lin);

#endif
