/*
 * nested.c — nested tasks and continuations in pragma form, on int64 data.
 *
 *   nested [N [NB [ITERS]]]     (default N=1000, NB=64: 16 blocks, the last one smaller; ITERS=5)
 *
 * Three computations over 1-D tensors of int64 blocks:
 *
 * 1. tree_hash: a recursive task over a range of blocks [lo, hi).  A leaf
 *    hashes its block of X into S[lo]; an inner node submits two nested tasks
 *    for the halves (by calling tree_hash, whose body is a `#pragma tamm task`),
 *    waits for them with `#pragma tamm taskwait` inside its body (tammcc turns
 *    the rest of the body into a continuation) and combines their results with
 *    an order-sensitive formula.  Its permissions are explicit clauses, since
 *    the recursion hides the children's blocks from inference.
 *
 * 2. prefix: a task whose body submits one nested task per block (a local scan,
 *    X[b] -> P[b]), waits, then walks the blocks computing each one's offset and
 *    submitting nested tasks that add it (`+=` only: accum), waits again and
 *    stores the total.  Permissions are inferred (widened to slices).
 *
 * 3. iterate: a task whose body is a `for` loop; each iteration submits one
 *    nested task per block (y = y * 3 + it + k, mod a prime) and one that folds
 *    all blocks into H[it], then a taskwait in the loop body, then reads H[it]
 *    into a local carried from iteration to iteration.  The loop becomes a
 *    continuation that re-submits itself.
 *
 * Everything is checked exactly against the same computations on plain arrays.
 */
#include <tamm.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MOD 1000003

static int64_t x_val(size_t k) { return (int64_t)((k * 7919 + 13) % 1009) - 500; }

/* t (n) := x_val(k0 + k): every element stored -> write. */
static void init_tile(int64_t *t, size_t n, size_t k0)
{
    for (size_t k = 0; k < n; k++)
        t[k] = x_val(k0 + k);
}

/* An order-sensitive hash of a block, and of two halves' hashes. */
static int64_t hash_block(const int64_t *x, size_t n)
{
    uint64_t h = 1469598103934665603u;
    for (size_t k = 0; k < n; k++)
        h = (h ^ (uint64_t)x[k]) * 1099511628211u;
    return (int64_t)(h >> 1);
}
static int64_t hash_combine(int64_t l, int64_t r)
{
    return (int64_t)(((uint64_t)l * 1000003u + (uint64_t)r) >> 1);
}

static void leaf_hash(const int64_t *x, int64_t *s, size_t n)
{
    s[0] = hash_block(x, n);
}

static void combine(int64_t *l, const int64_t *r)
{
    l[0] = hash_combine(l[0], r[0]);
}

/* 1. The recursive task: S[lo] := hash of blocks [lo, hi) of X. */
static void tree_hash(tamm_tensor *X, tamm_tensor *S, long lo, long hi)
{
    #pragma tamm task permission(read: X[:]) permission(readwrite: S[:]) label("tree_hash")
    {
        if (hi - lo == 1) {
            leaf_hash(tamm_block(X, lo), tamm_block(S, lo), tamm_block_extent(X, 0, lo));
        } else {
            tree_hash(X, S, lo, (lo + hi) / 2);   /* nested task */
            tree_hash(X, S, (lo + hi) / 2, hi);   /* nested task */
            #pragma tamm taskwait
            combine(tamm_block(S, lo), tamm_block(S, (lo + hi) / 2));
        }
    }
}

static int64_t tree_hash_ref(const int64_t *x, size_t n, size_t nb, long lo, long hi)
{
    if (hi - lo == 1) {
        size_t k0 = (size_t)lo * nb, len = k0 + nb <= n ? nb : n - k0;
        return hash_block(x + k0, len);
    }
    long mid = (lo + hi) / 2;
    int64_t l = tree_hash_ref(x, n, nb, lo, mid);
    return hash_combine(l, tree_hash_ref(x, n, nb, mid, hi));
}

/* 2. Kernels of the blocked prefix sum. */
static void local_scan(const int64_t *x, int64_t *p, size_t n)
{
    int64_t s = 0;
    for (size_t k = 0; k < n; k++) {
        s += x[k];
        p[k] = s;
    }
}
static int64_t block_sum(const int64_t *x, size_t n)
{
    int64_t s = 0;
    for (size_t k = 0; k < n; k++)
        s += x[k];
    return s;
}
static void add_offset(int64_t *p, size_t n, int64_t off)
{
    for (size_t k = 0; k < n; k++)
        p[k] += off;
}

