#define _POSIX_C_SOURCE 200809L
/*
 * mpi_skip.c — cost per task of the tasks a rank does not run (docs/runtime.md "Several
 * MPI ranks": such a rank creates no task for them, it only updates the block states).
 *
 *   mpirun -np P mpi_skip [NTASKS]
 *
 * Tensor X lives on rank 0 (TAMM_DIST_LOCAL); NTASKS tasks readwrite its
 * blocks in a chain.  Every other rank sees every task and runs none, and
 * owns none of its blocks: its submission loop is pure skipping.  Each rank
 * prints the time per task of its submission loop.
 */
#include <tamm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void body(tamm_ctx *c, void *a) { (void)c; (void)a; }
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec; }

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 200000;
    if (tamm_init(&argc, &argv) != TAMM_OK) return 1;
    tamm_tensor_opts o;
    memset(&o, 0, sizeof o);
    o.dist = TAMM_DIST_LOCAL;
    o.owner = 0;
    size_t d = 64, t = 1;
    tamm_tensor *X = tamm_tensor_create_ex("X", TAMM_I64, 1, &d, &t, &o);
    double t0 = now();
    for (long i = 0; i < n; i++) {
        tamm_ref r;
        memset(&r, 0, sizeof r);
        r.tensor = X; r.nidx = 1; r.idx[0] = i % 64; r.mode = TAMM_READWRITE;
        tamm_task k;
        memset(&k, 0, sizeof k);
        k.cpu = body; k.refs = &r; k.nrefs = 1; k.rank = -1; k.label = "t";
        tamm_submit(NULL, &k);
    }
    double ts = now() - t0;
    tamm_wait_all();
    double tw = now() - t0;
    printf("rank %d of %d: %ld tasks, submission loop %.1f ns/task (%s), until all done %.1f ns/task\n", tamm_rank(),
           tamm_nranks(), n, ts / (double)n * 1e9, tamm_rank() == 0 ? "runs them" : "skips them", tw / (double)n * 1e9);
    tamm_finalize();
    return 0;
}
