/*
 * test_mpi_on_range.c — on(r) with r outside 0..nranks-1 is an error naming
 * the value and the ranks, at every rank count (it was rank 0 in one process,
 * and r < -1 went to the owner under MPI); on(r) inside the range runs there.
 * Run under TAMM_ON_ERROR=return, so the error comes back to the caller.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tamm.h>

static int failures;
#define CHECK(c, ...) do { if (!(c)) { failures++; fprintf(stderr, "rank %d: FAIL: ", tamm_rank()); \
    fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static void body(tamm_ctx *ctx, void *va)
{
    (void)ctx;
    const int *want = va;
    if (tamm_rank() != *want) fprintf(stderr, "rank %d: FAIL: an on(%d) task ran here\n", tamm_rank(), *want), abort();
}

int main(int argc, char **argv)
{
    setenv("TAMM_ON_ERROR", "return", 1);
    if (tamm_init(&argc, &argv) != TAMM_OK) return 2;
    int P = tamm_nranks();
    const int bad[] = { P, P + 7, -2, -3 };
    for (int k = 0; k < 4; k++) {
        int r = bad[k];
        tamm_task t;
        memset(&t, 0, sizeof t);
        t.cpu = body;
        t.args = &r;
        t.args_size = sizeof r;
        t.rank = r;
        t.label = "bad on";
        int rc = tamm_submit(NULL, &t);
        CHECK(rc == TAMM_EINVAL, "on(%d) with %d ranks: submit returned %d, expected TAMM_EINVAL", r, P, rc);
        (void)tamm_wait_all(); /* takes the reported error */
    }
    for (int r = 0; r < P; r++) {
        tamm_task t;
        memset(&t, 0, sizeof t);
        t.cpu = body;
        t.args = &r;
        t.args_size = sizeof r;
        t.rank = r;
        t.label = "good on";
        CHECK(tamm_submit(NULL, &t) == TAMM_OK, "on(%d) with %d ranks refused", r, P);
    }
    CHECK(tamm_wait_all() == TAMM_OK, "wait_all");
    tamm_finalize();
    printf("rank %d of %d: %s\n", tamm_rank(), P, failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
