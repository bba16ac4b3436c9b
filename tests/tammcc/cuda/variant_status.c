/*
 * variant_status.c — CUDA variants that report a status (docs/language.md "Variants"):
 * scale_tile_cuda returns an int, and a nonzero value makes the task fail with TAMM_EDEVICE,
 * naming the variant and the task; shift_tile_cuda returns nothing, as before.  The variants
 * are host functions queueing work on the emulated device's stream (a real one would launch a
 * kernel on tamm_cuda_stream()).  VARIANT_FAIL=b makes scale_tile_cuda refuse block b (variant_status.sh).
 */
#include <tamm.h>

#include <stdio.h>
#include <stdlib.h>

#define N 64
#define NB 16

int scale_tile_cuda(double *x, size_t n, double a, long b);
void shift_tile_cuda(double *x, size_t n, double d);

TAMM_CUDA_VARIANT(scale_tile_cuda)
static void scale_tile(double *x, size_t n, double a, long b)
{
    (void)b;
    for (size_t i = 0; i < n; i++) x[i] *= a;
}

TAMM_CUDA_VARIANT(shift_tile_cuda)
static void shift_tile(double *x, size_t n, double d)
{
    for (size_t i = 0; i < n; i++) x[i] += d;
}

/* the device work, in stream order on the emulated device */
struct job { double *x; size_t n; double v; int scale; };
static void job_run(void *p)
{
    const struct job *j = p;
    if (j->scale) scale_tile(j->x, j->n, j->v, 0);
    else shift_tile(j->x, j->n, j->v);
}

/* 0 on success; 3 (nothing queued) for the block VARIANT_FAIL names */
int scale_tile_cuda(double *x, size_t n, double a, long b)
{
    const char *f = getenv("VARIANT_FAIL");
    if (f && *f && atol(f) == b) return 3;
    struct job j = { x, n, a, 1 };
    return tamm_emu_launch(tamm_cuda_stream(), job_run, &j, sizeof j) == TAMM_OK ? 0 : 1;
}

void shift_tile_cuda(double *x, size_t n, double d)
{
    struct job j = { x, n, d, 0 };
    if (tamm_emu_launch(tamm_cuda_stream(), job_run, &j, sizeof j) != TAMM_OK) /* x is device memory: never the host */
        tamm_task_error(tamm_current_ctx(), TAMM_EDEVICE, "shift_tile_cuda: the device work could not be queued");
}

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK) return 1;
    size_t dims[1] = {N}, tile[1] = {NB};
    tamm_tensor *X = tamm_tensor_create("X", TAMM_F64, 1, dims, tile);
    long nt = tamm_tensor_nblocks(X, 0);
    for (long b = 0; b < nt; b++) {
        #pragma tamm task device(cpu)
        {
            double *x = tamm_block(X, b);
            for (int e = 0; e < NB; e++) x[e] = (double)(b * NB + e);
        }
        #pragma tamm task device(cuda)
        scale_tile(tamm_block(X, b), NB, 2.0, b);
        #pragma tamm task device(cuda)
        shift_tile(tamm_block(X, b), NB, 0.5);
    }
    #pragma tamm taskwait
    double s = 0;
    for (long b = 0; b < nt; b++) {
        const double *x = tamm_block(X, b);
        for (int e = 0; e < NB; e++) s += x[e] * (double)(e + 1);
    }
    printf("variant_status: %.3f\n", s);
    tamm_tensor_destroy(X);
    return tamm_finalize() == TAMM_OK ? 0 : 1;
}
