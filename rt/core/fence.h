/*
 * fence.h — user fences (docs/api.md "Fences"): a fence is signalled when every task
 * that named it in `signal` has completed; tasks that name it in `wait` start
 * only after that.
 */
#ifndef TAMM_FENCE_H
#define TAMM_FENCE_H

#include "util.h"
#include <tamm.h>

struct tamm__task_s;

struct tamm_fence {
    tamm__spin lock;
    int registered;        /* signalling tasks ever submitted */
    int pending;           /* signalling tasks not yet complete */
    int signalled;
    struct tamm__task_s **waiters;
    int nw, capw;
    struct tamm_fence *next_live;
    /* several ranks (mpi_flow.c): the fence's number in the stream and its
     * stream-derived state (signallers per rank, what each rank was told) */
    int fid;
    int *flow;
    struct tamm_fence *mine; /* signalled by this rank's own signallers only (what fence messages wait for) */
    int num;                 /* 1, 2, ...: the order of tamm_fence_create (messages) */
};

/** t waits for f: returns 1 (and counts one start condition of t) if f is not signalled. */
int tamm__fence_add_waiter(tamm_fence *f, struct tamm__task_s *t);
/** One more task signals f (a fence whose signallers had all completed is
 *  re-armed: waiters that come after this wait for it). */
void tamm__fence_add_signaller(tamm_fence *f);
/** One signalling task of f has completed. */
void tamm__fence_signal(tamm_fence *f);
/** For deadlock reports: the unsignalled fence t waits for ("fence #3, which
 *  no task signals" or "... which N tasks still have to signal") into buf;
 *  0 if t waits for none.  *f_out is the fence. */
int tamm__fence_waited_by(const struct tamm__task_s *t, char *buf, size_t n, tamm_fence **f_out);
/** Free every fence still alive (finalize). */
void tamm__fence_free_all(void);

/*
 * Execution fences (tamm_barrier, tamm_fence_submit: docs/api.md "Waiting (top
 * level)"; over several ranks, docs/runtime.md "Execution fences"): every
 * top-level task submitted before a fence completes, on every rank, before
 * any top-level task submitted after it starts on any rank.
 *
 * A fence is a hidden user fence (`gate`) that every top-level task submitted
 * after it waits for (tamm__xfence_gate, while it is not signalled), and a
 * target: the number of top-level tasks submitted before it.  Since no task
 * after it can complete before it fires, the tasks before it have completed
 * exactly when the per-worker completion counts add up to the target; no
 * counter is written per task.  Fences fire in submission order: only the
 * oldest unfired one is armed (tamm__rt.xf_armed); each top-level completion
 * then checks it (tamm__xfence_poll), and so does a thread about to sleep.
 * When its count is reached the fence fires at once in one process, or after
 * an MPI_Ibarrier that the progress thread runs (every rank reached it), and
 * the next one is armed.
 */
typedef struct tamm__xfence tamm__xfence;
/** The newest execution fence not yet seen fired (the top-level thread only), or NULL. */
extern tamm_fence *tamm__xf_gate;
/** Top level: a new execution fence after everything submitted so far. */
tamm__xfence *tamm__xfence_new(void);
/** Whether x has fired (every rank completed what came before it). */
int tamm__xfence_fired(tamm__xfence *x);
/** Top-level task t (being submitted, its guard held) waits for the gate. */
void tamm__xfence_gate(struct tamm__task_s *t);
/** The armed fence may have been reached: check, and fire it (any thread). */
void tamm__xfence_poll(void);
/** Whether every execution fence has fired (tamm__help_until's condition; arg unused). */
int tamm__xfence_all_fired(void *arg);
/** Forget every execution fence (session start and end). */
void tamm__xfence_reset(void);

/* The submission filter's part in fences: the MPI task flow (mpi/mpi_flow.c)
 * installs it while several ranks run (tamm__flow_session_start) and removes
 * it at the session's end; NULL otherwise, and then every fence is local.
 * Called on the top-level thread, except `reached` (any thread). */
typedef struct tamm__fence_filter_t {
    /** A user fence was created: it is an event of the task stream. */
    void (*created)(tamm_fence *f);
    /** The top level is about to wait on f: signallers on other ranks tell this one. */
    void (*wait)(tamm_fence *f);
    /** An execution fence is being created (accumulation runs close before it). */
    void (*xfence)(void);
    /** x was reached on this rank: call tamm__xfence_agreed(x) on a worker once
     *  every rank has reached it. */
    void (*reached)(tamm__xfence *x);
} tamm__fence_filter_t;
extern const tamm__fence_filter_t *tamm__fence_filter;
/** Every rank has reached x (the filter's `reached`): fire it, arm the next. */
void tamm__xfence_agreed(tamm__xfence *x);

#endif
