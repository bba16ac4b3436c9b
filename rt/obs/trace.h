/*
 * Layer rt/obs/ — observation: traces, DAG output and statistics (trace.c;
 * the report of stuck tasks at a deadlock is the core's, rt/core/stuck.c).
 * It reads the state of the other layers (tasks, workers, GPUs, ranks) and may
 * include their headers, and it changes nothing it reads.  Nothing below it includes its
 * headers: the core, the GPU layer and the MPI layer each declare a recorder
 * (core/layer.h tamm__record_ops, gpu.h tamm__gpu_recorder, mpi_flow.h
 * tamm__flow_msg_recorder), and tamm_init (rt/init/tamm.c) installs the
 * functions below as those recorders and calls start and finish.
 */
/*
 * trace.h — observability: TAMM_TRACE (Chrome trace-event JSON that Perfetto
 * opens: a process per rank, a track per CPU worker, per GPU stream, for MPI
 * messages and for the spill file; tasks by label, host-device copies,
 * messages and spill-file transfers as slices,
 * dependence and message arrows), TAMM_DAG (Graphviz) and TAMM_STATS (a
 * summary at finalize).  Under several ranks every rank records its own
 * events and tamm_finalize merges them into one file on the lowest rank that
 * set the variable (docs/runtime.md "Observability").  Recording costs
 * nothing when off.
 */
#ifndef TAMM_TRACE_H
#define TAMM_TRACE_H

#include <stddef.h>
#include <stdint.h>

struct tamm__worker;
struct tamm__gpu;
struct tamm__pend;

/** tamm_init, just after taking tamm__rt.t0: note the same instant on the wall clock
 *  (the ranks' traces are aligned on it). */
void tamm__trace_start(void);
/** A task was submitted (recording only). */
void tamm__trace_node(uint64_t id, const char *label, uint64_t parent);
/** Task id, just submitted, was left without its CUDA variant: a check of its kernel failed
 *  (recording only; core/layer.h tamm__record_ops.withheld). */
void tamm__trace_withheld(uint64_t id, const char *why);
/** Task id ran on CPU worker w from t0 to t1 (ns). */
void tamm__trace_event(struct tamm__worker *w, uint64_t id, uint64_t t0, uint64_t t1);
/** GPU g's record r (a task, or a batch of write-backs on the copy stream) ran
 *  on its stream from `from` to `to`, with the copies it issued (recording only;
 *  the CUDA worker's thread). */
void tamm__trace_gpu_record(struct tamm__gpu *g, struct tamm__pend *r, uint64_t from, uint64_t to);
/** A block or fence message of task `task` to (send) or from `peer`, the
 *  seq-th between the two ranks, was posted at t0 and completed at t1
 *  (recording only; any thread). */
void tamm__trace_msg(int send, uint64_t task, int peer, uint32_t seq, size_t bytes, uint64_t t0, uint64_t t1);
/** Block lin of T was written to or read back from the spill file (recording
 *  only; any thread; core/layer.h tamm__record_ops.io). */
struct tamm_tensor;
void tamm__trace_io(int write, const struct tamm_tensor *T, long lin, size_t bytes, int by, uint64_t task, uint64_t t0,
                    uint64_t t1);
/** Write the files and the summary asked for by the configuration.  With
 *  several ranks every rank calls it (tamm_finalize): it is collective. */
void tamm__trace_finish(void);

#endif
