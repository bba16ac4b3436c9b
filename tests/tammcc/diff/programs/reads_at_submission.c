/*
 * reads_at_submission.c — data outside tensors that task bodies read, changed by the
 * submitting code after the submission with no taskwait between (docs/language.md, rule 40).
 * tammcc reads each such value at submission, so every task computes with the value the plain
 * build's body saw: a struct member through a pointer (p->coef, p->in.shift, p->tab[1]), a
 * global scalar (read in a loop with constant bounds), an element of a global array at a
 * constant index, *q, an element of a local array (captured by value anyway), an element
 * through a pointer at an index captured from a loop of submissions, and a nested task that
 * reads a global when its parent submits it.  Differential test: output must equal the
 * sequential elision's.
 */
#include <tamm.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#define NT 7   /* blocks */
#define NB 4   /* elements per block */

struct inner { int64_t shift; };
struct params { int64_t coef; struct inner in; const int64_t *tab; };

int64_t g_scale = 3;
int64_t g_table[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };

int main(int argc, char **argv)
{
    tamm_init(&argc, &argv);
    size_t dims[1] = { NT * NB }, tile[1] = { NB };
    tamm_tensor *X = tamm_tensor_create("X", TAMM_I64, 1, dims, tile);
    struct params prm = { 5, { 7 }, g_table };
    struct params *p = &prm;
    int64_t local = 11, *q = &local;
    int64_t w[4] = { 2, 4, 6, 8 };
    int64_t *tab = g_table;

    /* members through a pointer */
    #pragma tamm task
    {
        int64_t *x = tamm_block(X, 0);
        for (int e = 0; e < NB; e++)
            x[e] = p->coef * e + p->in.shift;
    }
    p->coef = 100;
    p->in.shift = -1;

    /* a global scalar, read in a loop that runs at least once */
    #pragma tamm task
    {
        int64_t *x = tamm_block(X, 1);
        for (int e = 0; e < NB; e++)
            x[e] = g_scale * (e + 1);
    }
    g_scale = 1000;

    /* an element of a global array, *q, an element of a local array, an element through a member */
    #pragma tamm task
    {
        int64_t *x = tamm_block(X, 2);
        x[0] = g_table[3];
        x[1] = *q;
        x[2] = w[2];
        x[3] = p->tab[1];
    }
    g_table[3] = -3;
    local = -11;
    w[2] = -6;
    g_table[1] = -2;

    /* a loop of submissions: each task reads the element of its own iteration, which the loop
     * then changes, and the global the loop changes after each submission */
    for (long b = 3; b < NT - 1; b++) {
        #pragma tamm task
        {
            int64_t *x = tamm_block(X, b);
            for (int e = 0; e < NB; e++)
                x[e] = tab[b] * 10 + g_scale + e;
        }
        tab[b] += 100;
        g_scale += 1;
    }

    /* a nested task reads the global when its parent submits it */
    #pragma tamm task
    {
        #pragma tamm task
        {
            int64_t *x = tamm_block(X, NT - 1);
            for (int e = 0; e < NB; e++)
                x[e] = g_scale - e;
        }
    }
    #pragma tamm taskwait
    g_scale = 0;

    for (long b = 0; b < NT; b++) {
        const int64_t *x = tamm_block(X, b);
        printf("X[%ld] =", b);
        for (int e = 0; e < NB; e++)
            printf(" %" PRId64, x[e]);
        printf("\n");
    }
    printf("p->coef %" PRId64 ", g_scale %" PRId64 ", g_table[3] %" PRId64 "\n", p->coef, g_scale, g_table[3]);
    return tamm_finalize() == TAMM_OK ? 0 : 1;
}
