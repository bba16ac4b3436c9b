#!/bin/sh
# random_differential.sh N FIRST_SEED [SIZE]
#
# Generates N random pragma programs (gen_random_program SEED SIZE, seeds
# FIRST_SEED .. FIRST_SEED+N-1) and runs differential.sh on each.  The plain
# build uses -Werror without -Wno-unknown-pragmas: every generated program must
# compile warning-free by itself.  Failing programs are kept in FAILDIR (default:
# a directory printed at the end) so they can be replayed with differential.sh.
#
# Environment: GEN (path of gen_random_program; default: next to this script or
# in the current directory), plus everything differential.sh reads (TAMMCC, CC,
# TAMM_INCLUDE, TAMM_LIB, WORKERS, GPUS), and JOBS (programs checked at once).
# With GPUS set, the programs are generated with kernel-form tasks
# (gen_random_program SEED SIZE gpu) and also run on emulated GPUs.
# Exit status 0 iff every program passed.
set -u
if [ $# -lt 2 ]; then
    echo "usage: random_differential.sh N FIRST_SEED [SIZE]" >&2
    exit 2
fi
n=$1
first=$2
size=${3:-50}
here=$(cd "$(dirname "$0")" && pwd)
if [ -z "${GEN:-}" ]; then
    if [ -x ./gen_random_program ]; then GEN=./gen_random_program; else GEN=$here/gen_random_program; fi
fi
: "${CFLAGS:=-std=c11 -O1 -Wall -Wextra -Werror}"
export CFLAGS

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tammrand.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
: "${FAILDIR:=${TMPDIR:-/tmp}/tamm-random-failures}"

# JOBS streams run at once (default: the number of cores); stream j takes the
# seeds first+j, first+j+JOBS, ...  Each stream counts into $tmp/count.j.
: "${JOBS:=$(nproc 2>/dev/null || echo 1)}"
last=$((first + n - 1))
stream() {
    j=$1
    p=0
    f=0
    seed=$((first + j))
    while [ "$seed" -le "$last" ]; do
        src=$tmp/random_$seed.c
        if ! "$GEN" "$seed" "$size" ${GPUS:+gpu} >"$src"; then
            echo "random program $seed: gen_random_program failed" >&2
            f=$((f + 1))
        elif sh "$here/differential.sh" "$src" >"$tmp/log.$j" 2>&1; then
            p=$((p + 1))
        else
            f=$((f + 1))
            mkdir -p "$FAILDIR"
            cp "$src" "$FAILDIR/"
            { echo "random program seed $seed (size $size) FAILED; kept as $FAILDIR/random_$seed.c:"
              sed 's/^/    /' "$tmp/log.$j" | head -60; } >&2
        fi
        rm -f "$src"
        seed=$((seed + JOBS))
    done
    echo "$p $f" >"$tmp/count.$j"
}
j=0
while [ "$j" -lt "$JOBS" ]; do
    stream "$j" &
    j=$((j + 1))
done
wait
passed=0
failed=0
j=0
while [ "$j" -lt "$JOBS" ]; do
    if [ -f "$tmp/count.$j" ]; then
        read -r p f <"$tmp/count.$j"
    else
        p=0; f=1; echo "random_differential: stream $j ended without a count" >&2
    fi
    passed=$((passed + p))
    failed=$((failed + f))
    j=$((j + 1))
done
echo "random pragma programs: $passed passed, $failed failed (seeds $first..$last, size $size)"
[ "$failed" -eq 0 ]
