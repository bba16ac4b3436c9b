/*
 * task_overhead_pragma.c — task_overhead written with `#pragma tamm task`
 * and compiled by tammcc: the same four DAGs and bodies as
 * task_overhead_tamm.c (the explicit API), so run_pragma_overhead.sh can
 * compare the per-task cost of generated code with hand-written code.
 *
 * Built plain (sequential elision) it is also a correct sequential program.
 */
#include "task_overhead_common.h"
#include "tamm.h"

static int64_t *out;

/* out[] is written by index, one element per task: not a tensor block, so
 * tammcc warns that it cannot order these writes (they never overlap). */
static void read_body(const int64_t *x, long i) { out[i] = rd_mix(*x, i); }
static void rw_body(int64_t *x) { *x = rw_update(*x, 0, 0); }
static void rand_body(int64_t *x, const int64_t *y, const int64_t *z) { *x = rw_update(*x, *y, *z); }

int main(int argc, char **argv)
{
    int pattern;
    long ntasks;
    if (bench_parse_args(argc, argv, &pattern, &ntasks) != 0) return 2;
    tamm_init(&argc, &argv);
    const size_t dims[1] = { NBLOCKS }, tile[1] = { 1 };
    tamm_tensor *T = tamm_tensor_create("x", TAMM_I64, 1, dims, tile);
    out = bench_alloc_out(ntasks);
    bench_lcg g;
    bench_lcg_init(&g);
    double t0 = bench_now();
    switch (pattern) {
    case PAT_INDEPENDENT:
        for (long i = 0; i < ntasks; i++) {
            long b = indep_block(i);
            #pragma tamm task label("independent")
            read_body(tamm_block(T, b), i);
        }
        break;
    case PAT_CHAIN:
        for (long i = 0; i < ntasks; i++) {
            #pragma tamm task label("chain")
            rw_body(tamm_block(T, 0));
        }
        break;
    case PAT_RANDOM:
        for (long i = 0; i < ntasks; i++) {
            long rw, r1, r2;
            bench_lcg_next(&g, &rw, &r1, &r2);
            #pragma tamm task label("random")
            rand_body(tamm_block(T, rw), tamm_block(T, r1), tamm_block(T, r2));
        }
        break;
    case PAT_FANIN:
        for (long i = 0; i < ntasks; i++) {
            if (fanin_is_writer(i)) {
                #pragma tamm task label("fanin-writer")
                rw_body(tamm_block(T, 0));
            } else {
                #pragma tamm task label("fanin-reader")
                read_body(tamm_block(T, 0), i);
            }
        }
        break;
    }
    #pragma tamm taskwait
    double t1 = bench_now();
    int64_t vals[NBLOCKS];
    for (long b = 0; b < NBLOCKS; b++) vals[b] = *(int64_t *)tamm_block(T, b);
    bench_report(pattern, ntasks, t1 - t0, vals, out);
    tamm_finalize();
    return 0;
}
