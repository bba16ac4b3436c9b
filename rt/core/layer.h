/*
 * layer.h — what the core offers to the layers above it (gpu/, mpi/), which
 * register themselves at tamm_init (rt/init/tamm.c) when they are enabled and
 * remove themselves at tamm_finalize.  The core calls them only through what
 * is declared here; it includes no header of gpu/ or mpi/ and links to no
 * symbol only they define (tests/layering.sh checks both).
 *
 * The hot path pays nothing for it: with no GPU and one rank every hook below
 * is behind a flag the plain path tested already (tamm__task_extra in
 * task_ready and tamm__task_run, ctx->unit in tamm__get_buf / tamm__release,
 * tamm__submit_divert in tamm__submit), so no indirect call and no extra
 * branch per task.
 *
 *   memory units      tamm__unit_ops: the execution FSM's actions on one memory
 *                     other than the host (each GPU), reached from a running
 *                     task's ctx->unit; tamm__homes_shared tells the host unit
 *                     that other units read and sum into the homes meanwhile.
 *   executors         tamm__route_ops: where a ready task runs when it is not
 *                     simply the next CPU worker's (a GPU's worker, or after
 *                     every rank agreed, for a collective).
 *   submission filter tamm__flow_ops: the MPI task flow in front of tamm__submit
 *                     for top-level tasks while several ranks run.
 *   tensor hooks      per-tensor state of the registered layers (owners and
 *                     flow state, device copies), made at tamm_tensor_create
 *                     and freed at destruction.
 *   recorder          tamm__record_ops: what the core tells an observer (obs/,
 *                     installed by tamm_init) while TAMM_TRACE or TAMM_DAG
 *                     records: each task submitted, each run on a CPU worker.
 *                     The GPU and MPI layers declare their own recorders
 *                     (gpu.h, mpi_flow.h) the same way.
 */
#ifndef TAMM_LAYER_H
#define TAMM_LAYER_H

#include "task.h"
#include "tensor.h"
#include <stdint.h>

/* ------------------------------------------------------------------ */
/* memory units                                                          */
/* ------------------------------------------------------------------ */
/** The operations of a memory unit other than the host, for a task running on
 *  it.  Contract: called on the executor's thread for a block the task's
 *  permissions cover (the DAG granted access); get returns the unit's buffer
 *  for the request (Allocate / Get as needed, possibly completing later: the
 *  unit waits for its own copies before the task's work runs), or NULL with
 *  the error reported; release ends one hold (how: a tamm__relkind,
 *  buffer.h), Put / AccAll applied when the task's work on the unit is done.
 *  A unit never decides order: the DAG did. */
typedef struct tamm__unit_ops {
    const char *name; /* "GPU" */
    void *(*get)(tamm_ctx *ctx, tamm_tensor *T, long lin, int req, int implicit, int canc);
    int (*release)(tamm_ctx *ctx, tamm__bufrec *r, int how);
} tamm__unit_ops;

/** The first member of a unit's per-task record; ctx->unit points to it while
 *  a task runs on that unit (NULL on the host). */
struct tamm__unit_run {
    const tamm__unit_ops *ops;
};

/** Nonzero while other memory units (GPUs) read and sum into the homes
 *  concurrently with the host unit: a top-level writer is then never the
 *  block's sole user, and accumulations never go straight into the home
 *  (buffer.c).  Set by the GPU layer at tamm_init, cleared at tamm_finalize. */
extern int tamm__homes_shared;

/* ------------------------------------------------------------------ */
/* executors / routers                                                   */
/* ------------------------------------------------------------------ */
/** Where a ready task runs, besides the CPU workers.  Installed with
 *  tamm__route_install; read only under TAMM_EXTRA_ROUTE in tamm__task_extra
 *  (task.c), so the plain CPU path does not see it.
 *  route: 1 if the layer took the task (queued on one of its executors, or
 *         parked until its blocks are flushed: it calls tamm__task_make_ready
 *         or tamm__task_push later), 0 to leave it to the CPU workers.
 *         Contract: an executor that took a task runs its variant once and
 *         then calls tamm__task_body_done.
 *  cpu_ran: a CPU worker ran t's body in ns (for the layer's cost model). */
typedef struct tamm__route_ops {
    int (*route)(tamm__task_s *t);
    void (*cpu_ran)(tamm__task_s *t, uint64_t ns);
} tamm__route_ops;
extern const tamm__route_ops *tamm__route;
/** Install (ops) or remove (NULL) the router; sets or clears TAMM_EXTRA_ROUTE. */
void tamm__route_install(const tamm__route_ops *ops);

