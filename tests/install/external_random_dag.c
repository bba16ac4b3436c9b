/*
 * external_random_dag.c — an external program, built against an *installed*
 * libtammrt with a plain C compiler, that uses only the public API (tamm.h,
 * docs/api.md).  No rt/ internals.
 *
 *   external_random_dag [NSEEDS [NTASKS [FIRST_SEED]]]     (default 5 300 1)
 *
 * For each seed it builds a random DAG of explicit tasks over two 2-D int64
 * tensors with edge blocks (T0: 50x37 in 8x8 tiles, T1: 23x41 in 5x7 tiles).
 * Each task has 1..4 refs on distinct blocks, in modes read / write /
 * readwrite / accum, plus the occasional read of a row slice (T[i][:]) or of a
 * whole tensor.  A task body does deterministic integer work on its buffers
 * (hashes what it reads, overwrites, updates, or adds into what it accumulates).
 * The same bodies are applied, in submission order, to plain arrays; the
 * tensors are then compared with them bit for bit through tamm_tensor_gather,
 * halfway through and at the end, and single blocks now and then through
 * tamm_wait_on + tamm_block (the sequential-elision interface).
 * Exit status 0 iff everything matches.
 */
#include <tamm.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NTENS 2
#define MAXREFS 4
#define MAXBLK 160
#define P 1000003  /* values written are reduced modulo P, so nothing overflows */

static const size_t g_dims[NTENS][2] = {{50, 37}, {23, 41}};
static const size_t g_tile[NTENS][2] = {{8, 8}, {5, 7}};

enum { KIND_BLOCK = 0, KIND_ROW = 1, KIND_WHOLE = 2 };

typedef struct {
    int t;        /* tensor 0 or 1 */
    int kind;     /* KIND_* (slices and whole tensors are read-only here) */
    long bi, bj;  /* the block, or the row for KIND_ROW */
    unsigned mode;
} ref_desc;

typedef struct {
    tamm_tensor *T[NTENS];
    long id;
    int nrefs;
    ref_desc r[MAXREFS];
} task_desc;

static long nblk(int t, int d) { return (long)((g_dims[t][d] + g_tile[t][d] - 1) / g_tile[t][d]); }
static size_t ext(int t, int d, long b)
{
    size_t start = (size_t)b * g_tile[t][d], rest = g_dims[t][d] - start;
    return rest < g_tile[t][d] ? rest : g_tile[t][d];
}

/* ---- deterministic integer work, shared by the tasks and the reference ---- */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}
static uint64_t hash_buf(const int64_t *b, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t e = 0; e < n; e++)
        h = (h ^ (uint64_t)b[e]) * 1099511628211ULL;
    return h;
}
static int64_t norm(int64_t x) { return ((x % P) + P) % P; }

typedef struct { int ref; long bi, bj; int64_t *buf; size_t n; } blk;

/* Expand a task's refs into the blocks they cover, in a fixed order. */
static int expand(const task_desc *d, blk *out)
{
    int nb = 0;
    for (int j = 0; j < d->nrefs; j++) {
        const ref_desc *r = &d->r[j];
        long i0 = r->bi, i1 = r->bi + 1, j0 = r->bj, j1 = r->bj + 1;
        if (r->kind == KIND_ROW) { j0 = 0; j1 = nblk(r->t, 1); }
        if (r->kind == KIND_WHOLE) { i0 = 0; i1 = nblk(r->t, 0); j0 = 0; j1 = nblk(r->t, 1); }
        for (long bi = i0; bi < i1; bi++)
            for (long bj = j0; bj < j1; bj++) {
                out[nb].ref = j;
                out[nb].bi = bi;
                out[nb].bj = bj;
                out[nb].buf = NULL;
                out[nb].n = ext(r->t, 0, bi) * ext(r->t, 1, bj);
                nb++;
            }
    }
    return nb;
}

/* The body: read what is read, then overwrite / update / add into the rest.
 * Write buffers are never read (their contents are unspecified); accumulate
 * buffers are only added into. */
