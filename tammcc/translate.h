/*
 * translate.h — one source file through tammcc: parse with libclang, recover
 * and attach directives, check clause expressions, infer accesses, capture
 * variables, and produce the generated C (and CUDA) text.
 */
#ifndef TAMMCC_TRANSLATE_H
#define TAMMCC_TRANSLATE_H

#include <stdio.h>

typedef struct cc_result {
    char *c;          /* generated C (NULL on error) */
    char *cuda;       /* generated CUDA (NULL when no task has a CUDA variant) */
    int ntasks;
} cc_result;

/** Translate `file` with the compiler flags `args` (-I/-D/-U/-std...).
 *  c_name / cu_name name the outputs (for #line).  With explain != NULL the
 *  inference report goes there.  Returns 0, or the number of errors. */
int cc_translate(const char *file, const char *const *args, int nargs, const char *c_name, const char *cu_name,
                 FILE *explain, cc_result *out);
void cc_result_free(cc_result *r);

#endif
