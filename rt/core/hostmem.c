/*
 * hostmem.c — host memory for block homes (hostmem.h).
 *
 * A tile kernel reads its blocks row by row: an 8 MiB block of 1024 × 1024
 * doubles touches 2,048 small pages, and BLAS packing walks down its columns,
 * one TLB miss per row.  Blocks of 2 MiB and more therefore get a mapping of
 * their own whose start is 2 MiB-aligned and which is advised MADV_HUGEPAGE,
 * so that every whole 2 MiB of the block is one huge page (the kernel's THP
 * mode "madvise", Debian's default, gives huge pages only where asked).  The
 * tail past the last whole 2 MiB keeps small pages: nothing is rounded up, the
 * resident size is the block's size.  Smaller blocks come from calloc.
 */
#include "hostmem.h"
#include "pool.h"
#include "runtime.h"
#include "util.h"
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define HUGE_ALIGN TAMM_HOSTMEM_LARGE

static size_t page_round(size_t n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE); /* not cached: homes are allocated on any thread */
    return (n + page - 1) / page * page;
}

void *tamm__hostmem_alloc(size_t bytes, int huge)
{
    if (bytes < TAMM_HOSTMEM_LARGE) return tamm__xcalloc(1, bytes);
    size_t len = page_round(bytes);
    /* Map HUGE_ALIGN more, then unmap the unaligned head and the excess tail. */
    char *m = mmap(NULL, len + HUGE_ALIGN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) tamm__fatal_oom(bytes);
    char *p = (char *)(((uintptr_t)m + HUGE_ALIGN - 1) & ~(uintptr_t)(HUGE_ALIGN - 1));
    if (p > m) munmap(m, (size_t)(p - m));
    size_t tail = (size_t)(m + len + HUGE_ALIGN - (p + len));
    if (tail) munmap(p + len, tail);
#ifdef MADV_HUGEPAGE
    if (huge) (void)madvise(p, len, MADV_HUGEPAGE); /* advice: refused where THP is off */
#else
    (void)huge;
#endif
    return p; /* anonymous mappings are zero-filled */
}

void tamm__hostmem_free(void *p, size_t bytes)
{
    if (!p) return;
    if (bytes < TAMM_HOSTMEM_LARGE) free(p);
    else munmap(p, page_round(bytes));
}

/* ---- block homes ------------------------------------------------------ */
static const tamm__home_ops *home_pin; /* NULL: plain host memory */

void tamm__home_pin_install(const tamm__home_ops *ops) { home_pin = ops; }
const tamm__home_ops *tamm__home_pin_ops(void) { return home_pin; }

void *tamm__home_alloc(size_t bytes)
{
    if (home_pin) return home_pin->alloc(bytes); /* counted there */
    tamm__mem_add(bytes);
    return tamm__hostmem_alloc(bytes, tamm__rt.cfg.hugepages);
}

void tamm__home_free(void *p, size_t bytes)
{
    if (!p) return;
    if (home_pin) {
        home_pin->free(p, bytes);
        return;
    }
    tamm__mem_sub(bytes);
    tamm__hostmem_free(p, bytes);
}
