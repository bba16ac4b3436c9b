/*
 * emu_mem.c — the emulated device's memory: one PROT_NONE address range per
 * device, allocations opened only while a device operation uses them, and the
 * fault handler that names what a stray access touched (emu_mem.h).
 *
 * Layout of a device's range: a gap (never handed out: nothing mapped next to
 * it is mistaken for device memory), then allocations, each [guard page][data
 * pages] with the allocation ending at the 256-byte boundary nearest the end
 * of its data pages, then another gap.  Space is found next-fit from where the
 * last allocation ended, so a freed range is reused late (a stale pointer
 * faults for a while instead of reaching a new allocation).  A fresh allocation
 * is mapped anew (fresh pages; the sanitizers' shadow of the range is reset by
 * their mmap interceptors, as malloc would), filled with 0xA5 and closed;
 * a release maps the range anew with no access (its pages go back).
 */
#include "emu_mem.h"
#include "gpu.h"
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define EMU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EMU_ASAN 1
#endif
#endif
#ifdef EMU_ASAN
void __asan_poison_memory_region(void const volatile *addr, size_t size);
void __asan_unpoison_memory_region(void const volatile *addr, size_t size);
#define POISON(p, n) __asan_poison_memory_region((p), (n))
#define UNPOISON(p, n) __asan_unpoison_memory_region((p), (n))
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define GAP ((size_t)64 << 20) /* unused bytes at each end of a device's range */
#define ALIGN 256              /* cudaMalloc's alignment */

typedef struct ealloc {
    char *base;     /* its guard page; data pages follow */
    size_t pages;   /* pages it holds, the guard included */
    char *p;        /* what the caller got */
    size_t n;
    uint64_t id;
    int refs;       /* device operations using it now: its data pages are accessible while > 0 */
    int freeing;    /* a free was issued */
    int released;   /* the free was reached while in use: released when refs drops to 0 */
} ealloc;

typedef struct extent { size_t off, len; } extent; /* free pages [off, off + len) of a range */

typedef struct edev {
    pthread_mutex_t mu;
    char *lo, *hi;              /* the pages handed out come from [lo, hi) */
    ealloc **v;                 /* live allocations, by base */
    size_t n, cap;
    extent *fx;                 /* free extents, by offset */
    size_t nfx, capfx;
    size_t cursor;              /* next-fit: the page after the last allocation */
    ealloc gone[64];            /* the last allocations released, for the fault report's account */
    unsigned ngone;
} edev;

static edev devs[TAMM_MAX_GPUS];
static uintptr_t rlo[TAMM_MAX_GPUS], rhi[TAMM_MAX_GPUS]; /* the ranges, for the fault handler (set once) */
static int ndevs;
static size_t pg;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int init_rc;
static int init_ndev;
static size_t init_cap;
static atomic_ullong next_id;
static atomic_long live;
static _Thread_local const tamm__emu_mark *cur_mark;
void (*tamm__emu_mem_host_who)(char *buf, size_t n);

typedef struct pinreg { const char *p; size_t n; } pinreg;
static pthread_mutex_t pin_mu = PTHREAD_MUTEX_INITIALIZER;
static pinreg *pins;
static size_t npins, cappins;

/* the number of registered blocks starting at or before p (pin_mu held): pins[i - 1] may hold p */
static size_t pin_find(const void *p)
{
    size_t lo = 0, hi = npins;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (pins[mid].p <= (const char *)p) lo = mid + 1; else hi = mid;
    }
    return lo;
}

static struct sigaction prev_segv;
static atomic_int reported, report_done;

/* ------------------------------------------------------------------ */
/* the fault handler                                                     */
/* ------------------------------------------------------------------ */
static int dev_of(uintptr_t a)
{
    for (int d = 0; d < ndevs; d++)
        if (a >= rlo[d] - GAP && a < rhi[d] + GAP) return d;
    return -1;
}

/* the number of allocations of e whose base is at or below a (mu held) */
static size_t below(const edev *e, const char *a)
{
    size_t lo = 0, hi = e->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (e->v[mid]->base <= a) lo = mid + 1; else hi = mid;
    }
    return lo;
}

