/*
 * linalg_starpu.c — the tiled GEMM and Cholesky benchmarks written for StarPU
 * 1.3 with the same tiles, tile kernels and task graphs as bench/gemm.c and
 * bench/cholesky.c (tamm) and linalg_omp.c.
 *
 *   linalg_starpu gemm|cholesky [-ooc] [-check] N [NB]     (NB default 256)
 *
 * Why, next to Debian's prebuilt examples: starpu-examples' cholesky_implicit
 * is single precision (sgemm/ssyrk/strsm, and an unblocked potrf loop when
 * StarPU is not built with MKL), and its dgemm splits C into 2-D panels that
 * each run one dgemm over the full K.  This program gives StarPU exactly the
 * work tamm gets: double precision, contiguous NB x NB row-major tiles, one
 * starpu_matrix handle per tile, starpu_task_insert with STARPU_R / STARPU_RW
 * (implicit, sequentially consistent dependences, as cholesky_implicit) and
 * the priorities of cholesky.c (STARPU_PRIORITY; used by priority-aware
 * schedulers such as STARPU_SCHED=prio or dmdas).
 *
 * Workers: STARPU_NCPU (StarPU's default otherwise); the main thread only
 * submits and waits.  The time runs from the first submission to the end of
 * starpu_task_wait_for_all() (as in cholesky_implicit); registration and the
 * (untimed) filling of the tiles come before.  OpenBLAS is single-threaded.
 *
 * Prints one RESULT line (linalg_common.h); -check compares with the
 * whole-matrix OpenBLAS result after starpu_shutdown().
 *
 * -ooc: out of core (bench/run_ooc.sh).  StarPU can evict only data it
 * allocated itself, so the tiles are registered with no home (home node -1)
 * and filled by (untimed) tasks in STARPU_W mode; with STARPU_LIMIT_CPU_MEM and
 * a disk node (STARPU_DISK_SWAP, STARPU_DISK_SWAP_BACKEND, STARPU_DISK_SWAP_SIZE)
 * StarPU then spills tiles to the disk node when main memory is full.  -check
 * reads each tile back with starpu_data_acquire before the handles are
 * unregistered.  impl=starpu_ooc in the RESULT line.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* madvise (linalg_common.h, LINALG_HUGEPAGES) */
#include <starpu.h>

#include "linalg_common.h"

static size_t N, NB, NT;
static double **tiles;
static starpu_data_handle_t *handles;

#define TILE(i, j) tiles[(size_t)(i) * NT + (size_t)(j)]
#define HANDLE(i, j) handles[(size_t)(i) * NT + (size_t)(j)]
static size_t ext(size_t b) { return b + 1 < NT ? NB : N - b * NB; }

/* StarPU's matrix interface: nx elements per row (contiguous), ny rows, ld. */
#define ROWS(d) ((int)STARPU_MATRIX_GET_NY(d))
#define COLS(d) ((int)STARPU_MATRIX_GET_NX(d))
#define PTR(d) ((double *)STARPU_MATRIX_GET_PTR(d))

static void cpu_gemm_nn(void *d[], void *arg)
{
    (void)arg;
    lc_gemm_nn(PTR(d[0]), PTR(d[1]), PTR(d[2]), ROWS(d[2]), COLS(d[2]), COLS(d[0]));
}
static void cpu_potrf(void *d[], void *arg)
{
    (void)arg;
    lc_potrf(PTR(d[0]), ROWS(d[0]));
}
static void cpu_trsm(void *d[], void *arg)
{
    (void)arg;
    lc_trsm(PTR(d[0]), PTR(d[1]), ROWS(d[1]), COLS(d[1]));
}
static void cpu_syrk(void *d[], void *arg)
{
    (void)arg;
    lc_syrk(PTR(d[0]), PTR(d[1]), ROWS(d[1]), COLS(d[0]));
}
static void cpu_gemm_nt(void *d[], void *arg)
{
    (void)arg;
    lc_gemm_nt(PTR(d[0]), PTR(d[1]), PTR(d[2]), ROWS(d[2]), COLS(d[2]), COLS(d[0]));
}

static struct starpu_codelet cl_gemm_nn = {
    .cpu_funcs = {cpu_gemm_nn}, .nbuffers = 3, .modes = {STARPU_R, STARPU_R, STARPU_RW}, .name = "gemm"};
static struct starpu_codelet cl_potrf = {
    .cpu_funcs = {cpu_potrf}, .nbuffers = 1, .modes = {STARPU_RW}, .name = "potrf"};
static struct starpu_codelet cl_trsm = {
    .cpu_funcs = {cpu_trsm}, .nbuffers = 2, .modes = {STARPU_R, STARPU_RW}, .name = "trsm"};
