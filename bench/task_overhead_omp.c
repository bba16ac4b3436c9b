/*
 * task_overhead_omp.c — task_overhead with OpenMP tasks and depend clauses.
 *
 * Built twice: gcc -fopenmp (GNU libgomp) and clang-14 -fopenmp=libomp (LLVM
 * libomp).  Data: an int64 array of 1,024 elements; dependences are
 * depend(in:) / depend(inout:) on its elements.  One thread of a
 * `parallel` region produces the tasks inside `single` and then waits in
 * `taskwait` (executing tasks meanwhile); OMP_NUM_THREADS sets the team size
 * (2 = the producer plus one more thread).  The time runs from before the first
 * task to after the taskwait; starting the thread team is excluded.
 */
#include "task_overhead_common.h"

static int64_t vals[NBLOCKS];

int main(int argc, char **argv)
{
    int pattern;
    long ntasks;
    if (bench_parse_args(argc, argv, &pattern, &ntasks) != 0) return 2;

    int64_t *out = bench_alloc_out(ntasks);
    int64_t *v = vals;
    double t0 = 0, t1 = 0;

#pragma omp parallel shared(v, out, t0, t1, pattern, ntasks)
#pragma omp single
    {
        bench_lcg g;
        bench_lcg_init(&g);
        t0 = bench_now();
        switch (pattern) {
        case PAT_INDEPENDENT:
            for (long i = 0; i < ntasks; i++) {
                long b = indep_block(i);
#pragma omp task firstprivate(i, b) shared(v, out) depend(in: v[b])
                out[i] = rd_mix(v[b], i);
            }
            break;
        case PAT_CHAIN:
            for (long i = 0; i < ntasks; i++) {
#pragma omp task shared(v) depend(inout: v[0])
                v[0] = rw_update(v[0], 0, 0);
            }
            break;
        case PAT_RANDOM:
            for (long i = 0; i < ntasks; i++) {
                long a, b, c;
                bench_lcg_next(&g, &a, &b, &c);
#pragma omp task firstprivate(a, b, c) shared(v) depend(inout: v[a]) depend(in: v[b], v[c])
                v[a] = rw_update(v[a], v[b], v[c]);
            }
            break;
        case PAT_FANIN:
            for (long i = 0; i < ntasks; i++) {
                if (fanin_is_writer(i)) {
#pragma omp task shared(v) depend(inout: v[0])
                    v[0] = rw_update(v[0], 0, 0);
                } else {
#pragma omp task firstprivate(i) shared(v, out) depend(in: v[0])
                    out[i] = rd_mix(v[0], i);
                }
            }
            break;
        }
#pragma omp taskwait
        t1 = bench_now();
    }

    bench_report(pattern, ntasks, t1 - t0, vals, out);
    free(out);
    return 0;
}
