/*
 * memlimit_int.h — what the two halves of the host memory unit under
 * TAMM_MEMORY_LIMIT (memlimit.h) share, and no other file includes:
 * memlimit.c (the limit's lifecycle and TAMM_STATS, the reservations and the
 * admission of tasks against them) and spill.c (where a block's bytes are:
 * resident in the LRU, a spare buffer or the spill file; eviction, room(),
 * and the I/O thread's read-back and write-back ahead).
 *
 * One lock, mlk (tamm__ml_mlk), guards the state of both files; it is taken
 * after a block lock, never before.  "mlk held" in a comment means it.
 */
#ifndef TAMM_MEMLIMIT_INT_H
#define TAMM_MEMLIMIT_INT_H

#include "memlimit.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

struct tamm_tensor;

/* ---- state (memlimit.c) ---- */
/** The limit in bytes (tamm__ml_init). */
extern size_t tamm__ml_limit;
/** mlk: the lock of this unit's state, in both files; taken after a block lock, never before. */
extern pthread_mutex_t tamm__ml_mlk;
/** How many admitted tasks wait for the read-back of their blocks (parked; mlk). */
extern int tamm__ml_nparked;

/** TAMM_STATS counters: zeroed by tamm__ml_init, printed by tamm__ml_stats. */
typedef struct tamm__ml_counters {
    atomic_ullong holds; /* other units' copies that held a home (tamm__ml_hold) */
    atomic_ullong holds_over; /* of those, holds beyond the reservations */
    atomic_ullong stores; /* blocks stored back by tamm__ml_store */
    atomic_ullong ahead_w; /* writes to the spill file ahead of eviction, on the I/O thread */
    atomic_ullong in_task; /* read-backs a running task's body waited for */
    atomic_ullong parked; /* tasks handed on only once their blocks were read back */
    atomic_ullong msg_over; /* message tasks (TAMM_TF_PSEUDO) admitted beyond the reservations */
    atomic_ullong nested_over; /* nested tasks admitted beyond the reservations */
    atomic_ullong ahead; /* read-backs ahead of their task, on the I/O thread */
    atomic_ullong spilled; /* bytes written to the spill file */
    atomic_ullong writes; /* writes to the spill file */
    atomic_ullong readback; /* bytes read back from the spill file */
    atomic_ullong reads; /* reads from the spill file */
    atomic_ullong evict; /* evictions */
    atomic_ullong drop; /* of those, blocks dropped (clean or regenerable) rather than written */
    atomic_ullong regen; /* blocks generated again (tamm_tensor_create_ex) */
    atomic_ullong waits; /* tasks that waited for memory */
    atomic_ullong wait_ns; /* their time waiting, in ns */
    atomic_ullong over; /* allocations over the limit (nothing was evictable) */
} tamm__ml_counters;
/** The counters (memlimit.c). */
extern tamm__ml_counters tamm__ml_st;

/* ---- state (spill.c) ---- */
/** Broadcast when the I/O thread's current block (read-back or write-back) changes or a unit's
 *  hold goes: tamm__ml_tensor_free and tamm__ml_release wait on it (with mlk). */
extern pthread_cond_t tamm__ml_io_idle;

/** Call the units' tamm__ml_wake, if one is installed (never under mlk). */
static inline void tamm__ml_wake_units(void)
{
    if (tamm__ml_wake) tamm__ml_wake();
}

/* ---- admission's, for spill.c (memlimit.c) ---- */
/** Block m is no longer pinned by a top-level tamm_block (it was).  mlk held. */
void tamm__ml_top_drop(tamm__mblk *m);
/** One pin on m goes back; at 0 its bytes are no longer reserved.  mlk held. */
void tamm__ml_unpin_mblk(tamm__mblk *m, size_t bytes);
/** Queue the parked tasks whose blocks are all resident now.  mlk held; dropped while queuing. */
void tamm__ml_unpark_and_push(void);

/* ---- spilling's, for memlimit.c (spill.c) ---- */
/** tamm__ml_init's part: the LRU, the spill file's slots and the read-ahead queue start empty. */
void tamm__ml_spill_init(void);
/** tamm__ml_fini's part: stop the I/O thread, close the spill file, free the spare buffers. */
void tamm__ml_spill_fini(void);
/** Make resident block m the most recently used.  mlk held. */
void tamm__ml_lru_front(tamm__mblk *m);
/** The home of block lin, made resident (overwrite: not read back, and dirty).  Block lock held. */
void *tamm__ml_home_in(struct tamm_tensor *T, long lin, int overwrite);
/** Whether block m is queued for or under a read-back.  mlk held. */
int tamm__ml_read_pending(const tamm__mblk *m);
/** Queue m for read-ahead by the I/O thread (started if need be).  mlk held. */
void tamm__ml_io_enqueue(tamm__mblk *m);
/** Pins went back: while memory is three-quarters full, have the I/O thread write dirty blocks
 *  back ahead of their eviction.  mlk held. */
void tamm__ml_clean_ahead(void);

#endif
