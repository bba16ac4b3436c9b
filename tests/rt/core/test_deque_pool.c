/*
 * test_deque_pool.c — the work-stealing deque (deque.c) and the object pool
 * (pool.c), on their own.
 *
 * Deque: LIFO for the owner and FIFO for thieves; growth past the initial
 * capacity keeps every element (also when the owner's cached view of top is
 * stale); batch steals take half, oldest first, and the owner takes the
 * oldest item within a batch's reach of top; under concurrent stealing (one
 * and many at a time) every pushed element is taken exactly once, by the
 * owner or by one thief.
 * Pool: a cache hands back what it was given; objects freed on one thread
 * flow back in batches to a thread that allocates more than it frees, and
 * none is handed out twice while in use; flush returns everything.
 */
#include "harness.h"
#include "deque.h"
#include "pool.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

/* Fake task pointers: the deque never dereferences them. */
#define ITEM(i) ((struct tamm__task_s *)(uintptr_t)(((uintptr_t)(i) + 1) * 16))
#define INDEX(p) ((long)((uintptr_t)(p) / 16) - 1)

static void deque_sequential(void)
{
    tamm__deque q;
    tamm__deque_init(&q, 4);
    h_context("deque: empty");
    CHECK_NULL(tamm__deque_pop(&q));
    CHECK_NULL(tamm__deque_steal(&q));
    CHECK_EQ_INT((int)tamm__deque_size(&q), 0);

    h_context("deque: owner LIFO, thief FIFO, growth from 4 to 1024 slots");
    for (long i = 0; i < 1000; i++) tamm__deque_push(&q, ITEM(i));
    CHECK_EQ_INT((int)tamm__deque_size(&q), 1000);
    CHECK(tamm__deque_steal(&q) == ITEM(0));
    CHECK(tamm__deque_steal(&q) == ITEM(1));
    CHECK(tamm__deque_pop(&q) == ITEM(999));
    CHECK(tamm__deque_pop(&q) == ITEM(998));
    CHECK_EQ_INT((int)tamm__deque_size(&q), 996);

    /* thieves move top far ahead of what the owner last saw; pushes must
     * still neither overwrite a queued element nor lose one */
    h_context("deque: pushes after many steals (stale view of top)");
    for (long i = 2; i < 900; i++) CHECK(tamm__deque_steal(&q) == ITEM(i));
    for (long i = 1000; i < 3000; i++) tamm__deque_push(&q, ITEM(i));
    long expect_top = 900, n = 0, bad = 0;
    struct tamm__task_s *x;
    while ((x = tamm__deque_steal(&q))) {
        long i = INDEX(x);
        if (i != expect_top) bad++;
        expect_top = i + 1;
        if (expect_top == 998) expect_top = 1000; /* 998 and 999 were popped */
        n++;
    }
    CHECK_EQ_INT((int)n, 98 + 2000);
    CHECK_EQ_INT((int)bad, 0);
    CHECK_NULL(tamm__deque_pop(&q));
    tamm__deque_destroy(&q);
}

/* Batches: a thief takes half (rounded up), at most `max` and
 * TAMM_DEQUE_BATCH, oldest first; the owner pops LIFO while its item is at
 * least TAMM_DEQUE_BATCH past top, and the oldest item nearer than that. */