static void kernel(const task_desc *d, blk *b, int nb)
{
    uint64_t r = mix((uint64_t)d->id * 0x100000001b3ULL);
    for (int k = 0; k < nb; k++) {
        unsigned m = d->r[b[k].ref].mode;
        if (m == TAMM_READ || m == TAMM_READWRITE)
            r = mix(r ^ hash_buf(b[k].buf, b[k].n) ^ (uint64_t)k);
    }
    for (int k = 0; k < nb; k++) {
        unsigned m = d->r[b[k].ref].mode;
        int64_t *x = b[k].buf;
        for (size_t e = 0; e < b[k].n; e++) {
            uint64_t v = mix(r + (uint64_t)k * 7919u + e);
            if (m == TAMM_WRITE)
                x[e] = (int64_t)(v % P);
            else if (m == TAMM_READWRITE)
                x[e] = (norm(x[e]) * 3 + (int64_t)(v % 1000)) % P;
            else if (m == TAMM_ACCUM)
                x[e] += (int64_t)(v % 1001) - 500;
        }
    }
}

/* ---- the task variant ---- */
static int g_get_failures; /* written only under TAMM_ON_ERROR=return; read at top level after waits */

static void task_body(tamm_ctx *ctx, void *p)
{
    const task_desc *d = p;
    blk b[MAXBLK];
    int nb = expand(d, b), ok = 1;
    for (int k = 0; k < nb; k++) {
        const ref_desc *r = &d->r[b[k].ref];
        tamm_tensor *T = d->T[r->t];
        const long idx[2] = {b[k].bi, b[k].bj};
        switch (r->mode) {
        case TAMM_READ:      b[k].buf = tamm_get_buf_read(ctx, T, idx); break;
        case TAMM_WRITE:     b[k].buf = tamm_get_buf_write(ctx, T, idx); break;
        case TAMM_READWRITE: b[k].buf = tamm_get_buf_readwrite(ctx, T, idx); break;
        default:             b[k].buf = tamm_get_buf_accum(ctx, T, idx); break;
        }
        if (!b[k].buf)
            ok = 0;
    }
    if (ok)
        kernel(d, b, nb);
    else
        __atomic_add_fetch(&g_get_failures, 1, __ATOMIC_RELAXED);
    for (int k = 0; k < nb; k++) {
        if (!b[k].buf)
            continue;
        unsigned m = d->r[b[k].ref].mode;
        if (m == TAMM_ACCUM)
            tamm_release_add(ctx, b[k].buf);
        else if (m == TAMM_READ && (d->id + k) % 2)
            tamm_release_cancel(ctx, b[k].buf);   /* ends a read, like put */
        else
            tamm_release_put(ctx, b[k].buf);
    }
}

/* ---- the sequential reference on plain row-major arrays ---- */
static void ref_apply(const task_desc *d, int64_t *arr[NTENS])
{
    blk b[MAXBLK];
    int nb = expand(d, b);
    for (int k = 0; k < nb; k++) {
        const ref_desc *r = &d->r[b[k].ref];
        size_t rows = ext(r->t, 0, b[k].bi), cols = ext(r->t, 1, b[k].bj), ld = g_dims[r->t][1];
        int64_t *src = arr[r->t] + b[k].bi * g_tile[r->t][0] * ld + b[k].bj * g_tile[r->t][1];
        b[k].buf = malloc(b[k].n * sizeof(int64_t));
        if (!b[k].buf) { fprintf(stderr, "out of memory\n"); exit(1); }
        for (size_t i = 0; i < rows; i++)
            for (size_t j = 0; j < cols; j++)
                b[k].buf[i * cols + j] = r->mode == TAMM_WRITE ? (int64_t)0x5a5a5a5a5a5aLL
                                                               : src[i * ld + j];
    }
    kernel(d, b, nb);
    for (int k = 0; k < nb; k++) {
        const ref_desc *r = &d->r[b[k].ref];
        size_t rows = ext(r->t, 0, b[k].bi), cols = ext(r->t, 1, b[k].bj), ld = g_dims[r->t][1];
        int64_t *dst = arr[r->t] + b[k].bi * g_tile[r->t][0] * ld + b[k].bj * g_tile[r->t][1];
        if (r->mode != TAMM_READ)
            for (size_t i = 0; i < rows; i++)
                for (size_t j = 0; j < cols; j++)
                    dst[i * ld + j] = b[k].buf[i * cols + j];
        free(b[k].buf);
    }
}

