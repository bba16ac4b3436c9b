#!/bin/sh
# ptx_atomics.sh NVCC TAMMCC INCLUDE_DIR PROGRAM.c... [-- CLANG_FLAGS...] — no generated kernel of
# these programs does an atomic: each program's .cu (tammcc --emit=cuda) compiled by
# `nvcc -ptx -arch=sm_90`, and in every kernel (.entry) of the PTX the atom.* and red.*
# instructions counted: there must be none, as an element accumulated by one thread is summed in
# a register and a reduction into one element goes through shared memory and partial sums added
# in a fixed order (the issue allows one per thread block; there is none).  Prints each kernel's
# count.  Exit status 77 (skipped) only when nvcc is not there.
#
# Nearly all the time is start-up, about a second of nvcc's per translation unit (the CUDA
# headers parsed), so the programs whose .cu begin with the same #include lines are compiled
# together: one translation unit of those lines, then each program's .cu in a namespace of its
# own (tamm_ptx_K_, K its number, which names its kernels in the PTX and in the report), the
# macros it defines or undefines saved before it and restored after it (#pragma
# push_macro/pop_macro), so that each sees what it would alone.  A .cu that includes a header
# further down is compiled alone; a unit that does not compile, or has a kernel in no namespace
# (extern "C"), is compiled again program by program (errors reported as before).  tammcc's
# runs and the units are shared among parallel jobs (one per processor, at most 8;
# PTX_ATOMICS_JOBS sets the number); reports are in program order.
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
jobs=${PTX_ATOMICS_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)}
[ "$jobs" -ge 1 ] 2>/dev/null || jobs=1
[ "$jobs" -le 8 ] || jobs=8

# parallel FUNCTION ITEM...: FUNCTION ITEM for every ITEM, the items shared among the jobs
parallel() {
    fn=$1
    shift
    s=0
    while [ $s -lt $jobs ]; do
        (
        i=0
        for it in "$@"; do
            i=$((i + 1))
            [ $(((i - 1) % jobs)) -eq $s ] && "$fn" "$it"
        done
        ) &
        s=$((s + 1))
    done
    wait
}

