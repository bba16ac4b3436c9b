#!/usr/bin/env bash
# pregen_current.sh TAMMCC — the pregenerated sources that GPU machines build
# (tests/rt/gpu/pregen, bench/gpu/pregen) are what TAMMCC generates now; if not,
# run tests/rt/gpu/regen.sh TAMMCC and commit.
set -uo pipefail
tammcc=$1
cd "$(dirname "$0")/../../.." || exit 1
bad=0
check() { # source outdir
    local n
    n=$(basename "$1" .c)
    for k in c cuda; do
        local ext=$k; [ $k = cuda ] && ext=cu
        if ! "$tammcc" --emit=$k "$1" | diff -q - "$2/$n.tamm.$ext" > /dev/null; then
            echo "pregen_current: $2/$n.tamm.$ext is not what tammcc --emit=$k $1 gives now"
            bad=1
        fi
    done
}
for f in tests/tammcc/cuda/*.c; do case $(basename "$f") in cuda_variant.c|variant_status.c|blas_errors.c) ;; *) check "$f" tests/rt/gpu/pregen;; esac; done
for f in bench/gpu/b[0-9]*.c bench/gpu/gemm_naive.c; do check "$f" bench/gpu/pregen; done
[ $bad = 0 ] && echo "pregen_current: tests/rt/gpu/pregen and bench/gpu/pregen are current"
exit $bad
