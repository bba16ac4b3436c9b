/*
 * task_overhead_tamm.c — task_overhead with libtammrt's explicit API.
 *
 * Data: a 1-D TAMM_I64 tensor of dims {1024}, tile {1} (1,024 blocks of one
 * element), zero at the start.  Tasks are submitted with tamm_submit() and
 * tamm_ref accesses (TAMM_READ / TAMM_READWRITE on single blocks); bodies get
 * their buffers with tamm_get_buf_read / tamm_get_buf_readwrite and end them
 * with tamm_release_cancel (reads) / tamm_release_put (readwrite), as
 * docs/runtime.md's buffer table says.  TAMM_NUM_WORKERS counts every thread,
 * the top-level one included (it runs tasks inside tamm_wait_all).  The time
 * runs from before the first submission to after tamm_wait_all(); tamm_init
 * and tensor creation are excluded.
 */
#include "task_overhead_common.h"

#include "tamm.h"

static tamm_tensor *T;
static int64_t *out;

static void die(const char *what, int err)
{
    fprintf(stderr, "task_overhead_tamm: %s failed: %d (%s)\n", what, err, tamm_strerror(err));
    exit(1);
}

/* Read-only task (independent, fan-in reader): args = { block, task index }. */
typedef struct { long blk, i; } read_args;

static void read_task(tamm_ctx *ctx, void *args)
{
    const read_args *a = (const read_args *)args;
    const int64_t *x = (const int64_t *)tamm_get_buf_read(ctx, T, &a->blk);
    out[a->i] = rd_mix(*x, a->i);
    tamm_release_cancel(ctx, (void *)x);
}

/* chain, fan-in writer: block 0, x = x*3 + 1. */
static void rw_task(tamm_ctx *ctx, void *args)
{
    (void)args;
    const long blk = 0;
    int64_t *x = (int64_t *)tamm_get_buf_readwrite(ctx, T, &blk);
    *x = rw_update(*x, 0, 0);
    tamm_release_put(ctx, x);
}

/* random: args = { rw, r1, r2 }; x[rw] = x[rw]*3 + x[r1] + x[r2] + 1. */
typedef struct { long rw, r1, r2; } rand_args;

static void rand_task(tamm_ctx *ctx, void *args)
{
    const rand_args *a = (const rand_args *)args;
    int64_t *x = (int64_t *)tamm_get_buf_readwrite(ctx, T, &a->rw);
    const int64_t *y = (const int64_t *)tamm_get_buf_read(ctx, T, &a->r1);
    const int64_t *z = (const int64_t *)tamm_get_buf_read(ctx, T, &a->r2);
    *x = rw_update(*x, *y, *z);
    tamm_release_cancel(ctx, (void *)z);
    tamm_release_cancel(ctx, (void *)y);
    tamm_release_put(ctx, x);
}

static void set_ref(tamm_ref *r, long blk, unsigned mode)
{
    r->tensor = T;
    r->nidx = 1;
    r->idx[0] = blk;
    r->mode = mode;
}

static void submit(const tamm_task *t)
{
    int err = tamm_submit(NULL, t);
    if (err != TAMM_OK) die("tamm_submit", err);
}

int main(int argc, char **argv)
{
    int pattern;
    long ntasks;
    if (bench_parse_args(argc, argv, &pattern, &ntasks) != 0) return 2;

    int err = tamm_init(&argc, &argv);
    if (err != TAMM_OK) die("tamm_init", err);
    const size_t dims[1] = { NBLOCKS }, tile[1] = { 1 };
    T = tamm_tensor_create("x", TAMM_I64, 1, dims, tile);
    if (!T) die("tamm_tensor_create", TAMM_EINVAL);
    out = bench_alloc_out(ntasks);

    tamm_ref refs[3];
    memset(refs, 0, sizeof refs);
    tamm_task t;
    memset(&t, 0, sizeof t);
    t.refs = refs;
    t.rank = -1;
    t.file = __FILE__;

    bench_lcg g;
    bench_lcg_init(&g);
    double t0 = bench_now();
    switch (pattern) {
    case PAT_INDEPENDENT: {
        read_args a;
        t.cpu = read_task; t.args = &a; t.args_size = sizeof a; t.nrefs = 1;
        t.label = "independent"; t.line = __LINE__;
        for (long i = 0; i < ntasks; i++) {
            a.blk = indep_block(i);
            a.i = i;
            set_ref(&refs[0], a.blk, TAMM_READ);
            submit(&t);
        }
        break;
    }
    case PAT_CHAIN:
        t.cpu = rw_task; t.nrefs = 1; t.label = "chain"; t.line = __LINE__;
        set_ref(&refs[0], 0, TAMM_READWRITE);
        for (long i = 0; i < ntasks; i++) submit(&t);
        break;
    case PAT_RANDOM: {
        rand_args a;
        t.cpu = rand_task; t.args = &a; t.args_size = sizeof a; t.nrefs = 3;
        t.label = "random"; t.line = __LINE__;
        for (long i = 0; i < ntasks; i++) {
            bench_lcg_next(&g, &a.rw, &a.r1, &a.r2);
            set_ref(&refs[0], a.rw, TAMM_READWRITE);
            set_ref(&refs[1], a.r1, TAMM_READ);
            set_ref(&refs[2], a.r2, TAMM_READ);
            submit(&t);
        }
        break;
    }
    case PAT_FANIN: {
        read_args a;
        tamm_task w = t;
        w.cpu = rw_task; w.nrefs = 1; w.label = "fanin-writer"; w.line = __LINE__;
        t.cpu = read_task; t.args = &a; t.args_size = sizeof a; t.nrefs = 1;
        t.label = "fanin-reader"; t.line = __LINE__;
        a.blk = 0;
        for (long i = 0; i < ntasks; i++) {
            if (fanin_is_writer(i)) {
                set_ref(&refs[0], 0, TAMM_READWRITE);
                submit(&w);
            } else {
                a.i = i;
                set_ref(&refs[0], 0, TAMM_READ);
                submit(&t);
            }
        }
        break;
    }
    }
    err = tamm_wait_all();
    double t1 = bench_now();
    if (err != TAMM_OK) die("tamm_wait_all", err);

    static int64_t vals[NBLOCKS];
    err = tamm_tensor_gather(T, vals);
    if (err != TAMM_OK) die("tamm_tensor_gather", err);
    bench_report(pattern, ntasks, t1 - t0, vals, out);

    tamm_tensor_destroy(T);
    err = tamm_finalize();
    if (err != TAMM_OK) die("tamm_finalize", err);
    free(out);
    return 0;
}
