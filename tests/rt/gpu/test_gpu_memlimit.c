/*
 * test_gpu_memlimit.c — the host memory limit (TAMM_MEMORY_LIMIT) with GPUs, on
 * the emulated device (TAMM_CUDA_EMU, rt/gpu/devops_emu.c; docs/runtime.md
 * "Block memory" and "GPUs").  Each case runs in a child process with
 * TAMM_STATS=1, and the parent reads its statistics:
 *
 *   random     random programs over two tensors of 24 blocks of 4 KiB (192 KiB)
 *              under a host limit of 48 KiB, 4x below their data: tasks that
 *              write, read+write, accumulate (some cancellable), creadwrite and
 *              cancel, with a CPU variant, a CUDA variant or both, and CPU
 *              parents whose GPU children they wait for (tamm_cc_taskwait: a
 *              nested task never waits for memory).  On 1 and 2 emulated GPUs,
 *              with and without a TAMM_CUDA_MEMORY_LIMIT of 6 blocks, under
 *              every GPU scheduling policy: the tensors equal a sequential
 *              evaluation, the peak host block memory TAMM_STATS reports is
 *              within TAMM_MEMORY_LIMIT (on main it was all 192 KiB: the limit
 *              was not applied with GPUs), blocks were spilled, and each GPU's
 *              peak is within its own limit;
 *   mixed      the same programs with CPU tasks that read a whole tensor and
 *              top-level reads (tamm_block) among them: both make blocks
 *              resident outside any reservation, the documented exceptions to
 *              the bound (docs/runtime.md), so only the results, the spills and
 *              the GPUs' peaks are checked;
 *   store      the same with TAMM_MEMORY_TEST_STORE=1 (tests only): no write-back
 *              from a GPU may hold a home, so every eviction and flush of a newer
 *              copy is stored through the GPU's two small buffers into the home or
 *              the spill file (TAMM_STATS counts them: more than none);
 *   in flight  a creadwrite of a block, or a commit into it, on the GPU whose own
 *              copy of it is being written back after an eviction: both come after
 *              that write-back (with and without the host limit);
 *   too_big    a CUDA-only task whose blocks alone exceed the host limit is a
 *              clear TAMM_ENOMEM naming it, and the run ends (no hang).
 * TAMM_TEST_SEED=s runs program s alone (mixed with TAMM_TEST_MIXED set), in
 * this process, under the environment as it is (to diagnose one case);
 * TAMM_TEST_TRACE=1 prints each operation and its destination's first element.
 */
#include "tamm_util.h"
#include <tamm_cc.h>

#define TILE 512           /* uint64 per block: 4 KiB */
#define NT 2               /* tensors */
#define NBLK 24            /* blocks per tensor */
#define LIMIT_KB 48        /* the host limit: 4x below NT * NBLK * 4 KiB */
#define GPU_LIMIT_KB 24    /* 6 blocks per GPU, where a case sets TAMM_CUDA_MEMORY_LIMIT */
#define NTASKS 260

enum { K_WRITE, K_RW, K_ACC, K_CACC, K_CRW, K_SUM, K_NEST, NKINDS };

typedef struct {
    tamm_tensor *T[NT];
    int kind;
    int dt, st;           /* tensors of the destination and the source */
    long d, s;            /* their blocks */
    uint64_t k;
    int variants;         /* 0 cpu, 1 cuda, 2 both */
    uint64_t *sum_out;    /* K_SUM: where the sum goes */
} op_args;

static atomic_int cpu_runs, gpu_runs;

/* what an operation does to dst (tile of n elements) with src; 0: it cancels */
static int op_apply(int kind, uint64_t *dst, const uint64_t *src, uint64_t k, size_t n)
{
    switch (kind) {
    case K_WRITE: for (size_t e = 0; e < n; e++) dst[e] = src[e] + k + e; return 1;
    case K_RW: case K_NEST: for (size_t e = 0; e < n; e++) dst[e] = dst[e] * 3 + src[e] + k; return 1;
    case K_ACC: for (size_t e = 0; e < n; e++) dst[e] += src[e] * 2 + k; return 1;
    case K_CACC:
        if (k % 3 == 0) return 0;
        for (size_t e = 0; e < n; e++) dst[e] += src[e] + k;
        return 1;
    case K_CRW:
        if (k % 4 == 0) return 0;
        for (size_t e = 0; e < n; e++) dst[e] = dst[e] * 5 + src[e] + k;
        return 1;
    }
    return 1;
}

