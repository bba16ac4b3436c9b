/*
 * trace_prog.c — a small tamm program whose TAMM_TRACE / TAMM_DAG / TAMM_STATS
 * output tests/rt/obs/check_trace.py examines (docs/runtime.md
 * "Observability").  It checks its own results and prints one line with "OK".
 *
 *   trace_prog mpi   on any number of ranks: blocks written on their owners,
 *                    then a ring of tasks each reading a block another rank
 *                    owns (block messages between ranks), accumulations from
 *                    every rank into one block, a gather;
 *   trace_prog gpu   with TAMM_CUDA_EMU=n: CPU tasks write blocks, tasks with
 *                    only a CUDA variant update them on the (emulated) GPUs
 *                    (host-to-device copies on several streams), a gather
 *                    brings the dirty copies back (device-to-host copies);
 *   trace_prog mem   tensors of known size, every block written: prints
 *                    "block bytes: N" (what TAMM_STATS "peak memory" must reach);
 *   trace_prog spill under TAMM_MEMORY_LIMIT=256K: 16 blocks of 64 KiB written,
 *                    then each read into another 16 (spill writes and read-backs).
 */
#include <tamm.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(c) do { if (!(c)) { failures++; fprintf(stderr, "rank %d: FAIL %s:%d: %s\n", tamm_rank(), __FILE__, __LINE__, #c); } } while (0)

#define TILE 64

typedef struct { tamm_tensor *T; long i, j; double v; } args_t;

static tamm_ref ref1(tamm_tensor *T, long i, unsigned mode)
{
    tamm_ref r;
    memset(&r, 0, sizeof r);
    r.tensor = T;
    r.nidx = 1;
    r.idx[0] = i;
    r.mode = mode;
    return r;
}

static int submit(tamm_fn cpu, tamm_fn cuda, const args_t *a, const tamm_ref *refs, int nrefs, int rank,
                  const char *label)
{
    tamm_task t;
    memset(&t, 0, sizeof t);
    t.cpu = cpu;
    t.cuda = cuda;
    t.args = a;
    t.args_size = sizeof *a;
    t.refs = refs;
    t.nrefs = nrefs;
    t.rank = rank;
    t.label = label;
    t.file = __FILE__;
    t.line = __LINE__;
    return tamm_submit(NULL, &t);
}

/* block i := v + e */
static void fill(tamm_ctx *ctx, void *va)
{
    args_t *a = va;
    long idx[1] = { a->i };
    double *p = tamm_get_buf_write(ctx, a->T, idx);
    size_t n = tamm_block_elems(a->T, idx);
    for (size_t e = 0; e < n; e++) p[e] = a->v + (double)e;
    tamm_release_put(ctx, p);
}

/* block j := block i * 2 + v */
static void shift(tamm_ctx *ctx, void *va)
{
    args_t *a = va;
    long ii[1] = { a->i }, jj[1] = { a->j };
    const double *s = tamm_get_buf_read(ctx, a->T, ii);
    double *d = tamm_get_buf_write(ctx, a->T, jj);
    size_t n = tamm_block_elems(a->T, jj);
    for (size_t e = 0; e < n; e++) d[e] = s[e] * 2 + a->v;
    tamm_release_cancel(ctx, (void *)s);
    tamm_release_put(ctx, d);
}

/* block i += v */
static void acc(tamm_ctx *ctx, void *va)
{
    args_t *a = va;
    long idx[1] = { a->i };
    double *p = tamm_get_buf_accum(ctx, a->T, idx);
    size_t n = tamm_block_elems(a->T, idx);
    for (size_t e = 0; e < n; e++) p[e] += a->v;
    tamm_release_add(ctx, p);
}

/* block i := block i * 3 + v (the "CUDA variant": on the emulated device it enqueues host code on its stream) */
/* the device work, enqueued on the task's stream of the emulated device */
typedef struct { double *p; size_t n; double v; } scale_job;
static void scale_run(void *j)
{
    scale_job *s = j;
    for (size_t e = 0; e < s->n; e++) s->p[e] = s->p[e] * 3 + s->v;
}

