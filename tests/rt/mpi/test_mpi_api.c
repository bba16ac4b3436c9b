/*
 * test_mpi_api.c — the MPI surface of libtammrt on every rank of a run
 * (tests/rt/mpi/CMakeLists.txt: 1 to 4 ranks):
 *   - block owners: block-cyclic over the automatic grid (2-D: pr x pc),
 *     TAMM_DIST_LOCAL, an explicit grid, replicated;
 *   - scatter / gather round trip, with owner-computes tasks between;
 *   - tamm_block outside tasks on a block another rank owns: a synchronised
 *     copy, and writing it changes nothing elsewhere;
 *   - accumulations from every rank (on(r)) into one block, summed at the owner;
 *   - a task writing a block it does not own (on(r)): put back to the owner;
 *   - collective tasks: every rank's leaf sums its own blocks, MPI_Allreduce
 *     on tamm_comm(ctx), writes a replicated tensor; several in a row never
 *     overlap, and ordinary tasks interleave with them;
 *   - on(r) with r out of range is a clear error.
 * Every rank checks; the failures are summed over the ranks.
 */
#include <tamm.h>
#include <mpi.h>

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures, checks;
#define CHECK(c, ...) do { checks++; if (!(c)) { failures++; fprintf(stderr, "rank %d: FAIL %s:%d: %s: ", tamm_rank(), __FILE__, __LINE__, #c); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static tamm_ref ref1(tamm_tensor *T, unsigned mode, long i) { tamm_ref r; memset(&r, 0, sizeof r); r.tensor = T; r.nidx = 1; r.idx[0] = i; r.mode = mode; return r; }
static tamm_ref ref2(tamm_tensor *T, unsigned mode, long i, long j) { tamm_ref r = ref1(T, mode, i); r.nidx = 2; r.idx[1] = j; return r; }
static tamm_ref refall(tamm_tensor *T, unsigned mode) { tamm_ref r; memset(&r, 0, sizeof r); r.tensor = T; r.mode = mode; return r; }

static int submit(tamm_fn fn, const void *args, size_t asz, const tamm_ref *refs, int n, int rank, int collective, const char *label)
{
    tamm_task t;
    memset(&t, 0, sizeof t);
    t.cpu = fn; t.args = args; t.args_size = asz; t.refs = refs; t.nrefs = n; t.rank = rank; t.label = label;
    t.file = __FILE__; t.line = __LINE__;
    tamm_task_opts o;
    memset(&o, 0, sizeof o);
    o.collective = collective;
    return tamm_submit_ex(NULL, &t, &o);
}

/* ---- 2-D doubling: B[i][j] = 2 * A[i][j] + rank-independent constant ---- */
typedef struct { tamm_tensor *A, *B; long i, j; } ij_args;
static void twice(tamm_ctx *ctx, void *va)
{
    ij_args *a = va;
    long idx[2] = { a->i, a->j };
    const int64_t *x = tamm_get_buf_read(ctx, a->A, idx);
    int64_t *y = tamm_get_buf_write(ctx, a->B, idx);
    size_t n = tamm_block_elems(a->A, idx);
    for (size_t k = 0; k < n; k++) y[k] = 2 * x[k] + 7;
    tamm_release_put(ctx, (void *)x);
    tamm_release_put(ctx, y);
    if (tamm_block_owner(a->B, idx) != tamm_rank()) fprintf(stderr, "rank %d ran a task whose first written block is on rank %d\n", tamm_rank(), tamm_block_owner(a->B, idx)), abort();
}

/* ---- accumulation from a chosen rank ---- */
typedef struct { tamm_tensor *V; long i; int64_t add; } acc_args;
static void acc_body(tamm_ctx *ctx, void *va)
{
    acc_args *a = va;
    long idx[1] = { a->i };
    int64_t *p = tamm_get_buf_accum(ctx, a->V, idx);
    size_t n = tamm_block_elems(a->V, idx);
    for (size_t k = 0; k < n; k++) p[k] += a->add + (int64_t)k;
    tamm_release_add(ctx, p);
}
static void rw_body(tamm_ctx *ctx, void *va)
{
    acc_args *a = va;
    long idx[1] = { a->i };
    int64_t *p = tamm_get_buf_readwrite(ctx, a->V, idx);
    size_t n = tamm_block_elems(a->V, idx);
    for (size_t k = 0; k < n; k++) p[k] = p[k] * 3 + a->add;
    tamm_release_put(ctx, p);
}

