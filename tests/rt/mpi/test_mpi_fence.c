/*
 * test_mpi_fence.c — fences (wait / signal, tamm_fence_wait) across ranks
 * (docs/runtime.md "Several MPI ranks", "Fences"), at 1 to 4 ranks.
 *
 * The ranks share one machine (mpirun --oversubscribe), so CLOCK_REALTIME is
 * one clock for all of them: a signalling task sleeps, then records the time
 * it ends in a block it writes; a waiting task records the time it starts in
 * another block, with no data dependence on the first.  After the run every
 * rank gathers the times and checks start >= end.  Without cross-rank fences
 * a waiter on another rank starts at once, long before the signaller ends.
 *
 * Cases (task placement by on(r)):
 *   1. signaller on rank 0, then a waiter on every rank;
 *   2. a waiter submitted before its signaller (on the next rank);
 *   3. signallers on every rank, one waiter on the last rank;
 *   4. tamm_fence_wait at top level, on every rank;
 *   5. the same fence again (re-armed by a new signaller on rank 1);
 *   6. signaller and waiter are collective tasks / a replicated write (run
 *      on every rank).
 * Every rank checks; failures are summed over the ranks.
 */
#include <tamm.h>
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int failures, checks;
#define CHECK(c, ...) do { checks++; if (!(c)) { failures++; fprintf(stderr, "rank %d: FAIL %s:%d: %s: ", tamm_rank(), __FILE__, __LINE__, #c); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* T: one element per slot; slot k is written by one task only. */
typedef struct { tamm_tensor *T; long slot; int sleep_ms; int at_end; } stamp_args;
static void stamp(tamm_ctx *ctx, void *va)
{
    stamp_args *a = va;
    int64_t t0 = now_ns();
    if (a->sleep_ms) usleep((useconds_t)a->sleep_ms * 1000);
    long idx[1] = { a->slot };
    int64_t *p = tamm_get_buf_write(ctx, a->T, idx);
    p[0] = a->at_end ? now_ns() : t0;
    tamm_release_put(ctx, p);
}

static int sub(tamm_tensor *T, long slot, int sleep_ms, int at_end, int rank, tamm_fence *wait, tamm_fence *signal,
               int collective, const char *label)
{
    stamp_args a = { T, slot, sleep_ms, at_end };
    tamm_ref r;
    memset(&r, 0, sizeof r);
    r.tensor = T;
    r.nidx = 1;
    r.idx[0] = slot;
    r.mode = TAMM_WRITE;
    tamm_task t;
    memset(&t, 0, sizeof t);
    t.cpu = stamp;
    t.args = &a;
    t.args_size = sizeof a;
    t.refs = &r;
    t.nrefs = 1;
    t.rank = rank;
    t.label = label;
    t.file = __FILE__;
    t.line = __LINE__;
    tamm_task_opts o;
    memset(&o, 0, sizeof o);
    if (wait) { o.wait = &wait; o.nwait = 1; }
    if (signal) { o.signal = &signal; o.nsignal = 1; }
    o.collective = collective;
    return tamm_submit_ex(NULL, &t, &o);
}

