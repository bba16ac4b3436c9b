/*
 * test_cuda_emu.c — the emulated CUDA device (rt/gpu/devops_emu.c) through the
 * device interface, without the rest of the runtime: what CUDA documents and
 * the runtime relies on.
 *
 *   order       one stream runs copies, memsets and launches in issue order, on
 *               its own thread (with random delays), and an event completes
 *               when the stream reaches it;
 *   wait        a stream waiting for another stream's event sees what that
 *               stream wrote before the record (cudaStreamWaitEvent);
 *   no_wait     the same without the wait: the reader sees the device memory's
 *               garbage, or ThreadSanitizer reports the race — missing
 *               ordering is visible whatever the timing (the child must fail);
 *   memory      stream-ordered allocation within TAMM_CUDA_EMU_MEMORY: a real
 *               out-of-memory error, memory returned when the free is reached;
 *   many        more live allocations than the kernel's count of mappings
 *               (vm.max_map_count) allows twice over, each used by a device
 *               operation: a GPU holds them, so the emulator must too;
 *   faults      TAMM_CUDA_EMU_FAIL: the n-th call of a kind fails once; a
 *               sticky fault fails every later call; the last error is per thread;
 *   config      invalid TAMM_CUDA_EMU* values are rejected naming the variable;
 * and where the emulator fails as a GPU does:
 *   host_touch  the host reading device memory ends the process with a report
 *               naming the address and the allocation;
 *   copies      copies and memsets check their pointers at the call: the device
 *               side inside a live allocation of the stream's device, the host
 *               side outside every device ("invalid argument"), frees likewise;
 *   pageable    a copy with pageable host memory is synchronous with respect to
 *               the host, one with pinned memory (host_alloc) is not;
 *   stray       a kernel touching freed memory, or another device's, ends the
 *               process with a report naming the allocation;
 *   free_in_use memory freed while another stream's kernel uses it fails the device;
 *   watchdog    a kernel that does not end within TAMM_CUDA_EMU_KERNEL_TIMEOUT fails
 *               the device ("the launch timed out"), and nothing waits for it;
 *   dev_fault   device code running past its allocation ends the process with a
 *               report naming the kernel, the address and the allocation.
 * Each case runs in a child process (the configuration is read once).
 */
#include "tamm_util.h"
#include "gpu.h"
#include "runtime.h"

#define OPS (&tamm__devops_emu)
#define N 4096

static void setup(void)
{
    tamm__config_read(&tamm__rt.cfg);
    tamm__gpus.ops = &tamm__devops_emu;
}

static int wait_event(void *ev)
{
    for (long i = 0; i < 20000000; i++) {
        int q = OPS->query(ev);
        if (q) return q;
        if (i > 1000) usleep(10);
    }
    return -2;
}

typedef struct { unsigned char *x; size_t n; int mul; int sleep_us; } job;
static void job_run(void *p)
{
    job *j = p;
    if (j->sleep_us) usleep((useconds_t)j->sleep_us);
    for (size_t i = 0; i < j->n; i++) j->x[i] = (unsigned char)(j->x[i] * j->mul + 1);
}

