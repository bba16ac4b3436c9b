/* treesum_clauses.c — samples/treesum.c with the halves' ranges written as
 * explicit permission clauses (the form that tammcc needs when it cannot prove
 * a range itself): the same tree-shaped dependence graph (dag_tree.sh).
 * The original comment of the sample follows.
 *
 * Recursive task functions, the divide-and-conquer shape of every
 * OpenMP tasking tutorial, over a blocked tensor.
 *
 * sum(X, P, lo, hi) leaves in P[lo] the sum of blocks lo..hi-1 of X: it
 * submits two tasks that recurse on the halves, waits for them with a
 * taskwait, and adds the right half's partial sum into the left's.  The
 * function is called from the top level and from tasks, and the taskwait
 * inside a task never blocks its worker (it runs other tasks meanwhile).
 *
 * The range clauses say that each half touches only its own blocks, so the
 * halves run in parallel and the dependence graph is a tree; the runtime checks
 * every task the call submits against them.
 * Checked against a plain loop; prints "treesum: ... OK". */
#include <tamm.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static void sum(tamm_tensor *X, tamm_tensor *P, long lo, long hi)
{
    if (hi - lo == 1) {
#pragma tamm task label("leaf")
        {
            const int64_t *x = tamm_block(X, lo);
            int64_t *p = tamm_block(P, lo);
            size_t n = tamm_block_elems(X, (const long[]){ lo });
            int64_t s = 0;
            for (size_t e = 0; e < n; e++) s += x[e];
            p[0] = s;
        }
        return;
    }
    long mid = lo + (hi - lo) / 2;
#pragma tamm task label("left") permission(read: X[lo:mid]) permission(readwrite: P[lo:mid])
    sum(X, P, lo, mid);
#pragma tamm task label("right") permission(read: X[mid:hi]) permission(readwrite: P[mid:hi])
    sum(X, P, mid, hi);
#pragma tamm taskwait
#pragma tamm task label("combine")
    {
        int64_t *a = tamm_block(P, lo);
        const int64_t *b = tamm_block(P, mid);
        a[0] += b[0];
    }
}

int main(int argc, char **argv)
{
    tamm_init(&argc, &argv);
    long n = argc > 1 ? atol(argv[1]) : 100000, bs = argc > 2 ? atol(argv[2]) : 1000;
    if (n < 1 || bs < 1) {
        fprintf(stderr, "usage: treesum [N [BLOCK]]\n");
        return 2;
    }
    long nb = (n + bs - 1) / bs;
    size_t dx[1] = { (size_t)n }, tx[1] = { (size_t)bs }, dp[1] = { (size_t)nb }, tp[1] = { 1 };
    tamm_tensor *X = tamm_tensor_create("X", TAMM_I64, 1, dx, tx);
    tamm_tensor *P = tamm_tensor_create("P", TAMM_I64, 1, dp, tp);
    int64_t expect = 0;
    for (long b = 0; b < nb; b++) {
        int64_t *x = tamm_block(X, b);
        size_t m = tamm_block_elems(X, (const long[]){ b });
        for (size_t e = 0; e < m; e++) {
            x[e] = (int64_t)((b * bs + (long)e) % 1000) - 300;
            expect += x[e];
        }
    }
    sum(X, P, 0, nb);
#pragma tamm taskwait
    int64_t got = *(const int64_t *)tamm_block(P, 0);
    int ok = got == expect;
    printf("treesum: N=%ld blocks=%ld workers=%d %s (sum %" PRId64 ", expected %" PRId64 ")\n", n, nb,
           tamm_num_workers(), ok ? "OK" : "WRONG", got, expect);
    tamm_tensor_destroy(P);
    tamm_tensor_destroy(X);
    tamm_finalize();
    return ok ? 0 : 1;
}
