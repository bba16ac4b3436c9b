/* gen_macro_idiom.c — the preprocessor idiom of gen_random_program (see gen_macro_idiom.h). */
#include "gen_macro_idiom.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char gen_macro_defs[] =
    "#define GEN_PRAGMA(...) _Pragma(#__VA_ARGS__)\n"
    "#define PARFOR_DECL(v, n) for (long v = 0; v < (n); v++) _Pragma(\"tamm task\")\n"
    "#define TASK_FILL(...) _Pragma(\"tamm task\") h_fill(__VA_ARGS__)\n"
    "#define BLK(...) tamm_block(__VA_ARGS__)\n"
    "#define BLOCK_OF(T, ...) tamm_block(T, __VA_ARGS__)\n\n";

typedef struct { char *s; size_t n, cap; } obuf;

static void put(obuf *o, const char *s, size_t l)
{
    if (o->n + l + 1 > o->cap) {
        o->cap = (o->n + l + 1) * 2;
        o->s = realloc(o->s, o->cap);
        if (!o->s) { perror("gen_random_program"); exit(1); }
    }
    memcpy(o->s + o->n, s, l);
    o->n += l;
    o->s[o->n] = 0;
}

static void puts_(obuf *o, const char *s) { put(o, s, strlen(s)); }

/* a line of the indentation ind followed by s */
static void line(obuf *o, const char *ind, size_t nind, const char *s)
{
    put(o, ind, nind);
    puts_(o, s);
    puts_(o, "\n");
}

/* the content of line k of lines (without its indentation) */
static const char *content(char **lines, int n, int k)
{
    if (k >= n) return "";
    const char *c = lines[k];
    while (*c == ' ') c++;
    return c;
}

/* a block reference line: some tamm_block( become BLK( or BLOCK_OF( */
static void blocks_line(obuf *o, const char *l, int (*rint)(int))
{
    const char *p = l, *q;
    while ((q = strstr(p, "tamm_block(")) != NULL) {
        put(o, p, (size_t)(q - p));
        int k = rint(3);
        puts_(o, k == 0 ? "BLK(" : k == 1 ? "BLOCK_OF(" : "tamm_block(");
        p = q + strlen("tamm_block(");
    }
    puts_(o, p);
    puts_(o, "\n");
}

char *gen_macro_idiom(const char *text, int (*rint)(int n))
{
    const char *src = text ? text : "";
    char *copy = malloc(strlen(src) + 1);
    if (!copy) { perror("gen_random_program"); exit(1); }
    memcpy(copy, src, strlen(src) + 1);
    int n = 0, cap = 64;
    char **lines = malloc((size_t)cap * sizeof *lines);
    for (char *s = copy, *e; lines && *s; s = e + 1) {
        e = strchr(s, '\n');
        if (!e) e = s + strlen(s);
        if (n == cap) lines = realloc(lines, (size_t)(cap *= 2) * sizeof *lines);
        if (!lines) break;
        lines[n++] = s;
        if (!*e) break;
        *e = 0;
    }
    if (!lines) { perror("gen_random_program"); exit(1); }
    obuf o = { NULL, 0, 0 };
    puts_(&o, "");
    for (int k = 0; k < n; k++) {
        const char *c = content(lines, n, k);
        size_t nind = (size_t)(c - lines[k]);
        char v[32], bound[64], v2[32], v3[32];
        int end = 0;
        /* an initial fill loop: `for (long b = 0; b < N; b++) {`, the task, its one statement, `}` */
        if (sscanf(c, "for (long %31[a-z] = 0; %31[a-z] < %63[^;]; %31[a-z]++) {%n", v, v2, bound, v3, &end) == 4 &&
            !c[end] && !strcmp(v, v2) && !strcmp(v, v3) && !strcmp(content(lines, n, k + 1), "#pragma tamm task") &&
            !strncmp(content(lines, n, k + 2), "h_fill(", 7) && !strcmp(content(lines, n, k + 3), "}") && rint(2)) {
            const char *call = content(lines, n, k + 2);
            const char *ind2 = lines[k + 2];
            size_t nind2 = (size_t)(call - ind2);
            if (rint(2)) { /* the loop and the directive from one macro */
                char head[160];
                snprintf(head, sizeof head, "PARFOR_DECL(%s, %s) {", v, bound);
                line(&o, lines[k], nind, head);
                line(&o, ind2, nind2, call);
            } else { /* the directive and the statement from one macro */
                line(&o, lines[k], nind, c);
                put(&o, ind2, nind2);
                puts_(&o, "TASK_FILL");
                puts_(&o, call + strlen("h_fill"));
                puts_(&o, "\n");
            }
            line(&o, lines[k + 3], (size_t)(content(lines, n, k + 3) - lines[k + 3]), "}");
            k += 3;
            continue;
        }
        if (!strncmp(c, "#pragma tamm task", 17) && rint(2)) {
            int wait = !strncmp(c, "#pragma tamm taskwait", 21);
            switch (rint(3)) {
            case 0: /* _Pragma from a macro: GEN_PRAGMA(tamm task ...) */
                put(&o, lines[k], nind);
                puts_(&o, "GEN_PRAGMA(");
                puts_(&o, c + strlen("#pragma "));
                puts_(&o, ")\n");
                break;
            case 1: /* chosen by #ifdef, the other branch skipped */
                line(&o, "", 0, "#ifdef GEN_NEVER_DEFINED");
                line(&o, lines[k], nind, wait ? "#pragma tamm taskwait" : "#pragma tamm task label(\"never\")");
                line(&o, "", 0, "#else");
                line(&o, lines[k], nind, c);
                line(&o, "", 0, "#endif");
                break;
            default: /* tamm's pragma or OpenMP's */
                line(&o, "", 0, "#if !defined(_OPENMP)");
                line(&o, lines[k], nind, c);
                line(&o, "", 0, "#else");
                line(&o, lines[k], nind, wait ? "#pragma omp taskwait" : "#pragma omp task");
                line(&o, "", 0, "#endif");
                break;
            }
            continue;
        }
        if (c[0] != '#' && strstr(c, "tamm_block(")) {
            blocks_line(&o, lines[k], rint);
            continue;
        }
        line(&o, lines[k], strlen(lines[k]), "");
    }
    free(lines);
    free(copy);
    return o.s;
}
