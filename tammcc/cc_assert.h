/*
 * cc_assert.h — CC_ASSERT(expr): an invariant of tammcc's own passes (an index
 * in range, a node the pass relies on being there), not a diagnostic about the
 * input (those go through diag.h).  A failed assertion prints
 *     tammcc: internal error: assertion 'EXPR' failed at FILE:LINE (FUNCTION)
 * on stderr and calls abort(): a bug in tammcc, whatever the input.
 *
 * Enabled by the compile definition TAMM_ASSERTIONS=1, the runtime's switch
 * (rt/base/tamm_assert.h): the top-level CMakeLists.txt sets it for Debug
 * builds and the sanitizer builds (TAMM_SANITIZE=address|thread), and the
 * cache option TAMM_ASSERTIONS=ON|OFF overrides that.  Without it (Release,
 * RelWithDebInfo without a sanitizer) CC_ASSERT(expr) generates no code and
 * does not evaluate expr (it stays inside sizeof).  cc_assert_fail lives in
 * diag.c (part of tammcc_parse, so the clause fuzzer has it too).
 */
#ifndef TAMMCC_CC_ASSERT_H
#define TAMMCC_CC_ASSERT_H

#ifndef TAMM_ASSERTIONS
#define TAMM_ASSERTIONS 0
#endif

/** Print the internal-error message for a failed assertion and abort(). */
__attribute__((noinline, cold)) _Noreturn void cc_assert_fail(const char *expr, const char *file, int line,
                                                              const char *func);

#if TAMM_ASSERTIONS
#define CC_ASSERT(e) (__builtin_expect(!!(e), 1) ? (void)0 : cc_assert_fail(#e, __FILE__, __LINE__, __func__))
#else
#define CC_ASSERT(e) ((void)sizeof(!(e)))
#endif

#endif
