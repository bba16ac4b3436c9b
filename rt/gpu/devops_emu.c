/*
 * devops_emu.c — an emulated CUDA device behind the device interface
 * (memunit.h), for tests on machines without a GPU: TAMM_CUDA_EMU=n devices
 * (TAMM_CUDA_FAKE=n is the old name of the same thing).
 *
 * It follows CUDA's documented semantics, and fails where a GPU fails, so that
 * missing ordering and stray accesses show up as errors, wrong results or
 * sanitizer reports instead of being hidden by a device that is host memory:
 *  - each stream is a host thread executing its queue in order; the issuing
 *    thread only enqueues (copies, memsets, frees, launches run later);
 *  - every operation may be delayed by a random 0..TAMM_CUDA_EMU_DELAY us
 *    (seeded by TAMM_CUDA_EMU_SEED, per stream), so streams interleave freely;
 *  - events are stream markers: a record completes when its stream reaches it
 *    (the host time then is the event's timestamp, cudaEventElapsedTime);
 *    query reports the most recent record; a stream wait (cudaStreamWaitEvent)
 *    blocks that stream's thread until the record captured at issue completes,
 *    and is the only thing ordering two streams (happens-before for TSan too);
 *  - device memory (emu_mem.c): each device has its own address range, which
 *    the host cannot read or write (a fault naming the allocation); an
 *    allocation is accessible only while a device operation that uses it runs;
 *    stream-ordered allocation within TAMM_CUDA_EMU_MEMORY bytes per device
 *    (default 1 GiB): an allocation over it fails with "out of memory"; new
 *    memory holds garbage (0xA5); a free returns it when its stream reaches it;
 *  - copies and memsets check their pointers at the call ("invalid argument":
 *    the device side must lie inside a live allocation of the stream's device,
 *    the host side outside every device); a copy with pageable host memory is
 *    synchronous with respect to the host (it returns once done), one with
 *    pinned memory (cudaHostAlloc) asynchronous;
 *  - a kernel may touch only the allocations of its own device that its
 *    pointer arguments point into; tamm_emu_launch_kernel checks them at launch
 *    (pageable host memory, another device's or freed memory is refused as an
 *    illegal memory access, and the device fails, sticky, as after a fault);
 *    for tamm_emu_launch they are the aligned words of its argument bytes that
 *    point into such allocations; touching other device memory faults;
 *  - a watchdog: a kernel running longer than TAMM_CUDA_EMU_KERNEL_TIMEOUT
 *    seconds (default 60) fails the device ("the launch timed out and was
 *    terminated", naming the kernel and its task); its stream is dead (waits
 *    for it return), its thread is left running;
 *  - errors: the calling thread's last error (error()); sticky errors (a
 *    device fault: every later call fails, queued work is dropped);
 *  - fault injection: TAMM_CUDA_EMU_FAIL=call:n[:sticky],... makes the n-th
 *    call of that name fail (call: alloc free host_alloc stream_create
 *    event_create h2d d2h d2h d2d zero record wait query launch blas_create);
 *  - TAMM_CUDA_EMU_SKIP_WAIT=n|all drops the n-th (or every) stream wait: a
 *    test hook proving that the runtime's waits matter.
 * Work is enqueued on a stream from the host with tamm_emu_launch or
 * tamm_emu_launch_kernel (what test variants and host-compiled kernels use
 * instead of a kernel launch).
 */
#include "emu_fail.h"
#include "emu_mem.h"
#include "gpu.h"
#include "memunit.h"
#include "runtime.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EMU_MAGIC 0x454d5553u /* "EMUS" */

typedef struct emu_event {
    uint64_t recorded;  /* generation of the most recent record issued (ev_mu) */
    uint64_t completed; /* highest generation its stream has reached (ev_mu) */
    double t;           /* host time (CLOCK_MONOTONIC, s) when its stream reached the last record (ev_mu) */
    unsigned flags;     /* the stand-in runtime's cudaEventCreateWithFlags flags */
    unsigned refs;      /* records and waits queued on streams, not yet executed (ev_mu) */
    int dead;           /* destroyed while refs > 0: freed by the op that drops refs to 0 (ev_mu) */
} emu_event;

/* an op on ev has executed (ev_mu held): true when ev is to be freed now, after unlocking */
static int ev_unref(emu_event *ev) { return --ev->refs == 0 && ev->dead; }

enum { OP_COPY, OP_ZERO, OP_RECORD, OP_WAIT, OP_FREE, OP_LAUNCH, OP_HOSTFN, OP_STOP };
enum { ARG_KEEP, ARG_FREE };   /* OP_LAUNCH / OP_HOSTFN: the argument is the caller's, or freed after */
#define EMU_INL_REFS 3
typedef struct emu_op {
    struct emu_op *next;
    int kind;
    int own;                   /* ARG_* */
    void *dst;
    const void *src;
    size_t n;
    emu_event *ev;
    uint64_t gen;
    void (*fn)(void *);
    const char *who;           /* what runs (launches and copies), for fault reports */
    char *who_own;             /* who, when allocated for the op */
    tamm__emu_ref *refs;        /* the device allocations it uses */
    int nrefs, caprefs;
    void (*drop)(void *);      /* OP_LAUNCH: disposes of an argument the caller keeps when the op is dropped */
    int untimed;               /* OP_LAUNCH: an emulated library routine, which always ends: no watchdog */
    tamm__emu_ref inl[EMU_INL_REFS];
} emu_op;

typedef struct emu_stream {
    unsigned magic;
    int dev;
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    emu_op *head, *tail;
    uint64_t issued, done; /* mu */
    int dead;              /* mu: its thread is stuck in a kernel the watchdog gave up on */
    uint64_t rng;          /* the stream thread's */
    tamm__emu_mark mark;    /* what its thread runs now (the stream thread's) */
    double t0;             /* wd_mu: when the kernel it runs started */
    int in_kernel;         /* wd_mu */
    struct emu_stream *next_all; /* wd_mu: every stream ever created */
} emu_stream;

