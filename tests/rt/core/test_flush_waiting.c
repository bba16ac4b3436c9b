/*
 * test_flush_waiting.c — the FLUSH and DONE_WAITING rows of the permission table
 * (docs/runtime.md "Permission checks") have no function of their own in the API
 * (docs/runtime.md, "FLUSH and DONE_WAITING"); this test shows the behaviour
 * that stands for each.
 *
 *   flush        FLUSH ("flush local changes in a block to remote ... to ensure
 *                ordering and completion semantics"): a task writes a block on a
 *                emulated GPU (TAMM_CUDA_EMU=1) and the device copy stays Dirty
 *                after the task (lazy write-back: the block's home still holds
 *                the old value).  Every observer that could see the home flushes
 *                it first: a CPU task ordered after the writer (ordering), a
 *                top-level tamm_wait_on, tamm_block, tamm_tensor_gather
 *                (completion), for a write (Put) and for a partial sum (AccAll).
 *                Inside a task the commit is the release (tamm_release_put / _add).
 *   done_waiting DONE_WAITING (internal: "the user cannot request this access"):
 *                a task never waits; what follows its wait for children is a
 *                continuation, which starts only when they are done.  With one
 *                worker the parent's body returns before any child runs (it did
 *                not wait), the children all complete before the continuation
 *                starts, and a task submitted after the parent sees the
 *                continuation's effect.
 * Each case runs in a child process.
 */
#include "tamm_util.h"
#include "tensor.h"

#define TILE 8

/* ------------------------------------------------------------------ */
/* FLUSH                                                                 */
/* ------------------------------------------------------------------ */
typedef struct { tamm_tensor *T; int64_t v; } fl_args;

/* the device work of the GPU variants, enqueued on the task's stream of the emulated device */
typedef struct { int64_t *x; int64_t v; int add; } dev_args;
static void dev_body(void *p)
{
    dev_args *d = p;
    for (int e = 0; e < TILE; e++) d->x[e] = d->add ? d->x[e] + d->v : d->v + e;
}

static void gpu_write(tamm_ctx *ctx, void *p)
{
    fl_args *a = p;
    long i[1] = { 0 };
    int64_t *x = tamm_get_buf_write(ctx, a->T, i);
    dev_args d = { x, a->v, 0 };
    TCHECK(tamm_emu_launch(tamm_cuda_stream(), dev_body, &d, sizeof d) == TAMM_OK);
    tamm_release_put(ctx, x);
}

static void gpu_accum(tamm_ctx *ctx, void *p)
{
    fl_args *a = p;
    long i[1] = { 0 };
    int64_t *x = tamm_get_buf_accum(ctx, a->T, i);
    dev_args d = { x, a->v, 1 };
    TCHECK(tamm_emu_launch(tamm_cuda_stream(), dev_body, &d, sizeof d) == TAMM_OK);
    tamm_release_add(ctx, x);
}

static atomic_int seen_by_cpu;
static void cpu_read(tamm_ctx *ctx, void *p)
{
    fl_args *a = p;
    long i[1] = { 0 };
    const int64_t *x = tamm_get_buf_read(ctx, a->T, i);
    atomic_store(&seen_by_cpu, (int)x[0]);
    tamm_release_cancel(ctx, (void *)x);
}

static void submit_gpu(tamm_tensor *T, tamm_fn fn, unsigned mode, int64_t v, const char *label)
{
    fl_args a = { T, v };
    tamm_ref r = tu_ref1(T, mode, 0);
    tamm_task t = tu_task(NULL, &a, sizeof a, &r, 1, label, __FILE__, __LINE__);
    t.cuda = fn; /* a CUDA-only task: it runs on the (emulated) GPU */
    CHECK_EQ_INT(tamm_submit(NULL, &t), TAMM_OK);
}

/* the block's home memory, read without any runtime call (what a remote reader would see) */
static int64_t home0(tamm_tensor *T) { return T->blocks[0].home ? ((const int64_t *)T->blocks[0].home)[0] : -1; }

static int t_flush(void *vp)
{
    (void)vp;
    tu_init();
    CHECK_EQ_INT(tamm_num_gpus(), 1);
    tamm_tensor *T = tu_vec("F", 1, TILE);
    int64_t *h = tamm_block(T, 0); /* the home exists, holds 0 */
    CHECK_NOTNULL(h);
    CHECK_EQ_INT(tamm_put(h), TAMM_OK);

    /* 1. written on the GPU: after the task the change is local to the GPU */
    submit_gpu(T, gpu_write, TAMM_WRITE, 5, "gpu_write 5");
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    CHECK_MSG(home0(T) == 0, "the GPU's copy was written back eagerly (home %lld): the test no longer shows a "
              "pending flush", (long long)home0(T));
    /* ordering: a CPU task after the writer reads the flushed value */
    fl_args a = { T, 0 };
    tamm_ref r = tu_ref1(T, TAMM_READ, 0);
    tamm_task t = tu_task(cpu_read, &a, sizeof a, &r, 1, "cpu_read", __FILE__, __LINE__);
    CHECK_EQ_INT(tamm_submit(NULL, &t), TAMM_OK);
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    CHECK_EQ_INT(atomic_load(&seen_by_cpu), 5);
    CHECK_EQ_INT(home0(T), 5);

    /* 2. completion: tamm_wait_on flushes a dirty copy to the home */
    submit_gpu(T, gpu_write, TAMM_WRITE, 6, "gpu_write 6");
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    CHECK_EQ_INT(home0(T), 5); /* still on the GPU */
    tamm_ref w = tu_ref1(T, TAMM_READ, 0);
    CHECK_EQ_INT(tamm_wait_on(&w, 1), TAMM_OK);
    CHECK_EQ_INT(home0(T), 6);

    /* 3. tamm_block: the same */
    submit_gpu(T, gpu_write, TAMM_WRITE, 7, "gpu_write 7");
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    const int64_t *b = tamm_block(T, 0);
    CHECK_NOTNULL(b);
    if (b) CHECK_EQ_INT(b[0], 7);

    /* 4. a partial sum (DirtyAcc: AccAll) reaches the home at tamm_tensor_gather */
    submit_gpu(T, gpu_accum, TAMM_ACCUM, 100, "gpu_accum 100");
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    int64_t all[TILE];
    CHECK_EQ_INT(tamm_tensor_gather(T, all), TAMM_OK);
    for (int e = 0; e < TILE; e++) CHECK_EQ_INT(all[e], 107 + e);
    CHECK_EQ_INT(home0(T), 107);
    tamm_tensor_destroy(T);
    TU_FINALIZE();
    return 0;
}

