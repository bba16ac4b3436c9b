/*
 * test_gpu_early.c — GrCUDA-style ordering of dependent GPU tasks on the
 * emulated device (docs/runtime.md, "GPUs": "Successors before completion"):
 * a task whose device work is in flight ends its dependences at issue, so
 * that a successor on the same GPU is issued at once, ordered after it by a
 * stream wait on its event, with no host round trip; a successor elsewhere
 * still waits (the flush of the copies it wrote waits for that event), and
 * what cannot be ordered that way falls back to completion.
 *
 *   chain      a chain of dependent CUDA tasks on one block: a child's variant
 *              runs (is issued) before its parent's device work has run, yet
 *              the result is the sequential one; TAMM_CUDA_EARLY=0 gives
 *              back the host round trip (no child issued early); with every
 *              stream wait dropped (TAMM_CUDA_EMU_SKIP_WAIT=all) the chain fails.
 *              Prints the chain's time both ways with TAMM_CUDA_EMU_DELAY.
 *   war        a GPU task that fetches a block from its home (a Get still in
 *              flight) and a CPU task that overwrites that home next: the
 *              reader must not end early (it would read the new value).
 *   destroy    a GPU task reading a resident copy (slowly) ends early, then the
 *              tensor is destroyed: its device buffers are freed after that
 *              read (else a use after free: ASan, or a wrong result).
 *   mixed      random CUDA-only, CPU-only and two-variant tasks with top-level
 *              reads on 2 GPUs, against a sequential evaluation.
 *   prefetch   independent GPU tasks on one stream: those waiting in the GPU's
 *              queue have their inputs copied in on the copy stream before
 *              issue (prefetched blocks used, fewer fetches at issue), within
 *              the memory limit; TAMM_CUDA_PREFETCH=0 fetches every input at
 *              issue.  `test_gpu_early prefetch` prints the time.
 * Each case runs in a child process; every case is run under ASan and TSan
 * in those builds (labels rt, gpu).  `test_gpu_early chain` runs the chain
 * alone in the calling environment and prints its time (the measurement in
 * docs/runtime.md).
 */
#include "tamm_util.h"
#include "gpu.h"

#define TILE 16

static atomic_int dev_done;   /* device steps executed (on the emulated streams' threads) */
static atomic_int issued_early; /* variants that ran before their parent's device step */

typedef struct { uint64_t *x; const uint64_t *src; uint64_t k; int kind; } job;
static void run_job(void *p)
{
    job *j = p;
    if (j->kind == 2) { /* a long kernel: reads its source late */
        struct timespec ts = { 0, 2000000 };
        nanosleep(&ts, NULL);
    }
    for (int e = 0; e < TILE; e++) {
        if (j->kind == 0) j->x[e] = j->x[e] * 3 + j->k + e;   /* step: x = 3x + k + e */
        else j->x[e] = j->src[e] * 2 + j->k;                  /* copy: x = 2 src + k */
    }
    atomic_fetch_add(&dev_done, 1);
}
static void launch(job j) { TCHECK(tamm_emu_launch(tamm_cuda_stream(), run_job, &j, sizeof j) == TAMM_OK); }

static uint64_t wall_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static unsigned long long stat_sum(int which)
{
    unsigned long long n = 0;
    for (int g = 0; g < tamm__gpus.n; g++)
        n += atomic_load(which ? &tamm__gpus.g[g].nahead : &tamm__gpus.g[g].nearly);
    return n;
}

/* ------------------------------------------------------------------ */
/* chain                                                                 */
/* ------------------------------------------------------------------ */
typedef struct { tamm_tensor *X; int i; uint64_t k; } step_args;
static void step_gpu(tamm_ctx *ctx, void *p)
{
    step_args *a = p;
    long i0[1] = { 0 };
    uint64_t *x = tamm_get_buf_readwrite(ctx, a->X, i0);
    TCHECK(x != NULL);
    if (atomic_load(&dev_done) < a->i) atomic_fetch_add(&issued_early, 1); /* its parent's step has not run */
    if (x) launch((job){ x, NULL, a->k, 0 });
    tamm_release_put(ctx, x);
}

