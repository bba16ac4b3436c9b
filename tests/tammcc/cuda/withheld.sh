#!/bin/sh
# withheld.sh TAMMCC SRC CC LIBTAMMRT "CFLAGS" — a task whose kernel's checks fail at run time runs
# its CPU variant, and says so: withheld.c (its "shift" tasks read and write one block through two
# accesses, its "last" tasks store h[i * k] with k == 0) built with TAMMCC_NVCC=emu and run on an
# emulated GPU must print what its plain build prints; TAMM_STATS must count the 8 tasks withheld
# at submission and show them on CPU workers (with the 2 tensor destructions); the emulated device must have launched only the 4
# fill kernels (the withheld kernels never ran); TAMM_TRACE must name why, on each task.
set -u
tammcc=$1 src=$2 cc=$3 lib=$4 cflags=$5
inc=$(cd "$(dirname "$0")/../../../include" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tammwh.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "withheld: $*"; exit 1; }
# shellcheck disable=SC2086
$cc $cflags -I"$inc" -o "$tmp/seq" "$src" "$lib" -lpthread -lm -ldl > "$tmp/cc.log" 2>&1 || { cat "$tmp/cc.log"; fail "plain build failed"; }
"$tmp/seq" > "$tmp/want" || fail "plain build: exit status $?"
TAMMCC_NVCC=emu "$tammcc" -O1 -o "$tmp/prog" "$src" > "$tmp/tammcc.log" 2>&1 || { cat "$tmp/tammcc.log"; fail "tammcc build failed"; }
"$tammcc" --emit=c "$src" | grep -q 'tamm_nocuda_ ? NULL : ' || fail "the submission does not evaluate the kernel's checks"
for w in 1 3; do
    TAMM_CUDA_EMU=1 TAMM_NUM_WORKERS=$w TAMM_STATS=1 TAMM_TRACE="$tmp/trace.json" TAMM_CUDA_EMU_REPORT=1 "$tmp/prog" \
        > "$tmp/got" 2> "$tmp/err" || { cat "$tmp/err"; fail "TAMM_NUM_WORKERS=$w: exit status $?"; }
    cmp -s "$tmp/want" "$tmp/got" || { diff "$tmp/want" "$tmp/got"; fail "TAMM_NUM_WORKERS=$w: output differs from the plain build"; }
    grep -q "CUDA kernels withheld at submission: 8 tasks ran their CPU variant" "$tmp/err" ||
        { cat "$tmp/err"; fail "TAMM_NUM_WORKERS=$w: TAMM_STATS does not count 8 tasks withheld"; }
    # 12 tasks and the 2 deferred tensor destructions; the top level's 8 tamm_block are waits
    grep -q "tasks: 22 submitted, 14 run (10 on CPU workers, 4 on GPU workers), 8 top-level waits" "$tmp/err" ||
        { cat "$tmp/err"; fail "TAMM_NUM_WORKERS=$w: TAMM_STATS does not show the 8 on CPU workers and the 4 fills on the GPU"; }
    grep -q "^tamm_cuda_emu: 4 kernel launches" "$tmp/err" ||
        { cat "$tmp/err"; fail "TAMM_NUM_WORKERS=$w: the emulated device did not launch exactly the 4 fill kernels"; }
    n=$(grep -o '"cuda_withheld":"X\[b\] and X\[c\] are one block"' "$tmp/trace.json" | wc -l)
    [ "$n" -eq 4 ] || fail "TAMM_NUM_WORKERS=$w: TAMM_TRACE names the one block on $n tasks, not 4"
    n=$(grep -o '"cuda_withheld":"the elements it stores or accumulates into are not proven distinct per GPU thread: tamm_cc_abs((long long)k) != 0 does not hold"' "$tmp/trace.json" | wc -l)
    [ "$n" -eq 4 ] || fail "TAMM_NUM_WORKERS=$w: TAMM_TRACE names the failed distinctness check on $n tasks, not 4"
done
echo "withheld: 8 tasks ran their CPU variants, counted and traced; the plain build's output"