#define NEAR ((size_t)1 << 20) /* a stray address this close to an allocation is said to be near it */

/* what address a of device d is, in words (mu held): which allocation it is in, or past the end
 * or before the start of (a guard page, free space), or none */
static void describe(int d, const char *a, char *buf, size_t n)
{
    const edev *e = &devs[d];
    size_t i = below(e, a);
    if (!(i && a >= e->v[i - 1]->base + pg && a < e->v[i - 1]->base + e->v[i - 1]->pages * pg)) {
        /* not in a live allocation's pages: in a released one's (the most recent first)? */
        unsigned m = e->ngone < 64 ? e->ngone : 64;
        for (unsigned k = 0; k < m; k++) {
            const ealloc *g = &e->gone[(e->ngone - 1 - k) % 64];
            if (a >= g->base + pg && a < g->base + g->pages * pg) {
                if (a >= g->p && a < g->p + g->n)
                    snprintf(buf, n, "device %d allocation of %zu bytes at %p, offset %zu, which was freed", d, g->n,
                             (void *)g->p, (size_t)(a - g->p));
                else
                    snprintf(buf, n, "device %d memory near an allocation of %zu bytes at %p, which was freed", d, g->n,
                             (void *)g->p);
                return;
            }
        }
    }
    const ealloc *x = i ? e->v[i - 1] : NULL, *prev = i > 1 ? e->v[i - 2] : NULL;
    if (x && a < x->base + pg && prev) x = prev;                 /* a guard page: after the one below it */
    else if (x && a < x->base + pg) x = NULL, prev = e->v[i - 1]; /* the first allocation's guard */
    else if (!x && e->n) prev = e->v[0];
    const char *st = x && (x->released || x->freeing) ? (x->released ? " (freed)" : " (being freed)") : "";
    if (x && a >= x->p && a < x->p + x->n)
        snprintf(buf, n, "device %d allocation of %zu bytes at %p%s, offset %zu", d, x->n, (void *)x->p, st,
                 (size_t)(a - x->p));
    else if (x && a >= x->p + x->n && (size_t)(a - (x->p + x->n)) < NEAR)
        snprintf(buf, n, "%zu bytes past the end of the device %d allocation of %zu bytes at %p%s",
                 (size_t)(a - (x->p + x->n)), d, x->n, (void *)x->p, st);
    else if (x && a < x->p)
        snprintf(buf, n, "%zu bytes before the start of the device %d allocation of %zu bytes at %p%s",
                 (size_t)(x->p - a), d, x->n, (void *)x->p, st);
    else if (!x && prev && a < prev->p && (size_t)(prev->p - a) < NEAR)
        snprintf(buf, n, "%zu bytes before the start of the device %d allocation of %zu bytes at %p", (size_t)(prev->p - a),
                 d, prev->n, (void *)prev->p);
    else
        snprintf(buf, n, "device %d memory that is not allocated (freed, or never allocated)", d);
}

/* the allocation of e whose pages hold a (mu held), or NULL */
static ealloc *find(edev *e, const char *a)
{
    size_t i = below(e, a);
    ealloc *x = i ? e->v[i - 1] : NULL;
    return x && a < x->base + x->pages * pg ? x : NULL;
}

static void chain(int sig, siginfo_t *si, void *uc)
{
    if (prev_segv.sa_flags & SA_SIGINFO) {
        if (prev_segv.sa_sigaction) { prev_segv.sa_sigaction(sig, si, uc); return; }
    } else if (prev_segv.sa_handler != SIG_DFL && prev_segv.sa_handler != SIG_IGN) {
        prev_segv.sa_handler(sig);
        return;
    }
    signal(sig, SIG_DFL); /* the access is retried and the process ends by SIGSEGV */
}

/* A fault in a device's range: say what was touched and by what, then end as a GPU program
 * would (the sanitizer's report or the default action: the previous handler).  Runs once. */