enum { CHAIN = 300 };
static int chain(void *arg)
{
    int early = *(int *)arg;
    tu_init();
    tamm_tensor *X = tu_vec("X", 1, TILE);
    uint64_t ref[TILE] = { 0 };
    uint64_t t0 = wall_us();
    for (int i = 0; i < CHAIN; i++) {
        step_args a = { X, i, i % 7 };
        for (int e = 0; e < TILE; e++) ref[e] = ref[e] * 3 + a.k + e;
        tamm_ref r = tu_ref1(X, TAMM_READWRITE, 0);
        tamm_task t = tu_task(NULL, &a, sizeof a, &r, 1, "step", __FILE__, __LINE__);
        t.cuda = step_gpu;
        CHECK_EQ_INT(tamm_submit(NULL, &t), TAMM_OK);
    }
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    uint64_t t1 = wall_us();
    const uint64_t *x = tamm_block(X, 0);
    CHECK_NOTNULL(x);
    if (x) CHECK_MSG(!memcmp(x, ref, sizeof ref), "the chain's result differs from the sequential one");
    unsigned long long ne = stat_sum(0), na = stat_sum(1);
    printf("chain of %d dependent GPU tasks, TAMM_CUDA_EARLY=%d: %.2f ms, %d variants ran before their parent's "
           "device work, %llu tasks ended early, %llu issued behind a task in flight\n", CHAIN, early,
           (double)(t1 - t0) / 1000.0, atomic_load(&issued_early), ne, na);
    if (early) {
        CHECK_MSG(atomic_load(&issued_early) > 0, "no child was issued before its parent's device work ran");
        CHECK_MSG(na > 0 && ne > 0, "early ends %llu, issued behind %llu", ne, na);
    } else {
        CHECK_EQ_INT(atomic_load(&issued_early), 0); /* the host saw each parent complete first */
        CHECK_MSG(ne == 0 && na == 0, "TAMM_CUDA_EARLY=0: early ends %llu, issued behind %llu", ne, na);
    }
    CHECK_TASKS_OK();
    tamm_tensor_destroy(X);
    TU_FINALIZE();
    CHECK_EQ_INT(tamm__emu_live_allocs(), 0);
    return 0;
}

/* ------------------------------------------------------------------ */
/* war: a Get from a home still in flight, then a CPU writer of that home */
/* ------------------------------------------------------------------ */
typedef struct { tamm_tensor *T, *U; long b; uint64_t k; int slow; } cp_args;
static void copy_gpu(tamm_ctx *ctx, void *p)
{
    cp_args *a = p;
    long bi[1] = { a->b };
    const uint64_t *s = tamm_get_buf_read(ctx, a->T, bi);
    uint64_t *d = tamm_get_buf_write(ctx, a->U, bi);
    TCHECK(s && d);
    if (s && d) launch((job){ d, s, a->k, a->slow ? 2 : 1 });
    tamm_release_put(ctx, (void *)s);
    tamm_release_put(ctx, d);
}
static void set_cpu(tamm_ctx *ctx, void *p)
{
    cp_args *a = p;
    long bi[1] = { a->b };
    uint64_t *x = tamm_get_buf_write(ctx, a->T, bi);
    TCHECK(x != NULL);
    if (x) for (int e = 0; e < TILE; e++) x[e] = a->k * 1000 + e;
    tamm_release_put(ctx, x);
}

enum { NB = 8, ROUNDS = 20 };
static void submit_copy(tamm_tensor *T, tamm_tensor *U, long b, uint64_t k, int slow)
{
    cp_args a = { T, U, b, k, slow };
    tamm_ref r[2] = { tu_ref1(T, TAMM_READ, b), tu_ref1(U, TAMM_WRITE, b) };
    tamm_task t = tu_task(NULL, &a, sizeof a, r, 2, "copy", __FILE__, __LINE__);
    t.cuda = copy_gpu;
    CHECK_EQ_INT(tamm_submit(NULL, &t), TAMM_OK);
}
static void submit_set(tamm_tensor *T, long b, uint64_t k)
{
    cp_args a = { T, NULL, b, k, 0 };
    tamm_ref r = tu_ref1(T, TAMM_WRITE, b);
    tamm_task t = tu_task(set_cpu, &a, sizeof a, &r, 1, "set", __FILE__, __LINE__);
    CHECK_EQ_INT(tamm_submit(NULL, &t), TAMM_OK);
}

