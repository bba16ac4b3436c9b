/*
 * diag.h — diagnostics in clang's format: "file:line:col: error: message",
 * then the source line and a caret under the column.  A source file is
 * registered once (its text); locations are byte offsets into it.
 */
#ifndef TAMMCC_DIAG_H
#define TAMMCC_DIAG_H

#include <stddef.h>

typedef struct cc_source {
    const char *name;   /* as given on the command line */
    const char *text;   /* whole file */
    size_t len;
} cc_source;

typedef enum { CC_NOTE, CC_WARNING, CC_ERROR } cc_severity;

/** Report at byte offset `off` of `src` (src may be NULL: no location). */
void cc_diag(const cc_source *src, size_t off, cc_severity sev, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/** Number of errors reported so far (the exit status is non-zero if any). */
int cc_error_count(void);
void cc_diag_reset(void);
/** 1-based line and column of `off` in `src`. */
void cc_line_col(const cc_source *src, size_t off, unsigned *line, unsigned *col);
/** 1-based line of `off` in `src`. */
unsigned cc_line_of(const cc_source *src, size_t off);
/** Levenshtein distance between a and b (for "did you mean"). */
int cc_edit_distance(const char *a, const char *b);
/** The entry of `words` (NULL-terminated) closest to `w` if close enough, else NULL. */
const char *cc_suggest(const char *w, const char *const *words);
/** Where diagnostics go (default stderr). */
void cc_diag_stream(void *FILE_ptr);

#endif
