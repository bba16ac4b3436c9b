/*
 * gen_random_program.c — writes a random, valid tamm pragma program to stdout.
 *
 *   gen_random_program SEED [SIZE [gpu]]  (SIZE ~ number of top-level tasks, default 50)
 *
 * With "gpu", half the top-level tasks are single loops over block elements, the form tammcc
 * turns into CUDA kernels (gen_kernel_task), some with device(cuda); the rest is the same kind
 * of program (random_differential.sh with GPUS runs them on emulated GPUs).
 *
 * The program is deterministic for (SEED, SIZE).  It works on 1 to 3 int64
 * tensors (1-D or 2-D, with edge blocks), defines a few helper functions with
 * pointer parameters (const or not, some annotated TAMM_READS / TAMM_WRITES /
 * TAMM_UPDATES / TAMM_ACCUMULATES, one declared before and defined after main),
 * and submits `#pragma tamm task`s whose bodies call the helpers with
 * tamm_block(...) arguments, run inline loops that read, store or `+=` block
 * elements, submit nested tasks, and contain `#pragma tamm taskwait` at their top
 * level and inside `if`, `for` and `while` statements.  Some statements update a
 * block through a pointer derived from tamm_block() in the everyday forms
 * (row pointers, *w++ walkers, struct fields, arrays of pointers, a helper
 * returning its argument, a byte cast, ?:, the value of an assignment, memmove,
 * mutual recursion, an update under an if, '+=' through a uint32_t view of the
 * int64 elements, a double added to an int64 element), whose inference must be readwrite,
 * and guarded blocks (`c ? tamm_block(...) : NULL`, `if (c) q = tamm_block(...)`)
 * whose conditions use captured values or the body's own variables.  Tasks sometimes carry
 * explicit clauses (read/write/readwrite/accum, permission(...) with slices,
 * label, priority, if); the top level uses taskwait, taskwait on(...) and fence.
 * Some programs end with a recursive task function over [lo, hi) of a 1-D tensor
 * R (and S), the divide and conquer of OpenMP tutorials, with a random split
 * point, base case, leaf and combine blocks (sometimes one past the range, or a
 * split point read from a global), called from a task or from the top level:
 * tammcc proves the ranges of such calls (rule 38 of docs/language.md) or
 * falls back to whole tensors, and the run checks both.
 * Some bodies that submit nested tasks write one block in several buffers
 * (gen_rehold): a helper fills it before the body's statements and a second
 * tamm_block stores one element after them, or the other way round; those
 * choices come from a second random stream, so a seed's program is otherwise
 * the one it was before they existed.
 * One program in three (a third random stream, so that the others are as they
 * were) is written in the preprocessor idiom of code bases that wrap or select
 * their OpenMP pragmas (gen_macro_idiom.h): directives of main's body behind
 * macros or chosen by #ifdef / #if, fill loops as a loop macro ending in
 * _Pragma("tamm task") or a macro that is the whole task, and block
 * references behind macros.
 * Some top-level statements (gen_random_reads.c, a random stream of their own) submit a task
 * that reads data outside tensors and then change that data: with no taskwait between where
 * tammcc reads it at submission (rule 40 of docs/language.md), after a taskwait where it does not.
 * At the end it prints a checksum of every tensor and exits 0.
 *
 * Validity rules the generator keeps (so that every execution equals the
 * sequential elision):
 *   - a task body writes no variable of an enclosing function (they are
 *     captured by value), never returns or breaks out, touches no global
 *     (but gen_random_reads.c's, which it only reads);
 *   - within one task, two pointer arguments of one call never name the same
 *     block, and all references to a tensor use one index expression (or its
 *     "+1" neighbour, which is provably a different block), except references
 *     indexed by a loop variable of the body itself;
 *   - explicit access clauses name only blocks the task itself touches, with
 *     the mode the body implies (write only where every element is stored
 *     without being read, by statements outside any if / else branch: a
 *     branch may not run, and TAMM_CHECK_ACCESS reports such a write clause;
 *     accum only where the block only receives += / -=),
 *     and only for tensors no nested task touches; permission(...) clauses
 *     cover everything the task and its descendants touch;
 *   - after submitting nested tasks that touch a tensor, a body does not touch
 *     that tensor until a `#pragma tamm taskwait` (for loops: unless the loop
 *     body ends with a taskwait, the parent's own statements in it avoid the
 *     tensors its nested tasks use);
 *   - arithmetic never overflows: every update that is not an accumulation is
 *     reduced modulo a prime, data is only multiplied by small constants, and
 *     accumulations (+=, -=) add small values, so sums are exact and
 *     commutative while x = x * 3 + y keeps order-sensitive updates visible.
 */
#include "gen_macro_idiom.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_random_reads.h"
#include "gen_random_fns.h"

/* ------------------------------------------------------------------ */
/* utilities                                                            */
/* ------------------------------------------------------------------ */
typedef struct {
    char *s;
    size_t n, cap;
} sbuf;

static void sb_vprintf(sbuf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int need = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (need < 0)
        abort();
    if (b->n + (size_t)need + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (b->n + (size_t)need + 1 > cap)
            cap *= 2;
        b->s = realloc(b->s, cap);
        if (!b->s) {
            fprintf(stderr, "gen_random_program: out of memory\n");
            exit(1);
        }
        b->cap = cap;
    }
    vsnprintf(b->s + b->n, (size_t)need + 1, fmt, ap);
    b->n += (size_t)need;
}

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(b, fmt, ap);
    va_end(ap);
}

