/*
 * task_overhead_common.h — shared definitions of the task_overhead benchmark.
 *
 * Every runtime version (tamm, OpenMP/libgomp, OpenMP/libomp, StarPU) and the
 * sequential reference include this header, so the four patterns, the random
 * block sequence, the per-task work and the checksum are identical everywhere.
 *
 * Data: NBLOCKS = 1024 blocks of one int64 each, all zero at the start.
 * Side output: out[NTASKS], one private int64 slot per task, written by the
 * tasks that only read (independent tasks, fan-in readers), so that every
 * task's execution -- and the version of the block it saw -- is checked.
 *
 * Patterns (task i = 0 .. NTASKS-1, submitted in order):
 *   independent  task i reads block i % 1024 and writes out[i] = rd_mix(x, i).
 *                Only reads: no dependence between any two tasks.
 *   chain        task i readwrites block 0: x = x*3 + 1 (mod 2^61).
 *                Every task depends on the previous one.
 *   random       a fixed-seed LCG gives task i three distinct blocks
 *                (rw, r1, r2); x[rw] = x[rw]*3 + x[r1] + x[r2] + 1 (mod 2^61).
 *   fanin        groups of FANIN_READERS readers then one writer, all on
 *                block 0: reader i writes out[i] = rd_mix(x, i); the writer
 *                does x = x*3 + 1 (mod 2^61).  Every reader of group g depends
 *                on writer g-1; writer g depends on the 1,000 readers of g.
 *
 * All four are deterministic under any schedule that respects the sequential
 * (submission-order) semantics of the accesses, so the checksum is a function
 * of (pattern, NTASKS) only; task_overhead_serial computes it without tasks.
 */
#ifndef TASK_OVERHEAD_COMMON_H
#define TASK_OVERHEAD_COMMON_H

/* clock_gettime under -std=c11; include this header before any other. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NBLOCKS       1024
#define FANIN_READERS 1000
#define VAL_MASK      ((UINT64_C(1) << 61) - 1)

enum bench_pattern { PAT_INDEPENDENT = 0, PAT_CHAIN = 1, PAT_RANDOM = 2, PAT_FANIN = 3 };

static const char *const bench_pattern_names[] = { "independent", "chain", "random", "fanin" };

/* Parse "PATTERN NTASKS"; prints usage and returns -1 on error. */
static inline int bench_parse_args(int argc, char **argv, int *pattern, long *ntasks)
{
    char *end = NULL;
    long n;
    if (argc != 3) goto usage;
    *pattern = -1;
    for (int p = 0; p < 4; p++)
        if (strcmp(argv[1], bench_pattern_names[p]) == 0) *pattern = p;
    if (*pattern < 0) goto usage;
    n = strtol(argv[2], &end, 10);
    if (end == argv[2] || *end != '\0' || n < 1 || n > 100000000L) goto usage;
    *ntasks = n;
    return 0;
usage:
    fprintf(stderr, "usage: %s independent|chain|random|fanin NTASKS\n", argc > 0 ? argv[0] : "task_overhead");
    return -1;
}

/* ---- the per-task work ------------------------------------------------ */

/* The readwrite update of chain, random and the fan-in writer. */
static inline int64_t rw_update(int64_t x, int64_t r1, int64_t r2)
{
    return (int64_t)(((uint64_t)x * 3u + (uint64_t)r1 + (uint64_t)r2 + 1u) & VAL_MASK);
}

/* What a read-only task (independent, fan-in reader) writes into its slot. */
static inline int64_t rd_mix(int64_t x, long i)
{
    return (int64_t)((((uint64_t)x ^ 0x5bd1e995u) + (uint64_t)i * UINT64_C(0x9E3779B97F4A7C15)) & VAL_MASK);
}

/* Block read by independent task i. */
static inline long indep_block(long i) { return i % NBLOCKS; }

/* Fan-in: is task i a writer (the last of each group of FANIN_READERS + 1)? */
static inline int fanin_is_writer(long i) { return (i % (FANIN_READERS + 1)) == FANIN_READERS; }

/* ---- random pattern: fixed-seed LCG ------------------------------------ */

typedef struct { uint64_t s; } bench_lcg;

static inline void bench_lcg_init(bench_lcg *g) { g->s = UINT64_C(0x2545F4914F6CDD1D); }

static inline long bench_lcg_block(bench_lcg *g)
{
    g->s = g->s * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
    return (long)((g->s >> 33) % NBLOCKS);
}

/* Next task of the random pattern: rw block and two read blocks, all distinct. */
static inline void bench_lcg_next(bench_lcg *g, long *rw, long *r1, long *r2)
{
    long a = bench_lcg_block(g), b, c;
    do b = bench_lcg_block(g); while (b == a);
    do c = bench_lcg_block(g); while (c == a || c == b);
    *rw = a; *r1 = b; *r2 = c;
}

/* ---- checksum, timing, output ----------------------------------------- */

/* Order-dependent fold of the 1,024 block values and the ntasks side slots. */
static inline uint64_t bench_checksum(const int64_t *vals, const int64_t *out, long ntasks)
{
    uint64_t h = UINT64_C(1469598103934665603);
    for (long k = 0; k < NBLOCKS; k++) h = (h ^ (uint64_t)vals[k]) * UINT64_C(1099511628211) + (uint64_t)k;
    for (long k = 0; k < ntasks; k++) h = (h ^ (uint64_t)out[k]) * UINT64_C(1099511628211) + (uint64_t)k;
    return h & VAL_MASK;
}

static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline void bench_report(int pattern, long ntasks, double seconds, const int64_t *vals, const int64_t *out)
{
    printf("%s us_per_task=%.3f checksum=%llu\n", bench_pattern_names[pattern],
           seconds * 1e6 / (double)ntasks, (unsigned long long)bench_checksum(vals, out, ntasks));
    fflush(stdout);
}

/* Zeroed side-output array (one slot per task). */
static inline int64_t *bench_alloc_out(long ntasks)
{
    int64_t *out = calloc((size_t)ntasks, sizeof(int64_t));
    if (!out) { fprintf(stderr, "task_overhead: out of memory\n"); exit(1); }
    return out;
}

#endif /* TASK_OVERHEAD_COMMON_H */
