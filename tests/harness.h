/*
 * harness.h — a tiny header-only test harness for the tamm tests.
 *
 *   CHECK(cond), CHECK_MSG(cond, fmt, ...), CHECK_EQ_INT(a, b), CHECK_NE_INT(a, b),
 *   CHECK_NULL(p), CHECK_NOTNULL(p), CHECK_CONTAINS(haystack, needle)
 *       record a pass or a failure (printed with file:line) and continue.
 *   h_context(fmt, ...)   text printed with every following failure (e.g. the table cell).
 *   test_summary()        prints "N passed, N failed" on its own line; returns the exit code
 *                         (1 when a check failed, or when no check ran at all).
 *
 *   run_child(fn, arg, env, timeout_s, &st, errbuf)
 *       forks (the parent must not have called tamm_init: it stays single-threaded),
 *       applies env ("NAME=value" sets, "NAME" alone unsets; NULL-terminated list) in
 *       the child, runs fn(arg) there and exits with its return value (3 if a CHECK
 *       failed inside the child).  The child's stderr is captured into errbuf
 *       (H_ERRBUF_SIZE bytes, NUL-terminated) and its stdout into st.out.  After
 *       timeout_s seconds the child (and its process group) is killed and st.timed_out
 *       is set.  Returns 0 if the child ran, -1 if it could not be started.
 *   run_test_child(name, fn, arg, env, timeout_s)
 *       runs a test function in a child, merges the child's CHECK counts into the
 *       parent's, and records a failure if it did not exit 0 (signal, hang, status).
 *   child_ok / child_exit_is / child_clean_end   predicates on a h_status.
 *
 * Every helper is static inline (or unused-tolerant) so that a test may use any subset
 * under -Wall -Wextra -Werror.
 */
#ifndef TAMM_TEST_HARNESS_H
#define TAMM_TEST_HARNESS_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define H_ERRBUF_SIZE 65536
#define H_OUTBUF_SIZE 65536

typedef struct h_state {
    int passed, failed;
    int in_child;
    char context[512];
} h_state;

static h_state h__ __attribute__((unused));

