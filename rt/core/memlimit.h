/*
 * memlimit.h — host memory as a bounded memory unit under TAMM_MEMORY_LIMIT
 * (docs/runtime.md "Block memory", seeds/tamm-runtime.md "Execution FSM":
 * the EVICT and FLUSH rows on the host unit).
 *
 * With a limit set (and no GPU), every byte of block memory on the host —
 * homes, private accumulation / temporary / cancellable buffers, and under MPI
 * the copies of other ranks' blocks and the buffers of accumulations received
 * from them — is
 * taken through tamm__ml_room, which first evicts least recently used blocks
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
struct tamm_task_s;
struct tamm_config;

/** Nonzero when the host memory limit is enforced (set by tamm_init). */
extern int tamm__ml_on;

/** Per-block state of the host unit's backing store: one per block of a
 *  tensor (T->ml), allocated only under a limit. */
typedef struct tamm_mblk {
    struct tamm_mblk *prev, *next; /* LRU list of resident blocks (ml lock) */
    struct tamm_tensor *T;
    long lin;
    /* the fields under the ml lock, then (after off) those under the block lock: a word the
     * compiler loads whole for one group never holds a field of the other (ThreadSanitizer saw
     * evict_one's 8-byte load of pins race with tamm__ml_dirty's store to dirty) */
    int pins;            /* admitted tasks / top-level uses holding it (ml lock) */
    unsigned char in_lru;/* (ml lock) */
    unsigned char toppin;/* pinned by a top-level tamm_block (ml lock) */
    unsigned char ioq;   /* queued for the I/O thread's read-ahead (ml lock) */
    int64_t off;         /* slot in the spill file, -1: none yet (ml lock + block lock) */
    unsigned char valid; /* the spill slot holds the block's data (block lock) */
    unsigned char dirty; /* the home may be newer than the spill slot (block lock) */
    unsigned char made;  /* generated once already (block lock) */
} tamm_mblk;

/** tamm_init: decide whether the limit applies (limit set, and no other memory
 *  unit sharing the homes: shared is tamm__homes_shared; on each rank under MPI). */
void tamm__ml_init(size_t limit, int nranks, int shared);
/** tamm_finalize, after the tensors are freed: close the spill file. */
void tamm__ml_fini(void);
/** TAMM_STATS lines. */
void tamm__ml_stats(FILE *f, int rank);

/** Tensor creation / free (the latter frees the homes too). */
void tamm__ml_tensor_init(struct tamm_tensor *T);
void tamm__ml_tensor_free(struct tamm_tensor *T);

/** The home of block lin, made resident (read back, regenerated or zeroed).
 *  Block lock held; called by tamm__block_home when the home is absent. */
void *tamm__ml_home(struct tamm_tensor *T, long lin);
/** A streaming scope is done with block lin (stream.c): free its home and spill slot. */
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
int tamm__ml_admit(struct tamm_task_s *t);
/** t's body has returned: give its pins back and admit waiting tasks. */
void tamm__ml_done(struct tamm_task_s *t);
/** In the body of one of the MPI flow's message tasks (TAMM_TF_PSEUDO), before
 *  its message is posted: t keeps its pins after its body returns, until
 *  tamm__ml_kept_done (the message's memory is in use until it completes).
 *  1 if t held pins (then tamm__ml_kept_done must follow), else 0. */
int tamm__ml_keep(struct tamm_task_s *t);
/** The message of a task that tamm__ml_keep kept has completed: its pins go back. */
void tamm__ml_kept_done(struct tamm_task_s *t);
/** Whether the I/O thread has work: blocks to read back, or admitted tasks
 *  waiting for their reads (deadlock detection: every worker may be idle
 *  meanwhile, and the I/O thread queues those tasks once their reads are done). */
int tamm__ml_busy(void);

#endif
