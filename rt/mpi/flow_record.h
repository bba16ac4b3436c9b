/* flow_record.h — the record of this rank's sequential stream of top-level operations (tasks,
 * tensors, tamm_block, gathers, waits, fences), which every rank of a run must make alike: a
 * running hash of the operations, the hash after each of them (compared across ranks by the
 * progress thread, mpi_comm.c), and a ring of what the recent ones were in the program's terms,
 * for the message that names where two ranks' streams part.  Written by the top-level thread
 * (mpi_flow.c); the counts, hashes and texts are read by any thread. */
#ifndef TAMM_MPI_FLOW_RECORD_H
#define TAMM_MPI_FLOW_RECORD_H
#include "tensor.h"
#include <stdint.h>

/* the kinds of operation */
enum { EV_TENSOR = 1, EV_TASK, EV_BLOCK, EV_GATHER, EV_SCATTER, EV_SYNC, EV_FENCE, EV_FENCE_WAIT, EV_XFENCE };

/* What an operation was: a task's first two refs (nref: all of them), copied raw and formatted
 * only when a message needs them */
typedef struct tamm__flow_ev {
    int ev, line, nref, nidx[2];
    int tid[2];                  /* tensors by id (tamm__rec_tensor_name) */
    long a, b, idx[2][TAMM_MAX_DIMS];
    const char *label, *file;    /* the task's, by pointer: they live until tamm_finalize (tamm.h) */
} tamm__flow_ev;

/** A new record (the session's start): no operation yet. */
void tamm__rec_start(void);
/** Free the record (the session's end). */
void tamm__rec_end(void);
/** The slot describing the next operation, of kind ev, cleared for the caller to fill. */
tamm__flow_ev *tamm__rec_next(int ev);
/** The hash of the stream so far, and one value mixed into a hash. */
uint64_t tamm__rec_hash(void);
uint64_t tamm__rec_mix(uint64_t h, uint64_t v);
/** Record the next operation: h is the stream's hash with it (tamm__rec_hash mixed with its
 *  fields); its description slot is published with it. */
void tamm__rec_done(uint64_t h);
/** Keep tensor id's name for messages (a tensor may be destroyed before one names it). */
void tamm__rec_tensor_name(int id, const char *name);

#endif
