/* memlimit.c — host memory as a bounded memory unit (see memlimit.h). */
#include "memlimit.h"
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
#include <unistd.h>

int tamm__ml_on;

/* Blocks of at least this size get a mapping of their own, so that freeing
 * them gives the memory back to the system at once (malloc's arenas would keep
 * it, one arena per worker thread).  Smaller ones come from calloc. */
#define ML_MMAP_MIN (64u << 10)

static size_t limit;
static pthread_mutex_t mlk = PTHREAD_MUTEX_INITIALIZER; /* everything below; taken after a block lock, never before */
static tamm__mblk lru = { .prev = &lru, .next = &lru }; /* next: most recent, prev: least */
static size_t reserved;     /* bytes of blocks pinned by admitted tasks, and their private buffers */
static size_t top_bytes;    /* bytes pinned by top-level tamm_block */
static int nadmitted;       /* admitted tasks whose body (or unit's work) has not returned (the MPI flow's message tasks aside) */
static int nholds;          /* other units' holds on homes (tamm__ml_hold) */
static size_t fixed;        /* memory units keep for themselves (tamm__ml_fixed) */
static size_t fixed_max;    /* (TAMM_STATS) */
static int test_store;      /* TAMM_MEMORY_TEST_STORE=1 (tests only): no write-back from a unit holds a home */
static tamm__task_s *qhead, *qtail; /* tasks waiting for memory, FIFO (linked by t->next) */
static tamm__mblk **tops;    /* top-level pins, oldest first */
static int ntops, ctops;
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
static pthread_cond_t io_idle = PTHREAD_COND_INITIALIZER;  /* io_cur changed */
static tamm__mblk **ioq;      /* blocks to read back, FIFO ring */
static int ioq_head, ioq_n, ioq_cap;
static tamm__mblk *io_cur;    /* the block the I/O thread is reading back */
static tamm__mblk *io_clean;  /* the block the I/O thread is writing back ahead of its eviction */
static int clean_wanted;     /* memory is three-quarters full: write dirty blocks back ahead */
/* admitted tasks whose spilled blocks are still being read back: they hold no
 * worker meanwhile, and the I/O thread queues each once its reads are done
 * (the scheduler is given only tasks whose blocks are resident) */
static tamm__task_s *phead, *ptail; /* linked by t->next, in admission order */
static int nparked;
/* TAMM_STATS */
static atomic_ullong st_holds, st_holds_over, st_stores, st_ahead_w, st_in_task, st_parked, st_msg_over, st_nested_over, st_ahead, st_spilled, st_writes, st_readback, st_reads, st_evict, st_drop, st_regen, st_waits, st_wait_ns,
    st_over;

static void spare_drop(void);
static void unpark_and_push(void);
static void drain_locked(tamm__task_s **go, tamm__task_s **bad);
static void drained(tamm__task_s *go, tamm__task_s *bad);

void (*tamm__ml_wake)(void);
static inline void wake_units(void)
{
    if (tamm__ml_wake) tamm__ml_wake();
}
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
static inline int memory_high(void) { return tamm__mem_in_use() >= limit - limit / 4; }

static inline int spin_trylock(tamm__spin *l)
{
    return !atomic_load_explicit(&l->v, memory_order_relaxed) &&
           !atomic_exchange_explicit(&l->v, 1, memory_order_acquire);
}

void tamm__ml_init(size_t lim, int nranks)
{
    (void)nranks; /* under MPI the limit covers each rank's homes and copies alike (memlimit.h) */
    tamm__ml_on = lim > 0; /* with GPUs too: their copies hold the homes they use (tamm__ml_hold) */
    const char *ts = getenv("TAMM_MEMORY_TEST_STORE");
    test_store = ts && *ts == '1';
    tamm__task_extra = (tamm__task_extra & TAMM_EXTRA_ROUTE) | (tamm__ml_on ? TAMM_EXTRA_MEMLIMIT : 0);
    limit = lim;
    reserved = top_bytes = fixed = fixed_max = 0;
    nadmitted = nholds = 0;
    qhead = qtail = NULL;
    lru.next = lru.prev = &lru;
    spill_broken = 0;
    fend = 0;
    nfree = 0;
    ntops = 0;
    atomic_store(&st_spilled, 0); atomic_store(&st_writes, 0); atomic_store(&st_readback, 0);
    atomic_store(&st_reads, 0); atomic_store(&st_evict, 0); atomic_store(&st_drop, 0);
    atomic_store(&st_regen, 0); atomic_store(&st_waits, 0); atomic_store(&st_wait_ns, 0);
    atomic_store(&st_over, 0);
    atomic_store(&st_ahead, 0);
    atomic_store(&st_nested_over, 0);
    atomic_store(&st_msg_over, 0);
    atomic_store(&st_parked, 0);
    atomic_store(&st_in_task, 0);
    atomic_store(&st_ahead_w, 0);
    atomic_store(&st_holds, 0);
    atomic_store(&st_holds_over, 0);
    atomic_store(&st_stores, 0);
    io_clean = NULL;
    clean_wanted = 0;
    phead = ptail = NULL;
    nparked = 0;
    io_stop = 0;
    ioq_head = ioq_n = 0;
    io_cur = NULL;
}

