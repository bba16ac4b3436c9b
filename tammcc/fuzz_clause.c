/*
 * fuzz_clause.c — libFuzzer target for the `#pragma tamm` clause parser
 * (clause.h).  Build (tests/tammcc/front/CMakeLists.txt does this when
 * clang-14 is found):
 *
 *   clang-14 -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE \
 *            fuzz_clause.c clause.c diag.c xalloc.c -o fuzz_clause
 *   ./fuzz_clause -max_total_time=60 corpus/
 *
 * Each input is parsed three ways: prefixed with "tamm " (so that it reaches
 * the directive and clause grammar), raw, and prefixed through an offset map
 * (as pragma.c does for continued lines and _Pragma strings).  Properties:
 * no crash, leak or undefined behaviour; every parse ends in success or a
 * diagnostic (-1 implies at least one error reported, 0 implies none); on
 * success the result is well formed; on failure it was freed.  And the
 * parser agrees with an independent model of the grammar
 * (fuzz_clause_model.c, written from docs/language.md): on the prefixed and
 * the raw text, accept / reject agree, and on a reject the first error's
 * class and offset agree (where the model does not answer "unspecified").
 * Offsets: the parser reports an error at the end of the text at its last
 * byte, the model at its length; there, and at a closing bracket, a missing
 * closer and a missing operand (PAREN, EMPTY) are one fact: the text or the
 * bracketed group ended early.
 */
#include "clause.h"
#include "diag.h"
#include "fuzz_clause_model.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(c)                                                                                         \
    do {                                                                                                 \
        if (!(c)) {                                                                                      \
            fprintf(stderr, "fuzz_clause: %s:%d: check failed: %s\n", __FILE__, __LINE__, #c);           \
            abort();                                                                                     \
        }                                                                                                \
    } while (0)

static void check_text(const cc_text *t, size_t lo, size_t hi)
{
    CHECK(t->s != NULL);
    CHECK(t->off >= lo && t->off <= hi);
    CHECK(strlen(t->s) > 0);
}

/* A successful parse: fields consistent with each other and inside the file. */
static int has_nul; /* the input holds a NUL byte: texts (C strings) may end early */
static FILE *devnull; /* where diagnostics go when nothing reads them */

static void check_pragma(const cc_pragma *p, size_t lo, size_t hi)
{
    CHECK(p->kind == CC_P_TASK || p->kind == CC_P_TASKWAIT || p->kind == CC_P_FENCE || p->kind == CC_P_STREAMING);
    CHECK(p->name_off >= lo && p->name_off <= hi);
    CHECK(p->nrefs >= 0 && (p->nrefs == 0 || p->refs != NULL));
    for (int i = 0; i < p->nrefs; i++) {
        const cc_ref *r = &p->refs[i];
        check_text(&r->tensor, lo, hi);
        CHECK(r->nidx >= 0 && r->nidx <= CC_MAX_DIMS);
        CHECK((r->mode & 7u) != 0);
        CHECK(cc_mode_name(r->mode) != NULL);
        for (int d = 0; d < r->nidx; d++) {
            if (r->idx[d].s) check_text(&r->idx[d], lo, hi);
            else CHECK(r->idx[d].off >= lo && r->idx[d].off <= hi);
            size_t le, hb; /* a range: both bounds are there */
            if (r->idx[d].s && !has_nul && cc_range_split(r->idx[d].s, &le, &hb)) {
                CHECK(le > 0 && hb <= strlen(r->idx[d].s) && r->idx[d].s[hb] != 0);
                char *e = cc_index_expr(r->idx[d].s);
                CHECK(e != NULL && !strncmp(e, "TAMM_RANGE((", 12));
                free(e);
            }
        }
        char *key = cc_ref_text(r);
        CHECK(key != NULL && strlen(key) > 0);
        free(key);
    }
    if (p->kind != CC_P_TASK) {
        CHECK(p->priority.s == NULL && p->ifexpr.s == NULL && p->on.s == NULL && p->label.s == NULL);
        CHECK(p->nwait == 0 && p->nsignal == 0 && !p->collective);
        CHECK(p->kind == CC_P_TASKWAIT || p->nrefs == 0);
        CHECK(p->has_on_list || p->nrefs == 0);
    }
    if (p->priority.s) check_text(&p->priority, lo, hi);
    if (p->ifexpr.s) check_text(&p->ifexpr, lo, hi);
    if (p->on.s) check_text(&p->on, lo, hi);
    if (p->label.s) {
        check_text(&p->label, lo, hi);
        size_t l = strlen(p->label.s);
        CHECK(l >= 1 && p->label.s[0] == '"');
        CHECK(has_nul || (l >= 2 && p->label.s[l - 1] == '"'));
    }
    CHECK(p->nwait >= 0 && p->nsignal >= 0);
    for (int i = 0; i < p->nwait; i++) check_text(&p->wait[i], lo, hi);
    for (int i = 0; i < p->nsignal; i++) check_text(&p->signal[i], lo, hi);
    CHECK(p->device == CC_DEV_ANY || p->device == CC_DEV_CPU || p->device == CC_DEV_CUDA);
}

/* The model's class of the parser's message (its first words). */
static int parser_class(const char *msg)
{
    static const struct { const char *prefix; int cls; } k[] = {
        { "missing terminating", MODEL_E_LEX },
        { "not a tamm pragma", MODEL_E_NOT_TAMM },
        { "expected a tamm directive", MODEL_E_DIRECTIVE },
        { "unknown tamm directive", MODEL_E_DIRECTIVE },
        { "expected a clause of", MODEL_E_CLAUSE },
        { "clause '", MODEL_E_TWICE },
        { "unknown permission mode", MODEL_E_MODE },
        { "expected read, write, readwrite or accum", MODEL_E_MODE },
        { "unknown device", MODEL_E_DEVICE },
        { "expected a string literal", MODEL_E_LABEL },
        { "expected an expression", MODEL_E_EMPTY },
        { "expected the first block", MODEL_E_EMPTY },
        { "expected the end of the range", MODEL_E_EMPTY },
        { "expected ']' after the block range", MODEL_E_RANGE },
        { "expected a block reference", MODEL_E_REF },
        { "expected a member name", MODEL_E_REF },
        { "too many block indices", MODEL_UNSPEC_CLASS },
        { "unexpected '", MODEL_E_EXTRA },
        { "expected '", MODEL_E_PAREN },
    };
    if (!strncmp(msg, "unknown clause '", 16)) { /* '<identifier>' in '#pragma tamm task...' */
        const char *e = msg + 16;
        while (*e == '_' || (*e >= 'a' && *e <= 'z') || (*e >= 'A' && *e <= 'Z') || (*e >= '0' && *e <= '9')) e++;
        return !strncmp(e, "' in '#pragma tamm taskwait'", 28) ? MODEL_E_EXTRA : MODEL_E_CLAUSE;
    }
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        if (!strncmp(msg, k[i].prefix, strlen(k[i].prefix))) return k[i].cls;
    return -1;
}

static void disagree(const char *text, size_t len, const char *what, const char *diag, model_result m)
{
    fprintf(stderr, "fuzz_clause: the parser and the model disagree (%s) on %zu bytes: \"", what, len);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c >= 32 && c < 127 && c != '"' && c != '\\') fputc(c, stderr);
        else fprintf(stderr, "\\x%02x", c);
    }
    fprintf(stderr, "\"\n  parser: %s\n  model: %s", diag && *diag ? diag : "(accepted)\n",
            m.verdict == MODEL_ACCEPT ? "accepted" : model_class_name(m.cls));
    if (m.verdict == MODEL_REJECT) fprintf(stderr, " at offset %zu", m.off);
    fputc('\n', stderr);
    abort();
}