static int war(void *arg)
{
    (void)arg;
    tu_init();
    tamm_tensor *T = tu_vec("T", NB, TILE), *U = tu_vec("U", NB, TILE);
    for (int r = 0; r < ROUNDS; r++) {
        for (long b = 0; b < NB; b++) submit_set(T, b, r * 10 + b);   /* the home, on a CPU */
        for (long b = 0; b < NB; b++) submit_copy(T, U, b, r, 0);     /* Get from that home */
        for (long b = 0; b < NB; b++) submit_set(T, b, r * 10 + b + 5); /* overwrites it next */
        CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
        for (long b = 0; b < NB; b++) {
            const uint64_t *u = tamm_block(U, b);
            CHECK_NOTNULL(u);
            int bad = -1;
            for (int e = 0; u && e < TILE && bad < 0; e++)
                if (u[e] != ((uint64_t)(r * 10 + b) * 1000 + e) * 2 + r) bad = e;
            CHECK_MSG(bad < 0, "round %d: U[%ld][%d] = %lld: the copy read T after the next writer", r, b, bad,
                      u ? (long long)u[bad] : 0LL);
        }
    }
    CHECK_TASKS_OK();
    tamm_tensor_destroy(T);
    tamm_tensor_destroy(U);
    TU_FINALIZE();
    CHECK_EQ_INT(tamm__emu_live_allocs(), 0);
    return 0;
}

/* ------------------------------------------------------------------ */
/* destroy: a read of a resident copy ends early, then the tensor goes    */
/* ------------------------------------------------------------------ */
static int destroy(void *arg)
{
    (void)arg;
    tu_init();
    for (int r = 0; r < ROUNDS; r++) {
        tamm_tensor *T = tu_vec("T", NB, TILE), *U = tu_vec("U", NB, TILE), *V = tu_vec("V", NB, TILE);
        for (long b = 0; b < NB; b++) submit_set(T, b, r + b);        /* T's home, on a CPU */
        for (long b = 0; b < NB; b++) submit_copy(T, U, b, r, 0);     /* fetches T's copy: completes first */
        for (long b = 0; b < NB; b++) submit_copy(T, V, b, r + 1, 1); /* reads that copy late: ends early */
        tamm_tensor_destroy(T);                                       /* after both: frees T's copies */
        CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
        for (long b = 0; b < NB; b++) {
            const uint64_t *u = tamm_block(U, b), *v = tamm_block(V, b);
            CHECK(u && v);
            int bad = -1;
            for (int e = 0; u && v && e < TILE && bad < 0; e++) {
                uint64_t t0 = (uint64_t)(r + b) * 1000 + (uint64_t)e;
                if (u[e] != t0 * 2 + (uint64_t)r || v[e] != t0 * 2 + (uint64_t)r + 1) bad = e;
            }
            CHECK_MSG(bad < 0, "round %d: U or V[%ld][%d] differs (a destroyed copy was read)", r, b, bad);
        }
        tamm_tensor_destroy(U);
        tamm_tensor_destroy(V);
    }
    CHECK_MSG(stat_sum(0) > 0, "no task ended early");
    CHECK_TASKS_OK();
    TU_FINALIZE();
    CHECK_EQ_INT(tamm__emu_live_allocs(), 0);
    return 0;
}

/* ------------------------------------------------------------------ */
/* mixed: random tasks on 2 GPUs and the CPU                              */
/* ------------------------------------------------------------------ */
enum { MB = 10, MTASKS = 600 };
typedef struct { tamm_tensor *X; long d, s; uint64_t k; } mix_args;
static void mix_apply(uint64_t *d, const uint64_t *s, uint64_t k)
{
    for (int e = 0; e < TILE; e++) d[e] = d[e] * 3 + s[e] + k;
}
typedef struct { uint64_t *d; const uint64_t *s; uint64_t k; } mix_job;
static void mix_run(void *p) { mix_job *j = p; mix_apply(j->d, j->s, j->k); }
static void mix_body(tamm_ctx *ctx, void *p, int gpu)
{
    mix_args *a = p;
    long di[1] = { a->d }, si[1] = { a->s };
    const uint64_t *s = tamm_get_buf_read(ctx, a->X, si);
    uint64_t *d = tamm_get_buf_readwrite(ctx, a->X, di);
    TCHECK(s && d);
    if (s && d) {
        if (gpu) {
            mix_job j = { d, s, a->k };
            TCHECK(tamm_emu_launch(tamm_cuda_stream(), mix_run, &j, sizeof j) == TAMM_OK);
        } else {
            mix_apply(d, s, a->k);
        }
    }
    tamm_release_put(ctx, (void *)s);
    tamm_release_put(ctx, d);
}
static void mix_cpu(tamm_ctx *ctx, void *p) { mix_body(ctx, p, 0); }
static void mix_gpu(tamm_ctx *ctx, void *p) { mix_body(ctx, p, 1); }
static uint64_t rnd(uint64_t *s) { *s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17; return *s; }

