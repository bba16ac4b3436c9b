/*
 * spill.c — where the blocks' bytes are under TAMM_MEMORY_LIMIT (memlimit.h):
 * their memory (raw_alloc, spare buffers, the LRU list of resident homes and
 * room(), which evicts least recently used blocks to make room), the spill
 * file and its slots (FLUSH and EVICT on the host unit), read-back and
 * regeneration of an absent home (tamm__ml_home), the I/O thread that reads
 * spilled blocks back ahead of their tasks and writes dirty ones back ahead
 * of their eviction, and tamm__ml_store's write-back without a home.  What may
 * be resident (reservations, admission) is memlimit.c's; memlimit_int.h holds
 * what the two share.
 */
#include "memlimit_int.h"
#include "error.h"
#include "hostmem.h"
#include "layer.h"
#include "pool.h"
#include "runtime.h"
#include "task.h"
#include "tensor.h"
#include "util.h"
#include "tamm_assert.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* Blocks of at least this size get a mapping of their own, so that freeing
 * them gives the memory back to the system at once (malloc's arenas would keep
 * it, one arena per worker thread).  Smaller ones come from calloc. */
#define ML_MMAP_MIN (64u << 10)

static tamm__mblk lru = { .prev = &lru, .next = &lru }; /* next: most recent, prev: least (mlk, as all below) */
/* the spill file */
static int fd = -1;
static int spill_broken;
static char spill_path[512];
static int64_t fend;
typedef struct { int64_t off; size_t len; } slot;
static slot *freeslots;
static int nfree, cfree;
/* the I/O thread: reads spilled blocks back ahead of the tasks admitted to use them */
static pthread_t io_thread;
static int io_started, io_stop;
static pthread_cond_t io_cond = PTHREAD_COND_INITIALIZER;  /* work for the I/O thread, or stop */
pthread_cond_t tamm__ml_io_idle = PTHREAD_COND_INITIALIZER; /* io_cur changed */
static tamm__mblk **ioq;      /* blocks to read back, FIFO ring */
static int ioq_head, ioq_n, ioq_cap;
static tamm__mblk *io_cur;    /* the block the I/O thread is reading back */
static tamm__mblk *io_clean;  /* the block the I/O thread is writing back ahead of its eviction */
static int clean_wanted;     /* memory is three-quarters full: write dirty blocks back ahead */

static void spare_drop(void);

static int nspares; /* spare buffers (see "spare buffers" below) */

static _Thread_local int on_io_thread; /* set on the I/O thread (TAMM_TRACE's I/O track) */

/* TAMM_TRACE / TAMM_DAG: a spill-file transfer of block lin of T, from t0 to now. */
static TAMM_COLD void record_io(int write, tamm_tensor *T, long lin, size_t bytes, uint64_t t0)
{
    tamm__worker *w = tamm__self();
    int by = on_io_thread ? TAMM_IO_BY_IO_THREAD : w && w->id < tamm__rt.nworkers ? w->id : TAMM_IO_BY_OTHER;
    uint64_t task = w && w->cur_ctx && w->cur_ctx->task ? w->cur_ctx->task->id : 0;
    tamm__recorder->io(write, T, lin, bytes, by, task, t0, tamm__now_ns());
}

/* Memory is three-quarters full: the I/O thread writes dirty blocks back ahead of their eviction. */
static inline int memory_high(void) { return tamm__mem_in_use() >= tamm__ml_limit - tamm__ml_limit / 4; }

static inline int spin_trylock(tamm__spin *l)
{
    return !atomic_load_explicit(&l->v, memory_order_relaxed) &&
           !atomic_exchange_explicit(&l->v, 1, memory_order_acquire);
}

void tamm__ml_spill_init(void)
{
    lru.next = lru.prev = &lru;
    spill_broken = 0;
    fend = 0;
    nfree = 0;
    io_clean = NULL;
    clean_wanted = 0;
    io_stop = 0;
    ioq_head = ioq_n = 0;
    io_cur = NULL;
}

void tamm__ml_spill_fini(void)
{
    if (io_started) {
        pthread_mutex_lock(&tamm__ml_mlk);
        io_stop = 1;
        pthread_cond_signal(&io_cond);
        pthread_mutex_unlock(&tamm__ml_mlk);
        pthread_join(io_thread, NULL);
        io_started = 0;
    }
    free(ioq);
    ioq = NULL;
    ioq_cap = ioq_head = ioq_n = 0;
    if (fd >= 0) close(fd);
    fd = -1;
    free(freeslots);
    freeslots = NULL;
    cfree = nfree = 0;
    pthread_mutex_lock(&tamm__ml_mlk); /* (alone by now, but spare_drop's precondition holds) */
    while (nspares) spare_drop();
    pthread_mutex_unlock(&tamm__ml_mlk);
}

/* ------------------------------------------------------------------ */
/* memory                                                                */
/* ------------------------------------------------------------------ */
static size_t page_round(size_t n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return (n + page - 1) / page * page;
}