/* an accumulation's contribution goes into a zero-filled private buffer or the block itself: the
 * same function adds it either way (the buffer holds old + contribution, or contribution) */
typedef struct { int kind; uint64_t *dst; const uint64_t *src; uint64_t k; } dev_job;
static void dev_run(void *p)
{
    dev_job *j = p;
    op_apply(j->kind, j->dst, j->src, j->k, TILE);
}

static void op_body(tamm_ctx *ctx, op_args *a, int on_gpu)
{
    long si[1] = { a->s }, di[1] = { a->d };
    const uint64_t *src = tamm_get_buf_read(ctx, a->T[a->st], si);
    uint64_t *dst = NULL;
    int cancels = (a->kind == K_CACC && a->k % 3 == 0) || (a->kind == K_CRW && a->k % 4 == 0);
    switch (a->kind) {
    case K_WRITE: dst = tamm_get_buf_write(ctx, a->T[a->dt], di); break;
    case K_RW: case K_NEST: dst = tamm_get_buf_readwrite(ctx, a->T[a->dt], di); break;
    case K_ACC: case K_CACC: dst = tamm_get_buf_accum(ctx, a->T[a->dt], di); break;
    case K_CRW: dst = tamm_get_buf_creadwrite(ctx, a->T[a->dt], di); break;
    }
    TCHECK(src && dst);
    TCHECK(on_gpu ? tamm_cuda_stream() != NULL : tamm_cuda_stream() == NULL);
    if (src && dst && !cancels) {
        if (on_gpu) {
            dev_job j = { a->kind, dst, src, a->k };
            TCHECK(tamm_emu_launch(tamm_cuda_stream(), dev_run, &j, sizeof j) == TAMM_OK);
        } else {
            op_apply(a->kind, dst, src, a->k, TILE);
        }
    }
    tamm_release_cancel(ctx, (void *)src);
    if (cancels) tamm_release_cancel(ctx, dst);
    else if (a->kind == K_ACC || a->kind == K_CACC) tamm_release_add(ctx, dst);
    else tamm_release_put(ctx, dst);
}

static void op_cpu(tamm_ctx *ctx, void *p) { atomic_fetch_add(&cpu_runs, 1); op_body(ctx, p, 0); }
static void op_gpu(tamm_ctx *ctx, void *p) { atomic_fetch_add(&gpu_runs, 1); op_body(ctx, p, 1); }

static tamm_ref ref_of(tamm_tensor *T, unsigned mode, long b)
{
    tamm_ref r = tu_ref1(T, mode, b);
    return r;
}

static unsigned dst_mode(int kind)
{
    switch (kind) {
    case K_WRITE: return TAMM_WRITE;
    case K_ACC: return TAMM_ACCUM;
    case K_CACC: return TAMM_ACCUM | TAMM_CANCELLABLE;
    case K_CRW: return TAMM_READWRITE | TAMM_CANCELLABLE;
    default: return TAMM_READWRITE;
    }
}

static tamm_task op_task(op_args *a, tamm_ref *refs)
{
    refs[0] = ref_of(a->T[a->st], TAMM_READ, a->s);
    refs[1] = ref_of(a->T[a->dt], dst_mode(a->kind), a->d);
    tamm_task t = tu_task(a->variants == 1 ? NULL : op_cpu, a, sizeof *a, refs, 2, "op", __FILE__, __LINE__);
    t.cuda = a->variants == 0 ? NULL : op_gpu;
    return t;
}

/* K_SUM: a CPU task reads a whole tensor (its blocks are made resident as the body uses them) */
static void sum_cpu(tamm_ctx *ctx, void *p)
{
    op_args *a = p;
    uint64_t s = 0;
    for (long b = 0; b < NBLK; b++) {
        long i[1] = { b };
        const uint64_t *x = tamm_get_buf_read(ctx, a->T[a->st], i);
        TCHECK(x != NULL);
        if (!x) continue;
        for (size_t e = 0; e < TILE; e++) s = s * 31 + x[e];
        tamm_release_cancel(ctx, (void *)x);
    }
    *a->sum_out = s;
}

