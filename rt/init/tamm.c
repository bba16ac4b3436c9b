/*
 * Layer rt/init/ — the top of the runtime: the one file that knows every layer
 * and wires them together at tamm_init / tamm_finalize.  The core (core/, exec/)
 * knows no device and no rank; here the MPI layer (mpi/) and the GPU layer
 * (gpu/) are started in order and install their parts of the core's interfaces
 * (core/layer.h): per-tensor state, memory units, the router of ready tasks, the
 * submission filter.  Nothing includes a header of this folder.
 *
 * tamm.c — tamm_init, tamm_finalize, and the public calls that only the MPI
 * layer can answer (tamm_rank, tamm_nranks, tamm_comm).
 */
#include "dist.h"
#include "error.h"
#include "gpu.h"
#include "layer.h"
#include "memlimit.h"
#include "mpi_comm.h"
#include "mpi_flow.h"
#include "runtime.h"
#include "trace.h"
#include "worker.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tamm_rank(void) { return tamm__comm_rank(); }
int tamm_nranks(void) { return tamm__comm_size(); }

void *tamm_comm(tamm_ctx *ctx)
{
    if (!ctx || !ctx->task || !(ctx->task->flags & TAMM_TF_COLLECTIVE)) return NULL;
    return tamm__comm_leaf();
}

/* the traces and DAG output (obs/trace.c) as the core's recorder (layer.h) */
static const tamm__record_ops trace_recorder = { tamm__trace_node, tamm__trace_event, tamm__trace_io, tamm__trace_withheld };

/* Whether work is under way off the CPU workers, which a deadlock check must
 * wait for: a GPU's, or the I/O thread's under TAMM_MEMORY_LIMIT. */
static int others_busy(void)
{
    return (tamm__gpus.n && tamm__gpu_busy()) || tamm__ml_busy();
}

/* tamm_init could not start (its message is printed): stop, unless TAMM_ON_ERROR=return
 * (read here: the configuration itself may be what failed). */
static int init_failed(int rc)
{
    const char *oe = getenv("TAMM_ON_ERROR");
    if (!oe || strcmp(oe, "return") != 0) exit(1);
    return rc;
}

int tamm_init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (tamm__rt.initialised) /* like any other misuse: fatal, or (TAMM_ON_ERROR=return) returned and recorded */
        return tamm__error(NULL, TAMM_ESTATE, "tamm_init called twice without tamm_finalize");
    tamm__config cfg;
    int rc = tamm__config_read(&cfg);
    if (!rc) rc = tamm__comm_init(); /* MPI, when launched by mpirun */
    if (rc) return init_failed(rc);
    tamm__comm_local(&cfg.local_rank, &cfg.local_size); /* for the rank-to-GPU mapping (gpu/) */
    /* the observers (obs/), called only while TAMM_TRACE or TAMM_DAG records */
    tamm__recorder_install(&trace_recorder);
    tamm__gpu_recorder = tamm__trace_gpu_record;
    tamm__flow_msg_recorder = tamm__trace_msg;
    tamm__core_start(&cfg, tamm__comm_rank(), tamm__comm_size());
    tamm__trace_start(); /* the instant tamm__rt.t0 on the wall clock */
    /* nothing a failed tamm_init left installed */
    tamm__tensor_hooks_clear();
    tamm__route_install(NULL);
    tamm__home_pin_install(NULL);
    tamm__homes_shared = 0;
    /* block owners over the ranks, and the flow's state per block (mpi/dist.c) */
    tamm__tensor_hooks_add(&tamm__dist_hooks);
    /* GPUs, before the workers: CUDA workers have entries in workers[]; the GPU layer
     * installs its memory units, its router, pinned homes and per-tensor state */
    rc = tamm__gpu_init(&cfg);
    if (rc) return init_failed(rc);
    tamm__ml_init(cfg.memory_limit, tamm__comm_size()); /* host memory as a bounded unit, GPUs or not */
    tamm__rt.initialised = 1;
    /* the CUDA workers are executors beside the CPU workers (gpu/) */
    rc = tamm__workers_start(cfg.num_workers, tamm__gpus.n, others_busy);
    if (!rc) rc = tamm__gpu_start();
    if (rc) {
        tamm__rt.initialised = 0;
        return rc;
    }
    /* several ranks: the flow installs itself as the submission filter (mpi/mpi_flow.c) */
    rc = tamm__comm_session_start();
    if (!rc) rc = tamm__flow_session_start();
    if (!rc) rc = tamm__comm_progress_start();
    if (rc) {
        tamm__workers_stop();
        tamm__rt.initialised = 0;
        return rc;
    }
    return TAMM_OK;
}

/* TAMM_STATS with several ranks: the flow's and the messages' figures */
static void flow_stats(void)
{
    tamm__flow_stats fs;
    tamm__flow_get_stats(&fs);
    fprintf(stderr, "tamm stats: rank %d: %llu top-level tasks, %llu run here, %llu skipped (%.0f ns each), "
            "%llu messages sent (%llu bytes), %llu received (%llu bytes), communication %.1f ms, of which "
            "exposed (every worker idle) %.1f ms, %llu copies evicted (%llu bytes)\n", tamm_rank(), (unsigned long long)fs.tasks,
            (unsigned long long)fs.executed, (unsigned long long)fs.skipped,
            fs.skipped ? (double)fs.skip_ns / (double)fs.skipped : 0.0, (unsigned long long)fs.msgs_sent,
            (unsigned long long)tamm__comm_bytes_sent(), (unsigned long long)fs.msgs_recv,
            (unsigned long long)tamm__comm_bytes_recv(), (double)fs.comm_ns / 1e6, (double)fs.exposed_ns / 1e6,
            (unsigned long long)fs.evictions, (unsigned long long)fs.evicted_bytes);
}

int tamm_finalize(void)
{
    if (!tamm__rt.initialised) {
        return tamm__not_init("tamm_finalize");
    }
    int rc = tamm__core_quiesce();
    if (tamm__flow_on) {
        tamm__flow_sync(TAMM_SYNC_FINAL);
        int r2 = tamm__comm_wait_final();
        if (!rc) rc = r2;
    }
    if (tamm__rt.cfg.stats && tamm__comm_size() > 1) flow_stats();
    tamm__comm_session_end();
    tamm__flow_session_end();
    tamm__workers_stop();
    tamm__gpu_stop();
    tamm__trace_finish(); /* collective with several ranks; reads the GPUs' and the flow's figures */
    int deadlocked = tamm__core_release();
    tamm__gpu_fini(); /* after the tensors: their device copies are released first */
    tamm__tensor_hooks_clear();
    return tamm__core_end(rc, deadlocked);
}
