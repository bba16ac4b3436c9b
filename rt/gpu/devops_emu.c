/*
 * devops_emu.c — an emulated CUDA device behind the device interface
 * (memunit.h), for tests on machines without a GPU: TAMM_CUDA_EMU=n devices
 * (TAMM_CUDA_FAKE=n is the old name of the same thing).
 *
 * It follows CUDA's documented semantics, so that missing ordering shows up as
 * wrong results (and as ThreadSanitizer / AddressSanitizer reports) instead of
 * being hidden by a device that does everything at issue time:
 *  - each stream is a host thread executing its queue in order; the issuing
 *    thread only enqueues (copies, memsets, frees, launches run later);
 *  - every operation may be delayed by a random 0..TAMM_CUDA_EMU_DELAY us
 *    (seeded by TAMM_CUDA_EMU_SEED, per stream), so streams interleave freely;
 *  - events are stream markers: a record completes when its stream reaches it
 *    (the host time then is the event's timestamp, cudaEventElapsedTime);
 *    query reports the most recent record; a stream wait (cudaStreamWaitEvent)
 *    blocks that stream's thread until the record captured at issue completes,
 *    and is the only thing ordering two streams (happens-before for TSan too);
 *  - stream-ordered allocation within TAMM_CUDA_EMU_MEMORY bytes per device
 *    (default 1 GiB): an allocation over it fails with "out of memory"; new
 *    memory is filled with garbage (0xA5), a free returns it when its stream
 *    reaches the free (the host memory is released then: a use after it is
 *    an ASan report);
 *  - errors: the calling thread's last error (error()); sticky errors (a
 *    "device fault": every later call fails, as after an illegal address);
 *  - fault injection: TAMM_CUDA_EMU_FAIL=call:n[:sticky],... makes the n-th
 *    call of that name fail (call: alloc free host_alloc stream_create
 *    event_create h2d d2h d2h d2d zero record wait query launch blas_create);
 *  - TAMM_CUDA_EMU_SKIP_WAIT=n|all drops the n-th (or every) stream wait: a
 *    test hook proving that the runtime's waits matter.
 * Work is enqueued on a stream from the host with tamm_emu_launch (what test
 * variants and host-compiled kernels use instead of a kernel launch).
 */
#include "emu_fail.h"
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

enum { OP_COPY, OP_ZERO, OP_RECORD, OP_WAIT, OP_FREE, OP_LAUNCH, OP_STOP };
typedef struct emu_op {
    struct emu_op *next;
    int kind;
    void *dst;
    const void *src;
    size_t n;
    emu_event *ev;
    uint64_t gen;
    void (*fn)(void *);
} emu_op;

typedef struct emu_stream {
    unsigned magic;
    int dev;
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    emu_op *head, *tail;
    uint64_t issued, done; /* mu */
    uint64_t rng;          /* the stream thread's */
} emu_stream;

/* a device allocation: header before the memory */
typedef struct emu_blk { size_t n; int dev; unsigned magic; char pad[48]; } emu_blk;

static pthread_mutex_t ev_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ev_cv = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t mem_mu = PTHREAD_MUTEX_INITIALIZER;
static size_t mem_used[TAMM_MAX_GPUS];
static atomic_long live_allocs;
static atomic_int sticky;           /* a device fault happened: every call fails */
static atomic_uint stream_seq;
static _Thread_local char err[200];
static _Thread_local int cur_dev;

/* ---- configuration (read once, at count()) ---- */
static pthread_once_t cfg_once = PTHREAD_ONCE_INIT;
static tamm_emu_fault faults[TAMM_EMU_MAX_FAULTS]; /* TAMM_CUDA_EMU_FAIL (base/emu_fail.h) */
static int nfaults;
static atomic_long ncalls[TAMM_EMU_NCALLS];
static long skip_wait;  /* 0: none, -1: all, n: the n-th */
static unsigned delay_us;
static unsigned long long seed;
static size_t capacity;

/* load the faults to inject (an invalid value was refused by config.c) */
static void load_faults(const char *s)
{
    int n = tamm__emu_fail_parse(s, faults);
    nfaults = n > 0 ? n : 0;
}

#ifndef TAMM_EMU_STANDALONE
static int ndevs;
static void read_cfg(void)
{
    const tamm_config *c = &tamm__rt.cfg;
    ndevs = c->fake_gpus;
    delay_us = c->emu_delay_us;
    seed = c->emu_seed;
    capacity = c->emu_memory ? c->emu_memory : (size_t)1 << 30;
    skip_wait = c->emu_skip_wait;
    load_faults(getenv("TAMM_CUDA_EMU_FAIL")); /* validated by config.c */
}
#else
/* built into the stand-in CUDA runtime (tests/cudart_emu): the same variables, read here */
static int ndevs;
static void read_cfg(void)
{
    const char *v;
    ndevs = (v = getenv("TAMM_CUDA_EMU")) ? atoi(v) : 1;
    delay_us = (v = getenv("TAMM_CUDA_EMU_DELAY")) ? (unsigned)atoi(v) : 0;
    seed = (v = getenv("TAMM_CUDA_EMU_SEED")) ? (unsigned long long)atoll(v) : 0;
    capacity = (v = getenv("TAMM_CUDA_EMU_MEMORY")) && atoll(v) > 0 ? (size_t)atoll(v) : (size_t)1 << 30;
    skip_wait = (v = getenv("TAMM_CUDA_EMU_SKIP_WAIT")) ? (!strcmp(v, "all") ? -1 : atol(v)) : 0;
    load_faults(getenv("TAMM_CUDA_EMU_FAIL"));
}
#endif