static int order(void *arg)
{
    (void)arg;
    setup();
    CHECK_EQ_INT(OPS->count(), 1);
    CHECK_EQ_INT(OPS->bind(0), 0);
    void *s = NULL, *ev = NULL, *d = NULL;
    CHECK_EQ_INT(OPS->stream_create(&s), 0);
    CHECK_EQ_INT(OPS->event_create(&ev), 0);
    CHECK_EQ_INT(OPS->query(ev), 1); /* never recorded: complete */
    static unsigned char src[N], out[N];
    for (int i = 0; i < N; i++) src[i] = (unsigned char)i;
    for (int rep = 0; rep < 50; rep++) {
        CHECK_EQ_INT(OPS->alloc(&d, N, s), 0);
        CHECK_EQ_INT(OPS->h2d(d, src, N, s), 0);
        job j = { d, N, 3, 0 };
        CHECK_EQ_INT(tamm_emu_launch(s, job_run, &j, sizeof j), TAMM_OK);
        CHECK_EQ_INT(OPS->d2h(out, d, N / 2, s), 0);
        CHECK_EQ_INT(OPS->zero(d, N, s), 0);
        CHECK_EQ_INT(OPS->d2h(out + N / 2, d, N / 2, s), 0);
        CHECK_EQ_INT(OPS->free(d, s), 0);
        CHECK_EQ_INT(OPS->record(ev, s), 0);
        CHECK_EQ_INT(wait_event(ev), 1);
        int bad = 0;
        for (int i = 0; i < N / 2; i++) bad += out[i] != (unsigned char)(src[i] * 3 + 1);
        for (int i = N / 2; i < N; i++) bad += out[i] != 0;
        CHECK_MSG(bad == 0, "rep %d: %d bytes out of order", rep, bad);
    }
    CHECK_EQ_INT(OPS->sync(s), 0);
    CHECK_EQ_INT(tamm__emu_live_allocs(), 0);
    OPS->event_destroy(ev);
    OPS->stream_destroy(s);
    return 0;
}

/* stream a: h2d, a slow launch writing d; record e.  stream b: (wait e,) d2h d -> out. */
static int cross(int with_wait)
{
    setup();
    CHECK_EQ_INT(OPS->bind(0), 0);
    void *a = NULL, *b = NULL, *e = NULL, *f = NULL, *d = NULL;
    CHECK_EQ_INT(OPS->stream_create(&a), 0);
    CHECK_EQ_INT(OPS->stream_create(&b), 0);
    CHECK_EQ_INT(OPS->event_create(&e), 0);
    CHECK_EQ_INT(OPS->event_create(&f), 0);
    static unsigned char src[N], out[N];
    memset(src, 7, sizeof src);
    int wrong = 0;
    for (int rep = 0; rep < 20; rep++) {
        CHECK_EQ_INT(OPS->alloc(&d, N, a), 0);
        CHECK_EQ_INT(OPS->h2d(d, src, N, a), 0);
        job j = { d, N, 2, rep == 0 ? 2000 : 0 };
        CHECK_EQ_INT(tamm_emu_launch(a, job_run, &j, sizeof j), TAMM_OK);
        CHECK_EQ_INT(OPS->record(e, a), 0);
        if (with_wait) CHECK_EQ_INT(OPS->wait(b, e), 0);
        CHECK_EQ_INT(OPS->d2h(out, d, N, b), 0);
        CHECK_EQ_INT(OPS->record(f, b), 0);
        CHECK_EQ_INT(wait_event(f), 1);
        CHECK_EQ_INT(wait_event(e), 1);
        int bad = 0;
        for (int i = 0; i < N; i++) bad += out[i] != 15;
        if (bad) wrong++;
        CHECK_EQ_INT(OPS->free(d, a), 0);
    }
    CHECK_EQ_INT(OPS->sync(a), 0);
    CHECK_EQ_INT(OPS->sync(b), 0);
    OPS->stream_destroy(a);
    OPS->stream_destroy(b);
    OPS->event_destroy(e);
    OPS->event_destroy(f);
    if (wrong) fprintf(stderr, "cross: %d of 20 reads on the other stream saw a wrong value\n", wrong);
    return wrong ? 9 : 0;
}
static int wait_ok(void *arg) { (void)arg; return cross(1); }
static int no_wait(void *arg) { (void)arg; return cross(0); }

