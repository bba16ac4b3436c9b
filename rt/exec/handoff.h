/*
 * handoff.h — work finished by the MPI progress engine, handed back to the
 * workers.
 *
 * The progress thread is not a worker: it may not complete tasks, free them
 * into a worker's pool, or push to a scheduler.  When one of its operations
 * completes it pushes a record here (lock-free, many producers) and wakes a
 * worker; workers drain the list before they look for a task (one relaxed
 * load when it is empty, and nothing at all in a run without MPI) and finish
 * each record on their own thread: the record's `finish` callback (sum a
 * received contribution into a block, make a collective ready, ...).
 */
#ifndef TAMM_HANDOFF_H
#define TAMM_HANDOFF_H

#include "tamm_assert.h"
#include "util.h"

typedef struct tamm__handoff {
    struct tamm__handoff *next;
    void (*finish)(struct tamm__handoff *h); /* runs on a worker; may free h */
} tamm__handoff;

extern _Atomic(tamm__handoff *) tamm__handoff_head;
/** Operations posted to the progress engine and not yet finished by a worker. */
extern atomic_long tamm__handoff_inflight;

/** A worker has finished one operation counted in tamm__handoff_inflight (never
 *  more than were counted in: asserted). */
static inline void tamm__handoff_done(void) { TAMM_COUNT_DOWN(&tamm__handoff_inflight, memory_order_release); }

/** Progress thread: queue h for a worker and wake one. */
void tamm__handoff_push(tamm__handoff *h);
/** Worker: finish every queued record (in the order they were pushed).  Returns how many. */
int tamm__handoff_drain_all(void);
static inline int tamm__handoff_drain(void)
{
    if (TAMM_LIKELY(atomic_load_explicit(&tamm__handoff_head, memory_order_relaxed) == NULL)) return 0;
    return tamm__handoff_drain_all();
}
/** Whether the progress engine has operations in flight (a waiting thread is
 *  then not deadlocked: data may still arrive). */
static inline int tamm__handoff_busy(void)
{
    return atomic_load_explicit(&tamm__handoff_inflight, memory_order_acquire) > 0 ||
           atomic_load_explicit(&tamm__handoff_head, memory_order_acquire) != NULL;
}

#endif
