/*
 * Layer rt/mpi/ — several ranks: data distributions (dist.c), the sequential
 * task flow that decides from the task stream where each task runs and which
 * blocks move (mpi_flow.c), and the progress thread with its control protocol
 * (mpi_comm.c; its completions reach the workers through exec/handoff.h).  It
 * may call base/, core/ and exec/; it knows nothing of gpu/, and obs/ only as
 * the recorder tamm_init installs (tamm__flow_msg_recorder).
 */
/*
 * mpi_flow.h — the sequential task flow over several ranks (docs/runtime.md
 * "Several MPI ranks"): every rank submits every top-level task; each rank
 * decides alone, from the same stream, where each task runs and which blocks it
 * must send and receive.  No per-task message is exchanged beyond the block data.
 *
 * Per block, every rank keeps the same state (dist.h): which ranks hold the
 * current version, whether the block was ever modified, and the open
 * accumulation run.  For a top-level task T running on rank e (the owner of
 * the first block it writes or accumulates, `on(r)`, or every rank for a
 * collective) and each block b of its permissions, owned by o:
 *   read or write permission, e not a holder: o submits a local "send"
 *     pseudo-task (read permission on b, so it follows b's last writer at o
 *     and precedes the next) and e a "receive" pseudo-task (write permission
 *     on its copy of b, before T) — the execution FSM's Get.  A never-modified block
 *     is made locally (zeros or the generator) instead.
 *   write permission, e != o: after T, e sends its copy back (a pseudo-task
 *     after T) and o receives it (write permission) — the execution FSM's Put; e and
 *     o then hold the new version, nobody else.
 *   accumulate only: the run of consecutive accumulations into b is open
 *     until the next read or write of b (or a synchronisation point); each
 *     contributor rank != o zeroes its copy once and sums its tasks into it;
 *     when the run closes it sends the sum, which o adds to b (AccAll).
 * A replicated tensor's block has a copy on every rank and a reference rank
 * src (dist.h) standing for the owner above: a task on one rank e that
 * modifies it (after bringing e's copy up to date) leaves e the only holder
 * and src, with no put-back; accumulations from several ranks form a run
 * summed at src; any later use on rank r (a task, tamm_block, gather, a
 * collective leaf, a task on every rank) first receives the block from src
 * if r is not a holder.  Nothing is sent to ranks that do not use it.
 * Messages between a pair of ranks are tagged with that pair's count of
 * earlier messages, which both ends compute from the stream.  A rank that
 * neither runs T nor owns one of its blocks only updates the block state
 * (no task is created).  The per-block state is that of the sending and
 * receiving ends, so both always agree without asking each other.
 */
#ifndef TAMM_MPI_FLOW_H
#define TAMM_MPI_FLOW_H

#include "layer.h"
#include "task.h"
#include "tensor.h"
#include <stdint.h>

/** Start / end a session: with several ranks the flow installs itself as the
 *  core's submission filter (tamm__flow_install, layer.h: tamm__flow_on is set
 *  while it stands in front of the core) and the fences' filter. */
int tamm__flow_session_start(void);
void tamm__flow_session_end(void);

/** The observer of the flow's messages (obs/: a slice on the rank's message track and an
 *  arrow to the peer's), installed by tamm_init; NULL: none.  Called on any thread when a
 *  block or fence message of task `task` to (send) or from `peer`, the seq-th between the two
 *  ranks, posted at t0, has completed at t1 (ns); only while recording (TAMM_TRACE, TAMM_DAG). */
extern void (*tamm__flow_msg_recorder)(int send, uint64_t task, int peer, uint32_t seq, size_t bytes, uint64_t t0,
                                       uint64_t t1);

/** A top-level task, validated (tamm__submit forwards them while tamm__flow_on: the filter's submit). */
int tamm__flow_submit(const tamm_task *u, const tamm_task_opts *o, unsigned flags, tamm__task_s **out);
/** A collective task's local dependences are satisfied: agree with the other ranks, then run. */
void tamm__flow_collective_ready(tamm__task_s *t);
/** Every rank created tensor T (stream event; gives T its id). */
void tamm__flow_tensor_created(tamm_tensor *T);

/** Fences over the ranks: every rank created fence f (gives it its number and
 *  state); the top level waits on f (tamm_fence_wait). */
struct tamm_fence;
void tamm__flow_fence_created(struct tamm_fence *f);
void tamm__flow_fence_wait(struct tamm_fence *f);

/** Top level: tamm_wait_all / tamm_barrier (kind TAMM_SYNC_WAIT) and
 *  tamm_finalize (TAMM_SYNC_FINAL): close the open accumulation runs, and
 *  exchange the stream position with every rank. */
void tamm__flow_sync(int kind);
/** Top level: an execution fence (tamm_barrier, tamm_fence_submit; fence.h)
 *  follows: close the open accumulation runs (their messages come before it),
 *  and count it in the stream. */
void tamm__flow_xfence(void);
/** tamm_block outside a task, tamm_tensor_gather / _scatter, over the ranks. */
void *tamm__flow_block_at(tamm_tensor *T, const long *idx, int n);
int tamm__flow_whole(tamm_tensor *T, void *arr, int to_arr);

/** Length of this rank's top-level stream and its hash after `count` events
 *  (0 if that is no longer recorded).  Any thread. */
uint64_t tamm__flow_stream_count(void);
int tamm__flow_stream_hash(uint64_t count, uint64_t *hash);
/* Event n of the stream (1: the first) in the program's terms ("submitted task 'fault' (f.c:62) on T[5]");
 * 0 if it is not recorded (not yet, or too long ago). */
int tamm__flow_event_text(uint64_t n, char *buf, size_t len);

/** Statistics of the session (TAMM_STATS, benchmarks). */
typedef struct tamm__flow_stats {
    uint64_t tasks, executed, skipped;   /* top-level tasks seen / run here / skipped */
    uint64_t skip_ns;                    /* time spent deciding the skipped ones */
    uint64_t msgs_sent, msgs_recv;
    uint64_t comm_ns, exposed_ns;        /* time with messages in flight; of it, with every worker idle */
    uint64_t evictions, evicted_bytes;   /* copies of other ranks' blocks dropped here (TAMM_MEMORY_LIMIT) */
} tamm__flow_stats;
void tamm__flow_get_stats(tamm__flow_stats *s);
/** The progress engine samples overlap: dt with messages in flight, of which `exposed` with all workers idle. */
void tamm__flow_note_comm(uint64_t dt, int exposed);

#endif
