/*
 * test_cuda_emu.c — the emulated CUDA device (rt/devops_emu.c) through the
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
 *   faults      TAMM_CUDA_EMU_FAIL: the n-th call of a kind fails once; a
 *               sticky fault fails every later call; the last error is per thread;
 *   config      invalid TAMM_CUDA_EMU* values are rejected naming the variable.
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
    tamm_devinfo di;
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
    const char *ef[] = { "TAMM_CUDA_EMU=1", "TAMM_CUDA_EMU_FAIL=h2d:2,zero:2:sticky", NULL };
    run_test_child("injected and sticky faults", faults, NULL, ef, 60);
    expect_config_error((const char *[]){ "TAMM_CUDA_EMU=9", NULL }, "TAMM_CUDA_EMU");
    expect_config_error((const char *[]){ "TAMM_CUDA_EMU", "TAMM_CUDA_FAKE=x", NULL }, "TAMM_CUDA_FAKE");
    expect_config_error((const char *[]){ "TAMM_CUDA_EMU_DELAY=-3", NULL }, "TAMM_CUDA_EMU_DELAY");
    expect_config_error((const char *[]){ "TAMM_CUDA_EMU_MEMORY=0", NULL }, "TAMM_CUDA_EMU_MEMORY");
    expect_config_error((const char *[]){ "TAMM_CUDA_EMU_FAIL=alloc", NULL }, "TAMM_CUDA_EMU_FAIL");
    expect_config_error((const char *[]){ "TAMM_CUDA_EMU_FAIL=copy:1", NULL }, "TAMM_CUDA_EMU_FAIL");
    expect_config_error((const char *[]){ "TAMM_CUDA_EMU_SKIP_WAIT=some", NULL }, "TAMM_CUDA_EMU_SKIP_WAIT");
    return test_summary();
}