static pthread_mutex_t ev_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ev_cv = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t mem_mu = PTHREAD_MUTEX_INITIALIZER;
static size_t mem_used[TAMM_MAX_GPUS];
static atomic_long live_allocs;
enum { STICKY_FAULT = 1, STICKY_TIMEOUT = 2 };
static atomic_int sticky;           /* a device fault happened: every call fails (STICKY_*) */
static pthread_mutex_t sticky_mu = PTHREAD_MUTEX_INITIALIZER;
static char sticky_why[720];        /* what happened (set once, before sticky) */
static atomic_uint stream_seq;
static _Thread_local char err[900];   /* "call: what happened (emulated device)" */
static _Thread_local size_t err_at;   /* where in err what happened starts (CUDA's error string) */
static _Thread_local int cur_dev;

/* ---- configuration (read once, at count()) ---- */
static pthread_once_t cfg_once = PTHREAD_ONCE_INIT;
static tamm__emu_fault faults[TAMM_EMU_MAX_FAULTS]; /* TAMM_CUDA_EMU_FAIL (base/emu_fail.h) */
static int nfaults;
static atomic_long ncalls[TAMM_EMU_NCALLS];
static long skip_wait;  /* 0: none, -1: all, n: the n-th */
static unsigned delay_us;
static unsigned long long seed;
static size_t capacity;
static unsigned kernel_timeout; /* s; 0: none */
static int mem_ok;              /* the devices' address ranges are reserved */

/* load the faults to inject (an invalid value was refused by config.c) */
static void load_faults(const char *s)
{
    int n = tamm__emu_fail_parse(s, faults);
    nfaults = n > 0 ? n : 0;
}

static int ndevs;
static void reserve(void)
{
    int n = ndevs < 0 ? 0 : ndevs > TAMM_MAX_GPUS ? TAMM_MAX_GPUS : ndevs;
    mem_ok = n > 0 && tamm__emu_mem_init(n, capacity) == 0;
}

#ifndef TAMM_EMU_STANDALONE
/* what the calling thread runs, for errors: "task 'L' (file:line)", or "" */
static void who_task(char *buf, size_t n)
{
    tamm_ctx *c = tamm_current_ctx();
    const tamm__task_s *t = c ? c->task : NULL;
    if (t) snprintf(buf, n, "task '%s' (%s:%d)", t->label ? t->label : "(unlabelled)", t->file ? t->file : "?", t->line);
    else if (n) buf[0] = 0;
}

static void read_cfg(void)
{
    const tamm__config *c = &tamm__rt.cfg;
    ndevs = c->fake_gpus;
    delay_us = c->emu_delay_us;
    seed = c->emu_seed;
    capacity = c->emu_memory ? c->emu_memory : (size_t)1 << 30;
    skip_wait = c->emu_skip_wait;
    kernel_timeout = c->emu_kernel_timeout;
    load_faults(getenv("TAMM_CUDA_EMU_FAIL")); /* validated by config.c */
    tamm__emu_mem_host_who = who_task;
    reserve();
}
#else
/* built into the stand-in CUDA runtime (tests/rt/gpu/cudart_emu): the same variables, read here; the
 * runtime above it is libtammrt's business (no task is known here) */
static void who_task(char *buf, size_t n) { if (n) buf[0] = 0; }
static void read_cfg(void)
{
    const char *v;
    ndevs = (v = getenv("TAMM_CUDA_EMU")) ? atoi(v) : 1;
    delay_us = (v = getenv("TAMM_CUDA_EMU_DELAY")) ? (unsigned)atoi(v) : 0;
    seed = (v = getenv("TAMM_CUDA_EMU_SEED")) ? (unsigned long long)atoll(v) : 0;
    capacity = (v = getenv("TAMM_CUDA_EMU_MEMORY")) && atoll(v) > 0 ? (size_t)atoll(v) : (size_t)1 << 30;
    skip_wait = (v = getenv("TAMM_CUDA_EMU_SKIP_WAIT")) ? (!strcmp(v, "all") ? -1 : atol(v)) : 0;
    kernel_timeout = (v = getenv("TAMM_CUDA_EMU_KERNEL_TIMEOUT")) && *v ? (unsigned)atoi(v) : 60;
    load_faults(getenv("TAMM_CUDA_EMU_FAIL"));
    reserve();
}
#endif

static int fail_msg(const char *what, const char *why)
{
    int n = snprintf(err, sizeof err, "%s: ", what);
    err_at = n > 0 && (size_t)n < sizeof err ? (size_t)n : 0;
    snprintf(err + err_at, sizeof err - err_at, "%s (emulated device)", why);
    return -1;
}

/* The device fails (the first fault's account is kept): every later call fails and the streams
 * drop their queued work, as a CUDA context does after a fault. */
static emu_stream *all_streams;
static pthread_mutex_t wd_mu = PTHREAD_MUTEX_INITIALIZER;
static void fail_device(int kind, const char *why)
{
    pthread_mutex_lock(&sticky_mu);
    if (!atomic_load(&sticky)) {
        snprintf(sticky_why, sizeof sticky_why, "%s", why);
        atomic_store(&sticky, kind);
    }
    pthread_mutex_unlock(&sticky_mu);
    /* wake what waits on the streams and events: nothing more will come */
    pthread_mutex_lock(&wd_mu);
    for (emu_stream *s = all_streams; s; s = s->next_all) {
        pthread_mutex_lock(&s->mu);
        pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->mu);
    }
    pthread_mutex_unlock(&wd_mu);
    pthread_mutex_lock(&ev_mu);
    pthread_cond_broadcast(&ev_cv);
    pthread_mutex_unlock(&ev_mu);
}