static unsigned long nverdict[3]; /* texts the model accepted, rejected, left unspecified */

static void print_stats(void)
{
    fprintf(stderr, "fuzz_clause: model and parser compared on %lu accepted and %lu rejected texts (%lu unspecified)\n",
            nverdict[MODEL_ACCEPT], nverdict[MODEL_REJECT], nverdict[MODEL_UNSPEC]);
}

/* Compare the parser's verdict on src (rc, its diagnostics in diag) with the model's. */
static void compare(const cc_source *src, int rc, const char *diag)
{
    model_result m = model_parse(src->text, src->len);
    if (!nverdict[0] && !nverdict[1] && !nverdict[2] && getenv("FUZZ_CLAUSE_STATS")) atexit(print_stats);
    nverdict[m.verdict]++;
    if (m.verdict == MODEL_UNSPEC) return;
    if ((rc == 0) != (m.verdict == MODEL_ACCEPT)) disagree(src->text, src->len, "accept / reject", diag, m);
    if (rc == 0) return;
    unsigned line, col;
    int at = 0;
    CHECK(sscanf(diag, "fuzz.c:%u:%u: error: %n", &line, &col, &at) == 2 && at > 0);
    size_t off = 0; /* line:col back to a byte offset */
    for (unsigned l = 1; l < line && off < src->len; off++)
        if (src->text[off] == '\n') l++;
    off += col - 1;
    int pc = parser_class(diag + at);
    if (pc == MODEL_UNSPEC_CLASS) return;
    int at_end = m.off == src->len;
    size_t want = at_end && src->len ? src->len - 1 : m.off;
    if (off != want) disagree(src->text, src->len, "offset of the first error", diag, m);
    /* at the end, or at a closer ("f(]", "A[)"), a missing operand and a missing closer are one fact */
    int early = at_end || (m.off < src->len && strchr(")]}", src->text[m.off]));
    if (pc != m.cls && !(early && (pc == MODEL_E_PAREN || pc == MODEL_E_EMPTY) &&
                         (m.cls == MODEL_E_PAREN || m.cls == MODEL_E_EMPTY)))
        disagree(src->text, src->len, "class of the first error", diag, m);
}

