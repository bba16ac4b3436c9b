/*
 * test_mpi_top_errors.c — top-level misuse with several ranks speaks the same
 * language as with one: tamm_block with an index out of range names the
 * tensor, the indices and the valid range (it said only "tamm_block on 'T':
 * block index out of range"), and the other top-level checks (NULL tensor,
 * wrong number of indices, NULL array) keep their one-rank wording, and so
 * does a call on a tensor whose destroy has completed.  With several ranks,
 * also the check that a task running on every rank for a replicated block
 * modifies no distributed one, and that a task with no variant is refused on
 * every rank (the submission validates before the MPI flow).  Run under
 * TAMM_ON_ERROR=return; each rank captures its own standard error in a file
 * and checks the message there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tamm.h>

static int failures;
#define CHECK(c, ...) do { if (!(c)) { failures++; fprintf(stdout, "rank %d: FAIL: ", tamm_rank()); \
    fprintf(stdout, __VA_ARGS__); fputc('\n', stdout); } } while (0)

static void noop(tamm_ctx *ctx, void *va) { (void)ctx; (void)va; }

/* a collective leaf that reads block A[i][0] for every i: each rank's leaf holds only the
 * blocks its rank owns, so a read of another rank's block is refused */
static tamm_tensor *leaf_tensor;
static void read_column(tamm_ctx *ctx, void *va)
{
    (void)va;
    for (long i = 0; i < 4; i++) {
        long idx[2] = { i, 0 };
        void *b = tamm_get_buf_read(ctx, leaf_tensor, idx);
        if (b) tamm_release_cancel(ctx, b);
    }
}

static FILE *cap;
static int saved_fd = -1;

static void capture(void)
{
    fflush(stderr);
    cap = tmpfile();
    saved_fd = dup(2);
    dup2(fileno(cap), 2);
}

/* stop capturing; return what was written (static buffer) */
static const char *captured(void)
{
    static char buf[8192];
    fflush(stderr);
    dup2(saved_fd, 2);
    close(saved_fd);
    rewind(cap);
    size_t n = fread(buf, 1, sizeof buf - 1, cap);
    buf[n] = 0;
    fclose(cap);
    return buf;
}

static void expect(const char *what, const char *got, const char *want)
{
    CHECK(strstr(got, want) != NULL, "%s: expected \"%s\" in: %s", what, want, got);
}