/* K_NEST: a CPU parent holding the two blocks without touching them submits its GPU child and waits
 * for it with its own pins held (the child is admitted beyond the reservations, never queued) */
static void nest_cpu(tamm_ctx *ctx, void *p)
{
    op_args a = *(op_args *)p;
    a.variants = 1;
    tamm_ref refs[2];
    tamm_task t = op_task(&a, refs);
    TCHECK(tamm_submit(ctx, &t) == TAMM_OK);
    TCHECK(tamm_cc_taskwait() == TAMM_OK);
}

static uint64_t rnd(uint64_t *s) { *s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17; return *s; }

typedef struct { unsigned seed; int mixed; } prog_cfg; /* mixed: whole-tensor reads and top-level reads too */

static int random_prog(void *arg)
{
    const prog_cfg *c = arg;
    tu_init();
    CHECK(tamm_num_gpus() > 0);
    static uint64_t ref[NT][NBLK][TILE], all[NBLK * TILE];
    static uint64_t sums[NTASKS], ref_sums[NTASKS];
    memset(ref, 0, sizeof ref);
    memset(sums, 0, sizeof sums);
    memset(ref_sums, 0, sizeof ref_sums);
    tamm_tensor *T[NT];
    for (int i = 0; i < NT; i++) T[i] = tu_vec(i ? "Y" : "X", NBLK, TILE);
    uint64_t s = 0x9E3779B97F4A7C15ull ^ ((uint64_t)c->seed * 0x2545F4914F6CDD1Dull);
    for (int i = 0; i < NTASKS; i++) {
        op_args a;
        memset(&a, 0, sizeof a);
        for (int j = 0; j < NT; j++) a.T[j] = T[j];
        unsigned r = (unsigned)(rnd(&s) % 100);
        a.kind = r < 20 ? K_WRITE : r < 45 ? K_RW : r < 62 ? K_ACC : r < 74 ? K_CACC : r < 86 ? K_CRW : r < 93 ? K_NEST : K_SUM;
        if (a.kind == K_SUM && !c->mixed) a.kind = K_RW;
        a.dt = (int)(rnd(&s) % NT);
        a.st = (int)(rnd(&s) % NT);
        a.d = (long)(rnd(&s) % NBLK);
        do a.s = (long)(rnd(&s) % NBLK); while (a.s == a.d && a.st == a.dt);
        a.k = rnd(&s) % 1000;
        a.variants = (int)(rnd(&s) % 3);
        tamm_ref refs[2];
        tamm_task t;
        if (a.kind == K_SUM) {
            uint64_t h = 0;
            for (long b = 0; b < NBLK; b++)
                for (size_t e = 0; e < TILE; e++) h = h * 31 + ref[a.st][b][e];
            ref_sums[i] = h;
            a.sum_out = &sums[i];
            refs[0] = tu_ref_all(T[a.st], TAMM_READ);
            t = tu_task(sum_cpu, &a, sizeof a, refs, 1, "sum", __FILE__, __LINE__);
        } else if (a.kind == K_NEST) {
            op_apply(a.kind, ref[a.dt][a.d], ref[a.st][a.s], a.k, TILE);
            refs[0] = ref_of(T[a.st], TAMM_READ | TAMM_PERMISSION_ONLY, a.s);
            refs[1] = ref_of(T[a.dt], TAMM_READWRITE | TAMM_PERMISSION_ONLY, a.d);
            t = tu_task(nest_cpu, &a, sizeof a, refs, 2, "nest", __FILE__, __LINE__);
        } else {
            op_apply(a.kind, ref[a.dt][a.d], ref[a.st][a.s], a.k, TILE);
            t = op_task(&a, refs);
        }
        if (getenv("TAMM_TEST_TRACE")) /* (diagnosis) every operation and what its destination then holds */
            fprintf(stderr, "task %d: kind %d %s[%ld] <- %s[%ld] k %llu variants %d: %llu\n", i, a.kind, a.dt ? "Y" : "X", a.d,
                    a.st ? "Y" : "X", a.s, (unsigned long long)a.k, a.variants,
                    a.kind == K_SUM ? 0ull : (unsigned long long)ref[a.dt][a.d][0]);
        CHECK_EQ_INT(tamm_submit(NULL, &t), TAMM_OK);
        if (rnd(&s) % 24 == 0 && c->mixed) { /* a top-level read sees everything before it */
            int ti = (int)(rnd(&s) % NT);
            long b = (long)(rnd(&s) % NBLK);
            const uint64_t *p = tamm_block(T[ti], b);
            CHECK_NOTNULL(p);
            if (p) CHECK_MSG(!memcmp(p, ref[ti][b], sizeof ref[ti][b]), "top-level read of %s[%ld] after task %d differs",
                             ti ? "Y" : "X", b, i);
        }
    }
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    for (int ti = 0; ti < NT; ti++) {
        CHECK_EQ_INT(tamm_tensor_gather(T[ti], all), TAMM_OK);
        for (int b = 0; b < NBLK; b++) {
            int e = 0;
            while (e < TILE && all[(size_t)b * TILE + (size_t)e] == ref[ti][b][e]) e++;
            CHECK_MSG(e == TILE, "block %s[%d] differs from the sequential evaluation (element %d: %llu, expected %llu)",
                      ti ? "Y" : "X", b, e, e < TILE ? (unsigned long long)all[(size_t)b * TILE + (size_t)e] : 0ull,
                      e < TILE ? (unsigned long long)ref[ti][b][e] : 0ull);
        }
    }
    int badsum = -1;
    for (int i = 0; i < NTASKS && badsum < 0; i++)
        if (sums[i] != ref_sums[i]) badsum = i;
    CHECK_MSG(badsum < 0, "whole-tensor read %d saw another tensor than the sequential evaluation", badsum);
    CHECK_MSG(atomic_load(&gpu_runs) > 0, "no task ran on the (emulated) GPU");
    CHECK_TASKS_OK();
    for (int i = 0; i < NT; i++) tamm_tensor_destroy(T[i]);
    TU_FINALIZE();
    return 0;
}

