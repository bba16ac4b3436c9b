/*
 * test_mpi_replicated.c — replicated tensors modified by a task on one rank
 * (issue 16 item 6; docs/runtime.md "Several MPI ranks", "Replicated
 * tensors"), at 1 to 4 ranks.
 *
 * Every rank holds a copy of every block of a replicated tensor.  A task that
 * runs on one rank (on(r), or the owner of a distributed block it writes
 * first) and writes, read-writes or accumulates into a replicated block makes
 * the other copies stale; every rank must see the new value at its next use:
 * a task on any rank reading the block, a top-level tamm_block, a gather, a
 * collective leaf, a task that runs on every rank.  Each rank keeps the
 * sequential oracle of every block (the program is the same on every rank);
 * reading tasks compare the block with the oracle's value at their
 * submission, passed in their arguments.
 *
 * Cases:
 *   1. a task on(r) writes R[b], for every r; then a task on every rank and
 *      a top-level tamm_block on every rank read it;
 *   2. accumulations into one block from several ranks (twice each, some
 *      read+accumulate), then reads on every rank; an accumulation by a task
 *      that runs on every rank (no on()) between them;
 *   3. chains write -> read -> readwrite -> read ... hopping over the ranks;
 *   4. a task whose first written block is distributed also writes a
 *      replicated block (runs on the distributed block's owner);
 *   5. gather of the replicated tensor, scatter then reads on one rank,
 *      a collective leaf reading its rank's copy;
 *   7. (distributed tensors) a collective task reading blocks of D into
 *      which tasks on several ranks accumulated: the leaves see the sums;
 *   6. random: 600 operations (writes, readwrites, accumulations and reads on
 *      random ranks, tasks on every rank, top-level tamm_block, waits) over
 *      a few blocks, same seed on every rank (argv[1], default 12345),
 *      checked against the oracle.
 * Every rank checks; failures are summed over the ranks.
 */
#include <tamm.h>
#include <mpi.h>

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NB 6 /* blocks of R */
#define TS 5 /* elements per block */

static int failures, checks;
static atomic_int task_fail, task_checks;
#define CHECK(c, ...) do { checks++; if (!(c)) { failures++; fprintf(stderr, "rank %d: FAIL %s:%d: %s: ", tamm_rank(), __FILE__, __LINE__, #c); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static int64_t ref[NB][TS]; /* the sequential oracle */
static int P, me;

static tamm_ref ref1(tamm_tensor *T, unsigned mode, long i)
{
    tamm_ref r;
    memset(&r, 0, sizeof r);
    r.tensor = T;
    r.nidx = 1;
    r.idx[0] = i;
    r.mode = mode;
    return r;
}

static int submit(tamm_fn fn, const void *args, size_t asz, const tamm_ref *refs, int n, int rank, int coll,
                  const char *label)
{
    tamm_task t;
    memset(&t, 0, sizeof t);
    t.cpu = fn;
    t.args = args;
    t.args_size = asz;
    t.refs = refs;
    t.nrefs = n;
    t.rank = rank;
    t.label = label;
    t.file = __FILE__;
    t.line = __LINE__;
    tamm_task_opts o;
    memset(&o, 0, sizeof o);
    o.collective = coll;
    int rc = tamm_submit_ex(NULL, &t, &o);
    CHECK(rc == TAMM_OK, "submit '%s' on rank %d: %s", label, rank, tamm_strerror(rc));
    return rc;
}

/* ---- task bodies: args carry the block, a value, the expected contents ---- */
typedef struct {
    tamm_tensor *R, *D;
    long b, d;
    int64_t v;
    int64_t want[TS];
    int rank;   /* where it must run (-1: anywhere) */
} args_t;

static void where(const args_t *a, const char *what)
{
    if (a->rank >= 0 && a->rank != tamm_rank()) {
        fprintf(stderr, "rank %d: %s of R[%ld] meant for rank %d\n", tamm_rank(), what, a->b, a->rank);
        atomic_fetch_add(&task_fail, 1);
    }
}