/* ---- collectives ---- */
static atomic_int inside;
typedef struct { tamm_tensor *A, *S; long nb0, nb1; } coll_args;
static void coll_sum(tamm_ctx *ctx, void *va)
{
    coll_args *a = va;
    if (atomic_fetch_add(&inside, 1) != 0) fprintf(stderr, "rank %d: two collective tasks overlap\n", tamm_rank()), abort();
    int64_t local = 0;
    for (long i = 0; i < a->nb0; i++)
        for (long j = 0; j < a->nb1; j++) {
            long idx[2] = { i, j };
            if (tamm_block_owner(a->A, idx) != tamm_rank()) continue;
            const int64_t *x = tamm_get_buf_read(ctx, a->A, idx);
            size_t n = tamm_block_elems(a->A, idx);
            for (size_t k = 0; k < n; k++) local += x[k];
            tamm_release_put(ctx, (void *)x);
        }
    int64_t total = local;
    void *comm = tamm_comm(ctx);
    if (comm) MPI_Allreduce(&local, &total, 1, MPI_INT64_T, MPI_SUM, *(MPI_Comm *)comm);
    else if (tamm_nranks() > 1) fprintf(stderr, "rank %d: tamm_comm is NULL in a collective task\n", tamm_rank()), abort();
    long z[1] = { 0 };
    int64_t *s = tamm_get_buf_readwrite(ctx, a->S, z);
    s[0] = (int64_t)((uint64_t)s[0] * 1000003u + (uint64_t)total); /* wraps, no UB */
    tamm_release_put(ctx, s);
    usleep(2000);
    atomic_fetch_sub(&inside, 1);
}
/* collectives with no block in common never run at once (docs/runtime.md "Collective tasks") */
static atomic_int coll_overlaps;
static void coll_indep(tamm_ctx *ctx, void *va)
{
    const long *k = va;
    if (atomic_fetch_add(&inside, 1) != 0) atomic_fetch_add(&coll_overlaps, 1);
    int64_t v = *k, tot = v;
    void *comm = tamm_comm(ctx);
    if (comm) MPI_Allreduce(&v, &tot, 1, MPI_INT64_T, MPI_SUM, *(MPI_Comm *)comm);
    usleep(20000); /* long enough for another worker to start a second one */
    atomic_fetch_sub(&inside, 1);
}
typedef struct { tamm_tensor *S, *V; } copy_args;
static void from_replicated(tamm_ctx *ctx, void *va)
{
    copy_args *a = va;
    long z[1] = { 0 };
    const int64_t *s = tamm_get_buf_read(ctx, a->S, z);
    int64_t *v = tamm_get_buf_write(ctx, a->V, z);
    size_t n = tamm_block_elems(a->V, z);
    for (size_t k = 0; k < n; k++) v[k] = s[0] + (int64_t)k;
    tamm_release_put(ctx, (void *)s);
    tamm_release_put(ctx, v);
}
static void nothing(tamm_ctx *ctx, void *va) { (void)ctx; (void)va; }

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK) return 2;
    int me = tamm_rank(), P = tamm_nranks();
    int flag = 0;
    MPI_Initialized(&flag);
    CHECK(P == 1 || flag, "MPI must be initialised by tamm_init under mpirun");

    /* owners */
    size_t d2[2] = { 37, 29 }, t2[2] = { 5, 4 };
    tamm_tensor *A = tamm_tensor_create("A", TAMM_I64, 2, d2, t2);
    tamm_tensor *B = tamm_tensor_create("B", TAMM_I64, 2, d2, t2);
    long nb0 = tamm_tensor_nblocks(A, 0), nb1 = tamm_tensor_nblocks(A, 1);
    int pr = 1;
    for (int k = 1; k * k <= P; k++) if (P % k == 0) pr = k;
    int pc = P / pr;
    for (long i = 0; i < nb0; i++)
        for (long j = 0; j < nb1; j++) {
            long idx[2] = { i, j };
            int want = (int)(((i % pr) * pc + j % pc) % P);
            CHECK(tamm_block_owner(A, idx) == want, "A[%ld,%ld] on rank %d, expected %d (grid %dx%d)", i, j, tamm_block_owner(A, idx), want, pr, pc);
        }
    tamm_tensor_opts lo;
    memset(&lo, 0, sizeof lo);
    lo.dist = TAMM_DIST_LOCAL;
    lo.owner = P - 1;
    size_t d1[1] = { 23 }, t1[1] = { 4 };
    tamm_tensor *L = tamm_tensor_create_ex("L", TAMM_I64, 1, d1, t1, &lo);
    for (long i = 0; i < tamm_tensor_nblocks(L, 0); i++) { long idx[1] = { i }; CHECK(tamm_block_owner(L, idx) == P - 1, "L[%ld]", i); }
    tamm_tensor_opts go;
    memset(&go, 0, sizeof go);
    go.grid[0] = 1; go.grid[1] = P;
    tamm_tensor *G = tamm_tensor_create_ex("G", TAMM_I64, 2, d2, t2, &go);
    for (long j = 0; j < nb1; j++) { long idx[2] = { 3, j }; CHECK(tamm_block_owner(G, idx) == (int)(j % P), "G[3,%ld]", j); }
    tamm_tensor_opts ro;
    memset(&ro, 0, sizeof ro);
    ro.dist = TAMM_DIST_REPLICATED;
    size_t one = 1;
    tamm_tensor *S = tamm_tensor_create_ex("S", TAMM_I64, 1, &one, &one, &ro);
    { long z[1] = { 0 }; CHECK(tamm_block_owner(S, z) == me, "replicated owner"); }

    /* scatter, owner-computes tasks, gather */
    size_t nel = d2[0] * d2[1];
    int64_t *src = malloc(nel * sizeof *src), *dst = malloc(nel * sizeof *dst);
    for (size_t k = 0; k < nel; k++) src[k] = (int64_t)(k * 2654435761u % 100003);
    CHECK(tamm_tensor_scatter(A, src) == TAMM_OK, "scatter");
    for (long i = 0; i < nb0; i++)
        for (long j = 0; j < nb1; j++) {
            ij_args a = { A, B, i, j };
            tamm_ref r[2] = { ref2(B, TAMM_WRITE, i, j), ref2(A, TAMM_READ, i, j) };
            CHECK(submit(twice, &a, sizeof a, r, 2, -1, 0, "twice") == TAMM_OK, "submit");
        }
    memset(dst, 0x55, nel * sizeof *dst);
    CHECK(tamm_tensor_gather(B, dst) == TAMM_OK, "gather");
    int bad = 0;
    for (size_t k = 0; k < nel; k++) bad += dst[k] != 2 * src[k] + 7;
    CHECK(bad == 0, "%d elements of B differ", bad);

    /* tamm_block on every block: the same values on every rank; writes to a
     * copy (not the owner's) change nothing */
    bad = 0;
    for (long i = 0; i < nb0; i++)
        for (long j = 0; j < nb1; j++) {
            int64_t *p = tamm_block(B, i, j);
            long idx[2] = { i, j };
            size_t n = tamm_block_elems(B, idx), w = tamm_block_extent(B, 1, j);
            for (size_t k = 0; k < n; k++) {
                size_t gi = (size_t)i * t2[0] + k / w, gj = (size_t)j * t2[1] + k % w;
                bad += p[k] != 2 * src[gi * d2[1] + gj] + 7;
            }
            if (tamm_block_owner(B, idx) != me) p[0] = -1;   /* a copy: goes nowhere */
        }
    CHECK(bad == 0, "%d elements read through tamm_block differ", bad);
    memset(dst, 0, nel * sizeof *dst);
    CHECK(tamm_tensor_gather(B, dst) == TAMM_OK, "gather 2");
    bad = 0;
    for (size_t k = 0; k < nel; k++) bad += dst[k] != 2 * src[k] + 7;
    CHECK(bad == 0, "writing a copy from tamm_block changed B (%d elements)", bad);

    /* accumulations from every rank into L[1] (owned by P-1), then a
     * readwrite on rank 0 (a put back), repeated */
    int64_t expect[4] = { 0, 0, 0, 0 };
    for (int round = 0; round < 3; round++) {
        for (int r = 0; r < P; r++)
            for (int k = 0; k < 2; k++) {
                acc_args a = { L, 1, 100 * round + 10 * r + k };
                tamm_ref rf = ref1(L, TAMM_ACCUM, 1);
                CHECK(submit(acc_body, &a, sizeof a, &rf, 1, r, 0, "acc") == TAMM_OK, "acc");
                for (int e = 0; e < 4; e++) expect[e] += a.add + e;
            }
        acc_args a = { L, 1, round };
        tamm_ref rf = ref1(L, TAMM_READWRITE, 1);
        CHECK(submit(rw_body, &a, sizeof a, &rf, 1, 0, 0, "rw") == TAMM_OK, "rw");
        for (int e = 0; e < 4; e++) expect[e] = expect[e] * 3 + round;
    }
    const int64_t *l1 = tamm_block(L, 1);
    for (int e = 0; e < 4; e++) CHECK(l1[e] == expect[e], "L[1][%d] = %lld, expected %lld", e, (long long)l1[e], (long long)expect[e]);

    /* collectives, with ordinary tasks between them */
    for (int c = 0; c < 4; c++) {
        coll_args a = { A, S, nb0, nb1 };
        tamm_ref rf[2] = { refall(A, TAMM_READ), ref1(S, TAMM_READWRITE, 0) };
        CHECK(submit(coll_sum, &a, sizeof a, rf, 2, -1, 1, "collective") == TAMM_OK, "collective");
        tamm_ref z = ref1(L, TAMM_READ, 0);
        CHECK(submit(nothing, NULL, 0, &z, 1, -1, 0, "between") == TAMM_OK, "between");
    }
    {
        size_t dw[1] = { 6 }, tw[1] = { 1 };
        tamm_tensor *W = tamm_tensor_create("W", TAMM_I64, 1, dw, tw);
        for (long c = 0; c < 6; c++) {
            tamm_ref wr = ref1(W, TAMM_READWRITE, c);
            CHECK(submit(coll_indep, &c, sizeof c, &wr, 1, -1, 1, "independent collective") == TAMM_OK,
                  "independent collective");
        }
        CHECK(tamm_wait_all() == TAMM_OK, "wait for the independent collectives");
        CHECK(atomic_load(&coll_overlaps) == 0, "%d independent collective tasks overlapped another on rank %d",
              atomic_load(&coll_overlaps), tamm_rank());
        tamm_tensor_destroy(W);
    }
    copy_args ca = { S, L };
    tamm_ref cr[2] = { ref1(L, TAMM_WRITE, 0), ref1(S, TAMM_READ, 0) };
    CHECK(submit(from_replicated, &ca, sizeof ca, cr, 2, -1, 0, "from S") == TAMM_OK, "from S");
    int64_t sum = 0;
    for (size_t k = 0; k < nel; k++) sum += src[k];
    uint64_t uwant = 0; /* wraps like the collective's own arithmetic (unsigned: no UB) */
    for (int c = 0; c < 4; c++) uwant = uwant * 1000003u + (uint64_t)sum;
    int64_t want = (int64_t)uwant;
    const int64_t *l0 = tamm_block(L, 0);
    CHECK(l0[0] == want && l0[3] == want + 3, "collective result %lld, expected %lld", (long long)l0[0], (long long)want);
    const int64_t *s0 = tamm_block(S, 0);
    CHECK(s0[0] == want, "replicated S = %lld on rank %d, expected %lld", (long long)s0[0], me, (long long)want);

    CHECK(tamm_wait_all() == TAMM_OK, "wait_all");
    free(src);
    free(dst);
    tamm_tensor_destroy(A);
    tamm_tensor_destroy(B);
    tamm_tensor_destroy(G);
    CHECK(tamm_finalize() == TAMM_OK, "finalize");

    int tot = failures;
    if (P > 1) MPI_Allreduce(&failures, &tot, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("rank %d of %d: %d checks, %d failed here, %d failed on all ranks\n", me, P, checks, failures, tot);
    return tot ? 1 : 0;
}