/* ---- random DAGs ---- */
static uint64_t g_rng;
static uint64_t rnd(void) { return mix(g_rng++); }
static long rndn(long n) { return (long)(rnd() % (uint64_t)n); }

typedef struct { long tasks, refs, reads, writes, rws, accs, rows, wholes, checks; } stats;

static void random_task(task_desc *d, tamm_tensor *T[NTENS], long id, stats *st)
{
    unsigned char used[NTENS][8][8];  /* blocks already named in this task */
    memset(used, 0, sizeof used);
    memset(d, 0, sizeof *d);
    d->T[0] = T[0];
    d->T[1] = T[1];
    d->id = id;
    int want = 1 + (int)rndn(MAXREFS);
    for (int tries = 0; d->nrefs < want && tries < 20; tries++) {
        ref_desc r = {0};
        r.t = (int)rndn(NTENS);
        long nbi = nblk(r.t, 0), nbj = nblk(r.t, 1);
        long pick = rndn(100);
        if (pick < 6) r.kind = KIND_ROW;
        else if (pick < 8) r.kind = KIND_WHOLE;
        else r.kind = KIND_BLOCK;
        if (r.kind == KIND_BLOCK && rndn(3) == 0) {  /* a hot corner: more dependences */
            r.bi = nbi - 1 - rndn(2);
            r.bj = nbj - 1 - rndn(2);
        } else {
            r.bi = rndn(nbi);
            r.bj = rndn(nbj);
        }
        long m = rndn(100);
        r.mode = r.kind != KIND_BLOCK ? TAMM_READ
               : m < 35 ? TAMM_READ : m < 50 ? TAMM_WRITE : m < 70 ? TAMM_READWRITE : TAMM_ACCUM;
        long i0 = r.bi, i1 = r.bi + 1, j0 = r.bj, j1 = r.bj + 1;
        if (r.kind == KIND_ROW) { j0 = 0; j1 = nbj; }
        if (r.kind == KIND_WHOLE) { i0 = 0; i1 = nbi; j0 = 0; j1 = nbj; }
        int clash = 0;
        for (long i = i0; i < i1; i++)
            for (long j = j0; j < j1; j++)
                clash |= used[r.t][i][j];
        if (clash)
            continue;
        for (long i = i0; i < i1; i++)
            for (long j = j0; j < j1; j++)
                used[r.t][i][j] = 1;
        d->r[d->nrefs++] = r;
        st->refs++;
        st->rows += r.kind == KIND_ROW;
        st->wholes += r.kind == KIND_WHOLE;
        st->reads += r.mode == TAMM_READ;
        st->writes += r.mode == TAMM_WRITE;
        st->rws += r.mode == TAMM_READWRITE;
        st->accs += r.mode == TAMM_ACCUM;
    }
}

static int compare(tamm_tensor *T[NTENS], int64_t *arr[NTENS], const char *when, long seed)
{
    int bad = 0;
    for (int t = 0; t < NTENS; t++) {
        size_t n = g_dims[t][0] * g_dims[t][1];
        int64_t *got = malloc(n * sizeof *got);
        if (!got) { fprintf(stderr, "out of memory\n"); exit(1); }
        int rc = tamm_tensor_gather(T[t], got);
        if (rc != TAMM_OK) {
            fprintf(stderr, "seed %ld %s: tamm_tensor_gather(T%d): %s\n", seed, when, t, tamm_strerror(rc));
            free(got);
            return 1;
        }
        long diff = 0;
        for (size_t e = 0; e < n; e++)
            if (got[e] != arr[t][e]) {
                if (diff < 3)
                    fprintf(stderr, "seed %ld %s: T%d[%zu][%zu] = %" PRId64 ", expected %" PRId64 "\n",
                            seed, when, t, e / g_dims[t][1], e % g_dims[t][1], got[e], arr[t][e]);
                diff++;
            }
        if (diff) {
            fprintf(stderr, "seed %ld %s: T%d: %ld of %zu elements differ\n", seed, when, t, diff, n);
            bad = 1;
        }
        free(got);
    }
    return bad;
}

