/* xalloc.c — tammcc's allocation policy, vector growth and fault injection (see xalloc.h). */
#include "xalloc.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

_Noreturn void cc_oom(void)
{
    fputs("tammcc: out of memory\n", stderr);
    exit(1);
}

/* TAMMCC_FAIL_ALLOC: the number of the allocation that fails (1-based; 0: none, count) */
static long fail_at = -1; /* -1: the environment not read yet */
static unsigned long nalloc;

static void print_count(void) { fprintf(stderr, "tammcc: %lu allocations\n", nalloc); }

/* One more allocation: does fault injection make it fail? */
static int injected(void)
{
    if (fail_at < 0) {
        const char *e = getenv("TAMMCC_FAIL_ALLOC");
        char *end = NULL;
        long v = e && *e ? strtol(e, &end, 10) : -1;
        fail_at = v >= 0 && end && !*end ? v : 0;
        if (e && v == 0 && end && !*end) atexit(print_count);
    }
    return ++nalloc == (unsigned long)fail_at;
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
