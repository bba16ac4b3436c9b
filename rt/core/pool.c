/* pool.c — per-thread object caches with a lock-free batch exchange, and
 * size-class buffer caches (see pool.h). */
#include "pool.h"
#include "memlimit.h"
#include <stdio.h>
#include <string.h>

struct tamm__pool_obj {
    tamm__pool_obj *next;        /* next object in the same batch / cache */
    tamm__pool_obj *next_batch;  /* (batch head only) next batch on the global stack */
    tamm__pool_obj *last;        /* (batch head only) last object of the batch */
    int count;                  /* (batch head only) objects in the batch */
};

#define BATCH 128
#define PREFETCH_BYTES 256
#define SLAB 256

void tamm__pool_init(tamm__pool *p, size_t size)
{
    if (size < sizeof(tamm__pool_obj)) size = sizeof(tamm__pool_obj);
    p->size = (size + 63) & ~(size_t)63;
    atomic_init(&p->batches, NULL);
    pthread_mutex_init(&p->slab_lock, NULL);
    p->slabs = NULL;
    atomic_init(&p->allocated, 0);
}

void tamm__pool_destroy(tamm__pool *p)
{
    void *s = p->slabs;
    while (s) {
        void *n = *(void **)s;
        free(s);
        s = n;
    }
    p->slabs = NULL;
    atomic_store(&p->batches, NULL);
    pthread_mutex_destroy(&p->slab_lock);
}

static void refill(tamm__pool *p, tamm__pool_cache *c)
{
    tamm__pool_obj *b = atomic_exchange_explicit(&p->batches, NULL, memory_order_acquire);
    if (b) {
        while (b) {
            tamm__pool_obj *nb = b->next_batch;
            int cnt = b->count;
            /* not a walk of the batch: its objects were freed on another core,
             * and each step would be a cache miss */
            tamm__pool_obj *last = b->last;
            last->next = c->head;
            c->head = b;
            c->n += cnt;
            b = nb;
        }
        return;
    }
    /* a new slab: a header line for the slab list, then SLAB objects */
    /* cache-line aligned, so that an object shares no line with another */
    char *s = aligned_alloc(64, 64 + p->size * SLAB);
    if (!s) s = tamm__xmalloc(64 + p->size * SLAB);
    /* zeroed: an object never handed out reads as a finished task (deps 0) to
     * tamm__pool_each, which the deadlock report walks */
    memset(s, 0, 64 + p->size * SLAB);
    pthread_mutex_lock(&p->slab_lock);
    *(void **)s = p->slabs;
    p->slabs = s;
    pthread_mutex_unlock(&p->slab_lock);
    atomic_fetch_add(&p->allocated, SLAB);
    for (int i = SLAB - 1; i >= 0; i--) {
        tamm__pool_obj *o = (tamm__pool_obj *)(s + 64 + (size_t)i * p->size);
        o->next = c->head;
        c->head = o;
    }
    c->n += SLAB;
}

void *tamm__pool_get(tamm__pool *p, tamm__pool_cache *c)
{
    if (TAMM_UNLIKELY(!c->head)) {
        if (c->spill) { /* the batch being filled becomes the list handed out */
            c->head = c->spill;
            c->n = c->nspill;
            c->spill = c->spill_last = NULL;
            c->nspill = 0;
        } else {
            refill(p, c);
        }
    }
    tamm__pool_obj *o = c->head;
    c->head = o->next;
    c->n--;
    /* objects often come back from another core: start fetching the next one
     * now (its first lines, which a small task or an epoch spans), or the
     * next get waits for it on the pointer chase and the stores into it */
    if (TAMM_LIKELY(c->head != NULL))
        for (size_t off = 0; off < p->size && off < PREFETCH_BYTES; off += 64)
            TAMM_PREFETCHW((char *)c->head + off);
    return o;
}

static void push_batch(tamm__pool *p, tamm__pool_obj *head, tamm__pool_obj *last, int count)
{
    head->count = count;
    head->last = last;
    tamm__pool_obj *top = atomic_load_explicit(&p->batches, memory_order_relaxed);
    do {
        head->next_batch = top;
    } while (!atomic_compare_exchange_weak_explicit(&p->batches, &top, head, memory_order_release,
                                                    memory_order_relaxed));
}