static void scale_dev(tamm_ctx *ctx, void *va)
{
    args_t *a = va;
    long idx[1] = { a->i };
    double *p = tamm_get_buf_readwrite(ctx, a->T, idx);
    scale_job j = { p, tamm_block_elems(a->T, idx), (double)a->v };
    if (tamm_emu_launch(tamm_cuda_stream(), scale_run, &j, sizeof j) != TAMM_OK) abort();
    tamm_release_put(ctx, p);
}

static int run_mpi(void)
{
    int nr = tamm_nranks();
    long nb = 4L * nr;
    size_t dims[1] = { (size_t)(nb * 2 * TILE) }, tile[1] = { TILE };
    /* blocks 0..nb-1: the ring's sources; nb..2nb-1: its results; 2nb: accumulated into from every rank */
    dims[0] = (size_t)((2 * nb + 1) * TILE);
    tamm_tensor *A = tamm_tensor_create("A", TAMM_F64, 1, dims, tile);
    if (!A) return 1;
    for (long i = 0; i < nb; i++) {
        args_t a = { A, i, 0, (double)(i * 1000) };
        tamm_ref r = ref1(A, i, TAMM_WRITE);
        CHECK(submit(fill, NULL, &a, &r, 1, -1, "fill") == TAMM_OK);
    }
    /* block nb + i := block (i + 1) % nb * 2 + i: runs on the owner of nb + i, reads a block another rank owns */
    for (long i = 0; i < nb; i++) {
        args_t a = { A, (i + 1) % nb, nb + i, (double)i };
        tamm_ref r[2] = { ref1(A, (i + 1) % nb, TAMM_READ), ref1(A, nb + i, TAMM_WRITE) };
        CHECK(submit(shift, NULL, &a, r, 2, -1, "shift") == TAMM_OK);
    }
    for (int k = 0; k < nr; k++) {
        args_t a = { A, 2 * nb, 0, (double)(k + 1) };
        tamm_ref r = ref1(A, 2 * nb, TAMM_ACCUM);
        CHECK(submit(acc, NULL, &a, &r, 1, k, "acc") == TAMM_OK);
    }
    double *all = malloc(dims[0] * sizeof *all);
    CHECK(tamm_tensor_gather(A, all) == TAMM_OK);
    for (long i = 0; i < nb; i++)
        for (long e = 0; e < TILE; e++) {
            double src = (double)(((i + 1) % nb) * 1000) + (double)e;
            CHECK(all[(nb + i) * TILE + e] == src * 2 + (double)i);
            if (all[(nb + i) * TILE + e] != src * 2 + (double)i) { i = nb; break; }
        }
    CHECK(all[2 * nb * TILE] == (double)nr * (nr + 1) / 2);
    free(all);
    tamm_tensor_destroy(A);
    return 0;
}

static int run_gpu(void)
{
    long nb = 16;
    size_t dims[1] = { (size_t)(nb * TILE) }, tile[1] = { TILE };
    tamm_tensor *A = tamm_tensor_create("G", TAMM_F64, 1, dims, tile);
    if (!A) return 1;
    CHECK(tamm_num_gpus() > 0);
    for (long i = 0; i < nb; i++) {
        args_t a = { A, i, 0, (double)i };
        tamm_ref r = ref1(A, i, TAMM_WRITE);
        CHECK(submit(fill, NULL, &a, &r, 1, -1, "fill") == TAMM_OK);
    }
    for (long i = 0; i < nb; i++) {
        args_t a = { A, i, 0, 1.0 };
        tamm_ref r = ref1(A, i, TAMM_READWRITE);
        CHECK(submit(NULL, scale_dev, &a, &r, 1, -1, "scale_gpu") == TAMM_OK);
    }
    double *all = malloc(dims[0] * sizeof *all);
    CHECK(tamm_tensor_gather(A, all) == TAMM_OK);
    for (long i = 0; i < nb; i++)
        for (long e = 0; e < TILE; e++)
            if (all[i * TILE + e] != ((double)i + (double)e) * 3 + 1) { CHECK(!"block value"); i = nb; break; }
    free(all);
    tamm_tensor_destroy(A);
    return 0;
}

