/* buildsys_main.c — the program makefile_rebuild.sh and cmake_project.sh build:
 * it prints SCALE from the header next to it, so a rebuild after the header
 * changes shows in its output. */
#include <tamm.h>
#include <stdio.h>
#include "kern.h"
int main(int argc, char **argv)
{
    tamm_init(&argc, &argv);
    size_t d[1] = { 4 }, t[1] = { 2 };
    tamm_tensor *A = tamm_tensor_create("A", TAMM_F64, 1, d, t);
#pragma tamm task
    { double *a = tamm_block(A, 0); a[0] = SCALE; a[1] = SCALE; }
#pragma tamm taskwait
    printf("value %g\n", ((const double *)tamm_block(A, 0))[0]);
    tamm_tensor_destroy(A);
    return tamm_finalize();
}