static void compare(const int64_t *p, const args_t *a, const char *what)
{
    atomic_fetch_add(&task_checks, 1);
    for (int e = 0; e < TS; e++)
        if (p[e] != a->want[e]) {
            fprintf(stderr, "rank %d: FAIL %s of R[%ld]: element %d is %lld, expected %lld\n", tamm_rank(), what, a->b,
                    e, (long long)p[e], (long long)a->want[e]);
            atomic_fetch_add(&task_fail, 1);
            return;
        }
}

static void t_write(tamm_ctx *ctx, void *va)
{
    args_t *a = va;
    where(a, "write");
    long i[1] = { a->b };
    int64_t *p = tamm_get_buf_write(ctx, a->R, i);
    for (int e = 0; e < TS; e++) p[e] = a->v + e;
    tamm_release_put(ctx, p);
}
static void t_readwrite(tamm_ctx *ctx, void *va)
{
    args_t *a = va;
    where(a, "readwrite");
    long i[1] = { a->b };
    int64_t *p = tamm_get_buf_readwrite(ctx, a->R, i);
    compare(p, a, "readwrite");
    for (int e = 0; e < TS; e++) p[e] = p[e] * 3 + a->v;
    tamm_release_put(ctx, p);
}
static void t_accum(tamm_ctx *ctx, void *va)
{
    args_t *a = va;
    where(a, "accumulation");
    long i[1] = { a->b };
    int64_t *p = tamm_get_buf_accum(ctx, a->R, i);
    for (int e = 0; e < TS; e++) p[e] += a->v * (e + 1);
    tamm_release_add(ctx, p);
}
static void t_read(tamm_ctx *ctx, void *va)
{
    args_t *a = va;
    where(a, "read");
    long i[1] = { a->b };
    const int64_t *p = tamm_get_buf_read(ctx, a->R, i);
    compare(p, a, "read");
    tamm_release_put(ctx, (void *)p);
}
/* read+accumulate: reads the block (the value before this task), adds */
static void t_readacc(tamm_ctx *ctx, void *va)
{
    args_t *a = va;
    where(a, "read+accumulate");
    (void)ctx;
    int64_t *p = tamm_block(a->R, a->b); /* readwrite under read+accumulate */
    compare(p, a, "read+accumulate");
    for (int e = 0; e < TS; e++) p[e] += a->v;
}
/* writes D[d] (first: the task runs on its owner) and R[b] */
static void t_write_both(tamm_ctx *ctx, void *va)
{
    args_t *a = va;
    where(a, "write of D and R");
    long i[1] = { a->b }, j[1] = { a->d };
    int64_t *q = tamm_get_buf_write(ctx, a->D, j);
    int64_t *p = tamm_get_buf_write(ctx, a->R, i);
    for (int e = 0; e < TS; e++) {
        p[e] = a->v - e;
        q[e] = a->v + 1000 * e;
    }
    tamm_release_put(ctx, p);
    tamm_release_put(ctx, q);
}
/* a collective leaf: every rank checks its own copy */
static void t_coll_read(tamm_ctx *ctx, void *va)
{
    args_t *a = va;
    long i[1] = { a->b };
    const int64_t *p = tamm_get_buf_read(ctx, a->R, i);
    compare(p, a, "collective read");
    tamm_release_put(ctx, (void *)p);
}

/* a collective leaf: the sum of the blocks of D its rank owns, summed over the ranks */
typedef struct { tamm_tensor *D; int64_t want; } dsum_args;
static void t_coll_dsum(tamm_ctx *ctx, void *va)
{
    dsum_args *a = va;
    int64_t local = 0, total;
    for (long d = 0; d < NB; d++) {
        long i[1] = { d };
        if (tamm_block_owner(a->D, i) != tamm_rank()) continue;
        const int64_t *p = tamm_get_buf_read(ctx, a->D, i);
        for (int e = 0; e < TS; e++) local += p[e];
        tamm_release_put(ctx, (void *)p);
    }
    total = local;
    void *comm = tamm_comm(ctx);
    if (comm) MPI_Allreduce(&local, &total, 1, MPI_INT64_T, MPI_SUM, *(MPI_Comm *)comm);
    atomic_fetch_add(&task_checks, 1);
    if (total != a->want) {
        fprintf(stderr, "rank %d: FAIL collective sum of D: %lld, expected %lld\n", tamm_rank(), (long long)total,
                (long long)a->want);
        atomic_fetch_add(&task_fail, 1);
    }
}