static void deque_batches(void)
{
    tamm__deque q;
    tamm__deque_init(&q, 8);
    struct tamm__task_s *got[TAMM_DEQUE_BATCH];
    h_context("deque batch: empty");
    CHECK_EQ_INT(tamm__deque_steal_batch(&q, got, TAMM_DEQUE_BATCH), 0);

    h_context("deque batch: half of 40 is capped at TAMM_DEQUE_BATCH, then at max");
    for (long i = 0; i < 40; i++) tamm__deque_push(&q, ITEM(i));
    CHECK_EQ_INT(tamm__deque_steal_batch(&q, got, TAMM_DEQUE_BATCH), TAMM_DEQUE_BATCH);
    long bad = 0;
    for (int i = 0; i < TAMM_DEQUE_BATCH; i++) bad += got[i] != ITEM(i);
    CHECK_EQ_INT((int)bad, 0);
    CHECK_EQ_INT(tamm__deque_steal_batch(&q, got, 3), 3);
    CHECK(got[0] == ITEM(16) && got[1] == ITEM(17) && got[2] == ITEM(18));
    CHECK_EQ_INT((int)tamm__deque_size(&q), 21);

    h_context("deque batch: the owner pops LIFO beyond a batch's reach, FIFO within it");
    /* items 19..39: top 19, so indices down to 19 + BATCH are popped newest first */
    long lifo_end = 19 + TAMM_DEQUE_BATCH;
    for (long i = 39; i >= lifo_end; i--) CHECK(tamm__deque_pop(&q) == ITEM(i));
    for (long i = 19; i < lifo_end; i++) CHECK(tamm__deque_pop(&q) == ITEM(i));
    CHECK_NULL(tamm__deque_pop(&q));

    h_context("deque batch: one item, then three (half rounded up)");
    tamm__deque_push(&q, ITEM(100));
    CHECK_EQ_INT(tamm__deque_steal_batch(&q, got, TAMM_DEQUE_BATCH), 1);
    CHECK(got[0] == ITEM(100));
    for (long i = 101; i < 104; i++) tamm__deque_push(&q, ITEM(i));
    CHECK_EQ_INT(tamm__deque_steal_batch(&q, got, TAMM_DEQUE_BATCH), 2);
    CHECK(got[0] == ITEM(101) && got[1] == ITEM(102));
    CHECK(tamm__deque_pop(&q) == ITEM(103));
    CHECK_EQ_INT(tamm__deque_steal_batch(&q, got, TAMM_DEQUE_BATCH), 0);
    tamm__deque_destroy(&q);
}

/* Concurrent: the owner pushes N items (popping some itself), two thieves
 * steal; each item is taken once. */
#define NITEMS 200000
static tamm__deque cq;
static atomic_int taken[NITEMS];
static atomic_int owner_done;

static void take(struct tamm__task_s *x) { atomic_fetch_add(&taken[INDEX(x)], 1); }

/* Thief 0 steals one at a time, thief 1 in batches. */
static void *thief(void *arg)
{
    int batched = arg != NULL;
    for (;;) {
        if (batched) {
            struct tamm__task_s *got[TAMM_DEQUE_BATCH];
            int n = tamm__deque_steal_batch(&cq, got, TAMM_DEQUE_BATCH);
            for (int i = 0; i < n; i++) take(got[i]);
            if (n) continue;
        } else {
            struct tamm__task_s *x = tamm__deque_steal(&cq);
            if (x) { take(x); continue; }
        }
        if (atomic_load(&owner_done) && tamm__deque_size(&cq) == 0) return NULL;
    }
}

static void deque_concurrent(void)
{
    tamm__deque_init(&cq, 16);
    for (int i = 0; i < NITEMS; i++) atomic_init(&taken[i], 0);
    atomic_init(&owner_done, 0);
    pthread_t th[2];
    for (int k = 0; k < 2; k++) pthread_create(&th[k], NULL, thief, k ? (void *)&cq : NULL);
    for (long i = 0; i < NITEMS; i++) {
        tamm__deque_push(&cq, ITEM(i));
        if (i % 3 == 0) { /* the owner works too */
            struct tamm__task_s *x = tamm__deque_pop(&cq);
            if (x) take(x);
        }
    }
    struct tamm__task_s *x;
    while ((x = tamm__deque_pop(&cq))) take(x);
    atomic_store(&owner_done, 1);
    for (int k = 0; k < 2; k++) pthread_join(th[k], NULL);
    long missing = 0, twice = 0;
    for (int i = 0; i < NITEMS; i++) {
        int c = atomic_load(&taken[i]);
        if (c == 0) missing++;
        if (c > 1) twice++;
    }
    h_context("deque: owner + 2 thieves (one taking batches), %d items", NITEMS);
    CHECK_EQ_INT((int)missing, 0);
    CHECK_EQ_INT((int)twice, 0);
    tamm__deque_destroy(&cq);
}

/* ---- pool ---- */
/* owner lies past the pool's own link fields, which overlay a free object */
typedef struct { char pad[56]; long owner; } obj;