/* 3. One relaxation step on a block, and the fold of a block into a checksum. */
static void step_tile(int64_t *y, size_t n, size_t k0, int it)
{
    for (size_t k = 0; k < n; k++)
        y[k] = ((y[k] * 3 + it + (int64_t)(k0 + k)) % MOD + MOD) % MOD;
}
static int64_t fold(int64_t h, const int64_t *y, size_t n)
{
    for (size_t k = 0; k < n; k++)
        h = (h * 31 + y[k]) % MOD;
    return h;
}

static size_t parse_arg(const char *s, const char *what)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v <= 0 || v > 1L << 24) {
        fprintf(stderr, "nested: bad %s '%s' (expected a positive integer)\n", what, s);
        exit(2);
    }
    return (size_t)v;
}

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK) {
        fprintf(stderr, "nested: tamm_init failed\n");
        return 1;
    }
    size_t N = argc > 1 ? parse_arg(argv[1], "N") : 1000;
    size_t NB = argc > 2 ? parse_arg(argv[2], "NB") : 64;
    int ITERS = argc > 3 ? (int)parse_arg(argv[3], "ITERS") : 5;

    size_t dims[1] = {N}, tile[1] = {NB};
    tamm_tensor *X = tamm_tensor_create("X", TAMM_I64, 1, dims, tile);
    tamm_tensor *P = tamm_tensor_create("P", TAMM_I64, 1, dims, tile);
    tamm_tensor *Y = tamm_tensor_create("Y", TAMM_I64, 1, dims, tile);
    if (!X || !P || !Y) {
        fprintf(stderr, "nested: tamm_tensor_create failed\n");
        return 1;
    }
    long nblk = tamm_tensor_nblocks(X, 0);
    size_t sdims[1] = {(size_t)nblk}, one[1] = {1}, hdims[1] = {(size_t)ITERS};
    size_t tdims[1] = {1};
    tamm_tensor *S = tamm_tensor_create("S", TAMM_I64, 1, sdims, one);     /* tree results */
    tamm_tensor *H = tamm_tensor_create("H", TAMM_I64, 1, hdims, one);     /* per-iteration fold */
    tamm_tensor *TOT = tamm_tensor_create("TOT", TAMM_I64, 1, tdims, one); /* prefix total */
    tamm_tensor *ACC = tamm_tensor_create("ACC", TAMM_I64, 1, tdims, one); /* iterate's result */
    if (!S || !H || !TOT || !ACC) {
        fprintf(stderr, "nested: tamm_tensor_create failed\n");
        return 1;
    }

    for (long b = 0; b < nblk; b++) {
        #pragma tamm task label("init_X")
        init_tile(tamm_block(X, b), tamm_block_extent(X, 0, b), (size_t)b * NB);
        #pragma tamm task label("init_Y")
        init_tile(tamm_block(Y, b), tamm_block_extent(Y, 0, b), (size_t)b * NB);
    }

    /* 1. Recursive tree hash. */
    tree_hash(X, S, 0, nblk);

    /* 2. Blocked prefix sum with two rounds of nested tasks. */
    #pragma tamm task label("prefix")
    {
        for (long b = 0; b < nblk; b++) {
            #pragma tamm task label("local_scan")
            local_scan(tamm_block(X, b), tamm_block(P, b), tamm_block_extent(X, 0, b));
        }
        #pragma tamm taskwait
        int64_t off = 0;
        for (long b = 0; b < nblk; b++) {
            if (b > 0) {
                #pragma tamm task label("add_offset")
                add_offset(tamm_block(P, b), tamm_block_extent(P, 0, b), off);
            }
            off += block_sum(tamm_block(X, b), tamm_block_extent(X, 0, b));
        }
        #pragma tamm taskwait
        const int64_t *last = tamm_block(P, nblk - 1);
        int64_t *tot = tamm_block(TOT, 0);
        tot[0] = last[tamm_block_extent(P, 0, nblk - 1) - 1] * 2 + off;
    }

    /* 3. An iterative task: nested tasks and a taskwait in a loop body.  The body
       itself only reads H[it] after the taskwait (and writes ACC at the end);
       the blocks of Y are touched by its nested tasks only. */
    #pragma tamm task label("iterate")
    {
        int64_t acc = 1;
        for (int it = 0; it < ITERS; it++) {
            for (long b = 0; b < nblk; b++) {
                #pragma tamm task label("step")
                step_tile(tamm_block(Y, b), tamm_block_extent(Y, 0, b), (size_t)b * NB, it);
            }
            #pragma tamm task label("fold")
            {
                int64_t h = it;
                for (long b = 0; b < nblk; b++)
                    h = fold(h, tamm_block(Y, b), tamm_block_extent(Y, 0, b));
                int64_t *hp = tamm_block(H, it);
                hp[0] = h;
            }
            #pragma tamm taskwait
            const int64_t *hv = tamm_block(H, it);
            acc = (acc * 7 + hv[0]) % MOD;
        }
        int64_t *ap = tamm_block(ACC, 0);
        ap[0] = acc;
    }
    #pragma tamm taskwait

    /* The same on plain arrays. */
    int64_t *x = malloc(N * sizeof *x), *p = malloc(N * sizeof *p), *y = malloc(N * sizeof *y);
    int64_t *hist = malloc((size_t)ITERS * sizeof *hist);
    if (!x || !p || !y || !hist) {
        fprintf(stderr, "nested: out of memory\n");
        return 1;
    }
    for (size_t k = 0; k < N; k++)
        x[k] = y[k] = x_val(k);
    int64_t want_hash = tree_hash_ref(x, N, NB, 0, nblk);
    int64_t run = 0;
    for (size_t k = 0; k < N; k++)
        p[k] = run += x[k];
    int64_t want_tot = p[N - 1] * 2 + run;
    int64_t want_acc = 1;
    for (int it = 0; it < ITERS; it++) {
        for (size_t k = 0; k < N; k++)
            y[k] = ((y[k] * 3 + it + (int64_t)k) % MOD + MOD) % MOD;
        int64_t h = it;
        for (size_t k = 0; k < N; k++)
            h = (h * 31 + y[k]) % MOD;
        hist[it] = h;
        want_acc = (want_acc * 7 + h) % MOD;
    }

    long bad = 0;
    const int64_t *s0 = tamm_block(S, 0);
    const int64_t *tot = tamm_block(TOT, 0);
    const int64_t *accp = tamm_block(ACC, 0);
    if (!s0 || !tot || !accp) {
        fprintf(stderr, "nested: tamm_block failed\n");
        return 1;
    }
    if (s0[0] != want_hash) {
        fprintf(stderr, "nested: tree hash %" PRId64 ", expected %" PRId64 "\n", s0[0], want_hash);
        bad++;
    }
    if (tot[0] != want_tot) {
        fprintf(stderr, "nested: prefix total %" PRId64 ", expected %" PRId64 "\n", tot[0], want_tot);
        bad++;
    }
    if (accp[0] != want_acc) {
        fprintf(stderr, "nested: iterate result %" PRId64 ", expected %" PRId64 "\n", accp[0], want_acc);
        bad++;
    }
    for (long b = 0; b < nblk; b++) {
        const int64_t *pb = tamm_block(P, b), *yb = tamm_block(Y, b);
        size_t n = tamm_block_extent(P, 0, b);
        for (size_t k = 0; k < n; k++) {
            size_t g = (size_t)b * NB + k;
            if (pb[k] != p[g] || yb[k] != y[g]) {
                if (bad < 10)
                    fprintf(stderr, "nested: element %zu: P %" PRId64 " (expected %" PRId64 "), Y %" PRId64
                            " (expected %" PRId64 ")\n", g, pb[k], p[g], yb[k], y[g]);
                bad++;
            }
        }
    }
    for (int it = 0; it < ITERS; it++) {
        const int64_t *hb = tamm_block(H, it);
        if (hb[0] != hist[it]) {
            fprintf(stderr, "nested: iteration %d fold %" PRId64 ", expected %" PRId64 "\n", it, hb[0], hist[it]);
            bad++;
        }
    }
    free(x);
    free(p);
    free(y);
    free(hist);
    printf("nested: N=%zu NB=%zu blocks=%ld iters=%d workers=%d %s (hash %" PRId64 ", total %" PRId64 ")\n",
           N, NB, nblk, ITERS, tamm_num_workers(), bad ? "FAILED" : "OK", want_hash, want_tot);
    tamm_finalize();
    return bad ? 1 : 0;
}
