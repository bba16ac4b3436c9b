/*
 * check.h — the run-time access checker, TAMM_CHECK_ACCESS=1 (docs/runtime.md
 * "Checking access modes").
 *
 * For every task run on a CPU worker, a block buffer handed out in read mode
 * is fingerprinted when the task gets it and again when the task releases it
 * (or when the task ends holding it); a different fingerprint means the body
 * modified a block it holds for read.  A buffer handed out in write mode
 * (write, cwrite) is filled with a canary byte pattern before the body sees
 * it; an element still holding the canary when the buffer is committed means
 * the body did not write the whole block.  Accumulate and readwrite buffers
 * are not checked, nor tasks run on a GPU.  A violation is reported through
 * tamm__error with TAMM_EACCESS.
 *
 * One write, several buffers: a write buffer of a block that the task already
 * held for write or readwrite in this body (and gave back: tammcc's code does
 * before each nested submission and taskwait, and fetches the block again
 * when the body next names it) is the block's memory holding what the task
 * wrote, as it is without the checker: it is not filled again, so elements
 * still holding the canary are those no buffer of the block wrote yet.  For
 * tammcc's buffers (TAMM_BR_CC) the write is the task's, not the buffer's: a
 * commit that leaves canary elements is not reported at once but marked
 * TAMM_BR_PENDING with its count; the next write buffer of the block takes the
 * check over (its commit counts again), and what is still pending when the
 * task ends is reported then (tamm__check_pending).  An explicit
 * tamm_get_buf_write buffer is checked at its own commit, whose
 * tamm_release_put returns the verdict.
 *
 * With the checker off this costs one predictable branch per buffer get, on
 * tamm__check_on (set once by tamm_init), and nothing per release: only a
 * record tamm__check_acquire marked TAMM_BR_CHECKED (buffer.h) is released
 * through tamm__check_release, and the release path tests that bit together
 * with one it tests anyway.
 */
#ifndef TAMM_CHECK_H
#define TAMM_CHECK_H

#include "task.h"
#include <stddef.h>
#include <stdint.h>

/** The byte a write buffer is filled with before the task gets it.  An element
 *  whose every byte is this (f64 -2.9e-130, f32 -2.9e-16, i32 -1515870811,
 *  i64 -6510615555426900571) counts as not written: a task that really stores
 *  that exact value is reported falsely (documented in docs/runtime.md). */
#define TAMM_CHECK_CANARY 0xA5

/** TAMM_CHECK_ACCESS: set by tamm_init, read on every buffer get (hidden: a
 *  direct load, not one through the GOT of the shared library). */
extern int tamm__check_on __attribute__((visibility("hidden")));

/** 64-bit fingerprint of n bytes (word-wise multiply-xorshift; any change of
 *  any byte changes it except with probability about 2^-64). */
uint64_t tamm__check_hash(const void *p, size_t n);

/** r (a record of ctx) was just handed to a task running on a CPU: fingerprint
 *  it (read) or fill it with the canary (write, cwrite), and mark it
 *  TAMM_BR_CHECKED.  A write buffer of a block ctx held before for write or
 *  readwrite is not filled (it holds what the task wrote) and takes over the
 *  check a TAMM_BR_PENDING record of that block left.  Other kinds are left
 *  alone. */
void tamm__check_acquire(tamm_ctx *ctx, tamm__bufrec *r);

/** tamm_cc_acquire (tammcc's code) got buf from a new record of ctx: mark a
 *  checked write record TAMM_BR_CC, so that its commit's coverage check
 *  counts for the task's whole write of the block.  Called only with the
 *  checker on. */
void tamm__check_cc(tamm_ctx *ctx, const void *buf);

/** r is about to be released or committed by the task of ctx; `commit`: its
 *  contents go into the block (tamm_release_put, or the implicit commit at
 *  the end of the task).  Verifies a read buffer's fingerprint (whatever the
 *  release) and, on commit, that no element of a write or cwrite buffer still
 *  holds the canary; a TAMM_BR_CC write buffer that left some is marked
 *  TAMM_BR_PENDING instead (reported by tamm__check_pending unless a later
 *  buffer of the block takes it over).  Returns TAMM_OK, or TAMM_EACCESS
 *  after reporting the violation with tamm__error (which exits unless
 *  TAMM_ON_ERROR=return). */
int tamm__check_release(tamm_ctx *ctx, tamm__bufrec *r, int commit);

/** The task of ctx has ended and r (released) is still TAMM_BR_PENDING: no
 *  later buffer wrote the elements its commit found unwritten.  Reports them
 *  (TAMM_EACCESS through tamm__error) and clears the mark; returns the code. */
int tamm__check_pending(tamm_ctx *ctx, tamm__bufrec *r);

#endif
