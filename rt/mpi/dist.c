/* dist.c — block owners over a process grid, and per-block flow state (see dist.h). */
#include "dist.h"
#include "error.h"
#include "mpi_flow.h"
#include "runtime.h"
#include "mpi_comm.h"
#include <string.h>

static void auto_grid(int ndim, int P, int *g)
{
    for (int d = 0; d < TAMM_MAX_DIMS; d++) g[d] = 1;
    if (ndim == 1) { g[0] = P; return; }
    int pr = 1;
    for (int k = 1; k * k <= P; k++)
        if (P % k == 0) pr = k;
    g[0] = pr;
    g[1] = P / pr;
}

int tamm__dist_tensor_init(tamm_tensor *T)
{
    int P = tamm__comm_size(), me = tamm__comm_rank();
    const tamm_tensor_opts *o = &T->opts;
    int g[TAMM_MAX_DIMS];
    int any = 0;
    for (int d = 0; d < T->ndim; d++) {
        if (o->grid[d] < 0) {
            return tamm__error(NULL, TAMM_EINVAL, "tensor '%s': grid[%d] is %d (grid sizes are positive, or all 0 "
                               "for the automatic grid)", T->name, d, o->grid[d]);
        }
        if (o->grid[d] > 0) any = 1;
    }
    if (any) {
        for (int d = 0; d < T->ndim; d++) {
            if (o->grid[d] < 1)
                return tamm__error(NULL, TAMM_EINVAL, "tensor '%s': grid[%d] is 0 but other grid sizes are given "
                                   "(give all %d, or none)", T->name, d, T->ndim);
            g[d] = o->grid[d];
        }
    } else {
        auto_grid(T->ndim, P, g);
    }
    long idx[TAMM_MAX_DIMS];
    for (long b = 0; b < T->nblk; b++) {
        int owner = 0;
        if (o->dist == TAMM_DIST_LOCAL) {
            owner = o->owner;
        } else if (o->dist == TAMM_DIST_BLOCK_CYCLIC && P > 1) {
            tamm__block_idx(T, b, idx);
            long r = 0;
            for (int d = 0; d < T->ndim; d++) r = r * g[d] + idx[d] % g[d];
            owner = (int)(r % P);
        }
        T->blocks[b].owner = owner;
    }
    if (!tamm__flow_on) return TAMM_OK;
    tamm__dist_tensor *D = tamm__xcalloc(1, sizeof *D);
    memcpy(D->grid, g, sizeof g);
    D->replicated = o->dist == TAMM_DIST_REPLICATED;
    D->words = (P + 63) / 64;
    size_t n = (size_t)T->nblk * (size_t)D->words;
    D->holders = tamm__xcalloc(n, sizeof *D->holders);
    D->contrib = tamm__xcalloc(n, sizeof *D->contrib);
    D->st = tamm__xcalloc((size_t)T->nblk, 1);
    if (D->replicated) D->src = tamm__xcalloc((size_t)T->nblk, sizeof *D->src); /* rank 0: a holder */
    for (long b = 0; b < T->nblk; b++) {
        uint64_t *h = tamm__dist_set(D->holders, D, b);
        if (D->replicated)
            for (int r = 0; r < P; r++) tamm__rs_add(h, r);
        else
            tamm__rs_add(h, T->blocks[b].owner);
    }
    (void)me;
    T->dist = D;
    tamm__flow_tensor_created(T);
    return TAMM_OK;
}

void tamm__dist_tensor_free(tamm_tensor *T)
{
    tamm__dist_tensor *D = T->dist;
    if (!D) return;
    free(D->holders);
    free(D->contrib);
    free(D->st);
    free(D->src);
    free(D->ce);
    free(D);
    T->dist = NULL;
}

const tamm__tensor_hooks tamm__dist_hooks = { tamm__dist_tensor_init, tamm__dist_tensor_free };
