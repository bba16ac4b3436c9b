/*
 * reduce_sizes.c [N NB SEED] — reductions into one element over blocks of pseudo-random values
 * of mixed magnitudes (so that the order of summation shows in the last bits): per block of X
 * (N elements in blocks of NB, the last one smaller) a sum of squares into S[b], a float
 * difference F[b] -= y[i], and a dot product and a sum at once into D[b][0] and D[b][1]; over
 * tiles of the MS x MS matrix M (MS = min(NB, 1200); 2 x 2 blocks, the edge ones smaller) a sum
 * into T[b].  Prints
 * every result with 17 digits (its exact bits), then each result's scale (the sum of
 * the absolute values of its terms), for comparisons within rounding (reduce_repeat.sh).
 */
#include <tamm.h>

#include <stdio.h>
#include <stdlib.h>

static double value(unsigned long long seed, long i)
{
    unsigned long long z = seed * 0x9E3779B97F4A7C15ull + (unsigned long long)i * 0xBF58476D1CE4E5B9ull + 1;
    z ^= z >> 31;
    z *= 0x94D049BB133111EBull;
    z ^= z >> 29;
    double u = (double)(z >> 11) / 9007199254740992.0; /* [0, 1) */
    double scale = (double)(1u << (z % 24));           /* 1 .. 2^23 */
    return (2 * u - 1) * scale;
}

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK) return 1;
    long n = argc > 1 ? atol(argv[1]) : 10000, nb = argc > 2 ? atol(argv[2]) : 3000;
    unsigned long long seed = argc > 3 ? strtoull(argv[3], NULL, 10) : 1;
    if (n < 1 || nb < 1 || nb > n) { fprintf(stderr, "reduce_sizes: need 1 <= NB <= N\n"); return 2; }
    long nt = (n + nb - 1) / nb, ms = nb < 1200 ? nb : 1200;
    size_t dx[1] = {(size_t)n}, tx[1] = {(size_t)nb}, dn[1] = {(size_t)nt}, t1[1] = {1}, dd[2] = {(size_t)nt, 2},
           td[2] = {1, 2}, dm[2] = {(size_t)ms, (size_t)ms}, tm[2] = {(size_t)(ms + 1) / 2, (size_t)(ms + 1) / 2};
    tamm_tensor *X = tamm_tensor_create("X", TAMM_F64, 1, dx, tx);
    tamm_tensor *Y = tamm_tensor_create("Y", TAMM_F32, 1, dx, tx);
    tamm_tensor *S = tamm_tensor_create("S", TAMM_F64, 1, dn, t1);
    tamm_tensor *F = tamm_tensor_create("F", TAMM_F32, 1, dn, t1);
    tamm_tensor *D = tamm_tensor_create("D", TAMM_F64, 2, dd, td);
    tamm_tensor *M = tamm_tensor_create("M", TAMM_F64, 2, dm, tm);
    tamm_tensor *T = tamm_tensor_create("T", TAMM_F64, 1, dn, t1);
    for (long b = 0; b < nt; b++) {
        long m = (long)tamm_block_extent(X, 0, b), off = b * nb;
        #pragma tamm task device(cuda) label("fill")
        {
            double *x = tamm_block(X, b);
            float *y = tamm_block(Y, b);
            for (long i = 0; i < m; i++) {
                x[i] = value(seed, off + i);
                y[i] = (float)value(seed + 1, off + i);
            }
        }
        ((double *)tamm_block(S, b))[0] = 0;
        ((float *)tamm_block(F, b))[0] = 0;
        ((double *)tamm_block(D, b, 0))[0] = ((double *)tamm_block(D, b, 0))[1] = 0;
        ((double *)tamm_block(T, b))[0] = 0;
    }
    long mb = (ms + 1) / 2;
    for (long bi = 0; bi < 2; bi++)
        for (long bj = 0; bj < 2; bj++) {
            long mi = (long)tamm_block_extent(M, 0, bi), mj = (long)tamm_block_extent(M, 1, bj);
            double *mm = tamm_block(M, bi, bj);
            for (long i = 0; i < mi; i++)
                for (long j = 0; j < mj; j++) mm[i * mj + j] = value(seed + 2, (bi * mb + i) * ms + bj * mb + j);
        }
    for (long b = 0; b < nt; b++) {
        long m = (long)tamm_block_extent(X, 0, b);
        #pragma tamm task device(cuda) label("squares")
        {
            const double *x = tamm_block(X, b);
            double *s = tamm_block(S, b);
            for (long i = 0; i < m; i++)
                s[0] += x[i] * x[i];
        }
        #pragma tamm task device(cuda) label("difference")
        {
            const float *y = tamm_block(Y, b);
            float *f = tamm_block(F, b);
            for (long i = 0; i < m; i++)
                f[0] -= y[i];
        }
        #pragma tamm task device(cuda) label("dot")
        {
            const double *x = tamm_block(X, b);
            const float *y = tamm_block(Y, b);
            double *d = tamm_block(D, b, 0);
            for (long i = 0; i < m; i++) {
                d[0] += x[i] * y[i];
                d[1] += x[i];
            }
        }
        long bi = b % 2, bj = b / 2 % 2;
        long mi = (long)tamm_block_extent(M, 0, bi), mj = (long)tamm_block_extent(M, 1, bj);
        #pragma tamm task device(cuda) label("tile")
        {
            const double *mm = tamm_block(M, bi, bj);
            double *t = tamm_block(T, b);
            for (long i = 0; i < mi; i++)
                for (long j = 0; j < mj; j++)
                    t[0] += mm[i * mj + j];
        }
    }
    #pragma tamm taskwait
    for (long b = 0; b < nt; b++) {
        long m = (long)tamm_block_extent(X, 0, b), off = b * nb;
        long bi = b % 2, bj = b / 2 % 2;
        long mi = (long)tamm_block_extent(M, 0, bi), mj = (long)tamm_block_extent(M, 1, bj);
        double ss = 0, sf = 0, sd = 0, sx = 0, st = 0;
        for (long i = 0; i < m; i++) {
            double x = value(seed, off + i), y = (float)value(seed + 1, off + i);
            ss += x * x;
            sf += y < 0 ? -y : y;
            sd += x * y < 0 ? -x * y : x * y;
            sx += x < 0 ? -x : x;
        }
        for (long i = 0; i < mi; i++)
            for (long j = 0; j < mj; j++) {
                double v = value(seed + 2, (bi * mb + i) * ms + bj * mb + j);
                st += v < 0 ? -v : v;
            }
        const double *d = tamm_block(D, b, 0);
        printf("block %ld: squares %.17g difference %.17g dot %.17g sum %.17g tile %.17g\n", b, ((const double *)tamm_block(S, b))[0],
               (double)((const float *)tamm_block(F, b))[0], d[0], d[1], ((const double *)tamm_block(T, b))[0]);
        printf("scale %ld: squares %.17g difference %.17g dot %.17g sum %.17g tile %.17g\n", b, ss, sf, sd, sx, st);
    }
    tamm_tensor_destroy(X);
    tamm_tensor_destroy(Y);
    tamm_tensor_destroy(S);
    tamm_tensor_destroy(F);
    tamm_tensor_destroy(D);
    tamm_tensor_destroy(M);
    tamm_tensor_destroy(T);
    return tamm_finalize() == TAMM_OK ? 0 : 1;
}
