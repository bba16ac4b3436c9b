/*
 * tile_kernels.c — the loop nests a GPU user writes on tiles, and the kernels tammcc must make
 * of them: a naive tile GEMM in i-j-k order (i and j on the grid, k in each thread: the element
 * of C summed in a register, stored once) and in the i-k-j order of samples/gemm.c's gemm_tile (the same
 * mapping), a GEMV (only i on the grid, so that each y[i] has one thread), column sums (j on
 * the grid), rows updated in place by their threads (also where a subscript is no polynomial),
 * and reductions into one element (a sum of a
 * tile, a float sum and an integer count, two sums at once): per thread, per block in shared
 * memory, then the blocks in order.  Values are small integers, so every order of summation gives
 * the same bits as the plain C build.
 */
#include <tamm.h>

#include <stdio.h>

#define N 96
#define NB 32
#define NT (N / NB)

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK) return 1;
    size_t dims[2] = {N, N}, tile[2] = {NB, NB}, vdims[1] = {N}, vtile[1] = {NB}, one[1] = {NT}, one_t[1] = {1};
    tamm_tensor *A = tamm_tensor_create("A", TAMM_F64, 2, dims, tile);
    tamm_tensor *B = tamm_tensor_create("B", TAMM_F64, 2, dims, tile);
    tamm_tensor *C = tamm_tensor_create("C", TAMM_F64, 2, dims, tile);
    tamm_tensor *D = tamm_tensor_create("D", TAMM_F64, 2, dims, tile);
    tamm_tensor *X = tamm_tensor_create("X", TAMM_F64, 1, vdims, vtile);
    tamm_tensor *Y = tamm_tensor_create("Y", TAMM_F64, 1, vdims, vtile);
    tamm_tensor *S = tamm_tensor_create("S", TAMM_F64, 1, vdims, vtile);
    tamm_tensor *T = tamm_tensor_create("T", TAMM_F64, 1, one, one_t);   /* one element per block */
    tamm_tensor *F = tamm_tensor_create("F", TAMM_F32, 1, one, one_t);
    tamm_tensor *K = tamm_tensor_create("K", TAMM_I64, 1, one, one_t);
    tamm_tensor *Q = tamm_tensor_create("Q", TAMM_F64, 2, dims, tile);
    size_t wdims[2] = {N, 4}, wtile[2] = {NB, 4};
    tamm_tensor *W = tamm_tensor_create("W", TAMM_F64, 2, wdims, wtile);
    int nb = NB;
    for (long bi = 0; bi < NT; bi++) {
        for (long bj = 0; bj < NT; bj++) {
            #pragma tamm task
            {
                double *a = tamm_block(A, bi, bj), *b = tamm_block(B, bi, bj);
                for (int i = 0; i < NB; i++)
                    for (int j = 0; j < NB; j++) {
                        a[i * NB + j] = (double)((bi * 7 + bj * 3 + i * 5 + j) % 9) - 4.0;
                        b[i * NB + j] = (double)((bi + bj * 5 + i + j * 3) % 7) - 3.0;
                    }
            }
            #pragma tamm task
            {
                double *c = tamm_block(C, bi, bj), *d = tamm_block(D, bi, bj), *q = tamm_block(Q, bi, bj);
                for (int i = 0; i < NB; i++)
                    for (int j = 0; j < NB; j++)
                        c[i * NB + j] = d[i * NB + j] = q[i * NB + j] = (double)(i == j);
            }
        }
        #pragma tamm task
        {
            double *x = tamm_block(X, bi), *y = tamm_block(Y, bi), *s = tamm_block(S, bi);
            double *t = tamm_block(T, bi);
            float *f = tamm_block(F, bi);
            long *k = tamm_block(K, bi);
            double (*w)[4] = tamm_block(W, bi, 0);
            for (int i = 0; i < NB; i++) {
                w[i][0] = w[i][1] = w[i][2] = w[i][3] = 0;
                x[i] = (double)((bi * NB + i) % 5) - 2.0;
                y[i] = s[i] = 0;
                t[0] = 0;
                f[0] = 0;
                k[0] = 0;
            }
        }
    }
    for (long bi = 0; bi < NT; bi++)
        for (long bj = 0; bj < NT; bj++)
            for (long bk = 0; bk < NT; bk++) {
                /* C[bi][bj] += A[bi][bk] * B[bk][bj]: the naive tile GEMM, i-j-k */
                #pragma tamm task label("gemm_ijk")
                {
                    const double *a = tamm_block(A, bi, bk), *b = tamm_block(B, bk, bj);
                    double *c = tamm_block(C, bi, bj);
                    for (int i = 0; i < nb; i++)
                        for (int j = 0; j < nb; j++)
                            for (int k = 0; k < nb; k++)
                                c[i * nb + j] += a[i * nb + k] * b[k * nb + j];
                }
                /* the same into D, in i-k-j order (gemm_tile of samples/gemm.c) */
                #pragma tamm task label("gemm_ikj")
                {
                    const double *a = tamm_block(A, bi, bk), *b = tamm_block(B, bk, bj);
                    double *d = tamm_block(D, bi, bj);
                    for (int i = 0; i < nb; i++)
                        for (int k = 0; k < nb; k++)
                            for (int j = 0; j < nb; j++)
                                d[i * nb + j] += a[i * nb + k] * b[k * nb + j];
                }
            }
    for (long bi = 0; bi < NT; bi++)
        for (long bj = 0; bj < NT; bj++) {
            /* Y[bi] += A[bi][bj] * X[bj]: only i on the grid, each y[i] in one thread */
            #pragma tamm task label("gemv")
            {
                const double *a = tamm_block(A, bi, bj), *x = tamm_block(X, bj);
                double *y = tamm_block(Y, bi);
                for (int i = 0; i < nb; i++)
                    for (int j = 0; j < nb; j++)
                        y[i] += a[i * nb + j] * x[j];
            }
            /* S[bj] += the column sums of C[bi][bj]: j on the grid */
            #pragma tamm task label("colsum")
            {
                const double *c = tamm_block(C, bi, bj);
                double *s = tamm_block(S, bj);
                for (int i = 0; i < nb; i++)
                    for (int j = 0; j < nb; j++)
                        s[j] += c[i * nb + j];
            }
            /* T[bi] += the sum of D[bi][bj]: a reduction into one element */
            #pragma tamm task label("tilesum")
            {
                const double *d = tamm_block(D, bi, bj);
                double *t = tamm_block(T, bi);
                for (int i = 0; i < NB; i++)
                    for (int j = 0; j < NB; j++)
                        t[0] += d[i * NB + j];
            }
            /* F[bj] += a float sum, K[bj] -= a count: two reductions in one kernel */
            #pragma tamm task label("count")
            {
                const double *c = tamm_block(C, bi, bj);
                float *f = tamm_block(F, bj);
                long *k = tamm_block(K, bj);
                for (long e = 0; e < NB * NB; e++) {
                    f[0] += (float)c[e];
                    k[0] -= c[e] > 0;
                }
            }
            /* Q[bi][bj] += rows of running weights: i on the grid (w changes along j, so j stays in the
             * thread), each row owned by its thread, updated in place (the element varies in the thread) */
            #pragma tamm task label("rows")
            for (int i = 0; i < nb; i++) {
                double w = i + 1.0;
                for (int j = 0; j < nb; j++) {
                    ((double *)tamm_block(Q, bi, bj))[i * nb + j] += w * j;
                    w += 0.5;
                }
            }
        }
    for (long bi = 0; bi < NT; bi++) {
        /* W[bi] += counts by i and k % 4: i on the grid, w[i][k % 4] one thread's, but not one element in the
         * thread (k % 4 is no polynomial): updated in place, not in a register */
        #pragma tamm task label("mod")
        {
            double (*w)[4] = tamm_block(W, bi, 0);
            for (int i = 0; i < NB; i++)
                for (int k = 0; k < 8; k++)
                    w[i][k % 4] += (double)(i + k);
        }
    }
    #pragma tamm taskwait
    double sc = 0, sd = 0, sy = 0, ss = 0, st = 0, sf = 0, sq = 0, sw = 0;
    long sk = 0;
    for (long bi = 0; bi < NT; bi++) {
        for (long bj = 0; bj < NT; bj++) {
            const double *c = tamm_block(C, bi, bj), *d = tamm_block(D, bi, bj), *q = tamm_block(Q, bi, bj);
            for (int e = 0; e < NB * NB; e++) {
                sc += c[e] * (e % 7 + 1);
                sd += d[e] * (e % 5 + 1);
                sq += q[e] * (e % 3 + 1);
            }
        }
        const double *y = tamm_block(Y, bi), *s = tamm_block(S, bi);
        for (int e = 0; e < NB; e++) {
            sy += y[e] * (e + 1);
            ss += s[e] * (e + 2);
        }
        st += ((const double *)tamm_block(T, bi))[0] * (bi + 1);
        sf += ((const float *)tamm_block(F, bi))[0] * (bi + 2);
        sk += ((const long *)tamm_block(K, bi))[0] * (bi + 3);
        const double (*w)[4] = tamm_block(W, bi, 0);
        for (int e = 0; e < NB; e++) sw += (w[e][0] + 2 * w[e][1] + 3 * w[e][2] + 4 * w[e][3]) * (e + 1);
    }
    printf("tile_kernels: gemm %.1f %.1f gemv %.1f colsum %.1f tilesum %.1f count %.1f %ld rows %.1f mod %.1f\n", sc,
           sd, sy, ss, st, sf, sk, sq, sw);
    tamm_tensor_destroy(A);
    tamm_tensor_destroy(B);
    tamm_tensor_destroy(C);
    tamm_tensor_destroy(D);
    tamm_tensor_destroy(X);
    tamm_tensor_destroy(Y);
    tamm_tensor_destroy(S);
    tamm_tensor_destroy(T);
    tamm_tensor_destroy(F);
    tamm_tensor_destroy(K);
    tamm_tensor_destroy(Q);
    tamm_tensor_destroy(W);
    return tamm_finalize() == TAMM_OK ? 0 : 1;
}