static int mixed(void *arg)
{
    unsigned seed = *(unsigned *)arg;
    tu_init();
    tamm_tensor *X = tu_vec("X", MB, TILE);
    static uint64_t ref[MB][TILE];
    memset(ref, 0, sizeof ref);
    uint64_t s = 0x9E3779B97F4A7C15ull ^ seed;
    for (int i = 0; i < MTASKS; i++) {
        mix_args a = { X, (long)(rnd(&s) % MB), 0, (uint64_t)(rnd(&s) % 100) };
        do a.s = (long)(rnd(&s) % MB); while (a.s == a.d);
        int v = (int)(rnd(&s) % 8); /* mostly CUDA only: chains on the GPUs */
        mix_apply(ref[a.d], ref[a.s], a.k);
        tamm_ref r[2] = { tu_ref1(X, TAMM_READ, a.s), tu_ref1(X, TAMM_READWRITE, a.d) };
        tamm_task t = tu_task(v == 0 || v == 1 ? mix_cpu : NULL, &a, sizeof a, r, 2, "mix", __FILE__, __LINE__);
        t.cuda = v == 0 ? NULL : mix_gpu;
        CHECK_EQ_INT(tamm_submit(NULL, &t), TAMM_OK);
        if (rnd(&s) % 50 == 0) {
            long b = (long)(rnd(&s) % MB);
            const uint64_t *p = tamm_block(X, b);
            CHECK_NOTNULL(p);
            if (p) CHECK_MSG(!memcmp(p, ref[b], sizeof ref[b]), "top-level read of X[%ld] after task %d differs", b, i);
        }
    }
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    static uint64_t all[MB * TILE];
    CHECK_EQ_INT(tamm_tensor_gather(X, all), TAMM_OK);
    int bad = -1;
    for (int b = 0; b < MB && bad < 0; b++)
        if (memcmp(&all[b * TILE], ref[b], sizeof ref[b])) bad = b;
    CHECK_MSG(bad < 0, "block X[%d] differs from the sequential evaluation", bad);
    CHECK_MSG(stat_sum(1) > 0, "no GPU task was issued behind a task in flight");
    CHECK_TASKS_OK();
    tamm_tensor_destroy(X);
    TU_FINALIZE();
    CHECK_EQ_INT(tamm__emu_live_allocs(), 0);
    return 0;
}

/* ------------------------------------------------------------------ */
/* prefetch: tasks queued behind the running ones have their inputs      */
/* copied in on the copy stream before they are issued                   */
/* ------------------------------------------------------------------ */
enum { NPF = 40 };
static int prefetch(void *arg)
{
    int mode = *(int *)arg, on = mode != 0; /* 0 off, 1 on, 2 on within a tight limit (correctness only) */
    tu_init();
    tamm_tensor *A = tu_vec("A", NPF, TILE), *B = tu_vec("B", NPF, TILE);
    for (long b = 0; b < NPF; b++) submit_set(A, b, b); /* homes on the host, no GPU copy */
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    unsigned long long m0 = atomic_load(&tamm__gpus.g[0].misses);
    uint64_t t0 = wall_us();
    for (long b = 0; b < NPF; b++) submit_copy(A, B, b, 7, 0); /* one stream: most wait in the queue */
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    uint64_t t1 = wall_us();
    for (long b = 0; b < NPF; b++) {
        const uint64_t *x = tamm_block(B, b);
        CHECK_NOTNULL(x);
        int bad = -1;
        for (int e = 0; x && e < TILE && bad < 0; e++)
            if (x[e] != ((uint64_t)b * 1000 + (uint64_t)e) * 2 + 7) bad = e;
        CHECK_MSG(bad < 0, "B[%ld][%d] differs", b, bad);
    }
    tamm__gpu *g = &tamm__gpus.g[0];
    unsigned long long miss = atomic_load(&g->misses) - m0, pf = atomic_load(&g->npf), used = atomic_load(&g->npf_used);
    printf("%d independent GPU tasks on one stream, TAMM_CUDA_PREFETCH=%d: %.2f ms, %llu of their reads fetched at "
           "issue, %llu blocks prefetched, %llu of them used\n", NPF, on, (double)(t1 - t0) / 1000.0, miss, pf, used);
    if (mode == 1) {
        CHECK_MSG(pf > 0 && used > 0, "prefetched %llu, used %llu", pf, used);
        CHECK_MSG(miss < NPF / 2, "%llu of %d reads still fetched at issue", miss, NPF);
    } else if (mode == 0) {
        CHECK_MSG(pf == 0 && miss == NPF, "TAMM_CUDA_PREFETCH=0: prefetched %llu, fetched at issue %llu", pf, miss);
    }
    CHECK_MSG(g->peak <= g->limit, "peak %zu over the limit %zu", g->peak, g->limit);
    CHECK_TASKS_OK();
    tamm_tensor_destroy(A);
    tamm_tensor_destroy(B);
    TU_FINALIZE();
    CHECK_EQ_INT(tamm__emu_live_allocs(), 0);
    return 0;
}

