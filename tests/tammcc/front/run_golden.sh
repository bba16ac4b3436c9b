#!/bin/sh
# run_golden.sh TAMMCC FILE [c|explain] PYTHON FILECHECK — a tammcc golden test.
#
# Runs `tammcc --emit=c NAME.c` (or `tammcc --explain NAME.c`) from FILE's directory with the
# bare file name and checks the output against the lines that matter, NAME.check (or
# NAME.explain.check), with tests/filecheck.py: on a failure it prints the directive, its line
# in the check file and the nearest line of the output.  Check files are written and reviewed
# by hand (each says what it checks and how it was verified): there is no UPDATE=1 that
# rewrites them.  tammcc must print nothing on stderr.
#
# The generated C names its own scratch file in `#line` directives
# (NAME.tamm.c in a directory mkdtemp makes afresh for each run); that directory is replaced by
# <tmpdir> before checking.
set -u
tammcc=$1
file=$2
mode=$3
python=$4
filecheck=$5
case $tammcc in /*) ;; *) tammcc=$(pwd)/$tammcc ;; esac
dir=$(dirname "$file")
name=$(basename "$file")
stem=${name%.c}
cd "$dir" || exit 2
case $mode in
c) check=$stem.check; flag=--emit=c ;;
explain) check=$stem.explain.check; flag=--explain ;;
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
if [ ! -f "$check" ]; then
    echo "$dir/$check is missing"
    exit 1
fi
if ! "$python" "$filecheck" "$check" "$out"; then
    echo "$name: tammcc $flag output does not satisfy $check (the output: tammcc $flag $dir/$name)"
    exit 1
fi
if [ -s "$err" ]; then  # stderr (warnings) is part of the expected behaviour: none
    echo "$name: unexpected messages on stderr:"
    cat "$err"
    exit 1
fi
echo "$name ($mode): ok, $(grep -c 'CHECK' "$check") directives of $check hold"
exit 0
