/*
 * driver.c — tammcc, a compiler driver in the manner of mpicc and nvcc
 * (README.md "Five-minute tutorial"): translates each C file with pragmas,
 * compiles the generated C with $TAMMCC_CC (default cc, or mpicc when libtammrt
 * is built with MPI) and the generated CUDA with
 * $TAMMCC_NVCC (default: nvcc when found; "none" disables) for the GPU
 * architectures of nvcc_arch.h ($TAMMCC_CUDA_ARCH), and links with libtammrt.
 *
 *   tammcc [flags] file.c... [-c|-S] [-o out] [--emit=c|--emit=cuda] [--explain] [-v]
 */
#include "diag.h"
#include "nvcc_arch.h"
#include "text.h"
#include "translate.h"
#include "xalloc.h"
#include <clang-c/Index.h>
#include <errno.h>
#include <ftw.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct { char **v; int n; size_t cap; } strv;
static void sv_add(strv *s, const char *x)
{
    CC_GROW(s->v, s->cap, s->n + 2);
    s->v[s->n++] = cc_xstrdup(x);
    s->v[s->n] = NULL;
}
static void sv_addv(strv *s, const strv *o) { for (int i = 0; i < o->n; i++) sv_add(s, o->v[i]); }
static void sv_free(strv *s) { for (int i = 0; i < s->n; i++) free(s->v[i]); free(s->v); memset(s, 0, sizeof *s); }

static int verbose; /* -v: print each command; 2 (-###): print them, quoted, and run none */

static int run(strv *cmd)
{
    if (verbose == 2) {
        for (int i = 0; i < cmd->n; i++) fprintf(stderr, "%s\"%s\"", i ? " " : " ", cmd->v[i]);
        fputc('\n', stderr);
        return 0;
    }
    if (verbose) {
        for (int i = 0; i < cmd->n; i++) fprintf(stderr, "%s%s", i ? " " : "", cmd->v[i]);
        fputc('\n', stderr);
    }
    pid_t p = fork();
    if (p < 0) { perror("tammcc: fork"); return -1; }
    if (p == 0) {
        execvp(cmd->v[0], cmd->v);
        fprintf(stderr, "tammcc: error: cannot run '%s': %s\n", cmd->v[0], strerror(errno));
        _exit(127);
    }
    int st;
    while (waitpid(p, &st, 0) < 0 && errno == EINTR) {}
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static int exists(const char *p) { struct stat s; return stat(p, &s) == 0; }

/* the scratch directory: removed at exit (unless TAMMCC_KEEP), whatever the way out, an error
 * or running out of memory deep in a translation (xalloc.h) included */
static char tmpdir[] = "/tmp/tammcc-XXXXXX";
static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st; (void)flag; (void)ftw;
    remove(path);
    return 0;
}
static void remove_tmpdir(void)
{
    if (!cc_fault_child) nftw(tmpdir, remove_entry, 16, FTW_DEPTH | FTW_PHYS); /* a fault-injection child's is its parent's */
}

static int in_path(const char *prog)
{
    const char *path = getenv("PATH");
    if (!path) return 0;
    char *d = cc_xstrdup(path), *save = NULL;
    int found = 0;
    for (char *t = strtok_r(d, ":", &save); t && !found; t = strtok_r(NULL, ":", &save)) {
        char buf[PATH_MAX];
        snprintf(buf, sizeof buf, "%s/%s", t, prog);
        found = access(buf, X_OK) == 0;
    }
    free(d);
    return found;
}

