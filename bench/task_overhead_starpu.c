/*
 * task_overhead_starpu.c — task_overhead with StarPU 1.3 (starpu_task_insert).
 *
 * Data: 1,024 registered variable handles of one int64 each; dependences come
 * from StarPU's implicit (sequential-consistency) data dependences on
 * STARPU_R / STARPU_RW accesses.  CPU-only codelets.  The main thread submits
 * every task and then calls starpu_task_wait_for_all(); it does not execute
 * tasks.  Workers: STARPU_NCPU (the driver sets it to WORKERS and sets
 * STARPU_NCUDA=0, STARPU_NOPENCL=0, STARPU_SILENT=1; defaults below if unset).
 * The time runs from before the first submission to after the wait;
 * starpu_init and data registration are excluded.
 */
#include "task_overhead_common.h"

#include <starpu.h>

static int64_t vals[NBLOCKS];
static int64_t *out;

/* Read-only task (independent, fan-in reader): cl_arg points at its slot out[i]. */
static void read_cpu(void *buffers[], void *cl_arg)
{
    const int64_t *x = (const int64_t *)STARPU_VARIABLE_GET_PTR(buffers[0]);
    int64_t *slot = (int64_t *)cl_arg;
    *slot = rd_mix(*x, (long)(slot - out));
}

/* chain, fan-in writer: x = x*3 + 1. */
static void rw_cpu(void *buffers[], void *cl_arg)
{
    (void)cl_arg;
    int64_t *x = (int64_t *)STARPU_VARIABLE_GET_PTR(buffers[0]);
    *x = rw_update(*x, 0, 0);
}

/* random: x = x*3 + r1 + r2 + 1. */
static void rw2r_cpu(void *buffers[], void *cl_arg)
{
    (void)cl_arg;
    int64_t *x = (int64_t *)STARPU_VARIABLE_GET_PTR(buffers[0]);
    const int64_t *r1 = (const int64_t *)STARPU_VARIABLE_GET_PTR(buffers[1]);
    const int64_t *r2 = (const int64_t *)STARPU_VARIABLE_GET_PTR(buffers[2]);
    *x = rw_update(*x, *r1, *r2);
}

static struct starpu_codelet cl_read = {
    .where = STARPU_CPU, .cpu_funcs = { read_cpu }, .nbuffers = 1, .modes = { STARPU_R }, .name = "read",
};
static struct starpu_codelet cl_rw = {
    .where = STARPU_CPU, .cpu_funcs = { rw_cpu }, .nbuffers = 1, .modes = { STARPU_RW }, .name = "rw",
};
static struct starpu_codelet cl_rw2r = {
    .where = STARPU_CPU, .cpu_funcs = { rw2r_cpu }, .nbuffers = 3,
    .modes = { STARPU_RW, STARPU_R, STARPU_R }, .name = "rw2r",
};

static void check(int ret, const char *what)
{
    if (ret != 0) {
        fprintf(stderr, "task_overhead_starpu: %s failed: %d\n", what, ret);
        exit(1);
    }
}

int main(int argc, char **argv)
{
    int pattern;
    long ntasks;
    if (bench_parse_args(argc, argv, &pattern, &ntasks) != 0) return 2;

    /* Defaults when run by hand; the driver sets these explicitly. */
    setenv("STARPU_NCUDA", "0", 0);
    setenv("STARPU_NOPENCL", "0", 0);
    setenv("STARPU_SILENT", "1", 0);

    out = bench_alloc_out(ntasks);
    check(starpu_init(NULL), "starpu_init");

    static starpu_data_handle_t h[NBLOCKS];
    for (int k = 0; k < NBLOCKS; k++)
        starpu_variable_data_register(&h[k], STARPU_MAIN_RAM, (uintptr_t)&vals[k], sizeof(int64_t));

    bench_lcg g;
    bench_lcg_init(&g);
    double t0 = bench_now();
    switch (pattern) {
    case PAT_INDEPENDENT:
        for (long i = 0; i < ntasks; i++)
            check(starpu_task_insert(&cl_read, STARPU_R, h[indep_block(i)],
                                     STARPU_CL_ARGS_NFREE, &out[i], sizeof(int64_t), 0), "starpu_task_insert");
        break;
    case PAT_CHAIN:
        for (long i = 0; i < ntasks; i++)
            check(starpu_task_insert(&cl_rw, STARPU_RW, h[0], 0), "starpu_task_insert");
        break;
    case PAT_RANDOM:
        for (long i = 0; i < ntasks; i++) {
            long a, b, c;
            bench_lcg_next(&g, &a, &b, &c);
            check(starpu_task_insert(&cl_rw2r, STARPU_RW, h[a], STARPU_R, h[b], STARPU_R, h[c], 0),
                  "starpu_task_insert");
        }
        break;
    case PAT_FANIN:
        for (long i = 0; i < ntasks; i++) {
            if (fanin_is_writer(i))
                check(starpu_task_insert(&cl_rw, STARPU_RW, h[0], 0), "starpu_task_insert");
            else
                check(starpu_task_insert(&cl_read, STARPU_R, h[0],
                                         STARPU_CL_ARGS_NFREE, &out[i], sizeof(int64_t), 0), "starpu_task_insert");
        }
        break;
    }
    check(starpu_task_wait_for_all(), "starpu_task_wait_for_all");
    double t1 = bench_now();

    for (int k = 0; k < NBLOCKS; k++) starpu_data_unregister(h[k]);   /* values back in vals[] */
    starpu_shutdown();

    bench_report(pattern, ntasks, t1 - t0, vals, out);
    free(out);
    return 0;
}
