#!/bin/sh
# run_golden.sh TAMMCC FILE [c|explain] — a tammcc golden test.
#
# Runs `tammcc --emit=c NAME.c` (or `tammcc --explain NAME.c`) from FILE's
# directory with the bare file name and compares the output byte for byte
# with NAME.expected.c (or NAME.explain.expected); prints a unified diff on a
# mismatch.  UPDATE=1 regenerates the expected file instead (review the diff
# with git before committing it).
#
# The generated C names its own scratch file in `#line` directives
# (/tmp/tammcc-XXXXXX/NAME.tamm.c, a fresh directory per run); that directory
# is replaced by <tmpdir> before comparing.
set -u
tammcc=$1
file=$2
mode=${3:-c}
case $tammcc in /*) ;; *) tammcc=$(pwd)/$tammcc ;; esac
dir=$(dirname "$file")
name=$(basename "$file")
stem=${name%.c}
cd "$dir" || exit 2
case $mode in
c) expected=$stem.expected.c; flag=--emit=c ;;
explain) expected=$stem.explain.expected; flag=--explain ;;
*) echo "run_golden.sh: mode is c or explain, not '$mode'" >&2; exit 2 ;;
esac
out=$(mktemp "${TMPDIR:-/tmp}/tammcc_golden.XXXXXX") || exit 2
err=$(mktemp "${TMPDIR:-/tmp}/tammcc_golden.XXXXXX") || exit 2
trap 'rm -f "$out" "$err" "$out.raw"' EXIT
"$tammcc" $flag "$name" >"$out.raw" 2>"$err"
rc=$?
if [ $rc -ne 0 ]; then
    echo "tammcc $flag $name failed (exit $rc):"
    cat "$err"
    exit 1
fi
sed -E 's#/tmp/tammcc-[A-Za-z0-9]{6}/#<tmpdir>/#g' "$out.raw" >"$out"
if [ "${UPDATE:-0}" = 1 ]; then
    cp "$out" "$expected"
    echo "$dir/$expected: updated"
    exit 0
fi
if [ ! -f "$expected" ]; then
    echo "$dir/$expected is missing (run with UPDATE=1 to create it)"
    exit 1
fi
if ! cmp -s "$expected" "$out"; then
    echo "$name: tammcc $flag output differs from $expected (--- expected, +++ actual):"
    diff -u "$expected" "$out" | sed '1,2s#\t.*##'
    exit 1
fi
if [ -s "$err" ]; then  # stderr (warnings) is part of the expected behaviour: none
    echo "$name: unexpected messages on stderr:"
    cat "$err"
    exit 1
fi
echo "$name ($mode): ok"
exit 0
