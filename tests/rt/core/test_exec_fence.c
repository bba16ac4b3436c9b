/*
 * test_exec_fence.c — the execution fence (docs/language.md "Fences, priorities, ranks"):
 * `#pragma tamm fence` / tamm_barrier() and its non-blocking form
 * tamm_fence_submit().  Everything submitted before a fence completes, on
 * every rank, before anything submitted after it starts on any rank.
 *
 * Built twice: here as a one-process test (ctest test_exec_fence), and in
 * tests/rt/mpi with TAMM_XFENCE_MPI for 2, 3 and 4 ranks under mpirun
 * (mpi_exec_fence_*_npN).  The ranks share one machine, so CLOCK_MONOTONIC is
 * one clock for all of them.
 *
 * The program runs NPH phases separated by fences.  In phase k every rank r
 * runs (on(r)) one task that sleeps SLOW ms when (r + k) is even, one that
 * does not, and one that accumulates 1 into a block owned by rank 0 (so that
 * messages and accumulation runs cross the fence too).  Each task records its
 * start and end time in this process; at the end the times are combined over
 * the ranks (MPI_Allreduce MAX) and every rank checks, for every k, that the
 * earliest start of phase k+1 (any rank) is not before the latest end of
 * phase k (any rank).
 *
 * Mode "barrier": the fences are tamm_barrier(); each rank also checks that
 * tamm_barrier() returned only after the phase had ended on every rank.
 * Mode "nowait": the fences are tamm_fence_submit() (two in a row after phase
 * 1); the whole program is submitted first and then waited for with
 * tamm_wait_all(); each rank checks that its submitting thread was never
 * blocked: it had submitted everything before the tasks of phase 0 ended
 * (not under TAMM_SEQUENTIAL=1, which runs every task as it is submitted).
 *
 * Mode "many": NROUND rounds of NMANY tiny tasks (spread over the ranks),
 * separated by tamm_fence_submit (tamm_barrier every fourth round, and an
 * empty round now and then: fences back to back); every task of a round
 * checks that every task of the round before that ran in this process has
 * completed.  Many completions race with the arming and firing of fences.
 *
 * Mode "tail": three tamm_init .. tamm_finalize sessions, each ending with
 * two tamm_fence_submit that no task follows, while rank 0 still runs a slow
 * task: tamm_finalize must let every fence fire on every rank (a rank that
 * stopped first would leave the others in the fence's barrier).
 */
#include <tamm.h>
#ifdef TAMM_XFENCE_MPI
#include <mpi.h>
#endif

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { NPH = 4, PER = 3, MAXR = 8, SLOW = 300 };

