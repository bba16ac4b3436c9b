/*
 * task_overhead_serial.c — sequential reference of the task_overhead benchmark:
 * the same work in submission order, no runtime.  Its checksum is the expected
 * one for every runtime; its time is the cost of the work alone.
 */
#include "task_overhead_common.h"

int main(int argc, char **argv)
{
    int pattern;
    long ntasks;
    if (bench_parse_args(argc, argv, &pattern, &ntasks) != 0) return 2;

    int64_t *vals = calloc(NBLOCKS, sizeof(int64_t));
    int64_t *out = bench_alloc_out(ntasks);
    if (!vals) return 1;
    bench_lcg g;
    bench_lcg_init(&g);

    double t0 = bench_now();
    for (long i = 0; i < ntasks; i++) {
        switch (pattern) {
        case PAT_INDEPENDENT:
            out[i] = rd_mix(vals[indep_block(i)], i);
            break;
        case PAT_CHAIN:
            vals[0] = rw_update(vals[0], 0, 0);
            break;
        case PAT_RANDOM: {
            long a, b, c;
            bench_lcg_next(&g, &a, &b, &c);
            vals[a] = rw_update(vals[a], vals[b], vals[c]);
            break;
        }
        case PAT_FANIN:
            if (fanin_is_writer(i)) vals[0] = rw_update(vals[0], 0, 0);
            else out[i] = rd_mix(vals[0], i);
            break;
        }
    }
    double t1 = bench_now();

    bench_report(pattern, ntasks, t1 - t0, vals, out);
    free(out);
    free(vals);
    return 0;
}