/* Memory for a block: pinned where another unit copies the homes (hostmem.h;
 * contents undefined), else zero-filled (*zeroed = 1). */
static void *raw_alloc(size_t bytes, int *zeroed)
{
    const tamm__home_ops *pin = tamm__home_pin_ops();
    if (pin) {
        *zeroed = 0;
        return pin->raw_alloc(bytes ? bytes : 1);
    }
    *zeroed = 1;
    if (bytes < ML_MMAP_MIN) return calloc(1, bytes ? bytes : 1);
    void *p = mmap(NULL, page_round(bytes), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void raw_free(void *p, size_t bytes)
{
    if (!p) return;
    const tamm__home_ops *pin = tamm__home_pin_ops();
    if (pin) pin->raw_free(p, bytes ? bytes : 1);
    else if (bytes < ML_MMAP_MIN) free(p);
    else munmap(p, page_round(bytes));
}

/* ---- spare buffers ----
 * A block's memory that is given up (evicted, released, a private buffer put
 * back) is kept as a spare, still counted in the bytes in use, and the next
 * block or buffer of the same size takes it: a read-back into fresh mappings
 * faulted in every page (and munmap interrupted the other cores to flush
 * their TLBs), a quarter of the CPU time of a Cholesky factorisation at twice
 * its limit.  Only mapped sizes (ML_MMAP_MIN and more), at most ML_SPARES. */
#define ML_SPARES 8
static struct { void *p; size_t bytes; } spares[ML_SPARES];

/* Give up memory p of `bytes` (counted in use).  mlk held. */
static void spare_put(void *p, size_t bytes)
{
    TAMM_ASSERT(tamm__mutex_held(&tamm__ml_mlk));
    if (!p) return;
    if (bytes >= ML_MMAP_MIN && nspares < ML_SPARES) {
        spares[nspares].p = p;
        spares[nspares++].bytes = bytes;
        return;
    }
    raw_free(p, bytes);
    tamm__mem_sub(bytes);
}

/* A spare of exactly `bytes` (still counted in use), or NULL.  mlk held. */
static void *spare_take(size_t bytes)
{
    TAMM_ASSERT(tamm__mutex_held(&tamm__ml_mlk));
    for (int i = nspares - 1; i >= 0; i--)
        if (spares[i].bytes == bytes) {
            void *p = spares[i].p;
            spares[i] = spares[--nspares];
            return p;
        }
    return NULL;
}

/* Free the oldest spare.  mlk held. */
static void spare_drop(void)
{
    TAMM_ASSERT(tamm__mutex_held(&tamm__ml_mlk) && nspares > 0);
    raw_free(spares[0].p, spares[0].bytes);
    tamm__mem_sub(spares[0].bytes);
    memmove(&spares[0], &spares[1], (size_t)(--nspares) * sizeof spares[0]);
}

static void lru_remove(tamm__mblk *m)
{
    if (!m->in_lru) return;
    TAMM_ASSERT(m->prev->next == m && m->next->prev == m); /* a consistent list */
    m->prev->next = m->next;
    m->next->prev = m->prev;
    m->in_lru = 0;
}

void tamm__ml_lru_front(tamm__mblk *m)
{
    TAMM_ASSERT(tamm__mutex_held(&tamm__ml_mlk));
    lru_remove(m);
    m->next = lru.next;
    m->prev = &lru;
    lru.next->prev = m;
    lru.next = m;
    m->in_lru = 1;
}

/* ---- the spill file ---- */
static int spill_open(void)
{
    if (fd >= 0) return 0;
    const char *dir = getenv("TAMM_SPILL_DIR");
    if (!dir || !*dir) dir = getenv("TMPDIR");
    if (!dir || !*dir) dir = "/tmp";
    snprintf(spill_path, sizeof spill_path, "%s/tamm-spill-%d-XXXXXX", dir, (int)getpid());
    int f = mkostemp(spill_path, O_CLOEXEC);
    if (f < 0) {
        tamm__error(NULL, TAMM_ENOMEM, "TAMM_MEMORY_LIMIT: cannot create a spill file in %s (%s); blocks stay in "
                    "memory, over the limit (set TAMM_SPILL_DIR to a writable directory with room)", dir, strerror(errno));
        return -1;
    }
    unlink(spill_path); /* gone when the process ends, however it ends */
    /* a file size limit (RLIMIT_FSIZE) must be a failed write, not a killed process */
    struct sigaction old;
    if (sigaction(SIGXFSZ, NULL, &old) == 0 && old.sa_handler == SIG_DFL) signal(SIGXFSZ, SIG_IGN);
    fd = f;
    return 0;
}

static int64_t slot_alloc(size_t len)
{
    for (int i = 0; i < nfree; i++)
        if (freeslots[i].len == len) {
            int64_t off = freeslots[i].off;
            freeslots[i] = freeslots[--nfree];
            return off;
        }
    int64_t off = fend;
    fend += (int64_t)len;
    return off;
}

static void slot_free(int64_t off, size_t len)
{
    if (off < 0) return;
    if (nfree == cfree) {
        cfree = cfree ? 2 * cfree : 64;
        freeslots = tamm__xrealloc(freeslots, (size_t)cfree * sizeof *freeslots);
    }
    freeslots[nfree++] = (slot){ off, len };
}

/* Give block m a slot in the spill file (opened at first need).  mlk held.
 * 0: done; -1: spilling is broken (reported already). */
static int slot_prepare(tamm__mblk *m, size_t bytes)
{
    if (spill_broken || spill_open()) {
        spill_broken = 1;
        return -1;
    }
    if (m->off < 0) m->off = slot_alloc(bytes);
    return 0;
}

/* Write p to m's slot.  The block lock held (its home cannot change), mlk
 * not needed.  0, or the errno of the failed write. */
static int slot_write(const tamm__mblk *m, const void *p, size_t bytes)
{
    size_t done = 0;
    while (done < bytes) {
        ssize_t w = pwrite(fd, (const char *)p + done, bytes - done, (off_t)(m->off + (int64_t)done));
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return w < 0 ? errno : ENOSPC;
        done += (size_t)w;
    }
    return 0;
}

/* A write of m to the spill file failed with errno e: spilling stops.  mlk held. */
static TAMM_COLD void spill_report(tamm__mblk *m, size_t bytes, int e)
{
    char bn[128];
    spill_broken = 1;
    tamm__error(NULL, TAMM_ENOMEM, "TAMM_MEMORY_LIMIT: cannot write %s (%zu bytes) to the spill file in %s "
                "(%s); it and every block not yet spilled stay in memory, over the limit (results are not "
                "affected; set TAMM_SPILL_DIR to a directory with room)",
                tamm__block_name(m->T, m->lin, bn, sizeof bn), bytes,
                getenv("TAMM_SPILL_DIR") && *getenv("TAMM_SPILL_DIR") ? getenv("TAMM_SPILL_DIR") : "the temporary directory",
                strerror(e));
}

/* A write of m to its slot failed with errno e.  mlk and the block lock held. */
static TAMM_COLD void spill_failed(tamm__mblk *m, size_t bytes, int e)
{
    m->valid = 0; /* the slot may hold part of this write: never read it */
    spill_report(m, bytes, e);
}

static void spill_counted(tamm__mblk *m, size_t bytes, uint64_t t0)
{
    atomic_fetch_add(&tamm__ml_st.spilled, bytes);
    atomic_fetch_add(&tamm__ml_st.writes, 1);
    if (TAMM_UNLIKELY(tamm__rt.recording)) record_io(1, m->T, m->lin, bytes, t0);
}

/* Write block m (home p) to its slot.  mlk and the block lock held. 0: done. */
static int spill_write(tamm__mblk *m, const void *p, size_t bytes)
{
    TAMM_ASSERT(tamm__mutex_held(&tamm__ml_mlk) && tamm__spin_held(&m->T->blocks[m->lin].lock));
    if (slot_prepare(m, bytes)) return -1;
    uint64_t t0 = TAMM_UNLIKELY(tamm__rt.recording) ? tamm__now_ns() : 0;
    int e = slot_write(m, p, bytes);
    if (e) {
        spill_failed(m, bytes, e);
        return -1;
    }
    spill_counted(m, bytes, t0);
    return 0;
}

/* FLUSH, then EVICT resident block m, which no one holds (no pin, RC 0,
 * nothing pending): a dirty block is written to its slot first (discard: not,
 * its contents are about to be replaced whole, and the slot is stale), then
 * its memory is given up.  mlk and the block lock held.  0: evicted; -1: the
 * write failed (reported: it stays). */
static int evict_locked(tamm__mblk *m, int discard)
{
    tamm__block_s *b = &m->T->blocks[m->lin];
    tamm__unit_state *u = &b->units[0];
    TAMM_ASSERT(tamm__mutex_held(&tamm__ml_mlk) && tamm__spin_held(&b->lock));
    /* the execution FSM's EVICT needs RC == 0; a pinned block is in use */
    TAMM_ASSERT(u->rc == 0 && !u->pending && m->pins == 0 && !m->toppin && b->home != NULL);
    size_t bytes = b->bytes;
    int dirty = m->dirty || u->state == TAMM_BS_DIRTY || u->state == TAMM_BS_DIRTYACC;
    if (dirty && !discard) {
        if (spill_write(m, b->home, bytes)) return -1;
        m->valid = 1;
        m->dirty = 0;
    } else {
        if (dirty) m->valid = 0;
        m->dirty = 0;
        atomic_fetch_add(&tamm__ml_st.drop, 1);
    }
    void *p = b->home;
    b->home = NULL;
    u->buf = NULL;
    u->state = TAMM_BS_UNALLOC;
    u->rc = 0;
    lru_remove(m);
    spare_put(p, bytes);
    atomic_fetch_add(&tamm__ml_st.evict, 1);
    return 0;
}

/* Evict the least recently used block no one holds.  mlk held.  1: evicted;
 * 2: none, but a candidate's lock was taken right then (try again); 0: none.
 * The block the I/O thread has just read back (io_cur) is a candidate like any
 * other once its lock is free: the I/O thread no longer touches its memory, and
 * its task may have run and unpinned it already (skipping it made room() find
 * nothing evictable: test_stream's one block over TAMM_MEMORY_LIMIT). */
static int evict_one(void)
{
    int busy = 0;
    for (tamm__mblk *m = lru.prev; m != &lru; m = m->prev) {
        if (m->pins || m->toppin) continue;
        tamm_tensor *T = m->T;
        tamm__block_s *b = &T->blocks[m->lin];
        if (!spin_trylock(&b->lock)) { /* in use right now: another one, and maybe this one again */
            busy = 1;
            continue;
        }
        tamm__unit_state *u = &b->units[0];
        if (!b->home || u->rc || u->pending) {
            tamm__spin_unlock(&b->lock);
            continue;
        }
        int r = evict_locked(m, 0);
        tamm__spin_unlock(&b->lock);
        if (r) continue;
        return 1;
    }
    return busy ? 2 : 0;
}

/* How long room() waits for a block in use right then (its lock held) before it gives up
 * and goes over the limit: far longer than any holder keeps a block lock (a unit's write-back
 * stored chunk by chunk, a task's get_buf), even descheduled on a loaded machine, yet bounded
 * (a holder that waited for room() itself would otherwise hang both). */
#define ROOM_BUSY_WAIT_NS 1000000000ull

/* Make room for `bytes` more and count them in: a spare of that size (returned:
 * the caller uses it), else NULL (the caller allocates).  mlk held (dropped
 * and taken again while a candidate's lock is busy: its holder may need mlk).
 * A candidate that is busy is waited for: the block the I/O thread writes back
 * ahead of its eviction (the least recently used, the very one wanted here)
 * until that write ends; any other by yielding, then sleeping, up to
 * ROOM_BUSY_WAIT_NS.  (Giving up after a thousand yields went over the limit
 * whenever the holder was descheduled: test_gpu_memlimit under TSan.) */
static void *room(size_t bytes)
{
    TAMM_ASSERT(tamm__mutex_held(&tamm__ml_mlk));
    uint64_t busy_since = 0;
    unsigned tries = 0;
    for (;;) {
        void *p = spare_take(bytes);
        if (p) return p;
        if (tamm__mem_in_use() + bytes <= tamm__ml_limit) break;
        if (nspares) {
            spare_drop();
            continue;
        }
        int r = evict_one();
        if (r == 1) continue;
        if (r == 2 && io_clean && !on_io_thread) { /* (signalled when its write ends, under mlk) */
            pthread_cond_wait(&tamm__ml_io_idle, &tamm__ml_mlk);
            continue;
        }
        if (r == 2) {
            uint64_t now = tamm__now_ns();
            if (!busy_since) busy_since = now;
            if (now - busy_since < ROOM_BUSY_WAIT_NS) {
                pthread_mutex_unlock(&tamm__ml_mlk);
                if (tries++ < 64) {
                    sched_yield();
                } else { /* 1, 2, 4 ... 1024 us */
                    unsigned us = tries - 64 < 10 ? 1u << (tries - 64) : 1024u;
                    struct timespec ts = { 0, (long)us * 1000L };
                    nanosleep(&ts, NULL);
                }
                pthread_mutex_lock(&tamm__ml_mlk);
                continue;
            }
        }
        atomic_fetch_add(&tamm__ml_st.over, 1);
        break;
    }
    tamm__mem_add(bytes);
    return NULL;
}

void *tamm__ml_buf_get(size_t bytes)
{
    pthread_mutex_lock(&tamm__ml_mlk);
    void *p = room(bytes);
    pthread_mutex_unlock(&tamm__ml_mlk);
    if (p) return p;
    int z;
    /* (aligned_alloc wants a multiple of the alignment: the MPI flow asks for any block size) */
    p = bytes < ML_MMAP_MIN && !tamm__home_pin_ops() ? aligned_alloc(64, (bytes + 63) & ~(size_t)63) : raw_alloc(bytes, &z);
    if (!p) tamm__mem_sub(bytes);
    return p;
}

void tamm__ml_buf_put(void *p, size_t bytes)
{
    if (bytes < ML_MMAP_MIN && !tamm__home_pin_ops()) { /* (from aligned_alloc: never a spare) */
        tamm__mem_sub(bytes);
        free(p);
        return;
    }
    pthread_mutex_lock(&tamm__ml_mlk);
    spare_put(p, bytes);
    pthread_mutex_unlock(&tamm__ml_mlk);
}

/* ------------------------------------------------------------------ */
/* blocks                                                                */
/* ------------------------------------------------------------------ */
void tamm__ml_tensor_init(tamm_tensor *T)
{
    T->ml = tamm__xcalloc((size_t)T->nblk, sizeof *T->ml);
    for (long b = 0; b < T->nblk; b++) {
        T->ml[b].T = T;
        T->ml[b].lin = b;
        T->ml[b].off = -1;
    }
}

void tamm__ml_tensor_free(tamm_tensor *T)
{
    if (!T->ml) return;
    pthread_mutex_lock(&tamm__ml_mlk);
    for (;;) { /* (its pins are gone: the I/O thread stops soon; other units' copies land soon) */
        int busy = (io_cur && io_cur->T == T) || (io_clean && io_clean->T == T);
        for (long b = 0; b < T->nblk && !busy; b++) busy = T->ml[b].holds > 0;
        if (!busy) break;
        pthread_cond_wait(&tamm__ml_io_idle, &tamm__ml_mlk);
    }
    int keep = 0;
    for (int i = 0; i < ioq_n; i++) { /* drop its blocks from the read-ahead queue */
        tamm__mblk *q = ioq[(ioq_head + i) % ioq_cap];
        if (q->T != T) ioq[(ioq_head + keep++) % ioq_cap] = q;
    }
    ioq_n = keep;
    /* a home leaves the LRU and the bytes in use together (under mlk): room() never sees bytes
     * in use that no list holds (it would find nothing evictable and go over the limit) */
    for (long b = 0; b < T->nblk; b++) {
        tamm__mblk *m = &T->ml[b];
        tamm__block_s *blk = &T->blocks[b];
        lru_remove(m);
        if (m->toppin) tamm__ml_top_drop(m);
        slot_free(m->off, blk->bytes);
        if (blk->home) {
            spare_put(blk->home, blk->bytes);
            blk->home = NULL;
        }
    }
    pthread_mutex_unlock(&tamm__ml_mlk);
    free(T->ml);
    T->ml = NULL;
}

/* A streaming scope's last use of block lin is over (scope.c): its home and
 * spill slot are freed, its data forgotten.  The caller holds the block
 * (a permission-only write task), so no other task uses it. */
void tamm__ml_release(tamm_tensor *T, long lin)
{
    tamm__block_s *b = &T->blocks[lin];
    tamm__mblk *m = &T->ml[lin];
    pthread_mutex_lock(&tamm__ml_mlk);
    while (io_cur == m || io_clean == m || m->holds) pthread_cond_wait(&tamm__ml_io_idle, &tamm__ml_mlk);
    if (m->ioq) { /* queued for read-ahead (pinned by the releasing task): nothing to read any more */
        int keep = 0;
        for (int i = 0; i < ioq_n; i++) {
            tamm__mblk *q = ioq[(ioq_head + i) % ioq_cap];
            if (q != m) ioq[(ioq_head + keep++) % ioq_cap] = q;
        }
        ioq_n = keep;
        m->ioq = 0;
        tamm__ml_unpark_and_push(); /* (none waits for it: the releasing task holds the block) */
    }
    pthread_mutex_unlock(&tamm__ml_mlk);
    /* the block lock, then mlk (their order): the home leaves the LRU and the bytes in use
     * together, as in evict_one, so that room() never counts bytes that no list holds */
    tamm__spin_lock(&b->lock);
    pthread_mutex_lock(&tamm__ml_mlk);
    /* the releasing task holds the block without a buffer: Unalloc with RC 0 stays consistent */
    TAMM_ASSERT(b->units[0].rc == 0 && !b->units[0].pending);
    lru_remove(m);
    if (m->toppin) tamm__ml_top_drop(m);
    slot_free(m->off, b->bytes);
    m->off = -1;
    void *p = b->home;
    b->home = NULL;
    b->units[0].buf = NULL;
    b->units[0].state = TAMM_BS_UNALLOC;
    m->valid = 0;
    m->dirty = 0;
    spare_put(p, b->bytes);
    pthread_mutex_unlock(&tamm__ml_mlk);
    tamm__spin_unlock(&b->lock);
}

/* The home of block lin, made resident; overwrite: its contents are about to
 * be replaced whole (another unit's Put), so nothing is read back and the home
 * is dirty.  Block lock held. */
void *tamm__ml_home_in(tamm_tensor *T, long lin, int overwrite)
{
    tamm__block_s *b = &T->blocks[lin];
    tamm__mblk *m = &T->ml[lin];
    size_t bytes = b->bytes;
    TAMM_ASSERT(!b->home); /* made resident once (under the block lock, or by its sole user) */
    pthread_mutex_lock(&tamm__ml_mlk);
    void *p = room(bytes);
    pthread_mutex_unlock(&tamm__ml_mlk);
    int zeroed = 0;
    if (!p) p = raw_alloc(bytes, &zeroed);
    if (!p) tamm__fatal_oom(bytes);
    if (overwrite) {
        m->dirty = 1;
        b->home = p;
        pthread_mutex_lock(&tamm__ml_mlk);
        tamm__ml_lru_front(m);
        pthread_mutex_unlock(&tamm__ml_mlk);
        return p;
    }
    if (m->valid) { /* the Get: read back what was spilled */
        uint64_t t0 = TAMM_UNLIKELY(tamm__rt.recording) ? tamm__now_ns() : 0;
        size_t done = 0;
        while (done < bytes) {
            ssize_t r = pread(fd, (char *)p + done, bytes - done, (off_t)(m->off + (int64_t)done));
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) {
                char bn[128];
                tamm__error(NULL, TAMM_ENOMEM, "TAMM_MEMORY_LIMIT: cannot read %s back from the spill file (%s)",
                            tamm__block_name(T, lin, bn, sizeof bn), r < 0 ? strerror(errno) : "short file");
                break;
            }
            done += (size_t)r;
        }
        atomic_fetch_add(&tamm__ml_st.readback, bytes);
        atomic_fetch_add(&tamm__ml_st.reads, 1);
        tamm__worker *w = tamm__self();
        if (w && w->cur_ctx)
            atomic_fetch_add(&tamm__ml_st.in_task, 1); /* a stall: a task's body waited for this read */
        if (TAMM_UNLIKELY(tamm__rt.recording)) record_io(0, T, lin, bytes, t0);
    } else if (T->opts.gen) { /* an on-demand block: made again rather than spilled */
        long idx[TAMM_MAX_DIMS];
        tamm__block_idx(T, lin, idx);
        T->opts.gen(T, idx, p, T->opts.gen_arg);
        if (m->made) atomic_fetch_add(&tamm__ml_st.regen, 1);
        m->made = 1;
    } else if (!zeroed) { /* a block never written: zeros, as a fresh mapping would be */
        memset(p, 0, bytes);
    }
    m->dirty = 0;
    b->home = p;
    pthread_mutex_lock(&tamm__ml_mlk);
    tamm__ml_lru_front(m);
    pthread_mutex_unlock(&tamm__ml_mlk);
    return p;
}

void *tamm__ml_home(tamm_tensor *T, long lin) { return tamm__ml_home_in(T, lin, 0); }

void tamm__ml_dirty(tamm_tensor *T, long lin)
{
    if (T->ml) T->ml[lin].dirty = 1;
}

/* ------------------------------------------------------------------ */
/* read-ahead and write-back ahead: the I/O thread                       */
/* ------------------------------------------------------------------ */
/* Whether block m is queued for or under a read-back.  mlk held. */
int tamm__ml_read_pending(const tamm__mblk *m) { return m->ioq || io_cur == m; }

/* Write back ahead: the execution FSM's FLUSH row on the host unit, run by
 * the I/O thread.  A dirty block among the least recently used quarter of the
 * limit, which no task holds (RC = 0, nothing pending) or has reserved, is
 * written to its slot; the unit goes _Dirty -> _Ready (its Put is no copy: the
 * unit's buffer is the home) and the block is clean, so that its eviction
 * only drops it.  The block lock is held through the write, so nothing can
 * change the home meanwhile; whatever changes it later makes it dirty again
 * (a write or accumulation through the FSM, tamm__ml_dirty, a top-level
 * pointer), all under the block lock.  mlk held (dropped during the write).
 * 1: one was written. */
static int clean_one(void)
{
    if (spill_broken || !memory_high()) return 0;
    size_t seen = 0;
    for (tamm__mblk *m = lru.prev; m != &lru && seen < tamm__ml_limit / 4; m = m->prev) {
        tamm__block_s *b = &m->T->blocks[m->lin];
        seen += b->bytes;
        if (m->pins || m->toppin) continue;
        if (!spin_trylock(&b->lock)) continue;
        tamm__unit_state *u = &b->units[0];
        size_t bytes = b->bytes;
        /* the FSM decides: _Dirty (RC 0) flushes with a Put; _DirtyAcc would need an AccAll
         * (a sum, not a write-back), and the other states flush with nothing to do */
        tamm__blk_step_t st = tamm__blk_step((tamm__blk_state)u->state, u->rc, u->pending, TAMM_BOP_FLUSH);
        int dirty = m->dirty || u->state == TAMM_BS_DIRTY;
        if (!b->home || !dirty || u->pending || st.result != TAMM_BLK_OK || (st.actions & ~(unsigned)TAMM_ACT_PUT) ||
            slot_prepare(m, bytes)) {
            tamm__spin_unlock(&b->lock);
            continue;
        }
        io_clean = m; /* its tensor lives on until io_clean is cleared (tensor_free waits) */
        pthread_mutex_unlock(&tamm__ml_mlk);
        uint64_t t0 = TAMM_UNLIKELY(tamm__rt.recording) ? tamm__now_ns() : 0;
        int e = slot_write(m, b->home, bytes);
        pthread_mutex_lock(&tamm__ml_mlk);
        if (e) {
            spill_failed(m, bytes, e); /* it stays dirty, in memory */
        } else {
            m->valid = 1;
            m->dirty = 0;
            /* FLUSH leaves the unit clean and keeps its RC (the table's rows: _Dirty needs RC 0; _Ready,
             * which a block only m->dirty marks may be in, is a no-op at any RC, readers included) */
            TAMM_ASSERT(st.next != TAMM_BS_DIRTY && st.next != TAMM_BS_DIRTYACC && st.rc == u->rc);
            u->state = (unsigned char)st.next;
            u->rc = st.rc;
            spill_counted(m, bytes, t0);
            atomic_fetch_add(&tamm__ml_st.ahead_w, 1);
        }
        tamm__spin_unlock(&b->lock);
        io_clean = NULL;
        pthread_cond_broadcast(&tamm__ml_io_idle);
        return !e;
    }
    return 0;
}

static void *io_main(void *arg)
{
    (void)arg;
    on_io_thread = 1;
    pthread_mutex_lock(&tamm__ml_mlk);
    for (;;) {
        while (!ioq_n && !io_stop && !clean_wanted) pthread_cond_wait(&io_cond, &tamm__ml_mlk);
        if (io_stop) break;
        if (!ioq_n) { /* nothing to read: write back ahead while memory is full */
            if (!clean_one()) clean_wanted = 0;
            continue;
        }
        tamm__mblk *m = ioq[ioq_head];
        ioq_head = (ioq_head + 1) % ioq_cap;
        ioq_n--;
        m->ioq = 0;
        if (!m->pins || m->in_lru) { /* its task is done already, or it is resident */
            tamm__ml_unpark_and_push();
            continue;
        }
        io_cur = m; /* pinned: its tensor lives at least until io_cur is cleared (tensor_free waits) */
        /* a pin of its own while it reads: the block stays reserved until it is in the LRU, even
         * if its task runs (having read it itself) and ends, and another eviction spills it again
         * meanwhile — else this read-back would be resident memory no reservation or list holds,
         * and room() would find nothing evictable (test_stream's 2M case went over so) */
        m->pins++;
        pthread_mutex_unlock(&tamm__ml_mlk);
        tamm_tensor *T = m->T;
        tamm__block_s *b = &T->blocks[m->lin];
        tamm__spin_lock(&b->lock);
        int ahead = !b->home;
        if (ahead) tamm__block_home(T, m->lin); /* the Get; the task's Allocate then finds the home */
        tamm__spin_unlock(&b->lock);
        if (ahead) atomic_fetch_add(&tamm__ml_st.ahead, 1);
        pthread_mutex_lock(&tamm__ml_mlk);
        tamm__ml_unpin_mblk(m, T->blocks[m->lin].bytes); /* (its tasks are done at 0: evictable now) */
        io_cur = NULL;
        pthread_cond_broadcast(&tamm__ml_io_idle);
        tamm__ml_unpark_and_push();
        if (tamm__ml_wake) { /* a unit's task may have been waiting for this read */
            pthread_mutex_unlock(&tamm__ml_mlk);
            tamm__ml_wake_units();
            pthread_mutex_lock(&tamm__ml_mlk);
        }
    }
    pthread_mutex_unlock(&tamm__ml_mlk);
    return NULL;
}

/* Start the I/O thread if it is not running.  mlk held.  0: it runs. */
static int io_start(void)
{
    if (!io_started) {
        if (pthread_create(&io_thread, NULL, io_main, NULL)) return -1; /* no read-ahead: tasks read on use */
        io_started = 1;
    }
    return 0;
}

/* Queue m for read-ahead.  mlk held. */
void tamm__ml_io_enqueue(tamm__mblk *m)
{
    if (io_start()) return;
    if (ioq_n == ioq_cap) {
        int nc = ioq_cap ? 2 * ioq_cap : 64;
        tamm__mblk **nq = tamm__xmalloc((size_t)nc * sizeof *nq);
        for (int i = 0; i < ioq_n; i++) nq[i] = ioq[(ioq_head + i) % ioq_cap];
        free(ioq);
        ioq = nq;
        ioq_cap = nc;
        ioq_head = 0;
    }
    ioq[(ioq_head + ioq_n) % ioq_cap] = m;
    ioq_n++;
    m->ioq = 1;
    pthread_cond_signal(&io_cond);
}

/* A task's pins went back (memlimit.c's unpin_and_drain): its blocks may be dirty and evictable
 * now.  mlk held. */
void tamm__ml_clean_ahead(void)
{
    if (!clean_wanted && !spill_broken && memory_high() && !io_start()) {
        clean_wanted = 1;
        pthread_cond_signal(&io_cond);
    }
}

int tamm__ml_busy(void)
{
    if (!tamm__ml_on) return 0;
    pthread_mutex_lock(&tamm__ml_mlk);
    int busy = tamm__ml_nparked || ioq_n || io_cur;
    pthread_mutex_unlock(&tamm__ml_mlk);
    return busy;
}

/* ------------------------------------------------------------------ */
/* other memory units (memlimit.h)                                       */
/* ------------------------------------------------------------------ */
size_t tamm__ml_chunk(void)
{
    size_t c = tamm__ml_limit / 64;
    if (c > ((size_t)1 << 20)) c = (size_t)1 << 20;
    c &= ~(size_t)63; /* whole elements of every type */
    return c < 64 ? 64 : c;
}

/* pread all of n bytes at off; 0 or an errno */
static int read_all(void *p, size_t n, int64_t off)
{
    size_t done = 0;
    while (done < n) {
        ssize_t r = pread(fd, (char *)p + done, n - done, (off_t)(off + (int64_t)done));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return r < 0 ? errno : EIO;
        done += (size_t)r;
    }
    return 0;
}

/* pwrite all of n bytes at off; 0 or an errno */
static int write_all(const void *p, size_t n, int64_t off)
{
    size_t done = 0;
    while (done < n) {
        ssize_t w = pwrite(fd, (const char *)p + done, n - done, (off_t)(off + (int64_t)done));
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return w < 0 ? errno : ENOSPC;
        done += (size_t)w;
    }
    return 0;
}

int tamm__ml_store(tamm_tensor *T, long lin, int add, int (*fetch)(void *arg, void *dst, size_t off, size_t n), void *arg,
                   void *buf, void *buf2)
{
    tamm__block_s *b = &T->blocks[lin];
    tamm__mblk *m = &T->ml[lin];
    size_t bytes = b->bytes, chunk = tamm__ml_chunk();
    /* the block lock for the whole store: the home can be neither evicted nor made resident
     * meanwhile, and a sum from another unit into the same block waits */
    tamm__spin_lock(&b->lock);
    if (b->home) {
        /* A resident home no one holds is evicted first (written back for a sum; a Put replaces it
         * whole): kept through the store, it would be memory no reservation covers and no
         * eviction can take (the caller found no room beside the reservations).  A home that is
         * pinned is reserved already: stored into. */
        tamm__unit_state *u = &b->units[0];
        pthread_mutex_lock(&tamm__ml_mlk);
        if (!m->pins && !m->toppin && !u->rc && !u->pending) (void)evict_locked(m, !add);
        pthread_mutex_unlock(&tamm__ml_mlk);
    }
    if (b->home) { /* resident (held, or the spill file failed): into the home */
        for (size_t off = 0; off < bytes; off += chunk) {
            size_t n = bytes - off < chunk ? bytes - off : chunk;
            if (fetch(arg, buf, off, n)) break; /* (the unit reported its failure) */
            if (add) tamm__accumulate(T->dtype, (char *)b->home + off, buf, n / T->esize);
            else memcpy((char *)b->home + off, buf, n);
        }
        m->dirty = 1;
        tamm__spin_unlock(&b->lock);
        atomic_fetch_add(&tamm__ml_st.stores, 1);
        return 0;
    }
    /* A sum needs what the block holds: its spill slot, or zeros for a block never written;
     * a generated block never written would have to be generated whole (the caller holds the home) */
    int old = m->valid;
    if (add && !old && T->opts.gen) {
        tamm__spin_unlock(&b->lock);
        return -1;
    }
    pthread_mutex_lock(&tamm__ml_mlk);
    if (spill_broken || spill_open()) {
        spill_broken = 1;
        pthread_mutex_unlock(&tamm__ml_mlk);
        tamm__spin_unlock(&b->lock);
        return -1;
    }
    /* a fresh slot: the old one stays good until the whole block is written */
    int64_t noff = slot_alloc(bytes);
    pthread_mutex_unlock(&tamm__ml_mlk);
    uint64_t t0 = TAMM_UNLIKELY(tamm__rt.recording) ? tamm__now_ns() : 0;
    int e = 0, fetched = 1;
    for (size_t off = 0; off < bytes && !e && fetched; off += chunk) {
        size_t n = bytes - off < chunk ? bytes - off : chunk;
        if (fetch(arg, buf, off, n)) { fetched = 0; break; }
        if (add && old) {
            e = read_all(buf2, n, m->off + (int64_t)off);
            if (!e) tamm__accumulate(T->dtype, buf, buf2, n / T->esize);
        }
        if (!e) e = write_all(buf, n, noff + (int64_t)off);
    }
    pthread_mutex_lock(&tamm__ml_mlk);
    if (e || !fetched) {
        slot_free(noff, bytes);
        if (e) spill_report(m, bytes, e); /* spilling stops; the old slot is still good */
        pthread_mutex_unlock(&tamm__ml_mlk);
        tamm__spin_unlock(&b->lock);
        return -1;
    }
    slot_free(m->off, bytes);
    m->off = noff;
    m->valid = 1;
    m->dirty = 0;
    pthread_mutex_unlock(&tamm__ml_mlk);
    tamm__spin_unlock(&b->lock);
    spill_counted(m, bytes, t0);
    atomic_fetch_add(&tamm__ml_st.stores, 1);
    return 0;
}