/* Sequential elision: wait for the users of one block and look at it directly. */
static int check_block(tamm_tensor *T[NTENS], int64_t *arr[NTENS], int t, long bi, long bj, long seed)
{
    tamm_ref r = {.tensor = T[t], .nidx = 2, .idx = {bi, bj}, .mode = TAMM_READ};
    int rc = tamm_wait_on(&r, 1);
    if (rc != TAMM_OK) {
        fprintf(stderr, "seed %ld: tamm_wait_on: %s\n", seed, tamm_strerror(rc));
        return 1;
    }
    const int64_t *b = tamm_block(T[t], bi, bj);
    if (!b) {
        fprintf(stderr, "seed %ld: tamm_block(T%d, %ld, %ld) returned NULL\n", seed, t, bi, bj);
        return 1;
    }
    size_t rows = ext(t, 0, bi), cols = ext(t, 1, bj), ld = g_dims[t][1];
    const int64_t *ref = arr[t] + bi * g_tile[t][0] * ld + bj * g_tile[t][1];
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++)
            if (b[i * cols + j] != ref[i * ld + j]) {
                fprintf(stderr, "seed %ld: block T%d[%ld][%ld] element (%zu,%zu) = %" PRId64
                        ", expected %" PRId64 "\n", seed, t, bi, bj, i, j, b[i * cols + j], ref[i * ld + j]);
                return 1;
            }
    return 0;
}

static int run_seed(long seed, long ntasks, stats *st)
{
    g_rng = mix((uint64_t)seed);
    tamm_tensor *T[NTENS];
    int64_t *arr[NTENS];
    for (int t = 0; t < NTENS; t++) {
        char name[8];
        snprintf(name, sizeof name, "T%d", t);
        T[t] = tamm_tensor_create(name, TAMM_I64, 2, g_dims[t], g_tile[t]);
        arr[t] = calloc(g_dims[t][0] * g_dims[t][1], sizeof(int64_t));  /* tensors start at zero */
        if (!T[t] || !arr[t]) {
            fprintf(stderr, "seed %ld: tamm_tensor_create / calloc failed\n", seed);
            return 1;
        }
        if (tamm_tensor_nblocks(T[t], 0) != nblk(t, 0) || tamm_tensor_nblocks(T[t], 1) != nblk(t, 1) ||
            tamm_block_extent(T[t], 0, nblk(t, 0) - 1) != ext(t, 0, nblk(t, 0) - 1) ||
            tamm_block_extent(T[t], 1, nblk(t, 1) - 1) != ext(t, 1, nblk(t, 1) - 1)) {
            fprintf(stderr, "seed %ld: T%d: unexpected block counts or edge extents\n", seed, t);
            return 1;
        }
    }
    int bad = 0;
    for (long k = 0; k < ntasks && !bad; k++) {
        task_desc d;
        random_task(&d, T, seed * 100000 + k, st);
        tamm_ref refs[MAXREFS];
        for (int j = 0; j < d.nrefs; j++) {
            const ref_desc *r = &d.r[j];
            refs[j].tensor = T[r->t];
            refs[j].mode = r->mode;
            memset(refs[j].idx, 0, sizeof refs[j].idx);
            if (r->kind == KIND_WHOLE) {
                refs[j].nidx = 0;
            } else {
                refs[j].nidx = 2;
                refs[j].idx[0] = r->bi;
                refs[j].idx[1] = r->kind == KIND_ROW ? TAMM_ALL : r->bj;
            }
        }
        tamm_task t = {.cpu = task_body, .args = &d, .args_size = sizeof d, .refs = refs,
                       .nrefs = d.nrefs, .label = "random", .priority = (int)rndn(3), .rank = -1,
                       .file = __FILE__, .line = __LINE__};
        int rc = tamm_submit(NULL, &t);
        if (rc != TAMM_OK) {
            fprintf(stderr, "seed %ld: tamm_submit(task %ld): %s\n", seed, k, tamm_strerror(rc));
            bad = 1;
            break;
        }
        ref_apply(&d, arr);
        st->tasks++;
        if (k == ntasks / 2) {
            rc = tamm_wait_all();
            bad |= rc != TAMM_OK || compare(T, arr, "halfway", seed);
            st->checks++;
        } else if (k % 37 == 36) {
            int tt = (int)rndn(NTENS);
            bad |= check_block(T, arr, tt, rndn(nblk(tt, 0)), rndn(nblk(tt, 1)), seed);
            st->checks++;
        }
    }
    int rc = tamm_wait_all();
    if (rc != TAMM_OK) {
        fprintf(stderr, "seed %ld: tamm_wait_all: %s\n", seed, tamm_strerror(rc));
        bad = 1;
    }
    if (!bad) {
        bad |= compare(T, arr, "at the end", seed);
        st->checks++;
    }
    uint64_t sum = hash_buf(arr[0], g_dims[0][0] * g_dims[0][1]) ^ hash_buf(arr[1], g_dims[1][0] * g_dims[1][1]);
    printf("  seed %ld: %s (reference hash %016" PRIx64 ")\n", seed, bad ? "MISMATCH" : "ok", sum);
    for (int t = 0; t < NTENS; t++) {
        tamm_tensor_destroy(T[t]);
        free(arr[t]);
    }
    return bad;
}

