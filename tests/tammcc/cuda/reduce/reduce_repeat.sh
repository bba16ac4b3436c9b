#!/bin/sh
# reduce_repeat.sh TAMMCC CC LIBTAMMRT "CFLAGS" [SEED [CONFIGS]] — reductions into one element on
# the emulated GPU give the same bits run after run, and the plain build's results within
# rounding: reduce_sizes.c at CONFIGS random sizes (N elements in blocks of NB, at most 1000
# blocks, from SEED: each configuration is printed, to reproduce it) is built with TAMMCC_NVCC=emu and run on an emulated
# GPU (TAMM_CUDA_EMU=1, every reduction task device(cuda)) three times, with different worker
# counts, CUDA thread orders (TAMM_CUDA_EMU_SEED) and host threads per launch: the three outputs
# must be identical, and each result within rounding of the plain build's (relative to the sum of
# the absolute values of its terms: 1e-10 in double, 1e-2 for the float sums).
set -u
tammcc=$1 cc=$2 lib=$3 cflags=$4
seed=${5:-}
[ -n "$seed" ] || seed=$(date +%s)
configs=${6:-3}
maxblocks=1000
here=$(cd "$(dirname "$0")" && pwd)
inc=$(cd "$here/../../../../include" && pwd)
src=$here/reduce_sizes.c
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tammred.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "reduce_repeat: FAIL: $*"; exit 1; }
# shellcheck disable=SC2086
$cc $cflags -I"$inc" -o "$tmp/seq" "$src" "$lib" -lpthread -lm -ldl > "$tmp/cc.log" 2>&1 || { cat "$tmp/cc.log"; fail "plain build"; }
TAMMCC_NVCC=emu "$tammcc" -O1 -o "$tmp/emu" "$src" > "$tmp/tammcc.log" 2>&1 || { cat "$tmp/tammcc.log"; fail "tammcc build"; }
echo "reduce_repeat: seed $seed, $configs configurations"
c=0
rnd=$seed
next() { rnd=$(( (rnd * 1103515245 + 12345) % 2147483648 )); }
while [ $c -lt "$configs" ]; do
    next; n=$(( rnd % 200000 + 1 ))
    next; case $((rnd % 3)) in 0) nb=$n ;; 1) nb=$(( rnd % 300 + 1 )) ;; *) nb=$(( n / (rnd % 7 + 1) + 1 )) ;; esac
    [ $nb -gt $n ] && nb=$n
    # at most MAXBLOCKS blocks: each is an allocation of whole pages on the emulated device and
    # four kernel launches, so a run's time grows with the count, not with what it tests
    [ $(( (n + nb - 1) / nb )) -gt $maxblocks ] && nb=$(( (n + maxblocks - 1) / maxblocks ))
    next; s=$(( rnd % 1000 ))
    echo "reduce_repeat: configuration $c: N=$n NB=$nb seed=$s"
    "$tmp/seq" $n $nb $s > "$tmp/ref" 2> "$tmp/err" || { rc=$?; cat "$tmp/err"; fail "plain build: exit status $rc"; }
    r=0
    for run in "1 1 4" "3 2 3" "2 7 1"; do
        set -- $run
        TAMM_CUDA_EMU=1 TAMM_NUM_WORKERS=$1 TAMM_CUDA_EMU_SEED=$2 TAMM_CUDA_EMU_THREADS=$3 TAMM_CUDA_EMU_REPORT=1 TAMM_STATS=1 \
            "$tmp/emu" $n $nb $s > "$tmp/out$r" 2> "$tmp/err" || { rc=$?; cat "$tmp/err"; fail "N=$n NB=$nb seed=$s: exit status $rc"; }
        launches=$(sed -n 's/^tamm_cuda_emu: \([0-9]*\) kernel launches.*/\1/p' "$tmp/err")
        [ "${launches:-0}" -gt 0 ] || { cat "$tmp/err"; fail "N=$n NB=$nb seed=$s: no kernel ran"; }
        grep -q "withheld at submission: 0 tasks" "$tmp/err" || { cat "$tmp/err"; fail "N=$n NB=$nb seed=$s: tasks withheld"; }
        if [ $r -gt 0 ] && ! cmp -s "$tmp/out0" "$tmp/out$r"; then
            diff "$tmp/out0" "$tmp/out$r" | head -10
            fail "N=$n NB=$nb seed=$s: TAMM_NUM_WORKERS=$1 TAMM_CUDA_EMU_SEED=$2 TAMM_CUDA_EMU_THREADS=$3 gives other bits than the first run"
        fi
        r=$((r + 1))
    done
    # within rounding of the plain build: |got - want| <= tol * scale, field by field
    awk -v N="$n" -v NB="$nb" -v S="$s" '
        FNR == NR { if ($1 == "block") for (i = 3; i <= NF; i += 2) want[$2, $i] = $(i + 1);
                    else for (i = 3; i <= NF; i += 2) scale[$2, $i] = $(i + 1);
                    next }
        $1 == "block" { for (i = 3; i <= NF; i += 2) {
                            w = (want[$2, $i] + 0); g = ($(i + 1 + 0)); sc = (scale[$2, $i] + 0);
                            tol = ($i == "difference" ? 1e-2 : 1e-10) * (sc > 0 ? sc : 1);
                            d = g - w; if (d < 0) d = -d;
                            if (d > tol) { printf "reduce_repeat: N=%s NB=%s seed=%s: block %s %s %s, plain build %s (|diff| %g > %g)\n", N, NB, S, $2, $i, $(i + 1), want[$2, $i], d, tol; bad = 1 } } }
        END { exit bad }' "$tmp/ref" "$tmp/out0" || fail "N=$n NB=$nb seed=$s: results beyond rounding of the plain build's"
    echo "reduce_repeat: N=$n NB=$nb seed=$s: the same bits in 3 runs (launches: $launches), within rounding of the plain build"
    c=$((c + 1))
done
