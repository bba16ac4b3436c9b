/*
 * test_hostmem.c — block homes in host memory (rt/core/hostmem.c): blocks of 2 MiB
 * and more get their own mapping, 2 MiB-aligned, zero-filled, usable to their
 * last byte, backed by transparent huge pages unless TAMM_HUGEPAGES=0; smaller
 * blocks come from the heap.  Checked on the allocator itself and through a
 * tensor whose full tiles are large and whose edge tiles are not.
 *
 * Whether the kernel backs an advised mapping with huge pages depends on its
 * THP mode (/sys/kernel/mm/transparent_hugepage/enabled) and on free memory:
 * the huge-page assertions run where the mode is "madvise" or "always", and a
 * fault that fell back to small pages (thp_fault_fallback in /proc/vmstat) is
 * reported as skipped, not as a pass.
 */
#include "harness.h"
#include "tamm_util.h"
#include "hostmem.h"
#include <stdint.h>

#define MIB ((size_t)1 << 20)

/* The THP mode in brackets: "always", "madvise", "never", or "" if unknown. */
static const char *thp_mode(void)
{
    static char mode[16];
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    mode[0] = 0;
    if (!f) return mode;
    char line[128];
    if (fgets(line, sizeof line, f)) {
        char *a = strchr(line, '['), *b = a ? strchr(a, ']') : NULL;
        if (a && b && (size_t)(b - a - 1) < sizeof mode) { memcpy(mode, a + 1, (size_t)(b - a - 1)); mode[b - a - 1] = 0; }
    }
    fclose(f);
    return mode;
}

static long vmstat(const char *key)
{
    FILE *f = fopen("/proc/vmstat", "r");
    if (!f) return -1;
    char k[64];
    long v, r = -1;
    while (fscanf(f, "%63s %ld", k, &v) == 2)
        if (!strcmp(k, key)) { r = v; break; }
    fclose(f);
    return r;
}

/* AnonHugePages (kB) of the mapping that contains p, from /proc/self/smaps; -1 if not found. */
static long huge_kb_at(const void *p)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f) return -1;
    char line[256];
    int in = 0;
    long kb = -1;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) { /* a mapping's header line */
            in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
            continue;
        }
        if (in && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1) break;
    }
    fclose(f);
    return kb;
}

static int all_zero(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) if (p[i]) return 0;
    return 1;
}

/* The allocator: sizes around the 2 MiB threshold and a tail past whole pages. */
static void test_allocator(void)
{
    static const size_t sizes[] = { 0, 1, 4096, 2 * MIB - 8, 2 * MIB, 2 * MIB + 8, 3 * MIB + 100, 8 * MIB };
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        for (int huge = 0; huge <= 1; huge++) {
            size_t n = sizes[k];
            h_context("hostmem_alloc(%zu, %d)", n, huge);
            unsigned char *p = tamm__hostmem_alloc(n, huge);
            CHECK_NOTNULL(p);
            if (!p) continue;
            CHECK_MSG(all_zero(p, n), "zero-filled");
            if (n >= TAMM_HOSTMEM_LARGE)
                CHECK_MSG((uintptr_t)p % (2 * MIB) == 0, "a large block starts on a 2 MiB boundary (%p)", (void *)p);
            memset(p, 0xab, n); /* writable to the last byte */
            if (n) CHECK(p[0] == 0xab && p[n - 1] == 0xab);
            tamm__hostmem_free(p, n);
        }
    }
    tamm__hostmem_free(NULL, 8 * MIB); /* freeing NULL does nothing */
    h_context(NULL);
}

