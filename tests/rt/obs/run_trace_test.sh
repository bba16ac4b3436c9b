#!/bin/sh
# run_trace_test.sh NP PROGRAM MODE [check_trace.py options...]
#
# Runs `PROGRAM MODE` with TAMM_TRACE, TAMM_DAG and TAMM_STATS=1 set (NP = 0:
# one process; NP >= 1: under $MPIRUN -np NP), checks that it exits 0 and that
# every rank printed its OK line, then hands the trace, the DAG, the program's
# stdout and stderr (where the statistics go) to check_trace.py with the
# options given.  The output files go to a fresh directory, so a file left by
# an earlier run cannot pass for this one's.
# Environment: MPIRUN (e.g. "mpirun --oversubscribe --bind-to none"), PYTHON3.
set -u
np=$1
prog=$2
mode=$3
shift 3
: "${MPIRUN:=mpirun --oversubscribe --bind-to none}"
: "${PYTHON3:=python3}"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tammtrace.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
export TAMM_TRACE="$tmp/trace.json" TAMM_DAG="$tmp/dag.dot" TAMM_STATS=1
if [ "$np" -gt 0 ]; then
    # shellcheck disable=SC2086
    $MPIRUN -np "$np" "$prog" "$mode" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    want=$np
else
    "$prog" "$mode" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    want=1
fi
if [ $rc -ne 0 ]; then cat "$tmp/out" "$tmp/err" >&2; echo "FAIL: $prog $mode exited $rc" >&2; exit 1; fi
n=$(grep -c ' OK$' "$tmp/out")
if [ "$n" -ne "$want" ]; then cat "$tmp/out" "$tmp/err" >&2; echo "FAIL: $n of $want ranks printed OK" >&2; exit 1; fi
ls "$tmp" > "$tmp/files"
"$PYTHON3" "$here/check_trace.py" --trace "$tmp/trace.json" --dag "$tmp/dag.dot" --stats "$tmp/err" \
    --stdout "$tmp/out" --files "$tmp/files" --ranks "$want" "$@"
rc=$?
if [ $rc -ne 0 ]; then echo "--- stderr of the run:" >&2; head -c 4000 "$tmp/err" >&2; fi
exit $rc