/* ---- what TAMM_STATS said ---- */
/* The number after the first occurrence of `key` in s, or -1. */
static long long stat_after(const char *s, const char *key)
{
    const char *p = strstr(s, key);
    if (!p) return -1;
    return atoll(p + strlen(key));
}

/* The number before `key` (the figure it names), or -1. */
static long long stat_before(const char *s, const char *key)
{
    const char *p = strstr(s, key);
    if (!p) return -1;
    while (p > s && p[-1] == ' ') p--;
    while (p > s && p[-1] >= '0' && p[-1] <= '9') p--;
    return atoll(p);
}

/* Run random_prog in a child with env; check its statistics.  want_stores: the case
 * requires write-backs stored without a hold. */
static void run_random(const char *name, unsigned seed, int mixed, const char *const *env, int ngpu, int gpu_limited,
                       int want_stores)
{
    static char err[H_ERRBUF_SIZE];
    h_status st;
    prog_cfg c = { seed, mixed };
    h_context("%s", name);
    CHECK_EQ_INT(run_child(random_prog, &c, env, 180, &st, err), 0);
    h__merge_counts(&st);
    int ok = CHECK_MSG(child_ok(&st), "the child did not end cleanly (exit %d, signal %d, timeout %d)", st.code, st.signaled,
                       st.timed_out);
    long long peak = stat_after(err, "peak memory: ");
    long long evictions = stat_after(err, "memory limit 49152 bytes: ");
    long long spilled = stat_before(err, " bytes spilled");
    if (!mixed)
        ok &= CHECK_MSG(peak > 0 && peak <= LIMIT_KB * 1024, "peak host block memory %lld bytes, TAMM_MEMORY_LIMIT %d", peak,
                        LIMIT_KB * 1024);
    ok &= CHECK_MSG(evictions > 0 && spilled > 0, "the limit never made the host evict (%lld) and spill (%lld)", evictions,
                    spilled);
    for (int g = 0; g < ngpu; g++) { /* "GPU g (...): ... peak X of Y bytes of device memory" */
        char key[32];
        snprintf(key, sizeof key, ": GPU %d (", g);
        const char *line = strstr(err, key);
        ok &= CHECK_MSG(line != NULL, "no TAMM_STATS line for GPU %d", g);
        if (!line) continue;
        long long gpeak = stat_after(line, " peak "), glim = stat_after(strstr(line, " peak ") ? strstr(line, " peak ") : line, " of ");
        ok &= CHECK_MSG(gpeak >= 0 && glim > 0 && gpeak <= glim, "GPU %d: peak %lld bytes of device memory, limit %lld", g,
                        gpeak, glim);
        if (gpu_limited) ok &= CHECK_MSG(glim == GPU_LIMIT_KB * 1024, "GPU %d: limit %lld, TAMM_CUDA_MEMORY_LIMIT was %d", g, glim,
                                         GPU_LIMIT_KB * 1024);
    }
    if (want_stores) {
        long long stores = stat_before(err, " blocks stored back without a home");
        ok &= CHECK_MSG(stores > 0, "no write-back was stored without a home (%lld)", stores);
    }
    if (!ok) h_dump_child(name, &st, err);
    h_context(NULL);
}

