#!/bin/sh
# plan_golden.sh TAMMCC PROGRAM.c GOLDEN — the CUDA plan of every task of PROGRAM.c, as
# `tammcc --explain` prints it (run in the program's directory), on the lines that matter: each
# task's header, its variants line and its "cuda ..." lines (the mapping onto the grid, the
# accumulated elements, the checks at submission).  They must equal GOLDEN; with UPDATE=1 the
# golden is rewritten instead (review the diff before committing it).
set -u
tammcc=$1 prog=$2 golden=$3
dir=$(cd "$(dirname "$prog")" && pwd)
name=$(basename "$prog")
tmp=$(mktemp "${TMPDIR:-/tmp}/tammplan.XXXXXX") || exit 1
trap 'rm -f "$tmp"' EXIT
(cd "$dir" && "$tammcc" --explain "$name") > "$tmp.all" 2>&1 || { cat "$tmp.all"; rm -f "$tmp.all"; echo "plan_golden: tammcc --explain $name failed"; exit 1; }
grep -E '^[^ ].*: task |^  variants: |^  cuda ' "$tmp.all" > "$tmp"
rm -f "$tmp.all"
if [ -n "${UPDATE:-}" ]; then
    cp "$tmp" "$golden"
    echo "plan_golden: wrote $golden"
    exit 0
fi
if ! diff -u "$golden" "$tmp"; then
    echo "plan_golden: the plan of $name differs from $golden (UPDATE=1 $0 $* rewrites it)"
    exit 1
fi
echo "plan_golden: $name: $(grep -c ': task ' "$tmp") tasks as planned in $(basename "$golden")"
