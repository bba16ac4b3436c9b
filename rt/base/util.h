/*
 * util.h — small shared helpers: spin locks, CPU pause, monotonic clock,
 * checked allocation.  Header-only; no state.
 */
#ifndef TAMM_UTIL_H
#define TAMM_UTIL_H

#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#define TAMM_LIKELY(x)   __builtin_expect(!!(x), 1)
#define TAMM_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define TAMM_CACHELINE 64
#define TAMM_NOINLINE __attribute__((noinline))
#define TAMM_COLD __attribute__((noinline, cold))
/* Prefetch for writing / reading (never faults; a hint only).  For writing,
 * x86-64 needs PREFETCHW, which GCC emits only under -mprfchw: without it the
 * builtin becomes a read prefetch, the line arrives shared and the write
 * that follows still has to take it from the other core.  Every x86-64 CPU
 * decodes PREFETCHW (Intel before Broadwell as a no-op). */
#if (defined(__x86_64__) || defined(__i386__)) && !defined(__PRFCHW__)
#define TAMM_PREFETCHW(p) __asm__("prefetchw (%0)" : : "r"((const void *)(p)))
#else
#define TAMM_PREFETCHW(p) __builtin_prefetch((p), 1, 3)
#endif
#define TAMM_PREFETCH(p) __builtin_prefetch((p), 0, 3)

static inline void tamm__pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/** Test-and-test-and-set spin lock; critical sections are a few instructions.
 *  After a short spin it yields the CPU, so a preempted holder (more threads
 *  than cores) is not waited for by burning the waiter's time slice. */
typedef struct { atomic_int v; } tamm__spin;
#define TAMM_SPIN_INIT { 0 }
static inline void tamm__spin_init(tamm__spin *l) { atomic_init(&l->v, 0); }
static inline void tamm__spin_lock(tamm__spin *l)
{
    for (;;) {
        if (!atomic_exchange_explicit(&l->v, 1, memory_order_acquire))
            return;
        for (int n = 0; atomic_load_explicit(&l->v, memory_order_relaxed); n++) {
            if (n < 128) tamm__pause();
            else sched_yield();
        }
    }
}
static inline void tamm__spin_unlock(tamm__spin *l) { atomic_store_explicit(&l->v, 0, memory_order_release); }

static inline uint64_t tamm__now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/** malloc/calloc/realloc that report and exit on failure (internal bookkeeping only). */
/** Print "tamm: fatal: out of memory (N bytes)" and exit(1): what every
 *  allocation of the runtime does when memory runs out. */
TAMM_COLD _Noreturn void tamm__fatal_oom(size_t bytes);
void *tamm__xmalloc(size_t n);
void *tamm__xcalloc(size_t n, size_t sz);
void *tamm__xrealloc(void *p, size_t n);
/** Zeroed memory that starts and ends on a 128-byte boundary (rounded up), so that no
 *  pair of cache lines it holds (the adjacent-line prefetcher's unit) is shared with
 *  another allocation; reports and exits on failure.  Free with free(). */
void *tamm__xcalloc_lines(size_t bytes);

#endif