/* one line at an indentation level (4 spaces per level) */
static void ln(sbuf *b, int ind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void ln(sbuf *b, int ind, const char *fmt, ...)
{
    sb_printf(b, "%*s", ind * 4, "");
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(b, fmt, ap);
    va_end(ap);
    sb_printf(b, "\n");
}

static void sb_append(sbuf *b, const sbuf *c)
{
    if (c->n)
        sb_printf(b, "%s", c->s);
}

static void sb_free(sbuf *b)
{
    free(b->s);
    b->s = NULL;
    b->n = b->cap = 0;
}

/* The next value of the splitmix64 stream whose state is *st. */
static uint64_t splitmix(uint64_t *st)
{
    uint64_t z = (*st += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}
static uint64_t rng_state;
static uint64_t rnd(void) { return splitmix(&rng_state); }
/* A second stream for shapes added later (gen_rehold): drawing from it leaves every choice
 * of the first stream, so the rest of a seed's program, as it was. */
static uint64_t rng2_state;
static int rint2(int n) { return n <= 1 ? 0 : (int)(splitmix(&rng2_state) % (uint64_t)n); } /* [0, n) */
/* A third stream: whether and how the program is written in the macro idiom (gen_macro_idiom). */
static uint64_t rng3_state;
static int rint3(int n) { return n <= 1 ? 0 : (int)(splitmix(&rng3_state) % (uint64_t)n); } /* [0, n) */
static int rint_(int n) { return n <= 1 ? 0 : (int)(rnd() % (uint64_t)n); } /* [0, n) */
static int chance(int pct) { return rint_(100) < pct; }

/* ------------------------------------------------------------------ */
/* the program's model                                                  */
/* ------------------------------------------------------------------ */
#define MAXT 3
#define MAXLEVEL 3   /* top-level tasks are level 1 */

typedef struct {
    int ndim;
    long dims[2], tile[2], nb[2];
    char name[16];
} tensor_t;

static tensor_t tens[MAXT];
static int ntens;

/* loop variables in scope (block indices may use them) */
typedef struct {
    char name[16];
    int depth; /* 0: top level; L: declared in the body of a level-L task */
} var_t;
static var_t vars[256];
static int nvars;

/* int64 scalars in scope (values tasks may read; written only at their own depth) */
static var_t scalars[256];
static int nscalars;

static int uid; /* for unique names */

/* helpers used, so that only those are emitted (H_*: gen_random_fns.h) */
static int used[H_COUNT];

/* access bits of a task on a block / tensor */
enum { B_R = 1, B_W = 2 /* partial store */, B_F = 4 /* stores every element */, B_A = 8 };

/* a block reference used by a task body */
typedef struct {
    int t;
    char idx[2][96];
    int depth; /* deepest variable used by the indices (-1: constants only) */
} ref_t;

/* What a task (and its subtree) touches. */
typedef struct {
    int level;
    /* direct references through the task's base index expression (or its neighbour) */
    int has_base[MAXT];
    ref_t base[MAXT], shift[MAXT];
    int can_shift[MAXT];
    unsigned base_bits[MAXT], shift_bits[MAXT];
    /* direct references indexed by the body's own loop variables */
    unsigned local_bits[MAXT];
    /* everything touched by nested tasks (whole subtree) */
    unsigned desc_bits[MAXT];
    /* what the task's access clauses declare beyond its bits (readwrite for an
     * accum or a full write): the parent's permission must cover it too */
    unsigned decl_bits[MAXT];
    /* consistency of the first index over the whole subtree (for T[e][:] slices) */
    int fstate[MAXT]; /* 0 none, 1 consistent, 2 mixed */
    char first[MAXT][96];
    int fdepth[MAXT];
} taskinfo;

/* A statement list's context inside a task body (ti == NULL at top level). */
typedef struct {
    taskinfo *ti;
    int level;          /* 0 at top level, else ti->level */
    unsigned pending;   /* tensors nested tasks touched since the last taskwait */
    unsigned allowed;   /* tensors this body may touch (directly or through nested tasks) */
    unsigned child_ok;  /* tensors nested tasks submitted here may touch */
    unsigned forbidden; /* tensors the body's own statements must not touch */
    int in_loop;
    int in_if;          /* inside an if / else branch of the body: its statements may not run */
} body_t;

static int max_tasks_left; /* budget */

static void note_first(taskinfo *ti, int t, const char *s, int depth)
{
    if (ti->fstate[t] == 0) {
        ti->fstate[t] = 1;
        snprintf(ti->first[t], sizeof ti->first[t], "%s", s);
        ti->fdepth[t] = depth;
    } else if (ti->fstate[t] == 1 && strcmp(ti->first[t], s) != 0) {
        ti->fstate[t] = 2;
    }
}

/* An index expression for a dimension with nb blocks, from variables of depth <= maxdepth. */
static void gen_index(char *out, size_t cap, long nb, int maxdepth, int mindepth, int *depth)
{
    int cand[64], nc = 0;
    for (int i = 0; i < nvars; i++)
        if (vars[i].depth <= maxdepth && vars[i].depth >= mindepth)
            cand[nc++] = i;
    if (nc > 0 && (mindepth > 0 || chance(65))) {
        const var_t *v = &vars[cand[rint_(nc)]];
        if (v->depth > *depth)
            *depth = v->depth;
        switch (rint_(3)) {
        case 0: snprintf(out, cap, "%.15s %% %ld", v->name, nb); break;
        case 1: snprintf(out, cap, "(%.15s + %d) %% %ld", v->name, rint_(5), nb); break;
        default: snprintf(out, cap, "(%.15s * %d + %d) %% %ld", v->name, 1 + rint_(3), rint_(7), nb); break;
        }
    } else {
        snprintf(out, cap, "%ld", (long)rint_((int)nb));
    }
}

static void gen_ref(ref_t *r, int t, int maxdepth, int mindepth)
{
    r->t = t;
    r->depth = -1;
    for (int d = 0; d < tens[t].ndim; d++)
        gen_index(r->idx[d], sizeof r->idx[d], tens[t].nb[d], maxdepth, mindepth, &r->depth);
    if (mindepth > 0 && r->depth < mindepth) /* no variable of that depth in scope */
        r->depth = mindepth;
}

/* The "+1" neighbour of a reference: provably another block (needs >= 2 blocks along the dim). */
static int make_shift(ref_t *s, const ref_t *r)
{
    const tensor_t *T = &tens[r->t];
    *s = *r;
    for (int d = 0; d < T->ndim; d++)
        if (T->nb[d] >= 2) {
            char tmp[sizeof s->idx[d] + 32];
            snprintf(tmp, sizeof tmp, "(%.80s + 1) %% %ld", r->idx[d], T->nb[d]);
            memcpy(s->idx[d], tmp, sizeof s->idx[d] - 1);
            s->idx[d][sizeof s->idx[d] - 1] = '\0';
            return 1;
        }
    return 0;
}

static void ref_block(char *out, size_t cap, const ref_t *r) /* tamm_block(T0, i, j) */
{
    if (tens[r->t].ndim == 1)
        snprintf(out, cap, "tamm_block(%s, %s)", tens[r->t].name, r->idx[0]);
    else
        snprintf(out, cap, "tamm_block(%s, %s, %s)", tens[r->t].name, r->idx[0], r->idx[1]);
}
static void ref_clause(char *out, size_t cap, const ref_t *r) /* T0[i][j] */
{
    if (tens[r->t].ndim == 1)
        snprintf(out, cap, "%s[%s]", tens[r->t].name, r->idx[0]);
    else
        snprintf(out, cap, "%s[%s][%s]", tens[r->t].name, r->idx[0], r->idx[1]);
}
static void ref_extent(char *out, size_t cap, const ref_t *r, int d)
{
    snprintf(out, cap, "tamm_block_extent(%s, %d, %s)", tens[r->t].name, d, r->idx[d]);
}
static void ref_elems(char *out, size_t cap, const ref_t *r)
{
    char e0[160], e1[160];
    ref_extent(e0, sizeof e0, r, 0);
    if (tens[r->t].ndim == 1) {
        snprintf(out, cap, "%s", e0);
    } else {
        ref_extent(e1, sizeof e1, r, 1);
        snprintf(out, cap, "%s * %s", e0, e1);
    }
}

/* A small expression from scalars / loop variables in scope, value in [0, 1000). */
static void gen_small(char *out, size_t cap)
{
    int r = rint_(10);
    if (r < 3 && nscalars > 0) {
        const var_t *s = &scalars[rint_(nscalars)];
        snprintf(out, cap, "(%.15s %% 1000 + 1000) %% 1000", s->name);
    } else if (r < 6 && nvars > 0) {
        const var_t *v = &vars[rint_(nvars)];
        snprintf(out, cap, "%.15s * %d + %d", v->name, 1 + rint_(9), rint_(100));
    } else {
        snprintf(out, cap, "%d", rint_(1000));
    }
}

/* ------------------------------------------------------------------ */
/* choosing the blocks a statement of a task body touches               */
/* ------------------------------------------------------------------ */
static int pick_tensor(unsigned mask)
{
    int c[MAXT], n = 0;
    for (int t = 0; t < ntens; t++)
        if (mask & (1u << t))
            c[n++] = t;
    return n ? c[rint_(n)] : -1;
}

/* which kind of reference: 0 base, 1 shift, 2 local-indexed */
typedef struct {
    ref_t r;
    int kind;
} use_t;

static void ensure_base(taskinfo *ti, int t)
{
    if (ti->has_base[t])
        return;
    ti->has_base[t] = 1;
    gen_ref(&ti->base[t], t, ti->level - 1, 0);
    ti->can_shift[t] = make_shift(&ti->shift[t], &ti->base[t]);
}

/* Choose a reference to tensor t for a direct touch of the body. */
static void choose_use(body_t *b, int t, use_t *u, int avoid_kind)
{
    if (!b->ti) { /* top level: any indices */
        gen_ref(&u->r, t, 0, 0);
        u->kind = 0;
        return;
    }
    taskinfo *ti = b->ti;
    int has_local = 0;
    for (int i = 0; i < nvars; i++)
        if (vars[i].depth == ti->level)
            has_local = 1;
    ensure_base(ti, t);
    int k;
    for (;;) {
        int r = rint_(100);
        k = r < 60 ? 0 : r < 82 ? 1 : 2;
        if (k == 1 && !ti->can_shift[t])
            k = 0;
        if (k == 2 && !has_local)
            k = 0;
        if (k != avoid_kind || (avoid_kind == 0 && !ti->can_shift[t] && !has_local))
            break;
    }
    u->kind = k;
    if (k == 0)
        u->r = ti->base[t];
    else if (k == 1)
        u->r = ti->shift[t];
    else
        gen_ref(&u->r, t, ti->level, ti->level);
}

static void record_use(body_t *b, const use_t *u, unsigned bits)
{
    if (!b->ti)
        return;
    taskinfo *ti = b->ti;
    int t = u->r.t;
    if (b->in_if && (bits & B_F)) /* a fill that may not run stores no element for sure */
        bits = (bits & ~(unsigned)B_F) | B_W;
    if (u->kind == 0)
        ti->base_bits[t] |= bits;
    else if (u->kind == 1)
        ti->shift_bits[t] |= bits;
    else
        ti->local_bits[t] |= bits;
    note_first(ti, t, u->r.idx[0], u->r.depth);
}

/* Two references for a call with a destination and a source: distinct blocks. */
static int choose_pair(body_t *b, unsigned mask, use_t *d, use_t *s)
{
    int td = pick_tensor(mask);
    if (td < 0)
        return 0;
    choose_use(b, td, d, -1);
    int ts = pick_tensor(mask & ~(1u << td));
    if (ts >= 0 && (chance(60) || d->kind == 2)) {
        choose_use(b, ts, s, -1);
        return 1;
    }
    if (d->kind == 2)
        return 0;
    /* same tensor: the other of base / shift */
    if (!b->ti) {
        if (!make_shift(&s->r, &d->r))
            return 0;
        s->kind = 0;
        return 1;
    }
    taskinfo *ti = b->ti;
    if (!ti->can_shift[td])
        return 0;
    s->kind = d->kind == 0 ? 1 : 0;
    s->r = s->kind == 0 ? ti->base[td] : ti->shift[td];
    return 1;
}

/* ------------------------------------------------------------------ */
/* statements                                                           */
/* ------------------------------------------------------------------ */
static void gen_stmts(sbuf *out, body_t *b, int ind, int nstmts);
static void gen_task(sbuf *out, body_t *parent, int ind);

/* The tensors the body's own statements may touch now. */
static unsigned touchable(const body_t *b)
{
    return b->allowed & ~b->pending & ~b->forbidden;
}

/* One statement in which the body itself touches blocks.  own_scalar: a scalar
 * of this body that may be assigned (or NULL).  Returns 0 if nothing fits. */
static void gen_cond(char *out, size_t cap);

/* An order-sensitive update (x = x * 3 + c) of one block through a pointer
 * derived from tamm_block() in one of the everyday forms whose inference must
 * be readwrite: row pointers, walkers (*w++), struct fields, arrays of
 * pointers, a helper returning its argument, a cast to bytes, ?:, the value
 * of an assignment, mutual recursion.  A write taken for a read lets a later
 * reader run first: the checksum then differs from the plain build's. */
static int gen_ptr_form(sbuf *out, body_t *b, int ind)
{
    unsigned mask = touchable(b);
    if (!mask)
        return 0;
    char bd[256], nd[400], sm[160], e0[160], e1[160];
    use_t d;
    int id = ++uid;
    d.r.t = pick_tensor(mask);
    choose_use(b, d.r.t, &d, -1);
    ref_block(bd, sizeof bd, &d.r);
    ref_elems(nd, sizeof nd, &d.r);
    gen_small(sm, sizeof sm);
    int form = rint_(11);
    ln(out, ind, "{");
    ln(out, ind + 1, "int64_t *p%d = %s;", id, bd);
    ln(out, ind + 1, "size_t n%d = %s;", id, nd);
    ln(out, ind + 1, "(void)n%d;", id);
    switch (form) {
    case 0: /* a row pointer */
        if (tens[d.r.t].ndim == 2) {
            ref_extent(e0, sizeof e0, &d.r, 0);
            ref_extent(e1, sizeof e1, &d.r, 1);
            ln(out, ind + 1, "size_t r%d = %s, c%d = %s;", id, e0, id, e1);
            ln(out, ind + 1, "for (size_t a%d = 0; a%d < r%d; a%d++) {", id, id, id, id);
            ln(out, ind + 2, "int64_t *row%d = p%d + a%d * c%d;", id, id, id, id);
            ln(out, ind + 2, "for (size_t b%d = 0; b%d < c%d; b%d++)", id, id, id, id);
            ln(out, ind + 3, "row%d[b%d] = (row%d[b%d] * 3 + %s) %% MOD;", id, id, id, id, sm);
            ln(out, ind + 1, "}");
        } else {
            ln(out, ind + 1, "int64_t *half%d = p%d + n%d / 2;", id, id, id);
            ln(out, ind + 1, "half%d[0] = (half%d[0] * 3 + %s) %% MOD;", id, id, sm);
        }
        break;
    case 1: /* a walker */
        ln(out, ind + 1, "int64_t *w%d = p%d;", id, id);
        ln(out, ind + 1, "for (size_t k%d = 0; k%d < n%d; k%d++) {", id, id, id, id);
        ln(out, ind + 2, "int64_t v%d = *w%d;", id, id);
        ln(out, ind + 2, "*w%d++ = (v%d * 3 + %s) %% MOD;", id, id, sm);
        ln(out, ind + 1, "}");
        break;
    case 2: /* a struct field */
        ln(out, ind + 1, "struct { int64_t *ptr; size_t n; } s%d = { p%d, n%d };", id, id, id);
        ln(out, ind + 1, "for (size_t k%d = 0; k%d < s%d.n; k%d += 2)", id, id, id, id);
        ln(out, ind + 2, "s%d.ptr[k%d] = (s%d.ptr[k%d] * 3 + %s) %% MOD;", id, id, id, id, sm);
        break;
    case 3: /* an array of pointers */
        ln(out, ind + 1, "int64_t *v%d[2];", id);
        ln(out, ind + 1, "v%d[0] = p%d;", id, id);
        ln(out, ind + 1, "v%d[1] = v%d[0] + (n%d - 1);", id, id, id);
        ln(out, ind + 1, "*v%d[1] = (*v%d[1] * 3 + %s) %% MOD;", id, id, sm);
        break;
    case 4: /* a helper that returns its argument */
        ln(out, ind + 1, "*h_at(p%d, n%d / 3) = (*h_at(p%d, n%d / 3) * 3 + %s) %% MOD;", id, id, id, id, sm);
        used[H_AT] = 1;
        break;
    case 5: /* bytes through a cast */
        ln(out, ind + 1, "unsigned char *cb%d = (unsigned char *)p%d;", id, id);
        ln(out, ind + 1, "cb%d[0] = (unsigned char)(cb%d[0] ^ 0x5a);", id, id);
        break;
    case 6: /* a branch of ?: */
        ln(out, ind + 1, "int64_t *t%d = n%d > 1 ? p%d + 1 : p%d;", id, id, id, id);
        ln(out, ind + 1, "t%d[0] = (t%d[0] * 3 + %s) %% MOD;", id, id, sm);
        break;
    case 7: /* the value of an assignment, and += on a pointer */
        ln(out, ind + 1, "int64_t *t%d;", id);
        ln(out, ind + 1, "*(t%d = p%d) = (*p%d * 3 + %s) %% MOD;", id, id, id, sm);
        ln(out, ind + 1, "t%d += n%d - 1;", id, id);
        ln(out, ind + 1, "*t%d = (*t%d * 3 + 1) %% MOD;", id, id);
        break;
    case 8: /* mutual recursion: h_rec_g touches the block only through h_rec_f */
        ln(out, ind + 1, "%s(p%d, n%d);", chance(50) ? "h_rec_g" : "h_rec_f", id, id);
        used[H_REC] = 1;
        break;
    case 10: { /* a guarded update */
        char cond[160];
        gen_cond(cond, sizeof cond);
        ln(out, ind + 1, "if (%s)", cond);
        ln(out, ind + 2, "p%d[0] = (p%d[0] * 3 + %s) %% MOD;", id, id, sm);
        break;
    }
    default: /* memmove within the block */
        ln(out, ind + 1, "if (n%d > 1)", id);
        ln(out, ind + 2, "memmove(p%d + 1, p%d, (n%d - 1) * sizeof *p%d);", id, id, id, id);
        ln(out, ind + 1, "p%d[0] = (p%d[0] * 3 + %s) %% MOD;", id, id, sm);
        break;
    }
    ln(out, ind, "}");
    record_use(b, &d, B_R | B_W);
    return 1;
}

static int gen_touch(sbuf *out, body_t *b, int ind, const char *own_scalar)
{
    unsigned mask = touchable(b);
    if (!mask)
        return 0;
    char bd[256], bs[256], nd[400], ns[400], sm[160], e0[160], e1[160];
    use_t d, s;
    if (chance(15))
        return gen_ptr_form(out, b, ind);
    int id = ++uid;
    int kind = rint_(own_scalar ? 17 : 15);
    switch (kind) {
    case 0: /* helper fill -> write */
    case 1: {
        d.r.t = pick_tensor(mask);
        choose_use(b, d.r.t, &d, -1);
        ref_block(bd, sizeof bd, &d.r);
        gen_small(sm, sizeof sm);
        if (tens[d.r.t].ndim == 2 && chance(50)) {
            ref_extent(e0, sizeof e0, &d.r, 0);
            ref_extent(e1, sizeof e1, &d.r, 1);
            ln(out, ind, "h_fill2(%s, %s, %s, %s);", bd, e0, e1, sm);
            used[H_FILL2] = 1;
        } else {
            ref_elems(nd, sizeof nd, &d.r);
            ln(out, ind, "h_fill(%s, %s, %s);", bd, nd, sm);
            used[H_FILL] = 1;
        }
        record_use(b, &d, B_F);
        return 1;
    }
    case 2: { /* inline canonical loop nest -> write */
        d.r.t = pick_tensor(mask);
        choose_use(b, d.r.t, &d, -1);
        ref_block(bd, sizeof bd, &d.r);
        gen_small(sm, sizeof sm);
        ln(out, ind, "{");
        ln(out, ind + 1, "int64_t *p%d = %s;", id, bd);
        ref_extent(e0, sizeof e0, &d.r, 0);
        if (tens[d.r.t].ndim == 1) {
            ln(out, ind + 1, "size_t n%d = %s;", id, e0);
            ln(out, ind + 1, "for (size_t k%d = 0; k%d < n%d; k%d++)", id, id, id, id);
            ln(out, ind + 2, "p%d[k%d] = ((int64_t)k%d * %d + %s) %% MOD;", id, id, id, 1 + rint_(9), sm);
        } else {
            ref_extent(e1, sizeof e1, &d.r, 1);
            ln(out, ind + 1, "size_t r%d = %s, c%d = %s;", id, e0, id, e1);
            ln(out, ind + 1, "for (size_t a%d = 0; a%d < r%d; a%d++)", id, id, id, id);
            ln(out, ind + 2, "for (size_t b%d = 0; b%d < c%d; b%d++)", id, id, id, id);
            ln(out, ind + 3, "p%d[a%d * c%d + b%d] = ((int64_t)(a%d * %d + b%d) + %s) %% MOD;", id, id, id, id, id,
               2 + rint_(7), id, sm);
        }
        ln(out, ind, "}");
        record_use(b, &d, B_F);
        return 1;
    }
    case 3: /* helpers with a destination and a source */
    case 4:
    case 5:
    case 6: {
        if (!choose_pair(b, mask, &d, &s))
            return 0;
        ref_block(bd, sizeof bd, &d.r);
        ref_block(bs, sizeof bs, &s.r);
        ref_elems(nd, sizeof nd, &d.r);
        ref_elems(ns, sizeof ns, &s.r);
        static const struct { const char *name; int h; unsigned bits; } hs[] = {
            {"h_accum", H_ACCUM, B_A}, {"h_sub", H_SUB, B_A}, {"h_update", H_UPDATE, B_R | B_W},
            {"h_twice", H_TWICE, B_R | B_W}, {"h_copy", H_COPY, B_F}};
        int h = rint_(5);
        ln(out, ind, "%s(%s, %s, %s, %s);", hs[h].name, bd, bs, nd, ns);
        used[hs[h].h] = 1;
        if (hs[h].h == H_TWICE)
            used[H_UPDATE] = 1;
        record_use(b, &d, hs[h].bits);
        record_use(b, &s, B_R);
        return 1;
    }
    case 7: /* helpers on one block */
    case 8: {
        d.r.t = pick_tensor(mask);
        choose_use(b, d.r.t, &d, -1);
        ref_block(bd, sizeof bd, &d.r);
        ref_elems(nd, sizeof nd, &d.r);
        gen_small(sm, sizeof sm);
        if (chance(50)) {
            ln(out, ind, "h_addc(%s, %s, %s);", bd, nd, sm);
            used[H_ADDC] = 1;
            record_use(b, &d, B_A);
        } else {
            ln(out, ind, "h_scale(%s, %s, %s);", bd, nd, sm);
            used[H_SCALE] = 1;
            record_use(b, &d, B_R | B_W);
        }
        return 1;
    }
    case 9: /* inline accumulation, maybe from another block */
    case 10: {
        int with_src = chance(60) && choose_pair(b, mask, &d, &s);
        if (!with_src) {
            d.r.t = pick_tensor(mask);
            choose_use(b, d.r.t, &d, -1);
        }
        ref_block(bd, sizeof bd, &d.r);
        ref_elems(nd, sizeof nd, &d.r);
        gen_small(sm, sizeof sm);
        const char *op = chance(70) ? "+=" : "-=";
        ln(out, ind, "{");
        ln(out, ind + 1, "int64_t *p%d = %s;", id, bd);
        ln(out, ind + 1, "size_t n%d = %s;", id, nd);
        if (with_src) {
            ref_block(bs, sizeof bs, &s.r);
            ref_elems(ns, sizeof ns, &s.r);
            ln(out, ind + 1, "const int64_t *q%d = %s;", id, bs);
            ln(out, ind + 1, "size_t m%d = %s;", id, ns);
            ln(out, ind + 1, "for (size_t k%d = 0; k%d < n%d; k%d++)", id, id, id, id);
            ln(out, ind + 2, "p%d[k%d] %s q%d[k%d %% m%d] %% 1000 + %d;", id, id, op, id, id, id, rint_(10));
            record_use(b, &s, B_R);
            record_use(b, &d, B_A);
        } else if (chance(12)) {
            /* the low halves through a uint32_t view (issue 27 item 1): '+=' in another type
             * than the tensor's, which the runtime would sum as int64 (carries differ): readwrite */
            ln(out, ind + 1, "uint32_t *u%d = (uint32_t *)p%d;", id, id);
            ln(out, ind + 1, "for (size_t k%d = 0; k%d < n%d; k%d++)", id, id, id, id);
            ln(out, ind + 2, "u%d[2 * k%d] %s (uint32_t)(k%d %% 7) + (uint32_t)(%s);", id, id, op, id, sm);
            record_use(b, &d, B_R | B_W);
        } else if (chance(12)) {
            /* a double added to an int64 element: C truncates after every addition: readwrite */
            ln(out, ind + 1, "for (size_t k%d = 0; k%d < n%d; k%d++)", id, id, id, id);
            ln(out, ind + 2, "p%d[k%d] %s 0.5 * (double)(k%d %% 5) + 0.25;", id, id, op, id);
            record_use(b, &d, B_R | B_W);
        } else {
            ln(out, ind + 1, "for (size_t k%d = 0; k%d < n%d; k%d++)", id, id, id, id);
            ln(out, ind + 2, "p%d[k%d] %s (int64_t)(k%d %% 7) + %s;", id, id, op, id, sm);
            record_use(b, &d, B_A);
        }
        ln(out, ind, "}");
        return 1;
    }
    case 11: /* inline order-sensitive update from another block */
    case 12: {
        if (!choose_pair(b, mask, &d, &s))
            return 0;
        ref_block(bd, sizeof bd, &d.r);
        ref_block(bs, sizeof bs, &s.r);
        ref_elems(nd, sizeof nd, &d.r);
        ref_elems(ns, sizeof ns, &s.r);
        ln(out, ind, "{");
        ln(out, ind + 1, "int64_t *p%d = %s;", id, bd);
        ln(out, ind + 1, "const int64_t *q%d = %s;", id, bs);
        ln(out, ind + 1, "size_t n%d = %s, m%d = %s;", id, nd, id, ns);
        ln(out, ind + 1, "for (size_t k%d = 0; k%d < n%d; k%d++)", id, id, id, id);
        ln(out, ind + 2, "p%d[k%d] = (p%d[k%d] * %d + q%d[(k%d + %d) %% m%d]) %% MOD;", id, id, id, id, 3 + 2 * rint_(3),
           id, id, rint_(4), id);
        ln(out, ind, "}");
        record_use(b, &d, B_R | B_W);
        record_use(b, &s, B_R);
        return 1;
    }
    case 13: { /* partial store, or an escape into a library function */
        d.r.t = pick_tensor(mask);
        choose_use(b, d.r.t, &d, -1);
        ref_block(bd, sizeof bd, &d.r);
        gen_small(sm, sizeof sm);
        int form = rint_(3);
        ln(out, ind, "{");
        ln(out, ind + 1, "int64_t *p%d = %s;", id, bd);
        if (form == 0) {
            ln(out, ind + 1, "p%d[0] = (p%d[0] * 5 + %s) %% MOD;", id, id, sm);
        } else if (form == 1) {
            ln(out, ind + 1, "p%d[0] = %s;", id, sm);
        } else {
            ref_elems(nd, sizeof nd, &d.r);
            ln(out, ind + 1, "size_t n%d = %s;", id, nd);
            ln(out, ind + 1, "memset(p%d, 0, n%d * sizeof *p%d);", id, id, id);
            ln(out, ind + 1, "p%d[n%d - 1] = %s;", id, id, sm);
        }
        ln(out, ind, "}");
        record_use(b, &d, form == 1 ? B_W : B_R | B_W);
        return 1;
    }
    case 14: { /* the whole statement is a loop calling tamm_block in its body (1-D, accum) */
        int t = pick_tensor(mask);
        if (tens[t].ndim != 1)
            return 0;
        choose_use(b, t, &d, -1);
        ref_block(bd, sizeof bd, &d.r);
        ref_extent(e0, sizeof e0, &d.r, 0);
        ln(out, ind, "for (size_t k%d = 0; k%d < %s; k%d++)", id, id, e0, id);
        ln(out, ind + 1, "((int64_t *)%s)[k%d] += %d;", bd, id, 1 + rint_(20));
        record_use(b, &d, B_A);
        return 1;
    }
    case 15: { /* read into this body's scalar */
        d.r.t = pick_tensor(mask);
        choose_use(b, d.r.t, &d, -1);
        ref_block(bd, sizeof bd, &d.r);
        ref_elems(nd, sizeof nd, &d.r);
        if (chance(30)) { /* a guarded block: requested only if the condition holds (or fetched in the body) */
            char cond[160];
            gen_cond(cond, sizeof cond);
            ln(out, ind, "{");
            if (chance(50)) {
                ln(out, ind + 1, "const int64_t *q%d = (%s) ? %s : NULL;", id, cond, bd);
            } else {
                ln(out, ind + 1, "const int64_t *q%d = NULL;", id);
                ln(out, ind + 1, "if (%s)", cond);
                ln(out, ind + 2, "q%d = %s;", id, bd);
            }
            ln(out, ind + 1, "if (q%d)", id);
            ln(out, ind + 2, "%s = (%s * 5 + q%d[0]) %% MOD;", own_scalar, own_scalar, id);
            ln(out, ind, "}");
        } else if (chance(50)) {
            ln(out, ind, "%s = (%s * 3 + h_sum(%s, %s)) %% MOD;", own_scalar, own_scalar, bd, nd);
            used[H_SUM] = 1;
        } else {
            ln(out, ind, "{");
            ln(out, ind + 1, "const int64_t *q%d = %s;", id, bd);
            ln(out, ind + 1, "size_t n%d = %s;", id, nd);
            ln(out, ind + 1, "for (size_t k%d = 0; k%d < n%d; k%d++)", id, id, id, id);
            ln(out, ind + 2, "%s = (%s * 7 + q%d[k%d]) %% MOD;", own_scalar, own_scalar, id, id);
            ln(out, ind, "}");
        }
        record_use(b, &d, B_R);
        return 1;
    }
    default: { /* store this body's scalar into a block */
        d.r.t = pick_tensor(mask);
        choose_use(b, d.r.t, &d, -1);
        ref_block(bd, sizeof bd, &d.r);
        ln(out, ind, "{");
        ln(out, ind + 1, "int64_t *p%d = %s;", id, bd);
        ln(out, ind + 1, "p%d[0] = (p%d[0] * 3 + %s) %% MOD;", id, id, own_scalar);
        ln(out, ind, "}");
        record_use(b, &d, B_R | B_W);
        return 1;
    }
    }
}

static void push_var(const char *prefix, int depth, char *name, size_t cap)
{
    snprintf(name, cap, "%s%d", prefix, ++uid);
    if (nvars < 256) {
        snprintf(vars[nvars].name, sizeof vars[nvars].name, "%s", name);
        vars[nvars].depth = depth;
        nvars++;
    }
}

static const char *push_scalar(int depth)
{
    static char name[16];
    snprintf(name, sizeof name, "s%d", ++uid);
    snprintf(scalars[nscalars].name, sizeof scalars[nscalars].name, "%s", name);
    scalars[nscalars].depth = depth;
    nscalars++;
    return scalars[nscalars - 1].name;
}

/* A condition from variables / scalars in scope. */
static void gen_cond(char *out, size_t cap)
{
    int r = rint_(10);
    if (r < 3 && nscalars > 0) {
        const var_t *s = &scalars[rint_(nscalars)];
        snprintf(out, cap, "%.15s %% %d != %d", s->name, 2 + rint_(3), rint_(2));
    } else if (r < 9 && nvars > 0) {
        const var_t *v = &vars[rint_(nvars)];
        snprintf(out, cap, "(%.15s + %d) %% %d == 0", v->name, rint_(3), 2 + rint_(2));
    } else {
        snprintf(out, cap, "%d", rint_(2));
    }
}

/* Control flow inside a task body: if / for / while, possibly with taskwaits inside. */
static void gen_control(sbuf *out, body_t *b, int ind, int nstmts)
{
    char cond[200];
    int form = rint_(3);
    if (form == 0) { /* if / else */
        gen_cond(cond, sizeof cond);
        body_t bt = *b, be = *b;
        bt.in_if = be.in_if = 1;
        ln(out, ind, "if (%s) {", cond);
        gen_stmts(out, &bt, ind + 1, 1 + rint_(nstmts));
        if (chance(40)) {
            ln(out, ind, "} else {");
            gen_stmts(out, &be, ind + 1, 1 + rint_(nstmts));
        }
        ln(out, ind, "}");
        b->pending = bt.pending | be.pending;
        return;
    }
    /* a loop: its body ends with a taskwait, or the body's own statements in it
       avoid the tensors its nested tasks use */
    int ends_tw = b->ti && chance(55);
    body_t lb = *b;
    lb.in_loop = 1;
    if (!ends_tw) {
        unsigned cs = 0;
        for (int t = 0; t < ntens; t++)
            if ((b->child_ok & (1u << t)) && chance(50))
                cs |= 1u << t;
        lb.child_ok = cs;
        lb.forbidden |= cs;
    }
    int n = 2 + rint_(2);
    char v[16];
    if (form == 1) {
        push_var("k", b->level, v, sizeof v);
        ln(out, ind, "for (int %s = 0; %s < %d; %s++) {", v, v, n, v);
    } else {
        push_var("w", b->level, v, sizeof v);
        ln(out, ind, "int %s = 0;", v);
        ln(out, ind, "while (%s < %d) {", v, n);
    }
    gen_stmts(out, &lb, ind + 1, 1 + rint_(nstmts));
    if (ends_tw) {
        ln(out, ind + 1, "#pragma tamm taskwait");
        lb.pending = 0;
    }
    if (form == 2)
        ln(out, ind + 1, "%s++;", v);
    ln(out, ind, "}");
    nvars--;
    if (ends_tw)
        b->pending |= 0; /* nothing submitted in the loop is outstanding */
    else
        b->pending |= lb.pending | lb.child_ok;
}

/* A statement list of a task body (b->ti != NULL) or of the top level. */
static void gen_stmts(sbuf *out, body_t *b, int ind, int nstmts)
{
    int saved_vars = nvars, saved_scalars = nscalars;
    const char *own = NULL;
    char ownbuf[16];
    if (b->ti && chance(30) && nscalars < 250) { /* a scalar of this body, used by the last statement */
        char sm[160];
        gen_small(sm, sizeof sm); /* before the scalar exists: not its own initialiser */
        own = push_scalar(b->level);
        snprintf(ownbuf, sizeof ownbuf, "%s", own);
        own = ownbuf;
        ln(out, ind, "int64_t %s = %s;", own, sm);
    }
    for (int i = 0; i < nstmts; i++) {
        int r = rint_(100);
        if (b->ti) {
            if (r < 42) {
                if (!gen_touch(out, b, ind, own) && !gen_touch(out, b, ind, own) && b->pending) {
                    ln(out, ind, "#pragma tamm taskwait");
                    b->pending = 0;
                }
            } else if (r < 70) {
                if (b->level < MAXLEVEL && b->child_ok && max_tasks_left > 0)
                    gen_task(out, b, ind);
                else
                    gen_touch(out, b, ind, own);
            } else if (r < 80) {
                ln(out, ind, "#pragma tamm taskwait");
                b->pending = 0;
            } else {
                if (ind < 7)
                    gen_control(out, b, ind, 2);
                else
                    gen_touch(out, b, ind, own);
            }
        }
    }
    if (own) { /* the scalar's final use: store it into a block */
        unsigned mask = touchable(b);
        if (!mask && (b->allowed & ~b->forbidden)) {
            ln(out, ind, "#pragma tamm taskwait");
            b->pending = 0;
            mask = touchable(b);
        }
        if (mask) {
            int t = pick_tensor(mask);
            use_t d;
            char bd[256];
            choose_use(b, t, &d, -1);
            ref_block(bd, sizeof bd, &d.r);
            int id = ++uid;
            ln(out, ind, "{");
            ln(out, ind + 1, "int64_t *p%d = %s;", id, bd);
            ln(out, ind + 1, "p%d[0] = (p%d[0] * 3 + %s) %% MOD;", id, id, own);
            ln(out, ind, "}");
            record_use(b, &d, B_R | B_W);
        } else {
            ln(out, ind, "(void)%s;", own);
        }
    }
    nvars = saved_vars;
    nscalars = saved_scalars;
}

static const char *mode_name(unsigned bits)
{
    if (bits == B_R)
        return "read";
    if (bits == B_F)
        return chance(80) ? "write" : "readwrite";
    if (bits == B_A)
        return chance(80) ? "accum" : "readwrite";
    return "readwrite";
}

static const char *perm_name(unsigned bits)
{
    if (bits == B_R)
        return "read";
    if (bits == B_A)
        return "accum";
    return "readwrite";
}

/* Clauses for a task from what its body and subtree touch. */
static void gen_clauses(sbuf *cl, taskinfo *ti, int top)
{
    char buf[400];
    if (chance(30))
        sb_printf(cl, " label(\"t%d\")", ++uid);
    if (chance(15)) {
        int cand[64], nc = 0;
        for (int i = 0; i < nvars; i++)
            if (vars[i].depth <= ti->level - 1)
                cand[nc++] = i;
        if (nc && chance(50))
            sb_printf(cl, " priority(%s %% 3)", vars[cand[rint_(nc)]].name);
        else
            sb_printf(cl, " priority(%d)", rint_(4));
    }
    if (top && chance(10)) {
        if (nvars && chance(50))
            sb_printf(cl, " if(%s %% 2)", vars[rint_(nvars)].name);
        else
            sb_printf(cl, " if(%d)", rint_(2));
    }
    /* explicit access clauses: tensors only this task touches, through evaluable refs */
    if (chance(35)) {
        static const char *modes[] = {"read", "write", "readwrite", "accum"};
        sbuf lists[4] = {{0}};
        for (int t = 0; t < ntens; t++) {
            if (!ti->has_base[t] || ti->desc_bits[t] || ti->local_bits[t])
                continue;
            for (int which = 0; which < 2; which++) {
                unsigned bits = which ? ti->shift_bits[t] : ti->base_bits[t];
                if (!bits || !chance(75))
                    continue;
                const char *m = mode_name(bits);
                if (!strcmp(m, "readwrite"))
                    ti->decl_bits[t] |= B_R | B_W;
                int mi = 0;
                while (strcmp(modes[mi], m))
                    mi++;
                ref_clause(buf, sizeof buf, which ? &ti->shift[t] : &ti->base[t]);
                sb_printf(&lists[mi], "%s%s", lists[mi].n ? ", " : "", buf);
            }
        }
        for (int mi = 0; mi < 4; mi++) {
            if (lists[mi].n)
                sb_printf(cl, " %s(%s)", modes[mi], lists[mi].s);
            sb_free(&lists[mi]);
        }
    }
    /* explicit permissions: tensors touched by nested tasks or through body-local indices */
    int perm_all = chance(45), perm_extra = chance(8);
    for (int t = 0; t < ntens; t++) {
        unsigned all = ti->desc_bits[t] | ti->local_bits[t] | ti->base_bits[t] | ti->shift_bits[t];
        if (!all)
            continue;
        int need = ti->desc_bits[t] || ti->local_bits[t];
        if (!((need && perm_all) || (!need && perm_extra)))
            continue;
        const tensor_t *T = &tens[t];
        int f = rint_(3);
        if (T->ndim == 1)
            snprintf(buf, sizeof buf, f == 0 ? "%s" : "%s[:]", T->name);
        else if (f == 2 && ti->fstate[t] == 1 && ti->fdepth[t] <= ti->level - 1)
            snprintf(buf, sizeof buf, "%s[%s][:]", T->name, ti->first[t]);
        else
            snprintf(buf, sizeof buf, f == 0 ? "%s" : "%s[:][:]", T->name);
        sb_printf(cl, " permission(%s: %s)", perm_name(all), buf);
    }
}

static void merge_child(taskinfo *p, const taskinfo *c)
{
    for (int t = 0; t < ntens; t++) {
        unsigned bits = c->base_bits[t] | c->shift_bits[t] | c->local_bits[t] | c->desc_bits[t] | c->decl_bits[t];
        p->desc_bits[t] |= bits;
        if (c->fstate[t] == 1)
            note_first(p, t, c->first[t], c->fdepth[t]);
        else if (c->fstate[t] == 2)
            p->fstate[t] = 2;
    }
}

static unsigned touched_mask(const taskinfo *ti)
{
    unsigned m = 0;
    for (int t = 0; t < ntens; t++)
        if (ti->base_bits[t] | ti->shift_bits[t] | ti->local_bits[t] | ti->desc_bits[t])
            m |= 1u << t;
    return m;
}

/* The statements stmts of a task body b, written to out, sometimes (second stream) around one
 * write of a block in several buffers, the shape of random program 91163 that TAMM_CHECK_ACCESS
 * once reported falsely: when the body submits nested tasks and has no taskwait, a block it only
 * stores into through its base index is filled whole by a helper before stmts and gets one more
 * store through a second tamm_block after them, or the store comes first and the fill last.
 * tammcc gives the block back before each nested submission and fetches it again in write mode,
 * so the checker sees one write in several buffers.  Returns 1 with *u set when it did: the
 * caller records u's stores (B_F | B_W) after gen_clauses, which then draws from the first
 * stream what it drew before this shape existed; its clauses stay valid, as the block's bits
 * (B_W, B_F or both) already ask for write or readwrite and its first index is noted. */
static int gen_rehold(sbuf *out, const sbuf *stmts, body_t *b, int ind, use_t *u)
{
    taskinfo *ti = b->ti;
    int c[MAXT], n = 0, nested = 0;
    for (int t = 0; t < ntens; t++)
        nested |= ti->desc_bits[t] != 0;
    /* no nested task touches the tensor: the last statement needs no taskwait (with one,
     * tammcc would infer readwrite and the checker would not check the block) */
    for (int t = 0; t < ntens; t++) {
        unsigned bb = ti->base_bits[t];
        if (ti->has_base[t] && !ti->desc_bits[t] && bb && !(bb & ~(unsigned)(B_W | B_F)) &&
            (b->allowed & ~b->forbidden & (1u << t)))
            c[n++] = t;
    }
    if (!nested || !n || (stmts->n && strstr(stmts->s, "taskwait"))) {
        sb_append(out, stmts);
        return 0;
    }
    static int rid; /* names of their own: the body's uid names stay as they were */
    u->kind = 0;
    u->r = ti->base[c[rint2(n)]];
    int t = u->r.t, fill_first = rint2(2), id = ++rid;
    char bd[256], e0[160], e1[160], nd[400], fill[1200], store[340];
    ref_block(bd, sizeof bd, &u->r);
    if (tens[t].ndim == 2 && rint2(2)) {
        ref_extent(e0, sizeof e0, &u->r, 0);
        ref_extent(e1, sizeof e1, &u->r, 1);
        snprintf(fill, sizeof fill, "h_fill2(%s, %s, %s, %d);", bd, e0, e1, rint2(1000));
        used[H_FILL2] = 1;
    } else {
        ref_elems(nd, sizeof nd, &u->r);
        snprintf(fill, sizeof fill, "h_fill(%s, %s, %d);", bd, nd, rint2(1000));
    }
    snprintf(store, sizeof store, "{ int64_t *rh%d = %s; rh%d[0] = %d; }", id, bd, id, rint2(1000));
    ln(out, ind, "%s /* one write, several buffers */", fill_first ? fill : store);
    sb_append(out, stmts);
    ln(out, ind, "%s", fill_first ? store : fill);
    return 1;
}

/* A task submitted from `parent` (NULL at top level). */
static void gen_task(sbuf *out, body_t *parent, int ind)
{
    taskinfo ti;
    memset(&ti, 0, sizeof ti);
    ti.level = parent ? parent->level + 1 : 1;
    max_tasks_left--;
    body_t b = {0};
    b.ti = &ti;
    b.level = ti.level;
    b.allowed = parent ? parent->child_ok : (1u << ntens) - 1;
    b.child_ok = b.allowed;
    sbuf body = {0};
    use_t rh;
    int rehold = 0;
    int form = rint_(100);
    if (ti.level >= MAXLEVEL || form < 45) {
        /* a single statement (helper call, inline block or loop) */
        int ok = 0;
        for (int tries = 0; tries < 20 && !ok; tries++)
            ok = gen_touch(&body, &b, ind, NULL);
        if (!ok) { /* cannot happen: a fill always fits */
            fprintf(stderr, "gen_random_program: internal error: no statement fits\n");
            exit(1);
        }
    } else {
        sbuf stmts = {0};
        gen_stmts(&stmts, &b, ind + 1, 1 + rint_(4));
        ln(&body, ind, "{");
        rehold = gen_rehold(&body, &stmts, &b, ind + 1, &rh);
        ln(&body, ind, "}");
        sb_free(&stmts);
    }
    sbuf cl = {0};
    gen_clauses(&cl, &ti, parent == NULL || parent->ti == NULL);
    if (rehold) {
        record_use(&b, &rh, B_F);
        record_use(&b, &rh, B_W);
    }
    ln(out, ind, "#pragma tamm task%s", cl.n ? cl.s : "");
    sb_append(out, &body);
    sb_free(&cl);
    sb_free(&body);
    if (parent && parent->ti) {
        merge_child(parent->ti, &ti);
        parent->pending |= touched_mask(&ti);
    }
}

/* ------------------------------------------------------------------ */
/* top level                                                            */
/* ------------------------------------------------------------------ */
static int nprobes;
static char top_scalars[64][16];
static int ntop_scalars;
static int gpu_mode; /* "gpu": top-level tasks in the form tammcc turns into CUDA kernels too */
static gr_tensor gr_tens[MAXT]; /* the tensors, for gen_random_reads.c */

/* A top-level task whose body is one loop over block elements (a CUDA kernel, docs/language.md "Kernels"): fills a
 * block (write), or combines it with another block element by element (readwrite, or += only:
 * accumulate).  The element count is a variable of the top level (captured): the loop's bound
 * cannot call tamm_block_extent, and MOD (a cast to a typedef) is written out.  Another block of the same tensor is the "+1" neighbour (never
 * the same block); sometimes device(cuda), so that the GPU must run it. */
static void gen_kernel_task(sbuf *out, int ind)
{
    int id = ++uid, t = rint_(ntens), kind = rint_(3); /* 0 write, 1 readwrite, 2 accumulate */
    ref_t d, src;
    gen_ref(&d, t, 0, 0);
    int ts = rint_(ntens);
    if (kind != 0 && ts == t && !make_shift(&src, &d)) kind = 0; /* a tensor of one block: a fill */
    else if (kind != 0 && ts != t) gen_ref(&src, ts, 0, 0);
    char bd[256], bs[256], nd[400], ns[400];
    ref_block(bd, sizeof bd, &d);
    ref_elems(nd, sizeof nd, &d);
    ln(out, ind, "{");
    if (kind == 0) {
        ln(out, ind + 1, "long n%d = %s;", id, nd);
    } else {
        ref_block(bs, sizeof bs, &src);
        ref_elems(ns, sizeof ns, &src);
        ln(out, ind + 1, "long n%d = %s;", id, nd);
        ln(out, ind + 1, "if (n%d > (long)(%s))", id, ns);
        ln(out, ind + 2, "n%d = %s;", id, ns);
    }
    ln(out, ind + 1, "#pragma tamm task%s", chance(30) ? " device(cuda)" : "");
    ln(out, ind + 1, "{");
    ln(out, ind + 2, "int64_t *k%dd = %s;", id, bd);
    if (kind != 0) ln(out, ind + 2, "const int64_t *k%ds = %s;", id, bs);
    ln(out, ind + 2, "for (long e%d = 0; e%d < n%d; e%d++)", id, id, id, id);
    if (kind == 0)
        ln(out, ind + 3, "k%dd[e%d] = (e%d * %d + %d) %% 1000000007;", id, id, id, 1 + rint_(9), rint_(1000));
    else if (kind == 1)
        ln(out, ind + 3, "k%dd[e%d] = (k%dd[e%d] * 3 + k%ds[e%d] + %d) %% 1000000007;", id, id, id, id, id, id, rint_(1000));
    else if (chance(15)) /* a double added to an int64 element: truncated after every addition (readwrite) */
        ln(out, ind + 3, "k%dd[e%d] += 0.5 * (double)(k%ds[e%d] %% 7) + 0.25;", id, id, id, id);
    else
        ln(out, ind + 3, "k%dd[e%d] += k%ds[e%d] %% 7 + %d;", id, id, id, id, 1 + rint_(9));
    ln(out, ind + 1, "}");
    ln(out, ind, "}");
    max_tasks_left--;
}

static void gen_top_stmts(sbuf *out, int ind, int nstmts, int loopdepth)
{
    body_t top = {0};
    top.allowed = top.child_ok = (1u << ntens) - 1;
    char buf[400], bd[256], nd[400];
    for (int i = 0; i < nstmts && max_tasks_left > 0; i++) {
        char *reads = gr_stmt(gr_tens, ntens, ind);
        if (reads) sb_printf(out, "%s", reads);
        free(reads);
        int r = rint_(100);
        if (r < 55) {
            if (gpu_mode && chance(50))
                gen_kernel_task(out, ind);
            else
                gen_task(out, &top, ind);
        } else if (r < 72 && loopdepth < 2) {
            char v[16];
            int n = 2 + rint_(3);
            push_var("i", 0, v, sizeof v);
            ln(out, ind, "for (long %s = 0; %s < %d; %s++) {", v, v, n, v);
            gen_top_stmts(out, ind + 1, 1 + rint_(3), loopdepth + 1);
            ln(out, ind, "}");
            nvars--;
        } else if (r < 77) {
            ln(out, ind, "#pragma tamm taskwait");
        } else if (r < 82) {
            sbuf l = {0};
            int n = 1 + rint_(2);
            for (int k = 0; k < n; k++) {
                int t = rint_(ntens);
                if (chance(20)) {
                    snprintf(buf, sizeof buf, "%s", tens[t].name);
                } else {
                    ref_t rr;
                    gen_ref(&rr, t, 0, 0);
                    ref_clause(buf, sizeof buf, &rr);
                }
                sb_printf(&l, "%s%s", k ? ", " : "", buf);
            }
            ln(out, ind, "#pragma tamm taskwait on(%s)", l.s);
            sb_free(&l);
        } else if (r < 86) {
            ln(out, ind, "#pragma tamm fence");
        } else if (r < 92) { /* a probe: the top level reads a block (waits for its tasks) */
            ref_t rr;
            gen_ref(&rr, rint_(ntens), 0, 0);
            ref_block(bd, sizeof bd, &rr);
            ref_elems(nd, sizeof nd, &rr);
            used[H_SUM] = 1;
            if (loopdepth == 0 && ntop_scalars < 64 && chance(40)) {
                const char *s = push_scalar(0);
                snprintf(top_scalars[ntop_scalars++], 16, "%s", s);
                ln(out, ind, "int64_t %s = h_sum(%s, %s);", s, bd, nd);
            } else {
                ln(out, ind, "printf(\"probe %d: %%\" PRId64 \"\\n\", h_sum(%s, %s));", ++nprobes, bd, nd);
            }
        } else { /* the top level updates a block itself */
            ref_t rr;
            gen_ref(&rr, rint_(ntens), 0, 0);
            ref_block(bd, sizeof bd, &rr);
            int id = ++uid;
            ln(out, ind, "{");
            ln(out, ind + 1, "int64_t *p%d = %s;", id, bd);
            ln(out, ind + 1, "p%d[0] = (p%d[0] * 7 + %d) %% MOD;", id, id, rint_(100));
            ln(out, ind, "}");
        }
    }
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4 || (argc == 4 && strcmp(argv[3], "gpu"))) {
        fprintf(stderr, "usage: gen_random_program SEED [SIZE [gpu]]\n");
        return 2;
    }
    gpu_mode = argc == 4;
    char *end;
    unsigned long long seed = strtoull(argv[1], &end, 10);
    if (*argv[1] == '\0' || *end) {
        fprintf(stderr, "gen_random_program: bad SEED '%s'\n", argv[1]);
        return 2;
    }
    long size = 50;
    if (argc >= 3) {
        size = strtol(argv[2], &end, 10);
        if (*argv[2] == '\0' || *end || size < 1 || size > 100000) {
            fprintf(stderr, "gen_random_program: bad SIZE '%s'\n", argv[2]);
            return 2;
        }
    }
    rng_state = seed * 0x2545f4914f6cdd1du + 12345;
    rnd();
    rng2_state = seed * 0x9e3779b97f4a7c15u ^ 0x5bd1e995u;
    rng3_state = seed * 0xd6e8feb86659fd93u ^ 0x7f4a7c15u;
    int macros = rint3(3) == 0;
    gr_seed(seed);

    ntens = 1 + rint_(3);
    for (int t = 0; t < ntens; t++) {
        tensor_t *T = &tens[t];
        snprintf(T->name, sizeof T->name, "T%d", t);
        T->ndim = 1 + rint_(2);
        for (int d = 0; d < T->ndim; d++) {
            if (T->ndim == 1) {
                T->tile[d] = 1 + rint_(12);
                T->dims[d] = 1 + rint_((int)T->tile[d] * 6);
            } else {
                T->tile[d] = 1 + rint_(6);
                T->dims[d] = 1 + rint_((int)T->tile[d] * 4);
            }
            T->nb[d] = (T->dims[d] + T->tile[d] - 1) / T->tile[d];
        }
        gr_tens[t] = (gr_tensor){ T->name, T->ndim, { T->nb[0], T->ndim == 2 ? T->nb[1] : 1 } };
    }

    /* main's body first (it decides which helpers are used) */
    sbuf body = {0};
    max_tasks_left = (int)size;
    used[H_FILL] = 1;
    for (int t = 0; t < ntens; t++) { /* initial contents, written by tasks */
        const tensor_t *T = &tens[t];
        if (T->ndim == 1) {
            ln(&body, 1, "for (long b = 0; b < %ld; b++) {", T->nb[0]);
            ln(&body, 2, "#pragma tamm task");
            ln(&body, 2, "h_fill(tamm_block(%s, b), tamm_block_extent(%s, 0, b), b * %d + %d);", T->name, T->name,
               1 + rint_(9), rint_(100));
        } else {
            ln(&body, 1, "for (long b = 0; b < %ld; b++)", T->nb[0]);
            ln(&body, 1, "for (long c = 0; c < %ld; c++) {", T->nb[1]);
            ln(&body, 2, "#pragma tamm task");
            ln(&body, 2, "h_fill(tamm_block(%s, b, c), tamm_block_extent(%s, 0, b) * tamm_block_extent(%s, 1, c), "
                         "b * %d + c * %d);", T->name, T->name, T->name, 1 + rint_(9), 1 + rint_(9));
        }
        ln(&body, 1, "}");
    }
    while (max_tasks_left > 0)
        gen_top_stmts(&body, 1, 4, 0);
    gen_rec_choose(rint_);

    printf("/* Generated by gen_random_program %llu %ld: a random tamm pragma program.\n"
           " * Its output must be the same built by a plain C compiler (sequential elision)\n"
           " * and by tammcc at any number of workers. */\n", seed, size);
    if (gpu_mode) { /* a GPU memory limit that makes them evict: room for two of the largest blocks */
        long big = 0;
        for (int t = 0; t < ntens; t++) {
            long b = 8;
            for (int d = 0; d < tens[t].ndim; d++) b *= tens[t].tile[d];
            if (b > big) big = b;
        }
        printf("/* tight TAMM_CUDA_MEMORY_LIMIT: %ld */\n", 2 * big);
    }
    printf("#pragma GCC diagnostic ignored \"-Wunknown-pragmas\"\n");
    printf("#include <tamm.h>\n\n#include <inttypes.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <string.h>\n\n");
    printf("#define MOD ((int64_t)1000000007)\n\n");
    gr_globals();
    if (macros) {
        char *m = gen_macro_idiom(body.s, rint3);
        sb_free(&body);
        body.s = m;
        printf("%s", gen_macro_defs);
    }
    gen_emit_helpers(used);
    gen_rec_emit_function();
    printf("int main(int argc, char **argv)\n{\n");
    printf("    if (tamm_init(&argc, &argv) != TAMM_OK)\n        return 1;\n");
    for (int t = 0; t < ntens; t++) {
        const tensor_t *T = &tens[t];
        if (T->ndim == 1)
            printf("    size_t d%d[1] = {%ld}, t%d[1] = {%ld};\n", t, T->dims[0], t, T->tile[0]);
        else
            printf("    size_t d%d[2] = {%ld, %ld}, t%d[2] = {%ld, %ld};\n", t, T->dims[0], T->dims[1], t,
                   T->tile[0], T->tile[1]);
        printf("    tamm_tensor *%s = tamm_tensor_create(\"%s\", TAMM_I64, %d, d%d, t%d);\n", T->name, T->name,
               T->ndim, t, t);
        printf("    if (!%s)\n        return 1;\n", T->name);
    }
    printf("%s", body.s ? body.s : "");
    printf("    #pragma tamm taskwait\n");
    for (int i = 0; i < ntop_scalars; i++)
        printf("    printf(\"%s = %%\" PRId64 \"\\n\", %s);\n", top_scalars[i], top_scalars[i]);
    for (int t = 0; t < ntens; t++) {
        const tensor_t *T = &tens[t];
        printf("    {\n        int64_t h = 0, s = 0;\n");
        if (T->ndim == 1) {
            printf("        for (long b = 0; b < %ld; b++) {\n", T->nb[0]);
            printf("            const int64_t *p = tamm_block(%s, b);\n", T->name);
            printf("            size_t n = tamm_block_extent(%s, 0, b);\n", T->name);
        } else {
            printf("        for (long b = 0; b < %ld * %ld; b++) {\n", T->nb[0], T->nb[1]);
            printf("            const int64_t *p = tamm_block(%s, b / %ld, b %% %ld);\n", T->name, T->nb[1], T->nb[1]);
            printf("            size_t n = tamm_block_extent(%s, 0, b / %ld) * tamm_block_extent(%s, 1, b %% %ld);\n",
                   T->name, T->nb[1], T->name, T->nb[1]);
        }
        printf("            for (size_t k = 0; k < n; k++) {\n");
        printf("                h = (h * 31 + p[k]) %% MOD;\n");
        printf("                s += p[k];\n");
        printf("            }\n        }\n");
        printf("        printf(\"%s: sum %%\" PRId64 \" hash %%\" PRId64 \"\\n\", s, h);\n    }\n", T->name);
    }
    gen_rec_emit_call();
    printf("    tamm_finalize();\n    return 0;\n}\n");
    if (used[H_ACCUM])
        printf("\n/* the definition of the annotated declaration above */\n"
               "static void h_accum(int64_t *dst, const int64_t *src, size_t n, size_t m)\n"
               "{\n"
               "    for (size_t k = 0; k < n; k++)\n"
               "        dst[k] += src[k %% m] %% 1000 + 1;\n"
               "}\n");
    sb_free(&body);
    return 0;
}
