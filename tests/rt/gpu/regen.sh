#!/usr/bin/env bash
# regen.sh [TAMMCC] — regenerate the tammcc output that GPU machines build
# without libclang: tests/rt/gpu/pregen/ (the programs of tests/tammcc/cuda) and
# bench/gpu/pregen/ (the GrCUDA benchmark ports).  Run from anywhere after a
# build with tammcc; commit the result.  tests/rt/gpu/pregen_current.sh checks
# that the committed files are what tammcc generates now.
set -euo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
tammcc=${1:-$top/build/tammcc/tammcc}
[ -x "$tammcc" ] || { echo "regen.sh: no tammcc at $tammcc (pass its path)" >&2; exit 1; }
cd "$top"
gen() { # source dir outdir
    local src=$1 out=$2 n
    n=$(basename "$src" .c)
    "$tammcc" --emit=c "$src" > "$out/$n.tamm.c"
    "$tammcc" --emit=cuda "$src" > "$out/$n.tamm.cu"
}
# cuda_variant.c and variant_status.c: their "CUDA variants" are host functions over the emulator: not for a GPU;
# blas_errors.c: calls a GPU refuses, for tests/tammcc/cuda/blas_errors.sh
for f in tests/tammcc/cuda/*.c; do case $(basename "$f") in cuda_variant.c|variant_status.c|blas_errors.c) ;; *) gen "$f" tests/rt/gpu/pregen;; esac; done
for f in bench/gpu/b[0-9]*.c bench/gpu/gemm_naive.c; do [ -e "$f" ] && gen "$f" bench/gpu/pregen; done
echo "regen.sh: regenerated tests/rt/gpu/pregen and bench/gpu/pregen with $tammcc"
