#!/bin/sh
# ptx_atomics.sh NVCC TAMMCC INCLUDE_DIR PROGRAM.c... [-- CLANG_FLAGS...] — no generated kernel of
# these programs does an atomic: each program's .cu (tammcc --emit=cuda) compiled by
# `nvcc -ptx -arch=sm_90`, and in every kernel (.entry) of the PTX the atom.* and red.*
# instructions counted: there must be none, as an element accumulated by one thread is summed in
# a register and a reduction into one element goes through shared memory and partial sums added
# in a fixed order (the issue allows one per thread block; there is none).  Prints each kernel's
# count.  Exit status 77 (skipped) only when nvcc is not there.
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
bad=0 kernels=0
for p in $progs; do
    n=$(basename "$p" .c)
    "$tammcc" --emit=cuda "$@" "$p" > "$tmp/$n.cu" 2> "$tmp/err" || { cat "$tmp/err"; echo "ptx_atomics: FAIL: tammcc --emit=cuda $p"; bad=1; continue; }
    [ -s "$tmp/$n.cu" ] || { echo "ptx_atomics: $n: no CUDA variant"; continue; }
    globals=$(grep -c '__global__' "$tmp/$n.cu")
    [ "$globals" -gt 0 ] || { echo "ptx_atomics: $n: no kernel (CUDA variants that call functions)"; continue; }
    "$nvcc" -ptx -arch=sm_90 -I"$inc" -o "$tmp/$n.ptx" "$tmp/$n.cu" > "$tmp/err" 2>&1 || { cat "$tmp/err"; echo "ptx_atomics: FAIL: nvcc -ptx $n.cu"; bad=1; continue; }
    awk -v prog="$n" '
        /\.entry/ { name = $0; sub(/.*\.entry[ \t]*/, "", name); sub(/\(.*/, "", name); cur = name; order[++k] = cur; cnt[cur] = 0 }
        /^[ \t]*(@!?%p[0-9]+[ \t]+)?(atom|red)\./ { if (cur != "") cnt[cur]++ }
        END { for (i = 1; i <= k; i++) printf "ptx_atomics: %s: %s: %d atom/red\n", prog, order[i], cnt[order[i]] }' "$tmp/$n.ptx" > "$tmp/counts"
    cat "$tmp/counts"
    entries=$(grep -c . "$tmp/counts")
    [ "$entries" -eq "$globals" ] || { echo "ptx_atomics: FAIL: $n: $globals kernels in the .cu, $entries in the PTX"; bad=1; }
    kernels=$((kernels + entries))
    grep -qv ': 0 atom/red$' "$tmp/counts" && { echo "ptx_atomics: FAIL: $n: a kernel does atomics"; bad=1; }
done
[ $kernels -gt 0 ] || { echo "ptx_atomics: FAIL: no kernel at all"; bad=1; }
[ $bad = 0 ] && echo "ptx_atomics: $kernels kernels, no atomic instruction"
exit $bad
