#!/bin/sh
# fault.sh NP PROGRAM MODE REGEX...
#
# Runs `$MPIRUN -np NP PROGRAM MODE` with a time limit.  For MODE "ok" the run
# must exit 0.  Otherwise it must end by itself (no hang: the limit is
# $FAULT_TIMEOUT seconds, default 60) with a non-zero status, and its output
# (stdout and stderr together) must match every REGEX (grep -E).
set -u
np=$1; prog=$2; mode=$3
shift 3
: "${MPIRUN:=mpirun --oversubscribe --bind-to none}"
: "${FAULT_TIMEOUT:=60}"
out=$(mktemp "${TMPDIR:-/tmp}/tammfault.XXXXXX") || exit 1
trap 'rm -f "$out"' EXIT
# shellcheck disable=SC2086
t0=$(date +%s)
timeout -k 5 "$FAULT_TIMEOUT" $MPIRUN -np "$np" "$prog" "$mode" > "$out" 2>&1
rc=$?
t1=$(date +%s)
cat "$out"
if [ "$mode" = ok ]; then
    [ $rc -eq 0 ] || { echo "FAIL: mode ok: exit $rc" >&2; exit 1; }
    echo "PASS"; exit 0
fi
# (mpirun's own status may be 128+signal of a killed rank: time tells a hang)
if [ $((t1 - t0)) -ge "$FAULT_TIMEOUT" ]; then echo "FAIL: $mode: no end within $FAULT_TIMEOUT s (hang)" >&2; exit 1; fi
if [ $rc -eq 0 ]; then echo "FAIL: $mode: exit 0, expected a failure" >&2; exit 1; fi
for re in "$@"; do
    if ! grep -Eq "$re" "$out"; then echo "FAIL: $mode: the output does not match '$re'" >&2; exit 1; fi
done
echo "PASS: $mode: exit $rc, the output names the fault"
