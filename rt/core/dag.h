/*
 * dag.h — dependence analysis: the submission FSM applied to real tasks.
 *
 * For every block (and every tensor, for whole-tensor accesses) a dependence
 * domain keeps a chain of epochs.  An epoch is one of the current sets of the
 * submission FSM (docs/runtime.md "Dependences"; DT(A,R) / DT(A,W) / DT(A,ACC)
 * in dep_fsm.h): the tasks that joined it run together, and it starts only
 * when the epoch before it has completed.  Joining or creating an epoch is
 * O(1) and allocation-free in the steady state (epochs come from a per-worker
 * pool), so the cost per task does not depend on how many readers came before
 * it.
 *
 * Whole-tensor accesses live on the tensor's own chain; a whole-tensor epoch
 * waits for the block epochs touched since the previous one (one scan of the
 * tensor's chains, no record per block), and block epochs that come after it
 * wait for it.  Slices are expanded into their blocks by the caller.
 *
 * The top-level domain's chains live in the tensors (one per block, one for the whole); each
 * task that submits children gets its own domain (a small hash map), because
 * children are ordered only among themselves.
 */
#ifndef TAMM_DAG_H
#define TAMM_DAG_H

#include "util.h"
#include <stdint.h>

struct tamm__task_s;
struct tamm_tensor;
typedef struct tamm__epoch tamm__epoch;
typedef struct tamm__domain tamm__domain;

/** One block's (or one tensor's) chain of epochs in one domain. */
typedef struct tamm__chain {
    tamm__epoch *cur;      /* newest epoch, NULL = _UNACCESSED (the domain's submitter only) */
    unsigned gen;         /* block chain: tensor generation when last touched; tensor chain: generation */
    int joined;           /* tasks that joined cur */
    unsigned char touched;/* tensor chain: block accesses since the current whole-tensor epoch */
    unsigned char mode;   /* cur's tamm__dep_state, so that deciding to join does not read cur */
    unsigned char started;/* cur is known to have started: joining it writes only the joining task */
} tamm__chain;

/** A task's membership in one epoch (one per distinct block or tensor it names). */
typedef struct tamm__dep {
    tamm__epoch *epoch;
    struct tamm__task_s *task;
    struct tamm__dep *next_waiter;
    struct tamm_tensor *T;
    long lin;             /* -1: whole tensor */
    unsigned perm;        /* TAMM_READ/WRITE/ACCUM bits */
} tamm__dep;

void tamm__chain_init(tamm__chain *c);

/** Register task t's permission `perm` (TAMM_READ/WRITE/ACCUM bits) on block
 *  lin of T (lin == -1: the whole tensor) in domain d (NULL: top level).
 *  If the epoch has not started, t->nwait is incremented (task.c adds it to
 *  t->deps when it drops the submission guard) and t is woken
 *  (tamm__task_dep_satisfied) when the epoch starts. */
void tamm__dag_register(tamm__domain *d, struct tamm__task_s *t, struct tamm_tensor *T, long lin,
                        unsigned perm, tamm__dep *dep);
/** t has completed: leave the epoch (may start later epochs and wake their tasks). */
void tamm__dag_release(tamm__dep *dep);

/** Count-downs a CPU worker holds back on one read or accumulation epoch, so
 *  that members of one set completing one after another on that worker cost
 *  one atomic step on the epoch's line, not one each (the other worker's
 *  completions write the same line).  The epoch cannot complete while some
 *  are held, so the holder applies them (tamm__dag_flush) before it runs a
 *  task that is not a member, finds no task, or returns to the caller. */
typedef struct tamm__held {
    tamm__epoch *epoch;
    int n;
    /* One read reference on a block of that epoch, kept between its members
     * (rT NULL: none; buffer.c sets and takes it).  Readers of one block
     * running one after another on a worker then hand the reference on
     * instead of locking the block twice each; READ and RELEASE in _Ready
     * only count, so handing it on is the pair READ, RELEASE.  The flush
     * drops it before the count-downs, so a writer never finds it. */
    struct tamm_tensor *rT;
    long rlin;
} tamm__held;

/** As tamm__dag_release, holding the count-down in h when dep's permission
 *  is read or accumulate (a set with other members). */
void tamm__dag_release_held(tamm__dep *dep, tamm__held *h);
/** Drop the read reference and apply the count-downs h holds (may complete
 *  the epoch). */
void tamm__dag_flush(tamm__held *h);
/** Whether the epoch of dep may be accumulated into in place (t is its only
 *  member that can still run, and no other can join).  Applies the calling
 *  worker's count-downs held on that epoch first, so the count is exact. */
int tamm__dag_sole_member(tamm__dep *dep);

/** Start fetching what completing the n epochs of a running task will touch
 *  on other threads' lines: each epoch, its successor in its chain, and that
 *  successor's first member (the submitter records it; it may be stale,
 *  which only wastes the prefetch). */
void tamm__dag_prefetch_completion(const tamm__dep *dep, int n);

/** For deadlock reports (every thread idle): has the epoch of dep started? */
int tamm__dag_dep_started(const tamm__dep *d);
/** Is later's epoch the one that comes right after earlier's in its chain
 *  (so later's task waits for earlier's to complete)? */
int tamm__dag_dep_follows(const tamm__dep *later, const tamm__dep *earlier);

/** Size of an epoch's pool object (larger when recording edges). */
size_t tamm__dag_epoch_size(int recording);

/** TAMM_CHECK_ACCESS: what a task of domain d that has not completed does to block
 *  lin of T (or to all of T): TAMM_DS_READ when only reads are outstanding,
 *  TAMM_DS_ACC when only accumulations are, TAMM_DS_WRITE for anything else
 *  that is outstanding, TAMM_DS_UNACCESSED when nothing is.  The domain's
 *  submitter only (a parent, about its children). */
int tamm__dag_outstanding(tamm__domain *d, const struct tamm_tensor *T, long lin);
tamm__domain *tamm__domain_new(void);
/** Free a domain whose tasks have all completed. */
void tamm__domain_free(tamm__domain *d);
/** Drop the top-level chains of a tensor (all its tasks have completed). */
void tamm__dag_tensor_done(struct tamm_tensor *T);

/* Edge recording for TAMM_DAG / TAMM_TRACE: on when tamm__rt.recording (costs nothing when off). */
typedef struct { uint64_t from, to; } tamm__edge;
/** Recorded edges (valid until tamm__dag_record_reset). */
const tamm__edge *tamm__dag_edges(size_t *n);
void tamm__dag_record_reset(void);

#endif