static int memory(void *arg)
{
    (void)arg;
    setup();
    CHECK_EQ_INT(OPS->bind(0), 0);
    tamm__devinfo di;
    CHECK_EQ_INT(OPS->info(0, &di), 0);
    CHECK_EQ_INT(di.total, 1000);
    void *s = NULL, *p = NULL, *q = NULL;
    CHECK_EQ_INT(OPS->stream_create(&s), 0);
    CHECK_EQ_INT(OPS->alloc(&p, 600, s), 0);
    CHECK_EQ_INT(OPS->alloc(&q, 600, s), -1);
    CHECK_CONTAINS(OPS->error(), "out of memory");
    CHECK_NULL(q);
    CHECK_EQ_INT(OPS->free(p, s), 0);
    CHECK_EQ_INT(OPS->sync(s), 0); /* the free is reached: the memory is back */
    CHECK_EQ_INT(OPS->alloc(&q, 600, s), 0);
    CHECK_EQ_INT(OPS->free(q, s), 0);
    CHECK_EQ_INT(OPS->sync(s), 0);
    CHECK_EQ_INT(tamm__emu_live_allocs(), 0);
    OPS->stream_destroy(s);
    return 0;
}

/* more small allocations than vm.max_map_count / 2 (two mappings each, guard and data, ran out at
 * about 32,700), each written by a memset and read back, then all freed */
static int many(void *arg)
{
    (void)arg;
    setup();
    long maps = 65530;
    FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
    if (f) {
        if (fscanf(f, "%ld", &maps) != 1) maps = 65530;
        fclose(f);
    }
    long n = maps / 2 + 4000;
    if (n > 200000) n = 200000; /* a machine with a huge limit: still many */
    CHECK_EQ_INT(OPS->bind(0), 0);
    void *s = NULL;
    CHECK_EQ_INT(OPS->stream_create(&s), 0);
    void **p = calloc((size_t)n, sizeof *p);
    CHECK_NOTNULL(p);
    long got = 0;
    for (; got < n; got++) {
        if (OPS->alloc(&p[got], 64, s)) {
            fprintf(stderr, "allocation %ld of %ld: %s\n", got + 1, n, OPS->error());
            break;
        }
        CHECK_EQ_INT(OPS->zero(p[got], 64, s), 0); /* opened and closed by a device operation */
    }
    CHECK_EQ_INT(got, n);
    unsigned char back[64];
    for (long i = 0; i < got; i += got / 50 + 1) {
        CHECK_EQ_INT(OPS->d2h(back, p[i], 64, s), 0);
        CHECK_EQ_INT(OPS->sync(s), 0);
        CHECK_EQ_INT(back[0], 0); /* zeroed, not the fresh allocation's 0xA5 */
        CHECK_EQ_INT(back[63], 0);
    }
    for (long i = 0; i < got; i++) CHECK_EQ_INT(OPS->free(p[i], s), 0);
    CHECK_EQ_INT(OPS->sync(s), 0);
    CHECK_EQ_INT(tamm__emu_live_allocs(), 0);
    free(p);
    OPS->stream_destroy(s);
    return 0;
}

static char other_err[200];
static void *other_thread(void *arg)
{
    (void)arg;
    snprintf(other_err, sizeof other_err, "%s", OPS->error());
    return NULL;
}

static int faults(void *arg)
{
    (void)arg;
    setup(); /* TAMM_CUDA_EMU_FAIL=h2d:2,zero:2:sticky */
    CHECK_EQ_INT(OPS->bind(0), 0);
    void *s = NULL, *d = NULL, *ev = NULL;
    static unsigned char src[64];
    CHECK_EQ_INT(OPS->stream_create(&s), 0);
    CHECK_EQ_INT(OPS->event_create(&ev), 0);
    CHECK_EQ_INT(OPS->alloc(&d, 64, s), 0);
    CHECK_EQ_INT(OPS->h2d(d, src, 64, s), 0);
    CHECK_EQ_INT(OPS->h2d(d, src, 64, s), -1); /* the 2nd fails, once */
    CHECK_CONTAINS(OPS->error(), "cudaMemcpyAsync");
    pthread_t th; /* the last error is the failing thread's */
    pthread_create(&th, NULL, other_thread, NULL);
    pthread_join(th, NULL);
    CHECK_EQ_INT(other_err[0], 0);
    CHECK_EQ_INT(OPS->h2d(d, src, 64, s), 0);
    CHECK_EQ_INT(OPS->zero(d, 64, s), 0);
    CHECK_EQ_INT(OPS->free(d, s), 0);
    CHECK_EQ_INT(OPS->sync(s), 0);
    CHECK_EQ_INT(OPS->zero(src, 64, s), -1);   /* sticky from here on */
    CHECK_CONTAINS(OPS->error(), "sticky");
    CHECK_EQ_INT(OPS->h2d(src, src, 64, s), -1);
    CHECK_EQ_INT(OPS->record(ev, s), -1);
    CHECK_EQ_INT(OPS->query(ev), -1);
    CHECK_EQ_INT(OPS->sync(s), -1);
    OPS->event_destroy(ev);
    OPS->stream_destroy(s);
    return 0;
}