void tamm__ml_fini(void)
{
    if (io_started) {
        pthread_mutex_lock(&mlk);
        io_stop = 1;
        pthread_cond_signal(&io_cond);
        pthread_mutex_unlock(&mlk);
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
    free(tops);
    tops = NULL;
    ctops = ntops = 0;
    pthread_mutex_lock(&mlk); /* (alone by now, but spare_drop's precondition holds) */
    while (nspares) spare_drop();
    pthread_mutex_unlock(&mlk);
    tamm__ml_on = 0;
    tamm__task_extra &= ~TAMM_EXTRA_MEMLIMIT;
}

void tamm__ml_stats(FILE *f, int r)
{
    if (!tamm__ml_on) return;
    fprintf(f, "tamm stats: rank %d: memory limit %zu bytes: %llu evictions (%llu dropped clean or regenerable), "
               "%llu bytes spilled in %llu writes (%llu ahead of their eviction, on the I/O thread), %llu bytes read back in %llu reads (%llu ahead of their task, on the "
               "I/O thread; %llu by a running task, which waited; %llu tasks queued only once their blocks were read back), "
               "%llu blocks regenerated, "
               "%llu tasks waited for memory (%.1f ms in all), %llu nested tasks admitted beyond the reservations, "
               "%llu message tasks admitted beyond the reservations, %llu allocations over the limit (nothing evictable)\n",
            r, limit, (unsigned long long)st_evict, (unsigned long long)st_drop, (unsigned long long)st_spilled,
            (unsigned long long)st_writes, (unsigned long long)st_ahead_w, (unsigned long long)st_readback, (unsigned long long)st_reads,
            (unsigned long long)st_ahead, (unsigned long long)st_in_task, (unsigned long long)st_parked, (unsigned long long)st_regen, (unsigned long long)st_waits, (double)st_wait_ns / 1e6,
            (unsigned long long)st_nested_over, (unsigned long long)st_msg_over, (unsigned long long)st_over);
    if (atomic_load(&st_holds) || atomic_load(&st_stores) || fixed_max)
        fprintf(f, "tamm stats: rank %d: memory limit and other units: %llu copies held homes (%llu beyond the "
                   "reservations), %llu blocks stored back without a home (%zu bytes kept for that)\n",
                r, (unsigned long long)st_holds, (unsigned long long)st_holds_over, (unsigned long long)st_stores, fixed_max);
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
    TAMM_ASSERT(tamm__mutex_held(&mlk));
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
    TAMM_ASSERT(tamm__mutex_held(&mlk));
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
    TAMM_ASSERT(tamm__mutex_held(&mlk) && nspares > 0);
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

static void lru_front(tamm__mblk *m)
{
    TAMM_ASSERT(tamm__mutex_held(&mlk));
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
    atomic_fetch_add(&st_spilled, bytes);
    atomic_fetch_add(&st_writes, 1);
    if (TAMM_UNLIKELY(tamm__rt.recording)) record_io(1, m->T, m->lin, bytes, t0);
}

/* Write block m (home p) to its slot.  mlk and the block lock held. 0: done. */
static int spill_write(tamm__mblk *m, const void *p, size_t bytes)
{
    TAMM_ASSERT(tamm__mutex_held(&mlk) && tamm__spin_held(&m->T->blocks[m->lin].lock));
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
    TAMM_ASSERT(tamm__mutex_held(&mlk) && tamm__spin_held(&b->lock));
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
        atomic_fetch_add(&st_drop, 1);
    }
    void *p = b->home;
    b->home = NULL;
    u->buf = NULL;
    u->state = TAMM_BS_UNALLOC;
    u->rc = 0;
    lru_remove(m);
    spare_put(p, bytes);
    atomic_fetch_add(&st_evict, 1);
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

/* Make room for `bytes` more and count them in: a spare of that size (returned:
 * the caller uses it), else NULL (the caller allocates).  mlk held (dropped
 * and taken again while a candidate's lock is busy: its holder may need mlk). */
static void *room(size_t bytes)
{
    TAMM_ASSERT(tamm__mutex_held(&mlk));
    int tries = 0;
    for (;;) {
        void *p = spare_take(bytes);
        if (p) return p;
        if (tamm__mem_in_use() + bytes <= limit) break;
        if (nspares) {
            spare_drop();
            continue;
        }
        int r = evict_one();
        if (r == 1) continue;
        if (r == 2 && tries++ < 1000) { /* a transient lock (bounded: never a livelock) */
            pthread_mutex_unlock(&mlk);
            sched_yield();
            pthread_mutex_lock(&mlk);
            continue;
        }
        atomic_fetch_add(&st_over, 1);
        break;
    }
    tamm__mem_add(bytes);
    return NULL;
}

void *tamm__ml_buf_get(size_t bytes)
{
    pthread_mutex_lock(&mlk);
    void *p = room(bytes);
    pthread_mutex_unlock(&mlk);
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
    pthread_mutex_lock(&mlk);
    spare_put(p, bytes);
    pthread_mutex_unlock(&mlk);
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

static void top_drop_at(int i)
{
    TAMM_ASSERT(i >= 0 && i < ntops);
    tamm__mblk *m = tops[i];
    TAMM_ASSERT(m->toppin && top_bytes >= m->T->blocks[m->lin].bytes);
    m->toppin = 0;
    top_bytes -= m->T->blocks[m->lin].bytes;
    memmove(&tops[i], &tops[i + 1], (size_t)(ntops - i - 1) * sizeof *tops);
    ntops--;
}

static void top_drop(tamm__mblk *m)
{
    for (int i = 0; i < ntops; i++)
        if (tops[i] == m) {
            top_drop_at(i);
            return;
        }
}

void tamm__ml_tensor_free(tamm_tensor *T)
{
    if (!T->ml) return;
    pthread_mutex_lock(&mlk);
    for (;;) { /* (its pins are gone: the I/O thread stops soon; other units' copies land soon) */
        int busy = (io_cur && io_cur->T == T) || (io_clean && io_clean->T == T);
        for (long b = 0; b < T->nblk && !busy; b++) busy = T->ml[b].holds > 0;
        if (!busy) break;
        pthread_cond_wait(&io_idle, &mlk);
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
        if (m->toppin) top_drop(m);
        slot_free(m->off, blk->bytes);
        if (blk->home) {
            spare_put(blk->home, blk->bytes);
            blk->home = NULL;
        }
    }
    pthread_mutex_unlock(&mlk);
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
    pthread_mutex_lock(&mlk);
    while (io_cur == m || io_clean == m || m->holds) pthread_cond_wait(&io_idle, &mlk);
    if (m->ioq) { /* queued for read-ahead (pinned by the releasing task): nothing to read any more */
        int keep = 0;
        for (int i = 0; i < ioq_n; i++) {
            tamm__mblk *q = ioq[(ioq_head + i) % ioq_cap];
            if (q != m) ioq[(ioq_head + keep++) % ioq_cap] = q;
        }
        ioq_n = keep;
        m->ioq = 0;
        unpark_and_push(); /* (none waits for it: the releasing task holds the block) */
    }
    pthread_mutex_unlock(&mlk);
    /* the block lock, then mlk (their order): the home leaves the LRU and the bytes in use
     * together, as in evict_one, so that room() never counts bytes that no list holds */
    tamm__spin_lock(&b->lock);
    pthread_mutex_lock(&mlk);
    /* the releasing task holds the block without a buffer: Unalloc with RC 0 stays consistent */
    TAMM_ASSERT(b->units[0].rc == 0 && !b->units[0].pending);
    lru_remove(m);
    if (m->toppin) top_drop(m);
    slot_free(m->off, b->bytes);
    m->off = -1;
    void *p = b->home;
    b->home = NULL;
    b->units[0].buf = NULL;
    b->units[0].state = TAMM_BS_UNALLOC;
    m->valid = 0;
    m->dirty = 0;
    spare_put(p, b->bytes);
    pthread_mutex_unlock(&mlk);
    tamm__spin_unlock(&b->lock);
}

/* The home of block lin, made resident; overwrite: its contents are about to
 * be replaced whole (another unit's Put), so nothing is read back and the home
 * is dirty.  Block lock held. */
static void *home_in(tamm_tensor *T, long lin, int overwrite)
{
    tamm__block_s *b = &T->blocks[lin];
    tamm__mblk *m = &T->ml[lin];
    size_t bytes = b->bytes;
    TAMM_ASSERT(!b->home); /* made resident once (under the block lock, or by its sole user) */
    pthread_mutex_lock(&mlk);
    void *p = room(bytes);
    pthread_mutex_unlock(&mlk);
    int zeroed = 0;
    if (!p) p = raw_alloc(bytes, &zeroed);
    if (!p) tamm__fatal_oom(bytes);
    if (overwrite) {
        m->dirty = 1;
        b->home = p;
        pthread_mutex_lock(&mlk);
        lru_front(m);
        pthread_mutex_unlock(&mlk);
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
        atomic_fetch_add(&st_readback, bytes);
        atomic_fetch_add(&st_reads, 1);
        tamm__worker *w = tamm__self();
        if (w && w->cur_ctx) atomic_fetch_add(&st_in_task, 1); /* a stall: a task's body waited for this read */
        if (TAMM_UNLIKELY(tamm__rt.recording)) record_io(0, T, lin, bytes, t0);
    } else if (T->opts.gen) { /* an on-demand block: made again rather than spilled */
        long idx[TAMM_MAX_DIMS];
        tamm__block_idx(T, lin, idx);
        T->opts.gen(T, idx, p, T->opts.gen_arg);
        if (m->made) atomic_fetch_add(&st_regen, 1);
        m->made = 1;
    } else if (!zeroed) { /* a block never written: zeros, as a fresh mapping would be */
        memset(p, 0, bytes);
    }
    m->dirty = 0;
    b->home = p;
    pthread_mutex_lock(&mlk);
    lru_front(m);
    pthread_mutex_unlock(&mlk);
    return p;
}

void *tamm__ml_home(tamm_tensor *T, long lin) { return home_in(T, lin, 0); }

void tamm__ml_dirty(tamm_tensor *T, long lin)
{
    if (T->ml) T->ml[lin].dirty = 1;
}

void tamm__ml_top_pin(tamm_tensor *T, long lin)
{
    if (!T->ml) return;
    tamm__mblk *m = &T->ml[lin];
    m->dirty = 1; /* top-level code may write through the pointer */
    pthread_mutex_lock(&mlk);
    if (!m->toppin) {
        if (ntops == ctops) {
            ctops = ctops ? 2 * ctops : 16;
            tops = tamm__xrealloc(tops, (size_t)ctops * sizeof *tops);
        }
        tops[ntops++] = m;
        m->toppin = 1;
        top_bytes += T->blocks[lin].bytes;
        while (top_bytes > limit / 2 && ntops > 1) top_drop_at(0); /* the oldest top-level pointer goes */
    }
    if (m->in_lru) lru_front(m);
    pthread_mutex_unlock(&mlk);
}

/* gather / scatter: one block at a time, on the program's thread, so a flag suffices */
void tamm__ml_pin(tamm_tensor *T, long lin)
{
    if (!T->ml) return;
    pthread_mutex_lock(&mlk);
    T->ml[lin].pins++;
    pthread_mutex_unlock(&mlk);
}

void tamm__ml_unpin(tamm_tensor *T, long lin)
{
    if (!T->ml) return;
    pthread_mutex_lock(&mlk);
    TAMM_ASSERT(T->ml[lin].pins > 0); /* every unpin follows its pin */
    T->ml[lin].pins--;
    pthread_mutex_unlock(&mlk);
}

/* ------------------------------------------------------------------ */
/* admission                                                             */
/* ------------------------------------------------------------------ */
/* A private buffer the task may need for the block beside it: an accumulation
 * (zeroed partial sum) or a cancellable access (private copy). */
static inline size_t extra_of(const tamm__dep *d, size_t bytes)
{
    return (d->perm & (TAMM_ACCUM | TAMM_CANCELLABLE)) ? bytes : 0;
}

/* One pin on m goes back; at 0 its bytes are no longer reserved.  mlk held. */
static void unpin(tamm__mblk *m, size_t bytes)
{
    TAMM_ASSERT(tamm__mutex_held(&mlk));
    TAMM_ASSERT(m->pins > 0); /* pins and unpins balance: never below zero */
    if (--m->pins == 0) {
        TAMM_ASSERT(reserved >= bytes);
        reserved -= bytes;
    }
}

/* `bytes` of private buffers are no longer reserved.  mlk held. */
static void unreserve(size_t bytes)
{
    TAMM_ASSERT(reserved >= bytes);
    reserved -= bytes;
}

/* ---- read-ahead ---- */
/* Whether block m is queued for or under a read-back.  mlk held. */
static inline int read_pending(const tamm__mblk *m) { return m->ioq || io_cur == m; }

/* Whether one of t's blocks is still to be read back.  mlk held. */
static int reads_pending(const tamm__task_s *t)
{
    for (int i = 0; i < t->ndep; i++) {
        const tamm__dep *d = &t->dep[i];
        if (d->lin >= 0 && d->T->ml && read_pending(&d->T->ml[d->lin])) return 1;
    }
    return 0;
}

/* Take the parked tasks whose blocks are all resident off the parked list, in
 * order, as a list (linked by next) for the caller to queue after dropping
 * mlk.  mlk held. */
static tamm__task_s *unpark(void)
{
    tamm__task_s *go = NULL, *gotail = NULL, *prev = NULL;
    for (tamm__task_s *t = phead, *n; t; t = n) {
        n = t->next;
        if (reads_pending(t)) {
            prev = t;
            continue;
        }
        if (prev) prev->next = n;
        else phead = n;
        if (ptail == t) ptail = prev;
        TAMM_ASSERT(nparked > 0);
        nparked--;
        t->next = NULL;
        if (gotail) gotail->next = t;
        else go = t;
        gotail = t;
    }
    return go;
}

static void push_all(tamm__task_s *go)
{
    while (go) {
        tamm__task_s *n = go->next;
        go->next = NULL;
        tamm__task_push(go);
        go = n;
    }
}

/* Queue the parked tasks that can run now.  mlk held; dropped while queuing. */
static void unpark_and_push(void)
{
    if (!phead) return;
    tamm__task_s *go = unpark();
    if (!go) return;
    pthread_mutex_unlock(&mlk);
    push_all(go);
    pthread_mutex_lock(&mlk);
}

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
    for (tamm__mblk *m = lru.prev; m != &lru && seen < limit / 4; m = m->prev) {
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
        pthread_mutex_unlock(&mlk);
        uint64_t t0 = TAMM_UNLIKELY(tamm__rt.recording) ? tamm__now_ns() : 0;
        int e = slot_write(m, b->home, bytes);
        pthread_mutex_lock(&mlk);
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
            atomic_fetch_add(&st_ahead_w, 1);
        }
        tamm__spin_unlock(&b->lock);
        io_clean = NULL;
        pthread_cond_broadcast(&io_idle);
        return !e;
    }
    return 0;
}

static void *io_main(void *arg)
{
    (void)arg;
    on_io_thread = 1;
    pthread_mutex_lock(&mlk);
    for (;;) {
        while (!ioq_n && !io_stop && !clean_wanted) pthread_cond_wait(&io_cond, &mlk);
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
            unpark_and_push();
            continue;
        }
        io_cur = m; /* pinned: its tensor lives at least until io_cur is cleared (tensor_free waits) */
        /* a pin of its own while it reads: the block stays reserved until it is in the LRU, even
         * if its task runs (having read it itself) and ends, and another eviction spills it again
         * meanwhile — else this read-back would be resident memory no reservation or list holds,
         * and room() would find nothing evictable (test_stream's 2M case went over so) */
        m->pins++;
        pthread_mutex_unlock(&mlk);
        tamm_tensor *T = m->T;
        tamm__block_s *b = &T->blocks[m->lin];
        tamm__spin_lock(&b->lock);
        int ahead = !b->home;
        if (ahead) tamm__block_home(T, m->lin); /* the Get; the task's Allocate then finds the home */
        tamm__spin_unlock(&b->lock);
        if (ahead) atomic_fetch_add(&st_ahead, 1);
        pthread_mutex_lock(&mlk);
        unpin(m, T->blocks[m->lin].bytes); /* (its tasks are done at 0: evictable now) */
        io_cur = NULL;
        pthread_cond_broadcast(&io_idle);
        unpark_and_push();
        if (tamm__ml_wake) { /* a unit's task may have been waiting for this read */
            pthread_mutex_unlock(&mlk);
            wake_units();
            pthread_mutex_lock(&mlk);
        }
    }
    pthread_mutex_unlock(&mlk);
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
static void io_enqueue(tamm__mblk *m)
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

/* Whether `need` more bytes fit beside the reservations (those of admitted
 * tasks, other units' holds, top-level pointers and what units keep).  mlk held. */
static inline int fits(size_t need) { return reserved + top_bytes + fixed + need <= limit; }
/* Whether something that will give memory back is under way: an admitted body
 * (or a unit's task) or another unit's hold.  Else nothing would ever make room,
 * and the first in line goes whatever it needs.  mlk held. */
static inline int releasing(void) { return nadmitted || nholds; }

/* Try to admit t.  mlk held.  1: admitted (pinned), 2: admitted, but some of
 * its blocks are being read back (park it), 0: does not fit now, -1: can
 * never fit (*total: its footprint).  want (NULL: every block): which
 * spilled blocks to read back before it runs. */
static int try_admit(tamm__task_s *t, size_t *total, tamm_ml_want want, void *warg)
{
    size_t all = 0, need = 0;
    for (int i = 0; i < t->ndep; i++) {
        tamm__dep *d = &t->dep[i];
        if (d->lin < 0 || !d->T->ml) continue; /* whole-tensor accesses: paged on use, not reserved */
        tamm__mblk *m = &d->T->ml[d->lin];
        size_t bytes = d->T->blocks[d->lin].bytes;
        if (m->toppin) top_drop(m); /* a task uses it now: the top-level pointer's time is over */
        all += bytes + extra_of(d, bytes);
        need += (m->pins ? 0 : bytes) + extra_of(d, bytes);
    }
    *total = all;
    int msg = (t->flags & TAMM_TF_PSEUDO) != 0;
    /* (a message task is never refused: an eviction of copies frees its blocks; a block over
     * the limit received for a task is that task's error) */
    if (all > limit && !msg) return -1;
    if ((releasing() || msg) && !fits(need)) {
        /* A nested task never waits: its parent's body may be waiting for it with its own blocks
         * reserved (tamm_cc_taskwait, an undeferred child, TAMM_SEQUENTIAL), and would wait for
         * ever.  It is admitted over the reservations (its blocks still cannot be evicted while it
         * runs); eviction keeps the rest within the limit where it can.  Neither does the MPI
         * flow's side of a block message (send, receive, zeroing of a contribution, eviction of
         * copies): another rank's tasks may wait for it, and that rank's memory for them. */
        if (!t->parent && !msg) return 0;
        atomic_fetch_add(msg ? &st_msg_over : &st_nested_over, 1);
    }
    int reading = 0;
    for (int i = 0; i < t->ndep; i++) {
        tamm__dep *d = &t->dep[i];
        if (d->lin < 0 || !d->T->ml) continue;
        tamm__mblk *m = &d->T->ml[d->lin];
        size_t bytes = d->T->blocks[d->lin].bytes;
        if (m->pins++ == 0) reserved += bytes;
        reserved += extra_of(d, bytes);
        if (m->in_lru) lru_front(m);
        else if (m->valid && !msg && (!want || want(warg, d))) { /* spilled: read it back before the task runs */
            if (!read_pending(m)) io_enqueue(m);
            reading |= read_pending(m); /* (0 if the I/O thread could not start: the task reads on use) */
        }
    }
    if (!msg) nadmitted++; /* a message task's pins may last until its message arrives: not a running body */
    t->flags |= TAMM_TF_MLRES;
    return reading ? 2 : 1;
}

/* t waits for the reads of its blocks, holding no worker.  mlk held. */
static void park(tamm__task_s *t)
{
    t->next = NULL;
    if (ptail) ptail->next = t;
    else phead = t;
    ptail = t;
    nparked++;
    atomic_fetch_add(&st_parked, 1);
}

/* t can never fit: reported, and completed as skipped. */
static TAMM_COLD void fail_task(tamm__task_s *t)
{
    char list[512];
    int o = 0, shown = 0;
    size_t total = 0;
    list[0] = 0;
    for (int i = 0; i < t->ndep; i++) {
        tamm__dep *d = &t->dep[i];
        if (d->lin < 0 || !d->T->ml) continue;
        char bn[128];
        size_t bytes = d->T->blocks[d->lin].bytes;
        total += bytes + extra_of(d, bytes);
        if (o >= 400) continue;
        o += snprintf(list + o, sizeof list - (size_t)o, "%s%s %zu%s", shown++ ? ", " : "",
                      tamm__block_name(d->T, d->lin, bn, sizeof bn), bytes, extra_of(d, bytes) ? " (+ a private buffer)" : "");
    }
    if (o >= 400) snprintf(list + o, sizeof list - (size_t)o, ", ...");
    tamm__error(t, TAMM_ENOMEM, "the task's blocks need %zu bytes (%s), more than TAMM_MEMORY_LIMIT of %zu bytes: "
                "it cannot run (use smaller tiles or a larger limit)", total, list, limit);
    atomic_fetch_add_explicit(&tamm__rt.nskipped, 1, memory_order_relaxed); /* TAMM_STATS */
    tamm__task_body_done(t); /* skipped, so nothing waits forever */
}

int tamm__ml_admit(tamm__task_s *t)
{
    if ((t->flags & (TAMM_TF_SENTINEL | TAMM_TF_DESTROY | TAMM_TF_COLLECTIVE)) || !t->ndep) return 1;
    size_t total = 0;
    int r = 0;
    pthread_mutex_lock(&mlk);
    /* a nested task does not queue behind top-level ones: its parent's body may be waiting for it
     * (tamm_cc_taskwait) with its blocks reserved, which would hold up the line for ever */
    if (!qhead || t->parent || (t->flags & TAMM_TF_PSEUDO)) r = try_admit(t, &total, NULL, NULL);
    if (r == 2) park(t);
    if (r == 0) { /* waits for memory, behind those already waiting */
        t->next = NULL;
        t->ml_since = tamm__now_ns();
        if (qtail) qtail->next = t;
        else qhead = t;
        qtail = t;
    }
    pthread_mutex_unlock(&mlk);
    if (r < 0) fail_task(t);
    return r == 1;
}

int tamm__ml_keep(tamm__task_s *t)
{
    if (!(t->flags & TAMM_TF_MLRES)) return 0;
    t->flags &= ~(unsigned)TAMM_TF_MLRES; /* (on the worker running t's body, which reads it after the body) */
    return 1;
}

static void unpin_and_drain(tamm__task_s *t);

void tamm__ml_done(tamm__task_s *t)
{
    t->flags &= ~(unsigned)TAMM_TF_MLRES;
    unpin_and_drain(t);
}

void tamm__ml_kept_done(tamm__task_s *t) { unpin_and_drain(t); }

/* Admit the tasks waiting for memory that fit now: those to queue into *go,
 * those that can never fit into *bad (lists linked by next), for drained()
 * once mlk is dropped.  mlk held. */
static void drain_locked(tamm__task_s **go, tamm__task_s **bad)
{
    tamm__task_s *gotail = NULL, *badtail = NULL;
    *go = *bad = NULL;
    uint64_t now = tamm__now_ns();
    while (qhead) {
        size_t total = 0;
        int r = try_admit(qhead, &total, NULL, NULL);
        if (r == 0) break;
        tamm__task_s *q = qhead;
        qhead = q->next;
        if (!qhead) qtail = NULL;
        atomic_fetch_add(&st_waits, 1);
        atomic_fetch_add(&st_wait_ns, now - q->ml_since);
        q->next = NULL;
        if (r < 0) {
            if (badtail) badtail->next = q;
            else *bad = q;
            badtail = q;
        } else if (r == 2) {
            park(q);
        } else {
            if (gotail) gotail->next = q;
            else *go = q;
            gotail = q;
        }
    }
}

/* After drain_locked, mlk dropped: queue what was admitted, report what never fits. */
static void drained(tamm__task_s *go, tamm__task_s *bad)
{
    push_all(go);
    while (bad) {
        tamm__task_s *n = bad->next;
        bad->next = NULL;
        fail_task(bad);
        bad = n;
    }
}

/* t's pins go back; the tasks waiting for memory that fit now are admitted. */
static void unpin_and_drain(tamm__task_s *t)
{
    tamm__task_s *go, *bad;
    pthread_mutex_lock(&mlk);
    for (int i = 0; i < t->ndep; i++) {
        tamm__dep *d = &t->dep[i];
        if (d->lin < 0 || !d->T->ml) continue;
        tamm__mblk *m = &d->T->ml[d->lin];
        size_t bytes = d->T->blocks[d->lin].bytes;
        unpin(m, bytes);
        unreserve(extra_of(d, bytes));
    }
    if (!(t->flags & TAMM_TF_PSEUDO)) {
        TAMM_ASSERT(nadmitted > 0);
        nadmitted--;
    }
    /* t's blocks may be dirty and evictable now: while memory is three-quarters full the I/O
     * thread writes such blocks back ahead of their eviction */
    if (!clean_wanted && !spill_broken && memory_high() && !io_start()) {
        clean_wanted = 1;
        pthread_cond_signal(&io_cond);
    }
    drain_locked(&go, &bad);
    pthread_mutex_unlock(&mlk);
    drained(go, bad);
    wake_units();
}

int tamm__ml_busy(void)
{
    if (!tamm__ml_on) return 0;
    pthread_mutex_lock(&mlk);
    int busy = nparked || ioq_n || io_cur;
    pthread_mutex_unlock(&mlk);
    return busy;
}

/* ------------------------------------------------------------------ */
/* other memory units (memlimit.h)                                       */
/* ------------------------------------------------------------------ */
int tamm__ml_admit_unit(tamm__task_s *t, tamm_ml_want want, void *arg)
{
    if ((t->flags & (TAMM_TF_SENTINEL | TAMM_TF_DESTROY | TAMM_TF_COLLECTIVE)) || !t->ndep) return 1;
    size_t total = 0;
    int r = 0;
    pthread_mutex_lock(&mlk);
    /* behind the CPU tasks waiting for memory (they go first), but a nested task never waits:
     * its parent may be waiting for it with its own blocks reserved */
    if (!qhead || t->parent) r = try_admit(t, &total, want, arg);
    if (r == 2) atomic_fetch_add(&st_parked, 1); /* (it waits at its unit, holding nothing there) */
    pthread_mutex_unlock(&mlk);
    if (r < 0) fail_task(t);
    return r;
}

int tamm__ml_reading(const tamm__task_s *t)
{
    pthread_mutex_lock(&mlk);
    int r = reads_pending(t);
    pthread_mutex_unlock(&mlk);
    return r;
}

int tamm__ml_hold(tamm_tensor *T, long lin, size_t extra, unsigned how, void **home)
{
    tamm__mblk *m = &T->ml[lin];
    tamm__block_s *b = &T->blocks[lin];
    size_t bytes = b->bytes;
    pthread_mutex_lock(&mlk);
    size_t need = (m->pins ? 0 : bytes) + extra;
    /* (a home in the LRU is resident; once pinned it stays so) */
    int refuse = (how & TAMM_HOLD_TRY) && (qhead || (releasing() && !fits(need)) || (test_store && !(how & TAMM_HOLD_READ)));
    if (refuse || ((how & TAMM_HOLD_RESIDENT) && !m->in_lru)) {
        pthread_mutex_unlock(&mlk);
        return 0;
    }
    if (!fits(need)) atomic_fetch_add(&st_holds_over, 1);
    if (m->pins++ == 0) reserved += bytes;
    reserved += extra;
    m->holds++;
    nholds++;
    atomic_fetch_add(&st_holds, 1);
    if (m->in_lru) lru_front(m);
    pthread_mutex_unlock(&mlk);
    if (how & (TAMM_HOLD_READ | TAMM_HOLD_OVERWRITE)) {
        tamm__spin_lock(&b->lock);
        void *h = b->home ? b->home : home_in(T, lin, (how & TAMM_HOLD_OVERWRITE) != 0);
        if (how & TAMM_HOLD_OVERWRITE) m->dirty = 1; /* (a resident home: changed outside the FSM) */
        tamm__spin_unlock(&b->lock);
        *home = h;
    }
    return 1;
}

void tamm__ml_unhold(tamm_tensor *T, long lin, size_t extra)
{
    tamm__mblk *m = &T->ml[lin];
    tamm__task_s *go, *bad;
    pthread_mutex_lock(&mlk);
    TAMM_ASSERT(m->holds > 0 && nholds > 0); /* an unhold for every hold */
    unpin(m, T->blocks[lin].bytes);
    unreserve(extra);
    m->holds--;
    nholds--;
    pthread_cond_broadcast(&io_idle); /* (tensor_free and ml_release wait for the holds on their blocks) */
    drain_locked(&go, &bad);
    pthread_mutex_unlock(&mlk);
    drained(go, bad);
    wake_units();
}

size_t tamm__ml_chunk(void)
{
    size_t c = limit / 64;
    if (c > ((size_t)1 << 20)) c = (size_t)1 << 20;
    c &= ~(size_t)63; /* whole elements of every type */
    return c < 64 ? 64 : c;
}

void tamm__ml_fixed(long bytes)
{
    pthread_mutex_lock(&mlk);
    fixed = (size_t)((long)fixed + bytes);
    if (fixed > fixed_max) fixed_max = fixed;
    pthread_mutex_unlock(&mlk);
    if (bytes < 0) wake_units();
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
        pthread_mutex_lock(&mlk);
        if (!m->pins && !m->toppin && !u->rc && !u->pending) (void)evict_locked(m, !add);
        pthread_mutex_unlock(&mlk);
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
        atomic_fetch_add(&st_stores, 1);
        return 0;
    }
    /* A sum needs what the block holds: its spill slot, or zeros for a block never written;
     * a generated block never written would have to be generated whole (the caller holds the home) */
    int old = m->valid;
    if (add && !old && T->opts.gen) {
        tamm__spin_unlock(&b->lock);
        return -1;
    }
    pthread_mutex_lock(&mlk);
    if (spill_broken || spill_open()) {
        spill_broken = 1;
        pthread_mutex_unlock(&mlk);
        tamm__spin_unlock(&b->lock);
        return -1;
    }
    /* a fresh slot: the old one stays good until the whole block is written */
    int64_t noff = slot_alloc(bytes);
    pthread_mutex_unlock(&mlk);
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
    pthread_mutex_lock(&mlk);
    if (e || !fetched) {
        slot_free(noff, bytes);
        if (e) spill_report(m, bytes, e); /* spilling stops; the old slot is still good */
        pthread_mutex_unlock(&mlk);
        tamm__spin_unlock(&b->lock);
        return -1;
    }
    slot_free(m->off, bytes);
    m->off = noff;
    m->valid = 1;
    m->dirty = 0;
    pthread_mutex_unlock(&mlk);
    tamm__spin_unlock(&b->lock);
    spill_counted(m, bytes, t0);
    atomic_fetch_add(&st_stores, 1);
    return 0;
}
