/*
 * blas_calls.c — every BLAS and LAPACK call tammcc runs with cuBLAS / cuSOLVER
 * (docs/language.md "Variants"), each kind in both layouts and with every transposition, side,
 * triangle and diagonal, with leading dimensions larger than the matrices and
 * vector increments other than 1 (negative ones too), in double and single
 * precision: one task per case on blocks, then the same call on a host copy of
 * the same data, and the two compared (the whole block: what a call must not
 * touch stays as it was).  The triangle a routine must not read is filled with
 * other values than the one it reads, so a wrong triangle shows.  LAPACK's
 * info goes to a block (`*info = LAPACKE_dpotrf(...)`), pivots and Householder
 * scalars too.  Prints one line per kind; exit status 0 iff every case agrees
 * within rounding.  The tammcc build must print what the plain C build prints.
 */
#include <tamm.h>

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define BS 1024   /* elements per block: room for every matrix below and its padding */
#define NC 512    /* blocks (cases) per tensor */
#define M 9
#define N 7
#define K 5
#define PAD 2

enum { ROW = CblasRowMajor, COL = CblasColMajor };
static const int layouts[2] = { CblasRowMajor, CblasColMajor };
static const int transes[2] = { CblasNoTrans, CblasTrans };
static const int uplos[2] = { CblasUpper, CblasLower };
static const int sides[2] = { CblasLeft, CblasRight };
static const int diags[2] = { CblasNonUnit, CblasUnit };

static tamm_tensor *IA, *IB, *OC, *FA, *FB, *FC, *INFO, *IPIV, *TAU, *FTAU;
static double ha[NC][BS], hb[NC][BS], hc[NC][BS], htau[NC][16];
static float fa[NC][BS], fb[NC][BS], fc[NC][BS], ftau[NC][16];
static int hinfo[NC], hipiv[NC][16];
static int failed;

static double val(int c, int which, int e) { return (double)((c * 31 + which * 17 + e * 7) % 23) / 23.0 - 0.4; }

/* case c's host data: A, B, C (single precision: the same values rounded); A diagonally dominant
 * (the first `rows` diagonal elements of a matrix with leading dimension ld) when dom */
static void fill(int c, int dom, int rows, int ld)
{
    for (int e = 0; e < BS; e++) {
        ha[c][e] = val(c, 0, e);
        hb[c][e] = val(c, 1, e);
        hc[c][e] = val(c, 2, e);
    }
    for (int i = 0; dom && i < rows; i++) ha[c][i * ld + i] = 4.0 + i; /* the diagonal, in either layout */
}

/* a symmetric positive definite n x n matrix in A: the triangle uplo of layout lay, the other
 * triangle holding other values (a routine that reads it gives another result) */
static void fill_spd(int c, int n, int ld, int lay, int uplo)
{
    fill(c, 0, 0, 0);
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++) {
            double v = i == j ? n + 1.0 : val(c, 3, i * n + j) * 0.5;
            ha[c][i * ld + j] = ha[c][j * ld + i] = v;
        }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            int upper = lay == ROW ? j > i : i > j; /* element (i, j) of the layout's upper triangle */
            if (i != j && upper != (uplo == 'U')) ha[c][i * ld + j] = 99.0;
        }
}

/* the host data of case c into its blocks (the single-precision copies rounded from it) */
static void put(int c)
{
    for (int e = 0; e < BS; e++) {
        fa[c][e] = (float)ha[c][e];
        fb[c][e] = (float)hb[c][e];
        fc[c][e] = (float)hc[c][e];
    }
    memcpy(tamm_block(IA, c), ha[c], sizeof ha[c]);
    memcpy(tamm_block(IB, c), hb[c], sizeof hb[c]);
    memcpy(tamm_block(OC, c), hc[c], sizeof hc[c]);
    memcpy(tamm_block(FA, c), fa[c], sizeof fa[c]);
    memcpy(tamm_block(FB, c), fb[c], sizeof fb[c]);
    memcpy(tamm_block(FC, c), fc[c], sizeof fc[c]);
}

