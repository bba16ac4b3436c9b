/* xalloc.c — tammcc's allocation policy, vector growth and fault injection (see xalloc.h). */
#include "xalloc.h"
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define TAMM_UNLIKELY_CC(x) __builtin_expect(!!(x), 0)

int cc_fault_child;

/* LeakSanitizer's check, when the sanitizer runtime is linked in (the ASan build): weak, so that
 * it is NULL elsewhere */
extern void __lsan_do_leak_check(void) __attribute__((weak));

/* How a child of TAMMCC_FAIL_ALLOC=each exits: what exit() would check and write, without
 * libclang's static destructors.  tammcc's own atexit handlers do nothing in such a child
 * (print_count is not registered in a sweep, print_sweep and the driver's remove_tmpdir skip a
 * child), so what is left out is LLVM's teardown of the parent's state, which costs four times
 * the rest of the child (copy-on-write faults on every page it touches) and is the same in every
 * child; the two processes fault_injection.sh fails the first and the last allocation in exit
 * through exit() itself, destructors included.  Leaks are checked as exit() would, and a leak
 * makes the child die with LeakSanitizer's report (not status 1: the parent counts it unclean). */
static _Noreturn void fault_child_exit(int status)
{
    if (__lsan_do_leak_check) __lsan_do_leak_check();
    fflush(NULL);
    _exit(status);
}

_Noreturn void cc_oom(void)
{
    fputs("tammcc: out of memory\n", stderr);
    if (cc_fault_child) fault_child_exit(1);
    exit(1);
}

/* TAMMCC_FAIL_ALLOC: the number of the allocation that fails (1-based; 0: none, count;
 * "each": every allocation fails once, in a child process) */
static long fail_at = -1; /* -1: the environment not read yet */
static unsigned long nalloc;
static int sweep;                    /* TAMMCC_FAIL_ALLOC=each, in the parent */
static unsigned long swept, swept_bad; /* the children run, those that did not fail cleanly */

static void print_count(void) { fprintf(stderr, "tammcc: %lu allocations\n", nalloc); }

static void print_sweep(void)
{
    if (cc_fault_child) return;
    fprintf(stderr, "tammcc: fault injection: %lu of %lu allocations failed cleanly\n", swept - swept_bad, swept);
}

/* Why the child that failed allocation nalloc did not fail cleanly (NULL: it did): its status
 * st, its stdout o and stderr e (temporary files). */
static const char *unclean(int st, FILE *o, FILE *e, char *tail, size_t ntail)
{
    static char why[64];
    fseek(e, 0, SEEK_END);
    long n = ftell(e);
    long from = n > (long)ntail - 1 ? n - ((long)ntail - 1) : 0;
    fseek(e, from, SEEK_SET);
    size_t got = fread(tail, 1, ntail - 1, e);
    tail[got] = 0;
    if (WIFSIGNALED(st)) {
        snprintf(why, sizeof why, "killed by signal %d", WTERMSIG(st));
        return why;
    }
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 1) {
        snprintf(why, sizeof why, "exit status %d, not 1", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
        return why;
    }
    const char *msg = "tammcc: out of memory\n";
    size_t lm = strlen(msg);
    if (got < lm || strcmp(tail + got - lm, msg)) return "stderr does not end with 'tammcc: out of memory'";
    /* a sanitizer's report (in the ASan build it exits 1 too): anywhere in stderr */
    char line[512];
    rewind(e);
    while (fgets(line, sizeof line, e))
        if (strstr(line, "Sanitizer") || strstr(line, "runtime error")) return "a sanitizer's report";
    fseek(o, 0, SEEK_END);
    if (ftell(o) != 0) return "output on stdout";
    return NULL;
}

/* TAMMCC_FAIL_ALLOC=each: fork; the child fails this allocation (returns 1, its stdout and stderr
 * in temporary files), the parent waits for it, checks that it failed cleanly, and goes on with the
 * allocation (returns 0).  The translation is parsed once, whatever the number of allocations. */
static int sweep_one(void)
{
    fflush(NULL); /* nothing buffered that the child would write again */
    FILE *o = tmpfile(), *e = tmpfile();
    if (!o || !e) {
        fputs("tammcc: fault injection: cannot create a temporary file\n", stderr);
        exit(2);
    }
    pid_t pid = fork();
    if (pid < 0) {
        fputs("tammcc: fault injection: cannot fork\n", stderr);
        exit(2);
    }
    if (pid == 0) {
        cc_fault_child = 1;
        sweep = 0;
        dup2(fileno(o), 1);
        dup2(fileno(e), 2);
        return 1;
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    char tail[1024];
    const char *why = unclean(st, o, e, tail, sizeof tail);
    swept++;
    if (why) {
        swept_bad++;
        fprintf(stderr, "tammcc: fault injection: allocation %lu: %s; the end of its stderr:\n%s\n", nalloc, why, tail);
    }
    fclose(o);
    fclose(e);
    return 0;
}

/* One more allocation: does fault injection make it fail? */
static int injected(void)
{
    if (fail_at < 0) {
        const char *e = getenv("TAMMCC_FAIL_ALLOC");
        char *end = NULL;
        long v = e && *e ? strtol(e, &end, 10) : -1;
        fail_at = v >= 0 && end && !*end ? v : 0;
        if (e && v == 0 && end && !*end) atexit(print_count);
        if (e && !strcmp(e, "each")) {
            sweep = 1;
            atexit(print_sweep);
        }
    }
    ++nalloc;
    if (TAMM_UNLIKELY_CC(sweep)) return sweep_one();
    return nalloc == (unsigned long)fail_at;
}

void *cc_xmalloc(size_t n)
{
    void *p = injected() ? NULL : malloc(n ? n : 1);
    if (!p) cc_oom();
    return p;
}

void *cc_xcalloc(size_t n, size_t sz)
{
    if (sz && n > SIZE_MAX / sz) cc_oom();
    void *p = injected() ? NULL : calloc(n ? n : 1, sz ? sz : 1);
    if (!p) cc_oom();
    return p;
}

void *cc_xrealloc(void *p, size_t n)
{
    void *q = injected() ? NULL : realloc(p, n ? n : 1);
    if (!q) cc_oom();
    return q;
}

char *cc_xstrdup(const char *s)
{
    size_t l = strlen(s) + 1;
    return memcpy(cc_xmalloc(l), s, l);
}

char *cc_xstrndup(const char *s, size_t n)
{
    size_t l = strnlen(s, n);
    char *r = cc_xmalloc(l + 1);
    memcpy(r, s, l);
    r[l] = 0;
    return r;
}

FILE *cc_xmemstream(char **buf, size_t *len)
{
    FILE *f = injected() ? NULL : open_memstream(buf, len);
    if (!f) cc_oom();
    return f;
}

void cc_xmemclose(FILE *f)
{
    if (fclose(f)) cc_oom();
}

void *cc_grow(void *p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return p;
    size_t c = *cap < 4 ? 4 : *cap;
    while (c < need) {
        if (c > SIZE_MAX / 2) cc_oom();
        c *= 2;
    }
    if (elem && c > SIZE_MAX / elem) cc_oom();
    p = cc_xrealloc(p, c * elem);
    *cap = c;
    return p;
}
