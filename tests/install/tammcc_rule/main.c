/* main.c — the program tests/install/tammcc_rule_test.sh builds from outside the
 * tree with an installed tamm: by CMake (find_package(tamm), tamm_add_executable)
 * and by plain cc after `tammcc -c` (pkg-config --static --libs tamm).  Its task
 * is a loop nest over a block, so tammcc also gives it a CUDA variant where
 * nvcc is found; it runs on the CPUs without a GPU. */
#include <tamm.h>
#include <stdio.h>
#include "scale.h"

#define SCALE 3 /* here, not in scale.h: the generated .cu copies only the source file's own #defines */

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK) return 1;
    size_t d[1] = { 8 }, t[1] = { 4 };
    tamm_tensor *A = tamm_tensor_create("A", TAMM_F64, 1, d, t);
    for (long i = 0; i < NBLK; i++) {
#pragma tamm task label("fill")
        {
            double *a = tamm_block(A, i);
            for (int e = 0; e < 4; e++) a[e] = SCALE * (double)(4 * i + e);
        }
    }
#pragma tamm taskwait
    double s = 0;
    for (long i = 0; i < NBLK; i++) {
        const double *a = tamm_block(A, i);
        for (int e = 0; e < 4; e++) s += a[e];
    }
    printf("tammcc_rule: sum %g\n", s); /* SCALE * (0 + ... + 7) = 84 */
    tamm_tensor_destroy(A);
    return tamm_finalize() == TAMM_OK ? 0 : 1;
}
