/*
 * ccsd.c — a CCSD-like 4-index contraction over dense blocked
 * tensors, in pragma form:
 *
 *     R[i,j,a,b] += sum_{c,d} T[i,j,c,d] * V[c,d,a,b]
 *
 *   ccsd [NO [NV [TO [TV]]]]   occupied / virtual extents and tile sizes
 *                              (default 10 14 4 5: 3 blocks per dimension, edge blocks)
 *
 * T is NO x NO x NV x NV, V is NV x NV x NV x NV, R is NO x NO x NV x NV.  One
 * task per (output block, c-block, d-block) calls contract_tile, whose t and v
 * are `const` (read) and whose r only receives '+=' (accum): the contributions
 * of all (c, d) block pairs to one R block run together and are summed by the
 * runtime.  T, V and R start with values written by tasks (write).
 *
 * Checked against a plain serial 6-deep loop on ordinary arrays.  Exit status 0
 * iff every element matches within rounding.
 */
#include <tamm.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { WHICH_T = 0, WHICH_V = 1, WHICH_R = 2 };

static double val(int which, size_t p, size_t q, size_t r, size_t s)
{
    switch (which) {
    case WHICH_T: return (double)((p * 3 + q * 5 + r * 7 + s * 11) % 13) / 13.0 - 0.5;
    case WHICH_V: return (double)((p * 2 + q * 3 + r * 5 + s * 7) % 17) / 17.0 - 0.4;
    default:      return (double)((p + q * 2 + r * 3 + s * 4) % 5) * 0.25;
    }
}

/* t (n0 x n1 x n2 x n3) := val(o0 + p, o1 + q, o2 + r, o3 + s): every element stored -> write. */
static void init_tile(double *t, size_t n0, size_t n1, size_t n2, size_t n3,
                      size_t o0, size_t o1, size_t o2, size_t o3, int which)
{
    for (size_t p = 0; p < n0; p++)
        for (size_t q = 0; q < n1; q++)
            for (size_t r = 0; r < n2; r++)
                for (size_t s = 0; s < n3; s++)
                    t[((p * n1 + q) * n2 + r) * n3 + s] = val(which, o0 + p, o1 + q, o2 + r, o3 + s);
}

/* r[i,j,a,b] += sum_{c,d} t[i,j,c,d] * v[c,d,a,b] on one block triple. */
static void contract_tile(const double *t, const double *v, double *r,
                          size_t ni, size_t nj, size_t na, size_t nb, size_t nc, size_t nd)
{
    for (size_t i = 0; i < ni; i++)
        for (size_t j = 0; j < nj; j++)
            for (size_t c = 0; c < nc; c++)
                for (size_t d = 0; d < nd; d++) {
                    double tijcd = t[((i * nj + j) * nc + c) * nd + d];
                    for (size_t a = 0; a < na; a++)
                        for (size_t b = 0; b < nb; b++)
                            r[((i * nj + j) * na + a) * nb + b] +=
                                tijcd * v[((c * nd + d) * na + a) * nb + b];
                }
}

static size_t parse_arg(const char *s, const char *what)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v <= 0 || v > 64) {
        fprintf(stderr, "ccsd: bad %s '%s' (expected an integer in 1..64)\n", what, s);
        exit(2);
    }
    return (size_t)v;
}

