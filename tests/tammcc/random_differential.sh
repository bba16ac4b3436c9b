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
# TAMM_INCLUDE, TAMM_LIB, WORKERS).  Exit status 0 iff every program passed.
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

passed=0
failed=0
seed=$first
last=$((first + n - 1))
while [ "$seed" -le "$last" ]; do
    src=$tmp/random_$seed.c
    if ! "$GEN" "$seed" "$size" >"$src"; then
        echo "random program $seed: gen_random_program failed" >&2
        failed=$((failed + 1))
    elif sh "$here/differential.sh" "$src" >"$tmp/log" 2>&1; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        mkdir -p "$FAILDIR"
        cp "$src" "$FAILDIR/"
        echo "random program seed $seed (size $size) FAILED; kept as $FAILDIR/random_$seed.c:" >&2
        sed 's/^/    /' "$tmp/log" | head -60 >&2
    fi
    seed=$((seed + 1))
done
echo "random pragma programs: $passed passed, $failed failed (seeds $first..$last, size $size)"
[ "$failed" -eq 0 ]
