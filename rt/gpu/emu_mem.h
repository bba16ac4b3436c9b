/*
 * emu_mem.h — the memory of the emulated device (TAMM_CUDA_EMU, devops_emu.c):
 * what makes it fail where a GPU fails.
 *
 * Each emulated GPU owns one address range (a PROT_NONE reservation), carved
 * into page-aligned allocations, each behind a guard page and ending near the
 * end of its pages (an overrun reaches the next guard).  The pages of an
 * allocation are readable and writable only while a device operation that
 * uses it runs (a copy, a memset, a kernel given a pointer into it): the host,
 * and device code that was not given the allocation, fault on it.  The fault
 * handler (SIGSEGV) recognises the range and says what happened before the
 * process ends as a GPU program would (the sanitizers' handlers, or the
 * default action, after it):
 *   tamm: error: host code accessed emulated device memory at 0x... (device 0
 *   allocation of 128 bytes at 0x..., offset 8) ...
 * Pinned host memory (cudaHostAlloc) is registered here: copies from and to it
 * stay asynchronous, and a kernel may be given it (as with CUDA's unified
 * addressing); any other host memory is pageable.
 *
 * Compiled into libtammrt and, through #include, into the stand-in CUDA
 * runtime (tests/rt/gpu/cudart_emu), each with its own state.
 */
#ifndef TAMM_EMU_MEM_H
#define TAMM_EMU_MEM_H

#include <stddef.h>
#include <stdint.h>

/** An allocation a device operation uses: p points into it, id names it (a freed allocation's
 *  range may be given to a later one, with another id). */
typedef struct tamm__emu_ref {
    const void *p;
    uint64_t id;
} tamm__emu_ref;

/** What [p, p + n) is (tamm__emu_mem_where). */
enum { TAMM_EMU_HOSTMEM, TAMM_EMU_PINNED, TAMM_EMU_DEVMEM, TAMM_EMU_BADDEV };

/** Reserve the ranges of ndev devices for capacity bytes each and install the fault handler
 *  (once; later calls do nothing).  0, or -1 when the address space cannot be reserved. */
int tamm__emu_mem_init(int ndev, size_t capacity);
/** n bytes (n > 0) of device dev, filled with garbage (0xA5), inaccessible outside device
 *  operations; *id names it.  NULL when the device's range has no room left or its pages
 *  cannot be mapped; why (nwhy bytes) then says which. */
void *tamm__emu_mem_alloc(int dev, size_t n, uint64_t *id, char *why, size_t nwhy);
/** Where [p, p + n) is (n = 0: the byte at p; kernel pointer arguments may also point one past
 *  the end of an allocation).  TAMM_EMU_DEVMEM: inside one live allocation, of device *dev,
 *  *ref names it (ref may be NULL); TAMM_EMU_BADDEV: in a device's range but not inside a live
 *  allocation (freed, never allocated, or past its end), why says which; otherwise host memory,
 *  pinned (registered) or not. */
int tamm__emu_mem_where(const void *p, size_t n, int *dev, tamm__emu_ref *ref, char *why, size_t nwhy);
/** The call that frees p (cudaFreeAsync): 0 if p is the start of a live allocation not already
 *  being freed (*dev, *n: its device and size), -1 otherwise (why says what p is). */
int tamm__emu_mem_free_begin(const void *p, int *dev, size_t *n, char *why, size_t nwhy);
/** The free reaches its stream: the pages go back.  0, or -1 when a device operation still uses
 *  the allocation (a missing stream ordering; then the pages go back when it ends). */
int tamm__emu_mem_release(const void *p);
/** A device operation starts using r's allocation (its pages become accessible) / stops.
 *  open returns -1 when the allocation was freed meanwhile (why: a use after free). */
int tamm__emu_mem_open(const tamm__emu_ref *r, char *why, size_t nwhy);
void tamm__emu_mem_close(const tamm__emu_ref *r);
/** Pinned host memory [p, p + n) (cudaHostAlloc) / its release. */
void tamm__emu_mem_pin(const void *p, size_t n);
void tamm__emu_mem_unpin(const void *p);
/** Device allocations not yet released. */
long tamm__emu_mem_live(void);

/** The calling thread runs device code of device dev (who: what, for the fault report; its
 *  storage outlives the mark), or host code again (dev < 0). */
typedef struct tamm__emu_mark {
    int dev;
    const char *who;
} tamm__emu_mark;
void tamm__emu_mem_mark(const tamm__emu_mark *m);
const tamm__emu_mark *tamm__emu_mem_marked(void);
/** Writes what the calling host thread runs (a task: "task 'L' (file:line)") for the fault
 *  report, or nothing; set by whoever knows (libtammrt), NULL otherwise. */
extern void (*tamm__emu_mem_host_who)(char *buf, size_t n);

#endif