/* ------------------------------------------------------------------ */
/* DONE_WAITING                                                          */
/* ------------------------------------------------------------------ */
typedef struct { tamm_tensor *T; long i; } dw_args;
static atomic_int kids_done, parent_returned, cont_saw_kids, cont_saw_return;

static void dw_child(tamm_ctx *ctx, void *p)
{
    dw_args *a = p;
    long i[1] = { a->i };
    int64_t *x = tamm_get_buf_write(ctx, a->T, i);
    for (int e = 0; e < TILE; e++) x[e] = a->i + 1;
    tamm_release_put(ctx, x);
    atomic_fetch_add(&kids_done, 1);
}

static void dw_cont(tamm_ctx *ctx, void *p)
{
    dw_args *a = p;
    atomic_store(&cont_saw_kids, atomic_load(&kids_done));
    atomic_store(&cont_saw_return, atomic_load(&parent_returned));
    long i[1] = { a->i }; /* block i = the sum of blocks 0..i-1, which the children wrote */
    int64_t *s = tamm_get_buf_write(ctx, a->T, i);
    int64_t sum = 0;
    for (long k = 0; k < a->i; k++) {
        long j[1] = { k };
        const int64_t *x = tamm_get_buf_read(ctx, a->T, j);
        sum += x[0];
        tamm_release_cancel(ctx, (void *)x);
    }
    for (int e = 0; e < TILE; e++) s[e] = sum;
    tamm_release_put(ctx, s);
}

static void dw_parent(tamm_ctx *ctx, void *p)
{
    dw_args *a = p;
    for (long k = 0; k < a->i; k++) {
        dw_args c = { a->T, k };
        tamm_ref r = tu_ref1(a->T, TAMM_WRITE, k);
        tamm_task t = tu_task(dw_child, &c, sizeof c, &r, 1, "child", __FILE__, __LINE__);
        CHECK_EQ_INT(tamm_submit(ctx, &t), TAMM_OK);
    }
    /* "done waiting": the rest of the work, after the children, without blocking this worker */
    tamm_ref rs[1] = { tu_ref_all(a->T, TAMM_READWRITE) };
    tamm_task k = tu_task(dw_cont, a, sizeof *a, rs, 1, "continuation", __FILE__, __LINE__);
    CHECK_EQ_INT(tamm_submit_continuation(ctx, &k, NULL), TAMM_OK);
    atomic_store(&parent_returned, atomic_load(&kids_done) == 0 ? 1 : 2);
}

static int t_done_waiting(void *vp)
{
    (void)vp;
    tu_init();
    enum { N = 6 };
    tamm_tensor *T = tu_vec("W", N + 1, TILE);
    dw_args a = { T, N };
    tamm_ref r = tu_ref_all(T, TAMM_READWRITE);
    tamm_task t = tu_task(dw_parent, &a, sizeof a, &r, 1, "parent", __FILE__, __LINE__);
    CHECK_EQ_INT(tamm_submit(NULL, &t), TAMM_OK);
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    CHECK_EQ_INT(atomic_load(&parent_returned), 1); /* returned before any child ran: it did not wait */
    CHECK_EQ_INT(atomic_load(&cont_saw_kids), N); /* the continuation started after every child */
    CHECK_EQ_INT(atomic_load(&cont_saw_return), 1);
    const int64_t *s = tamm_block(T, N);
    CHECK_NOTNULL(s);
    if (s) CHECK_EQ_INT(s[0], N * (N + 1) / 2);
    CHECK_TASKS_OK();
    TU_FINALIZE();
    return 0;
}

int main(void)
{
    const char *ef[] = { "TAMM_CUDA_EMU=1", "TAMM_CUDA_EMU_DELAY=50", "TAMM_NUM_WORKERS=2", NULL };
    const char *ew[] = { "TAMM_NUM_WORKERS=1", NULL };
    run_test_child("flush: pending on the GPU until an observer needs the home", t_flush, NULL, ef, 60);
    run_test_child("done_waiting: a continuation, never a blocked worker", t_done_waiting, NULL, ew, 30);
    return test_summary();
}
