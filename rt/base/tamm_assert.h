/*
 * tamm_assert.h — TAMM_ASSERT(expr): an invariant of the runtime's own code
 * (not a check of the program's use of the API: misuse is reported through
 * error.h).  A failed assertion prints
 *     tamm: internal error: assertion 'EXPR' failed at FILE:LINE (FUNCTION)
 * on stderr and calls abort(): it is a bug in libtammrt, never in the program.
 *
 * Enabled by the compile definition TAMM_ASSERTIONS=1, which the top-level
 * CMakeLists.txt sets for Debug builds and for the sanitizer builds
 * (TAMM_SANITIZE=address|thread, any build type); the cache option
 * TAMM_ASSERTIONS=ON|OFF overrides that choice.  Without it (Release,
 * RelWithDebInfo, MinSizeRel without a sanitizer) TAMM_ASSERT(expr) generates
 * no code and does not evaluate expr (it stays inside sizeof, so a variable
 * used only by an assertion still counts as used): the hot path (task.c's
 * submit and complete, rt/exec/) pays nothing.  tests/rt/base/test_assert.c and
 * tests/assert_symbols.sh check both halves.
 *
 * TAMM_ASSERT_ONLY(code): code present only with assertions (a debug-only
 * field's update, a lock-owner record).  tamm__mutex_held(m): whether m is
 * locked (by anyone: pthread_mutex_trylock fails), for lock preconditions
 * under TAMM_ASSERT only; tamm__spin_held(l) the same for a tamm__spin.
 */
#ifndef TAMM_TAMM_ASSERT_H
#define TAMM_TAMM_ASSERT_H

#ifndef TAMM_ASSERTIONS
#define TAMM_ASSERTIONS 0
#endif

#include "util.h"
#include <pthread.h>

/** 1 when spin lock l is held (by some thread): "block lock held" preconditions. */
static inline int tamm__spin_held(tamm__spin *l) { return atomic_load_explicit(&l->v, memory_order_relaxed) != 0; }

/** 1 when m is locked (by this thread or another): trylock fails.  A lock
 *  precondition "called with m held" asserts this (inside TAMM_ASSERT only:
 *  it costs a trylock). */
static inline int tamm__mutex_held(pthread_mutex_t *m)
{
    if (pthread_mutex_trylock(m) != 0) return 1;
    pthread_mutex_unlock(m);
    return 0;
}

/** Take 1 off the atomic counter *c (memory order `order`) and assert that it was at
 *  least 1: a count never goes below zero.  The decrement happens in every build;
 *  only the check is compiled out. */
#define TAMM_COUNT_DOWN(c, order)                                                       \
    do {                                                                                \
        __typeof__(atomic_load(c)) tamm_was_ = atomic_fetch_sub_explicit((c), 1, (order)); \
        TAMM_ASSERT(tamm_was_ >= 1);                                                    \
    } while (0)

/** Print the internal-error message for a failed assertion and abort(). */
__attribute__((noinline, cold)) _Noreturn void tamm__assert_fail(const char *expr, const char *file, int line,
                                                                 const char *func);

#if TAMM_ASSERTIONS
#define TAMM_ASSERT(e) \
    (__builtin_expect(!!(e), 1) ? (void)0 : tamm__assert_fail(#e, __FILE__, __LINE__, __func__))
#define TAMM_ASSERT_ONLY(...) __VA_ARGS__
#else
#define TAMM_ASSERT(e) ((void)sizeof(!(e)))
#define TAMM_ASSERT_ONLY(...)
#endif

#endif