static int fail_msg(const char *what, const char *why)
{
    snprintf(err, sizeof err, "%s: %s (emulated device)", what, why);
    return -1;
}

/* Every call goes through here: a sticky fault, or an injected one. */
static int enter(int call, const char *what)
{
    if (atomic_load(&sticky)) return fail_msg(what, "an illegal memory access was encountered (sticky)");
    long k = atomic_fetch_add(&ncalls[call], 1) + 1;
    for (int i = 0; i < nfaults; i++)
        if (faults[i].call == call && faults[i].nth == k) {
            if (faults[i].sticky) {
                atomic_store(&sticky, 1);
                return fail_msg(what, "an illegal memory access was encountered (injected, sticky)");
            }
            return fail_msg(what, call == TAMM_EMU_ALLOC || call == TAMM_EMU_HOST_ALLOC ? "out of memory (injected)"
                                                                         : "injected failure");
        }
    return 0;
}

/* ---- streams ---- */
static uint64_t rnd(uint64_t *s) { *s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17; return *s; }

static void op_delay(emu_stream *s)
{
    if (!delay_us) return;
    unsigned us = (unsigned)(rnd(&s->rng) % (delay_us + 1));
    if (!us) return;
    struct timespec ts = { 0, (long)us * 1000L };
    nanosleep(&ts, NULL);
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
        case OP_COPY: memcpy(o->dst, o->src, o->n); break;
        case OP_ZERO: memset(o->dst, 0, o->n); break;
        case OP_LAUNCH: o->fn(o->dst); if (o->n) free(o->dst); break;
        case OP_FREE: {
            emu_blk *b = (emu_blk *)o->dst - 1;
            pthread_mutex_lock(&mem_mu);
            mem_used[b->dev] -= b->n;
            pthread_mutex_unlock(&mem_mu);
            b->magic = 0;
            free(b);
            atomic_fetch_sub(&live_allocs, 1);
            break;
        }
        case OP_RECORD: {
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            pthread_mutex_lock(&ev_mu);
            if (o->gen > o->ev->completed) {
                o->ev->completed = o->gen;
                o->ev->t = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
            }
            int gone = ev_unref(o->ev);
            pthread_cond_broadcast(&ev_cv);
            pthread_mutex_unlock(&ev_mu);
            if (gone) free(o->ev);
            break;
        }
        case OP_WAIT: {
            pthread_mutex_lock(&ev_mu);
            while (o->ev->completed < o->gen) pthread_cond_wait(&ev_cv, &ev_mu);
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
        free(o);
        if (stop) return NULL;
    }
}

static emu_stream *S(void *p, const char *what)
{
    emu_stream *s = p;
    if (!s || s->magic != EMU_MAGIC) { fail_msg(what, "invalid resource handle (not a stream)"); return NULL; }
    return s;
}

static int enqueue(emu_stream *s, emu_op *o)
{
    o->next = NULL;
    pthread_mutex_lock(&s->mu);
    if (s->tail) s->tail->next = o; else s->head = o;
    s->tail = o;
    s->issued++;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    return 0;
}

static emu_op *op_new(int kind)
{
    emu_op *o = calloc(1, sizeof *o);
    if (o) o->kind = kind;
    return o;
}

/* ---- the device interface ---- */
static int e_count(void)
{
    pthread_once(&cfg_once, read_cfg);
    int n = ndevs < 0 ? 0 : ndevs;
    return n > TAMM_MAX_GPUS ? TAMM_MAX_GPUS : n;
}

static int e_info(int dev, tamm_devinfo *di)
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
    if (atomic_load(&sticky)) return fail_msg("cudaSetDevice", "an illegal memory access was encountered (sticky)");
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
    emu_blk *b = malloc(sizeof *b + n);
    if (!b) {
        pthread_mutex_lock(&mem_mu);
        mem_used[s->dev] -= n;
        pthread_mutex_unlock(&mem_mu);
        return fail_msg(what, "out of memory (host)");
    }
    b->n = n;
    b->dev = s->dev;
    b->magic = EMU_MAGIC;
    memset(b + 1, 0xA5, n); /* uninitialised device memory */
    atomic_fetch_add(&live_allocs, 1);
    *p = b + 1;
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
    if (((emu_blk *)p - 1)->magic != EMU_MAGIC) return fail_msg(what, "invalid argument (not device memory)");
    if (rc && !atomic_load(&sticky)) return rc; /* an injected failure: nothing freed */
    /* after a sticky fault the call fails, but the memory goes back (as when the dead context is destroyed) */
    emu_op *o = op_new(OP_FREE);
    if (!o) return fail_msg(what, "out of memory (host)");
    o->dst = p;
    enqueue(s, o);
    return rc;
}