static struct starpu_codelet cl_syrk = {
    .cpu_funcs = {cpu_syrk}, .nbuffers = 2, .modes = {STARPU_R, STARPU_RW}, .name = "syrk"};
static struct starpu_codelet cl_gemm_nt = {
    .cpu_funcs = {cpu_gemm_nt}, .nbuffers = 3, .modes = {STARPU_R, STARPU_R, STARPU_RW}, .name = "gemm_nt"};

/* -ooc: a tile filled by a task (its handle has no home).  Arguments: which, row and
 * column of the tile's first element. */
static void cpu_fill(void *d[], void *arg)
{
    int which;
    size_t r0, c0;
    starpu_codelet_unpack_args(arg, &which, &r0, &c0);
    double *p = PTR(d[0]);
    size_t m = (size_t)ROWS(d[0]), n = (size_t)COLS(d[0]);
    if (which == LC_SPD)
        lc_init_spd_tile(p, m, n, r0, c0, N);
    else
        lc_init_gemm_tile(p, m, n, r0, c0, which);
}
static struct starpu_codelet cl_fill = {
    .cpu_funcs = {cpu_fill}, .nbuffers = 1, .modes = {STARPU_W}, .name = "fill"};

static int ooc; /* -ooc: StarPU-allocated tiles, which it may evict to a disk node */

static void check_ret(int ret, const char *what)
{
    if (ret != 0) {
        fprintf(stderr, "linalg_starpu: %s failed (%d)\n", what, ret);
        exit(1);
    }
}

/* Allocate, fill and register one tensor of tiles. */
static void make_tiles(double ***t, starpu_data_handle_t **h, int which, int lower_only)
{
    *t = calloc(NT * NT, sizeof **t);
    *h = calloc(NT * NT, sizeof **h);
    if (!*t || !*h) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < NT; i++)
        for (size_t j = 0; j < NT; j++) {
            if (lower_only && j > i) continue;
            size_t m = ext(i), n = ext(j);
            if (ooc) {
                size_t r0 = i * NB, c0 = j * NB;
                starpu_matrix_data_register(&(*h)[i * NT + j], -1, 0, (uint32_t)n, (uint32_t)n, (uint32_t)m,
                                            sizeof(double));
                check_ret(starpu_task_insert(&cl_fill, STARPU_W, (*h)[i * NT + j], STARPU_VALUE, &which,
                                             sizeof which, STARPU_VALUE, &r0, sizeof r0, STARPU_VALUE, &c0,
                                             sizeof c0, 0),
                          "starpu_task_insert(fill)");
                continue;
            }
            double *p = lc_alloc(m * n);
            if (which == LC_SPD)
                lc_init_spd_tile(p, m, n, i * NB, j * NB, N);
            else
                lc_init_gemm_tile(p, m, n, i * NB, j * NB, which);
            (*t)[i * NT + j] = p;
            starpu_matrix_data_register(&(*h)[i * NT + j], STARPU_MAIN_RAM, (uintptr_t)p, (uint32_t)n,
                                        (uint32_t)n, (uint32_t)m, sizeof(double));
        }
}

static void drop_tiles(double **t, starpu_data_handle_t *h)
{
    for (size_t k = 0; k < NT * NT; k++)
        if (h[k]) starpu_data_unregister(h[k]);
    free(h);
    if (t != tiles) {
        for (size_t k = 0; k < NT * NT; k++) free(t[k]);
        free(t);
    }
}

/* -ooc -check: copy each tile into got (N x N, row-major) through starpu_data_acquire,
 * which brings it back from the disk node if it was evicted. */
static void gather_ooc(double *got, int lower_only)
{
    for (size_t bi = 0; bi < NT; bi++)
        for (size_t bj = 0; bj < NT; bj++) {
            if (lower_only && bj > bi) continue;
            starpu_data_handle_t h = HANDLE(bi, bj);
            check_ret(starpu_data_acquire(h, STARPU_R), "starpu_data_acquire");
            const double *t = (const double *)starpu_matrix_get_local_ptr(h);
            size_t m = ext(bi), n = ext(bj);
            for (size_t i = 0; i < m; i++) memcpy(&got[(bi * NB + i) * N + bj * NB], &t[i * n], n * sizeof(double));
            starpu_data_release(h);
        }
}

