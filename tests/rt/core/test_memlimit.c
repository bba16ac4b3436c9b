/*
 * test_memlimit.c — host memory as a bounded memory unit under TAMM_MEMORY_LIMIT
 * (issue 19, items 1, 2 and 4; docs/runtime.md "Block memory").
 *
 * Each case runs in a fresh child process (this program re-executed), so that
 * its maxrss (getrusage) is its own:
 *   - a computation over 3 tensors of 43 blocks of 512 KiB (64.5 MiB, one of
 *     them generated on demand) under TAMM_MEMORY_LIMIT=16M at 1, 2 and 4
 *     workers: maxrss stays below the limit + the baseline of an empty run +
 *     SLACK_MB (the documented constant), the results equal the sequential
 *     reference and a run without a limit bit for bit, TAMM_STATS reports
 *     spills, read-backs and evictions, no task's body waited for a read-back
 *     (its task was queued only once its blocks were back), and the spill directory is empty
 *     afterwards (the file is unlinked once opened);
 *   - a task whose blocks alone exceed the limit: TAMM_ENOMEM naming the task
 *     and the sizes, no hang;
 *   - a full disk (RLIMIT_FSIZE of 2 MiB in the child): a clear error naming the
 *     spill file, and results still equal to the reference;
 *   - blocks never written read as zeros although their memory is that of
 *     evicted blocks (spill.c's spare buffers).
 * On a runtime that ignores the limit, the maxrss bound and the two errors fail.
 */
#include <tamm.h>

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define NB 43                 /* blocks per tensor */
#define TILE (64 * 1024)      /* doubles per block: 512 KiB */
#ifndef LIMIT_MB
#define LIMIT_MB 16
#endif
/* MEMLIMIT_MPI (tests/rt/mpi/test_mpi_memlimit_rss.c): each child is an MPI run of
 * $TAMM_TEST_RANKS ranks launched by $MPIRUN; every rank prints its line, and a
 * child's result is the worst of them (maxrss: the largest). */
#ifndef MEMLIMIT_MPI
#define MEMLIMIT_MPI 0
#endif
#define SLACK_MB 8            /* docs/runtime.md "Block memory": maxrss <= limit + baseline + 8 MiB */

/* ThreadSanitizer's shadow memory grows with the memory touched, not with what
 * is resident: there maxrss says nothing about the runtime (the run without a
 * limit reaches 350 MB), so the bound is not checked; everything else is. */
#if defined(__SANITIZE_THREAD__)
#define RSS_CHECKED 0
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RSS_CHECKED 0
#endif
#endif
#ifndef RSS_CHECKED
#define RSS_CHECKED 1
#endif

static int failures;
#define CHECK(c, ...)                                                                 \
    do {                                                                              \
        if (!(c)) {                                                                   \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                      \
            fprintf(stderr, __VA_ARGS__);                                             \
            fprintf(stderr, "\n");                                                    \
            failures++;                                                               \
        }                                                                             \
    } while (0)

/* ---- the computation (child side) ---- */
static double xval(long i, size_t k) { return (double)(i * 1000 + (long)(k % 977)) * 0.5; }

static void gen_x(const tamm_tensor *T, const long *idx, void *buf, void *arg)
{
    (void)T; (void)arg;
    double *x = buf;
    for (size_t k = 0; k < TILE; k++) x[k] = xval(idx[0], k);
}

typedef struct { tamm_tensor *X, *Y, *Z, *S; long i; } targs;

static void t_y(tamm_ctx *c, void *a) /* Y[i] = 2 X[i] + i */
{
    targs *g = a;
    long i = g->i;
    const double *x = tamm_get_buf_read(c, g->X, &i);
    double *y = tamm_get_buf_write(c, g->Y, &i);
    for (size_t k = 0; k < TILE; k++) y[k] = 2 * x[k] + (double)i;
    tamm_release_put(c, (void *)x);
    tamm_release_put(c, y);
}