static double diff(const double *got, const double *want, int n)
{
    double m = 0;
    for (int e = 0; e < n; e++) {
        double d = fabs(got[e] - want[e]) / (1 + fabs(want[e]));
        if (!(d <= m)) m = isnan(d) ? INFINITY : d;
    }
    return m;
}

static double fdiff(const float *got, const float *want, int n)
{
    double m = 0;
    for (int e = 0; e < n; e++) {
        double d = fabs((double)got[e] - (double)want[e]) / (1 + fabs((double)want[e]));
        if (!(d <= m)) m = isnan(d) ? INFINITY : d;
    }
    return m;
}

/* compare the cases [c0, c1) of a kind: outputs, and info / pivots / tau when asked */
static void report(const char *kind, int c0, int c1, int lapack)
{
    int bad = 0;
    for (int c = c0; c < c1; c++) {
        double e = diff(tamm_block(OC, c), hc[c], BS), f = fdiff(tamm_block(FC, c), fc[c], BS);
        if (lapack) {
            e = fmax(e, diff(tamm_block(IA, c), ha[c], BS));
            f = fmax(f, fdiff(tamm_block(FA, c), fa[c], BS));
            e = fmax(e, diff(tamm_block(TAU, c), htau[c], 16));
            f = fmax(f, fdiff(tamm_block(FTAU, c), ftau[c], 16));
            if (*(const int *)tamm_block(INFO, c) != hinfo[c] || memcmp(tamm_block(IPIV, c), hipiv[c], sizeof hipiv[c])) e = INFINITY;
        }
        if (!(e <= 1e-12) || !(f <= 1e-4)) {
            printf("%s: case %d differs (%g in double, %g in single)\n", kind, c - c0, e, f);
            bad = 1;
        }
    }
    printf("%s: %d cases %s\n", kind, c1 - c0, bad ? "FAILED" : "ok");
    failed |= bad;
}

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK) return 1;
    openblas_set_num_threads(1);
    size_t d1[1] = {(size_t)NC * BS}, t1[1] = {BS}, d2[1] = {NC}, t2[1] = {1}, d3[1] = {(size_t)NC * 16}, t3[1] = {16};
    IA = tamm_tensor_create("IA", TAMM_F64, 1, d1, t1);
    IB = tamm_tensor_create("IB", TAMM_F64, 1, d1, t1);
    OC = tamm_tensor_create("OC", TAMM_F64, 1, d1, t1);
    FA = tamm_tensor_create("FA", TAMM_F32, 1, d1, t1);
    FB = tamm_tensor_create("FB", TAMM_F32, 1, d1, t1);
    FC = tamm_tensor_create("FC", TAMM_F32, 1, d1, t1);
    INFO = tamm_tensor_create("INFO", TAMM_I32, 1, d2, t2);
    IPIV = tamm_tensor_create("IPIV", TAMM_I32, 1, d3, t3);
    TAU = tamm_tensor_create("TAU", TAMM_F64, 1, d3, t3);
    FTAU = tamm_tensor_create("FTAU", TAMM_F32, 1, d3, t3);
    int c = 0, c0;

    /* gemm: C := alpha op(A) op(B) + beta C, beta 0.5 (readwrite), 1 (accum), 0 (write, or readwrite with padding) */
    c0 = c;
    for (int l = 0; l < 2; l++)
        for (int x = 0; x < 2; x++)
            for (int y = 0; y < 2; y++)
                for (int bi = 0; bi < 3; bi++, c++) {
                    int lay = layouts[l], ta = transes[x], tb = transes[y], row = lay == ROW;
                    int ra = ta == CblasNoTrans ? M : K, ca = ta == CblasNoTrans ? K : M;
                    int rb = tb == CblasNoTrans ? K : N, cb = tb == CblasNoTrans ? N : K;
                    int lda = (row ? ca : ra) + PAD, ldb = (row ? cb : rb) + PAD, ldc = (row ? N : M) + PAD * (bi != 2);
                    double beta = bi == 0 ? 0.5 : bi == 1 ? 1.0 : 0.0;
                    fill(c, 0, 0, 0);
                    put(c);
                    if (bi == 0) {
                        #pragma tamm task label("gemm")
                        cblas_dgemm(lay, ta, tb, M, N, K, 1.5, tamm_block(IA, c), lda, tamm_block(IB, c), ldb, 0.5,
                                    tamm_block(OC, c), ldc);
                    } else if (bi == 1) {
                        #pragma tamm task label("gemm_acc")
                        {
                            const double *a = tamm_block(IA, c), *b = tamm_block(IB, c);
                            double *o = tamm_block(OC, c);
                            cblas_dgemm(lay, ta, tb, M, N, K, -0.75, a, lda, b, ldb, 1.0, o, ldc);
                        }
                    } else {
                        #pragma tamm task label("gemm_set")
                        cblas_dgemm(lay, ta, tb, M, N, K, 2.0, tamm_block(IA, c), lda, tamm_block(IB, c), ldb, 0.0,
                                    tamm_block(OC, c), ldc);
                    }
                    #pragma tamm task label("sgemm")
                    cblas_sgemm(lay, ta, tb, M, N, K, 1.5f, tamm_block(FA, c), lda, tamm_block(FB, c), ldb, 0.5f,
                                tamm_block(FC, c), ldc);
                    cblas_dgemm(lay, ta, tb, M, N, K, bi == 0 ? 1.5 : bi == 1 ? -0.75 : 2.0, ha[c], lda, hb[c], ldb, beta,
                                hc[c], ldc);
                    cblas_sgemm(lay, ta, tb, M, N, K, 1.5f, fa[c], lda, fb[c], ldb, 0.5f, fc[c], ldc);
                }
    #pragma tamm taskwait
    report("gemm", c0, c, 0);

    /* symm, with A read from one triangle only (the other holds other values) */
    c0 = c;
    for (int l = 0; l < 2; l++)
        for (int s = 0; s < 2; s++)
            for (int u = 0; u < 2; u++, c++) {
                int lay = layouts[l], side = sides[s], uplo = uplos[u], row = lay == ROW;
                int ka = side == CblasLeft ? M : N, lda = ka + PAD, ldb = (row ? N : M) + PAD, ldc = (row ? N : M) + 1;
                fill(c, 0, 0, 0);
                put(c);
                #pragma tamm task label("symm")
                cblas_dsymm(lay, side, uplo, M, N, 0.5, tamm_block(IA, c), lda, tamm_block(IB, c), ldb, -1.0,
                            tamm_block(OC, c), ldc);
                #pragma tamm task label("ssymm")
                cblas_ssymm(lay, side, uplo, M, N, 0.5f, tamm_block(FA, c), lda, tamm_block(FB, c), ldb, -1.0f,
                            tamm_block(FC, c), ldc);
                cblas_dsymm(lay, side, uplo, M, N, 0.5, ha[c], lda, hb[c], ldb, -1.0, hc[c], ldc);
                cblas_ssymm(lay, side, uplo, M, N, 0.5f, fa[c], lda, fb[c], ldb, -1.0f, fc[c], ldc);
            }
    #pragma tamm taskwait
    report("symm", c0, c, 0);

    /* syrk: one triangle of C updated, the other must stay */
    c0 = c;
    for (int l = 0; l < 2; l++)
        for (int u = 0; u < 2; u++)
            for (int x = 0; x < 2; x++)
                for (int b1 = 0; b1 < 2; b1++, c++) {
                    int lay = layouts[l], uplo = uplos[u], tr = transes[x], row = lay == ROW;
                    int ra = tr == CblasNoTrans ? N : K, ca = tr == CblasNoTrans ? K : N, lda = (row ? ca : ra) + PAD;
                    fill(c, 0, 0, 0);
                    put(c);
                    if (b1) {
                        #pragma tamm task label("syrk_acc")
                        cblas_dsyrk(lay, uplo, tr, N, K, 2.0, tamm_block(IA, c), lda, 1.0, tamm_block(OC, c), N + 1);
                    } else {
                        #pragma tamm task label("syrk")
                        cblas_dsyrk(lay, uplo, tr, N, K, 2.0, tamm_block(IA, c), lda, 0.25, tamm_block(OC, c), N + 1);
                    }
                    #pragma tamm task label("ssyrk")
                    cblas_ssyrk(lay, uplo, tr, N, K, 2.0f, tamm_block(FA, c), lda, 0.25f, tamm_block(FC, c), N + 1);
                    cblas_dsyrk(lay, uplo, tr, N, K, 2.0, ha[c], lda, b1 ? 1.0 : 0.25, hc[c], N + 1);
                    cblas_ssyrk(lay, uplo, tr, N, K, 2.0f, fa[c], lda, 0.25f, fc[c], N + 1);
                }
    #pragma tamm taskwait
    report("syrk", c0, c, 0);

    /* trsm and trmm: B := alpha op(A)^-1 B, alpha op(A) B (or B op(A)...), A triangular, in place */
    for (int which = 0; which < 2; which++) {
        c0 = c;
        for (int l = 0; l < 2; l++)
            for (int s = 0; s < 2; s++)
                for (int u = 0; u < 2; u++)
                    for (int x = 0; x < 2; x++)
                        for (int d = 0; d < 2; d++, c++) {
                            int lay = layouts[l], side = sides[s], uplo = uplos[u], tr = transes[x], diag = diags[d];
                            int row = lay == ROW, ka = side == CblasLeft ? M : N, lda = ka + PAD, ldb = (row ? N : M) + PAD;
                            fill(c, 1, ka, lda);
                            memcpy(hc[c], hb[c], sizeof hc[c]); /* B, solved in place */
                            put(c);
                            if (which == 0) {
                                #pragma tamm task label("trsm")
                                cblas_dtrsm(lay, side, uplo, tr, diag, M, N, 0.5, tamm_block(IA, c), lda, tamm_block(OC, c), ldb);
                                #pragma tamm task label("strsm")
                                cblas_strsm(lay, side, uplo, tr, diag, M, N, 0.5f, tamm_block(FA, c), lda, tamm_block(FC, c), ldb);
                                cblas_dtrsm(lay, side, uplo, tr, diag, M, N, 0.5, ha[c], lda, hc[c], ldb);
                                cblas_strsm(lay, side, uplo, tr, diag, M, N, 0.5f, fa[c], lda, fc[c], ldb);
                            } else {
                                #pragma tamm task label("trmm")
                                cblas_dtrmm(lay, side, uplo, tr, diag, M, N, 0.5, tamm_block(IA, c), lda, tamm_block(OC, c), ldb);
                                #pragma tamm task label("strmm")
                                cblas_strmm(lay, side, uplo, tr, diag, M, N, 0.5f, tamm_block(FA, c), lda, tamm_block(FC, c), ldb);
                                cblas_dtrmm(lay, side, uplo, tr, diag, M, N, 0.5, ha[c], lda, hc[c], ldb);
                                cblas_strmm(lay, side, uplo, tr, diag, M, N, 0.5f, fa[c], lda, fc[c], ldb);
                            }
                        }
        #pragma tamm taskwait
        report(which ? "trmm" : "trsm", c0, c, 0);
    }

    /* gemv, with increments 1, 2 and -2 */
    static const int incs[3][2] = { { 1, 1 }, { 2, 3 }, { -2, -1 } };
    c0 = c;
    for (int l = 0; l < 2; l++)
        for (int x = 0; x < 2; x++)
            for (int i = 0; i < 3; i++, c++) {
                int lay = layouts[l], tr = transes[x], lda = (lay == ROW ? N : M) + PAD, ix = incs[i][0], iy = incs[i][1];
                fill(c, 0, 0, 0);
                put(c);
                #pragma tamm task label("gemv")
                cblas_dgemv(lay, tr, M, N, 0.5, tamm_block(IA, c), lda, tamm_block(IB, c), ix, 2.0, tamm_block(OC, c), iy);
                #pragma tamm task label("sgemv")
                cblas_sgemv(lay, tr, M, N, 0.5f, tamm_block(FA, c), lda, tamm_block(FB, c), ix, 2.0f, tamm_block(FC, c), iy);
                cblas_dgemv(lay, tr, M, N, 0.5, ha[c], lda, hb[c], ix, 2.0, hc[c], iy);
                cblas_sgemv(lay, tr, M, N, 0.5f, fa[c], lda, fb[c], ix, 2.0f, fc[c], iy);
            }
    #pragma tamm taskwait
    report("gemv", c0, c, 0);

    /* axpy (y accumulated) and scal */
    c0 = c;
    for (int i = 0; i < 3; i++, c++) {
        int ix = incs[i][0], iy = incs[i][1];
        fill(c, 0, 0, 0);
        put(c);
        #pragma tamm task label("axpy")
        cblas_daxpy(M * N, -1.25, tamm_block(IA, c), ix, tamm_block(OC, c), iy);
        #pragma tamm task label("sscal")
        cblas_sscal(M * N, 3.0f, tamm_block(FC, c), ix > 0 ? ix : -ix);
        cblas_daxpy(M * N, -1.25, ha[c], ix, hc[c], iy);
        cblas_sscal(M * N, 3.0f, fc[c], ix > 0 ? ix : -ix);
    }
    for (int i = 0; i < 2; i++, c++) {
        fill(c, 0, 0, 0);
        put(c);
        #pragma tamm task label("scal")
        cblas_dscal(M * N, -0.5, tamm_block(OC, c), i + 1);
        #pragma tamm task label("saxpy")
        cblas_saxpy(M * N, 2.0f, tamm_block(FA, c), i + 1, tamm_block(FC, c), 1);
        cblas_dscal(M * N, -0.5, hc[c], i + 1);
        cblas_saxpy(M * N, 2.0f, fa[c], i + 1, fc[c], 1);
    }
    #pragma tamm taskwait
    report("axpy, scal", c0, c, 0);

    /* dot into an element: '=', '+=' (accum) and '-=', increments of either sign */
    static const int dincs[6][2] = { { 1, 1 }, { 2, 3 }, { 3, 1 }, { -1, 2 }, { -2, -3 }, { 2, -1 } };
    c0 = c;
    for (int i = 0; i < 6; i++)
        for (int op = 0; op < 3; op++, c++) {
            int ix = dincs[i][0], iy = dincs[i][1], n = 40;
            fill(c, 0, 0, 0);
            put(c);
            if (op == 0) {
                #pragma tamm task label("dot")
                {
                    const double *x = tamm_block(IA, c), *y = tamm_block(IB, c);
                    double *d = tamm_block(OC, c);
                    d[3] = cblas_ddot(n, x, ix, y, iy);
                }
                hc[c][3] = cblas_ddot(n, ha[c], ix, hb[c], iy);
            } else if (op == 1 && (ix > 0) == (iy > 0)) {
                #pragma tamm task label("dot_acc")
                {
                    double *d = tamm_block(OC, c);
                    d[5] += cblas_ddot(n, tamm_block(IA, c), ix, tamm_block(IB, c), iy);
                }
                hc[c][5] += cblas_ddot(n, ha[c], ix, hb[c], iy);
            } else if (op == 2 && ((ix > 0) == (iy > 0) || ix == 1 || ix == -1 || iy == 1 || iy == -1)) {
                #pragma tamm task label("dot_sub")
                {
                    double *d = tamm_block(OC, c);
                    float *f = tamm_block(FC, c);
                    *d -= cblas_ddot(n, tamm_block(IA, c), ix, tamm_block(IB, c), iy);
                    f[1] = cblas_sdot(n, tamm_block(FA, c), ix, tamm_block(FB, c), iy);
                }
                hc[c][0] -= cblas_ddot(n, ha[c], ix, hb[c], iy);
                fc[c][1] = cblas_sdot(n, fa[c], ix, fb[c], iy);
            }
        }
    #pragma tamm taskwait
    report("dot", c0, c, 0);

    /* potrf: both layouts and triangles, the other triangle spoiled; info into a block; one matrix
     * that is not positive definite (info > 0) */
    c0 = c;
    for (int l = 0; l < 2; l++)
        for (int u = 0; u < 3; u++, c++) {
            int lay = l ? LAPACK_COL_MAJOR : LAPACK_ROW_MAJOR, n = 8, lda = n + PAD;
            char uplo = u == 1 ? 'U' : 'L';
            fill_spd(c, n, lda, lay == LAPACK_ROW_MAJOR ? ROW : COL, uplo);
            if (u == 2) ha[c][5 * lda + 5] = -1.0; /* not positive definite at row 5 */
            put(c);
            #pragma tamm task label("potrf")
            {
                double *a = tamm_block(IA, c);
                int *info = tamm_block(INFO, c);
                *info = LAPACKE_dpotrf(lay, uplo, n, a, lda);
            }
            #pragma tamm task label("spotrf")
            LAPACKE_spotrf(lay, uplo, n, tamm_block(FA, c), lda);
            hinfo[c] = LAPACKE_dpotrf(lay, uplo, n, ha[c], lda);
            LAPACKE_spotrf(lay, uplo, n, fa[c], lda);
        }
    #pragma tamm taskwait
    report("potrf", c0, c, 1);

    /* getrf (square and not), pivots and info into blocks; geqrf, tau into a block */
    static const int shapes[3][2] = { { 9, 7 }, { 7, 9 }, { 8, 8 } };
    c0 = c;
    for (int l = 0; l < 2; l++)
        for (int s = 0; s < 3; s++, c++) {
            int lay = l ? LAPACK_COL_MAJOR : LAPACK_ROW_MAJOR, m = shapes[s][0], n = shapes[s][1];
            int lda = (lay == LAPACK_ROW_MAJOR ? n : m) + PAD;
            fill(c, 0, 0, 0);
            put(c);
            #pragma tamm task label("getrf")
            {
                int *ip = tamm_block(IPIV, c), *info = tamm_block(INFO, c);
                info[0] = LAPACKE_dgetrf(lay, m, n, tamm_block(IA, c), lda, ip);
            }
            #pragma tamm task label("sgeqrf")
            LAPACKE_sgeqrf(lay, m, n, tamm_block(FA, c), lda, tamm_block(FTAU, c));
            hinfo[c] = LAPACKE_dgetrf(lay, m, n, ha[c], lda, hipiv[c]);
            LAPACKE_sgeqrf(lay, m, n, fa[c], lda, ftau[c]);
        }
    for (int l = 0; l < 2; l++)
        for (int s = 0; s < 3; s++, c++) {
            int lay = l ? LAPACK_COL_MAJOR : LAPACK_ROW_MAJOR, m = shapes[s][0], n = shapes[s][1];
            int lda = (lay == LAPACK_ROW_MAJOR ? n : m) + PAD;
            fill(c, 0, 0, 0);
            put(c);
            #pragma tamm task label("geqrf")
            LAPACKE_dgeqrf(lay, m, n, tamm_block(IA, c), lda, tamm_block(TAU, c));
            #pragma tamm task label("sgetrf")
            {
                int *ip = tamm_block(IPIV, c);
                LAPACKE_sgetrf(lay, m, n, tamm_block(FA, c), lda, ip);
            }
            LAPACKE_dgeqrf(lay, m, n, ha[c], lda, htau[c]);
            LAPACKE_sgetrf(lay, m, n, fa[c], lda, hipiv[c]);
        }
    #pragma tamm taskwait
    report("getrf, geqrf", c0, c, 1);

    tamm_tensor *all[] = { IA, IB, OC, FA, FB, FC, INFO, IPIV, TAU, FTAU };
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) tamm_tensor_destroy(all[i]);
    return tamm_finalize() == TAMM_OK && !failed ? 0 : 1;
}