int main(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[1], "gemm") != 0 && strcmp(argv[1], "cholesky") != 0)) {
        fprintf(stderr, "usage: %s gemm|cholesky [-check] N [NB]\n", argv[0]);
        return 2;
    }
    const char *kernel = argv[1];
    if (argc > 2 && strcmp(argv[2], "-ooc") == 0) { /* linalg_starpu K -ooc [-check] N [NB] */
        ooc = 1;
        for (int i = 2; i + 1 < argc; i++) argv[i] = argv[i + 1];
        argc--;
    }
    lc_args a;
    lc_parse(argc, argv, 2, &a, 256);
    N = a.N;
    NB = a.NB;
    NT = (N + NB - 1) / NB;
    int chol = strcmp(kernel, "cholesky") == 0;
    openblas_set_num_threads(1); /* one core per tile kernel: the tasks are the parallelism */

    check_ret(starpu_init(NULL), "starpu_init");
    int workers = (int)starpu_cpu_worker_get_count();
    struct starpu_sched_policy *pol = starpu_sched_ctx_get_sched_policy(0);
    fprintf(stderr, "linalg_starpu: %d CPU workers, scheduler %s\n", workers,
            pol && pol->policy_name ? pol->policy_name : "?");

    double **At = NULL, **Bt = NULL;
    starpu_data_handle_t *Ah = NULL, *Bh = NULL;
    double secs;
    if (!chol) {
        make_tiles(&At, &Ah, LC_A, 0);
        make_tiles(&Bt, &Bh, LC_B, 0);
        make_tiles(&tiles, &handles, LC_C, 0);
        if (ooc) starpu_task_wait_for_all(); /* the fills: untimed */
        double t0 = lc_now();
        for (size_t i = 0; i < NT; i++)
            for (size_t j = 0; j < NT; j++)
                for (size_t k = 0; k < NT; k++)
                    check_ret(starpu_task_insert(&cl_gemm_nn, STARPU_R, Ah[i * NT + k], STARPU_R,
                                                 Bh[k * NT + j], STARPU_RW, HANDLE(i, j), 0),
                              "starpu_task_insert");
        starpu_task_wait_for_all();
        secs = lc_now() - t0;
    } else {
        make_tiles(&tiles, &handles, LC_SPD, 1);
        if (ooc) starpu_task_wait_for_all(); /* the fills: untimed */
        double t0 = lc_now();
        for (size_t k = 0; k < NT; k++) {
            check_ret(starpu_task_insert(&cl_potrf, STARPU_PRIORITY, 3, STARPU_RW, HANDLE(k, k), 0),
                      "starpu_task_insert");
            for (size_t i = k + 1; i < NT; i++)
                check_ret(starpu_task_insert(&cl_trsm, STARPU_PRIORITY, i == k + 1 ? 2 : 1, STARPU_R,
                                             HANDLE(k, k), STARPU_RW, HANDLE(i, k), 0),
                          "starpu_task_insert");
            for (size_t i = k + 1; i < NT; i++) {
                check_ret(starpu_task_insert(&cl_syrk, STARPU_PRIORITY, i == k + 1 ? 2 : 0, STARPU_R,
                                             HANDLE(i, k), STARPU_RW, HANDLE(i, i), 0),
                          "starpu_task_insert");
                for (size_t j = k + 1; j < i; j++)
                    check_ret(starpu_task_insert(&cl_gemm_nt, STARPU_PRIORITY, j == k + 1 ? 1 : 0, STARPU_R,
                                                 HANDLE(i, k), STARPU_R, HANDLE(j, k), STARPU_RW,
                                                 HANDLE(i, j), 0),
                              "starpu_task_insert");
            }
        }
        starpu_task_wait_for_all();
        secs = lc_now() - t0;
    }
    double *got = NULL;
    if (ooc && a.check) {
        got = lc_alloc(N * N);
        memset(got, 0, N * N * sizeof(double));
        gather_ooc(got, chol);
    }
    if (!chol) {
        drop_tiles(At, Ah);
        drop_tiles(Bt, Bh);
    }
    drop_tiles(tiles, handles); /* unregister: the tiles are back in main memory (-ooc: freed) */
    starpu_shutdown();

    int ok = 1;
    double err = 0.0;
    if (got) {
        err = lc_check_against_openblas(kernel, got, N, &ok);
        free(got);
    } else if (a.check) {
        double *got = lc_alloc(N * N);
        memset(got, 0, N * N * sizeof(double));
        for (size_t bi = 0; bi < NT; bi++)
            for (size_t bj = 0; bj < NT; bj++) {
                if (chol && bj > bi) continue;
                size_t m = ext(bi), n = ext(bj);
                for (size_t i = 0; i < m; i++)
                    memcpy(&got[(bi * NB + i) * N + bj * NB], &TILE(bi, bj)[i * n], n * sizeof(double));
            }
        err = lc_check_against_openblas(kernel, got, N, &ok);
        free(got);
    }
    for (size_t k = 0; k < NT * NT; k++) free(tiles[k]);
    free(tiles);
    return lc_report(kernel, ooc ? "starpu_ooc" : "starpu_tiles", N, NB, workers, secs, a.check, ok, err);
}
