/*
 * gpu_tasks.c — the runtime's cost per GPU task: tasks whose CUDA variant
 * launches one one-thread kernel (gpu_tasks_kernels.cu), explicit task API.
 *
 *   gpu_tasks [N] [reps]
 *
 *   chain        N tasks that each read-write one block: every task depends
 *                on the one before (issued behind it on its stream, or after
 *                its completion);
 *   independent  N tasks, each read-writing its own block of an N-block tensor.
 * Each prints microseconds per task, from the first submission to the end of
 * tamm_wait_all (the best of reps), and the floor: the same number of
 * launches issued back to back on one stream by plain CUDA (gt_bare).  The
 * blocks' values are checked (every launch ran, in order).  Exit 77 without a GPU.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */
#include <tamm.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int gt_launch_inc(void *stream, long *x);
double gt_bare(long n, int *ok);

typedef struct { tamm_tensor *T; long b; } targs;
static int failures;

static void inc_cuda(tamm_ctx *ctx, void *p)
{
    targs *a = p;
    long *x = tamm_get_buf_readwrite(ctx, a->T, &a->b);
    if (!x || gt_launch_inc(tamm_cuda_stream(), x)) __atomic_fetch_add(&failures, 1, 0);
    if (x) tamm_release_put(ctx, x);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* N tasks over nblk blocks (task i on block i % nblk); seconds per task, or -1 on a wrong result */
static double run(long n, long nblk, int reps)
{
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        size_t dims[1] = { (size_t)nblk }, tile[1] = { 1 };
        tamm_tensor *T = tamm_tensor_create("T", TAMM_I64, 1, dims, tile);
        long *init = calloc((size_t)nblk, sizeof *init);
        tamm_tensor_scatter(T, init);
        double t0 = now();
        for (long i = 0; i < n; i++) {
            targs a = { T, i % nblk };
            tamm_ref ref;
            memset(&ref, 0, sizeof ref);
            ref.tensor = T; ref.nidx = 1; ref.idx[0] = a.b; ref.mode = TAMM_READWRITE;
            tamm_task t;
            memset(&t, 0, sizeof t);
            t.cuda = inc_cuda;
            t.args = &a; t.args_size = sizeof a; t.refs = &ref; t.nrefs = 1;
            t.label = "inc"; t.rank = -1; t.file = __FILE__; t.line = __LINE__;
            if (tamm_submit(NULL, &t) != TAMM_OK) exit(1);
        }
        if (tamm_wait_all() != TAMM_OK) exit(1);
        double t = (now() - t0) / (double)n;
        if (t < best) best = t;
        tamm_tensor_gather(T, init);
        for (long b = 0; b < nblk; b++)
            if (init[b] != n / nblk + (b < n % nblk)) {
                fprintf(stderr, "gpu_tasks: block %ld is %ld, expected %ld\n", b, init[b], n / nblk + (b < n % nblk));
                free(init);
                tamm_tensor_destroy(T);
                return -1;
            }
        free(init);
        tamm_tensor_destroy(T);
    }
    return best;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 10000;
    int reps = argc > 2 ? atoi(argv[2]) : 3;
    if (tamm_init(&argc, &argv) != TAMM_OK) return 1;
    if (tamm_num_gpus() == 0) {
        fprintf(stderr, "gpu_tasks: no GPU\n");
        tamm_finalize();
        return 77;
    }
    int ok = 1;
    double bare = gt_bare(n, &ok);
    double chain = run(n, 1, reps), indep = run(n, n, reps);
    char fl[64] = "n/a (emulated device)";
    if (bare >= 0) snprintf(fl, sizeof fl, "%.2f us per launch", 1e6 * bare);
    printf("gpu_tasks N=%ld: chain %.2f us per task, independent %.2f us per task; plain CUDA, one stream: %s\n", n,
           1e6 * chain, 1e6 * indep, fl);
    int rc = tamm_finalize();
    return rc == TAMM_OK && chain > 0 && indep > 0 && ok && failures == 0 ? 0 : 1;
}
