/*
 * Layer rt/exec/ — running ready tasks on CPUs: workers and the help loop
 * (worker.c), ready queues (taskq.h, prioq.c), the CPU scheduling policies
 * (sched_ws.c, sched_fifo.c, sched_prio.c) and the handoff of completions
 * from non-worker threads (handoff.c).  It implements the core's executor
 * interface (core/executor.h) and may call base/ and core/ (to run and
 * complete tasks); it may not include gpu/, mpi/ or obs/: the executors of the
 * layers above (CUDA workers) are known to it only through tamm__workers_start.
 */
/*
 * worker.h — CPU workers: one thread per core (the top-level thread is worker
 * 0 and helps while it waits), idle sleep on a futex with no lost wake-ups,
 * and the help-while-waiting loop with deadlock detection.  They implement the
 * core's executor interface (core/executor.h: the worker record, waking,
 * helping, the scheduling policies); this header adds what only tamm_init and
 * tamm_finalize call.
 */
#ifndef TAMM_WORKER_H
#define TAMM_WORKER_H

#include "executor.h"

/** Start n CPU workers (worker 0 is the calling thread).  `others` entries of
 *  workers[] follow theirs for the executors of the layers above (one per CUDA
 *  worker, gpu/cuda_worker.c, which starts them), and others_busy (NULL when
 *  others is 0) says whether those executors still hold work: the deadlock
 *  detection of the help loop asks it before it reports TAMM_EDEADLOCK. */
int tamm__workers_start(int n, int others, int (*others_busy)(void));
void tamm__workers_stop(void);

#endif
