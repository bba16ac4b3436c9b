/*
 * deque.h — the Chase-Lev work-stealing deque (Lê, Pop, Cohen, Zappa Nardelli,
 * PPoPP 2013), with sequentially consistent atomics where the paper uses
 * fences so that ThreadSanitizer can follow it.  The owner pushes and pops at
 * the bottom; thieves steal from the top.  Growth keeps old arrays until
 * tamm__deque_destroy, so a thief never reads freed memory.
 */
#ifndef TAMM_DEQUE_H
#define TAMM_DEQUE_H

#include <stdatomic.h>
#include <stddef.h>

struct tamm_task_s;

typedef struct tamm_deque_arr {
    size_t mask;
    struct tamm_deque_arr *older;
    _Atomic(struct tamm_task_s *) slot[];
} tamm_deque_arr;

typedef struct tamm_deque {
    atomic_long top;
    char pad1[64 - sizeof(atomic_long)];
    atomic_long bottom;
    _Atomic(tamm_deque_arr *) arr;
    long top_seen;              /* the owner's last look at top: a push re-reads top only when this says full */
    char pad2[64 - 2 * sizeof(long) - sizeof(void *)];
} tamm_deque;

void tamm__deque_init(tamm_deque *q, size_t cap_pow2);
void tamm__deque_destroy(tamm_deque *q);
void tamm__deque_push(tamm_deque *q, struct tamm_task_s *t);     /* owner */
struct tamm_task_s *tamm__deque_pop(tamm_deque *q);              /* owner */
struct tamm_task_s *tamm__deque_steal(tamm_deque *q);            /* anyone */
long tamm__deque_size(tamm_deque *q);

#endif