static int sticky_msg(const char *what)
{
    int n = snprintf(err, sizeof err, "%s: ", what);
    err_at = n > 0 && (size_t)n < sizeof err ? (size_t)n : 0;
    pthread_mutex_lock(&sticky_mu);
    snprintf(err + err_at, sizeof err - err_at, "%s (emulated device, sticky)", sticky_why);
    pthread_mutex_unlock(&sticky_mu);
    return -1;
}

/* Every call goes through here: a sticky fault, or an injected one. */
static int enter(int call, const char *what)
{
    if (atomic_load(&sticky)) return sticky_msg(what);
    long k = atomic_fetch_add(&ncalls[call], 1) + 1;
    for (int i = 0; i < nfaults; i++)
        if (faults[i].call == call && faults[i].nth == k) {
            if (faults[i].sticky) {
                fail_device(STICKY_FAULT, "an illegal memory access was encountered (injected)");
                return sticky_msg(what);
            }
            return fail_msg(what, call == TAMM_EMU_ALLOC || call == TAMM_EMU_HOST_ALLOC ? "out of memory (injected)"
                                                                         : "injected failure");
        }
    return 0;
}

/* ---- streams ---- */
static uint64_t rnd(uint64_t *s) { *s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17; return *s; }
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void op_delay(emu_stream *s)
{
    if (!delay_us) return;
    unsigned us = (unsigned)(rnd(&s->rng) % (delay_us + 1));
    if (!us) return;
    struct timespec ts = { 0, (long)us * 1000L };
    nanosleep(&ts, NULL);
}

/* ---- the watchdog: one thread, sleeping until the earliest deadline of a running kernel ---- */
static pthread_cond_t wd_cv;
static pthread_once_t wd_once = PTHREAD_ONCE_INIT;

static void *wd_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&wd_mu);
    for (;;) {
        double t = now_s(), next = 0;
        emu_stream *late = NULL;
        for (emu_stream *s = all_streams; s && !late; s = s->next_all) {
            if (!s->in_kernel) continue;
            double dl = s->t0 + kernel_timeout;
            if (t >= dl) late = s;
            else if (!next || dl < next) next = dl;
        }
        if (late) { /* its thread is left in the kernel; the stream is dead, the device failed */
            char why[512];
            snprintf(why, sizeof why, "the launch timed out and was terminated: %s did not finish within %u s on "
                     "emulated GPU %d (TAMM_CUDA_EMU_KERNEL_TIMEOUT)", late->mark.who ? late->mark.who : "a kernel",
                     kernel_timeout, late->dev);
            late->in_kernel = 0;
            pthread_mutex_lock(&late->mu);
            late->dead = 1;
            pthread_mutex_unlock(&late->mu);
            pthread_mutex_unlock(&wd_mu); /* fail_device takes it */
            fail_device(STICKY_TIMEOUT, why);
            pthread_mutex_lock(&wd_mu);
            continue;
        }
        if (!next) {
            pthread_cond_wait(&wd_cv, &wd_mu);
        } else {
            struct timespec ts = { (time_t)next, (long)((next - (double)(time_t)next) * 1e9) };
            pthread_cond_timedwait(&wd_cv, &wd_mu, &ts);
        }
    }
    return NULL;
}

static void wd_start(void)
{
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&wd_cv, &a);
    pthread_condattr_destroy(&a);
    if (!kernel_timeout) return;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    pthread_t th;
    if (pthread_create(&th, &at, wd_main, NULL)) kernel_timeout = 0; /* no watchdog: kernels are not timed */
    pthread_attr_destroy(&at);
}

/* s's thread starts / ends a kernel (timed by the watchdog) */
static void kernel_begin(emu_stream *s)
{
    if (!kernel_timeout) return;
    pthread_mutex_lock(&wd_mu);
    s->t0 = now_s();
    s->in_kernel = 1;
    pthread_cond_signal(&wd_cv);
    pthread_mutex_unlock(&wd_mu);
}
static void kernel_end(emu_stream *s)
{
    if (!kernel_timeout) return;
    pthread_mutex_lock(&wd_mu);
    s->in_kernel = 0;
    pthread_mutex_unlock(&wd_mu);
}

/* run op o on its stream's thread, its allocations open; a use after free fails the device */
static void run_device_op(emu_stream *s, emu_op *o)
{
    int i;
    char why[400];
    for (i = 0; i < o->nrefs; i++)
        if (tamm__emu_mem_open(&o->refs[i], why, sizeof why)) break;
    if (i < o->nrefs) {
        char msg[512];
        snprintf(msg, sizeof msg, "an illegal memory access was encountered: %s used %s", o->who ? o->who : "a device operation",
                 why);
        fail_device(STICKY_FAULT, msg);
        if (o->drop) o->drop(o->dst);
    } else {
        s->mark.dev = o->kind == OP_HOSTFN ? -1 : s->dev; /* a host function is host code */
        s->mark.who = o->who;
        tamm__emu_mem_mark(&s->mark);
        switch (o->kind) {
        case OP_COPY: memcpy(o->dst, o->src, o->n); break;
        case OP_ZERO: memset(o->dst, 0, o->n); break;
        case OP_LAUNCH:
            if (!o->untimed) kernel_begin(s);
            o->fn(o->dst);
            if (!o->untimed) kernel_end(s);
            break;
        default: o->fn(o->dst); break; /* OP_HOSTFN */
        }
        tamm__emu_mem_mark(NULL);
    }
    while (i-- > 0) tamm__emu_mem_close(&o->refs[i]);
}

