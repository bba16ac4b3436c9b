/* error.c — error reporting and the error recorded for the next wait. */
#include "error.h"
#include "tamm_assert.h"
#include "util.h"
#include <tamm.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static atomic_int first_error;
static atomic_int unhandled;   /* an error no wait of the program has returned yet (return mode) */
static atomic_int returns_mode;
static void (*fatal_hook)(const char *msg);

void tamm__error_set_fatal_hook(void (*hook)(const char *msg)) { fatal_hook = hook; }

void tamm__error_set_mode(int returns) { atomic_store(&returns_mode, returns); }
int tamm__error_returns(void) { return atomic_load(&returns_mode); }

static _Thread_local char *detail; /* lines printed after the next error's (tamm__error_detail) */
void tamm__error_detail(char *lines)
{
    free(detail);
    detail = lines;
}

int tamm__verror(const tamm__where *t, int err, const char *fmt, va_list ap)
{
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    char where[512];
    if (t)
        snprintf(where, sizeof where, "task '%s' (%s:%d): ", t->label ? t->label : "(unlabelled)",
                 t->file ? t->file : "?", t->line);
    else
        snprintf(where, sizeof where, "top level: ");
    fprintf(stderr, "tamm: error: %s%s [%s]\n", where, msg, tamm_strerror(err));
    if (detail) {
        fputs(detail, stderr);
        free(detail);
        detail = NULL;
    }
    fflush(stderr);
    if (!atomic_load(&returns_mode)) {
        if (fatal_hook) { /* with several ranks: the others stop too, naming this one */
            char full[1600];
            snprintf(full, sizeof full, "%s%s [%s]", where, msg, tamm_strerror(err));
            fatal_hook(full);
        }
        _exit(1);
    }
    int expected = 0;
    atomic_compare_exchange_strong(&first_error, &expected, err);
    expected = 0;
    atomic_compare_exchange_strong(&unhandled, &expected, err);
    return err;
}

int tamm__error_take(void) { return atomic_exchange(&first_error, 0); }

int tamm__not_init(const char *what)
{
    fprintf(stderr, "tamm: error: %s called before tamm_init [%s]\n", what, tamm_strerror(TAMM_ESTATE));
    fflush(stderr);
    const char *mode = getenv("TAMM_ON_ERROR"); /* the configuration is not read yet */
    if (!mode || strcmp(mode, "return")) _exit(1);
    return TAMM_ESTATE;
}

void tamm__error_put_back(int err)
{
    int expected = 0;
    if (err) atomic_compare_exchange_strong(&first_error, &expected, err);
}

static atomic_int program_takes; /* the program has taken an error from a wait it called */
void tamm__error_seen(void)
{
    atomic_store(&program_takes, 1);
    atomic_store(&unhandled, 0);
}
void tamm__error_finalized(int err)
{
    if (err && atomic_load(&program_takes)) atomic_store(&unhandled, 0);
}

static void exit_guard(void)
{
    int err = atomic_load(&unhandled);
    if (!err) return;
    fprintf(stderr, "tamm: error: the program ends after an error that no wait it called returned (%s; "
                    "TAMM_ON_ERROR=return): exit status 1\n", tamm_strerror(err));
    fflush(NULL);
    _exit(1);
}

void tamm__error_exit_guard(void)
{
    static atomic_int installed;
    if (!atomic_exchange(&installed, 1)) atexit(exit_guard);
}

const char *tamm_strerror(int err)
{
    switch (err) {
    case TAMM_OK: return "success";
    case TAMM_EINVAL: return "invalid argument";
    case TAMM_ENOMEM: return "out of memory";
    case TAMM_ERANGE: return "block index out of range";
    case TAMM_EPERM: return "not permitted by the task's permissions";
    case TAMM_EBUF: return "buffer misuse";
    case TAMM_ELEAK: return "buffer never released";
    case TAMM_ECANCEL: return "cancel of a non-cancellable buffer";
    case TAMM_EFSM: return "block state precondition violated";
    case TAMM_ESTATE: return "call not valid in this state";
    case TAMM_EDEADLOCK: return "deadlock: tasks can never run";
    case TAMM_ENOTSUP: return "not supported";
    case TAMM_ECOMM: return "communication failure";
    case TAMM_EACCESS: return "access mode violated by the task's body";
    case TAMM_EDEVICE: return "a task's variant failed (device)";
    default: return "unknown error";
    }
}

void tamm__fatal_oom(size_t bytes)
{
    fprintf(stderr, "tamm: fatal: out of memory (%zu bytes)\n", bytes);
    _exit(1);
}

void *tamm__xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) tamm__fatal_oom(n);
    return p;
}
void *tamm__xcalloc(size_t n, size_t sz)
{
    void *p = calloc(n ? n : 1, sz ? sz : 1);
    if (!p) tamm__fatal_oom(n * sz);
    return p;
}
void *tamm__xcalloc_lines(size_t bytes)
{
    bytes = (bytes + 127) & ~(size_t)127;
    void *p = aligned_alloc(128, bytes ? bytes : 128);
    if (!p) tamm__fatal_oom(bytes);
    return memset(p, 0, bytes);
}
void *tamm__xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) tamm__fatal_oom(n);
    return q;
}

int tamm__error_where(const tamm__where *w, int err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = tamm__verror(w, err, fmt, ap);
    va_end(ap);
    return rc;
}

void tamm__assert_fail(const char *expr, const char *file, int line, const char *func)
{
    fprintf(stderr, "tamm: internal error: assertion '%s' failed at %s:%d (%s)\n", expr, file, line, func);
    fflush(stderr);
    abort();
}