/* ---- a creadwrite or a commit on a GPU while its own copy's write-back is in flight ---- */
/* X[0] and then X[3] are written on the GPU (Dirty there, unreferenced once their tasks are
 * done); within a TAMM_CUDA_MEMORY_LIMIT of three blocks the next task's tmp buffer evicts
 * X[0]'s copy, which writes it back on the copy stream, slowly (TAMM_CUDA_EMU_DELAY); that tmp
 * buffer is freed when the task is issued, so the task issued beside it evicts nothing (an
 * eviction would order its stream after the copy stream): a creadwrite of X[0] (dispatch
 * flushes no GPU's own copies) reads the home, or a tmp buffer is committed into it; both must
 * come after the write-back.
 * They did not: the creadwrite read the home as it was before (or garbage, under a host limit:
 * a home allocated for the write-back), and the write-back could land over the commit. */
typedef struct { tamm_tensor *X; int what; uint64_t v; } wb_args;
typedef struct { uint64_t *x; uint64_t a, b; } wb_job;
static void wb_run(void *p)
{
    wb_job *j = p;
    for (size_t e = 0; e < TILE; e++) j->x[e] = j->x[e] * j->a + j->b;
}
static void wb_gpu(tamm_ctx *ctx, void *p)
{
    wb_args *a = p;
    long i0[1] = { 0 }, i1[1] = { 1 }, i2[1] = { 2 }, i3[1] = { 3 };
    uint64_t *x, *y;
    wb_job j;
    switch (a->what) {
    case 0: case 4: /* X[0] = v, X[3] = v */
        x = tamm_get_buf_write(ctx, a->X, a->what ? i3 : i0);
        j = (wb_job){ x, 0, a->v };
        TCHECK(tamm_emu_launch(tamm_cuda_stream(), wb_run, &j, sizeof j) == TAMM_OK);
        tamm_release_put(ctx, x);
        break;
    case 1: /* X[1] = X[1] + 1, with a tmp buffer of X[2] beside it: X[0]'s copy is evicted */
        x = tamm_get_buf_readwrite(ctx, a->X, i1);
        y = tamm_get_buf_tmp(ctx, a->X, i2);
        j = (wb_job){ x, 1, 1 };
        TCHECK(tamm_emu_launch(tamm_cuda_stream(), wb_run, &j, sizeof j) == TAMM_OK);
        tamm_release_put(ctx, x);
        tamm_release_cancel(ctx, y);
        break;
    case 2: /* creadwrite X[0] = 3 X[0] + v */
        x = tamm_get_buf_creadwrite(ctx, a->X, i0);
        j = (wb_job){ x, 3, a->v };
        TCHECK(tamm_emu_launch(tamm_cuda_stream(), wb_run, &j, sizeof j) == TAMM_OK);
        tamm_release_put(ctx, x);
        break;
    default: /* X[0] += v through a tmp buffer */
        x = tamm_get_buf_tmp(ctx, a->X, i0);
        j = (wb_job){ x, 0, a->v };
        TCHECK(tamm_emu_launch(tamm_cuda_stream(), wb_run, &j, sizeof j) == TAMM_OK);
        tamm_release_add(ctx, x);
        break;
    }
}

static void wb_submit(tamm_tensor *X, int what, uint64_t v)
{
    wb_args a = { X, what, v };
    tamm_ref r[2];
    int n = 1;
    if (what == 1) {
        r[0] = tu_ref1(X, TAMM_READWRITE, 1);
        r[1] = tu_ref1(X, TAMM_WRITE, 2);
        n = 2;
    } else {
        r[0] = tu_ref1(X, what == 0 || what == 4 ? TAMM_WRITE : what == 2 ? TAMM_READWRITE | TAMM_CANCELLABLE : TAMM_ACCUM,
                       what == 4 ? 3 : 0);
    }
    tamm_task t = tu_task(NULL, &a, sizeof a, r, n, "wb", __FILE__, __LINE__);
    t.cuda = wb_gpu;
    CHECK_EQ_INT(tamm_submit(NULL, &t), TAMM_OK);
}