static int failures, checks;
#define CHECK(c, ...)                                                                                                 \
    do {                                                                                                              \
        checks++;                                                                                                     \
        if (!(c)) {                                                                                                   \
            failures++;                                                                                               \
            fprintf(stderr, "rank %d: FAIL %s:%d: %s: ", tamm_rank(), __FILE__, __LINE__, #c);                        \
            fprintf(stderr, __VA_ARGS__);                                                                             \
            fputc('\n', stderr);                                                                                      \
        }                                                                                                             \
    } while (0)

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* [phase][rank][j]: times of the tasks that ran in this process (-1: not here) */
static int64_t t_start[NPH][MAXR][PER], t_end[NPH][MAXR][PER];

typedef struct { int ph, r, j, sleep_ms; tamm_tensor *A; } args;

static void body(tamm_ctx *ctx, void *va)
{
    const args *a = va;
    t_start[a->ph][a->r][a->j] = now_ns();
    if (a->sleep_ms) usleep((useconds_t)a->sleep_ms * 1000);
    if (a->A) {
        long idx[1] = { 0 };
        double *p = tamm_get_buf_accum(ctx, a->A, idx);
        p[0] += 1.0;
        tamm_release_add(ctx, p);
    }
    t_end[a->ph][a->r][a->j] = now_ns();
}

static void phase(int k, int P, tamm_tensor *A)
{
    for (int r = 0; r < P; r++)
        for (int j = 0; j < PER; j++) {
            args a = { k, r, j, j == 0 && (r + k) % 2 == 0 ? SLOW : 0, j == 2 ? A : NULL };
            tamm_ref ref;
            memset(&ref, 0, sizeof ref);
            ref.tensor = A;
            ref.nidx = 1;
            ref.idx[0] = 0;
            ref.mode = TAMM_ACCUM;
            tamm_task t;
            memset(&t, 0, sizeof t);
            t.cpu = body;
            t.args = &a;
            t.args_size = sizeof a;
            t.refs = j == 2 ? &ref : NULL;
            t.nrefs = j == 2 ? 1 : 0;
            t.rank = r;
            t.label = j == 0 ? "maybe-slow" : j == 1 ? "quick" : "accumulate";
            t.file = __FILE__;
            t.line = __LINE__;
            CHECK(tamm_submit(NULL, &t) == TAMM_OK, "submit phase %d rank %d task %d", k, r, j);
        }
}

enum { NROUND = 200, NMANY = 64 };
static atomic_int done_in[NROUND];
static int expect_in[NROUND], late;

typedef struct { int round; } many_args;
static void many_body(tamm_ctx *ctx, void *va)
{
    (void)ctx;
    const many_args *a = va;
    if (a->round > 0 && atomic_load(&done_in[a->round - 1]) != expect_in[a->round - 1]) late = 1;
    atomic_fetch_add(&done_in[a->round], 1);
}

static int many(int P, int me)
{
    for (int k = 0; k < NROUND; k++) {
        int n = k % 7 == 3 ? 0 : NMANY; /* an empty round: two fences in a row */
        for (int i = 0; i < n; i++) {
            if (i % P == me) expect_in[k]++;
            many_args a = { k };
            tamm_task t;
            memset(&t, 0, sizeof t);
            t.cpu = many_body;
            t.args = &a;
            t.args_size = sizeof a;
            t.rank = i % P;
            t.label = "tiny";
            CHECK(tamm_submit(NULL, &t) == TAMM_OK, "submit round %d", k);
        }
        if (k % 4 == 3) CHECK(tamm_barrier() == TAMM_OK, "tamm_barrier after round %d", k);
        else CHECK(tamm_fence_submit() == TAMM_OK, "tamm_fence_submit after round %d", k);
    }
    CHECK(tamm_wait_all() == TAMM_OK, "tamm_wait_all");
    CHECK(!late, "a task after a fence started before a task before it had completed in this process");
    for (int k = 0; k < NROUND; k++)
        CHECK(atomic_load(&done_in[k]) == expect_in[k], "round %d: %d tasks ran here, expected %d", k,
              atomic_load(&done_in[k]), expect_in[k]);
    return 0;
}

static void tail_body(tamm_ctx *ctx, void *va)
{
    (void)ctx;
    if (*(const int *)va) usleep(200000);
}

static int tail(int *argc, char ***argv)
{
    int bad = 0;
    for (int s = 0; s < 3; s++) {
        if (tamm_init(argc, argv) != TAMM_OK) return 2;
        int slow = tamm_rank() == 0;
        tamm_task t;
        memset(&t, 0, sizeof t);
        t.cpu = tail_body;
        t.args = &slow;
        t.args_size = sizeof slow;
        t.label = "tail";
        for (int r = 0; r < tamm_nranks(); r++) {
            t.rank = r;
            CHECK(tamm_submit(NULL, &t) == TAMM_OK, "submit");
        }
        CHECK(tamm_fence_submit() == TAMM_OK, "tamm_fence_submit");
        CHECK(tamm_fence_submit() == TAMM_OK, "tamm_fence_submit");
        int me = tamm_rank();
        int rc = tamm_finalize();
        if (rc) fprintf(stderr, "rank %d: FAIL session %d: tamm_finalize returned %d\n", me, s, rc), bad = 1;
        if (me == 0) printf("exec fence (tail): session %d ended, %d failures\n", s, failures + bad);
    }
    return failures || bad ? 1 : 0;
}

static void combine(int64_t *v, int n)
{
#ifdef TAMM_XFENCE_MPI
    if (tamm_nranks() > 1) MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
#else
    (void)v;
    (void)n;
#endif
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "barrier";
    int nowait = !strcmp(mode, "nowait"), nmany = !strcmp(mode, "many");
    if (!strcmp(mode, "tail")) return tail(&argc, &argv);
    if (!nowait && !nmany && strcmp(mode, "barrier")) {
        fprintf(stderr, "usage: %s barrier|nowait|many|tail\n", argv[0]);
        return 2;
    }
    if (tamm_init(&argc, &argv) != TAMM_OK) return 2;
    int me = tamm_rank(), P = tamm_nranks();
    if (P > MAXR) {
        fprintf(stderr, "at most %d ranks\n", MAXR);
        return 2;
    }
    if (nmany) {
        many(P, me);
        int all[2] = { failures, checks };
#ifdef TAMM_XFENCE_MPI
        if (P > 1) MPI_Allreduce(MPI_IN_PLACE, all, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
#endif
        int rc = tamm_finalize();
        if (me == 0) printf("exec fence (many, %d rank%s): %d checks, %d failures\n", P, P == 1 ? "" : "s", all[1], all[0]);
        return all[0] || rc ? 1 : 0;
    }
    memset(t_start, 0xff, sizeof t_start);
    memset(t_end, 0xff, sizeof t_end);
    size_t dim = 1, tile = 1;
    tamm_tensor *A = tamm_tensor_create("acc", TAMM_F64, 1, &dim, &tile);

    int64_t ret[NPH]; /* barrier: when tamm_barrier returned after phase k, on this rank */
    int64_t sub0 = now_ns(), sub1 = 0;
    for (int k = 0; k < NPH; k++) {
        phase(k, P, A);
        ret[k] = -1;
        if (k == NPH - 1) break;
        if (nowait) {
            CHECK(tamm_fence_submit() == TAMM_OK, "tamm_fence_submit after phase %d", k);
            if (k == 1) CHECK(tamm_fence_submit() == TAMM_OK, "a second tamm_fence_submit after phase %d", k);
        } else {
            CHECK(tamm_barrier() == TAMM_OK, "tamm_barrier after phase %d", k);
            ret[k] = now_ns();
        }
    }
    sub1 = now_ns();
    CHECK(tamm_wait_all() == TAMM_OK, "tamm_wait_all");
    double *acc = tamm_block(A, 0);
    CHECK(acc && acc[0] == (double)(NPH * P), "accumulated %g, expected %d", acc ? acc[0] : -1.0, NPH * P);

    combine(&t_start[0][0][0], NPH * MAXR * PER);
    combine(&t_end[0][0][0], NPH * MAXR * PER);
    int64_t first_end0 = INT64_MAX;
    for (int k = 0; k < NPH; k++) {
        int64_t lo = INT64_MAX, hi = -1;
        for (int r = 0; r < P; r++)
            for (int j = 0; j < PER; j++) {
                CHECK(t_start[k][r][j] >= 0 && t_end[k][r][j] >= 0, "phase %d rank %d task %d never ran", k, r, j);
                if (t_start[k][r][j] < lo) lo = t_start[k][r][j];
                if (t_end[k][r][j] > hi) hi = t_end[k][r][j];
                if (k == 0 && j == 0 && t_end[k][r][j] < first_end0 && (r + k) % 2 == 0) first_end0 = t_end[k][r][j];
            }
        if (k > 0) {
            int64_t prev_hi = -1;
            for (int r = 0; r < P; r++)
                for (int j = 0; j < PER; j++)
                    if (t_end[k - 1][r][j] > prev_hi) prev_hi = t_end[k - 1][r][j];
            CHECK(lo >= prev_hi, "a task after fence %d started %.3f ms before the last task before it ended", k - 1,
                  (double)(prev_hi - lo) / 1e6);
        }
        if (!nowait && k < NPH - 1)
            CHECK(ret[k] >= hi, "tamm_barrier after phase %d returned %.3f ms before the phase ended on every rank", k,
                  (double)(hi - ret[k]) / 1e6);
    }
    const char *seq = getenv("TAMM_SEQUENTIAL");
    if (nowait && !(seq && !strcmp(seq, "1")))
        CHECK(sub1 < first_end0, "the submitting thread was blocked: it submitted the whole program in %.3f ms, "
              "after the first slow task of phase 0 had ended (%.3f ms after submission began)",
              (double)(sub1 - sub0) / 1e6, (double)(first_end0 - sub0) / 1e6);

    int all[2] = { failures, checks };
#ifdef TAMM_XFENCE_MPI
    if (P > 1) MPI_Allreduce(MPI_IN_PLACE, all, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
#endif
    int rc = tamm_finalize();
    if (me == 0)
        printf("exec fence (%s, %d rank%s): %d checks, %d failures, submission %.3f ms\n", mode, P, P == 1 ? "" : "s",
               all[1], all[0], (double)(sub1 - sub0) / 1e6);
    return all[0] || rc ? 1 : 0;
}
