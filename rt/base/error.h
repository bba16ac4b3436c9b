/*
 * Layer rt/base/ — errors (error.c), configuration from TAMM_* variables
 * (config.c), the TAMM_CUDA_EMU_FAIL grammar (emu_fail.c), the work-stealing
 * deque (deque.c), internal assertions (tamm_assert.h) and small utilities
 * (util.h).  It owns no runtime state beyond
 * the configuration and the error mode.  It may call only the C library;
 * every other layer may call it.  An error names the failing task by its
 * label and source location (tamm__where), which the core passes in.
 */
/*
 * error.h — reporting misuse: one message naming the task (label and source
 * location), then either exit(1) (default) or record the error so the next
 * wait returns it (TAMM_ON_ERROR=return).
 */
#ifndef TAMM_ERROR_H
#define TAMM_ERROR_H

#include <stdarg.h>

struct tamm__task_s;

/** Where an error happened: a task's label (NULL: unlabelled) and source location. */
typedef struct tamm__where {
    const char *label;
    const char *file;
    int line;
} tamm__where;

/** Report err at w (NULL: top level).  Returns err (only in return mode; in
 *  abort mode the process exits with status 1). */
int tamm__verror(const tamm__where *w, int err, const char *fmt, va_list ap);
/** tamm__verror with the arguments given: err at w (a task not yet submitted). */
int tamm__error_where(const tamm__where *w, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/** Report err for task t (NULL: top level): tamm__verror with t's label and
 *  location.  Defined by the core (core/task.c), which knows the task record. */
int tamm__error(const struct tamm__task_s *t, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/** Lines (each ending in a newline; heap, taken over) that the next
 *  tamm__error of this thread prints after its own (NULL: none). */
void tamm__error_detail(char *lines);
/** A call before tamm_init: the message, then exit status 1, or (with
 *  TAMM_ON_ERROR=return in the environment) TAMM_ESTATE for the caller. */
int tamm__not_init(const char *what);
/** Take (and clear) the first error recorded in return mode. */
int tamm__error_take(void);
/** Record err again as the first error (a wait the program did not call took it:
 *  the taskwait tammcc generates), so that the next wait returns it. */
void tamm__error_put_back(int err);
/** In return mode, an error stays unhandled until a wait the program called
 *  returns it (tamm__error_seen); a process that ends with one unhandled exits
 *  with status 1 (tamm__error_exit_guard, installed by tamm_init). */
void tamm__error_seen(void);
/** tamm_finalize returns err: handled if the program takes errors from its waits. */
void tamm__error_finalized(int err);
void tamm__error_exit_guard(void);
/** Whether errors are returned (1) or fatal (0). */
int tamm__error_returns(void);
void tamm__error_set_mode(int returns);
/** Called with the message before an error stops the process (the MPI layer
 *  tells the other ranks); NULL: none. */
void tamm__error_set_fatal_hook(void (*hook)(const char *msg));

#endif