static int wb_in_flight(void *arg)
{
    (void)arg;
    tu_init();
    tamm_tensor *X = tu_vec("X", 4, TILE);
    uint64_t x0 = 0;
    int bad = 0;
    for (int rep = 0; rep < 12; rep++) {
        uint64_t v = 1000 + (uint64_t)rep;
        wb_submit(X, 0, v);            /* X[0] = v, Dirty on the GPU */
        wb_submit(X, 4, v);            /* X[3] likewise, more recently used */
        CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
        wb_submit(X, 1, v);            /* evicts X[0]'s copy: its write-back is in flight */
        wb_submit(X, rep % 2 ? 3 : 2, v); /* reads the home, or commits into it */
        x0 = rep % 2 ? v + v : 3 * v + v;
        CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
        const uint64_t *p = tamm_block(X, 0);
        if (p && p[0] != x0 && !bad++)
            CHECK_MSG(0, "repetition %d (%s): X[0] is %llu, expected %llu", rep, rep % 2 ? "a tmp buffer's commit" : "creadwrite",
                      (unsigned long long)p[0], (unsigned long long)x0);
    }
    CHECK_MSG(bad == 0, "%d of 12 repetitions saw the home before its own write-back", bad);
    CHECK_TASKS_OK();
    tamm_tensor_destroy(X);
    TU_FINALIZE();
    return 0;
}

/* ---- a CUDA-only task over the host limit ---- */
static void big_gpu(tamm_ctx *ctx, void *p)
{
    (void)p;
    long i[1] = { 0 };
    uint64_t *x = tamm_get_buf_write(ctx, *(tamm_tensor **)p, i);
    tamm_release_put(ctx, x);
}

static int too_big(void *arg)
{
    (void)arg;
    tu_init();
    /* one block of 64 KiB: more than the 48 KiB limit alone */
    tamm_tensor *B = tu_vec("B", 2, 8192);
    tamm_ref r = tu_ref1(B, TAMM_WRITE, 0);
    tamm_task t = tu_task(NULL, &B, sizeof B, &r, 1, "big_on_gpu", "g.c", 7);
    t.cuda = big_gpu;
    CHECK_EQ_INT(tamm_submit(NULL, &t), TAMM_OK);
    CHECK_EQ_INT(tamm_wait_all(), TAMM_ENOMEM);
    tamm_tensor_destroy(B);
    tamm_finalize();
    return 0;
}

