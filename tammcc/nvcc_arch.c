/*
 * nvcc_arch.c — the GPU architectures of nvcc's compilations (nvcc_arch.h).
 */
#include "nvcc_arch.h"
#include "text.h"
#include "xalloc.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const default_archs[] = { "70", "75", "80", "86", "89", "90", NULL }; /* V100 ... H100 */
#define DEFAULT_PTX "90"

/* one item of TAMMCC_CUDA_ARCH: native, sm_XX[a], compute_XX[a], or XX[a]; its number and kind */
static int parse_item(const char *s, size_t n, char *num, size_t numsz, int *ptx)
{
    *ptx = 0;
    if (n >= 3 && !strncmp(s, "sm_", 3)) { s += 3; n -= 3; }
    else if (n >= 8 && !strncmp(s, "compute_", 8)) { s += 8; n -= 8; *ptx = 1; }
    size_t d = 0;
    while (d < n && isdigit((unsigned char)s[d])) d++;
    if (d < 2 || d > 3 || (n != d && !(n == d + 1 && (s[d] == 'a' || s[d] == 'f'))) || n + 1 > numsz) return -1;
    memcpy(num, s, n);
    num[n] = 0;
    return 0;
}

static int arch_error(const char *v)
{
    fprintf(stderr, "tammcc: error: TAMMCC_CUDA_ARCH: invalid value '%s' (expected native, sm_XX, compute_XX or XX, "
                    "or a comma-separated list of them, e.g. sm_80,sm_90)\n", v);
    return -1;
}

int cc_cuda_arch_check(void)
{
    const char *v = getenv("TAMMCC_CUDA_ARCH");
    if (!v) return 0;
    if (!strcmp(v, "native")) return 0;
    if (!*v) return arch_error(v);
    for (const char *s = v;;) {
        const char *e = strchr(s, ',');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        char num[8];
        int ptx;
        if (parse_item(s, n, num, sizeof num, &ptx)) return arch_error(v);
        if (!e) return 0;
        s = e + 1;
    }
}

static void add(char ***v, int *n, size_t *cap, char *s)
{
    *v = cc_grow(*v, cap, (size_t)*n + 2, sizeof **v);
    (*v)[(*n)++] = s;
    (*v)[*n] = NULL;
}

static char *fmt(const char *f, const char *a, const char *b)
{
    return cc_fmt(f, a, b);
}

/* the output of cmd (stderr discarded), or NULL when it fails */
static char *output_of(const char *cmd)
{
    FILE *p = popen(cmd, "r");
    if (!p) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = cc_xmalloc(cap);
    size_t k;
    while ((k = fread(buf + n, 1, cap - n - 1, p)) > 0) {
        n += k;
        if (n + 1 == cap) CC_GROW(buf, cap, cap + 1);
    }
    buf[n] = 0;
    if (pclose(p) != 0) { free(buf); return NULL; }
    return buf;
}

/* a GPU is present: nvidia-smi lists one */
static int gpu_present(void)
{
    static int known = -1;
    if (known < 0) {
        char *o = output_of("nvidia-smi -L 2>/dev/null");
        known = o && strstr(o, "GPU ") != NULL;
        free(o);
    }
    return known;
}

char **cc_cuda_arch_flags(const char *nvcc)
{
    char **v = NULL;
    int n = 0;
    size_t cap = 0;
    const char *env = getenv("TAMMCC_CUDA_ARCH");
    if (cc_cuda_arch_check()) return NULL;
    if ((env && !strcmp(env, "native")) || (!env && gpu_present())) {
        add(&v, &n, &cap, cc_xstrdup("-arch=native"));
        return v;
    }
    if (env) {
        int items = 1;
        for (const char *s = env; *s; s++) items += *s == ',';
        for (const char *s = env;;) {
            const char *e = strchr(s, ',');
            size_t len = e ? (size_t)(e - s) : strlen(s);
            char num[8];
            int ptx;
            parse_item(s, len, num, sizeof num, &ptx);
            if (items == 1 && !ptx) add(&v, &n, &cap, fmt("-arch=sm_%s%s", num, "")); /* real code and its PTX */
            else add(&v, &n, &cap, fmt(ptx ? "-gencode=arch=compute_%s,code=compute_%s" : "-gencode=arch=compute_%s,code=sm_%s", num, num));
            if (!e) break;
            s = e + 1;
        }
        return v;
    }
    /* no GPU here: V100 to H100, those this nvcc can compile for (CUDA 13 has no sm_70) */
    char *cmd = fmt("'%s' --list-gpu-arch 2>/dev/null%s", nvcc, "");
    char *list = cmd ? output_of(cmd) : NULL;
    free(cmd);
    const char *ptx = NULL;
    for (int i = 0; default_archs[i]; i++) {
        char want[32];
        snprintf(want, sizeof want, "compute_%s", default_archs[i]);
        const char *hit = list ? strstr(list, want) : NULL;
        if (list && (!hit || isalnum((unsigned char)hit[strlen(want)]))) continue;
        add(&v, &n, &cap, fmt("-gencode=arch=compute_%s,code=sm_%s", default_archs[i], default_archs[i]));
        if (!strcmp(default_archs[i], DEFAULT_PTX)) ptx = DEFAULT_PTX;
    }
    free(list);
    if (ptx) add(&v, &n, &cap, fmt("-gencode=arch=compute_%s,code=compute_%s", ptx, ptx));
    return v;
}

int cc_cuda_arch_given(const char *flags)
{
    if (!flags) return 0;
    static const char *const opts[] = { "-arch", "--gpu-architecture", "-gencode", "--generate-code", "-code", "--gpu-code", NULL };
    for (const char *s = flags; *s;) {
        while (*s == ' ') s++;
        size_t n = strcspn(s, " ");
        for (int i = 0; opts[i]; i++) {
            size_t l = strlen(opts[i]);
            if (n >= l && !strncmp(s, opts[i], l) && (n == l || s[l] == '=')) return 1;
        }
        s += n;
    }
    return 0;
}
