/*
 * gen_random_fns.c — the functions a random program of gen_random_program.c
 * calls: the helpers whose pointer parameters exercise the inference of calls
 * (const, annotations, canonical loops), and a recursive task function over
 * blocks [lo, hi) of a tensor (ranges through calls, rule 38 of
 * docs/language.md) with its call from main.
 */
#include "gen_random_fns.h"
#include <stdio.h>

/* ------------------------------------------------------------------ */
/* helpers' source                                                      */
/* ------------------------------------------------------------------ */
void gen_emit_helpers(const int *used)
{
    if (used[H_SUM])
        printf("/* only reads a (const) */\n"
               "static int64_t h_sum(const int64_t *a, size_t n)\n"
               "{\n"
               "    int64_t s = 0;\n"
               "    for (size_t k = 0; k < n; k++)\n"
               "        s = (s * 31 + a[k]) %% MOD;\n"
               "    return s;\n"
               "}\n\n");
    if (used[H_FILL])
        printf("/* stores every element of a (canonical loop over n elements): write */\n"
               "static void h_fill(int64_t *a, size_t n, int64_t c)\n"
               "{\n"
               "    for (size_t k = 0; k < n; k++)\n"
               "        a[k] = ((int64_t)k * 13 + c * 7) %% MOD;\n"
               "}\n\n");
    if (used[H_FILL2])
        printf("/* stores every element of an r x c tile: write */\n"
               "static void h_fill2(int64_t *t, size_t r, size_t c, int64_t v)\n"
               "{\n"
               "    for (size_t i = 0; i < r; i++)\n"
               "        for (size_t j = 0; j < c; j++)\n"
               "            t[i * c + j] = ((int64_t)(i * 5 + j * 3) + v) %% MOD;\n"
               "}\n\n");
    if (used[H_ACCUM])
        printf("/* declared with an annotation, defined after main */\n"
               "static void h_accum(TAMM_ACCUMULATES int64_t *dst, const int64_t *src, size_t n, size_t m);\n\n");
    if (used[H_ADDC])
        printf("/* only += into a: accum */\n"
               "static void h_addc(int64_t *a, size_t n, int64_t v)\n"
               "{\n"
               "    for (size_t k = 0; k < n; k++)\n"
               "        a[k] += v + (int64_t)(k %% 3);\n"
               "}\n\n");
    if (used[H_SUB])
        printf("/* only -= into dst, src const: accum, read */\n"
               "static void h_sub(int64_t *dst, const int64_t *src, size_t n, size_t m)\n"
               "{\n"
               "    for (size_t k = 0; k < n; k++)\n"
               "        dst[k] -= src[k %% m] %% 100;\n"
               "}\n\n");
    if (used[H_UPDATE])
        printf("/* reads and writes a (order-sensitive), reads b (not const, never written): readwrite, read */\n"
               "static void h_update(int64_t *a, int64_t *b, size_t n, size_t m)\n"
               "{\n"
               "    for (size_t k = 0; k < n; k++)\n"
               "        a[k] = (a[k] * 3 + b[k %% m]) %% MOD;\n"
               "}\n\n");
    if (used[H_SCALE])
        printf("/* annotated: readwrite */\n"
               "static void h_scale(TAMM_UPDATES int64_t *a, size_t n, int64_t c)\n"
               "{\n"
               "    for (size_t k = 0; k < n; k++)\n"
               "        a[k] = (a[k] * 5 + c) %% MOD;\n"
               "}\n\n");
    if (used[H_TWICE])
        printf("/* calls another helper: inference follows the call */\n"
               "static void h_twice(int64_t *a, const int64_t *b, size_t n, size_t m)\n"
               "{\n"
               "    h_update(a, (int64_t *)b, n, m);\n"
               "    h_update(a, (int64_t *)b, n, m);\n"
               "}\n\n");
    if (used[H_AT])
        printf("/* returns a pointer into a: the call's value is a use of the block */\n"
               "static int64_t *h_at(int64_t *a, size_t k)\n"
               "{\n"
               "    return a + k;\n"
               "}\n\n");
    if (used[H_REC])
        printf("/* mutual recursion: h_rec_g reaches the block only through h_rec_f */\n"
               "static void h_rec_g(int64_t *a, size_t n);\n"
               "static void h_rec_f(int64_t *a, size_t n)\n"
               "{\n"
               "    a[0] = (a[0] * 3 + 1) %% MOD;\n"
               "    if (n > 1)\n"
               "        h_rec_g(a + 1, n - 1);\n"
               "}\n"
               "static void h_rec_g(int64_t *a, size_t n)\n"
               "{\n"
               "    if (n > 1)\n"
               "        h_rec_f(a + 1, n - 1);\n"
               "}\n\n");
    if (used[H_COPY])
        printf("/* annotated: write dst (every element), read src */\n"
               "static void h_copy(TAMM_WRITES int64_t *dst, TAMM_READS const int64_t *src, size_t n, size_t m)\n"
               "{\n"
               "    for (size_t k = 0; k < n; k++)\n"
               "        dst[k] = (src[k %% m] * 2 + (int64_t)k) %% MOD;\n"
               "}\n\n");
}