static void pool_single(void)
{
    tamm__pool p;
    tamm__pool_init(&p, sizeof(obj));
    tamm__pool_cache c = { 0 };
    h_context("pool: objects are distinct and 64-byte aligned; what is put back is reused");
    obj *o[600];
    int misaligned = 0;
    for (int i = 0; i < 600; i++) {
        o[i] = tamm__pool_get(&p, &c);
        if ((uintptr_t)o[i] % 64) misaligned++;
        o[i]->owner = i;
    }
    CHECK_EQ_INT(misaligned, 0);
    int clobbered = 0;
    for (int i = 0; i < 600; i++) clobbered += o[i]->owner != i;
    CHECK_EQ_INT(clobbered, 0);
    size_t made = atomic_load(&p.allocated);
    for (int i = 0; i < 600; i++) tamm__pool_put(&p, &c, o[i]);
    for (int i = 0; i < 600; i++) o[i] = tamm__pool_get(&p, &c);
    CHECK_MSG(atomic_load(&p.allocated) == made, "reallocating 600 freed objects made new ones (%zu -> %zu)", made,
              (size_t)atomic_load(&p.allocated));
    for (int i = 0; i < 600; i++) tamm__pool_put(&p, &c, o[i]);
    tamm__pool_flush(&p, &c);
    CHECK_NULL(c.head);
    CHECK_NULL(c.spill);
    /* everything flushed comes back to another cache without new slabs */
    tamm__pool_cache c2 = { 0 };
    for (int i = 0; i < 600; i++) o[i] = tamm__pool_get(&p, &c2);
    CHECK_MSG(atomic_load(&p.allocated) == made, "flushed objects were not reused (%zu -> %zu)", made,
              (size_t)atomic_load(&p.allocated));
    for (int i = 0; i < 600; i++) tamm__pool_put(&p, &c2, o[i]);
    tamm__pool_flush(&p, &c2);
    tamm__pool_destroy(&p);
}

/* Producer/consumer: one thread allocates and hands objects to another,
 * which frees them; the batches flow back, so the pool stops growing, and no
 * object is handed out while the consumer still holds it. */
#define NPASS 300000
#define IN_USE 0x7a6d6d5f494e5553L /* not a value left in recycled memory by chance */
static tamm__pool pp;
static _Atomic(obj *) ring[256];
static atomic_long in_use_twice;

static void *consumer(void *arg)
{
    (void)arg;
    tamm__pool_cache c = { 0 };
    for (long n = 0; n < NPASS;) {
        for (int k = 0; k < 256 && n < NPASS; k++) {
            obj *o = atomic_exchange(&ring[k], NULL);
            if (!o) continue;
            if (o->owner != IN_USE) atomic_fetch_add(&in_use_twice, 1);
            o->owner = 0;
            tamm__pool_put(&pp, &c, o);
            n++;
        }
    }
    tamm__pool_flush(&pp, &c);
    return NULL;
}

static void pool_concurrent(void)
{
    tamm__pool_init(&pp, sizeof(obj));
    for (int k = 0; k < 256; k++) atomic_init(&ring[k], NULL);
    atomic_init(&in_use_twice, 0);
    pthread_t th;
    pthread_create(&th, NULL, consumer, NULL);
    tamm__pool_cache c = { 0 };
    long held_by_ring_max = 256;
    for (long n = 0; n < NPASS; n++) {
        obj *o = tamm__pool_get(&pp, &c);
        if (o->owner == IN_USE) atomic_fetch_add(&in_use_twice, 1);
        o->owner = IN_USE;
        int k = (int)(n & 255);
        while (atomic_load(&ring[k])) {} /* the consumer has not taken the previous one yet */
        atomic_store(&ring[k], o);
    }
    pthread_join(th, NULL);
    h_context("pool: %d objects passed from an allocating to a freeing thread", NPASS);
    CHECK_EQ_INT((int)atomic_load(&in_use_twice), 0);
    /* in flight at once: the ring, both caches and batches in transit; far below NPASS */
    size_t made = atomic_load(&pp.allocated);
    CHECK_MSG(made <= (size_t)(held_by_ring_max + 4096), "the pool grew to %zu objects for %ld in flight", made,
              held_by_ring_max);
    tamm__pool_flush(&pp, &c);
    tamm__pool_destroy(&pp);
}

int main(void)
{
    deque_sequential();
    deque_batches();
    deque_concurrent();
    pool_single();
    pool_concurrent();
    return test_summary();
}
