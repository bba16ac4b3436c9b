/*
 * test_memlimit_busy.c — under TAMM_MEMORY_LIMIT, an allocation that must evict a block whose
 * lock is held right then (the I/O thread writing it back ahead of its eviction, a GPU's
 * write-back stored into it, a task's get_buf) waits for it instead of going over the limit
 * (docs/runtime.md "Block memory").
 *
 * Four blocks of 4 KiB fill a limit of 16 KiB; a helper thread holds the lock of every block
 * while this thread asks the limit for 4 KiB more (tamm__ml_buf_get, as a staging buffer or a
 * private accumulation buffer does):
 *   - held 150 ms: the allocation returns only after the locks are let go, by evicting a block:
 *     memory in use stays within the limit and no allocation is counted over it.  (The runtime
 *     gave up after a thousand sched_yields and went over the limit when the holder was
 *     descheduled: test_gpu_memlimit failed so under TSan, peak 50688 bytes for 49152.)
 *   - held 2.5 s: the wait is bounded (1 s): the allocation returns while the locks are still
 *     held, counted as over the limit, and nothing hangs.
 */
#include "harness.h"
#include "tamm_util.h"
#include "memlimit.h"
#include "memlimit_int.h"
#include "pool.h"
#include "tensor.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#define NB 4
#define TILE 512 /* int64 per block: 4 KiB */

typedef struct { tamm_tensor *X; long i; } w_args;

static void write_block(tamm_ctx *ctx, void *p)
{
    w_args *a = p;
    long idx[1] = { a->i };
    int64_t *x = tamm_get_buf_write(ctx, a->X, idx);
    for (int e = 0; e < TILE; e++) x[e] = a->i * 1000 + e;
    tamm_release_put(ctx, x);
}

typedef struct {
    tamm_tensor *X;
    long hold_ms;
    atomic_int locked;   /* every block lock is held */
    atomic_int released; /* they are let go */
} holder;

static void *hold_locks(void *p)
{
    holder *h = p;
    for (long b = 0; b < NB; b++) tamm__spin_lock(&h->X->blocks[b].lock);
    atomic_store(&h->locked, 1);
    struct timespec ts = { h->hold_ms / 1000, (h->hold_ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
    atomic_store(&h->released, 1);
    for (long b = 0; b < NB; b++) tamm__spin_unlock(&h->X->blocks[b].lock);
    return NULL;
}

/* Ask for one block's bytes while every block lock is held for hold_ms; *over: how many
 * allocations the limit counted over it meanwhile, *released_first: whether the locks were let
 * go before the allocation returned, *in_use: memory in use right after it. */
static void *alloc_while_held(tamm_tensor *X, long hold_ms, unsigned long long *over, int *released_first,
                              size_t *in_use)
{
    holder h = { X, hold_ms, 0, 0 };
    pthread_t th;
    unsigned long long over0 = atomic_load(&tamm__ml_st.over);
    CHECK_EQ_INT(pthread_create(&th, NULL, hold_locks, &h), 0);
    CHECK(tu_wait_flag(&h.locked, 1, 30.0));
    void *p = tamm__ml_buf_get((size_t)TILE * sizeof(int64_t));
    *released_first = atomic_load(&h.released);
    *in_use = tamm__mem_in_use();
    *over = atomic_load(&tamm__ml_st.over) - over0;
    pthread_join(th, NULL);
    return p;
}

int main(void)
{
    setenv("TAMM_MEMORY_LIMIT", "16K", 1);
    setenv("TAMM_NUM_WORKERS", "1", 1);
    CHECK_EQ_INT(tamm_init(NULL, NULL), TAMM_OK);
    tamm_tensor *X = tu_vec("X", NB, TILE);
    CHECK_NOTNULL(X);
    for (long i = 0; i < NB; i++) {
        w_args a = { X, i };
        tamm_ref r = tu_ref1(X, TAMM_WRITE, i);
        tamm_task t = tu_task(write_block, &a, sizeof a, &r, 1, "write", __FILE__, __LINE__);
        CHECK_EQ_INT(tamm_submit(NULL, &t), TAMM_OK);
    }
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    size_t limit = tamm__ml_limit, bytes = (size_t)TILE * sizeof(int64_t);
    CHECK_MSG(limit == NB * bytes, "TAMM_MEMORY_LIMIT=16K is %zu bytes", limit);
    CHECK_MSG(tamm__mem_in_use() == limit, "the %d blocks use %zu bytes of a limit of %zu", NB, tamm__mem_in_use(),
              limit);

    unsigned long long over;
    int released_first;
    size_t in_use;
    h_context("locks held 150 ms");
    void *p = alloc_while_held(X, 150, &over, &released_first, &in_use);
    CHECK_NOTNULL(p);
    CHECK_MSG(released_first, "the allocation returned while the block locks were still held");
    CHECK_MSG(over == 0, "%llu allocations counted over the limit", over);
    CHECK_MSG(in_use <= limit, "memory in use %zu bytes, TAMM_MEMORY_LIMIT %zu", in_use, limit);

    h_context("locks held 2.5 s");
    void *q = alloc_while_held(X, 2500, &over, &released_first, &in_use);
    CHECK_NOTNULL(q);
    CHECK_MSG(!released_first, "the allocation waited for the locks for 2.5 s (its wait is bounded)");
    CHECK_MSG(over == 1, "%llu allocations counted over the limit (1 expected)", over);
    CHECK_MSG(in_use > limit, "memory in use %zu bytes within TAMM_MEMORY_LIMIT %zu, though nothing was evictable",
              in_use, limit);
    h_context(NULL);
    tamm__ml_buf_put(q, bytes);
    tamm__ml_buf_put(p, bytes);

    /* the blocks evicted meanwhile read back what was written */
    int64_t *all = calloc(NB * TILE, sizeof *all);
    CHECK_EQ_INT(tamm_tensor_gather(X, all), TAMM_OK);
    int bad = -1;
    for (long e = 0; e < NB * TILE && bad < 0; e++)
        if (all[e] != (e / TILE) * 1000 + e % TILE) bad = (int)e;
    CHECK_MSG(bad < 0, "element %d of X differs after the evictions", bad);
    free(all);
    tamm_tensor_destroy(X);
    CHECK_EQ_INT(tamm_finalize(), TAMM_OK);
    return test_summary();
}
