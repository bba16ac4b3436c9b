/*
 * memlimit.h — host memory as a bounded memory unit under TAMM_MEMORY_LIMIT
 * (docs/runtime.md "Block memory", "A memory limit on the host"; the EVICT and
 * FLUSH rows of the execution FSM, docs/runtime.md "Block states", on the host
 * unit).
 *
 * With a limit set, every byte of block memory on the host — homes (pinned
 * where GPUs copy them), private accumulation / temporary / cancellable
 * buffers, other units' staging buffers, and under MPI the copies of other
 * ranks' blocks and the buffers of accumulations received from them — is
 * taken through room() in spill.c, which first evicts least recently used blocks
 * that no running task holds: a block whose host copy may be newer than its
 * copy in the spill file (dirty) is written there first; a clean one, or one
 * a generator (tamm_tensor_create_ex) can make again, is dropped.  A block
 * whose home is absent is read back (or regenerated, or zero-filled) by
 * tamm__block_home, which the FSM's Allocate and every top-level use call.
 *
 * Admission: a task becomes runnable (task_ready) only when the blocks its
 * declared block refs name fit beside those that admitted, still running tasks
 * hold (pins); its pins are given back when its body returns.  Admission also
 * queues the task's spilled blocks for the I/O thread, which reads them back
 * (the FSM's Get) while workers run other tasks; such a task is handed to the
 * scheduler only once they are resident (by the I/O thread), so the ready
 * tasks that workers take have their blocks in memory.  While memory is
 * three-quarters full and nothing is to be read, the I/O thread also writes
 * dirty blocks near the LRU end back ahead of their eviction (the FSM's
 * FLUSH), so that eviction finds them clean and only drops them.  Without a limit
 * nothing here runs: tamm__ml_on is 0 and the callers test it only off the
 * fast paths (block_home of an absent home, private buffers, task_ready).
 *
 * Other memory units (the GPUs, layer.h) copy to and from the homes
 * asynchronously.  Each copy holds the home (tamm__ml_hold: pinned, so not
 * evicted, and its bytes reserved like an admitted task's) until it has
 * landed; a unit's task is admitted like a CPU task when the unit is about to
 * start it (tamm__ml_admit_unit), never queued (the unit tries again after
 * tamm__ml_wake), with only the homes it will read read back; a unit that
 * must write a block back while no reservation fits stores it through two
 * small buffers of its own (tamm__ml_store: into the home if resident, else
 * straight into the spill file), so that it never waits for host memory.
 *
 * Under MPI each rank runs this unit over its own homes and copies alike: the
 * MPI flow decides (identically on every rank) which copies a rank keeps and
 * frees dropped ones through tamm__ml_release; whether a kept block is
 * resident or spilled is decided here, locally.  The flow's message tasks
 * (TAMM_TF_PSEUDO) never wait for memory and, through tamm__ml_keep, hold
 * their pins until their message completes (docs/runtime.md "Under MPI").
 */
#ifndef TAMM_MEMLIMIT_H
#define TAMM_MEMLIMIT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct tamm_tensor;
struct tamm__task_s;
struct tamm__config;
struct tamm__dep;

/** Nonzero when the host memory limit is enforced (set by tamm_init). */
extern int tamm__ml_on;

/** Per-block state of the host unit's backing store: one per block of a
 *  tensor (T->ml), allocated only under a limit. */
typedef struct tamm__mblk {
    struct tamm__mblk *prev, *next; /* LRU list of resident blocks (ml lock) */
    struct tamm_tensor *T;
    long lin;
    /* the fields under the ml lock, then (after off) those under the block lock: a word the
     * compiler loads whole for one group never holds a field of the other (ThreadSanitizer saw
     * evict_one's 8-byte load of pins race with tamm__ml_dirty's store to dirty) */
    int pins;            /* admitted tasks / top-level uses / other units' holds on it (ml lock) */
    int holds;           /* of the pins, other units' holds (tamm__ml_hold; ml lock) */
    unsigned char in_lru;/* (ml lock) */
    unsigned char toppin;/* pinned by a top-level tamm_block (ml lock) */
    unsigned char ioq;   /* queued for the I/O thread's read-ahead (ml lock) */
    int64_t off;         /* slot in the spill file, -1: none yet (ml lock + block lock) */
    unsigned char valid; /* the spill slot holds the block's data (block lock) */
    unsigned char dirty; /* the home may be newer than the spill slot (block lock) */
    unsigned char made;  /* generated once already (block lock) */
} tamm__mblk;

/** tamm_init: decide whether the limit applies (limit set; on each rank under MPI). */
void tamm__ml_init(size_t limit, int nranks);
/** tamm_finalize, after the tensors are freed: close the spill file. */
void tamm__ml_fini(void);
/** TAMM_STATS lines. */
void tamm__ml_stats(FILE *f, int rank);

/** Tensor creation / free (the latter frees the homes too). */
void tamm__ml_tensor_init(struct tamm_tensor *T);
void tamm__ml_tensor_free(struct tamm_tensor *T);

/** The home of block lin, made resident (read back, regenerated or zeroed).
 *  Block lock held (or its sole user: tamm__block_home); called by tamm__block_home when the home is absent. */
void *tamm__ml_home(struct tamm_tensor *T, long lin);
/** A streaming scope is done with block lin (scope.c): free its home and spill slot. */
void tamm__ml_release(struct tamm_tensor *T, long lin);
/** The home of block lin was (or may have been) modified outside the FSM. Block lock held. */
void tamm__ml_dirty(struct tamm_tensor *T, long lin);
/** Keep block lin resident while top-level code uses its memory (tamm_block
 *  at top level): until a task using the block is admitted (or the top-level
 *  pins pass half the limit: then the oldest goes).  Not under the block lock. */
