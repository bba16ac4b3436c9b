#!/bin/sh
# blas_errors.sh TAMMCC SRC LIBDIR — BLAS and LAPACK tasks on an emulated GPU whose calls the GPU
# refuses (blas_errors.c): each is the task's error (TAMM_EDEVICE or TAMM_ENOMEM, exit status 1)
# naming the task, the call and its line; and a GPU without cuSOLVER runs the LAPACK task on the
# CPUs (a warning, a TAMM_STATS line), as does the emulated device without cuBLAS.  LIBDIR holds
# the stand-in libcudart, libcublas and libcusolver (tests/rt/gpu/cudart_emu).
set -u
tammcc=$1 src=$2 lib=$(cd "$3" && pwd) || exit 1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tammbe.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "blas_errors: $*"; exit 1; }
TAMMCC_NVCC=emu "$tammcc" -O1 -o "$tmp/prog" "$src" -llapacke -lopenblas || fail "tammcc build failed"
export OPENBLAS_NUM_THREADS=1 TAMM_NUM_WORKERS=2
# expect MODE TEXT [ENV...]: exit status 1 and TEXT in the error of the task
expect() {
    mode=$1 text=$2
    shift 2
    env TAMM_CUDA_TEST_LIBDIR="$lib" TAMM_CUDA_EMU=1 "$@" "$tmp/prog" "$mode" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    cat "$tmp/err"
    [ $rc -eq 1 ] || fail "$mode: exit status $rc, expected 1"
    grep -qF -- "$text" "$tmp/err" || fail "$mode: no error saying: $text"
}
expect lda "blas_errors.c:38): cblas_dgemm at blas_errors.c:39 on the GPU: cublasDgemm_v2 returned 7 (CUBLAS_STATUS_INVALID_VALUE)"
expect layout "cblas_dgemm at blas_errors.c:39 on the GPU: Layout is 7, not CblasRowMajor (101) or CblasColMajor (102)"
expect uplo "LAPACKE_dpotrf at blas_errors.c:45 on the GPU: uplo is 88, not 'U' or 'L'"
expect dotinc "cblas_ddot at blas_errors.c:51 on the GPU: increments 2 and -3: with '+=' or '-=' the GPU variant needs them of one sign, or one of them 1 or -1"
expect getrf "GPU 0: no room for a 33024-byte buffer of scratch (tamm_cuda_scratch) within 60000 bytes" TAMM_CUDA_MEMORY_LIMIT=60000
expect getrf "LAPACKE_dgetrf at blas_errors.c:55 on the GPU: cuSOLVER is not available (no handle: cusolverDnCreate failed)" TAMM_CUSOLVER_EMU_FAIL=create
# TAMM_ON_ERROR=return: the same error, returned by the wait (exit status 1 from tamm_finalize's report)
expect lda "cublasDgemm_v2 returned 7" TAMM_ON_ERROR=return
# a stand-in directory without libcusolver: the LAPACK task runs on the CPUs, with a warning
mkdir "$tmp/nosolver"
for f in "$lib"/libcudart.so* "$lib"/libcublas.so*; do ln -s "$f" "$tmp/nosolver/"; done
TAMM_CUDA_TEST_LIBDIR="$tmp/nosolver" TAMM_CUDA_EMU=1 TAMM_STATS=1 "$tmp/prog" getrf > "$tmp/out" 2> "$tmp/err" ||
    { cat "$tmp/err"; fail "getrf without libcusolver: exit status $?"; }
grep -q "tamm: warning: cuSOLVER cannot be used (cannot load libcusolver.so.[0-9]*: " "$tmp/err" || { cat "$tmp/err"; fail "no warning"; }
grep -q "cuSOLVER: not available (cannot load libcusolver" "$tmp/err" || fail "no TAMM_STATS line about cuSOLVER"
grep -qE "0 on GPU workers" "$tmp/err" || fail "the LAPACK task ran on the GPU without cuSOLVER"
# the runtime's own emulated device has no cuBLAS: the BLAS task runs on the CPUs, no warning
TAMM_CUDA_EMU=1 TAMM_STATS=1 "$tmp/prog" lda > "$tmp/out" 2> "$tmp/err"
grep -q "cuBLAS: not available (cublasCreate: the emulated device has no cuBLAS" "$tmp/err" || { cat "$tmp/err"; fail "no TAMM_STATS line about cuBLAS"; }
grep -q "warning" "$tmp/err" && fail "a warning for the emulated device"
echo "blas_errors: every refused call is the task's error naming it; without the libraries the tasks run on the CPUs"
