#!/bin/sh
# onerror_exit.sh TAMMCC DIR — under TAMM_ON_ERROR=return an error reaches the
# exit status of a pragma program that never takes it: the taskwait and the
# fence tammcc generates leave it for the program, and the program ends with status 1 (it
# ended 0 after printing the error).  A program that takes the error from a wait
# it calls (tamm_wait_all) decides its own exit status.
set -eu
tammcc=$1
dir=$2
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir"
cat > lost.c <<'SRC'
#include <tamm.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    tamm_init(&argc, &argv);
    size_t d[1] = { 4 }, t[1] = { 1 };
    tamm_tensor *A = tamm_tensor_create("A", TAMM_F64, 1, d, t);
    long i = 9; /* outside the tensor */
#pragma tamm task
    { double *a = tamm_block(A, i); a[0] = 1; }
#pragma tamm taskwait
    printf("still running\n");
    tamm_finalize();
    return 0;
}
SRC
cat > taken.c <<'SRC'
#include <tamm.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    tamm_init(&argc, &argv);
    size_t d[1] = { 4 }, t[1] = { 1 };
    tamm_tensor *A = tamm_tensor_create("A", TAMM_F64, 1, d, t);
    long i = 9;
#pragma tamm task
    { double *a = tamm_block(A, i); a[0] = 1; }
#pragma tamm taskwait
    int rc = tamm_wait_all(); /* the program takes the error itself */
    printf("took %s\n", tamm_strerror(rc));
    tamm_finalize();
    return 0;
}
SRC
sed 's/#pragma tamm taskwait/#pragma tamm fence/' lost.c > lost_fence.c
export TAMMCC_NVCC=none TAMM_ON_ERROR=return
"$tammcc" -O1 -o lost lost.c
"$tammcc" -O1 -o taken taken.c
set +e
./lost > lost.out 2> lost.err
rc=$?
set -e
[ "$rc" -ne 0 ] || { echo "FAIL: the program that never took the error exited 0"; cat lost.err; exit 1; }
grep -q "still running" lost.out || { echo "FAIL: return mode stopped the program"; exit 1; }
grep -q "no wait it called returned" lost.err || { echo "FAIL: no message about the exit status:"; cat lost.err; exit 1; }
"$tammcc" -O1 -o lost_fence lost_fence.c
set +e
./lost_fence > lost_fence.out 2> lost_fence.err
frc=$?
set -e
[ "$frc" -ne 0 ] || { echo "FAIL: the program whose #pragma tamm fence saw the error exited 0"; cat lost_fence.err; exit 1; }
grep -q "no wait it called returned" lost_fence.err || { echo "FAIL: no message about the exit status (fence):"; cat lost_fence.err; exit 1; }
./taken > taken.out 2> taken.err || { echo "FAIL: the program that took the error did not exit 0"; cat taken.err; exit 1; }
grep -q "took block index out of range" taken.out || { echo "FAIL: tamm_wait_all did not return the error:"; cat taken.out; exit 1; }
echo "onerror_exit: OK (exit $rc when the error is never taken, $frc when only a fence saw it; 0 when the program takes it)"