static void op_free(emu_op *o)
{
    if (o->own == ARG_FREE) free(o->dst);
    if (o->refs != o->inl) free(o->refs);
    free(o->who_own);
    free(o);
}

static void *stream_main(void *arg)
{
    emu_stream *s = arg;
    for (;;) {
        pthread_mutex_lock(&s->mu);
        while (!s->head) pthread_cond_wait(&s->cv, &s->mu);
        emu_op *o = s->head;
        pthread_mutex_unlock(&s->mu);
        int stop = o->kind == OP_STOP;
        if (o->kind != OP_WAIT && o->kind != OP_STOP) op_delay(s);
        switch (o->kind) {
        case OP_COPY: case OP_ZERO: case OP_LAUNCH: case OP_HOSTFN:
            if (!atomic_load(&sticky)) run_device_op(s, o);
            else if (o->drop) o->drop(o->dst); /* a failed device drops its queued work */
            break;
        case OP_FREE: {
            if (tamm__emu_mem_release(o->dst)) {
                char msg[512];
                snprintf(msg, sizeof msg, "an illegal memory access was encountered: the device %d allocation of %zu "
                         "bytes at %p was freed (cudaFreeAsync) while a device operation on another stream still used it",
                         s->dev, o->n, o->dst);
                fail_device(STICKY_FAULT, msg);
            }
            pthread_mutex_lock(&mem_mu);
            mem_used[s->dev] -= o->n;
            pthread_mutex_unlock(&mem_mu);
            atomic_fetch_sub(&live_allocs, 1);
            o->dst = NULL;
            break;
        }
        case OP_RECORD: {
            double t = now_s();
            pthread_mutex_lock(&ev_mu);
            if (o->gen > o->ev->completed) {
                o->ev->completed = o->gen;
                o->ev->t = t;
            }
            int gone = ev_unref(o->ev);
            pthread_cond_broadcast(&ev_cv);
            pthread_mutex_unlock(&ev_mu);
            if (gone) free(o->ev);
            break;
        }
        case OP_WAIT: {
            pthread_mutex_lock(&ev_mu); /* a failed device's events may never complete: no wait then */
            while (o->ev->completed < o->gen && !atomic_load(&sticky)) pthread_cond_wait(&ev_cv, &ev_mu);
            int gone = ev_unref(o->ev);
            pthread_mutex_unlock(&ev_mu);
            if (gone) free(o->ev);
            break;
        }
        default: break;
        }
        pthread_mutex_lock(&s->mu);
        s->head = o->next;
        if (!s->head) s->tail = NULL;
        s->done++;
        pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->mu);
        op_free(o);
        if (stop) return NULL;
    }
}

static emu_stream *S(void *p, const char *what)
{
    emu_stream *s = p;
    if (!s || s->magic != EMU_MAGIC) { fail_msg(what, "invalid resource handle (not a stream)"); return NULL; }
    return s;
}

/* queue o on s; returns its ticket (s->done reaches it when o has run) */
static uint64_t enqueue(emu_stream *s, emu_op *o)
{
    o->next = NULL;
    pthread_mutex_lock(&s->mu);
    if (s->tail) s->tail->next = o; else s->head = o;
    s->tail = o;
    uint64_t t = ++s->issued;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    return t;
}

/* blocks until s has run everything up to ticket (or is dead); -1 with the error when the device failed */
static int wait_ticket(emu_stream *s, uint64_t ticket, const char *what)
{
    pthread_mutex_lock(&s->mu);
    while (s->done < ticket && !s->dead) pthread_cond_wait(&s->cv, &s->mu);
    pthread_mutex_unlock(&s->mu);
    return atomic_load(&sticky) ? sticky_msg(what) : 0;
}

static emu_op *op_new(int kind)
{
    emu_op *o = calloc(1, sizeof *o);
    if (o) {
        o->kind = kind;
        o->refs = o->inl;
        o->caprefs = EMU_INL_REFS;
    }
    return o;
}

/* adds an allocation o uses; -1: no memory */
static int op_ref(emu_op *o, const tamm__emu_ref *r)
{
    if (o->nrefs == o->caprefs) {
        int c = 2 * o->caprefs;
        tamm__emu_ref *v = o->refs == o->inl ? malloc((size_t)c * sizeof *v) : realloc(o->refs, (size_t)c * sizeof *v);
        if (!v) return -1;
        if (o->refs == o->inl) memcpy(v, o->inl, sizeof o->inl);
        o->refs = v;
        o->caprefs = c;
    }
    o->refs[o->nrefs++] = *r;
    return 0;
}

/* ---- the device interface ---- */
static int e_count(void)
{
    pthread_once(&cfg_once, read_cfg);
    if (!mem_ok) {
        if (ndevs > 0) fail_msg("cudaGetDeviceCount", "cannot reserve the address ranges of the emulated devices");
        return 0;
    }
    int n = ndevs < 0 ? 0 : ndevs;
    return n > TAMM_MAX_GPUS ? TAMM_MAX_GPUS : n;
}

static int e_info(int dev, tamm__devinfo *di)
{
    snprintf(di->name, sizeof di->name, "emulated GPU %d (host threads)", dev);
    pthread_mutex_lock(&mem_mu);
    di->total = capacity;
    di->free = capacity - mem_used[dev];
    pthread_mutex_unlock(&mem_mu);
    return 0;
}

static int e_bind(int dev)
{
    if (atomic_load(&sticky)) return sticky_msg("cudaSetDevice");
    if (dev < 0 || dev >= e_count()) return fail_msg("cudaSetDevice", "invalid device ordinal");
    cur_dev = dev;
    return 0;
}

