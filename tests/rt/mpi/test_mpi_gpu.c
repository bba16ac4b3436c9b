/*
 * test_mpi_gpu.c — GPUs under MPI (docs/runtime.md, "GPUs under MPI"): each
 * rank uses the GPUs that the rank-to-GPU mapping gives it by its rank on the
 * node, and a GPU shared by several ranks gives each its share of the memory.
 * Run by ctest on emulated devices (TAMM_CUDA_EMU=n, one emulator per process)
 * at 1 and 2 ranks with 1 and 2 devices:
 *
 *   - the mapping: how many GPUs this rank has, which device ordinals, how many
 *     ranks share each, and the memory limit (90% of the device's memory
 *     divided among the ranks sharing it), checked against the node-local rank
 *     this test computes itself with MPI_Comm_split_type;
 *   - errors (ctest mpi_gpu_split_*): more GPUs than the rank's share, a byte limit
 *     that the ranks sharing a device overflow: tamm_init fails naming the variable;
 *   - a computation: a chain of CUDA-only tasks on a distributed vector (each
 *     runs on the owner of the block it writes, reading blocks of other
 *     ranks), checked against a plain evaluation; every rank ran some on its
 *     GPU.  Each rank prints "checksum ... OK"; ranks_compare.sh requires the
 *     lines of every run to be equal (1 or 2 devices, 1 or 2 ranks).
 */
#include <tamm.h>
#include <mpi.h>
#include "gpu.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(c, ...) do { if (!(c)) { failures++; fprintf(stderr, "rank %d: FAIL %s:%d: %s: ", tamm_rank(), __FILE__, __LINE__, #c); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

enum { NBLK = 16, TILE = 32, NTASK = 200 };

typedef struct { uint64_t *dst; const uint64_t *src; uint64_t k; } job;
static void step(uint64_t *dst, const uint64_t *src, uint64_t k)
{
    for (int e = 0; e < TILE; e++) dst[e] = dst[e] * 5 + src[e] + k + (uint64_t)e;
}
static void dev_step(void *p) { job *j = p; step(j->dst, j->src, j->k); }

typedef struct { tamm_tensor *X; long d, s; uint64_t k; } op_args;
static void op_gpu(tamm_ctx *ctx, void *va)
{
    op_args *a = va;
    long di[1] = { a->d }, si[1] = { a->s };
    const uint64_t *src = tamm_get_buf_read(ctx, a->X, si);
    uint64_t *dst = tamm_get_buf_readwrite(ctx, a->X, di);
    CHECK(src && dst && tamm_cuda_stream(), "buffers %p %p on stream %p", (const void *)src, (void *)dst, tamm_cuda_stream());
    if (src && dst) {
        job j = { dst, src, a->k };
        CHECK(tamm_emu_launch(tamm_cuda_stream(), dev_step, &j, sizeof j) == TAMM_OK, "launch");
    }
    tamm_release_cancel(ctx, (void *)src);
    tamm_release_put(ctx, dst);
}

static uint64_t rnd(uint64_t *s) { *s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17; return *s; }