void tamm__pool_put(tamm__pool *p, tamm__pool_cache *c, void *ptr)
{
    tamm__pool_obj *o = ptr;
    if (TAMM_LIKELY(c->n < BATCH)) {
        o->next = c->head;
        c->head = o;
        c->n++;
        return;
    }
    /* the list is full: fill a batch for threads that allocate more than they free */
    o->next = c->spill;
    if (!c->spill) c->spill_last = o;
    c->spill = o;
    if (++c->nspill == BATCH) {
        push_batch(p, c->spill, c->spill_last, BATCH);
        c->spill = c->spill_last = NULL;
        c->nspill = 0;
    }
}

void tamm__pool_flush(tamm__pool *p, tamm__pool_cache *c)
{
    if (c->head) {
        tamm__pool_obj *last = c->head;
        while (last->next) last = last->next;
        push_batch(p, c->head, last, c->n);
    }
    if (c->spill) push_batch(p, c->spill, c->spill_last, c->nspill);
    memset(c, 0, sizeof *c);
}

/* ---- block memory held (TAMM_STATS "peak memory") ---- */
static atomic_size_t mem_in_use, mem_peak;

void tamm__mem_add(size_t bytes)
{
    size_t now = atomic_fetch_add_explicit(&mem_in_use, bytes, memory_order_relaxed) + bytes;
    size_t pk = atomic_load_explicit(&mem_peak, memory_order_relaxed);
    while (now > pk && !atomic_compare_exchange_weak_explicit(&mem_peak, &pk, now, memory_order_relaxed,
                                                              memory_order_relaxed)) {}
}

void tamm__mem_sub(size_t bytes) { atomic_fetch_sub_explicit(&mem_in_use, bytes, memory_order_relaxed); }
size_t tamm__mem_in_use(void) { return atomic_load(&mem_in_use); }
size_t tamm__mem_peak(void) { return atomic_load(&mem_peak); }
void tamm__mem_reset_stats(void) { atomic_store(&mem_in_use, 0); atomic_store(&mem_peak, 0); }

/* ---- buffers ---- */

static int size_class(size_t bytes)
{
    int k = 6; /* 64 bytes minimum */
    while (((size_t)1 << k) < bytes && k < TAMM_BUF_CLASSES - 1) k++;
    return k;
}

void *tamm__buf_get(tamm__buf_cache *c, size_t bytes)
{
    int k = size_class(bytes);
    size_t sz = (size_t)1 << k;
    void *b;
    if (TAMM_UNLIKELY(tamm__ml_on)) return tamm__ml_buf_get(sz); /* within TAMM_MEMORY_LIMIT, not cached */
    if (c && c->head[k]) {
        b = c->head[k];
        c->head[k] = *(void **)b;
        c->n[k]--;
    } else {
        b = aligned_alloc(64, sz);
        if (!b) return NULL;
    }
    tamm__mem_add(sz);
    return b;
}

void tamm__buf_put(tamm__buf_cache *c, void *buf, size_t bytes)
{
    if (!buf) return;
    int k = size_class(bytes);
    if (TAMM_UNLIKELY(tamm__ml_on)) {
        tamm__ml_buf_put(buf, (size_t)1 << k);
        return;
    }
    tamm__mem_sub((size_t)1 << k);
    if (c && c->n[k] < 64) {
        *(void **)buf = c->head[k];
        c->head[k] = buf;
        c->n[k]++;
    } else {
        free(buf);
    }
}

void tamm__buf_cache_free(tamm__buf_cache *c)
{
    for (int k = 0; k < TAMM_BUF_CLASSES; k++) {
        void *b = c->head[k];
        while (b) {
            void *n = *(void **)b;
            free(b);
            b = n;
        }
        c->head[k] = NULL;
        c->n[k] = 0;
    }
}

void tamm__pool_each(tamm__pool *p, void (*fn)(void *obj, void *arg), void *arg)
{
    pthread_mutex_lock(&p->slab_lock);
    for (char *s = p->slabs; s; s = *(void **)s)
        for (int i = 0; i < SLAB; i++) fn(s + 64 + (size_t)i * p->size, arg);
    pthread_mutex_unlock(&p->slab_lock);
}
