/* outbuf.c — line-counting output buffer (see outbuf.h). */
#include "outbuf.h"
#include "text.h"
#include "xalloc.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cc_out_init(cc_out *o, const char *self)
{
    memset(o, 0, sizeof *o);
    o->line = 1;
    o->self = self;
}

void cc_out_free(cc_out *o) { free(o->buf); memset(o, 0, sizeof *o); }

void cc_putn(cc_out *o, const char *s, size_t n)
{
    CC_GROW(o->buf, o->cap, o->n + n + 1);
    memcpy(o->buf + o->n, s, n);
    o->n += n;
    o->buf[o->n] = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] == '\n') o->line++;
}

void cc_puts(cc_out *o, const char *s) { cc_putn(o, s, strlen(s)); }

void cc_printf(cc_out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = cc_vfmt(fmt, ap);
    va_end(ap);
    size_t n = strlen(s);
    if (n) cc_putn(o, s, n);
    free(s);
}

void cc_newline(cc_out *o)
{
    if (o->n && o->buf[o->n - 1] != '\n') cc_puts(o, "\n");
}

static void put_quoted(cc_out *o, const char *file)
{
    cc_puts(o, "\"");
    for (const char *p = file; *p; p++) {
        if (*p == '"' || *p == '\\') cc_putn(o, "\\", 1);
        cc_putn(o, p, 1);
    }
    cc_puts(o, "\"");
}

void cc_line_to(cc_out *o, unsigned line, const char *file)
{
    cc_newline(o);
    cc_printf(o, "#line %u ", line);
    put_quoted(o, file);
    cc_puts(o, "\n");
}

void cc_line_self(cc_out *o)
{
    cc_newline(o);
    cc_printf(o, "#line %u ", o->line + 1);
    put_quoted(o, o->self ? o->self : "tammcc-output.c");
    cc_puts(o, "\n");
}