static void t_z(tamm_ctx *c, void *a) /* Z[i] = Y[i] + Y[i+1] */
{
    targs *g = a;
    long i = g->i, j = (g->i + 1) % NB;
    const double *y0 = tamm_get_buf_read(c, g->Y, &i);
    const double *y1 = tamm_get_buf_read(c, g->Y, &j);
    double *z = tamm_get_buf_write(c, g->Z, &i);
    for (size_t k = 0; k < TILE; k++) z[k] = y0[k] + y1[k];
    tamm_release_put(c, (void *)y0);
    tamm_release_put(c, (void *)y1);
    tamm_release_put(c, z);
}

static void t_acc(tamm_ctx *c, void *a) /* Z[i] += X[i+3] */
{
    targs *g = a;
    long i = g->i, j = (g->i + 3) % NB;
    const double *x = tamm_get_buf_read(c, g->X, &j);
    double *z = tamm_get_buf_accum(c, g->Z, &i);
    for (size_t k = 0; k < TILE; k++) z[k] += x[k];
    tamm_release_put(c, (void *)x);
    tamm_release_add(c, z);
}

static void t_sum(tamm_ctx *c, void *a) /* S[i] += sum Z[i], S[NB + i] += sum Y[i] (element i only) */
{
    targs *g = a;
    long i = g->i, zero = 0;
    const double *z = tamm_get_buf_read(c, g->Z, &i);
    const double *y = tamm_get_buf_read(c, g->Y, &i);
    double *s = tamm_get_buf_accum(c, g->S, &zero);
    double sz = 0, sy = 0;
    for (size_t k = 0; k < TILE; k++) { sz += z[k]; sy += y[k]; }
    s[i] += sz;
    s[NB + i] += sy;
    tamm_release_put(c, (void *)z);
    tamm_release_put(c, (void *)y);
    tamm_release_add(c, s);
}

static void reference(double *s)
{
    for (long i = 0; i < NB; i++) {
        long j = (i + 1) % NB, m = (i + 3) % NB;
        double sz = 0, sy = 0;
        for (size_t k = 0; k < TILE; k++) {
            double y0 = 2 * xval(i, k) + (double)i, y1 = 2 * xval(j, k) + (double)j;
            double z = y0 + y1;
            z = z + xval(m, k);
            sz += z;
            sy += y0;
        }
        s[i] = sz;
        s[NB + i] = sy;
    }
}

static uint64_t fnv(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static int child_compute(int argc, char **argv)
{
    (void)argc; (void)argv;
    alarm(120);
    if (tamm_init(&argc, &argv) != TAMM_OK) return 3;
    size_t dims = (size_t)NB * TILE, tile = TILE, sd = 2 * NB;
    tamm_tensor_opts o;
    memset(&o, 0, sizeof o);
    o.gen = gen_x;
    tamm_tensor *X = tamm_tensor_create_ex("X", TAMM_F64, 1, &dims, &tile, &o);
    tamm_tensor *Y = tamm_tensor_create("Y", TAMM_F64, 1, &dims, &tile);
    tamm_tensor *Z = tamm_tensor_create("Z", TAMM_F64, 1, &dims, &tile);
    tamm_tensor *S = tamm_tensor_create("S", TAMM_F64, 1, &sd, &sd);
    static targs args[NB];
    void (*fns[])(tamm_ctx *, void *) = { t_y, t_z, t_acc, t_sum };
    for (int phase = 0; phase < 4; phase++)
        for (long i = 0; i < NB; i++) {
            long j = (i + 1) % NB, m = (i + 3) % NB, zero = 0;
            args[i] = (targs){ X, Y, Z, S, i };
            tamm_ref r[3];
            int nr = 0;
            memset(r, 0, sizeof r);
            switch (phase) {
            case 0: r[0] = (tamm_ref){ X, 1, { i }, TAMM_READ }; r[1] = (tamm_ref){ Y, 1, { i }, TAMM_WRITE }; nr = 2; break;
            case 1: r[0] = (tamm_ref){ Y, 1, { i }, TAMM_READ }; r[1] = (tamm_ref){ Z, 1, { i }, TAMM_WRITE }; nr = 2;
                    if (j != i) r[nr++] = (tamm_ref){ Y, 1, { j }, TAMM_READ };
                    break;
            case 2: r[0] = (tamm_ref){ X, 1, { m }, TAMM_READ }; r[1] = (tamm_ref){ Z, 1, { i }, TAMM_ACCUM }; nr = 2; break;
            case 3: r[0] = (tamm_ref){ Z, 1, { i }, TAMM_READ }; r[1] = (tamm_ref){ Y, 1, { i }, TAMM_READ };
                    r[2] = (tamm_ref){ S, 1, { zero }, TAMM_ACCUM }; nr = 3; break;
            }
            tamm_task t;
            memset(&t, 0, sizeof t);
            t.cpu = fns[phase];
            t.args = &args[i];
            t.args_size = sizeof args[i];
            t.refs = r;
            t.nrefs = nr;
            t.label = phase == 0 ? "y" : phase == 1 ? "z" : phase == 2 ? "acc" : "sum";
            int rc = tamm_submit(NULL, &t);
            if (rc) { printf("rc=%d\n", rc); return 4; }
        }
    int rc = tamm_wait_all();
    double s[2 * NB];
    int grc = tamm_tensor_gather(S, s);
    double ref[2 * NB];
    reference(ref);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("rc=%d gather=%d equal=%d hash=%016llx rss_kb=%ld\n", rc, grc, memcmp(s, ref, sizeof s) == 0,
           (unsigned long long)fnv(s, sizeof s), ru.ru_maxrss);
    fflush(stdout);
    tamm_tensor_destroy(X); tamm_tensor_destroy(Y); tamm_tensor_destroy(Z); tamm_tensor_destroy(S);
    tamm_finalize();
    return 0;
}

static int child_base(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK) return 3;
    size_t d = 8, t = 8;
    tamm_tensor *A = tamm_tensor_create("A", TAMM_F64, 1, &d, &t);
    long z = 0;
    double *p = tamm_block_at(A, &z, 1);
    p[0] = 1;
    tamm_wait_all();
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("rc=0 gather=0 equal=1 hash=0 rss_kb=%ld\n", ru.ru_maxrss);
    tamm_tensor_destroy(A);
    tamm_finalize();
    return 0;
}