/* where tamm.h and libtammrt live: next to an installed tammcc, else the build tree */
static char incdir[PATH_MAX], libdir[PATH_MAX];
static int installed;
static void locate(void)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = 0;
        char *d = dirname(exe);
        char p[PATH_MAX * 2];
        snprintf(p, sizeof p, "%s/../include/tamm.h", d);
        if (exists(p) && strcmp(d, TAMMCC_BUILD_BINDIR) != 0) {
            snprintf(incdir, sizeof incdir, "%s/../include", d);
            snprintf(p, sizeof p, "%s/../lib/libtammrt.a", d);
            if (!exists(p)) snprintf(p, sizeof p, "%s/../" TAMMCC_INSTALL_LIBDIR "/libtammrt.a", d);
            snprintf(libdir, sizeof libdir, "%s", dirname(p));
            installed = 1;
            return;
        }
    }
    snprintf(incdir, sizeof incdir, "%s", TAMMCC_INCLUDE_DIR);
    snprintf(libdir, sizeof libdir, "%s", TAMMCC_BUILD_LIBDIR);
}

static const char *nvcc_path(void)
{
    const char *e = getenv("TAMMCC_NVCC");
    if (e && *e) return strcmp(e, "none") ? e : NULL;
    if (in_path("nvcc")) return "nvcc";
    if (exists("/usr/local/cuda/bin/nvcc")) return "/usr/local/cuda/bin/nvcc";
    return NULL;
}

static int write_file(const char *path, const char *s)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
    if (!f) { fprintf(stderr, "tammcc: error: cannot write '%s': %s\n", path, strerror(errno)); return -1; }
    fputs(s, f);
    if (f != stdout) fclose(f);
    return 0;
}

static char *base_of(const char *path, const char *suffix)
{
    char *c = cc_xstrdup(path), *b = basename(c);
    char *dot = strrchr(b, '.');
    if (dot) *dot = 0;
    char *r = cc_fmt("%s%s", b, suffix);
    free(c);
    return r;
}

/* Rewrite depfile `path` (written by the back end for the translated file
 * `tmp`) so that it names the user's source `src` instead, into `dest`
 * ("-": stdout).  Returns 0 on success. */
static int rewrite_depfile(const char *path, const char *tmp, const char *src, const char *dest)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "tammcc: error: the compiler wrote no dependency file '%s'\n", path);
        return 1;
    }
    char *out = NULL;
    size_t outlen = 0;
    FILE *o = cc_xmemstream(&out, &outlen);
    size_t tl = strlen(tmp);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    errno = 0;
    while ((n = getline(&line, &cap, f)) > 0) {
        for (char *p = line; *p;) {
            if (!strncmp(p, tmp, tl)) {
                fputs(src, o);
                p += tl;
            } else {
                fputc(*p++, o);
            }
        }
    }
    if (errno == ENOMEM) cc_oom(); /* getline's buffer */
    free(line);
    fclose(f);
    cc_xmemclose(o);
    int rc = write_file(dest, out);
    free(out);
    return rc;
}

/* The directory of path ("." for a bare file name); caller frees. */
static char *dir_of(const char *path)
{
    char *c = cc_xstrdup(path), *d = cc_xstrdup(dirname(c));
    free(c);
    return d;
}

static void usage(void)
{
    fputs("usage: tammcc [cc flags] file.c... [-c|-S] [-o out] [--emit=c|--emit=cuda] [--explain] [-v]\n"
          "  translates '#pragma tamm' programs, compiles them with $TAMMCC_CC (default " TAMMCC_DEFAULT_CC ") and\n"
          "  $TAMMCC_NVCC (default nvcc when found; 'none' disables CUDA; 'emu' compiles the CUDA variants with\n"
          "  $TAMMCC_CXX (default c++) and tamm_cuda_emu.h, which runs their kernels on the host), links libtammrt.\n"
          "  nvcc compiles for $TAMMCC_CUDA_ARCH (native, sm_XX, compute_XX, or a comma-separated list), else\n"
          "  the GPUs present (-arch=native), else sm_70 to sm_90 and compute_90 PTX (those nvcc supports).\n"
          "  -S              write the generated C (and .cu) instead of compiling\n"
          "  --emit=c|cuda   print the generated C / CUDA on stdout (or to -o)\n"
          "  --explain       print each task's inferred accesses and permissions, and why\n"
          "  -v              print the commands run\n"
          "  -###            print the commands, quoted, without running them\n"
          "  --version       print tammcc's version, its libclang and its back-end compilers\n", stderr);
}

