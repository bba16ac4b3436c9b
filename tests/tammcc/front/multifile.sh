#!/bin/sh
# multifile.sh TAMMCC DIR — a program of several files as users build one: a
# header shared by two sources, each compiled with `tammcc -c` from another
# directory, linked by tammcc; both files hold tasks in a function of the same
# name at the same line (static variants must not clash), and main calls a task
# function defined in the other file, from the top level and from a task whose
# permission(...) clause covers what it submits.
set -eu
tammcc=$1
dir=$2
rm -rf "$dir"
mkdir -p "$dir/src" "$dir/obj"
cat > "$dir/src/common.h" <<'SRC'
#include <tamm.h>
#define N 8
void scale_all(tamm_tensor *T, long nb, double f);
double total(tamm_tensor *T, long nb);
SRC
cat > "$dir/src/ops.c" <<'SRC'
#include "common.h"
static void helper(tamm_tensor *T, long i, double f) {
#pragma tamm task
    { double *x = tamm_block(T, i); for (int e = 0; e < N; e++) x[e] *= f; }
}
void scale_all(tamm_tensor *T, long nb, double f)
{
    for (long i = 0; i < nb; i++) helper(T, i, f);
#pragma tamm taskwait
}
double total(tamm_tensor *T, long nb)
{
    double s = 0;
    for (long i = 0; i < nb; i++) { const double *x = tamm_block(T, i); for (int e = 0; e < N; e++) s += x[e]; }
    return s;
}
SRC
cat > "$dir/src/main.c" <<'SRC'
#include "common.h"
#include <stdio.h>
static void helper(tamm_tensor *T, long i, double f) {
#pragma tamm task
    { double *x = tamm_block(T, i); for (int e = 0; e < N; e++) x[e] = f + e; }
}
int main(int argc, char **argv)
{
    tamm_init(&argc, &argv);
    size_t d[1] = { 4 * N }, t[1] = { N };
    tamm_tensor *A = tamm_tensor_create("A", TAMM_F64, 1, d, t);
    for (long i = 0; i < 4; i++) helper(A, i, (double)i);
    scale_all(A, 4, 2.0);
#pragma tamm task permission(readwrite: A)
    scale_all(A, 4, 0.5);
#pragma tamm taskwait
    printf("total %g\n", total(A, 4));
    tamm_tensor_destroy(A);
    return tamm_finalize();
}
SRC
cd "$dir/obj"
export TAMMCC_NVCC=none
"$tammcc" -O1 -c ../src/ops.c
"$tammcc" -O1 -c ../src/main.c -o main.o
"$tammcc" -o prog main.o ops.o
out=$(./prog)
# sum over blocks i of sum_e (i + e) = 4*28 + 8*6 = 160
[ "$out" = "total 160" ] || { echo "FAIL: printed '$out', expected 'total 160'"; exit 1; }
echo "multifile: OK"