/* What the mapping must give this rank, for the layouts ctest runs; 0 when not one of them. */
static int expected(int nd, int lrank, int lsize, int *ngpu, int *dev0, int *share)
{
    if (lsize == 1) { *ngpu = nd; *dev0 = 0; *share = 1; return 1; }
    if (nd % lsize == 0) { *ngpu = nd / lsize; *dev0 = lrank * (nd / lsize); *share = 1; return 1; }
    if (lsize % nd == 0) { *ngpu = 1; *dev0 = lrank % nd; *share = lsize / nd; return 1; }
    return 0;
}

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK) return 2;
    int me = tamm_rank(), P = tamm_nranks();
    int lrank = 0, lsize = 1;
    if (P > 1) {
        MPI_Comm node;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &node);
        MPI_Comm_rank(node, &lrank);
        MPI_Comm_size(node, &lsize);
        MPI_Comm_free(&node);
    }
    const char *e = getenv("TAMM_CUDA_EMU");
    int nd = e ? atoi(e) : 0;
    int ngpu, dev0, share;
    CHECK(nd > 0, "run with TAMM_CUDA_EMU=n");
    if (nd > 0 && expected(nd, lrank, lsize, &ngpu, &dev0, &share)) {
        CHECK(tamm_num_gpus() == ngpu, "%d GPUs, expected %d (%d devices, local rank %d of %d)", tamm_num_gpus(), ngpu,
              nd, lrank, lsize);
        for (int i = 0; i < tamm__gpus.n && i < ngpu; i++) {
            tamm__gpu *g = &tamm__gpus.g[i];
            CHECK(g->dev == dev0 + i, "GPU %d is device %d, expected %d", i, g->dev, dev0 + i);
            CHECK(g->share == share, "GPU %d shared by %d ranks, expected %d", i, g->share, share);
            size_t lim = g->info.total / (size_t)share / 10 * 9;
            CHECK(g->limit == lim, "GPU %d: limit %zu bytes, expected %zu (90%% of %zu, shared by %d)", i, g->limit, lim,
                  g->info.total, share);
        }
        printf("rank %d: local rank %d of %d, %d emulated devices: %d GPU%s, device %d, shared by %d, limit %zu\n", me,
               lrank, lsize, nd, tamm_num_gpus(), tamm_num_gpus() == 1 ? "" : "s",
               tamm__gpus.n ? tamm__gpus.g[0].dev : -1, tamm__gpus.n ? tamm__gpus.g[0].share : 0,
               tamm__gpus.n ? tamm__gpus.g[0].limit : 0);
    }

    size_t dim = (size_t)NBLK * TILE, tile = TILE;
    tamm_tensor *X = tamm_tensor_create("X", TAMM_I64, 1, &dim, &tile);
    static uint64_t ref[NBLK][TILE];
    memset(ref, 0, sizeof ref);
    uint64_t s = 0x2545F4914F6CDD1Dull;
    for (int i = 0; i < NTASK; i++) {
        op_args a = { X, (long)(rnd(&s) % NBLK), 0, rnd(&s) % 1000 };
        do a.s = (long)(rnd(&s) % NBLK); while (a.s == a.d);
        step(ref[a.d], ref[a.s], a.k);
        tamm_ref r[2];
        memset(r, 0, sizeof r);
        r[0].tensor = X; r[0].nidx = 1; r[0].idx[0] = a.s; r[0].mode = TAMM_READ;
        r[1].tensor = X; r[1].nidx = 1; r[1].idx[0] = a.d; r[1].mode = TAMM_READWRITE;
        tamm_task t;
        memset(&t, 0, sizeof t);
        t.cuda = op_gpu; /* CUDA only: it must run on the executing rank's GPU */
        t.args = &a;
        t.args_size = sizeof a;
        t.refs = r;
        t.nrefs = 2;
        t.rank = -1;
        t.label = "step";
        t.file = __FILE__;
        t.line = __LINE__;
        CHECK(tamm_submit(NULL, &t) == TAMM_OK, "submit %d", i);
    }
    CHECK(tamm_wait_all() == TAMM_OK, "wait_all");
    static uint64_t all[NBLK * TILE];
    CHECK(tamm_tensor_gather(X, all) == TAMM_OK, "gather");
    uint64_t sum = 0;
    for (int b = 0; b < NBLK; b++) {
        CHECK(!memcmp(&all[b * TILE], ref[b], sizeof ref[b]), "block X[%d] differs from the plain evaluation", b);
        for (int k = 0; k < TILE; k++) sum = sum * 31 + all[b * TILE + k];
    }
    unsigned long long ran = 0;
    for (int i = 0; i < tamm__gpus.n; i++) ran += atomic_load(&tamm__gpus.g[i].ntasks);
    CHECK(ran > 0, "no task ran on this rank's GPU");
    tamm_tensor_destroy(X);
    tamm_finalize();
    if (failures) return 1;
    printf("checksum %016llx OK\n", (unsigned long long)sum); /* equal on every rank and in every run */
    return 0;
}
