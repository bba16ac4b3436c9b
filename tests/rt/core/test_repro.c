/*
 * test_repro.c — reproducible accumulation through the explicit API
 * (docs/runtime.md "Reproducible accumulation"): with the tensor option
 * `reproducible` or TAMM_REPRODUCIBLE=1, TAMM_ACCUM tasks into one block are
 * combined in submission order, so each element equals the sequential sum
 * ((x + a1) + a2) + ... bit for bit, even when a task adds several times to an
 * element; cancellable accumulations (some cancelled) too; accumulations into
 * different blocks still run at the same time, and those into one block one at
 * a time.  Every case runs in a child process with 4 workers.
 */
#include "tamm_util.h"

#define NTASK 48
#define K 7      /* additions per element per task */
#define E 32     /* elements per block */
#define NBLK 4

typedef struct {
    tamm_tensor *T;
    long blk;
    int task;
    int cancel; /* release by cancel instead of add */
} acc_args;

static atomic_int in_block[NBLK], max_in_block, started[NBLK];
static atomic_int overlap_seen;

/* the k-th addend of task t for element e: mixed signs and magnitudes */
static double addend(int t, int k, int e)
{
    unsigned h = (unsigned)(t * 7919 + k * 104729 + e * 1299709) * 2654435761u;
    double m = (double)(h % 100003) / 1000.0 + 0.001;
    int sh = (int)(h >> 27) - 12;
    double v = sh >= 0 ? m * (double)(1u << sh) : m / (double)(1u << -sh);
    return (h & 1u) ? -v : v;
}

static void acc_body(tamm_ctx *ctx, void *vp)
{
    acc_args *a = vp;
    int now = atomic_fetch_add(&in_block[a->blk], 1) + 1;
    int m = atomic_load(&max_in_block);
    while (now > m && !atomic_compare_exchange_weak(&max_in_block, &m, now)) {}
    atomic_fetch_add(&started[a->blk], 1);
    /* the first task of block 0 waits (a while at most) for one of block 1 to start beside it */
    if (a->blk == 0 && a->task == 0 && tu_wait_flag(&started[1], 1, 5.0) && atomic_load(&in_block[0]) == 1)
        atomic_store(&overlap_seen, 1);
    long idx[1] = { a->blk };
    double *p = tamm_get_buf_accum(ctx, a->T, idx);
    TCHECK(p != NULL);
    if (p) {
        for (int k = 0; k < K; k++)
            for (int e = 0; e < E; e++)
                p[e] += addend(a->task, k, e);
        int rc = a->cancel ? tamm_release_cancel(ctx, p) : tamm_release_add(ctx, p);
        TCHECK(rc == TAMM_OK);
    }
    atomic_fetch_sub(&in_block[a->blk], 1);
}

/* vp: 0 the tensor option, 1 TAMM_REPRODUCIBLE (set by the parent), 2 cancellable refs */
static int t_repro(void *vp)
{
    int how = (int)(intptr_t)vp;
    tu_init();
    size_t dims[1] = { NBLK * E }, tile[1] = { E };
    tamm_tensor_opts o;
    memset(&o, 0, sizeof o);
    o.reproducible = how != 1;
    tamm_tensor *T = how == 1 ? tamm_tensor_create("R", TAMM_F64, 1, dims, tile)
                              : tamm_tensor_create_ex("R", TAMM_F64, 1, dims, tile, &o);
    CHECK_NOTNULL(T);
    if (!T) return 1;
    double ref[NBLK][E];
    for (long b = 0; b < NBLK; b++) {
        double *x = tamm_block(T, b);
        for (int e = 0; e < E; e++) x[e] = ref[b][e] = addend(1000 + (int)b, 0, e);
    }
    for (int t = 0; t < NTASK; t++) {
        acc_args a = { T, t % NBLK, t, how == 2 && t % 3 == 0 };
        unsigned mode = TAMM_ACCUM | (how == 2 ? TAMM_CANCELLABLE : 0u);
        CHECK_EQ_INT(TU_SUBMIT(NULL, acc_body, &a, "acc", tu_ref1(T, mode, a.blk)), TAMM_OK);
        if (!a.cancel) /* the plain build's order: task after task, k after k */
            for (int k = 0; k < K; k++)
                for (int e = 0; e < E; e++)
                    ref[a.blk][e] += addend(t, k, e);
    }
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    CHECK_TASKS_OK();
    int differ = 0;
    for (long b = 0; b < NBLK; b++) {
        const double *x = tamm_block(T, b);
        for (int e = 0; e < E; e++)
            if (memcmp(&x[e], &ref[b][e], sizeof(double)) != 0) {
                if (differ++ < 4) fprintf(stderr, "R[%ld][%d] = %a, sequential %a\n", b, e, x[e], ref[b][e]);
            }
    }
    CHECK_MSG(differ == 0, "%d elements differ from the sequential sum (bit for bit)", differ);
    CHECK_MSG(atomic_load(&max_in_block) == 1, "accumulations into one block ran one at a time (at most %d at once)",
              atomic_load(&max_in_block));
    CHECK_MSG(atomic_load(&overlap_seen), "an accumulation into block 1 ran beside one into block 0");
    TU_FINALIZE();
    return 0;
}

int main(void)
{
    const char *env4[] = { "TAMM_NUM_WORKERS=4", NULL };
    const char *env_rep[] = { "TAMM_NUM_WORKERS=4", "TAMM_REPRODUCIBLE=1", NULL };
    run_test_child("tensor option", t_repro, (void *)(intptr_t)0, env4, 20);
    run_test_child("TAMM_REPRODUCIBLE=1", t_repro, (void *)(intptr_t)1, env_rep, 20);
    run_test_child("cancellable accumulations", t_repro, (void *)(intptr_t)2, env4, 20);
    return test_summary();
}
