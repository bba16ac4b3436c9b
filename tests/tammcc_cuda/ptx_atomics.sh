#!/bin/sh
# ptx_atomics.sh NVCC TAMMCC INCLUDE_DIR PROGRAM.c... [-- CLANG_FLAGS...] — no generated kernel of
# these programs does an atomic: each program's .cu (tammcc --emit=cuda) compiled by
# `nvcc -ptx -arch=sm_90`, and in every kernel (.entry) of the PTX the atom.* and red.*
# instructions counted: there must be none, as an element accumulated by one thread is summed in
# a register and a reduction into one element goes through shared memory and partial sums added
# in a fixed order (the issue allows one per thread block; there is none).  Prints each kernel's
# count.  Exit status 77 (skipped) only when nvcc is not there.
#
# Each program is translated and compiled on its own, as before, but the programs are shared
# among as many jobs as the machine has processors (at most 8; PTX_ATOMICS_JOBS sets the number):
# nearly all the time is tammcc's and nvcc's start-up (parsing the headers: about a second of
# nvcc's per .cu), which no program shares with another.  The reports are printed in the
# order of the programs.
set -u
nvcc=$1 tammcc=$2 inc=$3
shift 3
progs=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do progs="$progs $1"; shift; done
[ $# -gt 0 ] && shift
if [ -z "$nvcc" ] || ! [ -x "$(command -v "$nvcc")" ]; then
    echo "ptx_atomics: SKIPPED: no nvcc to compile the kernels to PTX"
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tammptx.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# one K PROGRAM [CLANG_FLAGS...]: program number K checked; its report in $tmp/K.log, its number
# of kernels in $tmp/K.kernels, and $tmp/K.bad when it fails (files named by number: two
# programs may have the same name)
one() {
    k=$1 p=$2
    shift 2
    n=$(basename "$p" .c)
    f=$tmp/$k
    echo 0 > "$f.kernels"
    {
    "$tammcc" --emit=cuda "$@" "$p" > "$f.cu" 2> "$f.err" || { cat "$f.err"; echo "ptx_atomics: FAIL: tammcc --emit=cuda $p"; : > "$f.bad"; return; }
    [ -s "$f.cu" ] || { echo "ptx_atomics: $n: no CUDA variant"; return; }
    globals=$(grep -c '__global__' "$f.cu")
    [ "$globals" -gt 0 ] || { echo "ptx_atomics: $n: no kernel (CUDA variants that call functions)"; return; }
    "$nvcc" -ptx -arch=sm_90 -I"$inc" -o "$f.ptx" "$f.cu" > "$f.err" 2>&1 || { cat "$f.err"; echo "ptx_atomics: FAIL: nvcc -ptx $n.cu"; : > "$f.bad"; return; }
    awk -v prog="$n" '
        /\.entry/ { name = $0; sub(/.*\.entry[ \t]*/, "", name); sub(/\(.*/, "", name); cur = name; order[++k] = cur; cnt[cur] = 0 }
        /^[ \t]*(@!?%p[0-9]+[ \t]+)?(atom|red)\./ { if (cur != "") cnt[cur]++ }
        END { for (i = 1; i <= k; i++) printf "ptx_atomics: %s: %s: %d atom/red\n", prog, order[i], cnt[order[i]] }' "$f.ptx" > "$f.counts"
    cat "$f.counts"
    entries=$(grep -c . "$f.counts")
    [ "$entries" -eq "$globals" ] || { echo "ptx_atomics: FAIL: $n: $globals kernels in the .cu, $entries in the PTX"; : > "$f.bad"; }
    echo "$entries" > "$f.kernels"
    grep -qv ': 0 atom/red$' "$f.counts" && { echo "ptx_atomics: FAIL: $n: a kernel does atomics"; : > "$f.bad"; }
    } > "$f.log"
}

jobs=${PTX_ATOMICS_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)}
[ "$jobs" -ge 1 ] 2>/dev/null || jobs=1
[ "$jobs" -le 8 ] || jobs=8
# job s takes programs s+1, s+1+jobs, s+1+2*jobs ...
s=0
while [ $s -lt $jobs ]; do
    (
    k=0
    for p in $progs; do
        k=$((k + 1))
        [ $(((k - 1) % jobs)) -eq $s ] && one $k "$p" "$@"
    done
    ) &
    s=$((s + 1))
done
wait

bad=0 kernels=0 k=0
for p in $progs; do
    k=$((k + 1))
    if ! [ -f "$tmp/$k.log" ]; then
        echo "ptx_atomics: FAIL: $p: not checked"; bad=1; continue
    fi
    cat "$tmp/$k.log"
    [ -f "$tmp/$k.bad" ] && bad=1
    kernels=$((kernels + $(cat "$tmp/$k.kernels")))
done
[ $kernels -gt 0 ] || { echo "ptx_atomics: FAIL: no kernel at all"; bad=1; }
[ $bad = 0 ] && echo "ptx_atomics: $kernels kernels, no atomic instruction"
exit $bad
