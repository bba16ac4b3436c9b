/*
 * mpi_comm.h — the MPI progress engine.
 *
 * MPI is initialised by tamm_init when the process was started by an MPI
 * launcher (mpirun / mpiexec / srun set PMI or OMPI variables) and left alone
 * otherwise; it is finalised when the process exits (tamm_init may follow
 * tamm_finalize again in one process).  Each tamm_init..tamm_finalize session
 * duplicates MPI_COMM_WORLD five times: block data, control messages,
 * collective agreement, execution fences, and the communicator collective
 * leaves get from tamm_comm().
 *
 * With more than one rank a progress thread owns every point-to-point
 * operation of the runtime: workers and the top-level thread post operations
 * (tamm__comm_post, lock-free) and never wait on the network; the thread
 * starts them with MPI_Isend / MPI_Irecv / MPI_Ibarrier, completes them with
 * MPI_Testsome, and hands each completion back to a worker (handoff.h).  It
 * sleeps with a short back-off when there is nothing to do.
 *
 * It also carries the control protocol: synchronisation records (every rank
 * sends the length and hash of its task stream at each tamm_wait_all /
 * tamm_barrier / tamm_finalize; records are compared by index, so ranks whose
 * task streams differ are stopped with a message naming them), status probes
 * when a rank waits without progress, and abort notices (a rank that stops on
 * an error tells the others, which stop naming it).
 */
#ifndef TAMM_MPI_COMM_H
#define TAMM_MPI_COMM_H

#include "handoff.h"
#include <stddef.h>
#include <stdint.h>

/** An operation for the progress engine.  `h.finish` runs on a worker when it
 *  has completed (NULL: the engine frees the op itself). */
typedef struct tamm__comm_op {
    tamm__handoff h;
    struct tamm__comm_op *qnext;   /* posting queue */
    int kind;                     /* TAMM_COP_* */
    int peer, tag;
    void *buf;
    size_t bytes;
    void *arg;                    /* for finish */
    long aux;                     /* for finish */
} tamm__comm_op;

enum { TAMM_COP_SEND = 1, TAMM_COP_RECV, TAMM_COP_AGREE /* Ibarrier of a collective task */,
       TAMM_COP_SYNC /* a synchronisation record, sent to every rank */,
       TAMM_COP_FENCE /* Ibarrier of an execution fence (fence.h) */ };

/** Synchronisation kinds (in records and messages). */
enum { TAMM_SYNC_WAIT = 1, TAMM_SYNC_FINAL = 2 };

/** Start MPI if launched by an MPI launcher (once per process).  Returns TAMM_OK or TAMM_ECOMM. */
int tamm__comm_init(void);
/** Session start / end (collective: every rank calls them).  session_start
 *  duplicates the communicators; progress_start, called after the session's
 *  start-up collectives, posts the control receive and starts the progress thread. */
int tamm__comm_session_start(void);
int tamm__comm_progress_start(void);
void tamm__comm_session_end(void);
/** This rank and the number of ranks (0 and 1 without MPI). */
int tamm__comm_rank(void);
int tamm__comm_size(void);
/** This rank among the ranks on its node, and their count (MPI_Comm_split_type with
 *  MPI_COMM_TYPE_SHARED, computed by tamm__comm_init; 0 and 1 without MPI).  tamm_init hands them
 *  to the GPU layer through the configuration (the rank-to-GPU mapping). */
void tamm__comm_local(int *rank, int *size);
/** The leaf communicator (an MPI_Comm *) of collective tasks; NULL without MPI. */
void *tamm__comm_leaf(void);

/** Post an operation (any thread). */
void tamm__comm_post(tamm__comm_op *op);
/** Top level: record synchronisation point (kind, stream length, stream hash)
 *  and send it to every rank; records are compared as they meet. */
void tamm__comm_sync(int kind, uint64_t count, uint64_t hash);
/** Top level, finalize: wait until every rank has sent its final record. */
int tamm__comm_wait_final(void);
/** Stop every rank: print msg (this rank's error), tell the others, exit(1). */
void tamm__comm_fatal(const char *msg) __attribute__((noreturn));
/** Bytes this rank sent / received in block messages this session (statistics). */
uint64_t tamm__comm_bytes_sent(void);
uint64_t tamm__comm_bytes_recv(void);
/** Session start, before tamm__comm_progress_start (collective): every rank's value of v, in all[rank]. */
void tamm__comm_allgather_u64(uint64_t v, uint64_t *all);
/** Largest MPI tag usable for data (tags wrap modulo this + 1). */
int tamm__comm_tag_ub(void);
/** tamm_finalize, after the session (collective over every rank; traces):
 *  each v[i] becomes its minimum over the ranks. */
void tamm__comm_world_min(int64_t *v, int n);
/** tamm_finalize, after the session (collective over every rank; traces):
 *  rank root is given every rank's part, its own included, in rank order,
 *  through put; on the others put is not called. */
void tamm__comm_world_gather(int root, const char *part, size_t n,
                             void (*put)(int rank, const char *data, size_t n, void *arg), void *arg);

#endif