/* n bytes of device memory on the device of stream sp; what names the call in errors */
static int alloc_as(void **p, size_t n, void *sp, const char *what)
{
    *p = NULL;
    if (enter(TAMM_EMU_ALLOC, what)) return -1;
    emu_stream *s = S(sp, what);
    if (!s) return -1;
    if (!n) n = 1;
    pthread_mutex_lock(&mem_mu);
    int over = n > capacity - mem_used[s->dev];
    if (!over) mem_used[s->dev] += n;
    pthread_mutex_unlock(&mem_mu);
    if (over) return fail_msg(what, "out of memory");
    uint64_t id;
    char why[200];
    void *m = tamm__emu_mem_alloc(s->dev, n, &id, why, sizeof why);
    if (!m) {
        pthread_mutex_lock(&mem_mu);
        mem_used[s->dev] -= n;
        pthread_mutex_unlock(&mem_mu);
        char msg[260];
        snprintf(msg, sizeof msg, "out of memory (%s)", why);
        return fail_msg(what, msg);
    }
    atomic_fetch_add(&live_allocs, 1);
    *p = m;
    return 0;
}

static int e_alloc(void **p, size_t n, void *sp) { return alloc_as(p, n, sp, "cudaMallocAsync"); }

/* p freed when stream sp reaches the free; what names the call in errors */
static int free_as(void *p, void *sp, const char *what)
{
    if (!p) return 0;
    int rc = enter(TAMM_EMU_FREE, what);
    emu_stream *s = S(sp, what);
    if (!s) return -1;
    if (rc && !atomic_load(&sticky)) return rc; /* an injected failure: nothing freed */
    int dev;
    size_t n;
    char why[400];
    if (tamm__emu_mem_free_begin(p, &dev, &n, why, sizeof why)) {
        char m[480];
        snprintf(m, sizeof m, "invalid argument (%s)", why);
        return fail_msg(what, m);
    }
    /* after a sticky fault the call fails, but the memory goes back (as when the dead context is destroyed) */
    emu_op *o = op_new(OP_FREE);
    if (!o) return fail_msg(what, "out of memory (host)");
    o->dst = p;
    o->n = n;
    enqueue(s, o);
    return rc;
}

static int e_free(void *p, void *sp) { return free_as(p, sp, "cudaFreeAsync"); }

static int e_host_alloc(void **p, size_t n)
{
    *p = NULL;
    if (enter(TAMM_EMU_HOST_ALLOC, "cudaHostAlloc")) return -1;
    *p = malloc(n ? n : 1);
    if (!*p) return fail_msg("cudaHostAlloc", "out of memory");
    tamm__emu_mem_pin(*p, n ? n : 1);
    return 0;
}

static void e_host_free(void *p)
{
    tamm__emu_mem_unpin(p);
    free(p);
}

/* a stream of device dev with its thread, outside fault injection (the stand-in runtime's default
 * stream is created with it, implicitly, as CUDA's is) */
static int stream_new(void **sp, int dev)
{
    *sp = NULL;
    pthread_once(&wd_once, wd_start);
    emu_stream *s = calloc(1, sizeof *s);
    if (!s) return fail_msg("cudaStreamCreateWithFlags", "out of memory");
    s->magic = EMU_MAGIC;
    s->dev = dev;
    s->rng = (seed ? seed : 0x9E3779B97F4A7C15ull) ^ ((uint64_t)(atomic_fetch_add(&stream_seq, 1) + 1) * 0xD1B54A32D192ED03ull);
    if (!s->rng) s->rng = 1;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    if (pthread_create(&s->th, NULL, stream_main, s)) {
        pthread_mutex_destroy(&s->mu);
        pthread_cond_destroy(&s->cv);
        free(s);
        return fail_msg("cudaStreamCreateWithFlags", "cannot start the stream's thread");
    }
    pthread_mutex_lock(&wd_mu);
    s->next_all = all_streams;
    all_streams = s;
    pthread_mutex_unlock(&wd_mu);
    *sp = s;
    return 0;
}

static int e_stream_create(void **sp)
{
    *sp = NULL;
    if (enter(TAMM_EMU_STREAM_CREATE, "cudaStreamCreateWithFlags")) return -1;
    return stream_new(sp, cur_dev);
}

#ifdef TAMM_EMU_STANDALONE
/* blocks until stream s has executed everything issued to it before the call (not what other
 * threads issue meanwhile), or is dead */
static void stream_wait_prior(emu_stream *s)
{
    pthread_mutex_lock(&s->mu);
    uint64_t upto = s->issued;
    while (s->done < upto && !s->dead) pthread_cond_wait(&s->cv, &s->mu);
    pthread_mutex_unlock(&s->mu);
}
#endif

static int e_sync(void *sp)
{
    emu_stream *s = S(sp, "cudaStreamSynchronize");
    if (!s) return -1;
    pthread_mutex_lock(&s->mu);
    while (s->done != s->issued && !s->dead) pthread_cond_wait(&s->cv, &s->mu);
    pthread_mutex_unlock(&s->mu);
    return atomic_load(&sticky) ? sticky_msg("cudaStreamSynchronize") : 0;
}

static void e_stream_destroy(void *sp)
{
    emu_stream *s = S(sp, "cudaStreamDestroy");
    if (!s) return;
    pthread_mutex_lock(&s->mu);
    int dead = s->dead;
    pthread_mutex_unlock(&s->mu);
    if (dead) { /* its thread never comes back: left to itself (the stream stays listed) */
        pthread_detach(s->th);
        return;
    }
    emu_op *o = op_new(OP_STOP);
    if (!o) return; /* leaked rather than destroyed with work pending */
    enqueue(s, o); /* pending work completes first, as with CUDA */
    pthread_join(s->th, NULL);
    pthread_mutex_lock(&wd_mu);
    for (emu_stream **q = &all_streams; *q; q = &(*q)->next_all)
        if (*q == s) { *q = s->next_all; break; }
    pthread_mutex_unlock(&wd_mu);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    s->magic = 0;
    free(s);
}

