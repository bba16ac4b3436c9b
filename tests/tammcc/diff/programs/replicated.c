/*
 * replicated.c — a replicated tensor (TAMM_DIST_REPLICATED: every rank holds a
 * copy of every block) modified by tasks that run on one rank (docs/runtime.md,
 * "Several MPI ranks", "Replicated tensors").  Tasks on(r) write, read-write
 * and accumulate into blocks of R from every rank in turn; tasks placed on the
 * owners of a distributed tensor's blocks read R; one task writes a
 * distributed block first and a block of R; the top level reads R with
 * tamm_block in the middle and at the end.  Every rank prints the same lines,
 * which must equal the plain build's (one process, the sequential elision).
 * Differential test: 1, 2, 4 workers, and 2, 3, 4 MPI ranks (mpi_tammcc_diff_*).
 */
#include <tamm.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define NB 4   /* blocks */
#define TS 8   /* elements per block */

static int64_t sum(const int64_t *p)
{
    int64_t s = 0;
    for (int e = 0; e < TS; e++)
        s += p[e] * (e + 1);
    return s;
}

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK) return 1;
    int P = tamm_nranks();
    (void)P; /* used only by the on(...) clauses, which the plain build ignores */
    size_t dims[1] = { NB * TS }, tile[1] = { TS };
    tamm_tensor_opts ro;
    memset(&ro, 0, sizeof ro);
    ro.dist = TAMM_DIST_REPLICATED;
    tamm_tensor *R = tamm_tensor_create_ex("R", TAMM_I64, 1, dims, tile, &ro);
    tamm_tensor *A = tamm_tensor_create("A", TAMM_I64, 1, dims, tile);

    /* each block of R written on another rank */
    for (long i = 0; i < NB; i++) {
        #pragma tamm task on((int)(i % P)) write(R[i]) label("write R")
        {
            int64_t *r = tamm_block(R, i);
            for (int e = 0; e < TS; e++)
                r[e] = 10 * i + e;
        }
    }
    /* readers of R, each on the owner of the block of A it writes */
    for (long i = 0; i < NB; i++) {
        #pragma tamm task read(R[(i + 1) % NB]) write(A[i]) label("read R")
        {
            const int64_t *r = tamm_block(R, (i + 1) % NB);
            int64_t *a = tamm_block(A, i);
            for (int e = 0; e < TS; e++)
                a[e] = 2 * r[e] + i;
        }
    }
    /* accumulations into R[0] from every rank */
    for (int k = 0; k < 6; k++) {
        #pragma tamm task on(k % P) accum(R[0]) label("accumulate R")
        {
            int64_t *r = tamm_block(R, 0);
            for (int e = 0; e < TS; e++)
                r[e] += k + e;
        }
    }
    {
        const int64_t *r = tamm_block(R, 0);
        printf("after the accumulations: R[0] %" PRId64 " %" PRId64 " sum %" PRId64 "\n", r[0], r[TS - 1], sum(r));
    }
    /* a chain of read-modify-writes hopping over the ranks, readers between */
    for (int k = 0; k < 5; k++) {
        #pragma tamm task on((k + 1) % P) readwrite(R[1]) label("chain")
        {
            int64_t *r = tamm_block(R, 1);
            for (int e = 0; e < TS; e++)
                r[e] = 3 * r[e] + k;
        }
        #pragma tamm task read(R[1]) readwrite(A[k % NB]) label("chain reader")
        {
            const int64_t *r = tamm_block(R, 1);
            int64_t *a = tamm_block(A, k % NB);
            for (int e = 0; e < TS; e++)
                a[e] += r[e];
        }
    }
    /* a distributed block first, then a block of R: runs on A[2]'s owner */
    #pragma tamm task write(A[2]) write(R[3]) label("write A and R")
    {
        int64_t *a = tamm_block(A, 2);
        int64_t *r = tamm_block(R, 3);
        for (int e = 0; e < TS; e++) {
            a[e] = 1000 + e;
            r[e] = -7 * e;
        }
    }
    #pragma tamm taskwait

    for (long i = 0; i < NB; i++) {
        const int64_t *r = tamm_block(R, i);
        printf("R[%ld] %" PRId64 " %" PRId64 " sum %" PRId64 "\n", i, r[0], r[TS - 1], sum(r));
    }
    for (long i = 0; i < NB; i++) {
        const int64_t *a = tamm_block(A, i);
        printf("A[%ld] %" PRId64 " %" PRId64 " sum %" PRId64 "\n", i, a[0], a[TS - 1], sum(a));
    }
    tamm_tensor_destroy(R);
    tamm_tensor_destroy(A);
    return tamm_finalize() == TAMM_OK ? 0 : 1;
}