int main(int argc, char **argv)
{
    static int on = 1, off = 0;
    if (argc > 1 && !strcmp(argv[1], "chain")) { /* the measurement alone, in this process (environment as set) */
        const char *e = getenv("TAMM_CUDA_EARLY");
        int early = !(e && !strcmp(e, "0"));
        chain(&early);
        return test_summary();
    }
    if (argc > 1 && !strcmp(argv[1], "prefetch")) {
        const char *e = getenv("TAMM_CUDA_PREFETCH");
        int pf = !(e && !strcmp(e, "0"));
        prefetch(&pf);
        return test_summary();
    }
    const char *e1[] = { "TAMM_CUDA_EMU=1", "TAMM_CUDA_EMU_DELAY=20", "TAMM_NUM_WORKERS=2", "TAMM_CUDA_EARLY", NULL };
    const char *e0[] = { "TAMM_CUDA_EMU=1", "TAMM_CUDA_EMU_DELAY=20", "TAMM_NUM_WORKERS=2", "TAMM_CUDA_EARLY=0", NULL };
    run_test_child("chain: children issued before their parent completes", chain, &on, e1, 120);
    run_test_child("chain: TAMM_CUDA_EARLY=0, the host round trip", chain, &off, e0, 120);
    {   /* the early path relies on the stream waits: with every one dropped by the emulator, the chain's
         * children run before their parents' work (a wrong result, or a race report under TSan) */
        const char *es[] = { "TAMM_CUDA_EMU=1", "TAMM_CUDA_EMU_DELAY=100", "TAMM_NUM_WORKERS=2", "TAMM_CUDA_EARLY",
                             "TAMM_CUDA_EMU_SKIP_WAIT=all", NULL };
        h_status ss;
        static char serr[H_ERRBUF_SIZE];
        h_sanitizer_expected = 1;
        CHECK_EQ_INT(run_child(chain, &on, es, 120, &ss, serr), 0);
        h_sanitizer_expected = 0;
        CHECK_MSG(!child_ok(&ss), "the chain passed with every stream wait dropped: nothing ordered it");
    }
    const char *ew[] = { "TAMM_CUDA_EMU=1", "TAMM_CUDA_EMU_DELAY=200", "TAMM_NUM_WORKERS=2", "TAMM_CUDA_EARLY", NULL };
    run_test_child("war: a reader whose Get is in flight does not end early", war, NULL, ew, 120);
    run_test_child("destroy: copies freed after the reads that ended early", destroy, NULL, ew, 120);
    for (unsigned seed = 1; seed <= 3; seed++) {
        const char *em[] = { "TAMM_CUDA_EMU=2", "TAMM_CUDA_EMU_DELAY=20", "TAMM_NUM_WORKERS=2", "TAMM_CUDA_EARLY",
                             seed == 3 ? "TAMM_CUDA_MEMORY_LIMIT=1K" : "TAMM_CUDA_MEMORY_LIMIT", NULL };
        run_test_child("mixed: random tasks on 2 GPUs and the CPU", mixed, &seed, em, 120);
    }
    const char *ep1[] = { "TAMM_CUDA_EMU=1", "TAMM_CUDA_EMU_DELAY=200", "TAMM_CUDA_STREAMS=1", "TAMM_NUM_WORKERS=2",
                          "TAMM_CUDA_PREFETCH", NULL };
    const char *ep0[] = { "TAMM_CUDA_EMU=1", "TAMM_CUDA_EMU_DELAY=200", "TAMM_CUDA_STREAMS=1", "TAMM_NUM_WORKERS=2",
                          "TAMM_CUDA_PREFETCH=0", NULL };
    run_test_child("prefetch: queued tasks' inputs copied in ahead of issue", prefetch, &on, ep1, 120);
    run_test_child("prefetch: TAMM_CUDA_PREFETCH=0, every input fetched at issue", prefetch, &off, ep0, 120);
    const char *ept[] = { "TAMM_CUDA_EMU=1", "TAMM_CUDA_EMU_DELAY=200", "TAMM_CUDA_STREAMS=1", "TAMM_NUM_WORKERS=2",
                          "TAMM_CUDA_PREFETCH", "TAMM_CUDA_MEMORY_LIMIT=1K", NULL };
    static int tight = 2;
    run_test_child("prefetch: within a tight limit", prefetch, &tight, ept, 120);
    return test_summary();
}