static void on_segv(int sig, siginfo_t *si, void *uc)
{
    const char *a = si->si_addr;
    int d = dev_of((uintptr_t)a);
    if (d < 0) { chain(sig, si, uc); return; }
    if (atomic_exchange(&reported, 1)) { /* another thread faulted first: after its report */
        struct timespec ts = { 0, 1000000 };
        for (int i = 0; i < 5000 && !atomic_load(&report_done); i++) nanosleep(&ts, NULL);
        chain(sig, si, uc);
        return;
    }
    static char what[300], who[300], msg[1024];
    what[0] = who[0] = 0;
    pthread_mutex_lock(&devs[d].mu); /* never held by a thread touching device memory */
    describe(d, a, what, sizeof what);
    pthread_mutex_unlock(&devs[d].mu);
    const tamm__emu_mark *m = cur_mark;
    int len;
    if (m)
        len = snprintf(msg, sizeof msg, "tamm: error: an illegal memory access was encountered on emulated GPU %d: "
                       "%s accessed %p (%s); device code reaches only the device allocations it was given, within "
                       "their bounds [segmentation fault]\n", m->dev, m->who && *m->who ? m->who : "device code",
                       (void *)a, what);
    else {
        if (tamm__emu_mem_host_who) tamm__emu_mem_host_who(who, sizeof who);
        len = snprintf(msg, sizeof msg, "tamm: error: host code%s%s accessed emulated device memory at %p (%s): the "
                       "host reaches device memory only through copies (cudaMemcpy), as with a GPU "
                       "[segmentation fault]\n", who[0] ? " in " : "", who, (void *)a, what);
    }
    if (len > (int)sizeof msg - 1) len = (int)sizeof msg - 1;
    if (len > 0 && write(2, msg, (size_t)len) < 0) { /* nothing more to say */ }
    atomic_store(&report_done, 1);
    chain(sig, si, uc);
}

/* ------------------------------------------------------------------ */
/* ranges                                                                */
/* ------------------------------------------------------------------ */
static void init_once(void)
{
    pg = (size_t)sysconf(_SC_PAGESIZE);
    size_t cap = (init_cap + pg - 1) / pg * pg;
    for (int d = 0; d < init_ndev && d < TAMM_MAX_GPUS; d++) {
        /* room for the capacity twice over (each allocation takes whole pages and a guard),
         * less when the address space is short */
        size_t want = 2 * cap + ((size_t)256 << 20), min = cap + ((size_t)64 << 20);
        char *r = MAP_FAILED;
        for (size_t span = want; r == MAP_FAILED && span >= min; span = span / 2 / pg * pg) {
            r = mmap(NULL, span + 2 * GAP, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
            if (r != MAP_FAILED) {
                edev *e = &devs[d];
                pthread_mutex_init(&e->mu, NULL);
                e->lo = r + GAP;
                e->hi = e->lo + span;
                e->fx = malloc(sizeof *e->fx);
                if (!e->fx) { init_rc = -1; return; }
                e->fx[0] = (extent){ 0, span / pg };
                e->nfx = e->capfx = 1;
                rlo[d] = (uintptr_t)e->lo;
                rhi[d] = (uintptr_t)e->hi;
            }
        }
        if (r == MAP_FAILED) { init_rc = -1; return; }
        ndevs = d + 1;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSEGV, &sa, &prev_segv)) init_rc = -1;
}

int tamm__emu_mem_init(int ndev, size_t capacity)
{
    init_ndev = ndev;
    init_cap = capacity;
    pthread_once(&once, init_once);
    return init_rc;
}

