/*
 * cancel.c — cancellable accesses (docs/language.md "Cancellable accesses": cwrite,
 * creadwrite, caccum; without a cancel the writes are committed) agree between the tammcc
 * build and the plain build (the sequential elision, docs/language.md "The pragma language").
 * A body writes its block through tamm_block and then, depending on the data, calls
 * tamm_cancel (the block keeps what it held before the task), tamm_put (an
 * explicit commit), or nothing (committed when the task ends).  Under tammcc
 * the body writes a private copy; in the plain build tamm_block returns the
 * block's memory and keeps a copy that tamm_cancel puts back
 * (docs/runtime.md, "Cancellation").  Accumulations into one block from
 * several tasks, some cancelled, sum only the others.  Later tasks read the
 * blocks, so a cancelled task must still be ordered before them.
 * Differential test: the output must equal the plain build's at 1, 2, 4 workers.
 */
#include <tamm.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#define NB 8   /* blocks */
#define TS 16  /* elements per block */

static void fill(int64_t *p, int64_t v)
{
    for (int e = 0; e < TS; e++)
        p[e] = v + e;
}

static int64_t sum(const int64_t *p)
{
    int64_t s = 0;
    for (int e = 0; e < TS; e++)
        s += p[e];
    return s;
}

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK) return 1;
    size_t dims[1] = { NB * TS }, tile[1] = { TS };
    tamm_tensor *A = tamm_tensor_create("A", TAMM_I64, 1, dims, tile);
    tamm_tensor *B = tamm_tensor_create("B", TAMM_I64, 1, dims, tile);
    tamm_tensor *S = tamm_tensor_create("S", TAMM_I64, 1, dims, tile);
    tamm_tensor *R = tamm_tensor_create("R", TAMM_I64, 1, dims, tile);

    for (long i = 0; i < NB; i++) {
        #pragma tamm task
        {
            int64_t *a = tamm_block(A, i);
            int64_t *b = tamm_block(B, i);
            for (int e = 0; e < TS; e++) {
                a[e] = 100 * i + e;
                b[e] = 1000 * i + e;
            }
        }
    }

    for (int round = 0; round < 3; round++) {
        /* cwrite: overwrite, then cancel on odd blocks, put on blocks 2 mod 4, fall off the end otherwise */
        for (long i = 0; i < NB; i++) {
            #pragma tamm task cwrite(A[i]) label("cwrite")
            {
                int64_t *a = tamm_block(A, i);
                fill(a, 7 * (round + 1) * (i + 1));
                if (i % 2 == 1)
                    tamm_cancel(a);
                else if (i % 4 == 2)
                    tamm_put(a);
            }
        }
        /* creadwrite: read-modify-write, cancelled when the new sum would be a multiple of 3 */
        for (long i = 0; i < NB; i++) {
            #pragma tamm task creadwrite(B[i]) label("creadwrite")
            {
                int64_t *b = tamm_block(B, i);
                for (int e = 0; e < TS; e++)
                    b[e] = b[e] * 3 + round + e;
                if (sum(b) % 3 == 0)
                    tamm_cancel(b);
            }
        }
        /* caccum: every block of A and B adds into S[j]; contributions from block k where
         * (k + round) % 3 == 0 are cancelled */
        for (long k = 0; k < NB; k++)
            for (long j = 0; j < NB; j += 3) {
                #pragma tamm task read(A[k], B[k]) caccum(S[j]) label("caccum")
                {
                    const int64_t *a = tamm_block(A, k);
                    const int64_t *b = tamm_block(B, k);
                    int64_t *s = tamm_block(S, j);
                    for (int e = 0; e < TS; e++)
                        s[e] += a[e] + 2 * b[e] + j;
                    if ((k + round) % 3 == 0)
                        tamm_cancel(s);
                }
            }
        /* readers after the cancellable writers: ordered after them whether they cancelled or not */
        for (long i = 0; i < NB; i++) {
            #pragma tamm task
            {
                const int64_t *a = tamm_block(A, i);
                const int64_t *b = tamm_block(B, i);
                int64_t *r = tamm_block(R, i);
                for (int e = 0; e < TS; e++)
                    r[e] += a[e] ^ b[e];
            }
        }
    }
    #pragma tamm taskwait

    int64_t total = 0;
    for (long i = 0; i < NB; i++) {
        const int64_t *a = tamm_block(A, i), *b = tamm_block(B, i), *s = tamm_block(S, i), *r = tamm_block(R, i);
        printf("block %ld: A %" PRId64 " B %" PRId64 " S %" PRId64 " R %" PRId64 " (A[0] %" PRId64 ", B[0] %" PRId64 ")\n",
               i, sum(a), sum(b), sum(s), sum(r), a[0], b[0]);
        total += sum(a) + sum(b) + sum(s) + sum(r);
    }
    printf("total %" PRId64 "\n", total);
    tamm_tensor_destroy(A);
    tamm_tensor_destroy(B);
    tamm_tensor_destroy(S);
    tamm_tensor_destroy(R);
    return tamm_finalize() == TAMM_OK ? 0 : 1;
}
