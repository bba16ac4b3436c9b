/*
 * cpu_only.c — a task marked device(cpu): it gets no CUDA variant, and
 * `tammcc --explain` says so.  The other task (a simple loop nest) gets one.
 */
#include <tamm.h>

#include <stdio.h>

#define N 32
#define NB 8

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK) return 1;
    size_t dims[1] = {N}, tile[1] = {NB};
    tamm_tensor *V = tamm_tensor_create("V", TAMM_I32, 1, dims, tile);
    for (long b = 0; b < N / NB; b++) {
        #pragma tamm task device(cpu) label("fill_cpu")
        {
            int *v = tamm_block(V, b);
            for (int i = 0; i < NB; i++) v[i] = (int)(b * NB + i);
        }
        #pragma tamm task label("square")
        {
            int *v = tamm_block(V, b);
            for (int i = 0; i < NB; i++) v[i] = v[i] * v[i] + 1;
        }
    }
    #pragma tamm taskwait
    long s = 0;
    for (long b = 0; b < N / NB; b++) {
        const int *v = tamm_block(V, b);
        for (int i = 0; i < NB; i++) s += (long)v[i] * (i + 1);
    }
    printf("cpu_only: %ld\n", s);
    tamm_tensor_destroy(V);
    return tamm_finalize() == TAMM_OK ? 0 : 1;
}
