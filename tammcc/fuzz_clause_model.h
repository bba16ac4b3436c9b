/*
 * fuzz_clause_model.h — the clause fuzzer's reference recognizer of the `#pragma tamm` grammar
 * (fuzz_clause_model.c): accept / reject, and for a reject the class and offset of the first
 * error, as docs/language.md defines them; MODEL_UNSPEC where the documentation does not decide.
 */
#ifndef TAMMCC_FUZZ_CLAUSE_MODEL_H
#define TAMMCC_FUZZ_CLAUSE_MODEL_H

#include <stddef.h>

enum { MODEL_ACCEPT, MODEL_REJECT, MODEL_UNSPEC };
enum {
    MODEL_E_NONE,
    MODEL_E_LEX,       /* a string or character literal without its closing quote */
    MODEL_E_NOT_TAMM,  /* the text does not start with 'tamm' */
    MODEL_E_DIRECTIVE, /* no directive, or not task / taskwait / fence / streaming */
    MODEL_E_CLAUSE,    /* not a clause of '#pragma tamm task' (unknown word, stray token, stray comma) */
    MODEL_E_TWICE,     /* device, priority, if, on, label or collective a second time */
    MODEL_E_MODE,      /* permission(mode: ...) with another mode */
    MODEL_E_DEVICE,    /* device(...) other than cpu, cuda, any */
    MODEL_E_LABEL,     /* label(...) without a string literal */
    MODEL_E_PAREN,     /* an expected '(' ')' ']' ':' missing, or a bracket left open at the end */
    MODEL_E_EMPTY,     /* an empty expression, index or range bound */
    MODEL_E_RANGE,     /* a second ':' in a block range */
    MODEL_E_REF,       /* no block reference where the list needs one, or no member name */
    MODEL_E_EXTRA,     /* text after taskwait [on(list)], fence or streaming */
    MODEL_UNSPEC_CLASS
};

typedef struct {
    int verdict; /* MODEL_ACCEPT, MODEL_REJECT or MODEL_UNSPEC */
    int cls;     /* for MODEL_REJECT: MODEL_E_... */
    size_t off;  /* for MODEL_REJECT: the first error's byte offset (the text's length: at its end) */
} model_result;

model_result model_parse(const char *s, size_t n);
const char *model_class_name(int cls);

#endif