/* ---- operations: each updates the oracle as the sequential program would ---- */
static tamm_tensor *R, *D;

static args_t mk(long b, int64_t v, int rank)
{
    args_t a;
    memset(&a, 0, sizeof a);
    a.R = R;
    a.D = D;
    a.b = b;
    a.v = v;
    a.rank = rank;
    memcpy(a.want, ref[b], sizeof a.want);
    return a;
}

static void op_write(long b, int64_t v, int rank)
{
    args_t a = mk(b, v, rank);
    tamm_ref r = ref1(R, TAMM_WRITE, b);
    submit(t_write, &a, sizeof a, &r, 1, rank, 0, "write");
    for (int e = 0; e < TS; e++) ref[b][e] = v + e;
}
static void op_readwrite(long b, int64_t v, int rank)
{
    args_t a = mk(b, v, rank);
    tamm_ref r = ref1(R, TAMM_READWRITE, b);
    submit(t_readwrite, &a, sizeof a, &r, 1, rank, 0, "readwrite");
    for (int e = 0; e < TS; e++) ref[b][e] = ref[b][e] * 3 + v;
}
static void op_accum(long b, int64_t v, int rank)
{
    args_t a = mk(b, v, rank);
    tamm_ref r = ref1(R, TAMM_ACCUM, b);
    submit(t_accum, &a, sizeof a, &r, 1, rank, 0, "accumulate");
    for (int e = 0; e < TS; e++) ref[b][e] += v * (e + 1);
}
static void op_readacc(long b, int64_t v, int rank)
{
    args_t a = mk(b, v, rank);
    tamm_ref r = ref1(R, TAMM_READ | TAMM_ACCUM, b);
    submit(t_readacc, &a, sizeof a, &r, 1, rank, 0, "read+accumulate");
    for (int e = 0; e < TS; e++) ref[b][e] += v;
}
static void op_read(long b, int rank)
{
    args_t a = mk(b, 0, rank);
    tamm_ref r = ref1(R, TAMM_READ, b);
    submit(t_read, &a, sizeof a, &r, 1, rank, 0, "read");
}
static void top_read(long b, const char *what)
{
    const int64_t *p = tamm_block(R, b);
    CHECK(p != NULL, "tamm_block(R, %ld)", b);
    if (!p) return;
    for (int e = 0; e < TS; e++)
        CHECK(p[e] == ref[b][e], "%s: top-level R[%ld][%d] = %lld, expected %lld", what, b, e, (long long)p[e],
              (long long)ref[b][e]);
}
static void read_everywhere(long b, const char *what)
{
    for (int q = 0; q < P; q++) op_read(b, q);
    top_read(b, what);
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK) return 2;
    me = tamm_rank();
    P = tamm_nranks();
    size_t dims[1] = { NB * TS }, tile[1] = { TS };
    tamm_tensor_opts ro;
    memset(&ro, 0, sizeof ro);
    ro.dist = TAMM_DIST_REPLICATED;
    R = tamm_tensor_create_ex("R", TAMM_I64, 1, dims, tile, &ro);
    D = tamm_tensor_create("D", TAMM_I64, 1, dims, tile);
    if (!R || !D) return 2;

    /* 1. a writer on each rank, then readers on every rank and the top level */
    for (int r = 0; r < P; r++) {
        long b = r % NB;
        op_write(b, 100 * (r + 1), r);
        read_everywhere(b, "write on one rank");
        op_write(b, 100 * (r + 1) + 7, (r + 1) % P); /* a second writer, elsewhere */
        op_read(b, r);
        top_read(b, "second write");
    }

    /* 2. accumulations from several ranks (one run), read on every rank */
    for (int round = 0; round < 3; round++) {
        long b = (2 + round) % NB;
        op_write(b, round, round % P);
        for (int r = 0; r < P; r++) {
            op_accum(b, 10 * r + round + 1, r);
            op_accum(b, 20 * r + round + 2, (r + round) % P);
        }
        if (round == 1) { /* an accumulation on every rank (each adds to its own, up-to-date copy) */
            args_t a = mk(b, 5, -1);
            tamm_ref rr = ref1(R, TAMM_ACCUM, b);
            submit(t_accum, &a, sizeof a, &rr, 1, -1, 0, "accumulate everywhere");
            for (int e = 0; e < TS; e++) ref[b][e] += 5 * (e + 1);
            for (int r = 0; r < P; r++) op_accum(b, 3 + r, (r + 1) % P);
        }
        if (round == 2) op_readacc(b, 11, P - 1);
        read_everywhere(b, "accumulations");
    }
    /* accumulations closed by tamm_wait_all, then read everywhere */
    for (int r = 0; r < P; r++) op_accum(5, r + 1, r);
    CHECK(tamm_wait_all() == TAMM_OK, "wait_all");
    read_everywhere(5, "accumulations and wait_all");

    /* 3. chains hopping over the ranks */
    for (int c = 0; c < 2; c++) {
        long b = c;
        op_write(b, 7 + c, c % P);
        for (int k = 1; k <= 2 * P + 1; k++) {
            op_read(b, (c + k) % P);
            op_readwrite(b, k, (c + k + 1) % P);
        }
        op_read(b, c % P);
        top_read(b, "chain");
    }

    /* 4. a task writing a distributed block first and a replicated one */
    for (long d = 0; d < NB; d++) {
        long b = (d + 1) % NB;
        long di[1] = { d };
        int ow = tamm_block_owner(D, di);
        args_t a = mk(b, 500 + d, ow);
        a.d = d;
        tamm_ref rr[2] = { ref1(D, TAMM_WRITE, d), ref1(R, TAMM_WRITE, b) };
        submit(t_write_both, &a, sizeof a, rr, 2, -1, 0, "write D and R");
        for (int e = 0; e < TS; e++) ref[b][e] = 500 + d - e;
        op_read(b, (int)((d + 2) % P));
    }
    for (long b = 0; b < NB; b++) top_read(b, "after writes of D and R");
    {
        const int64_t *q = tamm_block(D, 3);
        CHECK(q && q[2] == 503 + 2000, "D[3][2] = %lld", q ? (long long)q[2] : -1LL);
    }

    /* 5. gather, scatter, a collective leaf, a task on every rank */
    op_readwrite(4, 9, P - 1);
    op_accum(3, 4, 0);
    op_accum(3, 6, P - 1);
    {
        int64_t all[NB * TS];
        memset(all, 0x55, sizeof all);
        CHECK(tamm_tensor_gather(R, all) == TAMM_OK, "gather");
        int bad = 0;
        for (int b = 0; b < NB; b++)
            for (int e = 0; e < TS; e++) bad += all[b * TS + e] != ref[b][e];
        CHECK(bad == 0, "gather of R: %d elements differ", bad);
        for (int b = 0; b < NB; b++)
            for (int e = 0; e < TS; e++) ref[b][e] = all[b * TS + e] = 3 * b + e;
        CHECK(tamm_tensor_scatter(R, all) == TAMM_OK, "scatter");
        op_read(2, P - 1);
        op_readwrite(2, 1, P - 1);
        args_t a = mk(2, 0, -1);
        tamm_ref rr = ref1(R, TAMM_READ, 2);
        submit(t_coll_read, &a, sizeof a, &rr, 1, -1, 1, "collective read");
        op_write(1, 77, P - 1);
        a = mk(1, 2, -1); /* no on(): R[1] is its first modified block, so it runs on every rank */
        rr = ref1(R, TAMM_READWRITE, 1);
        submit(t_readwrite, &a, sizeof a, &rr, 1, -1, 0, "readwrite everywhere");
        for (int e = 0; e < TS; e++) ref[1][e] = ref[1][e] * 3 + 2;
        read_everywhere(1, "readwrite everywhere");
        read_everywhere(2, "collective");
    }

    /* 7. accumulations into D from every rank, then a collective reading D */
    {
        int64_t dref[NB][TS];
        int64_t all[NB * TS];
        CHECK(tamm_tensor_gather(D, all) == TAMM_OK, "gather D");
        memcpy(dref, all, sizeof dref);
        for (long d = 0; d < NB; d++)
            for (int r = 0; r < P; r++) {
                args_t a = mk(0, 10 * r + d + 1, r);
                a.R = D;
                a.b = d;
                tamm_ref rr = ref1(D, TAMM_ACCUM, d);
                submit(t_accum, &a, sizeof a, &rr, 1, r, 0, "accumulate into D");
                for (int e = 0; e < TS; e++) dref[d][e] += a.v * (e + 1);
            }
        dsum_args ds = { D, 0 };
        for (long d = 0; d < NB; d++)
            for (int e = 0; e < TS; e++) ds.want += dref[d][e];
        tamm_ref rr;
        memset(&rr, 0, sizeof rr);
        rr.tensor = D;
        rr.mode = TAMM_READ;
        submit(t_coll_dsum, &ds, sizeof ds, &rr, 1, -1, 1, "collective sum of D");
        const int64_t *q = tamm_block(D, 1);
        CHECK(q && q[4] == dref[1][4], "D[1][4] = %lld, expected %lld", q ? (long long)q[4] : -1LL, (long long)dref[1][4]);
    }

    /* 6. random operations */
    rng ^= argc > 1 ? strtoull(argv[1], NULL, 10) : 12345; /* a seed: test_mpi_replicated SEED */
    for (int k = 0; k < 600; k++) {
        uint64_t x = next();
        long b = (long)(x % 3); /* few blocks: long chains */
        int r = (int)((x >> 8) % (uint64_t)P);
        int64_t v = (int64_t)((x >> 16) % 97);
        switch ((x >> 32) % 16) {
        case 0: case 1: op_write(b, v, r); break;
        case 2: case 3: op_readwrite(b, v % 5, r); break;
        case 4: case 5: case 6: op_accum(b, v, r); break;
        case 7: op_readacc(b, v, r); break;
        case 8: case 9: case 10: op_read(b, r); break;
        case 11: { /* every rank */
            args_t a = mk(b, v % 7, -1);
            tamm_ref rr = ref1(R, TAMM_READWRITE, b);
            submit(t_readwrite, &a, sizeof a, &rr, 1, -1, 0, "readwrite everywhere");
            for (int e = 0; e < TS; e++) ref[b][e] = ref[b][e] * 3 + v % 7;
            break;
        }
        case 12: top_read(b, "random"); break;
        case 13: if ((x >> 40) % 8 == 0) CHECK(tamm_wait_all() == TAMM_OK, "wait_all"); break;
        default: op_read(b, (r + 1) % P); break;
        }
        for (int bb = 0; bb < NB; bb++) /* keep the values small: no overflow */
            for (int e = 0; e < TS; e++)
                if (ref[bb][e] > (1LL << 40) || ref[bb][e] < -(1LL << 40)) {
                    op_write(bb, e, r);
                    break;
                }
    }
    for (long b = 0; b < NB; b++) read_everywhere(b, "end of the random operations");

    CHECK(tamm_wait_all() == TAMM_OK, "wait_all");
    tamm_tensor_destroy(R);
    tamm_tensor_destroy(D);
    CHECK(tamm_finalize() == TAMM_OK, "finalize");
    failures += atomic_load(&task_fail);
    checks += atomic_load(&task_checks);

    int tot = failures;
    if (P > 1) MPI_Allreduce(&failures, &tot, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("rank %d of %d: %d checks, %d failed here, %d failed on all ranks\n", me, P, checks, failures, tot);
    return tot ? 1 : 0;
}
