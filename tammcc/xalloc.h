/*
 * xalloc.h — tammcc's one policy for memory: every allocation of the compiler's
 * own (not libclang's) goes through these wrappers, which never return NULL:
 * when memory runs out they print "tammcc: out of memory" on stderr and exit
 * with status 1 (as the runtime's tamm__xmalloc does), so no caller checks.
 * Vectors grow through cc_grow (capacity doubling), never one element at a
 * time.  A testing aid: TAMMCC_FAIL_ALLOC=N in the environment makes the N-th
 * allocation through these functions fail (the path above then runs);
 * TAMMCC_FAIL_ALLOC=0 fails none and prints "tammcc: N allocations" on stderr
 * at exit (the count a fault-injection test iterates over;
 * tests/tammcc/front/fault_injection.sh); TAMMCC_FAIL_ALLOC=each makes every
 * allocation fail once, each in a child process forked at that allocation,
 * checks that each child failed cleanly (exit status 1, the message last on
 * stderr, no sanitizer report, nothing on stdout) while the parent goes on,
 * and prints "tammcc: fault injection: N of M allocations failed cleanly" at
 * exit.  Part of tammcc_parse (no libclang).
 */
#ifndef TAMMCC_XALLOC_H
#define TAMMCC_XALLOC_H

#include <stdio.h>
#include <stddef.h>

/** Print "tammcc: out of memory" on stderr and exit(1): what every allocation
 *  of tammcc does when it fails (also for memory libc allocates for tammcc,
 *  e.g. an open_memstream buffer). */
_Noreturn void cc_oom(void);
/** malloc(n) (n == 0 allocates 1 byte); never NULL. */
void *cc_xmalloc(size_t n);
/** calloc(n, sz), zeroed (a zero count or size allocates 1 byte); never NULL,
 *  exits also when n * sz overflows. */
void *cc_xcalloc(size_t n, size_t sz);
/** realloc(p, n) (n == 0 keeps 1 byte); never NULL.  On failure p is left as it
 *  was (and still reachable from the caller) when the program exits. */
void *cc_xrealloc(void *p, size_t n);
/** A copy of s; never NULL. */
char *cc_xstrdup(const char *s);
/** A copy of at most n bytes of s, NUL-terminated; never NULL. */
char *cc_xstrndup(const char *s, size_t n);
/** open_memstream(buf, len), counted as one allocation; never NULL.  A caller
 *  that fcloses it checks the result with cc_xmemclose. */
FILE *cc_xmemstream(char **buf, size_t *len);
/** fclose of a cc_xmemstream stream: exits as cc_oom when a write into it ran
 *  out of memory (the buffer would be short). */
void cc_xmemclose(FILE *f);

/** Room for `need` elements of `elem` bytes in the vector p of capacity *cap
 *  (elements): p itself when *cap >= need, else p reallocated to a capacity
 *  that doubles (at least 4, at least need), stored in *cap.  *cap must never
 *  exceed what p holds (0 is always safe: p is then reallocated to the size).
 *  Never NULL. */
void *cc_grow(void *p, size_t *cap, size_t need, size_t elem);
/** Set in a child of TAMMCC_FAIL_ALLOC=each: the process shares its parent's
 *  scratch state (the driver's temporary directory), which it must leave alone. */
extern int cc_fault_child;

/** CC_GROW(v, cap, need): cc_grow for a typed vector v with its size_t capacity
 *  cap (lvalues), assigning v: `CC_GROW(t->acc, t->acc_cap, t->nacc + 1);`. */
#define CC_GROW(v, cap, need) ((v) = cc_grow((v), &(cap), (size_t)(need), sizeof *(v)))

#endif
