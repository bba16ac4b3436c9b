/* text.c — shared string helpers of tammcc (see text.h). */
#include "text.h"
#include "xalloc.h"
#include "cc_assert.h"
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *cc_vfmt(const char *f, va_list ap)
{
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, f, aq);
    va_end(aq);
    if (n < 0) cc_oom(); /* EOVERFLOW: a string longer than INT_MAX */
    char *s = cc_xmalloc((size_t)n + 1);
    vsnprintf(s, (size_t)n + 1, f, ap);
    return s;
}

char *cc_fmt(const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    char *s = cc_vfmt(f, ap);
    va_end(ap);
    return s;
}

char *cc_squeeze(const char *s)
{
    char *o = cc_xmalloc(strlen(s) + 1), *q = o;
    for (; *s; s++)
        if (!isspace((unsigned char)*s)) *q++ = *s;
    *q = 0;
    return o;
}

char *cc_collapse(const char *s)
{
    while (isspace((unsigned char)*s)) s++;
    char *o = cc_xmalloc(strlen(s) + 1), *q = o;
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
    CC_ASSERT(b <= e); /* a range of the text, not an empty count for a reversed one */
    unsigned n = 0;
    for (size_t i = b; i < e; i++) n += s[i] == '\n';
    return n;
}
