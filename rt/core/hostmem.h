/*
 * hostmem.h — host memory for block homes when no GPU pins them: large blocks
 * come from their own mapping, aligned to 2 MiB and backed by transparent huge
 * pages (docs/runtime.md "Block memory").
 */
#ifndef TAMM_HOSTMEM_H
#define TAMM_HOSTMEM_H

#include <stddef.h>

/** Blocks of at least this many bytes get their own 2 MiB-aligned mapping. */
#define TAMM_HOSTMEM_LARGE ((size_t)2 << 20)

/** Zero-filled memory for a block of bytes (never NULL: out of memory is fatal,
 *  tamm__fatal_oom).  A large block is mapped on its own, aligned to 2 MiB, and
 *  advised to use transparent huge pages unless `huge` is 0. */
void *tamm__hostmem_alloc(size_t bytes, int huge);
/** Free what tamm__hostmem_alloc(bytes, ...) returned. */
void tamm__hostmem_free(void *p, size_t bytes);

/** Home memory for a block (zero-filled), counted in the memory statistics:
 *  tamm__hostmem_alloc, or what the installed pinning hook gives.  The host
 *  memory unit's Allocate / Dealloc of a home. */
void *tamm__home_alloc(size_t bytes);
void tamm__home_free(void *p, size_t bytes);

/** Where homes come from while another memory unit copies them (the GPU
 *  layer's pinned pool): alloc returns zero-filled memory of bytes and counts
 *  it in the memory statistics, free gives back what alloc returned (bytes:
 *  the size asked).  raw_alloc / raw_free are the same memory for the host
 *  memory limit (spill.c), which counts, zero-fills and reuses it itself:
 *  contents undefined, not counted, never kept in a pool.  Installed with
 *  tamm__home_pin_install before the first tensor exists and removed (NULL)
 *  after the last is freed. */
typedef struct tamm__home_ops {
    void *(*alloc)(size_t bytes);
    void (*free)(void *p, size_t bytes);
    void *(*raw_alloc)(size_t bytes);
    void (*raw_free)(void *p, size_t bytes);
} tamm__home_ops;
void tamm__home_pin_install(const tamm__home_ops *ops);
/** The installed pinning hook, or NULL. */
const tamm__home_ops *tamm__home_pin_ops(void);

#endif
