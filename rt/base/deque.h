/*
 * deque.h — the Chase-Lev work-stealing deque (Lê, Pop, Cohen, Zappa Nardelli,
 * PPoPP 2013), with sequentially consistent atomics where the paper uses
 * fences so that ThreadSanitizer can follow it.  The owner pushes and pops at
 * the bottom; thieves steal from the top.  Growth keeps old arrays until
 * tamm__deque_destroy, so a thief never reads freed memory.
 *
 * Batches: a thief may take up to TAMM_DEQUE_BATCH of the oldest items with
 * one compare-and-swap of top, so that the lines it shares with the owner
 * (top, bottom, the slots) cross between cores once per batch, not once per
 * task.  The owner pops its newest item without a compare-and-swap only
 * when it lies at least TAMM_DEQUE_BATCH past top, where no batch can reach;
 * nearer, it takes the oldest item with a compare-and-swap of top, like a
 * thief.  Why that is safe: a batch claimed from the top value t the owner
 * read covers at most [t, t + BATCH), below the owner's item; a batch claimed
 * from a later top value was sized after reading bottom, which (every step
 * being sequentially consistent) already shows the owner's pop.
 */
#ifndef TAMM_DEQUE_H
#define TAMM_DEQUE_H

#include <stdatomic.h>
#include <stddef.h>

struct tamm__task_s;

typedef struct tamm__deque_arr {
    size_t mask;
    struct tamm__deque_arr *older;
    _Atomic(struct tamm__task_s *) slot[];
} tamm__deque_arr;

typedef struct tamm__deque {
    atomic_long top;
    char pad1[64 - sizeof(atomic_long)];
    atomic_long bottom;
    _Atomic(tamm__deque_arr *) arr;
    long top_seen;              /* the owner's last look at top: a push re-reads top only when this says full */
    char pad2[64 - 2 * sizeof(long) - sizeof(void *)];
} tamm__deque;

void tamm__deque_init(tamm__deque *q, size_t cap_pow2);
void tamm__deque_destroy(tamm__deque *q);
void tamm__deque_push(tamm__deque *q, struct tamm__task_s *t);     /* owner */
struct tamm__task_s *tamm__deque_pop(tamm__deque *q);              /* owner */
struct tamm__task_s *tamm__deque_steal(tamm__deque *q);            /* anyone: the oldest item */

#define TAMM_DEQUE_BATCH 16
/** Steal up to `max` (at most TAMM_DEQUE_BATCH) of the oldest items, half of
 *  what the deque holds rounded up, into out[] oldest first; returns how
 *  many (0: empty, or another thread won the race). */
int tamm__deque_steal_batch(tamm__deque *q, struct tamm__task_s **out, int max); /* anyone */
long tamm__deque_size(tamm__deque *q);

#endif