/* ------------------------------------------------------------------ */
/* where the emulated device fails as a GPU does                          */
/* ------------------------------------------------------------------ */
static void *dev_bytes(void *s, size_t n, const void *src)
{
    void *d = NULL;
    CHECK(OPS->alloc(&d, n, s) == 0);
    if (d && src) CHECK(OPS->h2d(d, src, n, s) == 0);
    return d;
}

/* the host reads device memory: the process ends, the report names the allocation */
static int host_touch(void *arg)
{
    (void)arg;
    setup();
    CHECK_EQ_INT(OPS->bind(0), 0);
    void *s = NULL;
    CHECK_EQ_INT(OPS->stream_create(&s), 0);
    static unsigned char src[64];
    unsigned char *d = dev_bytes(s, 64, src);
    CHECK_EQ_INT(OPS->sync(s), 0);
    fprintf(stderr, "device buffer at %p\n", (void *)d);
    return ((volatile unsigned char *)d)[8]; /* never returns */
}

/* a kernel that sleeps ms, then writes v into the 64 bytes at x */
typedef struct { unsigned char *x; int ms; unsigned char v; } slow_job;
static atomic_int slow_started, gate; /* gate: ms < 0 waits for it (up to 30 s) */
static void slow_run(void *p)
{
    slow_job *j = p;
    atomic_fetch_add(&slow_started, 1);
    for (int i = 0; j->ms < 0 && i < 30000 && !atomic_load(&gate); i++) usleep(1000);
    if (j->ms > 0) usleep((useconds_t)j->ms * 1000);
    memset(j->x, j->v, 64);
}