static long arg(int argc, char **argv, int i, long dflt)
{
    if (argc <= i)
        return dflt;
    char *end;
    long v = strtol(argv[i], &end, 10);
    if (*argv[i] == '\0' || *end != '\0' || v < 0) {
        fprintf(stderr, "usage: external_random_dag [NSEEDS [NTASKS [FIRST_SEED]]]\n");
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    int rc = tamm_init(&argc, &argv);
    if (rc != TAMM_OK) {
        fprintf(stderr, "external_random_dag: tamm_init: %s\n", tamm_strerror(rc));
        return 1;
    }
    long nseeds = arg(argc, argv, 1, 5), ntasks = arg(argc, argv, 2, 300), first = arg(argc, argv, 3, 1);
    printf("external_random_dag: tamm %d.%d, workers=%d, %ld seeds x %ld tasks, "
           "T0 %zux%zu tile %zux%zu, T1 %zux%zu tile %zux%zu (int64)\n",
           TAMM_VERSION_MAJOR, TAMM_VERSION_MINOR, tamm_num_workers(), nseeds, ntasks,
           g_dims[0][0], g_dims[0][1], g_tile[0][0], g_tile[0][1],
           g_dims[1][0], g_dims[1][1], g_tile[1][0], g_tile[1][1]);
    stats st = {0};
    int bad = 0;
    for (long s = first; s < first + nseeds; s++)
        bad |= run_seed(s, ntasks, &st);
    rc = tamm_finalize();
    if (rc != TAMM_OK) {
        fprintf(stderr, "external_random_dag: tamm_finalize: %s\n", tamm_strerror(rc));
        bad = 1;
    }
    if (g_get_failures) {
        fprintf(stderr, "external_random_dag: %d tasks could not get a buffer\n", g_get_failures);
        bad = 1;
    }
    printf("external_random_dag: %ld tasks, %ld refs (read %ld, write %ld, readwrite %ld, accum %ld; "
           "row slices %ld, whole tensors %ld), %ld comparisons: %s\n",
           st.tasks, st.refs, st.reads, st.writes, st.rws, st.accs, st.rows, st.wholes, st.checks,
           bad ? "FAILED" : "all equal to the sequential reference");
    return bad ? 1 : 0;
}
