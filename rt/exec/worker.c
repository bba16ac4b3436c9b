/* worker.c — worker threads, idle sleep and wake-up, helping while waiting,
 * deadlock detection (see worker.h). */
#include "worker.h"
#include "handoff.h"
#include "error.h"
#include "fence.h"
#include "runtime.h"
#include "tamm_assert.h"
#include <limits.h>
#include <errno.h>
#include <linux/futex.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

_Thread_local tamm__worker *tamm__tls_worker;

#define DEADLOCK_TIMEOUT_MS 100 /* sleep slice of a waiting thread */
/* pauses between the throttled submitter's looks at the other deques
 * (~1.5 us here): each look pulls the lines their owners write on every push
 * and pop; looking after every pause made a chain's worker 1.6x slower */
#define THROTTLE_BACKOFF 128

/* 1 when the sleep ended by its timeout, not by a wake-up (or a changed value) */
static int futex_wait(atomic_uint *addr, unsigned val, int timeout_ms)
{
    struct timespec ts = { timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L };
    long r = syscall(SYS_futex, (unsigned *)addr, FUTEX_WAIT_PRIVATE, val, timeout_ms > 0 ? &ts : NULL, NULL, 0);
    return r < 0 && errno == ETIMEDOUT;
}

static void futex_wake(atomic_uint *addr, int n)
{
    syscall(SYS_futex, (unsigned *)addr, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

void tamm__wake_one(void)
{
    atomic_fetch_add_explicit(&tamm__rt.wake_seq, 1, memory_order_seq_cst);
    futex_wake(&tamm__rt.wake_seq, 1);
}

void tamm__wake_all(void)
{
    atomic_fetch_add_explicit(&tamm__rt.wake_seq, 1, memory_order_seq_cst);
    futex_wake(&tamm__rt.wake_seq, INT_MAX);
}

static void run(tamm__worker *w, tamm__task_s *t)
{
    if (TAMM_UNLIKELY(tamm__rt.cfg.stats)) {
        uint64_t a = tamm__now_ns();
        tamm__task_run(w, t);
        w->busy_ns += tamm__now_ns() - a;
    } else {
        tamm__task_run(w, t);
    }
}

/* The next task for w; first finish what the MPI progress engine handed back
 * (one load of an empty list without MPI). */
static inline tamm__task_s *next_task(tamm__worker *w)
{
    tamm__handoff_drain();
    tamm__task_s *t = tamm__rt.sched->pop(w);
    if (!t) tamm__worker_flush(w); /* nothing to run: what w holds back may be awaited */
    return t;
}

static uint64_t progress(void);

void tamm__help_throttle(tamm__worker *w, long pending, long lim)
{
    int lone_ok = 0, spins = 0;
    uint64_t last = progress();
    w->steal_min = 2;
    for (long k = pending - lim; k > 0;) {
        tamm__task_s *t = next_task(w);
        if (t) {
            run(w, t);
            k--; /* counted here, not re-read from the lines the workers write */
            continue;
        }
        if (lone_ok) break; /* nothing can run: go on submitting */
        /* only lone tasks elsewhere, or none: give their workers a moment,
         * and their deques' lines a rest from this thread's polling */
        for (int i = 0; i < THROTTLE_BACKOFF; i++) tamm__pause();
        if (++spins < 2) continue;
        spins = 0;
        long now_pending = tamm__top_pending();
        if (now_pending <= lim) break;
        k = now_pending - lim;
        uint64_t now = progress();
        if (now == last) { /* no worker is running them: take any */
            lone_ok = 1;
            w->steal_min = 1;
        }
        last = now;
    }
    w->steal_min = 1;
    tamm__worker_flush(w); /* back to submitting */
}

static int stopping(void *arg)
{
    (void)arg;
    return atomic_load_explicit(&tamm__rt.stop, memory_order_seq_cst);
}

/* The sleep protocol, free of lost wake-ups: count this thread as a sleeper,
 * look once more for a task (or for `done`), then sleep until a wake-up
 * (tamm__wake_one/_all bump wake_seq) or the timeout (0: none).  Returns the
 * task found on that last look, or NULL; *seq is the wake_seq slept on and
 * *others the sleepers besides this thread. */
static tamm__task_s *sleep_once(tamm__worker *w, int (*done)(void *), void *arg, int timeout_ms, unsigned *seq,
                               int *others)
{
    *seq = atomic_load_explicit(&tamm__rt.wake_seq, memory_order_seq_cst);
    *others = atomic_fetch_add_explicit(&tamm__rt.nsleepers, 1, memory_order_seq_cst);
    /* an execution fence armed while this thread completed the last task
     * before it may have missed that completion: look before sleeping */
    tamm__xfence_poll();
    tamm__task_s *t = NULL;
    if (!done(arg) && !(t = next_task(w))) {
        w->nsleeps++;
        /* a wait whose condition holds once its slice has run out was not woken: a lost wake-up
         * (TAMM_STATS counts them; each costs a slice of latency) */
        if (futex_wait(&tamm__rt.wake_seq, *seq, timeout_ms) && done(arg)) w->nlate++;
    }
    int was = atomic_fetch_sub_explicit(&tamm__rt.nsleepers, 1, memory_order_seq_cst);
    TAMM_ASSERT(was >= 1); /* each sleeper counted itself in before it slept */
    return t;
}

static void *worker_main(void *arg)
{
    tamm__worker *w = arg;
    tamm__tls_worker = w;
    while (!atomic_load_explicit(&tamm__rt.stop, memory_order_acquire)) {
        tamm__task_s *t = next_task(w);
        if (t) { run(w, t); continue; }
        uint64_t idle0 = tamm__rt.cfg.stats ? tamm__now_ns() : 0;
        for (int i = 0; i < tamm__rt.spin_rounds && !t; i++) {
            tamm__pause();
            if ((i & 15) == 15) t = next_task(w);
        }
        if (!t) {
            unsigned seq;
            int others;
            t = sleep_once(w, stopping, NULL, 0, &seq, &others);
        }
        if (tamm__rt.cfg.stats) w->idle_ns += tamm__now_ns() - idle0;
        if (t) run(w, t);
    }
    tamm__worker_flush(w);
    tamm__pool_flush(&tamm__rt.task_pool, &w->task_cache);
    tamm__pool_flush(&tamm__rt.epoch_pool, &w->epoch_cache);
    return NULL;
}

/* whether the other executors (CUDA workers) hold work: tamm__workers_start */
static int (*others_busy_fn)(void);

int tamm__workers_start(int n, int others, int (*others_busy)(void))
{
    tamm__rt.nworkers = n;
    tamm__rt.nthreads = n + others; /* the other executors' entries follow (they start them) */
    others_busy_fn = others_busy;
    int all = tamm__rt.nthreads;
    tamm__rt.workers = aligned_alloc(TAMM_CACHELINE, sizeof(tamm__worker) * (size_t)all);
    if (!tamm__rt.workers) return TAMM_ENOMEM;
    memset(tamm__rt.workers, 0, sizeof(tamm__worker) * (size_t)all);
    for (int i = 0; i < all; i++) {
        tamm__worker *w = &tamm__rt.workers[i];
        w->id = i;
        w->rng = 0x9E3779B97F4A7C15ull * (uint64_t)(i + 1);
        tamm__deque_init(&w->dq, 4096);
    }
    tamm__tls_worker = &tamm__rt.workers[0];
    tamm__rt.sched->init(n);
    for (int i = 1; i < n; i++) {
        if (pthread_create(&tamm__rt.workers[i].thread, NULL, worker_main, &tamm__rt.workers[i])) {
            fprintf(stderr, "tamm: error: cannot start worker thread %d\n", i);
            atomic_store(&tamm__rt.stop, 1);
            tamm__wake_all();
            for (int k = 1; k < i; k++) pthread_join(tamm__rt.workers[k].thread, NULL);
            return TAMM_ENOMEM;
        }
    }
    return TAMM_OK;
}

void tamm__workers_stop(void)
{
    atomic_store(&tamm__rt.stop, 1);
    tamm__wake_all();
    for (int i = 1; i < tamm__rt.nworkers; i++) pthread_join(tamm__rt.workers[i].thread, NULL);
    tamm__rt.sched->fini();
}

static uint64_t progress(void)
{
    uint64_t s = 0;
    for (int i = 0; i < tamm__rt.nthreads; i++)
        s += atomic_load_explicit(&tamm__rt.workers[i].ntasks, memory_order_relaxed);
    return s;
}

static int help_loop(int (*cond)(void *), void *arg, int top);

int tamm__help_until(int (*cond)(void *), void *arg) { return help_loop(cond, arg, 1); }
int tamm__help_until_nested(int (*cond)(void *), void *arg) { return help_loop(cond, arg, 0); }

static int help_loop(int (*cond)(void *), void *arg, int top)
{
    tamm__worker *w = tamm__self();
    if (!w) return TAMM_ESTATE;
    const tamm__sched_ops *s = tamm__rt.sched;
    int spins = 0, quiet = 0;
    uint64_t last = progress();
    for (;;) {
        if (cond(arg)) {
            tamm__worker_flush(w); /* back to the caller */
            return TAMM_OK;
        }
        tamm__task_s *t = next_task(w);
        if (t) {
            run(w, t);
            spins = 0;
            quiet = 0;
            continue;
        }
        if (++spins < tamm__rt.spin_rounds) {
            tamm__pause();
            continue;
        }
        spins = 0;
        if (top) atomic_store_explicit(&tamm__rt.top_waiting, 1, memory_order_seq_cst);
        unsigned seq;
        int others;
        if ((t = sleep_once(w, cond, arg, DEADLOCK_TIMEOUT_MS, &seq, &others))) {
            run(w, t);
            continue;
        }
        /* Deadlock: after two quiet slices every other worker sleeps, nothing
         * is queued and no task has run, yet cond still fails. */
        uint64_t now = progress();
        if (atomic_load(&tamm__rt.wake_seq) == seq && now == last && others >= tamm__rt.nworkers - 1 &&
            s->empty() && !tamm__handoff_busy() && !(others_busy_fn && others_busy_fn()) && !cond(arg)) {
            if (++quiet >= 2) return TAMM_EDEADLOCK;
        } else {
            quiet = 0;
        }
        last = now;
    }
}