/* take len pages from the free extents of e, next-fit from the cursor (mu held); (size_t)-1: none */
static size_t take(edev *e, size_t len)
{
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < e->nfx; i++) {
            extent *x = &e->fx[i];
            size_t start = x->off;
            if (pass == 0) { /* from the cursor on */
                if (x->off + x->len <= e->cursor) continue;
                if (start < e->cursor) start = e->cursor;
            }
            if (x->off + x->len - start < len) continue;
            size_t end = start + len, xend = x->off + x->len;
            if (start == x->off) { /* from its head */
                x->off = end;
                x->len = xend - end;
                if (!x->len) {
                    memmove(x, x + 1, (e->nfx - i - 1) * sizeof *x);
                    e->nfx--;
                }
            } else if (end == xend) {
                x->len = start - x->off;
            } else { /* from its middle: split */
                if (e->nfx == e->capfx) {
                    size_t c = 2 * e->capfx;
                    extent *f = realloc(e->fx, c * sizeof *f);
                    if (!f) return (size_t)-1;
                    e->fx = f;
                    e->capfx = c;
                    x = &e->fx[i];
                }
                memmove(x + 2, x + 1, (e->nfx - i - 1) * sizeof *x);
                e->nfx++;
                x[1] = (extent){ end, xend - end };
                x->len = start - x->off;
            }
            e->cursor = end;
            return start;
        }
    return (size_t)-1;
}

/* give pages [off, off + len) back (mu held); -1: no memory for the list (the pages are lost) */
static int give(edev *e, size_t off, size_t len)
{
    size_t i = 0;
    while (i < e->nfx && e->fx[i].off < off) i++;
    int left = i > 0 && e->fx[i - 1].off + e->fx[i - 1].len == off;
    int right = i < e->nfx && off + len == e->fx[i].off;
    if (left && right) {
        e->fx[i - 1].len += len + e->fx[i].len;
        memmove(&e->fx[i], &e->fx[i + 1], (e->nfx - i - 1) * sizeof *e->fx);
        e->nfx--;
    } else if (left) {
        e->fx[i - 1].len += len;
    } else if (right) {
        e->fx[i].off = off;
        e->fx[i].len += len;
    } else {
        if (e->nfx == e->capfx) {
            size_t c = 2 * e->capfx;
            extent *f = realloc(e->fx, c * sizeof *f);
            if (!f) return -1;
            e->fx = f;
            e->capfx = c;
        }
        memmove(&e->fx[i + 1], &e->fx[i], (e->nfx - i) * sizeof *e->fx);
        e->fx[i] = (extent){ off, len };
        e->nfx++;
    }
    return 0;
}