#define IDX4(n, p, q, r, s) ((((p) * (n)[1] + (q)) * (n)[2] + (r)) * (n)[3] + (s))

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK) {
        fprintf(stderr, "ccsd: tamm_init failed\n");
        return 1;
    }
    size_t NO = argc > 1 ? parse_arg(argv[1], "NO") : 10;
    size_t NV = argc > 2 ? parse_arg(argv[2], "NV") : 14;
    size_t TO = argc > 3 ? parse_arg(argv[3], "TO") : 4;
    size_t TV = argc > 4 ? parse_arg(argv[4], "TV") : 5;

    size_t tdims[4] = {NO, NO, NV, NV}, ttile[4] = {TO, TO, TV, TV};
    size_t vdims[4] = {NV, NV, NV, NV}, vtile[4] = {TV, TV, TV, TV};
    tamm_tensor *T = tamm_tensor_create("T", TAMM_F64, 4, tdims, ttile);
    tamm_tensor *V = tamm_tensor_create("V", TAMM_F64, 4, vdims, vtile);
    tamm_tensor *R = tamm_tensor_create("R", TAMM_F64, 4, tdims, ttile);
    if (!T || !V || !R) {
        fprintf(stderr, "ccsd: tamm_tensor_create failed\n");
        return 1;
    }
    long BO = tamm_tensor_nblocks(T, 0), BV = tamm_tensor_nblocks(T, 2);

    /* Initial contents, written by tasks. */
    for (long p = 0; p < BO; p++)
        for (long q = 0; q < BO; q++)
            for (long r = 0; r < BV; r++)
                for (long s = 0; s < BV; s++) {
                    #pragma tamm task label("init_T")
                    init_tile(tamm_block(T, p, q, r, s),
                              tamm_block_extent(T, 0, p), tamm_block_extent(T, 1, q),
                              tamm_block_extent(T, 2, r), tamm_block_extent(T, 3, s),
                              (size_t)p * TO, (size_t)q * TO, (size_t)r * TV, (size_t)s * TV, WHICH_T);
                    #pragma tamm task label("init_R")
                    init_tile(tamm_block(R, p, q, r, s),
                              tamm_block_extent(R, 0, p), tamm_block_extent(R, 1, q),
                              tamm_block_extent(R, 2, r), tamm_block_extent(R, 3, s),
                              (size_t)p * TO, (size_t)q * TO, (size_t)r * TV, (size_t)s * TV, WHICH_R);
                }
    for (long p = 0; p < BV; p++)
        for (long q = 0; q < BV; q++)
            for (long r = 0; r < BV; r++)
                for (long s = 0; s < BV; s++) {
                    #pragma tamm task label("init_V")
                    init_tile(tamm_block(V, p, q, r, s),
                              tamm_block_extent(V, 0, p), tamm_block_extent(V, 1, q),
                              tamm_block_extent(V, 2, r), tamm_block_extent(V, 3, s),
                              (size_t)p * TV, (size_t)q * TV, (size_t)r * TV, (size_t)s * TV, WHICH_V);
                }

    /* The contraction: one task per (R block, c block, d block). */
    long ntasks = 0;
    for (long i = 0; i < BO; i++)
        for (long j = 0; j < BO; j++)
            for (long a = 0; a < BV; a++)
                for (long b = 0; b < BV; b++)
                    for (long c = 0; c < BV; c++)
                        for (long d = 0; d < BV; d++) {
                            #pragma tamm task label("contract")
                            contract_tile(tamm_block(T, i, j, c, d), tamm_block(V, c, d, a, b),
                                          tamm_block(R, i, j, a, b),
                                          tamm_block_extent(R, 0, i), tamm_block_extent(R, 1, j),
                                          tamm_block_extent(R, 2, a), tamm_block_extent(R, 3, b),
                                          tamm_block_extent(V, 0, c), tamm_block_extent(V, 1, d));
                            ntasks++;
                        }
    #pragma tamm taskwait

    /* Serial reference on plain arrays. */
    size_t tn[4] = {NO, NO, NV, NV}, vn[4] = {NV, NV, NV, NV};
    size_t ntel = NO * NO * NV * NV, nvel = NV * NV * NV * NV;
    double *t = malloc(ntel * sizeof *t), *v = malloc(nvel * sizeof *v), *r = malloc(ntel * sizeof *r);
    if (!t || !v || !r) {
        fprintf(stderr, "ccsd: out of memory\n");
        return 1;
    }
    for (size_t p = 0; p < NO; p++)
        for (size_t q = 0; q < NO; q++)
            for (size_t x = 0; x < NV; x++)
                for (size_t y = 0; y < NV; y++) {
                    t[IDX4(tn, p, q, x, y)] = val(WHICH_T, p, q, x, y);
                    r[IDX4(tn, p, q, x, y)] = val(WHICH_R, p, q, x, y);
                }
    for (size_t p = 0; p < NV; p++)
        for (size_t q = 0; q < NV; q++)
            for (size_t x = 0; x < NV; x++)
                for (size_t y = 0; y < NV; y++)
                    v[IDX4(vn, p, q, x, y)] = val(WHICH_V, p, q, x, y);
    for (size_t i = 0; i < NO; i++)
        for (size_t j = 0; j < NO; j++)
            for (size_t a = 0; a < NV; a++)
                for (size_t b = 0; b < NV; b++) {
                    double s = 0.0;
                    for (size_t c = 0; c < NV; c++)
                        for (size_t d = 0; d < NV; d++)
                            s += t[IDX4(tn, i, j, c, d)] * v[IDX4(vn, c, d, a, b)];
                    r[IDX4(tn, i, j, a, b)] += s;
                }

    /* Compare, block by block. */
    double maxerr = 0.0;
    for (long i = 0; i < BO; i++)
        for (long j = 0; j < BO; j++)
            for (long a = 0; a < BV; a++)
                for (long b = 0; b < BV; b++) {
                    const double *blk = tamm_block(R, i, j, a, b);
                    if (!blk) {
                        fprintf(stderr, "ccsd: tamm_block(R, %ld, %ld, %ld, %ld) failed\n", i, j, a, b);
                        return 1;
                    }
                    size_t e[4] = {tamm_block_extent(R, 0, i), tamm_block_extent(R, 1, j),
                                   tamm_block_extent(R, 2, a), tamm_block_extent(R, 3, b)};
                    for (size_t p = 0; p < e[0]; p++)
                        for (size_t q = 0; q < e[1]; q++)
                            for (size_t x = 0; x < e[2]; x++)
                                for (size_t y = 0; y < e[3]; y++) {
                                    double got = blk[IDX4(e, p, q, x, y)];
                                    double want = r[IDX4(tn, (size_t)i * TO + p, (size_t)j * TO + q,
                                                         (size_t)a * TV + x, (size_t)b * TV + y)];
                                    double err = fabs(got - want);
                                    if (!(err <= maxerr))
                                        maxerr = isnan(err) ? INFINITY : err;
                                }
                }
    free(t);
    free(v);
    free(r);
    int ok = maxerr <= 1e-10;
    printf("ccsd: NO=%zu NV=%zu tiles=%zux%zu tasks=%ld workers=%d %s (max err %.1e)\n", NO, NV,
           TO, TV, ntasks, tamm_num_workers(), ok ? "OK" : "FAILED", maxerr);
    tamm_finalize();
    return ok ? 0 : 1;
}