static int e_event_create(void **e)
{
    *e = NULL;
    if (enter(TAMM_EMU_EVENT_CREATE, "cudaEventCreateWithFlags")) return -1;
    emu_event *ev = calloc(1, sizeof *ev);
    if (!ev) return fail_msg("cudaEventCreateWithFlags", "out of memory");
    *e = ev;
    return 0;
}

/* as cudaEventDestroy: at once, or (records or waits on it still queued) when the last has run */
static void e_event_destroy(void *e)
{
    emu_event *ev = e;
    if (!ev) return;
    pthread_mutex_lock(&ev_mu);
    int later = ev->refs > 0;
    if (later) ev->dead = 1;
    pthread_mutex_unlock(&ev_mu);
    if (!later) free(ev);
}

/* The device side of a copy or memset: [p, p + n) inside a live allocation of s's device (its
 * ref into r), or an "invalid argument" error; side names it ("the destination"). */
static int dev_side(emu_stream *s, const void *p, size_t n, tamm__emu_ref *r, const char *what, const char *side)
{
    int dev = -1;
    char why[400], m[560];
    int k = tamm__emu_mem_where(p, n, &dev, r, why, sizeof why);
    if (k == TAMM_EMU_DEVMEM && dev == s->dev) return 0;
    if (k == TAMM_EMU_DEVMEM)
        snprintf(m, sizeof m, "invalid argument: %s %p is memory of device %d, the stream is device %d's (peer "
                 "copies are not emulated)", side, p, dev, s->dev);
    else if (k == TAMM_EMU_BADDEV)
        snprintf(m, sizeof m, "invalid argument: %s %p is %s", side, p, why);
    else
        snprintf(m, sizeof m, "invalid argument: %s %p is host memory, not device memory", side, p);
    return fail_msg(what, m);
}

/* The host side of a copy: outside every device's range.  Returns 1 when it is pinned (an
 * asynchronous copy), 0 when pageable, -1 (an error) when it is device memory. */
static int host_side(const void *p, size_t n, const char *what, const char *side)
{
    int dev = -1;
    char why[400], m[560];
    int k = tamm__emu_mem_where(p, n, &dev, NULL, why, sizeof why);
    if (k == TAMM_EMU_PINNED) return 1;
    if (k == TAMM_EMU_HOSTMEM) return 0;
    snprintf(m, sizeof m, "invalid argument: %s %p is device %d memory, not host memory", side, p, dev);
    return fail_msg(what, m);
}

static int copy_op(int call, const char *what, void *dst, const void *src, size_t n, void *sp)
{
    if (enter(call, what)) return -1;
    emu_stream *s = S(sp, what);
    if (!s) return -1;
    if (!n) return 0;
    if (!dst || !src) return fail_msg(what, "invalid argument (NULL pointer)");
    tamm__emu_ref rd = { 0 }, rs = { 0 };
    int pinned = 1; /* device to device: asynchronous */
    if (call == TAMM_EMU_H2D) {
        if (dev_side(s, dst, n, &rd, what, "the destination")) return -1;
        if ((pinned = host_side(src, n, what, "the source")) < 0) return -1;
    } else if (call == TAMM_EMU_D2H) {
        if (dev_side(s, src, n, &rs, what, "the source")) return -1;
        if ((pinned = host_side(dst, n, what, "the destination")) < 0) return -1;
    } else if (dev_side(s, dst, n, &rd, what, "the destination") || dev_side(s, src, n, &rs, what, "the source")) {
        return -1;
    }
    emu_op *o = op_new(OP_COPY);
    if (!o) return fail_msg(what, "out of memory (host)");
    o->dst = dst;
    o->src = src;
    o->n = n;
    o->who = what;
    if ((rd.p && op_ref(o, &rd)) || (rs.p && op_ref(o, &rs))) {
        op_free(o);
        return fail_msg(what, "out of memory (host)");
    }
    uint64_t t = enqueue(s, o);
    /* pageable host memory: synchronous with respect to the host, as CUDA's staged copies are */
    return pinned ? 0 : wait_ticket(s, t, what);
}

static int e_h2d(void *d, const void *s, size_t n, void *st) { return copy_op(TAMM_EMU_H2D, "cudaMemcpyAsync (host to device)", d, s, n, st); }
static int e_d2h(void *d, const void *s, size_t n, void *st) { return copy_op(TAMM_EMU_D2H, "cudaMemcpyAsync (device to host)", d, s, n, st); }
static int e_d2d(void *d, const void *s, size_t n, void *st) { return copy_op(TAMM_EMU_D2D, "cudaMemcpyAsync (device to device)", d, s, n, st); }

/* n zero bytes at dst in the order of stream sp; what names the call in errors */
static int zero_as(void *dst, size_t n, void *sp, const char *what)
{
    if (enter(TAMM_EMU_ZERO, what)) return -1;
    emu_stream *s = S(sp, what);
    if (!s) return -1;
    if (!n) return 0;
    tamm__emu_ref r;
    if (dev_side(s, dst, n, &r, what, "the destination")) return -1;
    emu_op *o = op_new(OP_ZERO);
    if (!o) return fail_msg(what, "out of memory (host)");
    o->dst = dst;
    o->n = n;
    o->who = what;
    if (op_ref(o, &r)) {
        op_free(o);
        return fail_msg(what, "out of memory (host)");
    }
    enqueue(s, o);
    return 0;
}

static int e_zero(void *dst, size_t n, void *sp) { return zero_as(dst, n, sp, "cudaMemsetAsync"); }