# translate K:PROGRAM: $tmp/K.cu, the lines of its report so far in $tmp/K.log, $tmp/K.bad when it
# fails, $tmp/K.key (its leading directives) when it has kernels to compile (files named by
# number: two programs may have the same name)
translate() {
    k=${1%%:*} p=${1#*:}
    f=$tmp/$k
    n=$(basename "$p" .c)
    {
    oifs=$IFS
    IFS=$nl
    set -f
    set -- $flags
    IFS=$oifs
    set +f
    echo "$n" > "$f.name"
    "$tammcc" --emit=cuda "$@" "$p" > "$f.cu" 2> "$f.err" || { cat "$f.err"; echo "ptx_atomics: FAIL: tammcc --emit=cuda $p"; : > "$f.bad"; return; }
    [ -s "$f.cu" ] || { echo "ptx_atomics: $n: no CUDA variant"; return; }
    [ "$(grep -c '__global__' "$f.cu")" -gt 0 ] || { echo "ptx_atomics: $n: no kernel (CUDA variants that call functions)"; return; }
    awk '/^[ \t]*(\/\*| \*|$)/ { next } /^#[ \t]*(if|ifdef|ifndef|else|endif|include)([ \t]|$)/ { print; next } { exit }' "$f.cu" > "$f.key"
    # a .cu that includes a header after them is compiled alone (the header's macros would stay)
    [ "$(grep -c '^[[:blank:]]*#[[:blank:]]*include' "$f.cu")" = "$(grep -c '^[[:blank:]]*#[[:blank:]]*include' "$f.key")" ] || echo "/* compiled alone: $k */" >> "$f.key"
    } > "$f.log"
}
nl='
'
flags=""
for a in "$@"; do flags="$flags$a$nl"; done
items="" k=0
for p in $progs; do k=$((k + 1)); items="$items $k:$p"; done
parallel translate $items

# the units: programs with the same key together, each group cut in at most $jobs units
units=""
for kf in $(ls "$tmp" | grep '\.key$' | sort -n); do
    k=${kf%.key}
    g=$(cksum < "$tmp/$kf" | cut -d' ' -f1)
    echo "$k" >> "$tmp/group.$g"
done
u=0
for gf in "$tmp"/group.*; do
    [ -f "$gf" ] || continue
    m=$(grep -c . "$gf")
    c=$jobs; [ "$m" -lt "$c" ] && c=$m
    i=0
    for k in $(cat "$gf"); do
        echo "$k" >> "$tmp/unit.$((u + i % c))"
        i=$((i + 1))
    done
    u=$((u + c))
done
i=0
while [ $i -lt $u ]; do units="$units $i"; i=$((i + 1)); done

# count PTX [K]: each kernel's atom/red count, a line "K NAME: N atom/red" for each, K the program
# whose namespace names the kernel (or K given; "unknown" for none)
count() {
    awk -v only="${2:-}" '
        function flush() { if (cur != "") printf "%s %s: %d atom/red\n", prog, cur, cnt }
        /\.entry/ { flush(); name = $0; sub(/.*\.entry[ \t]*/, "", name); sub(/\(.*/, "", name); cur = name; cnt = 0; prog = only
                    if (prog == "" && match(name, /^_ZN[0-9]+tamm_ptx_[0-9]+_/)) { s = substr(name, 4); l = s + 0; id = substr(s, length(l "") + 1, l)
                        if (id ~ /^tamm_ptx_[0-9]+_$/) { prog = substr(id, 10); sub(/_$/, "", prog) } }
                    if (prog == "") prog = "unknown" }
        /^[ \t]*(@!?%p[0-9]+[ \t]+)?(atom|red)\./ { if (cur != "") cnt++ }
        END { flush() }' "$1"
}

# counts FILE: the lines of count's output FILE in $tmp/K.counts of their programs, without K
counts() {
    awk -v dir="$tmp" '{ k = $1; sub(/^[^ ]* /, ""); print > (dir "/" k ".counts") }' "$1"
}

# alone K: program K compiled on its own, as a unit that failed
alone() {
    f=$tmp/$1
    "$nvcc" -ptx -arch=sm_90 -I"$inc" -o "$f.ptx" "$f.cu" > "$f.err" 2>&1 || { cat "$f.err" >> "$f.log"; echo "ptx_atomics: FAIL: nvcc -ptx $(cat "$f.name").cu" >> "$f.log"; : > "$f.bad"; return; }
    count "$f.ptx" "$1" > "$f.kc"
    counts "$f.kc"
}

# compile U: unit U, or its programs alone (a unit of one program is compiled alone)
compile() {
    f=$tmp/unit.$1
    [ "$(grep -c . "$f")" -gt 1 ] || { alone "$(cat "$f")"; return; }
    {
    head -n 1 "$f" | while read -r k; do cat "$tmp/$k.key"; done
    for k in $(cat "$f"); do
        names=$(sed -n -e 's/^[[:blank:]]*#[[:blank:]]*define[[:blank:]]\{1,\}\([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' \
                       -e 's/^[[:blank:]]*#[[:blank:]]*undef[[:blank:]]\{1,\}\([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' "$tmp/$k.cu" | sort -u)
        for x in $names; do echo "#pragma push_macro(\"$x\")"; done
        echo "namespace tamm_ptx_${k}_ {"
        echo "#include \"$k.cu\""
        echo "}"
        for x in $names; do echo "#pragma pop_macro(\"$x\")"; done
    done
    } > "$f.cu"
    # alone when the unit does not compile or a kernel is in no namespace (extern "C")
    if "$nvcc" -ptx -arch=sm_90 -I"$inc" -o "$f.ptx" "$f.cu" > "$f.err" 2>&1 &&
        count "$f.ptx" > "$f.kc" && ! grep -q '^unknown ' "$f.kc"; then
        counts "$f.kc"
    else
        for k in $(cat "$f"); do alone "$k"; done
    fi
}
parallel compile $units

bad=0 kernels=0 k=0
for p in $progs; do
    k=$((k + 1))
    n=$(basename "$p" .c)
    cat "$tmp/$k.log"
    [ -f "$tmp/$k.bad" ] && { bad=1; continue; }
    [ -f "$tmp/$k.key" ] || continue
    touch "$tmp/$k.counts"
    sed "s/^/ptx_atomics: $n: /" "$tmp/$k.counts"
    globals=$(grep -c '__global__' "$tmp/$k.cu")
    entries=$(grep -c . "$tmp/$k.counts")
    [ "$entries" -eq "$globals" ] || { echo "ptx_atomics: FAIL: $n: $globals kernels in the .cu, $entries in the PTX"; bad=1; }
    kernels=$((kernels + entries))
    grep -qv ': 0 atom/red$' "$tmp/$k.counts" && { echo "ptx_atomics: FAIL: $n: a kernel does atomics"; bad=1; }
done
[ $kernels -gt 0 ] || { echo "ptx_atomics: FAIL: no kernel at all"; bad=1; }
[ $bad = 0 ] && echo "ptx_atomics: $kernels kernels, no atomic instruction"
exit $bad