/* Huge pages where advised, none where not (in "madvise" mode). */
static void test_huge_pages(void)
{
    const char *mode = thp_mode();
    if (strcmp(mode, "madvise") && strcmp(mode, "always")) {
        printf("SKIP huge pages: THP mode is '%s'\n", mode);
        return;
    }
    long fb0 = vmstat("thp_fault_fallback");
    unsigned char *p = tamm__hostmem_alloc(8 * MIB, 1);
    memset(p, 1, 8 * MIB);
    long kb = huge_kb_at(p), fb1 = vmstat("thp_fault_fallback");
    if (kb <= 0 && fb1 > fb0)
        printf("SKIP huge pages: the kernel fell back to small pages (thp_fault_fallback %ld -> %ld)\n", fb0, fb1);
    else
        CHECK_MSG(kb >= 2048, "an 8 MiB block advised huge pages is backed by them (AnonHugePages %ld kB)", kb);
    tamm__hostmem_free(p, 8 * MIB);
    if (!strcmp(mode, "madvise")) {
        unsigned char *q = tamm__hostmem_alloc(8 * MIB, 0);
        memset(q, 1, 8 * MIB);
        long kq = huge_kb_at(q);
        CHECK_MSG(kq == 0, "without the advice (TAMM_HUGEPAGES=0) small pages (AnonHugePages %ld kB)", kq);
        tamm__hostmem_free(q, 8 * MIB);
    }
}

/* Through the runtime: a 1100 x 1030 tensor of 512 x 512 doubles (2 MiB tiles)
 * has large full tiles and small edge tiles; every home starts zero, large
 * ones on 2 MiB boundaries, and what tasks write is what is read back. */
typedef struct { tamm_tensor *T; long i, j; } blk_arg;

static void fill_blk(tamm_ctx *ctx, void *vp)
{
    blk_arg *a = vp;
    long idx[2] = { a->i, a->j };
    double *b = tamm_get_buf_readwrite(ctx, a->T, idx);
    CHECK_NOTNULL(b);
    if (!b) return;
    size_t n = tamm_block_elems(a->T, idx);
    CHECK_MSG(all_zero((const unsigned char *)b, n * sizeof *b), "block (%ld,%ld) starts zero", a->i, a->j);
    if (tamm_block_bytes(a->T, idx) >= TAMM_HOSTMEM_LARGE)
        CHECK_MSG((uintptr_t)b % (2 * MIB) == 0, "block (%ld,%ld) of %zu bytes on a 2 MiB boundary", a->i, a->j,
                  tamm_block_bytes(a->T, idx));
    for (size_t e = 0; e < n; e++) b[e] = (double)(a->i * 1000003 + a->j * 7919 + (long)e);
    CHECK_EQ_INT(tamm_release_put(ctx, b), TAMM_OK);
}

static int t_tensor(void *vp)
{
    (void)vp;
    tu_init();
    size_t dims[2] = { 1100, 1030 }, tile[2] = { 512, 512 };
    tamm_tensor *T = tamm_tensor_create("Big", TAMM_F64, 2, dims, tile);
    CHECK_NOTNULL(T);
    if (!T) return 1;
    blk_arg args[9];
    int k = 0;
    for (long i = 0; i < 3; i++)
        for (long j = 0; j < 3; j++, k++) {
            args[k] = (blk_arg){ T, i, j };
            CHECK_EQ_INT(TU_SUBMIT(NULL, fill_blk, &args[k], "fill", tu_ref2(T, TAMM_READWRITE, i, j)), TAMM_OK);
        }
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    for (long i = 0; i < 3; i++)
        for (long j = 0; j < 3; j++) {
            long idx[2] = { i, j };
            const double *b = tamm_block(T, i, j);
            size_t n = tamm_block_elems(T, idx), bad = 0;
            for (size_t e = 0; e < n; e++) bad += b[e] != (double)(i * 1000003 + j * 7919 + (long)e);
            CHECK_MSG(bad == 0, "block (%ld,%ld): %zu of %zu elements differ", i, j, bad, n);
        }
    CHECK_EQ_INT(tamm_tensor_destroy(T), TAMM_OK);
    TU_FINALIZE();
    return 0;
}

int main(void)
{
    test_allocator();
    test_huge_pages();
    const char *on[] = { "TAMM_NUM_WORKERS=2", NULL };
    const char *off[] = { "TAMM_NUM_WORKERS=2", "TAMM_HUGEPAGES=0", NULL };
    run_test_child("tensor_hugepages_on", t_tensor, NULL, on, 60);
    run_test_child("tensor_hugepages_off", t_tensor, NULL, off, 60);
    return test_summary();
}
