/*
 * buffer.h — block buffers inside a running task: tamm_get_buf_* and
 * tamm_release_* (docs/runtime.md "Buffers inside a task"),
 * checked against the task's permissions (perm.c) and driving the execution
 * FSM of the block in the worker's memory unit (block_fsm.c).  Private
 * buffers (temps, cancellable copies, concurrent accumulations) come from the
 * worker's buffer cache.
 */
#ifndef TAMM_BUFFER_H
#define TAMM_BUFFER_H

#include "task.h"

typedef enum tamm__bufkind {
    TAMM_BK_READ, TAMM_BK_WRITE, TAMM_BK_RW, TAMM_BK_ACC_INPLACE, TAMM_BK_ACC_PRIVATE,
    TAMM_BK_TMP, TAMM_BK_CWRITE, TAMM_BK_CRW, TAMM_BK_SCRATCH
} tamm__bufkind;

/** What a get_buf call asks for. */
typedef enum tamm__bufreq {
    TAMM_REQ_READ, TAMM_REQ_WRITE, TAMM_REQ_RW, TAMM_REQ_ACC, TAMM_REQ_TMP, TAMM_REQ_CWRITE, TAMM_REQ_CRW,
    TAMM_REQ_IMPLICIT /* tamm_block_at inside a task: the widest mode permitted */
} tamm__bufreq;

/* TAMM_BR_ALIASED: one buffer serves several claims on the same block (the
 * code tammcc generates reaches a block through two index expressions that
 * turn out equal at run time); `shares` counts the claims beyond the first. */
/* TAMM_BR_SOLE: taken while the task was the block's only possible user (see
 * sole_user in buffer.c), so its FSM steps need no lock while that lasts. */
/* TAMM_BR_CHECKED: fingerprinted or filled with the canary (TAMM_CHECK_ACCESS,
 * check.h): its release goes through the checker; tested together with
 * TAMM_BR_ALIASED, so that releases cost nothing more with the checker off. */
/* TAMM_BR_CC: (checker on only) got by tammcc's code (tamm_cc_acquire), one of
 * the buffers of the task's one write of the block (check.h).
 * TAMM_BR_PENDING: (checker on only) a released TAMM_BR_CC write buffer that
 * left elements unwritten, reported at the end of the task unless a later
 * buffer of the block takes the check over (check.h). */
enum { TAMM_BR_RELEASED = 1, TAMM_BR_IMPLICIT = 2, TAMM_BR_CANCELLABLE = 4, TAMM_BR_ALIASED = 8, TAMM_BR_SOLE = 16,
       TAMM_BR_CHECKED = 32, TAMM_BR_CC = 64, TAMM_BR_PENDING = 128 };
typedef enum { TAMM_REL_PUT, TAMM_REL_ADD, TAMM_REL_CANCEL } tamm__relkind;

void *tamm__get_buf(tamm_ctx *ctx, tamm_tensor *T, const long *idx, int nidx, tamm__bufreq req);
/** tamm__get_buf for a block reference whose source text src ("A[I-1][J]",
 *  from tammcc) an index-range error names. */
void *tamm__get_buf_src(tamm_ctx *ctx, tamm_tensor *T, const long *idx, int nidx, tamm__bufreq req, const char *src);
int tamm__release(tamm_ctx *ctx, void *buf, tamm__relkind how);
/** A running task submits a child: give back the blocks tamm_block fetched
 *  implicitly in it, so that the child does not find them held (their memory
 *  stays where it is; the body must not touch them until a taskwait, as in
 *  its sequential elision). */
void tamm__ctx_drop_implicit(tamm_ctx *ctx);
/** Block buffers ctx holds now (records not given back). */
int tamm__ctx_held(const tamm_ctx *ctx);
/** A new buffer record in ctx (grows its array). */
tamm__bufrec *tamm__ctx_rec_add(tamm_ctx *ctx);
/** "read", "accum", ... of a tamm__bufkind; "tamm_release_put", ... of a tamm__relkind (messages). */
const char *tamm__buf_kind_name(int kind);
const char *tamm__rel_name(tamm__relkind how);
/** Release the read reference on block lin of T that a worker kept between
 *  readers (dag.h tamm__held). */
void tamm__buf_drop_read(tamm_tensor *T, long lin);
/** The task's function has returned: report and release what it still holds. */
void tamm__ctx_end(tamm_ctx *ctx);

#endif
