/* handoff.c — completions from the progress engine finished by workers (see handoff.h). */
#include "handoff.h"
#include "worker.h"

_Atomic(tamm__handoff *) tamm__handoff_head;
atomic_long tamm__handoff_inflight;

void tamm__handoff_push(tamm__handoff *h)
{
    tamm__handoff *old = atomic_load_explicit(&tamm__handoff_head, memory_order_relaxed);
    do {
        h->next = old;
    } while (!atomic_compare_exchange_weak_explicit(&tamm__handoff_head, &old, h, memory_order_release,
                                                    memory_order_relaxed));
    tamm__wake_all();
}

int tamm__handoff_drain_all(void)
{
    tamm__handoff *l = atomic_exchange_explicit(&tamm__handoff_head, NULL, memory_order_acquire);
    /* reverse: finish in push order */
    tamm__handoff *r = NULL;
    while (l) {
        tamm__handoff *n = l->next;
        l->next = r;
        r = l;
        l = n;
    }
    int k = 0;
    while (r) {
        tamm__handoff *n = r->next;
        r->finish(r);
        k++;
        r = n;
    }
    return k;
}
