/* text.c — shared string helpers of tammcc (see text.h). */
#include "text.h"
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *cc_fmt(const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    char *s = NULL;
    if (vasprintf(&s, f, ap) < 0) s = NULL;
    va_end(ap);
    return s;
}

char *cc_squeeze(const char *s)
{
    char *o = malloc(strlen(s) + 1), *q = o;
    for (; *s; s++)
        if (!isspace((unsigned char)*s)) *q++ = *s;
    *q = 0;
    return o;
}

char *cc_collapse(const char *s)
{
    while (isspace((unsigned char)*s)) s++;
    char *o = malloc(strlen(s) + 1), *q = o;
    for (; *s; s++) {
        if (isspace((unsigned char)*s)) {
            if (q > o && q[-1] != ' ') *q++ = ' ';
        } else {
            *q++ = *s;
        }
    }
    while (q > o && q[-1] == ' ') q--;
    *q = 0;
    return o;
}

int cc_ident_in(const char *text, const char *name)
{
    size_t l = strlen(name);
    if (!l) return 0;
    for (const char *p = text; (p = strstr(p, name)); p += l) {
        int before = p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
        int after = isalnum((unsigned char)p[l]) || p[l] == '_';
        if (!before && !after) return 1;
    }
    return 0;
}

unsigned cc_count_nl(const char *s, size_t b, size_t e)
{
    unsigned n = 0;
    for (size_t i = b; i < e; i++) n += s[i] == '\n';
    return n;
}