void *tamm__emu_mem_alloc(int dev, size_t n, uint64_t *id, char *why, size_t nwhy)
{
    if (dev < 0 || dev >= ndevs || !n) {
        snprintf(why, nwhy, "no emulated device %d or no bytes", dev);
        return NULL;
    }
    edev *e = &devs[dev];
    size_t rounded = (n + ALIGN - 1) / ALIGN * ALIGN, data = (rounded + pg - 1) / pg;
    ealloc *x = calloc(1, sizeof *x);
    snprintf(why, nwhy, "the host is out of memory for the emulator's records");
    if (!x) return NULL;
    pthread_mutex_lock(&e->mu);
    if (e->n == e->cap) {
        size_t c = e->cap ? 2 * e->cap : 64;
        ealloc **v = realloc(e->v, c * sizeof *v);
        if (!v) goto fail;
        e->v = v;
        e->cap = c;
    }
    size_t off = take(e, data + 1);
    if (off == (size_t)-1) {
        snprintf(why, nwhy, "the device's address range is full: %zu live allocations, each in whole pages after a "
                 "guard page", e->n);
        goto fail;
    }
    x->base = e->lo + off * pg;
    x->pages = data + 1;
    char *d0 = x->base + pg, *d1 = d0 + data * pg;
    x->p = d1 - rounded;
    x->n = n;
    x->id = atomic_fetch_add(&next_id, 1) + 1;
    /* fresh pages, garbage in them, then closed.  They are mapped as the range is (no access, no
     * reserve) and opened by mprotect, so once closed they merge back into one mapping with their
     * neighbours: the kernel's count of mappings (vm.max_map_count, 65530 by default) bounds only
     * the allocations open at once, not the live ones (a mapping of their own per allocation ran
     * out at about 32,000 blocks). */
    if (mmap(d0, data * pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0) != d0 ||
        mprotect(d0, data * pg, PROT_READ | PROT_WRITE)) {
        snprintf(why, nwhy, "its pages cannot be mapped (%s; vm.max_map_count bounds the mappings: %zu live "
                 "allocations)", strerror(errno), e->n);
        mmap(d0, data * pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
        give(e, off, data + 1);
        goto fail;
    }
    UNPOISON(d0, data * pg);
    memset(x->p, 0xA5, n);
    POISON(d0, (size_t)(x->p - d0));           /* the slack: an overrun within the pages is an ASan report */
    POISON(x->p + n, (size_t)(d1 - (x->p + n)));
    mprotect(d0, data * pg, PROT_NONE);
    size_t i = e->n;
    while (i > 0 && e->v[i - 1]->base > x->base) i--;
    memmove(&e->v[i + 1], &e->v[i], (e->n - i) * sizeof *e->v);
    e->v[i] = x;
    e->n++;
    pthread_mutex_unlock(&e->mu);
    atomic_fetch_add(&live, 1);
    *id = x->id;
    return x->p;
fail:
    pthread_mutex_unlock(&e->mu);
    free(x);
    return NULL;
}

/* the pages of x go back (mu held) */
static void drop(edev *e, ealloc *x)
{
    size_t i = 0;
    while (i < e->n && e->v[i] != x) i++;
    if (i < e->n) {
        memmove(&e->v[i], &e->v[i + 1], (e->n - i - 1) * sizeof *e->v);
        e->n--;
    }
    char *d0 = x->base + pg;
    size_t len = (x->pages - 1) * pg;
    UNPOISON(d0, len);
    mmap(d0, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
    give(e, (size_t)(x->base - e->lo) / pg, x->pages);
    e->gone[e->ngone++ % 64] = *x;
    free(x);
    atomic_fetch_sub(&live, 1);
}

int tamm__emu_mem_where(const void *p, size_t n, int *dev, tamm__emu_ref *ref, char *why, size_t nwhy)
{
    const char *a = p;
    int d = dev_of((uintptr_t)a);
    if (d < 0) {
        pthread_mutex_lock(&pin_mu);
        size_t i = pin_find(a);
        int pinned = i > 0 && a + n <= pins[i - 1].p + pins[i - 1].n;
        pthread_mutex_unlock(&pin_mu);
        return pinned ? TAMM_EMU_PINNED : TAMM_EMU_HOSTMEM;
    }
    *dev = d;
    edev *e = &devs[d];
    pthread_mutex_lock(&e->mu);
    ealloc *x = find(e, a);
    int ok = x && !x->freeing && !x->released && a >= x->p &&
             (n ? a + n <= x->p + x->n : a <= x->p + x->n); /* a pointer may point one past the end */
    if (ok && ref) *ref = (tamm__emu_ref){ a, x->id };
    if (!ok && why) {
        if (x && !x->freeing && !x->released && a >= x->p && a < x->p + x->n)
            snprintf(why, nwhy, "%zu bytes from offset %zu of the device %d allocation of %zu bytes at %p run past its end",
                     n, (size_t)(a - x->p), d, x->n, (void *)x->p);
        else
            describe(d, a, why, nwhy);
    }
    pthread_mutex_unlock(&e->mu);
    return ok ? TAMM_EMU_DEVMEM : TAMM_EMU_BADDEV;
}

int tamm__emu_mem_free_begin(const void *p, int *dev, size_t *n, char *why, size_t nwhy)
{
    const char *a = p;
    int d = dev_of((uintptr_t)a);
    if (d < 0) {
        snprintf(why, nwhy, "%p is not device memory", p);
        return -1;
    }
    edev *e = &devs[d];
    pthread_mutex_lock(&e->mu);
    ealloc *x = find(e, a);
    int ok = x && x->p == a && !x->freeing && !x->released;
    if (ok) {
        x->freeing = 1;
        *dev = d;
        *n = x->n;
    } else if (x && x->p == a) {
        snprintf(why, nwhy, "the device %d allocation of %zu bytes at %p is already freed", d, x->n, p);
    } else {
        describe(d, a, why, nwhy);
    }
    pthread_mutex_unlock(&e->mu);
    return ok ? 0 : -1;
}

int tamm__emu_mem_release(const void *p)
{
    int d = dev_of((uintptr_t)p);
    if (d < 0) return 0;
    edev *e = &devs[d];
    pthread_mutex_lock(&e->mu);
    ealloc *x = find(e, p);
    int busy = 0;
    if (x && x->p == p) {
        busy = x->refs > 0;
        if (busy) x->released = 1;
        else drop(e, x);
    }
    pthread_mutex_unlock(&e->mu);
    return busy ? -1 : 0;
}

int tamm__emu_mem_open(const tamm__emu_ref *r, char *why, size_t nwhy)
{
    int d = dev_of((uintptr_t)r->p);
    if (d < 0) return 0; /* host memory (pinned): nothing to open */
    edev *e = &devs[d];
    pthread_mutex_lock(&e->mu);
    ealloc *x = find(e, r->p);
    int ok = x && x->id == r->id && !x->released;
    if (ok && x->refs == 0 && mprotect(x->base + pg, (x->pages - 1) * pg, PROT_READ | PROT_WRITE)) {
        snprintf(why, nwhy, "the device %d allocation of %zu bytes at %p, which cannot be opened (mprotect: %s; "
                 "vm.max_map_count bounds the live allocations)", d, x->n, (void *)x->p, strerror(errno));
        pthread_mutex_unlock(&e->mu);
        return -1;
    }
    if (ok) x->refs++;
    if (!ok) {
        if (x && x->id == r->id)
            snprintf(why, nwhy, "the device %d allocation of %zu bytes at %p, freed before this operation ran", d, x->n,
                     (void *)x->p);
        else
            snprintf(why, nwhy, "%p, in a device %d allocation freed before this operation ran%s", r->p, d,
                     x ? " (its memory is now another allocation's)" : "");
    }
    pthread_mutex_unlock(&e->mu);
    return ok ? 0 : -1;
}

void tamm__emu_mem_close(const tamm__emu_ref *r)
{
    int d = dev_of((uintptr_t)r->p);
    if (d < 0) return;
    edev *e = &devs[d];
    pthread_mutex_lock(&e->mu);
    ealloc *x = find(e, r->p);
    if (x && x->id == r->id && --x->refs == 0) {
        if (x->released) drop(e, x);
        else mprotect(x->base + pg, (x->pages - 1) * pg, PROT_NONE);
    }
    pthread_mutex_unlock(&e->mu);
}

void tamm__emu_mem_pin(const void *p, size_t n)
{
    pthread_mutex_lock(&pin_mu);
    if (npins == cappins) {
        size_t c = cappins ? 2 * cappins : 64;
        pinreg *v = realloc(pins, c * sizeof *v);
        if (!v) { /* not registered: copies from it are synchronous, which is never wrong */
            pthread_mutex_unlock(&pin_mu);
            return;
        }
        pins = v;
        cappins = c;
    }
    size_t i = pin_find(p);
    memmove(&pins[i + 1], &pins[i], (npins - i) * sizeof *pins);
    pins[i] = (pinreg){ p, n };
    npins++;
    pthread_mutex_unlock(&pin_mu);
}

void tamm__emu_mem_unpin(const void *p)
{
    pthread_mutex_lock(&pin_mu);
    size_t i = pin_find(p);
    if (i > 0 && pins[i - 1].p == p) {
        memmove(&pins[i - 1], &pins[i], (npins - i) * sizeof *pins);
        npins--;
    }
    pthread_mutex_unlock(&pin_mu);
}

long tamm__emu_mem_live(void) { return atomic_load(&live); }

void tamm__emu_mem_mark(const tamm__emu_mark *m) { cur_mark = m && m->dev >= 0 ? m : NULL; }
const tamm__emu_mark *tamm__emu_mem_marked(void) { return cur_mark; }
