#!/bin/sh
# ranks_compare.sh NP PROGRAM [ARGS...]
#
# Runs PROGRAM (a tamm program that checks its own result and prints a line
# with "OK") on 1 rank and on NP ranks with $MPIRUN.  Passes if both runs exit
# 0 and every rank prints its OK line; with STRICT=1 every rank's result line
# must also equal the one-rank line (after removing "workers=N"): bit-for-bit
# agreement where the printed figures are exact.
# Environment: MPIRUN (e.g. "mpirun --oversubscribe --bind-to none").
set -u
np=$1
shift
: "${MPIRUN:=mpirun --oversubscribe --bind-to none}"
: "${STRICT:=0}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tammranks.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
norm() { grep ' OK' "$1" | sed -E 's/workers=[0-9]+//; s/ranks=[0-9]+//'; }
# shellcheck disable=SC2086
$MPIRUN -np 1 "$@" > "$tmp/one.out" 2> "$tmp/one.err"
rc=$?
if [ $rc -ne 0 ]; then cat "$tmp/one.out" "$tmp/one.err" >&2; echo "FAIL: 1 rank: exit $rc" >&2; exit 1; fi
# shellcheck disable=SC2086
$MPIRUN -np "$np" "$@" > "$tmp/np.out" 2> "$tmp/np.err"
rc=$?
cat "$tmp/np.out"
if [ $rc -ne 0 ]; then cat "$tmp/np.err" >&2; echo "FAIL: $np ranks: exit $rc" >&2; exit 1; fi
n=$(grep -c ' OK' "$tmp/np.out")
if [ "$n" -ne "$np" ]; then cat "$tmp/np.err" >&2; echo "FAIL: $n of $np ranks printed OK" >&2; exit 1; fi
if [ "$STRICT" = 1 ]; then
    ref=$(norm "$tmp/one.out")
    norm "$tmp/np.out" | while IFS= read -r line; do
        if [ "$line" != "$ref" ]; then
            echo "FAIL: a rank printed '$line', the one-rank run '$ref'" >&2
            exit 1
        fi
    done || exit 1
fi
echo "PASS: $np ranks agree with 1 rank"
