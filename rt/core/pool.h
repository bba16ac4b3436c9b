/*
 * pool.h — allocation-free reuse of fixed-size objects (tasks, epochs) and of
 * block-sized buffers.
 *
 * Each thread keeps a cache; objects freed on one thread and allocated on
 * another flow back in batches through a lock-free stack (pushed with CAS,
 * taken whole with one exchange, so there is no ABA).  Slabs are malloc'd only
 * when the pool is empty and are freed at tamm_finalize.
 */
#ifndef TAMM_POOL_H
#define TAMM_POOL_H

#include "util.h"
#include <pthread.h>
#include <stddef.h>

typedef struct tamm__pool_obj tamm__pool_obj;

typedef struct tamm__pool {
    size_t size;                       /* object size */
    _Atomic(tamm__pool_obj *) batches;  /* stack of batches returned by other threads */
    pthread_mutex_t slab_lock;
    void *slabs;                       /* every slab, for freeing */
    atomic_size_t allocated;           /* objects ever made */
} tamm__pool;

/** A thread's cache for one pool: the objects it hands out, and a batch of
 *  freed ones being filled for the pool once the first list is full (so that
 *  handing a batch over never walks a list). */
typedef struct tamm__pool_cache {
    tamm__pool_obj *head;
    int n;
    int nspill;
    tamm__pool_obj *spill, *spill_last;
} tamm__pool_cache;

void tamm__pool_init(tamm__pool *p, size_t size);
/** Free every slab (all objects must be back or abandoned). */
void tamm__pool_destroy(tamm__pool *p);
void *tamm__pool_get(tamm__pool *p, tamm__pool_cache *c);
void tamm__pool_put(tamm__pool *p, tamm__pool_cache *c, void *o);
/** Call fn on every object the pool ever made, handed out or not (a slab
 *  starts zeroed).  For reports when every thread is idle (a deadlock). */
void tamm__pool_each(tamm__pool *p, void (*fn)(void *obj, void *arg), void *arg);
/** Return a thread's whole cache to the pool (thread exit). */
void tamm__pool_flush(tamm__pool *p, tamm__pool_cache *c);

/* Block-sized buffers, by power-of-two size class. */
#define TAMM_BUF_CLASSES 40
typedef struct tamm__buf_cache {
    void *head[TAMM_BUF_CLASSES];
    int n[TAMM_BUF_CLASSES];
} tamm__buf_cache;

/** A buffer of at least `bytes` bytes (64-byte aligned). */
void *tamm__buf_get(tamm__buf_cache *c, size_t bytes);
void tamm__buf_put(tamm__buf_cache *c, void *buf, size_t bytes);
/** Free every cached buffer. */
void tamm__buf_cache_free(tamm__buf_cache *c);
/** Block memory the runtime holds on the host (TAMM_STATS "peak memory"):
 *  block homes, which on a rank that does not own a block are its copy of it
 *  (tamm__home_alloc / _free), private buffers (tamm__buf_get / _put, by size
 *  class), top-level temps, receive buffers of sums from other ranks, pinned
 *  staging buffers of GPU write-backs.  Device memory is counted per GPU. */
void tamm__mem_add(size_t bytes);
void tamm__mem_sub(size_t bytes);
size_t tamm__mem_in_use(void);
size_t tamm__mem_peak(void);
void tamm__mem_reset_stats(void);

#endif
