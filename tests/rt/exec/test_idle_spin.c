/*
 * test_idle_spin.c — how long an idle worker polls before it sleeps
 * (tamm__core_start, docs/runtime.md "Scheduling on CPUs"): the full polling when the
 * node's workers fit its cores, a few rounds when they outnumber them
 * (TAMM_NUM_WORKERS above the cores here; several ranks of a node count
 * together, tests/rt/mpi), and tasks still run to the right result either way.
 */
#include "harness.h"
#include "runtime.h"
#include <tamm.h>
#include <stdint.h>
#include <unistd.h>

static tamm_tensor *T;

static void add_one(tamm_ctx *ctx, void *arg)
{
    (void)arg;
    long zero = 0;
    int64_t *x = tamm_get_buf_readwrite(ctx, T, &zero);
    x[0] += 1;
    tamm_release_put(ctx, x);
}

/* TAMM_NUM_WORKERS=workers: the polling rounds chosen, and a chain of 200 tasks on one block */
static int run_with(void *arg)
{
    int workers = *(int *)arg;
    char nw[16];
    snprintf(nw, sizeof nw, "%d", workers);
    setenv("TAMM_NUM_WORKERS", nw, 1);
    CHECK_EQ_INT(tamm_init(NULL, NULL), TAMM_OK);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int want = workers > cores ? TAMM_SPIN_SHARED : TAMM_SPIN_ROUNDS;
    CHECK_MSG(tamm__rt.spin_rounds == want, "%d workers on %ld cores: %d polling rounds, expected %d", workers,
              cores, tamm__rt.spin_rounds, want);
    size_t dims[1] = { 4 }, tile[1] = { 4 };
    T = tamm_tensor_create("T", TAMM_I64, 1, dims, tile);
    int64_t *x0 = tamm_block(T, 0);
    x0[0] = 0;
    tamm_put(x0);
    for (int i = 0; i < 200; i++) {
        tamm_ref r = { T, 1, { 0 }, TAMM_READWRITE };
        tamm_task t;
        memset(&t, 0, sizeof t);
        t.cpu = add_one;
        t.refs = &r;
        t.nrefs = 1;
        t.rank = -1;
        t.label = "add_one";
        CHECK_EQ_INT(tamm_submit(NULL, &t), TAMM_OK);
    }
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    int64_t *x = tamm_block(T, 0);
    CHECK_MSG(x && x[0] == 200, "%d workers: %ld after 200 increments", workers, x ? (long)x[0] : -1L);
    tamm_put(x);
    tamm_tensor_destroy(T);
    CHECK_EQ_INT(tamm_finalize(), TAMM_OK);
    return h__.failed ? 3 : 0;
}

int main(void)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int fit = 1, over = (int)cores + 1;
    run_test_child("workers within the cores", run_with, &fit, NULL, 60);
    run_test_child("more workers than cores", run_with, &over, NULL, 60);
    return test_summary();
}