/* ------------------------------------------------------------------ */
/* a recursive task function (ranges through calls, rule 38)           */
/* ------------------------------------------------------------------ */
typedef struct {
    int on;
    long nb;           /* blocks of R and S (tile 1 or 2 elements) */
    long tile;
    int two;           /* S is a second tensor parameter, read by the leaves */
    int base;          /* 0: hi - lo == 1; 1: hi - lo <= 1 then if (hi - lo == 1); 2: hi - lo < 2, same */
    int split;         /* 0: lo + (hi - lo) / 2, 1: (lo + hi) / 2, 2: (lo + hi) >> 1, 3: lo + 1, 4: hi - 1, 5: lo + rec_g */
    int leaf;          /* 0: R[lo], 1: R[hi - 1] */
    int combine;       /* -1: none; else a pair of blocks (below) */
    int wait;          /* taskwait before the combine */
    int left_task, right_task; /* the halves as tasks, or plain calls */
    int from_task;     /* called from a task, or from the top level */
    long k;            /* a constant of the leaves */
} rec_t;
static rec_t rec;

/* the combine task's pairs (a written, b read): provably distinct blocks when hi - lo >= 2;
 * the last one reads R[hi], one past the range (the call is on [0, nb - 1) then) */
static const char *const rec_pairs[][2] = {
    { "lo", "mid" }, { "mid", "lo" }, { "lo", "hi - 1" }, { "hi - 1", "lo" }, { "mid - 1", "mid" }, { "mid", "mid - 1" },
    { "lo", "hi" },
};
enum { REC_NPAIRS = 7, REC_PAST_END = 6 };

void gen_rec_choose(int (*rint)(int n))
{
#define CHANCE(pct) (rint(100) < (pct))
    rec.on = CHANCE(40);
    if (!rec.on) return;
    rec.nb = 1 + rint(20);
    rec.tile = 1 + rint(2);
    rec.two = CHANCE(40);
    rec.base = rint(3);
    rec.split = CHANCE(10) ? 5 : rint(5);
    rec.leaf = rint(2);
    rec.combine = CHANCE(20) ? -1 : rint(REC_NPAIRS);
    if (rec.combine == REC_PAST_END && rec.nb < 2) rec.combine = 0;
    rec.wait = rec.combine >= 0 || CHANCE(50);
    rec.left_task = CHANCE(85);
    rec.right_task = CHANCE(85);
    rec.from_task = CHANCE(60);
    rec.k = 1 + rint(50);
#undef CHANCE
}