int main(int argc, char **argv)
{
    setenv("TAMM_ON_ERROR", "return", 1);
    if (tamm_init(&argc, &argv) != TAMM_OK) return 2;
    size_t d[2] = { 8, 6 }, t[2] = { 2, 2 };
    tamm_tensor *A = tamm_tensor_create("Amat", TAMM_F64, 2, d, t);
    CHECK(A != NULL, "create");

    capture();
    void *p = tamm_block(A, 0, 3);
    const char *e = captured();
    CHECK(p == NULL, "tamm_block out of range returned memory");
    expect("tamm_block out of range", e,
           "tamm: error: top level: tamm_block: block Amat[0][3] is outside the tensor 'Amat' (blocks 0..3 x 0..2) "
           "[block index out of range]");
    CHECK(tamm_wait_all() == TAMM_ERANGE, "the wait after tamm_block out of range");

    capture();
    p = tamm_block(A, 1);
    e = captured();
    CHECK(p == NULL, "tamm_block with 1 index returned memory");
    expect("tamm_block with 1 index", e,
           "tamm: error: top level: tamm_block on 'Amat': 1 indices given, the tensor has 2 dimensions");
    CHECK(tamm_wait_all() == TAMM_EINVAL, "the wait after tamm_block with 1 index");

    capture();
    p = tamm_block(NULL, 0, 0);
    e = captured();
    CHECK(p == NULL, "tamm_block(NULL) returned memory");
    expect("tamm_block(NULL)", e, "tamm: error: top level: tamm_block: the tensor is NULL");
    CHECK(tamm_wait_all() == TAMM_EINVAL, "the wait after tamm_block(NULL)");

    capture();
    int rc = tamm_tensor_gather(A, NULL);
    e = captured();
    CHECK(rc == TAMM_EINVAL, "gather into NULL returned %d", rc);
    expect("gather into NULL", e, "tamm: error: top level: tamm_tensor_gather: the array is NULL");
    CHECK(tamm_wait_all() == TAMM_EINVAL, "the wait after gather into NULL");

    /* a tensor whose destroy has completed: its record stays, so the message names it (the flow
     * state is gone: this fell through to "tamm_block on '<freed name>': block index out of range") */
    tamm_tensor *B = tamm_tensor_create("Bmat", TAMM_F64, 2, d, t);
    CHECK(B != NULL && tamm_tensor_destroy(B) == TAMM_OK, "create and destroy Bmat");
    CHECK(tamm_wait_all() == TAMM_OK, "the wait after destroying Bmat");
    capture();
    p = tamm_block(B, 0, 0);
    e = captured();
    CHECK(p == NULL, "tamm_block on a destroyed tensor returned memory");
    expect("tamm_block on a destroyed tensor", e, "tamm: error: top level: tamm_block: tensor 'Bmat' was destroyed");
    CHECK(tamm_wait_all() == TAMM_EINVAL, "the wait after tamm_block on a destroyed tensor");
    capture();
    rc = tamm_tensor_gather(B, d);
    e = captured();
    CHECK(rc == TAMM_EINVAL, "gather of a destroyed tensor returned %d", rc);
    expect("gather of a destroyed tensor", e, "tamm: error: top level: tamm_tensor_gather: tensor 'Bmat' was destroyed");
    CHECK(tamm_wait_all() == TAMM_EINVAL, "the wait after gather of a destroyed tensor");

    /* several ranks: a task that runs on every rank because of a replicated block cannot also
     * modify a distributed one */
    if (tamm_nranks() > 1) {
        tamm_tensor_opts ro;
        memset(&ro, 0, sizeof ro);
        ro.dist = TAMM_DIST_REPLICATED;
        tamm_tensor *R = tamm_tensor_create_ex("Rep", TAMM_F64, 2, d, t, &ro);
        CHECK(R != NULL, "create Rep");
        tamm_ref refs[2];
        memset(refs, 0, sizeof refs);
        refs[0].tensor = R;
        refs[0].nidx = 2;
        refs[0].idx[0] = 1;
        refs[0].idx[1] = 2;
        refs[0].mode = TAMM_WRITE;
        refs[1].tensor = A;
        refs[1].nidx = 2;
        refs[1].idx[0] = 3;
        refs[1].idx[1] = 1;
        refs[1].mode = TAMM_READWRITE;
        tamm_task tk;
        memset(&tk, 0, sizeof tk);
        tk.cpu = noop;
        tk.refs = refs;
        /* (a task on one rank may modify a replicated tensor; one that writes a replicated block
         * first and has no on(r) runs on every rank, so it may not also write a distributed block) */
        tk.nrefs = 2;
        tk.rank = -1;
        tk.label = "rep_and_dist";
        capture();
        rc = tamm_submit(NULL, &tk);
        e = captured();
        CHECK(rc == TAMM_EINVAL, "writing replicated and distributed blocks returned %d", rc);
        expect("writing replicated and distributed blocks", e,
               "the task modifies replicated data, so it runs on every rank, but it also modifies Amat[3,1] of "
               "distributed tensor 'Amat'");
        CHECK(tamm_wait_all() == TAMM_EINVAL, "the wait after writing replicated and distributed blocks");
    }

    /* a task with no variant that writes one rank's block: the submission validates it before the
     * MPI flow decides where it runs, so every rank reports it and returns the same result (only the
     * rank that would run it did: the others returned TAMM_OK, and their waits too) */
    {
        tamm_ref wr;
        memset(&wr, 0, sizeof wr);
        wr.tensor = A;
        wr.nidx = 2;
        wr.idx[0] = 2;
        wr.idx[1] = 1;
        wr.mode = TAMM_WRITE;
        tamm_task nv;
        memset(&nv, 0, sizeof nv);
        nv.refs = &wr;
        nv.nrefs = 1;
        nv.rank = -1;
        nv.label = "no_variant";
        capture();
        rc = tamm_submit(NULL, &nv);
        e = captured();
        CHECK(rc == TAMM_EINVAL, "a task with no variant returned %d", rc);
        expect("a task with no variant", e,
               "tamm: error: task 'no_variant' (?:0): task has no variant (cpu and cuda are both NULL)");
        CHECK(tamm_wait_all() == TAMM_EINVAL, "the wait after a task with no variant");
    }

    /* a collective leaf using a block its rank does not own (docs/errors.md, TAMM_EPERM) */
    if (tamm_nranks() > 1) {
        tamm_ref crefs[4];
        memset(crefs, 0, sizeof crefs);
        int foreign = 0;
        for (int i = 0; i < 4; i++) {
            crefs[i].tensor = A;
            crefs[i].nidx = 2;
            crefs[i].idx[0] = i;
            crefs[i].idx[1] = 0;
            crefs[i].mode = TAMM_READ;
            long bi[2] = { i, 0 };
            foreign += tamm_block_owner(A, bi) != tamm_rank();
        }
        leaf_tensor = A;
        tamm_task ct;
        memset(&ct, 0, sizeof ct);
        ct.cpu = read_column;
        ct.refs = crefs;
        ct.nrefs = 4;
        ct.rank = -1;
        ct.label = "column_leaf";
        tamm_task_opts co;
        memset(&co, 0, sizeof co);
        co.collective = 1;
        capture();
        rc = tamm_submit_ex(NULL, &ct, &co);
        int wrc = tamm_wait_all();
        e = captured();
        CHECK(rc == TAMM_OK, "submitting the collective returned %d", rc);
        int said = 0;
        for (const char *s = e; (s = strstr(s, "the task has no permission on that block")) != NULL; s++) said++;
        CHECK(said == foreign, "the leaf read %d blocks of other ranks, but %d were refused: %s", foreign, said, e);
        CHECK(wrc == (foreign ? TAMM_EPERM : TAMM_OK), "the wait after the collective returned %d (%d foreign)",
              wrc, foreign);
        printf("rank %d: the collective leaf's reads of %d blocks of other ranks were refused (%d)\n", tamm_rank(),
               foreign, said);
        if (foreign)
            expect("a collective leaf reading another rank's block", e,
                   "tamm_get_buf_read on Amat[");
    }

    /* and the run goes on: a block in range */
    double *q = tamm_block(A, 3, 2);
    CHECK(q != NULL, "tamm_block in range");
    if (q) q[0] = 1;
    CHECK(tamm_wait_all() == TAMM_OK, "wait_all at the end");
    tamm_finalize();
    printf("rank %d of %d: %s\n", tamm_rank(), tamm_nranks(), failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
