#!/bin/sh
# run_error.sh TAMMCC FILE — a run-time error test of a tammcc program.
#
# Builds FILE with tammcc (from FILE's directory with the bare file name, so
# that the generated code names "NAME.c"), runs it with TAMM_NUM_WORKERS=2 and
# checks its standard error against the `// EXPECT: <line>` comments in FILE:
# every EXPECT line appears verbatim as a line of the output, exactly one
# "tamm: error:" line is printed (reported once), and the exit status is 1.
#
# `// ENV: NAME=value` lines in FILE set variables for the run (TAMM_CHECK_ACCESS=1).
# With RANKS=N the program runs under `$MPIRUN -np N` (MPIRUN default "mpirun
# --oversubscribe --bind-to none"): each rank may report the error itself (the
# others print "stopping because rank R failed"), so 1 to N such lines, and a
# non-zero exit status.
#
# Environment: TAMM_INCLUDE (directory of tamm.h, default ../../../include from
# this script), TMPDIR, RANKS, MPIRUN.
set -u
tammcc=$1
file=$2
here=$(cd "$(dirname "$0")" && pwd)
: "${TAMM_INCLUDE:=$here/../../../include}"
case $tammcc in /*) ;; *) tammcc=$(pwd)/$tammcc ;; esac
dir=$(dirname "$file")
name=$(basename "$file")
cd "$dir" || exit 2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tammcc_error.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
sed -n 's|^[[:space:]]*// EXPECT: ||p' "$name" >"$tmp/exp"
if [ ! -s "$tmp/exp" ]; then
    echo "$name: no '// EXPECT:' line in the test" >&2
    exit 2
fi
if ! TAMMCC_NVCC=none "$tammcc" -O1 -I"$TAMM_INCLUDE" -o "$tmp/prog" "$name" >"$tmp/cc.log" 2>&1; then
    cat "$tmp/cc.log"
    echo "$name: tammcc build failed"
    exit 1
fi
for kv in $(sed -n 's|^[[:space:]]*// ENV: ||p' "$name"); do export "${kv?}"; done
: "${RANKS:=}"
: "${MPIRUN:=mpirun --oversubscribe --bind-to none}"
if [ -n "$RANKS" ]; then
    # shellcheck disable=SC2086
    TAMM_NUM_WORKERS=2 timeout 60 $MPIRUN -np "$RANKS" "$tmp/prog" >"$tmp/out" 2>"$tmp/err"
else
    TAMM_NUM_WORKERS=2 timeout 60 "$tmp/prog" >"$tmp/out" 2>"$tmp/err"
fi
rc=$?
fail=0
while IFS= read -r want; do
    if ! grep -qxF -- "$want" "$tmp/err"; then
        echo "MISSING:    $want"
        fail=1
    fi
done <"$tmp/exp"
n=$(grep '^tamm: error:' "$tmp/err" | grep -vc 'stopping because rank')
if [ -n "$RANKS" ]; then
    { [ "$n" -ge 1 ] && [ "$n" -le "$RANKS" ]; } || { echo "$n 'tamm: error:' lines, expected 1 to $RANKS"; fail=1; }
    [ $rc -ne 0 ] && [ $rc -ne 124 ] || { echo "exit status $rc, expected a failure (not 0, not a timeout)"; fail=1; }
else
    [ "$n" = 1 ] || { echo "$n 'tamm: error:' lines, expected 1"; fail=1; }
    [ $rc -eq 1 ] || { echo "exit status $rc, expected 1"; fail=1; }
fi
if [ $fail -ne 0 ]; then
    echo "---- standard error of $name (exit $rc)"
    cat "$tmp/err"
    exit 1
fi
echo "$name: the expected error"
exit 0
