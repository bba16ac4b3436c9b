/* xfer.c — transfers between memory units (see xfer.h). */
#include "xfer.h"
#include "runtime.h"
#include "tensor.h"
#include <string.h>

void tamm__xfer_start(tamm__xfer *x)
{
    if (x->dst != x->src && x->bytes) {
        if (x->kind == TAMM_XK_ACCALL) {
            tamm__accumulate(x->dtype, x->dst, x->src, x->bytes / tamm__dtype_size(x->dtype));
        } else {
            memcpy(x->dst, x->src, x->bytes);
        }
        atomic_fetch_add_explicit(&tamm__rt.bytes_h2h, x->bytes, memory_order_relaxed);
    }
    if (x->done) x->done(x, x->arg);
}

void tamm__xfer_host(tamm__xfer_kind kind, void *dst, const void *src, size_t bytes, tamm_dtype dt)
{
    tamm__xfer x = { kind, 0, 0, dst, src, bytes, dt, NULL, NULL };
    tamm__xfer_start(&x);
}
