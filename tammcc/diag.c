/* diag.c — clang-style diagnostics with source line, caret and suggestions (see diag.h). */
#include "diag.h"
#include "cc_assert.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int nerrors;
static FILE *out_stream;

void cc_diag_stream(void *f) { out_stream = f; }
int cc_error_count(void) { return nerrors; }
void cc_diag_reset(void) { nerrors = 0; }

void cc_line_col(const cc_source *src, size_t off, unsigned *line, unsigned *col)
{
    unsigned l = 1, c = 1;
    if (off > src->len) off = src->len;
    for (size_t i = 0; i < off; i++) {
        if (src->text[i] == '\n') { l++; c = 1; }
        else c++;
    }
    *line = l;
    *col = c;
}

unsigned cc_line_of(const cc_source *src, size_t off)
{
    unsigned l, c;
    cc_line_col(src, off, &l, &c);
    return l;
}

void cc_diag(const cc_source *src, size_t off, cc_severity sev, const char *fmt, ...)
{
    static const char *names[] = { "note", "warning", "error" };
    FILE *o = out_stream ? out_stream : stderr;
    if (sev == CC_ERROR) nerrors++;
    va_list ap;
    va_start(ap, fmt);
    if (src) {
        unsigned line, col;
        cc_line_col(src, off, &line, &col);
        fprintf(o, "%s:%u:%u: %s: ", src->name, line, col, names[sev]);
    } else {
        fprintf(o, "tammcc: %s: ", names[sev]);
    }
    vfprintf(o, fmt, ap);
    va_end(ap);
    fputc('\n', o);
    if (!src) return;
    if (off > src->len) off = src->len;
    size_t b = off, e = off;
    while (b > 0 && src->text[b - 1] != '\n') b--;
    while (e < src->len && src->text[e] != '\n') e++;
    fprintf(o, "%.*s\n", (int)(e - b), src->text + b);
    for (size_t i = b; i < off; i++) fputc(src->text[i] == '\t' ? '\t' : ' ', o);
    fputs("^\n", o);
}

int cc_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64) return 1000;
    int d[65][65];
    for (size_t i = 0; i <= la; i++) d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++) d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            int c = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < c) c = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < c) c = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < c)
                c = d[i - 2][j - 2] + 1; /* transposition */
            d[i][j] = c;
        }
    return d[la][lb];
}

const char *cc_suggest(const char *w, const char *const *words)
{
    const char *best = NULL;
    int bd = 1000;
    for (int i = 0; words[i]; i++) {
        int dd = cc_edit_distance(w, words[i]);
        if (dd < bd) { bd = dd; best = words[i]; }
    }
    size_t l = strlen(w);
    int limit = l <= 3 ? 1 : l <= 6 ? 2 : 3;
    return bd <= limit ? best : NULL;
}

void cc_assert_fail(const char *expr, const char *file, int line, const char *func)
{
    fflush(stdout);
    fprintf(stderr, "tammcc: internal error: assertion '%s' failed at %s:%d (%s)\n", expr, file, line, func);
    fflush(stderr);
    abort();
}