static void t_two(tamm_ctx *c, void *a)
{
    (void)a;
    long i = 0, j = 1;
    tamm_tensor *A = *(tamm_tensor **)a;
    tamm_release_put(c, tamm_get_buf_read(c, A, &i));
    tamm_release_put(c, tamm_get_buf_read(c, A, &j));
}

static int child_toobig(int argc, char **argv)
{
    alarm(60);
    if (tamm_init(&argc, &argv) != TAMM_OK) return 3;
    size_t d = 2 * 131072, t = 131072; /* two blocks of 1 MiB */
    tamm_tensor *A = tamm_tensor_create("A", TAMM_F64, 1, &d, &t);
    tamm_ref r[2] = { { A, 1, { 0 }, TAMM_READ }, { A, 1, { 1 }, TAMM_READ } };
    tamm_task k;
    memset(&k, 0, sizeof k);
    k.cpu = t_two;
    k.args = &A;
    k.args_size = sizeof A;
    k.refs = r;
    k.nrefs = 2;
    k.label = "reads_two_mib";
    int rc = tamm_submit(NULL, &k);
    if (!rc) rc = tamm_wait_all();
    printf("rc=%d\n", rc);
    fflush(stdout);
    tamm_tensor_destroy(A);
    tamm_finalize();
    return 0;
}

/* ---- never-written blocks in recycled memory ---- */
#define NZ 8 /* blocks of A and of B; the limit holds 4 */
typedef struct { tamm_tensor *T, *S; long i; } zargs;

static void t_fill(tamm_ctx *c, void *a) /* A[i] = 7 */
{
    zargs *g = a;
    double *p = tamm_get_buf_write(c, g->T, &g->i);
    for (size_t k = 0; k < TILE; k++) p[k] = 7.0;
    tamm_release_put(c, p);
}

static void t_count(tamm_ctx *c, void *a) /* S[0] += number of nonzero elements of B[i] */
{
    zargs *g = a;
    long zero = 0;
    const double *p = tamm_get_buf_read(c, g->T, &g->i);
    double *s = tamm_get_buf_accum(c, g->S, &zero);
    for (size_t k = 0; k < TILE; k++) s[0] += p[k] != 0.0;
    tamm_release_put(c, (void *)p);
    tamm_release_add(c, s);
}