int main(void)
{
    if (getenv("TAMM_TEST_SEED")) { /* one program, in this process, under the environment as it is (diagnosis) */
        prog_cfg c = { (unsigned)atoi(getenv("TAMM_TEST_SEED")), getenv("TAMM_TEST_MIXED") != NULL };
        random_prog(&c);
        return test_summary();
    }
    /* every stream operation of the emulated devices waits a random 0..20 us (children inherit it) */
    if (!getenv("TAMM_CUDA_EMU_DELAY")) setenv("TAMM_CUDA_EMU_DELAY", "20", 1);
    static const char *pols[] = { "eft", "round-robin", "stream-aware", "min-transfer-size", "minmin-transfer-time",
                                  "minmax-transfer-time", "fifo,eft", "prio,min-transfer-size" };
    char lim[64], glim[64];
    snprintf(lim, sizeof lim, "TAMM_MEMORY_LIMIT=%dK", LIMIT_KB);
    snprintf(glim, sizeof glim, "TAMM_CUDA_MEMORY_LIMIT=%dK", GPU_LIMIT_KB);
    unsigned seed = 1;
    for (int ng = 1; ng <= 2; ng++)
        for (int gl = 0; gl <= 1; gl++)
            for (size_t i = 0; i < sizeof pols / sizeof pols[0]; i++) {
                char ngs[32], sched[64], name[160];
                snprintf(ngs, sizeof ngs, "TAMM_CUDA_EMU=%d", ng);
                snprintf(sched, sizeof sched, "TAMM_SCHED=%s", pols[i]);
                snprintf(name, sizeof name, "random %d GPU%s %s%s", ng, ng > 1 ? "s" : "", pols[i],
                         gl ? " TAMM_CUDA_MEMORY_LIMIT" : "");
                const char *env[] = { ngs, lim, gl ? glim : "TAMM_CUDA_MEMORY_LIMIT", sched, "TAMM_NUM_WORKERS=2",
                                      "TAMM_STATS=1", "TAMM_ON_ERROR=return", "TAMM_MEMORY_TEST_STORE", NULL };
                run_random(name, seed++, 0, env, ng, gl, 0);
            }
    for (int i = 0; i < 4; i++) {
        static const char *mpols[] = { "eft", "round-robin", "min-transfer-size", "fifo,eft" };
        char ngs[32], sched[64], name[160];
        int ng = 1 + i % 2, gl = i / 2;
        snprintf(ngs, sizeof ngs, "TAMM_CUDA_EMU=%d", ng);
        snprintf(sched, sizeof sched, "TAMM_SCHED=%s", mpols[i]);
        snprintf(name, sizeof name, "mixed %d GPU%s %s%s", ng, ng > 1 ? "s" : "", mpols[i], gl ? " TAMM_CUDA_MEMORY_LIMIT" : "");
        const char *env[] = { ngs, lim, gl ? glim : "TAMM_CUDA_MEMORY_LIMIT", sched, "TAMM_NUM_WORKERS=2", "TAMM_STATS=1",
                              "TAMM_ON_ERROR=return", "TAMM_MEMORY_TEST_STORE", NULL };
        run_random(name, seed++, 1, env, ng, gl, 0);
    }
    for (int ng = 1; ng <= 2; ng++) {
        char ngs[32], name[96];
        snprintf(ngs, sizeof ngs, "TAMM_CUDA_EMU=%d", ng);
        snprintf(name, sizeof name, "store %d GPU%s", ng, ng > 1 ? "s" : "");
        const char *env[] = { ngs, lim, glim, "TAMM_NUM_WORKERS=2", "TAMM_STATS=1", "TAMM_ON_ERROR=return",
                              "TAMM_MEMORY_TEST_STORE=1", "TAMM_SCHED=round-robin", NULL };
        run_random(name, seed++, 0, env, ng, 1, 1);
    }
    {   /* with and without the host limit: the ordering is the GPU's own (TAMM_ON_ERROR unset: the
         * writer ends its dependences early, so the reader is issued while it is in flight) */
        const char *env1[] = { "TAMM_CUDA_EMU=1", "TAMM_CUDA_MEMORY_LIMIT=12K", "TAMM_CUDA_EMU_DELAY=1500", "TAMM_CUDA_STREAMS=2",
                               "TAMM_CUDA_PREFETCH=0", "TAMM_NUM_WORKERS=2", "TAMM_ON_ERROR", "TAMM_MEMORY_LIMIT", NULL };
        run_test_child("write-back in flight, no host limit", wb_in_flight, NULL, env1, 120);
        const char *env2[] = { "TAMM_CUDA_EMU=1", "TAMM_CUDA_MEMORY_LIMIT=12K", "TAMM_CUDA_EMU_DELAY=1500", "TAMM_CUDA_STREAMS=2",
                               "TAMM_CUDA_PREFETCH=0", "TAMM_NUM_WORKERS=2", "TAMM_ON_ERROR", lim, NULL };
        run_test_child("write-back in flight, host limit", wb_in_flight, NULL, env2, 120);
    }
    {
        static char err[H_ERRBUF_SIZE];
        h_status st;
        const char *env[] = { "TAMM_CUDA_EMU=1", lim, "TAMM_ON_ERROR=return", NULL };
        CHECK_EQ_INT(run_child(too_big, NULL, env, 60, &st, err), 0);
        h__merge_counts(&st);
        CHECK_MSG(child_ok(&st), "a CUDA-only task over the host limit: the child did not end cleanly");
        CHECK_CONTAINS(err, "tamm: error: task 'big_on_gpu' (g.c:7): the task's blocks need 65536 bytes (B[0] 65536), more "
                            "than TAMM_MEMORY_LIMIT of 49152 bytes: it cannot run");
    }
    return test_summary();
}