static int copies(void *arg)
{
    (void)arg;
    setup(); /* 2 devices */
    CHECK_EQ_INT(OPS->bind(0), 0);
    void *s0 = NULL, *s1 = NULL;
    CHECK_EQ_INT(OPS->stream_create(&s0), 0);
    CHECK_EQ_INT(OPS->bind(1), 0);
    CHECK_EQ_INT(OPS->stream_create(&s1), 0);
    static unsigned char h[128], back[128];
    for (int i = 0; i < 128; i++) h[i] = (unsigned char)(i * 7);
    unsigned char *d = dev_bytes(s0, 64, NULL);
    CHECK_EQ_INT(OPS->h2d(h, h + 64, 64, s0), -1); /* a host destination */
    CHECK_CONTAINS(OPS->error(), "cudaMemcpyAsync (host to device): invalid argument: the destination");
    CHECK_CONTAINS(OPS->error(), "is host memory, not device memory");
    CHECK_EQ_INT(OPS->h2d(d, h, 65, s0), -1); /* one byte past the allocation */
    CHECK_CONTAINS(OPS->error(), "65 bytes from offset 0 of the device 0 allocation of 64 bytes at");
    CHECK_CONTAINS(OPS->error(), "run past its end");
    CHECK_EQ_INT(OPS->d2h(d + 8, d, 16, s0), -1); /* a device destination for device to host */
    CHECK_CONTAINS(OPS->error(), "is device 0 memory, not host memory");
    CHECK_EQ_INT(OPS->zero(h, 16, s0), -1);
    CHECK_CONTAINS(OPS->error(), "cudaMemsetAsync: invalid argument: the destination");
    CHECK_EQ_INT(OPS->h2d(d, h, 64, s1), -1); /* device 0's memory on a stream of device 1 */
    CHECK_CONTAINS(OPS->error(), "is memory of device 0, the stream is device 1's (peer copies are not emulated)");
    CHECK_EQ_INT(OPS->free(d + 8, s0), -1); /* not the start of an allocation */
    CHECK_CONTAINS(OPS->error(), "cudaFreeAsync: invalid argument (device 0 allocation of 64 bytes at");
    /* none of them was sticky: the device still works */
    CHECK_EQ_INT(OPS->h2d(d, h, 64, s0), 0);
    CHECK_EQ_INT(OPS->d2h(back, d, 64, s0), 0);
    slow_job j = { d, -1, 4 }; /* the free waits behind it: the second one comes while it is pending */
    CHECK_EQ_INT(tamm_emu_launch(s0, slow_run, &j, sizeof j), TAMM_OK);
    CHECK_EQ_INT(OPS->free(d, s0), 0);
    CHECK_EQ_INT(OPS->free(d, s0), -1); /* twice */
    CHECK_CONTAINS(OPS->error(), "is already freed");
    atomic_store(&gate, 1);
    CHECK_EQ_INT(OPS->sync(s0), 0);
    CHECK(!memcmp(back, h, 64));
    CHECK_EQ_INT(tamm__emu_live_allocs(), 0);
    OPS->stream_destroy(s0);
    OPS->stream_destroy(s1);
    return 0;
}

static int pageable(void *arg)
{
    (void)arg;
    setup();
    CHECK_EQ_INT(OPS->bind(0), 0);
    void *s = NULL, *ev = NULL, *pin = NULL;
    CHECK_EQ_INT(OPS->stream_create(&s), 0);
    CHECK_EQ_INT(OPS->event_create(&ev), 0);
    CHECK_EQ_INT(OPS->host_alloc(&pin, 64), 0);
    static unsigned char out[64], src[64];
    unsigned char *d = dev_bytes(s, 64, NULL);
    /* device to pageable host: the data is there when the call returns */
    slow_job j = { d, 30, 5 };
    CHECK_EQ_INT(tamm_emu_launch(s, slow_run, &j, sizeof j), TAMM_OK);
    CHECK_EQ_INT(OPS->d2h(out, d, 64, s), 0);
    CHECK_EQ_INT(out[0], 5);
    CHECK_EQ_INT(out[63], 5);
    /* host to device from pageable memory: the source may change as soon as the call returns */
    memset(src, 1, sizeof src);
    j.v = 6;
    CHECK_EQ_INT(tamm_emu_launch(s, slow_run, &j, sizeof j), TAMM_OK);
    CHECK_EQ_INT(OPS->h2d(d, src, 64, s), 0);
    memset(src, 2, sizeof src);
    CHECK_EQ_INT(OPS->d2h(out, d, 64, s), 0);
    CHECK_EQ_INT(out[0], 1);
    /* pinned memory: asynchronous, the copy waits behind the kernel, which waits for the gate */
    memset(pin, 9, 64);
    j.v = 7;
    j.ms = -1;
    CHECK_EQ_INT(tamm_emu_launch(s, slow_run, &j, sizeof j), TAMM_OK);
    CHECK_EQ_INT(OPS->d2h(pin, d, 64, s), 0);
    CHECK_EQ_INT(((volatile unsigned char *)pin)[0], 9);
    atomic_store(&gate, 1);
    CHECK_EQ_INT(OPS->record(ev, s), 0);
    CHECK_EQ_INT(wait_event(ev), 1);
    CHECK_EQ_INT(((unsigned char *)pin)[0], 7);
    CHECK_EQ_INT(OPS->free(d, s), 0);
    CHECK_EQ_INT(OPS->sync(s), 0);
    OPS->host_free(pin);
    OPS->event_destroy(ev);
    OPS->stream_destroy(s);
    return 0;
}

