/*
 * clause.h — the `#pragma tamm` directive and clause grammar (docs/language.md
 * "Directives" and "Task clauses"), parsed from the pragma's text (no libclang
 * here, so the fuzzer can drive it).
 *
 *   task [clause [[,] clause]...]      clauses: read write readwrite accum
 *                                      cwrite creadwrite caccum (list)
 *                                      permission(mode : list) device(cpu|cuda|any)
 *                                      priority(e) if(e) on(e) label("text")
 *                                      wait(list) signal(list) collective
 *   taskwait [on(list)]   fence   streaming
 *
 * A list holds block references `T[i][j]`, slices `T[i][:]`, ranges
 * `T[lo:hi][j]` (blocks lo to hi-1 of that dimension) or whole tensors `T`;
 * T is a primary expression (identifier, member access, call, or a
 * parenthesised expression) and each [..] that follows is one block index.
 * Expressions are kept as source text; libclang checks them later.
 */
#ifndef TAMMCC_CLAUSE_H
#define TAMMCC_CLAUSE_H

#include "diag.h"
#include <stddef.h>

#define CC_MAX_DIMS 8

/* access-mode bits: the runtime's TAMM_READ/WRITE/ACCUM/CANCELLABLE/PERMISSION_ONLY */
enum { CC_READ = 1, CC_WRITE = 2, CC_RW = 3, CC_ACCUM = 4, CC_CANCEL = 16, CC_PERMONLY = 32 };

typedef struct cc_text {
    char *s;        /* the expression's text (owned) */
    size_t off;     /* file offset of its first character (for diagnostics) */
} cc_text;

typedef struct cc_ref {
    cc_text tensor;
    int nidx;                    /* 0: the whole tensor */
    cc_text idx[CC_MAX_DIMS];    /* idx[d].s == NULL: ':' (all blocks); "lo:hi": a range (cc_range_split) */
    unsigned mode;               /* CC_* bits */
    size_t off;                  /* where the ref starts */
} cc_ref;

typedef enum { CC_P_TASK, CC_P_TASKWAIT, CC_P_FENCE, CC_P_STREAMING } cc_pkind;
typedef enum { CC_DEV_ANY, CC_DEV_CPU, CC_DEV_CUDA } cc_device;

typedef struct cc_pragma {
    cc_pkind kind;
    size_t off;              /* file offset of the directive ('#' or '_Pragma') */
    size_t end;              /* file offset just past it (end of line / of the _Pragma) */
    size_t name_off;         /* offset of the directive name ("task") */
    cc_ref *refs; int nrefs; /* access and permission clauses; taskwait on(list) */
    cc_text priority, ifexpr, on, label; /* .s == NULL when absent */
    cc_device device; int has_device;
    cc_text *wait, *signal; int nwait, nsignal;
    int collective;
    int has_on_list;         /* taskwait on(...) */
} cc_pragma;

/** Parse a pragma's text, which starts with "tamm" (the word after `#pragma`,
 *  or the contents of a _Pragma string).  map[i] is the file offset of
 *  text[i] (NULL: base + i).  Reports errors through diag.h against src and
 *  returns 0 on success, -1 on error (out is then freed). */
int cc_parse_pragma(const cc_source *src, const char *text, size_t len, const size_t *map, size_t base,
                    cc_pragma *out);
void cc_pragma_free(cc_pragma *p);
/** The clause name for a mode (e.g. "accum", "cwrite"). */
const char *cc_mode_name(unsigned mode);
/** Is index text s a range "lo:hi"?  Its ':' is the first one at bracket depth
 *  0 that closes no '?' of a conditional expression; then lo is s[0, *lo_end)
 *  and hi starts at s + *hi_begin.  Returns 1 for a range, else 0. */
int cc_range_split(const char *s, size_t *lo_end, size_t *hi_begin);
/** The C expression of an index text for a tamm_ref (caller frees): "TAMM_ALL"
 *  for NULL (':'), "TAMM_RANGE((lo), (hi))" for a range, else "(text)". */
char *cc_index_expr(const char *idx);
/** For a range "lo:hi" inferred from a loop: "tamm_cc_range(tensor, d, (lo), (hi))"
 *  (the range clamped to the dimension, TAMM_ALL if that leaves nothing); caller frees. */
char *cc_loop_range_expr(const char *idx, const char *tensor, int d);
/** Text of a ref as in the source, normalised ("C[i][j]", "C[i][:]", "C[0:2][j]", "C"); caller frees. */
char *cc_ref_text(const cc_ref *r);

#endif
