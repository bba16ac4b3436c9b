/*
 * xfer.h — transfers between memory units: the non-blocking Get, Put and
 * AccAll of the execution FSM (docs/runtime.md "Block states").  A transfer
 * is started and completes later through its callback; on one host today
 * that happens before xfer_start returns (a memcpy, or nothing when both sides
 * are the same memory), and GPU and MPI units complete them from their
 * progress engines.
 */
#ifndef TAMM_XFER_H
#define TAMM_XFER_H

#include <tamm.h>
#include <stddef.h>

typedef enum { TAMM_XK_GET, TAMM_XK_PUT, TAMM_XK_ACCALL, TAMM_XK_COPY } tamm__xfer_kind;

typedef struct tamm__xfer {
    tamm__xfer_kind kind;
    int src_unit, dst_unit;      /* 0: host */
    void *dst;
    const void *src;
    size_t bytes;
    tamm_dtype dtype;            /* for ACCALL: element-wise sum */
    void (*done)(struct tamm__xfer *x, void *arg);
    void *arg;
} tamm__xfer;

/** Start x; x->done (if any) runs when the data has arrived. */
void tamm__xfer_start(tamm__xfer *x);
/** Convenience: a synchronous host copy or sum (counts bytes moved). */
void tamm__xfer_host(tamm__xfer_kind kind, void *dst, const void *src, size_t bytes, tamm_dtype dt);

#endif