static int e_record(void *e, void *sp)
{
    if (enter(TAMM_EMU_RECORD, "cudaEventRecord")) return -1;
    emu_stream *s = S(sp, "cudaEventRecord");
    if (!s) return -1;
    emu_event *ev = e;
    emu_op *o = op_new(OP_RECORD);
    if (!o) return fail_msg("cudaEventRecord", "out of memory (host)");
    pthread_mutex_lock(&ev_mu);
    o->gen = ++ev->recorded;
    ev->refs++;
    pthread_mutex_unlock(&ev_mu);
    o->ev = ev;
    enqueue(s, o);
    return 0;
}

static int e_wait(void *sp, void *e)
{
    if (enter(TAMM_EMU_WAIT, "cudaStreamWaitEvent")) return -1;
    emu_stream *s = S(sp, "cudaStreamWaitEvent");
    if (!s) return -1;
    long k = atomic_load(&ncalls[TAMM_EMU_WAIT]);
    if (skip_wait < 0 || skip_wait == k) return 0; /* TAMM_CUDA_EMU_SKIP_WAIT: dropped on purpose */
    emu_event *ev = e;
    emu_op *o = op_new(OP_WAIT);
    if (!o) return fail_msg("cudaStreamWaitEvent", "out of memory (host)");
    pthread_mutex_lock(&ev_mu);
    uint64_t gen = ev->recorded; /* the record captured now; a never recorded event: nothing to wait for */
    if (gen) ev->refs++;
    pthread_mutex_unlock(&ev_mu);
    if (!gen) { free(o); return 0; }
    o->ev = ev;
    o->gen = gen;
    enqueue(s, o);
    return 0;
}

static int e_query(void *e)
{
    if (enter(TAMM_EMU_QUERY, "cudaEventQuery")) return -1;
    emu_event *ev = e;
    pthread_mutex_lock(&ev_mu);
    int done = ev->completed >= ev->recorded;
    pthread_mutex_unlock(&ev_mu);
    return done;
}

static int e_blas_create(void **h, void *s)
{
    (void)s;
    *h = NULL;
    if (enter(TAMM_EMU_BLAS_CREATE, "cublasCreate")) return -1;
    return fail_msg("cublasCreate", "the emulated device has no cuBLAS");
}
static void e_blas_destroy(void *h) { (void)h; }
static const char *e_error(void) { return err; }
/* the emulated device has no cuBLAS and no cuSOLVER: tasks that call them run on the CPUs */
static int e_lib_open(unsigned lib)
{
    return lib == TAMM_CUBLAS ? fail_msg("libcublas", "the emulated device has no cuBLAS")
                              : fail_msg("libcusolver", "the emulated device has no cuSOLVER");
}
static void *e_lib_sym(unsigned lib, const char *name) { (void)lib; (void)name; return NULL; }
static int e_solver_create(void **h, void *s)
{
    (void)s;
    *h = NULL;
    return fail_msg("cusolverDnCreate", "the emulated device has no cuSOLVER");
}
static void e_solver_destroy(void *h) { (void)h; }

long tamm__emu_live_allocs(void) { return atomic_load(&live_allocs); }

/* ---- launches ---- */
/* what a kernel is, for errors: its name and launch site (k), the task launching it */
static char *kernel_who(const tamm_emu_kernel *k, const char *dflt)
{
    char task[300], buf[600];
    who_task(task, sizeof task);
    if (!task[0] && k && k->task) snprintf(task, sizeof task, "task '%s'", k->task);
    int n = k && k->name ? snprintf(buf, sizeof buf, "the kernel %s", k->name) : snprintf(buf, sizeof buf, "%s", dflt);
    if (k && k->file && n >= 0 && (size_t)n < sizeof buf)
        n += snprintf(buf + n, sizeof buf - (size_t)n, " (launched at %s:%d)", k->file, k->line);
    if (task[0] && n >= 0 && (size_t)n < sizeof buf) snprintf(buf + n, sizeof buf - (size_t)n, " of %s", task);
    return strdup(buf);
}

/* A refused launch: the device fails, as after the fault the kernel would have caused; why is the
 * whole account (the device's error from now on), brief the launch's (k->why: a kernel launch's
 * error message, with the task named around it). */
static int refuse(tamm_emu_kernel *k, const char *what, const char *why, const char *brief)
{
    char msg[720];
    snprintf(msg, sizeof msg, "an illegal memory access was encountered: %s", why);
    fail_device(STICKY_FAULT, msg);
    if (k->why && k->nwhy) snprintf(k->why, k->nwhy, "an illegal memory access was encountered: %s (emulated)", brief);
    k->code = 700; /* cudaErrorIllegalAddress */
    return fail_msg(what, msg);
}

/* A kernel's pointer argument p (its argument i): device memory of s's device (its allocation added
 * to o), pinned host memory, or a refusal. */
static int kernel_ptr(emu_stream *s, emu_op *o, tamm_emu_kernel *k, const void *p, int i, const char *what)
{
    int dev = -1;
    tamm__emu_ref r;
    char why[400], m[560], b[300], arg[200];
    int kind = tamm__emu_mem_where(p, 0, &dev, &r, why, sizeof why);
    if (kind == TAMM_EMU_DEVMEM && dev == s->dev) return op_ref(o, &r) ? fail_msg(what, "out of memory (host)") : 0;
    if (kind == TAMM_EMU_PINNED) return 0; /* mapped pinned memory, as with unified addressing */
    snprintf(arg, sizeof arg, "argument %d of %s", i + 1, k->name ? k->name : "the kernel");
    const char *who = o->who ? o->who : "a kernel";
    if (kind == TAMM_EMU_DEVMEM) {
        snprintf(m, sizeof m, "%s on device %d was given memory of device %d at %p (%s): a kernel reaches only its own "
                 "GPU's memory (peer access is not emulated)", who, s->dev, dev, p, arg);
        snprintf(b, sizeof b, "%s is memory of device %d at %p, not of device %d", arg, dev, p, s->dev);
    } else if (kind == TAMM_EMU_BADDEV) {
        snprintf(m, sizeof m, "%s was given %p (%s), which is %s", who, p, arg, why);
        snprintf(b, sizeof b, "%s (%p) is %s", arg, p, why);
    } else {
        snprintf(m, sizeof m, "%s on device %d was given host memory at %p (%s): a kernel reaches only device memory "
                 "(copy the data to the device first)", who, s->dev, p, arg);
        snprintf(b, sizeof b, "%s is host memory at %p, which a kernel cannot reach", arg, p);
    }
    return refuse(k, what, m, b);
}