void tamm__ml_top_pin(struct tamm_tensor *T, long lin);
/** Pin / unpin block lin around a top-level copy (gather, scatter). */
void tamm__ml_pin(struct tamm_tensor *T, long lin);
void tamm__ml_unpin(struct tamm_tensor *T, long lin);

/** Private buffer memory under the limit (pool.c tamm__buf_get/_put). */
void *tamm__ml_buf_get(size_t bytes);
void tamm__ml_buf_put(void *p, size_t bytes);

/** task_ready: 1 if t may run now (its blocks are pinned, TAMM_TF_MLRES set
 *  when it pinned any), 0 if it waits for memory or failed (then it was
 *  reported and completed). */
int tamm__ml_admit(struct tamm__task_s *t);
/** t's body has returned: give its pins back and admit waiting tasks. */
void tamm__ml_done(struct tamm__task_s *t);
/** In the body of one of the MPI flow's message tasks (TAMM_TF_PSEUDO), before
 *  its message is posted: t keeps its pins after its body returns, until
 *  tamm__ml_kept_done (the message's memory is in use until it completes).
 *  1 if t held pins (then tamm__ml_kept_done must follow), else 0. */
int tamm__ml_keep(struct tamm__task_s *t);
/** The message of a task that tamm__ml_keep kept has completed: its pins go back. */
void tamm__ml_kept_done(struct tamm__task_s *t);
/* ---- other memory units (layer.h) ---- */
/** Whether a unit reads the home of dep d of the task it is admitting (a
 *  spilled home is then read back before the task starts).  Called under
 *  this module's lock: it must take no lock. */
typedef int (*tamm_ml_want)(void *arg, const struct tamm__dep *d);
/** A unit is about to start t: admit it as tamm__ml_admit would, but never
 *  queue it.  1: admitted (its blocks pinned, TAMM_TF_MLRES set; tamm__ml_done
 *  when its work is complete), 2: admitted, and the homes `want` names that
 *  were spilled are being read back (tamm__ml_reading says until when), 0: it
 *  does not fit now (try again after tamm__ml_wake), -1: it never fits
 *  (reported, and t completed as skipped). */
int tamm__ml_admit_unit(struct tamm__task_s *t, tamm_ml_want want, void *arg);
/** Whether a home of t's that admission queued is still being read back. */
int tamm__ml_reading(const struct tamm__task_s *t);
/** How a unit holds a home (tamm__ml_hold). */
enum {
    TAMM_HOLD_TRY = 1,       /* only if it fits beside the reservations (else nothing is held) */
    TAMM_HOLD_READ = 2,      /* the unit reads the home now: made resident (read back if spilled) */
    TAMM_HOLD_OVERWRITE = 4, /* the unit writes the whole home now: resident, not read back, dirty */
    TAMM_HOLD_RESIDENT = 8   /* only if the home is resident now (with TAMM_HOLD_READ) */
};
/** Hold the home of block lin for a copy to or from another unit until
 *  tamm__ml_unhold: pinned (never evicted) and its bytes reserved, with
 *  `extra` bytes beside it (a staging buffer, taken with tamm__ml_buf_get).
 *  With TAMM_HOLD_READ or _OVERWRITE, *home is its memory; with neither, the
 *  home is made resident where it is used (tamm__block_home, under the block
 *  lock).  Not under the block lock.  1: held; 0: TRY or RESIDENT refused (no
 *  hold).  Without TRY it always holds, beyond the reservations if need be. */
int tamm__ml_hold(struct tamm_tensor *T, long lin, size_t extra, unsigned how, void **home);
/** The copy is done: the hold goes (pins, reservation), waiting tasks may fit. */
void tamm__ml_unhold(struct tamm_tensor *T, long lin, size_t extra);
/** Store another unit's newer copy of block lin (add: a partial sum to add)
 *  without holding host memory: fetch(arg, dst, off, n) copies bytes
 *  [off, off + n) of it into dst, one chunk (tamm__ml_chunk bytes) at a time,
 *  into buf; each chunk goes into the home if it is resident, else into the
 *  block's slot in the spill file (a sum read, added and written there, in
 *  buf2), so the home need not be resident.  Takes the block lock for the
 *  whole store.  0: stored; -1: not possible (the spill file failed, or a sum
 *  into a generated block never written): nothing was changed, and the caller
 *  holds the home instead. */
int tamm__ml_store(struct tamm_tensor *T, long lin, int add, int (*fetch)(void *arg, void *dst, size_t off, size_t n),
                   void *arg, void *buf, void *buf2);
/** The size of tamm__ml_store's chunks (a fraction of the limit). */
size_t tamm__ml_chunk(void);
/** Memory a unit keeps for itself (tamm__ml_buf_get), reserved for good: later
 *  admissions leave room for it (bytes < 0: given back). */
void tamm__ml_fixed(long bytes);
/** Called (if set) whenever memory may have become free for a unit's
 *  admission or hold: a task's pins or a hold went back, a read-back ended.
 *  Installed by the unit's layer; never called under a lock of this module. */
extern void (*tamm__ml_wake)(void);

/** Whether the I/O thread has work: blocks to read back, or admitted tasks
 *  waiting for their reads (deadlock detection: every worker may be idle
 *  meanwhile, and the I/O thread queues those tasks once their reads are done). */
int tamm__ml_busy(void);

#endif