static int run_mem(void)
{
    /* 1 MiB in 16 blocks of 64 KiB, and one block of 3 MiB (its own mapping, rt/core/hostmem.c) */
    size_t d1[1] = { 16 * 8192 }, t1[1] = { 8192 };
    size_t d2[1] = { 3 * 131072 }, t2[1] = { 3 * 131072 };
    tamm_tensor *A = tamm_tensor_create("M1", TAMM_F64, 1, d1, t1);
    tamm_tensor *B = tamm_tensor_create("M2", TAMM_F64, 1, d2, t2);
    if (!A || !B) return 1;
    for (long i = 0; i < 16; i++) {
        args_t a = { A, i, 0, 1.0 };
        tamm_ref r = ref1(A, i, TAMM_WRITE);
        CHECK(submit(fill, NULL, &a, &r, 1, -1, "fill") == TAMM_OK);
    }
    args_t a = { B, 0, 0, 2.0 };
    tamm_ref r = ref1(B, 0, TAMM_WRITE);
    CHECK(submit(fill, NULL, &a, &r, 1, -1, "fill") == TAMM_OK);
    CHECK(tamm_wait_all() == TAMM_OK);
    long i0[1] = { 0 };
    const double *p = tamm_block_at(B, i0, 1);
    CHECK(p && p[5] == 7.0);
    printf("block bytes: %zu\n", d1[0] * 8 + d2[0] * 8);
    tamm_tensor_destroy(A);
    tamm_tensor_destroy(B);
    return 0;
}

static int run_spill(void)
{
    size_t d[1] = { 32 * 8192 }, t[1] = { 8192 };
    tamm_tensor *A = tamm_tensor_create("S", TAMM_F64, 1, d, t);
    if (!A) return 1;
    static args_t a[32];
    for (long i = 0; i < 16; i++) {
        a[i] = (args_t){ A, i, 0, (double)i };
        tamm_ref r = ref1(A, i, TAMM_WRITE);
        CHECK(submit(fill, NULL, &a[i], &r, 1, -1, "fill") == TAMM_OK);
    }
    for (long i = 0; i < 16; i++) { /* block 16 + i := block i * 2 + 1 */
        a[16 + i] = (args_t){ A, i, 16 + i, 1.0 };
        tamm_ref r[2] = { ref1(A, i, TAMM_READ), ref1(A, 16 + i, TAMM_WRITE) };
        CHECK(submit(shift, NULL, &a[16 + i], r, 2, -1, "shift") == TAMM_OK);
    }
    double *all = malloc(d[0] * sizeof *all);
    CHECK(all && tamm_tensor_gather(A, all) == TAMM_OK);
    for (long i = 0; all && i < 16; i++)
        for (long e = 0; e < 8192; e++)
            if (all[(16 + i) * 8192 + e] != ((double)i + (double)e) * 2 + 1) {
                CHECK(!"block 16 + i holds block i * 2 + 1");
                i = 16;
                break;
            }
    free(all);
    tamm_tensor_destroy(A);
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "mpi";
    if (tamm_init(&argc, &argv) != TAMM_OK) return 1;
    int rc = !strcmp(mode, "gpu") ? run_gpu() : !strcmp(mode, "mem") ? run_mem() : !strcmp(mode, "spill") ? run_spill()
                                                                                                         : run_mpi();
    CHECK(tamm_wait_all() == TAMM_OK);
    int r = tamm_rank();
    CHECK(tamm_finalize() == TAMM_OK);
    if (rc || failures) {
        fprintf(stderr, "rank %d: trace_prog %s: %d failures\n", r, mode, failures);
        return 1;
    }
    printf("rank %d: trace_prog %s OK\n", r, mode);
    return 0;
}