/* the launch of a host-compiled kernel (k) or of fn with a copy of the size bytes at arg (k NULL);
 * untimed: the work of an emulated library routine (the stand-in cuBLAS), which the watchdog leaves
 * alone (it always ends, only as slowly as the emulator computes it) */
static int emu_launch_any(void *stream, tamm_emu_kernel *k, void (*fn)(void *), const void *arg, size_t size,
                          const char *what, const char *dflt_who, int untimed)
{
    if (enter(TAMM_EMU_LAUNCH, what)) {
        int st = atomic_load(&sticky); /* the device failed (its account), or an injected failure (CUDA's words) */
        if (k && k->why && k->nwhy) snprintf(k->why, k->nwhy, "%s", st ? err : "");
        if (k) k->code = st == STICKY_TIMEOUT ? 702 : st ? 700 : 719;
        return TAMM_EDEVICE;
    }
    emu_stream *s = S(stream, what);
    if (!s || (!k && !fn) || (k && !k->fn)) return TAMM_EINVAL;
    emu_op *o = op_new(OP_LAUNCH);
    void *copy = NULL;
    if (o) o->who = o->who_own = kernel_who(k, dflt_who);
    if (!k && o) copy = malloc(size ? size : 1);
    if (!o || !o->who || (!k && !copy)) {
        if (o) op_free(o);
        free(copy);
        fail_msg(what, "out of memory (host)");
        return TAMM_ENOMEM;
    }
    int bad = 0;
    if (k) {
        for (int i = 0; i < k->nptrs && !bad; i++)
            if (k->ptrs[i]) bad = kernel_ptr(s, o, k, k->ptrs[i], i, what);
    } else {
        if (size) memcpy(copy, arg, size);
        /* the allocations its argument bytes point into: the aligned words that lie in a live allocation of the
         * stream's device are opened while it runs.  Other words are not judged (they may be integers, or a
         * struct's padding): a pointer among them to anything else faults when the kernel uses it. */
        for (size_t off = 0; off + sizeof(void *) <= size && !bad; off += sizeof(void *)) {
            const void *p;
            memcpy(&p, (const char *)copy + off, sizeof p);
            int dev = -1;
            tamm__emu_ref r;
            if (tamm__emu_mem_where(p, 0, &dev, &r, NULL, 0) == TAMM_EMU_DEVMEM && dev == s->dev && op_ref(o, &r))
                bad = fail_msg(what, "out of memory (host)");
        }
    }
    if (bad) {
        op_free(o);
        free(copy);
        return TAMM_EDEVICE;
    }
    o->fn = k ? k->fn : fn;
    o->dst = k ? k->arg : copy;
    o->own = k ? ARG_KEEP : ARG_FREE;
    o->drop = k ? k->drop : NULL;
    o->untimed = untimed;
    enqueue(s, o);
    return TAMM_OK;
}

#ifdef TAMM_EMU_STANDALONE
/* host function fn(arg) in stream order (cudaLaunchHostFunc): host code, which touches no device memory */
static int emu_hostfn(void *stream, void (*fn)(void *), void *arg, const char *what)
{
    if (enter(TAMM_EMU_LAUNCH, what)) return TAMM_EDEVICE;
    emu_stream *s = S(stream, what);
    if (!s || !fn) return TAMM_EINVAL;
    emu_op *o = op_new(OP_HOSTFN);
    if (!o) {
        fail_msg(what, "out of memory (host)");
        return TAMM_ENOMEM;
    }
    o->who = "a host function (cudaLaunchHostFunc)";
    o->fn = fn;
    o->dst = arg;
    enqueue(s, o);
    return TAMM_OK;
}
#endif

#ifndef TAMM_EMU_STANDALONE
int tamm_emu_launch(void *stream, void (*fn)(void *), const void *arg, size_t size)
{
    if (tamm__gpus.ops != &tamm__devops_emu) return TAMM_ENOTSUP;
    return emu_launch_any(stream, NULL, fn, arg, size, "cudaLaunchKernel", "a kernel (tamm_emu_launch)", 0);
}

int tamm_emu_launch_kernel(void *stream, tamm_emu_kernel *k)
{
    if (tamm__gpus.ops != &tamm__devops_emu) return TAMM_ENOTSUP;
    return emu_launch_any(stream, k, NULL, NULL, 0, "cudaLaunchKernel", "a kernel", 0);
}

void *tamm_emu_thread_mark(void) { return (void *)tamm__emu_mem_marked(); }
void tamm_emu_set_thread_mark(void *mark) { tamm__emu_mem_mark(mark); }
#endif

const tamm__devops tamm__devops_emu = {
    "emu", e_count, e_info, e_bind, e_alloc, e_free, e_host_alloc, e_host_free, e_stream_create, e_stream_destroy,
    e_event_create, e_event_destroy, e_h2d, e_d2h, e_d2d, e_zero, e_record, e_wait, e_query, e_sync, e_blas_create,
    e_blas_destroy, e_error, e_lib_open, e_lib_sym, e_solver_create, e_solver_destroy,
};
