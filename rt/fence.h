/*
 * fence.h — user fences (SPEC section 5): a fence is signalled when every task
 * that named it in `signal` has completed; tasks that name it in `wait` start
 * only after that.
 */
#ifndef TAMM_FENCE_H
#define TAMM_FENCE_H

#include "util.h"
#include <tamm.h>

struct tamm_task_s;

struct tamm_fence {
    tamm_spin lock;
    int registered;        /* signalling tasks ever submitted */
    int pending;           /* signalling tasks not yet complete */
    int signalled;
    struct tamm_task_s **waiters;
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
int tamm__fence_add_waiter(tamm_fence *f, struct tamm_task_s *t);
/** One more task signals f (a fence whose signallers had all completed is
 *  re-armed: waiters that come after this wait for it). */
void tamm__fence_add_signaller(tamm_fence *f);
/** One signalling task of f has completed. */
void tamm__fence_signal(tamm_fence *f);
/** For deadlock reports: the unsignalled fence t waits for ("fence #3, which
 *  no task signals" or "... which N tasks still have to signal") into buf;
 *  0 if t waits for none.  *f_out is the fence. */
int tamm__fence_waited_by(const struct tamm_task_s *t, char *buf, size_t n, tamm_fence **f_out);
/** Free every fence still alive (finalize). */
void tamm__fence_free_all(void);

#endif