static int e_free(void *p, void *sp) { return free_as(p, sp, "cudaFreeAsync"); }

static int e_host_alloc(void **p, size_t n)
{
    *p = NULL;
    if (enter(TAMM_EMU_HOST_ALLOC, "cudaHostAlloc")) return -1;
    *p = malloc(n ? n : 1);
    return *p ? 0 : fail_msg("cudaHostAlloc", "out of memory");
}

static void e_host_free(void *p) { free(p); }

/* a stream of device dev with its thread, outside fault injection (the stand-in runtime's default
 * stream is created with it, implicitly, as CUDA's is) */
static int stream_new(void **sp, int dev)
{
    *sp = NULL;
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
 * threads issue meanwhile) */
static void stream_wait_prior(emu_stream *s)
{
    pthread_mutex_lock(&s->mu);
    uint64_t upto = s->issued;
    while (s->done < upto) pthread_cond_wait(&s->cv, &s->mu);
    pthread_mutex_unlock(&s->mu);
}
#endif

static int e_sync(void *sp)
{
    emu_stream *s = S(sp, "cudaStreamSynchronize");
    if (!s) return -1;
    pthread_mutex_lock(&s->mu);
    while (s->done != s->issued) pthread_cond_wait(&s->cv, &s->mu);
    pthread_mutex_unlock(&s->mu);
    return atomic_load(&sticky) ? fail_msg("cudaStreamSynchronize", "an illegal memory access was encountered (sticky)") : 0;
}

static void e_stream_destroy(void *sp)
{
    emu_stream *s = S(sp, "cudaStreamDestroy");
    if (!s) return;
    emu_op *o = op_new(OP_STOP);
    if (!o) return; /* leaked rather than destroyed with work pending */
    enqueue(s, o); /* pending work completes first, as with CUDA */
    pthread_join(s->th, NULL);
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

static int copy_op(int call, const char *what, void *dst, const void *src, size_t n, void *sp)
{
    if (enter(call, what)) return -1;
    emu_stream *s = S(sp, what);
    if (!s) return -1;
    if (!n) return 0;
    if (!dst || !src) return fail_msg(what, "invalid argument (NULL pointer)");
    emu_op *o = op_new(OP_COPY);
    if (!o) return fail_msg(what, "out of memory (host)");
    o->dst = dst;
    o->src = src;
    o->n = n;
    return enqueue(s, o);
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
    emu_op *o = op_new(OP_ZERO);
    if (!o) return fail_msg(what, "out of memory (host)");
    o->dst = dst;
    o->n = n;
    return enqueue(s, o);
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
    return enqueue(s, o);
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
    return enqueue(s, o);
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

/* fn(arg) in stream order; arg is a malloc'd copy (freed after the call) when own */
static int emu_launch(void *stream, void (*fn)(void *), void *arg, int own, const char *what)
{
    if (enter(TAMM_EMU_LAUNCH, what)) { if (own) free(arg); return TAMM_EDEVICE; }
    emu_stream *s = S(stream, what);
    if (!s || !fn) { if (own) free(arg); return TAMM_EINVAL; }
    emu_op *o = op_new(OP_LAUNCH);
    if (!o) { if (own) free(arg); fail_msg(what, "out of memory (host)"); return TAMM_ENOMEM; }
    o->fn = fn;
    o->dst = arg;
    o->n = (size_t)own;
    enqueue(s, o);
    return TAMM_OK;
}

#ifndef TAMM_EMU_STANDALONE
int tamm_emu_launch(void *stream, void (*fn)(void *), const void *arg, size_t size)
{
    if (tamm__gpus.ops != &tamm__devops_emu) return TAMM_ENOTSUP;
    void *a = malloc(size ? size : 1);
    if (!a) return TAMM_ENOMEM;
    if (size) memcpy(a, arg, size);
    return emu_launch(stream, fn, a, 1, "cudaLaunchKernel");
}
#endif

const tamm_devops tamm__devops_emu = {
    "emu", e_count, e_info, e_bind, e_alloc, e_free, e_host_alloc, e_host_free, e_stream_create, e_stream_destroy,
    e_event_create, e_event_destroy, e_h2d, e_d2h, e_d2d, e_zero, e_record, e_wait, e_query, e_sync, e_blas_create,
    e_blas_destroy, e_error, e_lib_open, e_lib_sym, e_solver_create, e_solver_destroy,
};