int main(int argc, char **argv)
{
    locate();
    strv cflags = { 0 }, clangflags = { 0 }, linkflags = { 0 }, sources = { 0 }, objects = { 0 };
    strv depflags = { 0 }, deptargets = { 0 }; /* -M... flags; -MT / -MQ with their targets */
    const char *depfile = NULL;                /* -MF */
    int deps_only = 0;                         /* -M or -MM: dependencies, no compilation */
    const char *out = NULL;
    int compile_only = 0, gen_only = 0, explain = 0;
    const char *emit = NULL;
    int early = -1; /* the exit status of a command line that ends here (an error, --version, --help) */
    for (int i = 1; i < argc && early < 0; i++) {
        const char *a = argv[i];
        size_t l = strlen(a);
        if (!strcmp(a, "-o")) {
            if (++i >= argc) { fprintf(stderr, "tammcc: error: -o needs a file name\n"); early = 2; break; }
            out = argv[i];
        } else if (!strcmp(a, "-c")) compile_only = 1;
        else if (!strcmp(a, "-S")) gen_only = 1;
        else if (!strcmp(a, "-v")) verbose = 1;
        else if (!strcmp(a, "-###")) verbose = 2;
        else if (!strcmp(a, "-M") || !strcmp(a, "-MM")) { sv_add(&depflags, a); deps_only = 1; }
        else if (!strcmp(a, "-MD") || !strcmp(a, "-MMD") || !strcmp(a, "-MP") || !strcmp(a, "-MG")) sv_add(&depflags, a);
        else if (!strncmp(a, "-MF", 3) || !strncmp(a, "-MT", 3) || !strncmp(a, "-MQ", 3)) {
            const char *v = a[3] ? a + 3 : ++i < argc ? argv[i] : NULL;
            if (!v) { fprintf(stderr, "tammcc: error: %.3s needs an argument\n", a); early = 2; break; }
            if (a[2] == 'F') depfile = v;
            else { sv_add(&deptargets, a[2] == 'T' ? "-MT" : "-MQ"); sv_add(&deptargets, v); }
        }
        else if (!strcmp(a, "--version")) {
            CXString v = clang_getClangVersion();
            const char *cc = getenv("TAMMCC_CC"), *nv = nvcc_path();
            printf("tammcc (tamm) %s\n  parser: %s\n  C compiler: %s\n  CUDA compiler: %s\n", TAMMCC_VERSION,
                   clang_getCString(v), cc && *cc ? cc : TAMMCC_DEFAULT_CC, nv ? nv : "none");
            clang_disposeString(v);
            early = 0;
        }
        else if (!strcmp(a, "--explain")) explain = 1;
        else if (!strncmp(a, "--emit=", 7)) {
            emit = a + 7;
            if (strcmp(emit, "c") && strcmp(emit, "cuda")) {
                fprintf(stderr, "tammcc: error: --emit takes 'c' or 'cuda', not '%s'\n", emit);
                early = 2;
            }
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(); early = 0; }
        else if (!strncmp(a, "-I", 2) || !strncmp(a, "-D", 2) || !strncmp(a, "-U", 2) || !strncmp(a, "-std=", 5) ||
                 !strcmp(a, "-include") || !strcmp(a, "-isystem")) {
            sv_add(&cflags, a);
            sv_add(&clangflags, a);
            if ((l == 2 || !strcmp(a, "-include") || !strcmp(a, "-isystem")) && i + 1 < argc) {
                sv_add(&cflags, argv[i + 1]);
                sv_add(&clangflags, argv[++i]);
            }
        } else if (!strncmp(a, "-l", 2) || !strncmp(a, "-L", 2) || !strncmp(a, "-Wl,", 4) || !strcmp(a, "-pthread") ||
                   !strcmp(a, "-fopenmp") || !strncmp(a, "-fsanitize", 10)) {
            sv_add(&linkflags, a);
            if (l == 2 && i + 1 < argc) sv_add(&linkflags, argv[++i]);
            if (!strcmp(a, "-pthread") || !strcmp(a, "-fopenmp") || !strncmp(a, "-fsanitize", 10)) sv_add(&cflags, a);
        } else if (a[0] == '-') {
            sv_add(&cflags, a);
        } else if (l > 2 && !strcmp(a + l - 2, ".c")) {
            sv_add(&sources, a);
        } else {
            sv_add(&objects, a);
        }
    }
    if (early < 0 && sources.n == 0 && objects.n == 0) { usage(); early = 2; }
    if (early < 0 && cc_cuda_arch_check()) early = 1;
    if (early < 0 && (emit || gen_only || compile_only) && out && sources.n > 1) {
        fprintf(stderr, "tammcc: error: -o with -c, -S or --emit needs a single input file\n");
        early = 2;
    }
    if (early >= 0) {
        sv_free(&cflags); sv_free(&clangflags); sv_free(&linkflags); sv_free(&sources); sv_free(&objects);
        sv_free(&depflags); sv_free(&deptargets);
        return early;
    }
    sv_add(&clangflags, "-I");
    sv_add(&clangflags, incdir);
    const char *cc = getenv("TAMMCC_CC");
    if (!cc || !*cc) cc = TAMMCC_DEFAULT_CC;
    const char *nvcc = nvcc_path();
    int emu = nvcc && !strcmp(nvcc, "emu"); /* TAMMCC_NVCC=emu: kernels run on the host (tamm_cuda_emu.h) */
    if (!mkdtemp(tmpdir)) { perror("tammcc: mkdtemp"); return 1; }
    if (!getenv("TAMMCC_KEEP")) atexit(remove_tmpdir);
    int status = 0;
    strv link_objs = { 0 };
    for (int s = 0; s < sources.n && !status; s++) {
        const char *src = sources.v[s];
        char *cname = NULL, *cuname = NULL;
        if (gen_only || emit) {
            cname = out ? cc_xstrdup(out) : base_of(src, ".tamm.c");
            cuname = base_of(cname, ".cu");
        } else {
            char *b = base_of(src, "");
            cname = cc_fmt("%s/%s.tamm.c", tmpdir, b);
            cuname = cc_fmt("%s/%s.tamm.cu", tmpdir, b);
            free(b);
        }
        cc_result r;
        int errs = cc_translate(src, (const char *const *)clangflags.v, clangflags.n, cname, cuname,
                                explain ? stdout : NULL, &r);
        if (errs) {
            fprintf(stderr, "%d error%s generated.\n", errs, errs == 1 ? "" : "s");
            status = 1;
        } else if (explain) {
            /* the report is the output */
        } else if (emit) {
            const char *txt = !strcmp(emit, "c") ? r.c : r.cuda;
            if (!txt) fprintf(stderr, "tammcc: %s: no task has a CUDA variant (see --explain)\n", src);
            else if (write_file(out ? out : "-", txt)) status = 1;
        } else {
            if (write_file(cname, r.c)) status = 1;
            if (!status && r.cuda && (gen_only || nvcc) && write_file(cuname, r.cuda)) status = 1;
            if (!status && !gen_only) {
                char *obj = NULL, *cuobj = NULL, *b = base_of(src, "");
                if (compile_only && out) obj = cc_xstrdup(out);
                else if (compile_only) obj = base_of(src, ".o");
                else obj = cc_fmt("%s/%s.o", tmpdir, b);
                int with_cuda = r.cuda && nvcc;
                char *cobj = NULL;
                cobj = cc_fmt(with_cuda ? "%s/%s.c.o" : "%s", with_cuda ? tmpdir : obj, b);
                /* the translated file lives in a temporary directory: quote includes must still
                 * find the headers next to the user's file first, as cc would */
                char *srcdir = dir_of(src);
                strv cmd = { 0 };
                sv_add(&cmd, cc);
                sv_add(&cmd, "-iquote");
                sv_add(&cmd, srcdir);
                sv_addv(&cmd, &cflags);
                if (TAMMCC_SANITIZE[0] && !installed) sv_add(&cmd, TAMMCC_SANITIZE);
                sv_add(&cmd, "-I");
                sv_add(&cmd, incdir);
                /* dependency files name the user's files: the back end writes one for the
                 * translated file into the temporary directory, rewritten afterwards */
                char *tmpdep = NULL, *dest = NULL;
                if (depflags.n) {
                    tmpdep = cc_fmt("%s/%s.d", tmpdir, b);
                    sv_addv(&cmd, &depflags);
                    sv_add(&cmd, "-MF");
                    sv_add(&cmd, tmpdep);
                    if (deptargets.n) {
                        sv_addv(&cmd, &deptargets);
                    } else {
                        char *t = compile_only ? cc_xstrdup(obj) : base_of(src, ".o");
                        sv_add(&cmd, "-MT");
                        sv_add(&cmd, t);
                        free(t);
                    }
                    if (depfile) dest = cc_xstrdup(depfile);
                    else if (deps_only) dest = cc_xstrdup("-");
                    else if (compile_only) {
                        char *dot = strrchr(obj, '.'), *slash = strrchr(obj, '/');
                        size_t keep = dot && (!slash || dot > slash) ? (size_t)(dot - obj) : strlen(obj);
                        dest = cc_fmt("%.*s.d", (int)keep, obj);
                    } else dest = base_of(src, ".d");
                }
                if (deps_only) {
                    sv_add(&cmd, cname);
                } else {
                    sv_add(&cmd, "-c");
                    sv_add(&cmd, cname);
                    sv_add(&cmd, "-o");
                    sv_add(&cmd, cobj);
                }
                if (run(&cmd)) status = 1;
                if (!status && tmpdep && verbose != 2 && rewrite_depfile(tmpdep, cname, src, dest)) status = 1;
                free(tmpdep);
                free(dest);
                if (deps_only) with_cuda = 0;
                sv_free(&cmd);
                if (!status && with_cuda) {
                    cuobj = cc_fmt("%s/%s.cu.o", tmpdir, b);
                    const char *nf = getenv("TAMMCC_NVCC_FLAGS"); /* space-separated; default: nvcc's own */
                    if (emu) {
                        /* the host C++ compiler: the .cu includes tamm_cuda_emu.h instead of the CUDA runtime */
                        const char *cxx = getenv("TAMMCC_CXX");
                        sv_add(&cmd, cxx && *cxx ? cxx : "c++");
                        sv_add(&cmd, "-x");
                        sv_add(&cmd, "c++");
                        sv_add(&cmd, "-std=c++17");
                        sv_add(&cmd, "-pthread");
                        for (int k = 0; k < cflags.n; k++)
                            if (!strncmp(cflags.v[k], "-fsanitize", 10) || !strcmp(cflags.v[k], "-g")) sv_add(&cmd, cflags.v[k]);
                        if (TAMMCC_SANITIZE[0] && !installed) sv_add(&cmd, TAMMCC_SANITIZE);
                        nf = getenv("TAMMCC_CXX_FLAGS");
                    } else {
                        sv_add(&cmd, nvcc);
                        if (!cc_cuda_arch_given(nf)) { /* the GPUs here, else V100 to H100 and PTX (nvcc_arch.h) */
                            char **af = cc_cuda_arch_flags(nvcc);
                            if (!af) status = 1;
                            for (int k = 0; af && af[k]; k++) { sv_add(&cmd, af[k]); free(af[k]); }
                            free(af);
                        }
                    }
                    if (nf && *nf) {
                        char *fl = cc_xstrdup(nf), *sp = NULL;
                        for (char *w = strtok_r(fl, " ", &sp); w; w = strtok_r(NULL, " ", &sp)) sv_add(&cmd, w);
                        free(fl);
                    }
                    sv_add(&cmd, "-I");
                    sv_add(&cmd, srcdir);
                    for (int k = 0; k < cflags.n; k++)
                        if (!strncmp(cflags.v[k], "-I", 2) || !strncmp(cflags.v[k], "-D", 2) || !strncmp(cflags.v[k], "-O", 2))
                            sv_add(&cmd, cflags.v[k]);
                    sv_add(&cmd, "-I");
                    sv_add(&cmd, incdir);
                    sv_add(&cmd, "-c");
                    sv_add(&cmd, cuname);
                    sv_add(&cmd, "-o");
                    sv_add(&cmd, cuobj);
                    if (!status && run(&cmd)) status = 1;
                    sv_free(&cmd);
                    if (!status) { /* one object: the C and the CUDA variants */
                        sv_add(&cmd, "ld");
                        sv_add(&cmd, "-r");
                        sv_add(&cmd, "-o");
                        sv_add(&cmd, obj);
                        sv_add(&cmd, cobj);
                        sv_add(&cmd, cuobj);
                        if (run(&cmd)) status = 1;
                        sv_free(&cmd);
                    }
                }
                if (with_cuda && !emu) sv_add(&linkflags, "-lcudart");
                if (with_cuda) sv_add(&linkflags, "-lstdc++");
                sv_add(&link_objs, obj);
                free(obj);
                free(cobj);
                free(srcdir);
                free(cuobj);
                free(b);
            }
        }
        cc_result_free(&r);
        free(cname);
        free(cuname);
    }
    if (!status && !compile_only && !gen_only && !emit && !explain && !deps_only) {
        strv cmd = { 0 };
        sv_add(&cmd, cc);
        sv_addv(&cmd, &cflags);
        if (TAMMCC_SANITIZE[0] && !installed) sv_add(&cmd, TAMMCC_SANITIZE);
        sv_addv(&cmd, &link_objs);
        sv_addv(&cmd, &objects);
        sv_add(&cmd, "-o");
        sv_add(&cmd, out ? out : "a.out");
        char lib[PATH_MAX + 32];
        snprintf(lib, sizeof lib, "%s/libtammrt.a", libdir);
        if (exists(lib)) sv_add(&cmd, lib);
        else {
            snprintf(lib, sizeof lib, "-L%s", libdir);
            sv_add(&cmd, lib);
            sv_add(&cmd, "-ltammrt");
        }
        int cuda = 0;
        for (int k = 0; k < linkflags.n; k++) {
            if (!strcmp(linkflags.v[k], "-lcudart")) { if (cuda++) continue; sv_add(&cmd, "-L/usr/local/cuda/lib64"); sv_add(&cmd, "-Wl,-rpath,/usr/local/cuda/lib64"); }
            sv_add(&cmd, linkflags.v[k]);
        }
        sv_add(&cmd, "-lpthread");
        sv_add(&cmd, "-lm");
        { /* libtammrt's own dependencies (MPI, libdl), so that any TAMMCC_CC links */
            char *deps = cc_xstrdup(TAMMCC_RT_LIBS), *sp = NULL;
            for (char *w = strtok_r(deps, " ", &sp); w; w = strtok_r(NULL, " ", &sp)) sv_add(&cmd, w);
            free(deps);
        }
        if (run(&cmd)) status = 1;
        sv_free(&cmd);
    }
    /* the scratch directory goes at exit (remove_tmpdir), also with -### */
    if (getenv("TAMMCC_KEEP")) fprintf(stderr, "tammcc: kept %s\n", tmpdir);
    sv_free(&cflags); sv_free(&clangflags); sv_free(&linkflags); sv_free(&sources); sv_free(&objects); sv_free(&link_objs);
    sv_free(&depflags); sv_free(&deptargets);
    return status || cc_error_count() ? 1 : 0;
}
