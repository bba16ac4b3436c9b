#!/bin/sh
# plan_golden.sh TAMMCC PROGRAM.c CHECK PYTHON FILECHECK — the CUDA plan of every task of
# PROGRAM.c, as `tammcc --explain` prints it (run in the program's directory), on the lines that
# matter: each task's header, its variants line and its "cuda ..." lines (the mapping onto the
# grid, the accumulated elements, the checks at submission).  They must satisfy CHECK
# (plans/NAME.check, tests/filecheck.py), written and reviewed by hand: no UPDATE=1 rewrites it.
set -u
tammcc=$1 prog=$2 check=$3 python=$4 filecheck=$5
dir=$(cd "$(dirname "$prog")" && pwd)
name=$(basename "$prog")
tmp=$(mktemp "${TMPDIR:-/tmp}/tammplan.XXXXXX") || exit 1
trap 'rm -f "$tmp"' EXIT
(cd "$dir" && "$tammcc" --explain "$name") > "$tmp.all" 2>&1 || { cat "$tmp.all"; rm -f "$tmp.all"; echo "plan_golden: tammcc --explain $name failed"; exit 1; }
grep -E '^[^ ].*: task |^  variants: |^  cuda ' "$tmp.all" > "$tmp"
rm -f "$tmp.all"
if ! "$python" "$filecheck" "$check" "$tmp"; then
    echo "plan_golden: the plan of $name does not satisfy $check"
    exit 1
fi
echo "plan_golden: $name: $(grep -c ': task ' "$tmp") tasks, checked against $(basename "$check")"
