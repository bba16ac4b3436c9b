/*
 * cuda_variant.c — a task body that calls a function declared with
 * TAMM_CUDA_VARIANT(axpy_tile_cuda): the CUDA variant of the task calls
 * axpy_tile_cuda with the task's buffers.  Here axpy_tile_cuda is a host
 * function defined in this file that queues its work on the emulated device's
 * stream (a real one would launch a kernel on tamm_cuda_stream()); without a
 * GPU the runtime runs the CPU variant, and the output equals the plain C build's.
 */
#include <tamm.h>

#include <stdio.h>

#define N 40
#define NB 16

void axpy_tile_cuda(const double *x, double *y, size_t n, double alpha);

TAMM_CUDA_VARIANT(axpy_tile_cuda)
static void axpy_tile(const double *x, double *y, size_t n, double alpha)
{
    for (size_t i = 0; i < n; i++) y[i] = alpha * x[i] + y[i];
}

/* The device work of the variant, in the order of the task's stream: on the emulated device
 * (TAMM_CUDA_EMU) tamm_emu_launch queues it on the stream, after the copies of x and y in and
 * before the copy of y out, as a kernel launch would; a real variant launches a kernel on
 * tamm_cuda_stream() instead. */
struct axpy_job { const double *x; double *y; size_t n; double alpha; };
static void axpy_job_run(void *p)
{
    const struct axpy_job *j = p;
    axpy_tile(j->x, j->y, j->n, j->alpha);
}

void axpy_tile_cuda(const double *x, double *y, size_t n, double alpha)
{   /* x and y are device memory: work not queued is the task's error, never a loop on the host */
    struct axpy_job j = { x, y, n, alpha };
    if (tamm_emu_launch(tamm_cuda_stream(), axpy_job_run, &j, sizeof j) != TAMM_OK)
        tamm_task_error(tamm_current_ctx(), TAMM_EDEVICE, "axpy_tile_cuda: the device work could not be queued");
}

static void fill(double *x, size_t n, long b, double scale);

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK) return 1;
    size_t dims[1] = {N}, tile[1] = {NB};
    tamm_tensor *X = tamm_tensor_create("X", TAMM_F64, 1, dims, tile);
    tamm_tensor *Y = tamm_tensor_create("Y", TAMM_F64, 1, dims, tile);
    long nt = tamm_tensor_nblocks(X, 0);
    for (long b = 0; b < nt; b++) {
        size_t n = tamm_block_extent(X, 0, b);
        #pragma tamm task device(cpu) /* fill() would get a kernel: here only axpy_tile's variant runs on GPUs */
        fill(tamm_block(X, b), n, b, 1.0);
        #pragma tamm task device(cpu)
        fill(tamm_block(Y, b), n, b, -0.5);
    }
    for (int rep = 1; rep <= 3; rep++)
        for (long b = 0; b < nt; b++) {
            size_t n = tamm_block_extent(X, 0, b);
            #pragma tamm task
            axpy_tile(tamm_block(X, b), tamm_block(Y, b), n, 0.25 * rep);
        }
    #pragma tamm taskwait
    double s = 0;
    for (long b = 0; b < nt; b++) {
        const double *y = tamm_block(Y, b);
        for (size_t i = 0; i < tamm_block_extent(Y, 0, b); i++) s += y[i] * (double)(i + 1);
    }
    printf("cuda_variant: %.6f\n", s);
    tamm_tensor_destroy(X);
    tamm_tensor_destroy(Y);
    return tamm_finalize() == TAMM_OK ? 0 : 1;
}

static void fill(double *x, size_t n, long b, double scale)
{
    for (size_t i = 0; i < n; i++) x[i] = scale * (double)(b * NB + (long)i);
}
