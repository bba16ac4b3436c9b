/*
 * devops_fake.c — a simulated GPU for tests (TAMM_CUDA_FAKE=n): host memory
 * stands in for device memory, copies happen when issued, and an event reports
 * completion only on the third poll after it was recorded, so the runtime's
 * in-flight bookkeeping (deferred releases, flush waits, LRU eviction,
 * admission against the memory limit) runs exactly as with a real device.
 * Allocations are counted so tests can check that nothing leaks.
 */
#include "memunit.h"
#include "runtime.h"
#include <stdio.h>
#include <string.h>

#define FAKE_POLLS 3
#define FAKE_MEMORY ((size_t)1 << 30)

typedef struct fake_event { atomic_int left; } fake_event;

static _Thread_local char err[160];
static atomic_long live_allocs;

static int fail(const char *what)
{
    snprintf(err, sizeof err, "%s failed (simulated device)", what);
    return -1;
}

static int f_count(void) { return tamm__rt.cfg.fake_gpus; }

static int f_info(int dev, tamm_devinfo *di)
{
    snprintf(di->name, sizeof di->name, "simulated GPU %d (host memory)", dev);
    di->total = di->free = FAKE_MEMORY;
    return 0;
}

static int f_bind(int dev) { return dev >= 0 && dev < f_count() ? 0 : fail("bind"); }

static int f_alloc(void **p, size_t n, void *s)
{
    (void)s;
    *p = malloc(n ? n : 1);
    if (!*p) return fail("alloc");
    atomic_fetch_add(&live_allocs, 1);
    return 0;
}

static int f_free(void *p, void *s)
{
    (void)s;
    if (p) { atomic_fetch_sub(&live_allocs, 1); free(p); }
    return 0;
}

static int f_host_alloc(void **p, size_t n)
{
    *p = malloc(n ? n : 1);
    return *p ? 0 : fail("host_alloc");
}

static void f_host_free(void *p) { free(p); }

static int f_stream_create(void **s)
{
    *s = malloc(1);
    return *s ? 0 : fail("stream_create");
}

static void f_stream_destroy(void *s) { free(s); }

static int f_event_create(void **e)
{
    fake_event *ev = malloc(sizeof *ev);
    if (!ev) return fail("event_create");
    atomic_init(&ev->left, 0);
    *e = ev;
    return 0;
}

static void f_event_destroy(void *e) { free(e); }

static int f_copy(void *dst, const void *src, size_t n, void *s)
{
    (void)s;
    if (n) memcpy(dst, src, n);
    return 0;
}

static int f_zero(void *dst, size_t n, void *s)
{
    (void)s;
    if (n) memset(dst, 0, n);
    return 0;
}

static int f_record(void *e, void *s)
{
    (void)s;
    atomic_store(&((fake_event *)e)->left, FAKE_POLLS);
    return 0;
}

static int f_wait(void *s, void *e) { (void)s; (void)e; return 0; }

static int f_query(void *e)
{
    fake_event *ev = e;
    int left = atomic_load(&ev->left);
    while (left > 0 && !atomic_compare_exchange_weak(&ev->left, &left, left - 1)) {}
    return left <= 1;
}

static int f_sync(void *s) { (void)s; return 0; }
static int f_blas_create(void **h, void *s) { (void)s; *h = NULL; snprintf(err, sizeof err, "the simulated device has no cuBLAS"); return -1; }
static void f_blas_destroy(void *h) { (void)h; }
static const char *f_error(void) { return err; }

/** Device allocations not yet freed (tests). */
long tamm__fake_live_allocs(void) { return atomic_load(&live_allocs); }

const tamm_devops tamm__devops_fake = {
    "fake", f_count, f_info, f_bind, f_alloc, f_free, f_host_alloc, f_host_free, f_stream_create, f_stream_destroy,
    f_event_create, f_event_destroy, f_copy, f_copy, f_copy, f_zero, f_record, f_wait, f_query, f_sync, f_blas_create,
    f_blas_destroy, f_error,
};