/* Parse text[0, len) (a file of its own, or mapped into `file` by map); with
 * model != 0, compare the verdict with the model's. */
static void parse_one(const cc_source *src, const char *text, size_t len, const size_t *map, size_t base, int model)
{
    char *diag = NULL;
    size_t diag_len = 0;
    FILE *ds = model && !has_nul ? open_memstream(&diag, &diag_len) : NULL;
    if (ds) cc_diag_stream(ds);
    cc_pragma p;
    memset(&p, 0, sizeof p);
    p.off = base;
    p.end = base + len;
    int e0 = cc_error_count();
    int rc = cc_parse_pragma(src, text, len, map, base, &p);
    int e1 = cc_error_count();
    CHECK(rc == 0 || rc == -1);
    if (rc == 0) {
        CHECK(e1 == e0);                     /* success: no error reported */
        CHECK(p.off == base && p.end == base + len);
        check_pragma(&p, 0, src->len);
        cc_pragma_free(&p);
        CHECK(p.refs == NULL && p.nrefs == 0 && p.wait == NULL && p.signal == NULL);
    } else {
        CHECK(e1 > e0);                      /* failure: a diagnostic says why */
        /* out was freed: nothing left to free, and freeing again is harmless */
        CHECK(p.refs == NULL && p.nrefs == 0 && p.priority.s == NULL && p.label.s == NULL);
        cc_pragma_free(&p);
    }
    if (ds) {
        fclose(ds);
        cc_diag_stream(devnull);
        compare(src, rc, diag);
        free(diag);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!devnull) {
        devnull = fopen("/dev/null", "w");
        if (devnull) cc_diag_stream(devnull);
    }
    if (size > 4096) return 0; /* pragmas are short; keep the quadratic bits (edit distance) fast */
    has_nul = size && memchr(data, 0, size) != NULL;

    /* 1. "tamm " + data: the directive and clause grammar */
    static const char pre[] = "tamm ";
    size_t n = sizeof pre - 1 + size;
    char *t = malloc(n + 1);
    memcpy(t, pre, sizeof pre - 1);
    if (size) memcpy(t + sizeof pre - 1, data, size);
    t[n] = 0;
    cc_source src = { "fuzz.c", t, n };
    parse_one(&src, t, n, NULL, 0, 1);

    /* 2. raw bytes (an exact-size copy, so that ASan sees reads past the end) */
    char *raw = malloc(size ? size : 1);
    if (size) memcpy(raw, data, size);
    cc_source rsrc = { "fuzz.c", raw, size };
    parse_one(&rsrc, raw, size, NULL, 0, 1);

    /* 3. through a map, as for "#pragma tamm ..." in a file: the text starts
     *    at "tamm", 8 bytes into the file, and every byte maps to the file */
    static const char lead[] = "#pragma ";
    size_t fn = sizeof lead - 1 + n;
    char *file = malloc(fn + 1);
    memcpy(file, lead, sizeof lead - 1);
    memcpy(file + sizeof lead - 1, t, n);
    file[fn] = 0;
    size_t *map = malloc((n + 1) * sizeof *map); /* n + 1 entries, as pragma.c provides */
    for (size_t i = 0; i <= n; i++) map[i] = sizeof lead - 1 + i;
    cc_source fsrc = { "fuzz.c", file, fn };
    parse_one(&fsrc, file + sizeof lead - 1, n, map, 0, 0);

    /* the helpers the parser uses for "did you mean" */
    if (size <= 64) {
        char w[65];
        memcpy(w, data, size);
        w[size] = 0;
        static const char *const words[] = { "task", "taskwait", "fence", "streaming", NULL };
        const char *s = cc_suggest(w, words);
        CHECK(s == NULL || cc_edit_distance(w, s) <= 3);
        CHECK(cc_edit_distance(w, w) == 0);
    }

    free(map);
    free(file);
    free(raw);
    free(t);
    return 0;
}