/* a kernel given freed device memory (which == 0) or another device's (which == 1): it faults when
 * it touches it (only its own device's live allocations are open to it) */
static int stray(void *arg)
{
    int which = *(int *)arg;
    setup();
    void *s0 = NULL, *s1 = NULL;
    CHECK_EQ_INT(OPS->bind(0), 0);
    CHECK_EQ_INT(OPS->stream_create(&s0), 0);
    if (which) {
        CHECK_EQ_INT(OPS->bind(1), 0);
        CHECK_EQ_INT(OPS->stream_create(&s1), 0);
    }
    unsigned char *d = dev_bytes(s0, 64, NULL);
    if (!which) {
        CHECK_EQ_INT(OPS->free(d, s0), 0);
        CHECK_EQ_INT(OPS->sync(s0), 0);
    }
    slow_job j = { d, 0, 1 };
    CHECK_EQ_INT(tamm_emu_launch(which ? s1 : s0, slow_run, &j, sizeof j), TAMM_OK);
    CHECK_EQ_INT(OPS->sync(which ? s1 : s0), 0); /* never returns */
    return 0;
}

static int free_in_use(void *arg)
{
    (void)arg;
    setup();
    CHECK_EQ_INT(OPS->bind(0), 0);
    void *a = NULL, *b = NULL;
    CHECK_EQ_INT(OPS->stream_create(&a), 0);
    CHECK_EQ_INT(OPS->stream_create(&b), 0);
    unsigned char *d = dev_bytes(a, 64, NULL);
    CHECK_EQ_INT(OPS->sync(a), 0);
    slow_job j = { d, -1, 3 };
    CHECK_EQ_INT(tamm_emu_launch(a, slow_run, &j, sizeof j), TAMM_OK);
    CHECK(tu_wait_flag(&slow_started, 1, 30));   /* the kernel is running (until the gate opens) */
    CHECK_EQ_INT(OPS->free(d, b), 0);    /* no wait for it: a missing stream ordering */
    CHECK_EQ_INT(OPS->sync(b), -1);
    atomic_store(&gate, 1);
    CHECK_CONTAINS(OPS->error(), "was freed (cudaFreeAsync) while a device operation on another stream still used it");
    CHECK_EQ_INT(OPS->sync(a), -1);
    CHECK_EQ_INT(tamm__emu_live_allocs(), 0);
    OPS->stream_destroy(a);
    OPS->stream_destroy(b);
    return 0;
}

static atomic_int wd_release;
static void never_ends(void *p)
{
    (void)p;
    while (!atomic_load(&wd_release)) usleep(1000);
}

static int watchdog(void *arg)
{
    (void)arg;
    setup(); /* TAMM_CUDA_EMU_KERNEL_TIMEOUT=1 */
    CHECK_EQ_INT(OPS->bind(0), 0);
    void *s = NULL, *ev = NULL;
    CHECK_EQ_INT(OPS->stream_create(&s), 0);
    CHECK_EQ_INT(OPS->event_create(&ev), 0);
    double t0 = h_now();
    CHECK_EQ_INT(tamm_emu_launch(s, never_ends, NULL, 0), TAMM_OK);
    CHECK_EQ_INT(OPS->record(ev, s), 0);
    CHECK_EQ_INT(wait_event(ev), -1); /* the device failed */
    double dt = h_now() - t0;
    CHECK_MSG(dt >= 0.9 && dt < 20, "the watchdog fired after %.2f s (limit 1 s)", dt);
    CHECK_CONTAINS(OPS->error(), "cudaEventQuery: the launch timed out and was terminated: a kernel (tamm_emu_launch) did "
                                 "not finish within 1 s on emulated GPU 0 (TAMM_CUDA_EMU_KERNEL_TIMEOUT)");
    CHECK_EQ_INT(OPS->sync(s), -1); /* returns: the stream is dead */
    OPS->event_destroy(ev);
    OPS->stream_destroy(s);          /* returns too */
    atomic_store(&wd_release, 1);
    return 0;
}