/** Why there is no device, for a task that has only a CUDA variant ("" if
 *  nobody said: "no device").  Set by the GPU layer. */
extern const char *tamm__no_device_why;

/* ------------------------------------------------------------------ */
/* the submission filter                                                 */
/* ------------------------------------------------------------------ */
/** A filter in front of the core for top-level tasks while several ranks run
 *  (the MPI task flow).  Contract: submit receives a task whose description
 *  tamm__submit validated already; it submits it to the core (tamm__submit
 *  with TAMM_TF_INTERNAL) exactly once on each rank that must run it, or drops
 *  it on the others, and returns the same result on every rank.  The other
 *  entries stand in for the core's single-process versions at top level. */
typedef struct tamm__flow_ops {
    int (*submit)(const tamm_task *u, const tamm_task_opts *o, unsigned flags, tamm__task_s **out);
    /** A collective task's local dependences are satisfied: agree with the other ranks, then run it. */
    void (*collective_ready)(tamm__task_s *t);
    /** tamm_wait_all / tamm_barrier: close open runs, compare the ranks' streams. */
    void (*sync_wait)(void);
    /** tamm_block outside a task; tamm_tensor_gather / _scatter. */
    void *(*block_at)(tamm_tensor *T, const long *idx, int n);
    int (*whole)(tamm_tensor *T, void *arr, int to_arr);
} tamm__flow_ops;
/** Nonzero while a filter is installed (a session on several ranks). */
extern int tamm__flow_on;
extern const tamm__flow_ops *tamm__flow;
/** Install (ops) or remove (NULL) the submission filter; sets tamm__flow_on
 *  and the submission's divert flag (divert.h). */
void tamm__flow_install(const tamm__flow_ops *ops);

/* ------------------------------------------------------------------ */
/* per-tensor hooks                                                      */
/* ------------------------------------------------------------------ */
/** A layer's state per tensor.  created runs at tamm_tensor_create after the
 *  blocks exist (TAMM_OK, or an error reported: the tensor is not made);
 *  destroyed when the tensor is freed (also after a failed created of a later
 *  layer).  Hooks run in the order they were added. */
typedef struct tamm__tensor_hooks {
    int (*created)(tamm_tensor *T);
    void (*destroyed)(tamm_tensor *T);
} tamm__tensor_hooks;
#define TAMM_MAX_TENSOR_HOOKS 4
/** Add a layer's hooks (tamm_init); tamm__tensor_hooks_clear removes them all (tamm_finalize). */
void tamm__tensor_hooks_add(const tamm__tensor_hooks *h);
void tamm__tensor_hooks_clear(void);

/* ------------------------------------------------------------------ */
/* the recorder                                                          */
/* ------------------------------------------------------------------ */
struct tamm__worker;
/** Who did a spill-file transfer (tamm__record_ops.io). */
enum { TAMM_IO_BY_IO_THREAD = -1, TAMM_IO_BY_OTHER = -2 }; /* else: the CPU worker's id */
/** An observer of the core's tasks (the traces and DAG output of obs/).
 *  Called only while tamm__rt.recording (TAMM_TRACE or TAMM_DAG), inside the
 *  branch on it that the plain path has anyway, so recording off costs nothing.
 *  node: task id (label, parent's id, 0 at top level) was submitted;
 *  event: task id ran on CPU worker w from t0 to t1 (ns);
 *  io: block lin of T (bytes) was written to (write) or read back from the
 *      spill file of TAMM_MEMORY_LIMIT from t0 to t1 (ns) by `by` (a worker's
 *      id or TAMM_IO_BY_*), for task `task` (0: none);
 *  withheld: task id, just submitted, was left without its CUDA variant
 *      because a check of its kernel failed (`why`, tamm_task_opts.cuda_withheld).
 *  Contract: any thread, concurrently; the recorder changes nothing it reads. */
typedef struct tamm__record_ops {
    void (*node)(uint64_t id, const char *label, uint64_t parent);
    void (*event)(struct tamm__worker *w, uint64_t id, uint64_t t0, uint64_t t1);
    void (*io)(int write, const tamm_tensor *T, long lin, size_t bytes, int by, uint64_t task, uint64_t t0, uint64_t t1);
    void (*withheld)(uint64_t id, const char *why);
} tamm__record_ops;
/** The installed recorder (never NULL: one that records nothing by default). */
extern const tamm__record_ops *tamm__recorder;
/** Install ops (NULL: the recorder that records nothing).  tamm_init, before
 *  the first task. */
void tamm__recorder_install(const tamm__record_ops *ops);

#endif