static inline void h_context(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void h_context(const char *fmt, ...)
{
    if (!fmt) { h__.context[0] = 0; return; }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(h__.context, sizeof h__.context, fmt, ap);
    va_end(ap);
}

static inline int h__check(int ok, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static inline int h__check(int ok, const char *file, int line, const char *fmt, ...)
{
    /* Checks may run inside tasks on several workers at once. */
    if (ok) { __atomic_fetch_add(&h__.passed, 1, __ATOMIC_RELAXED); return 1; }
    __atomic_fetch_add(&h__.failed, 1, __ATOMIC_RELAXED);
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "FAIL %s:%d: %s%s%s%s\n", file, line, msg,
            h__.context[0] ? " [" : "", h__.context, h__.context[0] ? "]" : "");
    fflush(stderr);
    return 0;
}

#define CHECK(cond) h__check(!!(cond), __FILE__, __LINE__, "%s", #cond)
#define CHECK_MSG(cond, ...) h__check(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define CHECK_EQ_INT(a, b) do { long long h_a_ = (long long)(a), h_b_ = (long long)(b); \
    h__check(h_a_ == h_b_, __FILE__, __LINE__, "%s == %s (got %lld, expected %lld)", #a, #b, h_a_, h_b_); } while (0)
#define CHECK_NE_INT(a, b) do { long long h_a_ = (long long)(a), h_b_ = (long long)(b); \
    h__check(h_a_ != h_b_, __FILE__, __LINE__, "%s != %s (both %lld)", #a, #b, h_a_); } while (0)
#define CHECK_NULL(p) h__check((p) == NULL, __FILE__, __LINE__, "%s is NULL", #p)
#define CHECK_NOTNULL(p) h__check((p) != NULL, __FILE__, __LINE__, "%s is not NULL", #p)
#define CHECK_CONTAINS(hay, needle) do { const char *h_h_ = (hay), *h_n_ = (needle); \
    h__check(h_contains(h_h_, h_n_), __FILE__, __LINE__, "%s contains \"%s\" (text: \"%.600s\")", #hay, h_n_ ? h_n_ : "(null)", h_h_ ? h_h_ : "(null)"); } while (0)
#define CHECK_NOT_CONTAINS(hay, needle) do { const char *h_h_ = (hay), *h_n_ = (needle); \
    h__check(!h_contains(h_h_, h_n_), __FILE__, __LINE__, "%s does not contain \"%s\" (text: \"%.600s\")", #hay, h_n_ ? h_n_ : "(null)", h_h_ ? h_h_ : "(null)"); } while (0)

static inline int h__prefix_ci(const char *p, const char *needle)
{
    for (; *needle; p++, needle++) {
        char a = *p, b = *needle;
        if (!a) return 0;
        if (a >= 'A' && a <= 'Z') a = (char)(a - 'A' + 'a');
        if (b >= 'A' && b <= 'Z') b = (char)(b - 'A' + 'a');
        if (a != b) return 0;
    }
    return 1;
}

/** Case-insensitive substring search. */
static inline int h_contains(const char *hay, const char *needle)
{
    if (!hay || !needle) return 0;
    if (!*needle) return 1;
    for (const char *p = hay; *p; p++)
        if (h__prefix_ci(p, needle)) return 1;
    return 0;
}

/** Number of (case-insensitive, non-overlapping) occurrences of needle in hay. */
static inline int h_count(const char *hay, const char *needle)
{
    int c = 0;
    size_t n = needle ? strlen(needle) : 0;
    if (!hay || n == 0) return 0;
    for (const char *p = hay; *p; p++)
        if (h__prefix_ci(p, needle)) { c++; p += n - 1; }
    return c;
}

static inline int test_summary(void)
{
    fflush(stderr);
    if (h__.passed + h__.failed == 0) { /* a test that checked nothing proves nothing: a failure */
        fprintf(stderr, "FAIL: no check ran\n");
        h__.failed = 1;
    }
    printf("%d passed, %d failed\n", h__.passed, h__.failed);
    fflush(stdout);
    return h__.failed ? 1 : 0;
}

static inline double h_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline void h_sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

/* ------------------------------------------------------------------ */
/* Children                                                             */
/* ------------------------------------------------------------------ */
typedef struct h_status {
    int exited;      /**< exited normally */
    int code;        /**< exit status if exited */
    int signaled;    /**< killed by a signal (other than our timeout kill) */
    int sig;
    int timed_out;   /**< killed by us after the timeout: a hang */
    double secs;     /**< run time */
    char out[H_OUTBUF_SIZE];   /**< captured stdout, NUL-terminated */
    size_t outlen;
} h_status;

typedef int (*h_child_fn)(void *arg);

/* Variables that change what a test observes; a child starts without them
 * unless its env list sets them. */
static const char *const h__scrub[] __attribute__((unused)) = {
    "TAMM_ON_ERROR", "TAMM_TRACE", "TAMM_DAG", "TAMM_STATS", "TAMM_SEQUENTIAL", "TAMM_CHECK_ACCESS", NULL
};

static inline void h__append(char *buf, size_t cap, size_t *len, const char *src, size_t n)
{
    if (*len + 1 >= cap) return;
    if (n > cap - 1 - *len) n = cap - 1 - *len;
    memcpy(buf + *len, src, n);
    *len += n;
    buf[*len] = 0;
}

/** Set while running a child that must fail and may do so by a sanitizer report. */
static int h_sanitizer_expected;

static inline int run_child(h_child_fn fn, void *arg, const char *const *env, double timeout_s,
                            h_status *st, char *errbuf)
{
    int perr[2], pout[2];
    memset(st, 0, sizeof *st);
    if (errbuf) errbuf[0] = 0;
    if (pipe(perr) != 0) return -1;
    if (pipe(pout) != 0) { close(perr[0]); close(perr[1]); return -1; }
    fflush(stdout);
    fflush(stderr);
    double t0 = h_now();
    pid_t pid = fork();
    if (pid < 0) {
        close(perr[0]); close(perr[1]); close(pout[0]); close(pout[1]);
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0);
        close(perr[0]);
        close(pout[0]);
        dup2(perr[1], 2);
        dup2(pout[1], 1);
        close(perr[1]);
        close(pout[1]);
        for (int i = 0; h__scrub[i]; i++) unsetenv(h__scrub[i]);
        for (int i = 0; env && env[i]; i++) {
            const char *eq = strchr(env[i], '=');
            if (!eq) { unsetenv(env[i]); continue; }
            char name[256];
            size_t n = (size_t)(eq - env[i]);
            if (n >= sizeof name) n = sizeof name - 1;
            memcpy(name, env[i], n);
            name[n] = 0;
            setenv(name, eq + 1, 1);
        }
        h__.passed = h__.failed = 0;
        h__.in_child = 1;
        int r = fn(arg);
        fflush(stderr);
        printf("\n@@H passed=%d failed=%d\n", h__.passed, h__.failed);
        fflush(stdout);
        exit(h__.failed ? 3 : r);
    }
    setpgid(pid, pid); /* also done by the child; whichever runs first */
    close(perr[1]);
    close(pout[1]);
    fcntl(perr[0], F_SETFL, O_NONBLOCK);
    fcntl(pout[0], F_SETFL, O_NONBLOCK);
    size_t errlen = 0;
    int open_err = 1, open_out = 1, done = 0, wstatus = 0;
    double deadline = t0 + timeout_s;
    char tmp[4096];
    while (!done) {
        struct pollfd pf[2];
        int np = 0;
        if (open_err) { pf[np].fd = perr[0]; pf[np].events = POLLIN; pf[np].revents = 0; np++; }
        if (open_out) { pf[np].fd = pout[0]; pf[np].events = POLLIN; pf[np].revents = 0; np++; }
        double left = deadline - h_now();
        if (left <= 0) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            st->timed_out = 1;
            waitpid(pid, &wstatus, 0);
            break;
        }
        int ms = (int)(left * 1000) + 1;
        if (ms > 50) ms = 50;
        if (np > 0) poll(pf, (nfds_t)np, ms);
        else h_sleep_ms(ms < 5 ? ms : 5);
        for (int i = 0; i < np; i++) {
            if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            ssize_t k;
            while ((k = read(pf[i].fd, tmp, sizeof tmp)) > 0) {
                if (pf[i].fd == perr[0]) {
                    if (errbuf) h__append(errbuf, H_ERRBUF_SIZE, &errlen, tmp, (size_t)k);
                } else {
                    h__append(st->out, sizeof st->out, &st->outlen, tmp, (size_t)k);
                }
            }
            if (k == 0) {
                if (pf[i].fd == perr[0]) open_err = 0; else open_out = 0;
            }
        }
        if (!open_err && !open_out) {
            pid_t w = waitpid(pid, &wstatus, WNOHANG);
            if (w == pid) done = 1;
        }
    }
    /* The child is gone (or killed): its process group may hold stragglers. */
    kill(-pid, SIGKILL);
    close(perr[0]);
    close(pout[0]);
    st->secs = h_now() - t0;
    if (!st->timed_out) {
        if (WIFEXITED(wstatus)) { st->exited = 1; st->code = WEXITSTATUS(wstatus); }
        else if (WIFSIGNALED(wstatus)) { st->signaled = 1; st->sig = WTERMSIG(wstatus); }
    }
    /* A sanitizer report is a failure even when the exit status looks as expected
     * (ASan exits with status 1, like a reported misuse) — unless the test expects
     * one (h_sanitizer_expected: a child that must fail, by a wrong result or a report). */
    if (errbuf && !h_sanitizer_expected && (strstr(errbuf, "Sanitizer") || strstr(errbuf, "runtime error:"))) {
        h__check(0, __FILE__, __LINE__, "the child's stderr has a sanitizer report");
        fprintf(stderr, "%.6000s\n", errbuf);
    }
    return 0;
}

/** Ended by itself: neither killed by a signal nor hung. */
static inline int child_clean_end(const h_status *st) { return st->exited && !st->timed_out && !st->signaled; }
static inline int child_exit_is(const h_status *st, int code) { return child_clean_end(st) && st->code == code; }
static inline int child_ok(const h_status *st) { return child_exit_is(st, 0); }

/** Describe how a child ended ("exit 1", "signal 11", "hang (killed after 10.0 s)"). */
static inline const char *child_how(const h_status *st, char *buf, size_t n)
{
    if (st->timed_out) snprintf(buf, n, "hang (killed after %.1f s)", st->secs);
    else if (st->signaled) snprintf(buf, n, "signal %d (%s)", st->sig, strsignal(st->sig));
    else if (st->exited) snprintf(buf, n, "exit %d", st->code);
    else snprintf(buf, n, "unknown end");
    return buf;
}

/** Print a child's captured output (for a failure's diagnosis). */
static inline void h_dump_child(const char *name, const h_status *st, const char *errbuf)
{
    char how[128];
    fprintf(stderr, "---- child '%s': %s ----\n", name, child_how(st, how, sizeof how));
    if (errbuf && errbuf[0]) fprintf(stderr, "stderr:\n%.4000s\n", errbuf);
    if (st->out[0]) fprintf(stderr, "stdout:\n%.2000s\n", st->out);
    fprintf(stderr, "----\n");
    fflush(stderr);
}

/** Merge the CHECK counts a child printed ("@@H passed=N failed=M"). Returns 1 if found. */
static inline int h__merge_counts(const h_status *st)
{
    const char *p = strstr(st->out, "@@H passed=");
    if (!p) return 0;
    int pa = 0, fa = 0;
    if (sscanf(p, "@@H passed=%d failed=%d", &pa, &fa) != 2) return 0;
    h__.passed += pa;
    h__.failed += fa;
    return 1;
}

/** Run fn in a child expecting exit 0; merge its checks; report how it ended. */
static inline int run_test_child(const char *name, h_child_fn fn, void *arg, const char *const *env,
                                 double timeout_s)
{
    static char errbuf[H_ERRBUF_SIZE];
    static h_status st;
    char how[128];
    if (run_child(fn, arg, env, timeout_s, &st, errbuf) != 0) {
        h__check(0, __FILE__, __LINE__, "%s: could not fork", name);
        return 0;
    }
    h__merge_counts(&st);
    int ok = h__check(child_ok(&st), __FILE__, __LINE__, "test '%s' ended cleanly (got %s)", name,
                      child_how(&st, how, sizeof how));
    if (!ok) h_dump_child(name, &st, errbuf);
    return ok;
}

#endif /* TAMM_TEST_HARNESS_H */