static int child_zeros(int argc, char **argv)
{
    alarm(60);
    if (tamm_init(&argc, &argv) != TAMM_OK) return 3;
    size_t dims = (size_t)NZ * TILE, tile = TILE, one = 1;
    tamm_tensor *A = tamm_tensor_create("A", TAMM_F64, 1, &dims, &tile);
    tamm_tensor *B = tamm_tensor_create("B", TAMM_F64, 1, &dims, &tile);
    tamm_tensor *S = tamm_tensor_create("S", TAMM_F64, 1, &one, &one);
    static zargs args[2 * NZ];
    for (int phase = 0; phase < 2; phase++)
        for (long i = 0; i < NZ; i++) {
            zargs *g = &args[phase * NZ + i];
            *g = (zargs){ phase ? B : A, S, i };
            tamm_ref r[2] = { { g->T, 1, { i }, phase ? TAMM_READ : TAMM_WRITE }, { S, 1, { 0 }, TAMM_ACCUM } };
            tamm_task t;
            memset(&t, 0, sizeof t);
            t.cpu = phase ? t_count : t_fill;
            t.args = g;
            t.args_size = sizeof *g;
            t.refs = r;
            t.nrefs = phase ? 2 : 1;
            t.label = phase ? "count" : "fill";
            if (tamm_submit(NULL, &t)) return 4;
        }
    int rc = tamm_wait_all();
    double s = -1;
    int grc = tamm_tensor_gather(S, &s);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("rc=%d gather=%d equal=%d hash=%llx rss_kb=%ld\n", rc, grc, s == 0.0, (unsigned long long)s, ru.ru_maxrss);
    fflush(stdout);
    tamm_tensor_destroy(A); tamm_tensor_destroy(B); tamm_tensor_destroy(S);
    tamm_finalize();
    return 0;
}

/* ---- parent side ---- */
static char self[4096];
static int g_ranks = 1;
static char spilldir[256];

typedef struct { int rc, grc, equal; unsigned long long hash; long rss_kb; char err[8192]; } result;

static int run_child(const char *env, const char *mode, result *res)
{
    char cmd[8192], errf[300], launch[512] = "";
    snprintf(errf, sizeof errf, "%s/../stderr.txt", spilldir);
    if (MEMLIMIT_MPI)
        snprintf(launch, sizeof launch, "%s -np %d", getenv("MPIRUN") ? getenv("MPIRUN") : "mpirun", g_ranks);
    snprintf(cmd, sizeof cmd, "env TAMM_SPILL_DIR=%s %s %s '%s' %s 2>%s", spilldir, env, launch, self, mode, errf);
    memset(res, 0, sizeof *res);
    res->rc = -999;
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    char line[512];
    int lines = 0;
    while (fgets(line, sizeof line, p)) {
        result one;
        memset(&one, 0, sizeof one);
        int n = sscanf(line, "rc=%d gather=%d equal=%d hash=%llx rss_kb=%ld", &one.rc, &one.grc, &one.equal, &one.hash,
                       &one.rss_kb);
        if (n < 1) continue;
        if (lines++ == 0 || (res->rc == 0 && one.rc != 0)) res->rc = one.rc; /* the worst rank's */
        if (n < 5) continue;
        if (lines == 1 || one.grc) res->grc = one.grc;
        res->equal = lines == 1 ? one.equal : res->equal && one.equal && one.hash == res->hash;
        if (lines == 1) res->hash = one.hash;
        if (one.rss_kb > res->rss_kb) res->rss_kb = one.rss_kb;
    }
    if (MEMLIMIT_MPI && lines != g_ranks && lines) res->rc = -998; /* some rank printed nothing */
    int st = pclose(p);
    FILE *e = fopen(errf, "r");
    if (e) {
        size_t n = fread(res->err, 1, sizeof res->err - 1, e);
        res->err[n] = 0;
        fclose(e);
    }
    return st;
}

/* The most evictions a rank's TAMM_STATS line reports ("...bytes: N evictions"). */
static long max_evictions(const char *err)
{
    long most = 0;
    for (const char *p = strstr(err, " evictions"); p; p = strstr(p + 1, " evictions")) {
        const char *q = p;
        while (q > err && q[-1] >= '0' && q[-1] <= '9') q--;
        if (q < p && atol(q) > most) most = atol(q);
    }
    return most;
}