void gen_rec_emit_function(void)
{
    if (!rec.on) return;
    const char *splits[] = { "lo + (hi - lo) / 2", "(lo + hi) / 2", "(lo + hi) >> 1", "lo + 1", "hi - 1", "lo + rec_g" };
    const char *sp = rec.two ? ", tamm_tensor *S" : "";
    const char *sa = rec.two ? ", S" : "";
    if (rec.split == 5) printf("static long rec_g = 1; /* a split point no proof may use */\n\n");
    printf("/* a recursive task function over blocks [lo, hi) of R */\n");
    printf("static void rec_fn(tamm_tensor *R%s, long lo, long hi)\n{\n", sp);
    const char *bc = rec.base == 0 ? "hi - lo == 1" : rec.base == 1 ? "hi - lo <= 1" : "hi - lo < 2";
    printf("    if (%s) {\n", bc);
    const char *in = rec.base ? "        " : "    ";
    if (rec.base) printf("        if (hi - lo == 1) {\n");
    printf("%s    #pragma tamm task\n%s    {\n", in, in);
    printf("%s        int64_t *p = tamm_block(R, %s);\n", in, rec.leaf ? "hi - 1" : "lo");
    if (rec.two) printf("%s        const int64_t *q = tamm_block(S, lo);\n", in);
    printf("%s        p[0] = (p[0] * 3 + lo + %ld%s) %% MOD;\n", in, rec.k, rec.two ? " + q[0]" : "");
    printf("%s    }\n", in);
    if (rec.base) printf("        }\n");
    printf("        return;\n    }\n");
    printf("    long mid = %s;\n", splits[rec.split]);
    if (rec.left_task) printf("    #pragma tamm task\n");
    printf("    rec_fn(R%s, lo, mid);\n", sa);
    if (rec.right_task) printf("    #pragma tamm task\n");
    printf("    rec_fn(R%s, mid, hi);\n", sa);
    if (rec.wait) printf("    #pragma tamm taskwait\n");
    if (rec.combine >= 0) {
        printf("    #pragma tamm task\n    {\n");
        printf("        int64_t *a = tamm_block(R, %s);\n", rec_pairs[rec.combine][0]);
        printf("        const int64_t *b = tamm_block(R, %s);\n", rec_pairs[rec.combine][1]);
        printf("        a[0] = (a[0] * 3 + b[0]) %% MOD;\n    }\n");
    }
    printf("}\n\n");
}

/* in main: R (and S) created and filled, the call, a taskwait, R's checksum */
void gen_rec_emit_call(void)
{
    if (!rec.on) return;
    long len = rec.nb * rec.tile;
    printf("    {\n");
    printf("        size_t rd[1] = {%ld}, rt[1] = {%ld};\n", len, rec.tile);
    printf("        tamm_tensor *R = tamm_tensor_create(\"R\", TAMM_I64, 1, rd, rt);\n");
    if (rec.two) printf("        tamm_tensor *S = tamm_tensor_create(\"S\", TAMM_I64, 1, rd, rt);\n");
    printf("        if (!R%s)\n            return 1;\n", rec.two ? " || !S" : "");
    printf("        for (long b = 0; b < %ld; b++) {\n", rec.nb);
    printf("            int64_t *r = tamm_block(R, b);\n            r[0] = b * 7 + 1;\n");
    if (rec.tile > 1) printf("            if (tamm_block_extent(R, 0, b) > 1) r[1] = b;\n");
    if (rec.two) printf("            int64_t *s = tamm_block(S, b);\n            s[0] = b * 5 + 2;\n");
    printf("        }\n");
    long hi = rec.combine == REC_PAST_END ? rec.nb - 1 : rec.nb;
    if (rec.from_task) printf("        #pragma tamm task\n");
    printf("        rec_fn(R%s, 0, %ld);\n", rec.two ? ", S" : "", hi);
    printf("        #pragma tamm taskwait\n");
    printf("        int64_t h = 0;\n");
    printf("        for (long b = 0; b < %ld; b++) {\n", rec.nb);
    printf("            const int64_t *r = tamm_block(R, b);\n");
    printf("            for (size_t k = 0; k < tamm_block_extent(R, 0, b); k++) h = (h * 31 + r[k]) %% MOD;\n");
    printf("        }\n");
    printf("        printf(\"R: hash %%\" PRId64 \"\\n\", h);\n    }\n");
}