/* device code running past its allocation: the process ends, the report names the kernel */
static void overrun(void *p) { ((volatile unsigned char *)*(unsigned char **)p)[256] = 1; }
static int dev_fault(void *arg)
{
    (void)arg;
    setup();
    CHECK_EQ_INT(OPS->bind(0), 0);
    void *s = NULL;
    CHECK_EQ_INT(OPS->stream_create(&s), 0);
    unsigned char *d = dev_bytes(s, 64, NULL);
    CHECK_EQ_INT(tamm_emu_launch(s, overrun, &d, sizeof d), TAMM_OK);
    CHECK_EQ_INT(OPS->sync(s), 0); /* never returns */
    return 0;
}

/* a child that must end by the emulator's fault report, naming what it says */
static void expect_fault(const char *name, h_child_fn fn, const char *const *env, int arg, const char *const *says)
{
    h_status st;
    static char err[H_ERRBUF_SIZE];
    h_context("%s", name);
    h_sanitizer_expected = 1; /* under a sanitizer, its SEGV report follows the emulator's */
    CHECK_EQ_INT(run_child(fn, &arg, env, 60, &st, err), 0);
    h_sanitizer_expected = 0;
    CHECK_MSG(!st.timed_out && (st.signaled || (st.exited && st.code != 0)), "%s: the child did not stop on the fault", name);
    for (int i = 0; says[i]; i++) CHECK_CONTAINS(err, says[i]);
    char *nl = strstr(err, "tamm: error:");
    if (nl && (nl = strchr(nl, '\n'))) *nl = 0;
    printf("%s: %s\n", name, strstr(err, "tamm: error:") ? strstr(err, "tamm: error:") : err);
    h_context(NULL);
}

static int init_only(void *arg)
{
    (void)arg;
    return tamm__config_read(&tamm__rt.cfg) == TAMM_OK ? 0 : 7;
}

static void expect_config_error(const char *const *env, const char *var)
{
    h_status st;
    static char err[H_ERRBUF_SIZE];
    h_context("config %s=...", var);
    CHECK_EQ_INT(run_child(init_only, NULL, env, 30, &st, err), 0);
    CHECK_MSG(child_clean_end(&st) && st.code != 0, "an invalid %s was accepted", var);
    CHECK_CONTAINS(err, var);
    h_context(NULL);
}