static int dir_empty(const char *d)
{
    DIR *dd = opendir(d);
    if (!dd) return 0;
    struct dirent *de;
    int n = 0;
    while ((de = readdir(dd)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) n++;
    closedir(dd);
    return n == 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "compute")) return child_compute(argc, argv);
    if (argc > 1 && !strcmp(argv[1], "base")) return child_base(argc, argv);
    if (argc > 1 && !strcmp(argv[1], "toobig")) return child_toobig(argc, argv);
    if (argc > 1 && !strcmp(argv[1], "zeros")) return child_zeros(argc, argv);
    if (argc > 1 && !strcmp(argv[1], "fsize")) {
        struct rlimit rl = { 2u << 20, 2u << 20 };
        setrlimit(RLIMIT_FSIZE, &rl);
        return child_compute(argc, argv);
    }
    if (MEMLIMIT_MPI) {
        g_ranks = getenv("TAMM_TEST_RANKS") ? atoi(getenv("TAMM_TEST_RANKS")) : 2;
        if (g_ranks < 1) g_ranks = 1;
        printf("each case on %d MPI ranks; maxrss is the largest rank's, TAMM_MEMORY_LIMIT applies per rank\n", g_ranks);
    }
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) { perror("readlink"); return 2; }
    self[n] = 0;
    char tmpl[] = "/tmp/tamm-memlimit-test-XXXXXX";
    char *top = mkdtemp(tmpl);
    if (!top) { perror("mkdtemp"); return 2; }
    snprintf(spilldir, sizeof spilldir, "%s/spill", top);
    mkdir(spilldir, 0700);

    result base, plain, r;
    int st = run_child("TAMM_NUM_WORKERS=2", "base", &base);
    printf("baseline (tamm_init, one tiny tensor): maxrss %ld KiB\n", base.rss_kb);
    CHECK(st == 0, "the baseline child exited with status %d", st);
    st = run_child("TAMM_NUM_WORKERS=2", "compute", &plain);
    CHECK(st == 0, "the computation without a limit: the child exited with status %d", st);
    printf("no limit: rc=%d equal=%d maxrss %ld KiB\n", plain.rc, plain.equal, plain.rss_kb);
    CHECK(plain.rc == 0 && plain.equal, "the computation without a limit: rc %d, equal %d\n%s", plain.rc, plain.equal, plain.err);
    long bound_kb = (long)LIMIT_MB * 1024 + base.rss_kb + SLACK_MB * 1024;
    for (int w = 1; w <= (MEMLIMIT_MPI ? 2 : 4); w *= 2) {
        char env[256];
        snprintf(env, sizeof env, "TAMM_NUM_WORKERS=%d TAMM_MEMORY_LIMIT=%dM TAMM_STATS=1", w, LIMIT_MB);
        st = run_child(env, "compute", &r);
        CHECK(st == 0, "%d workers: the child exited with status %d\n%s", w, st, r.err);
        printf("limit %d MiB, %d workers: rc=%d equal=%d maxrss %ld KiB (bound %ld KiB)\n", LIMIT_MB, w, r.rc, r.equal,
               r.rss_kb, bound_kb);
        const char *sl = strstr(r.err, "memory limit");
        if (sl) {
            const char *e = strchr(sl, '\n');
            printf("  %.*s\n", e ? (int)(e - sl) : (int)strlen(sl), sl);
        }
        CHECK(r.rc == 0 && r.grc == 0, "%d workers: rc %d, gather %d\n%s", w, r.rc, r.grc, r.err);
        CHECK(r.equal && r.hash == plain.hash, "%d workers: results differ from the reference / the run without a limit", w);
        CHECK(r.rss_kb > 0 && (!RSS_CHECKED || r.rss_kb <= bound_kb), "%d workers: maxrss %ld KiB is over the bound %ld KiB", w, r.rss_kb,
              bound_kb);
        CHECK(sl != NULL, "%d workers: TAMM_STATS has no memory-limit line", w);
        /* issue 19 item 2: tasks are queued only once their spilled blocks are back, so no
         * task's body waits for a read (under MPI the message tasks read on use) */
        const char *st = sl ? strstr(sl, " by a running task") : NULL;
        const char *sn = st;
        while (sn && sn > sl && sn[-1] >= '0' && sn[-1] <= '9') sn--;
        long in_task = st && sn < st ? atol(sn) : -1;
        CHECK(in_task == 0 || (MEMLIMIT_MPI && in_task > 0), "%d workers: %ld spilled blocks were read back by their "
              "running task instead of ahead of it (-1: TAMM_STATS gives no figure)", w, in_task);
        CHECK(dir_empty(spilldir), "%d workers: the spill directory is not empty after the run", w);
    }
    /* a limit just above the largest task's footprint (3 blocks: 1.5 MiB): no deadlock, no livelock */
    for (int w = 1; w <= 4; w *= 3) {
        char env[256];
        snprintf(env, sizeof env, "TAMM_NUM_WORKERS=%d TAMM_MEMORY_LIMIT=1600K", w);
        st = run_child(env, "compute", &r);
        printf("limit 1600 KiB (the largest task needs 1536 KiB), %d workers: rc=%d equal=%d maxrss %ld KiB\n", w, r.rc,
               r.equal, r.rss_kb);
        CHECK(st == 0 && r.rc == 0 && r.equal && r.hash == plain.hash, "limit just above a task, %d workers: status %d, "
              "rc %d, equal %d\n%s", w, st, r.rc, r.equal, r.err);
        CHECK(!RSS_CHECKED || r.rss_kb <= 1600 + base.rss_kb + SLACK_MB * 1024, "limit just above a task, %d workers: "
              "maxrss %ld KiB", w, r.rss_kb);
    }
    /* a task larger than the limit */
    st = run_child("TAMM_NUM_WORKERS=2 TAMM_MEMORY_LIMIT=1M TAMM_ON_ERROR=return", "toobig", &r);
    CHECK(st == 0, "task over the limit: the child exited with status %d", st);
    printf("task over the limit: rc=%d; stderr: %s", r.rc, r.err);
    CHECK(r.rc == TAMM_ENOMEM, "a task reading 2 MiB under a 1 MiB limit: rc %d, expected TAMM_ENOMEM", r.rc);
    CHECK(strstr(r.err, "reads_two_mib") && strstr(r.err, "2097152") && strstr(r.err, "1048576"),
          "the error names the task and the sizes");
    /* a full disk: the file size limit stops the spill file at 2 MiB (one process) */
    if (!MEMLIMIT_MPI) {
    st = run_child("TAMM_NUM_WORKERS=2 TAMM_MEMORY_LIMIT=8M TAMM_ON_ERROR=return", "fsize", &r);
    CHECK(st == 0, "full disk: the child exited with status %d", st);
    printf("spill file limited to 2 MiB: rc=%d equal=%d; stderr: %s", r.rc, r.equal, r.err);
    CHECK(r.rc == TAMM_ENOMEM, "full disk: rc %d, expected TAMM_ENOMEM", r.rc);
    CHECK(strstr(r.err, "spill file") != NULL, "full disk: the error names the spill file");
    CHECK(r.equal && r.hash == plain.hash, "full disk: results differ from the reference");
    CHECK(dir_empty(spilldir), "full disk: the spill directory is not empty after the run");
    }
    /* blocks never written, in the memory of evicted ones: zeros */
    st = run_child("TAMM_NUM_WORKERS=2 TAMM_MEMORY_LIMIT=2M TAMM_STATS=1", "zeros", &r);
    printf("never-written blocks after evictions (limit 2 MiB): rc=%d, nonzero elements %llu\n", r.rc, r.hash);
    CHECK(st == 0 && r.rc == 0 && r.grc == 0, "never-written blocks: status %d, rc %d, gather %d\n%s", st, r.rc, r.grc, r.err);
    CHECK(r.equal, "never-written blocks read after evictions: %llu nonzero elements, expected 0", r.hash);
    CHECK(max_evictions(r.err) > 0, "never-written blocks: no eviction happened on any rank\n%s", r.err);

    char rm[600];
    snprintf(rm, sizeof rm, "rm -rf '%s'", top);
    if (system(rm)) {}
    if (!RSS_CHECKED) printf("ThreadSanitizer build: the maxrss bound is not checked\n");
    printf("%s\n", failures ? "FAILED" : "all passed");
    return failures ? 1 : 0;
}
