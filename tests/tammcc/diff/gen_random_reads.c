/*
 * gen_random_reads.c — tasks of gen_random_program that read data outside tensors (see
 * gen_random_reads.h).
 *
 * Each statement is a scope of main holding a struct and a scalar that pointers of the scope
 * point to, and a task that updates one block from values it reads through those pointers and
 * from two globals (an array and a scalar).  Two shapes, both equal to the plain build:
 *   - every read is of a fixed location, made each time the body runs (at the top of the body,
 *     or in a loop with constant bounds), in a body that stores only to its locals and its
 *     block: tammcc reads them at submission (rule 40), and the scope then changes the data with
 *     no taskwait between;
 *   - some reads are not of that kind (an element of the global array at a loop variable, a
 *     member read under an if): the scope waits (#pragma tamm taskwait) before changing it.
 * Values stay small: the globals' changes are reduced modulo a prime.
 */
#include "gen_random_reads.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t gr_state; /* xorshift64* */
static int gr_used;       /* some statement uses the globals */
static int gr_id;         /* for unique names */

static int gr_rand(int n)
{
    gr_state ^= gr_state >> 12;
    gr_state ^= gr_state << 25;
    gr_state ^= gr_state >> 27;
    return n <= 1 ? 0 : (int)((gr_state * 0x2545f4914f6cdd1dull >> 33) % (uint64_t)n);
}

void gr_seed(unsigned long long seed)
{
    gr_state = (seed ^ 0x243f6a8885a308d3ull) * 0x9e3779b97f4a7c15ull | 1u;
}

typedef struct { char *s; size_t n, cap; } gr_buf;

/* one line of text, indented by ind levels */
static void put(gr_buf *b, int ind, const char *f, ...) __attribute__((format(printf, 3, 4)));
static void put(gr_buf *b, int ind, const char *f, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, f);
    int k = snprintf(line, sizeof line, "%*s", 4 * ind, "");
    vsnprintf(line + k, sizeof line - (size_t)k, f, ap);
    va_end(ap);
    size_t len = strlen(line);
    if (b->n + len + 2 > b->cap) {
        b->cap = (b->n + len + 2) * 2;
        b->s = realloc(b->s, b->cap);
        if (!b->s) {
            fprintf(stderr, "gen_random_program: out of memory\n");
            exit(1);
        }
    }
    memcpy(b->s + b->n, line, len);
    b->n += len;
    b->s[b->n++] = '\n';
    b->s[b->n] = 0;
}

char *gr_stmt(const gr_tensor *tens, int ntens, int ind)
{
    if (gr_rand(100) >= 8) return NULL;
    gr_used = 1;
    int id = ++gr_id, wait = gr_rand(3) == 0, loop = gr_rand(2), k = gr_rand(4);
    const gr_tensor *T = &tens[gr_rand(ntens)];
    long b0 = gr_rand((int)T->nb[0]), b1 = T->ndim == 2 ? gr_rand((int)T->nb[1]) : 0;
    char blk[128], ext[160];
    if (T->ndim == 1) {
        snprintf(blk, sizeof blk, "tamm_block(%s, %ld)", T->name, b0);
        snprintf(ext, sizeof ext, "tamm_block_extent(%s, 0, %ld)", T->name, b0);
    } else {
        snprintf(blk, sizeof blk, "tamm_block(%s, %ld, %ld)", T->name, b0, b1);
        snprintf(ext, sizeof ext, "tamm_block_extent(%s, 0, %ld) * tamm_block_extent(%s, 1, %ld)", T->name, b0,
                 T->name, b1);
    }
    gr_buf o = { NULL, 0, 0 };
    put(&o, ind, "{   /* a task reads data outside tensors that this scope then changes (rule 40) */");
    put(&o, ind + 1, "struct rd_params rdp%d = { %d, { %d } };", id, 1 + gr_rand(50), gr_rand(20));
    put(&o, ind + 1, "struct rd_params *rp%d = &rdp%d;", id, id);
    put(&o, ind + 1, "int64_t rdl%d = %d, *rq%d = &rdl%d;", id, 1 + gr_rand(30), id, id);
    put(&o, ind + 1, "#pragma tamm task");
    put(&o, ind + 1, "{");
    put(&o, ind + 2, "int64_t *x%d = %s;", id, blk);
    put(&o, ind + 2, "size_t n%d = %s;", id, ext);
    if (!wait) { /* fixed locations, read each time the body runs: read at submission */
        put(&o, ind + 2, "int64_t a%d = rp%d->coef * 3 + rp%d->in.shift + rd_g[%d] + rd_s * *rq%d;", id, id, id, k, id);
        if (loop) {
            put(&o, ind + 2, "for (int k%d = 0; k%d < 3; k%d++)", id, id, id);
            put(&o, ind + 3, "a%d += rd_g[%d] * (k%d + 1) + rp%d->coef;", id, (k + 1) % 4, id, id);
        }
    } else { /* read at run time: an element at a loop variable, a member under an if */
        put(&o, ind + 2, "int64_t a%d = rp%d->coef;", id, id);
        put(&o, ind + 2, "for (int k%d = 0; k%d < 4; k%d++)", id, id, id);
        put(&o, ind + 3, "a%d += rd_g[k%d] * (k%d + %d);", id, id, id, 1 + gr_rand(3));
        put(&o, ind + 2, "if (a%d %% 2)", id);
        put(&o, ind + 3, "a%d += rp%d->in.shift + *rq%d;", id, id, id);
    }
    put(&o, ind + 2, "for (size_t e%d = 0; e%d < n%d; e%d++)", id, id, id, id);
    put(&o, ind + 3, "x%d[e%d] = (x%d[e%d] * 3 + a%d %% 1000 + (int64_t)e%d) %% MOD;", id, id, id, id, id, id);
    put(&o, ind + 1, "}");
    if (wait) put(&o, ind + 1, "#pragma tamm taskwait");
    put(&o, ind + 1, "rp%d->coef += %d;", id, 1 + gr_rand(9));
    put(&o, ind + 1, "rp%d->in.shift = %d;", id, gr_rand(20));
    put(&o, ind + 1, "*rq%d = %d;", id, gr_rand(30));
    put(&o, ind + 1, "rd_g[%d] = (rd_g[%d] * 7 + %d) %% MOD;", k, k, 1 + gr_rand(100));
    put(&o, ind + 1, "rd_s = (rd_s * 3 + %d) %% 1000;", 1 + gr_rand(100));
    put(&o, ind, "}");
    return o.s;
}

void gr_globals(void)
{
    if (!gr_used) return;
    printf("/* data outside tensors that tasks read and the top level changes (rule 40) */\n"
           "struct rd_inner { int64_t shift; };\n"
           "struct rd_params { int64_t coef; struct rd_inner in; };\n"
           "static int64_t rd_g[4] = { %d, %d, %d, %d };\n"
           "static int64_t rd_s = %d;\n\n", gr_rand(100), gr_rand(100), gr_rand(100), gr_rand(100), gr_rand(100));
}