int main(void)
{
    const char *e1[] = { "TAMM_CUDA_EMU=1", "TAMM_CUDA_EMU_DELAY=50", "TAMM_CUDA_EMU_SEED=7", NULL };
    run_test_child("order on one stream", order, NULL, e1, 120);
    run_test_child("a stream waits for another's event", wait_ok, NULL, e1, 120);
    /* without the wait the child must fail: a wrong value (exit 9), or a sanitizer's report */
    h_status st;
    static char err[H_ERRBUF_SIZE];
    h_sanitizer_expected = 1; /* under TSan the race is reported (and the child stops) */
    CHECK_EQ_INT(run_child(no_wait, NULL, e1, 120, &st, err), 0);
    h_sanitizer_expected = 0;
    CHECK_MSG(!child_ok(&st), "a read on another stream without a stream wait saw the right value every time");
    char *nl = strchr(err, '\n');
    if (nl && strstr(err, "ThreadSanitizer")) nl = strchr(strstr(err, "ThreadSanitizer"), '\n');
    if (nl) *nl = 0;
    printf("without the stream wait: %s\n", err);
    const char *em[] = { "TAMM_CUDA_EMU=1", "TAMM_CUDA_EMU_MEMORY=1000", NULL };
    run_test_child("stream-ordered allocation, out of memory", memory, NULL, em, 60);
    const char *e0m[] = { "TAMM_CUDA_EMU=1", NULL };
    run_test_child("more live allocations than vm.max_map_count / 2", many, NULL, e0m, 300);
    const char *ef[] = { "TAMM_CUDA_EMU=1", "TAMM_CUDA_EMU_FAIL=h2d:2,zero:2:sticky", NULL };
    run_test_child("injected and sticky faults", faults, NULL, ef, 60);
    /* where the emulated device fails as a GPU does */
    const char *e0[] = { "TAMM_CUDA_EMU=1", NULL };
    expect_fault("the host reads device memory", host_touch, e0, 0,
                 (const char *const[]){ "tamm: error: host code accessed emulated device memory at 0x",
                                        "(device 0 allocation of 64 bytes at 0x", ", offset 8): the host reaches device "
                                        "memory only through copies (cudaMemcpy), as with a GPU [segmentation fault]", NULL });
    const char *e2[] = { "TAMM_CUDA_EMU=2", NULL };
    run_test_child("copies check their pointers", copies, NULL, e2, 60);
    run_test_child("pageable copies are synchronous, pinned ones not", pageable, NULL, e0, 60);
    expect_fault("a kernel given freed memory", stray, e0, 0,
                 (const char *const[]){ "tamm: error: an illegal memory access was encountered on emulated GPU 0: a kernel "
                                        "(tamm_emu_launch) accessed 0x", "(device 0 allocation of 64 bytes at 0x",
                                        ", offset 0, which was freed)", NULL });
    expect_fault("a kernel on device 1 given device 0's memory", stray, e2, 1,
                 (const char *const[]){ "tamm: error: an illegal memory access was encountered on emulated GPU 1: a kernel "
                                        "(tamm_emu_launch) accessed 0x", "(device 0 allocation of 64 bytes at 0x",
                                        ", offset 0)", NULL });
    run_test_child("memory freed while in use fails the device", free_in_use, NULL, e0, 60);
    const char *ew[] = { "TAMM_CUDA_EMU=1", "TAMM_CUDA_EMU_KERNEL_TIMEOUT=1", NULL };
    run_test_child("a kernel that never ends: the watchdog", watchdog, NULL, ew, 60);
    expect_fault("device code runs past its allocation", dev_fault, e0, 0,
                 (const char *const[]){ "tamm: error: an illegal memory access was encountered on emulated GPU 0: a kernel "
                                        "(tamm_emu_launch) accessed 0x", "(192 bytes past the end of the device 0 "
                                        "allocation of 64 bytes at 0x", NULL });
    expect_config_error((const char *[]){ "TAMM_CUDA_EMU_KERNEL_TIMEOUT=-1", NULL }, "TAMM_CUDA_EMU_KERNEL_TIMEOUT");
    expect_config_error((const char *[]){ "TAMM_CUDA_EMU=9", NULL }, "TAMM_CUDA_EMU");
    expect_config_error((const char *[]){ "TAMM_CUDA_EMU", "TAMM_CUDA_FAKE=x", NULL }, "TAMM_CUDA_FAKE");
    expect_config_error((const char *[]){ "TAMM_CUDA_EMU_DELAY=-3", NULL }, "TAMM_CUDA_EMU_DELAY");
    expect_config_error((const char *[]){ "TAMM_CUDA_EMU_MEMORY=0", NULL }, "TAMM_CUDA_EMU_MEMORY");
    expect_config_error((const char *[]){ "TAMM_CUDA_EMU_FAIL=alloc", NULL }, "TAMM_CUDA_EMU_FAIL");
    expect_config_error((const char *[]){ "TAMM_CUDA_EMU_FAIL=copy:1", NULL }, "TAMM_CUDA_EMU_FAIL");
    expect_config_error((const char *[]){ "TAMM_CUDA_EMU_SKIP_WAIT=some", NULL }, "TAMM_CUDA_EMU_SKIP_WAIT");
    return test_summary();
}