/* a collective leaf stamps the slots its rank owns */
typedef struct { tamm_tensor *T; long lo, n; int sleep_ms, at_end; } coll_args;
static void coll_stamp(tamm_ctx *ctx, void *va)
{
    coll_args *a = va;
    int64_t t0 = now_ns();
    if (a->sleep_ms) usleep((useconds_t)a->sleep_ms * 1000);
    for (long k = a->lo; k < a->lo + a->n; k++) {
        long idx[1] = { k };
        if (tamm_block_owner(a->T, idx) != tamm_rank()) continue;
        int64_t *p = tamm_get_buf_write(ctx, a->T, idx);
        p[0] = a->at_end ? now_ns() : t0;
        tamm_release_put(ctx, p);
    }
}
static int sub_coll(tamm_tensor *T, long lo, long n, int sleep_ms, int at_end, tamm_fence *wait, tamm_fence *signal)
{
    coll_args a = { T, lo, n, sleep_ms, at_end };
    tamm_ref r[16]; /* its own slots only: no data dependence on other tasks */
    if (n > 16) abort();
    for (long k = 0; k < n; k++) {
        memset(&r[k], 0, sizeof r[k]);
        r[k].tensor = T;
        r[k].nidx = 1;
        r[k].idx[0] = lo + k;
        r[k].mode = TAMM_WRITE;
    }
    tamm_task t;
    memset(&t, 0, sizeof t);
    t.cpu = coll_stamp;
    t.args = &a;
    t.args_size = sizeof a;
    t.refs = r;
    t.nrefs = (int)n;
    t.rank = -1;
    t.label = "collective";
    t.file = __FILE__;
    t.line = __LINE__;
    tamm_task_opts o;
    memset(&o, 0, sizeof o);
    if (wait) { o.wait = &wait; o.nwait = 1; }
    if (signal) { o.signal = &signal; o.nsignal = 1; }
    o.collective = 1;
    return tamm_submit_ex(NULL, &t, &o);
}

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK) return 2;
    int me = tamm_rank(), P = tamm_nranks();
    const int SLOW = 150; /* ms a signaller sleeps */
    enum { NSLOT = 64 };
    size_t dim = NSLOT, tile = 1;
    tamm_tensor *T = tamm_tensor_create("stamps", TAMM_I64, 1, &dim, &tile);
    int64_t all[NSLOT];
    long s = 0;

    /* 1. signaller on rank 0, a waiter on every rank */
    tamm_fence *f1 = tamm_fence_create();
    long sig1 = s++;
    CHECK(sub(T, sig1, SLOW, 1, 0, NULL, f1, 0, "signaller 1") == TAMM_OK, "submit");
    long w1 = s;
    for (int r = 0; r < P; r++) CHECK(sub(T, s++, 0, 0, r, f1, NULL, 0, "waiter 1") == TAMM_OK, "submit");

    /* 2. the waiter first, on rank 1 % P; its signaller later on rank 0 */
    tamm_fence *f2 = tamm_fence_create();
    long w2 = s++, sig2 = s++;
    CHECK(sub(T, w2, 0, 0, 1 % P, f2, NULL, 0, "early waiter 2") == TAMM_OK, "submit");
    CHECK(sub(T, sig2, SLOW, 1, 0, NULL, f2, 0, "late signaller 2") == TAMM_OK, "submit");

    /* 3. signallers on every rank (rank r sleeps longer), a waiter on the last rank */
    tamm_fence *f3 = tamm_fence_create();
    long sig3 = s;
    for (int r = 0; r < P; r++) CHECK(sub(T, s++, SLOW / 2 + 40 * r, 1, r, NULL, f3, 0, "signaller 3") == TAMM_OK, "submit");
    long w3 = s++;
    CHECK(sub(T, w3, 0, 0, P - 1, f3, NULL, 0, "waiter 3") == TAMM_OK, "submit");

    /* 4. tamm_fence_wait at top level: a signaller on the last rank */
    tamm_fence *f4 = tamm_fence_create();
    long sig4 = s++;
    CHECK(sub(T, sig4, SLOW, 1, P - 1, NULL, f4, 0, "signaller 4") == TAMM_OK, "submit");
    CHECK(tamm_fence_wait(f4) == TAMM_OK, "tamm_fence_wait");
    int64_t after4 = now_ns();

    /* 5. f1 again: a new signaller on rank 1 % P re-arms it; a waiter on rank 0 */
    long sig5 = s++;
    CHECK(sub(T, sig5, SLOW, 1, 1 % P, NULL, f1, 0, "signaller 5") == TAMM_OK, "submit");
    long w5 = s++;
    CHECK(sub(T, w5, 0, 0, 0, f1, NULL, 0, "waiter 5") == TAMM_OK, "submit");

    /* 6. a collective signaller (every rank sleeps, stamps its own slots) and
     *    an ordinary waiter on every rank; then an ordinary signaller and a
     *    collective waiter */
    tamm_fence *f6 = tamm_fence_create();
    long sig6 = s;
    s += P;
    CHECK(sub_coll(T, sig6, P, SLOW, 1, NULL, f6) == TAMM_OK, "submit");
    long w6 = s;
    for (int r = 0; r < P; r++) CHECK(sub(T, s++, 0, 0, r, f6, NULL, 0, "waiter 6") == TAMM_OK, "submit");
    tamm_fence *f7 = tamm_fence_create();
    long sig7 = s++;
    CHECK(sub(T, sig7, SLOW, 1, P - 1, NULL, f7, 0, "signaller 7") == TAMM_OK, "submit");
    long w7 = s;
    s += P;
    CHECK(sub_coll(T, w7, P, 0, 0, f7, NULL) == TAMM_OK, "submit");
    if (s > NSLOT) { fprintf(stderr, "test_mpi_fence: %ld slots needed, %d made\n", s, NSLOT); return 2; }

    CHECK(tamm_wait_all() == TAMM_OK, "wait_all");
    CHECK(tamm_tensor_gather(T, all) == TAMM_OK, "gather");

    CHECK(after4 >= all[sig4], "tamm_fence_wait returned %.1f ms before the signaller on rank %d ended",
          (double)(all[sig4] - after4) / 1e6, P - 1);
    for (int r = 0; r < P; r++)
        CHECK(all[w1 + r] >= all[sig1], "case 1: the waiter on rank %d started %.1f ms before the signaller on rank 0 ended",
              r, (double)(all[sig1] - all[w1 + r]) / 1e6);
    CHECK(all[w2] >= all[sig2], "case 2: the early waiter on rank %d started %.1f ms before its signaller ended", 1 % P,
          (double)(all[sig2] - all[w2]) / 1e6);
    for (int r = 0; r < P; r++)
        CHECK(all[w3] >= all[sig3 + r], "case 3: the waiter on rank %d started %.1f ms before the signaller on rank %d ended",
              P - 1, (double)(all[sig3 + r] - all[w3]) / 1e6, r);
    CHECK(all[w5] >= all[sig5], "case 5: the waiter on rank 0 started %.1f ms before the re-arming signaller on rank %d ended",
          (double)(all[sig5] - all[w5]) / 1e6, 1 % P);
    for (int r = 0; r < P; r++)
        for (int q = 0; q < P; q++)
            CHECK(all[w6 + r] >= all[sig6 + q], "case 6: the waiter on rank %d started %.1f ms before collective slot %d ended",
                  r, (double)(all[sig6 + q] - all[w6 + r]) / 1e6, q);
    for (int q = 0; q < P; q++)
        CHECK(all[w7 + q] >= all[sig7], "case 7: collective slot %d started %.1f ms before the signaller on rank %d ended",
              q, (double)(all[sig7] - all[w7 + q]) / 1e6, P - 1);
    for (long k = 0; k < s; k++) CHECK(all[k] != 0, "slot %ld was never stamped", k);

    CHECK(tamm_fence_destroy(f1) == TAMM_OK, "destroy");
    CHECK(tamm_fence_destroy(f2) == TAMM_OK, "destroy");
    CHECK(tamm_fence_destroy(f3) == TAMM_OK, "destroy");
    CHECK(tamm_fence_destroy(f4) == TAMM_OK, "destroy");
    CHECK(tamm_fence_destroy(f6) == TAMM_OK, "destroy");
    CHECK(tamm_fence_destroy(f7) == TAMM_OK, "destroy");
    tamm_tensor_destroy(T);
    CHECK(tamm_finalize() == TAMM_OK, "finalize");

    int tot = failures;
    if (P > 1) MPI_Allreduce(&failures, &tot, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("rank %d of %d: %d checks, %d failed here, %d failed on all ranks\n", me, P, checks, failures, tot);
    return tot ? 1 : 0;
}
