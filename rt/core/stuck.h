/*
 * stuck.h — the report of a deadlock (stuck.c): which tasks can never run and
 * what each waits for, in the user's terms (labels, source locations, tensor
 * and block names).  Part of the core: it reads only the DAG, fences and task
 * records, and only once every worker is idle.
 */
#ifndef TAMM_STUCK_H
#define TAMM_STUCK_H

/** The stuck tasks of a deadlock, one line each: "  task 'x' (f.c:12) waits
 *  for ..." (heap; NULL when none is found).  Call only when every worker is
 *  idle (help loop returned TAMM_EDEADLOCK). */
char *tamm__stuck_report(void);
/** rc == TAMM_EDEADLOCK: the next tamm__error of this thread lists the stuck
 *  tasks after its own message (tamm__error_detail); any other rc: nothing. */
void tamm__deadlock_detail(int rc);

#endif
