/*
 * text.h — small string helpers the tammcc modules share: formatting into a
 * fresh string, whitespace normalisation of expression texts, identifier
 * search, line counting.
 */
#ifndef TAMMCC_TEXT_H
#define TAMMCC_TEXT_H

#include <stdarg.h>
#include <stddef.h>

/** printf into a new string (caller frees); never NULL: out of memory exits
 *  through tammcc's policy (xalloc.h: "tammcc: out of memory", status 1). */
char *cc_fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
/** cc_fmt with a va_list (ap is consumed as by vprintf). */
char *cc_vfmt(const char *f, va_list ap) __attribute__((format(printf, 1, 0)));
/** s without any whitespace (a comparison key; caller frees). */
char *cc_squeeze(const char *s);
/** s with whitespace runs collapsed to one space and trimmed (text emitted as C; caller frees). */
char *cc_collapse(const char *s);
/** Does text contain `name` as a whole identifier? */
int cc_ident_in(const char *text, const char *name);
/** Newlines in s[b, e). */
unsigned cc_count_nl(const char *s, size_t b, size_t e);

#endif
