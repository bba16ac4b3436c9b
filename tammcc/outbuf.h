/*
 * outbuf.h — an output buffer that counts lines, so generated code can carry
 * `#line` directives back to the user's file and forth to itself.
 */
#ifndef TAMMCC_OUTBUF_H
#define TAMMCC_OUTBUF_H

#include <stddef.h>

typedef struct cc_out {
    char *buf;
    size_t n, cap;
    unsigned line;          /* 1-based line number of the next character */
    const char *self;       /* name of the generated file (for #line back to it) */
} cc_out;

void cc_out_init(cc_out *o, const char *self);
void cc_out_free(cc_out *o);
void cc_puts(cc_out *o, const char *s);
void cc_putn(cc_out *o, const char *s, size_t n);
void cc_printf(cc_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** Start a new line if not at the start of one. */
void cc_newline(cc_out *o);
/** `#line L "file"` on a line of its own. */
void cc_line_to(cc_out *o, unsigned line, const char *file);
/** `#line` back to the generated file itself. */
void cc_line_self(cc_out *o);

#endif
