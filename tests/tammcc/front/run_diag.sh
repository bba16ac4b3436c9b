#!/bin/sh
# run_diag.sh TAMMCC FILE — a tammcc diagnostic test.
#
# Runs the front end only (`tammcc --emit=c -o /dev/null NAME.c`, from FILE's
# directory with the bare file name, so that diagnostics read "NAME.c:L:C:")
# and checks the output against the `// EXPECT: <line>` comments in FILE:
#   - every EXPECT line appears verbatim as a line of the output;
#   - no `error:` or `warning:` diagnostic line appears that is not expected;
#   - the exit status is non-zero iff an `error:` is expected.
# `// XFAIL: <why>` marks a test for a known tammcc bug: a failure is then
# reported but tolerated, and an unexpected pass fails (remove the marker).
set -u
tammcc=$1
file=$2
case $tammcc in /*) ;; *) tammcc=$(pwd)/$tammcc ;; esac
dir=$(dirname "$file")
name=$(basename "$file")
cd "$dir" || exit 2
out=$(mktemp "${TMPDIR:-/tmp}/tammcc_diag.XXXXXX") || exit 2
exp=$(mktemp "${TMPDIR:-/tmp}/tammcc_diag.XXXXXX") || exit 2
trap 'rm -f "$out" "$exp"' EXIT
"$tammcc" --emit=c -o /dev/null "$name" >"$out" 2>&1
rc=$?
sed -n 's|^[[:space:]]*// EXPECT: ||p' "$name" >"$exp"
xfail=$(sed -n 's|^[[:space:]]*// XFAIL: ||p' "$name")
if [ ! -s "$exp" ]; then
    echo "$name: no '// EXPECT:' line in the test" >&2
    exit 2
fi
fail=0
while IFS= read -r want; do
    if ! grep -qxF -- "$want" "$out"; then
        echo "MISSING:    $want"
        fail=1
    fi
done <"$exp"
grep -E '^[^ ]+:[0-9]+:[0-9]+: (error|warning): |^tammcc: (error|warning): ' "$out" | while IFS= read -r got; do
    if ! grep -qxF -- "$got" "$exp"; then
        echo "UNEXPECTED: $got"
    fi
done | grep . && fail=1
if grep -q ': error: ' "$exp"; then
    [ $rc -ne 0 ] || { echo "exit status 0, but an error is expected"; fail=1; }
else
    [ $rc -eq 0 ] || { echo "exit status $rc, but no error is expected"; fail=1; }
fi
if [ $fail -ne 0 ]; then
    echo "---- output of: tammcc --emit=c -o /dev/null $name (exit $rc)"
    cat "$out"
    if [ -n "$xfail" ]; then
        echo "XFAIL (known tammcc bug: $xfail)"
        exit 0
    fi
    exit 1
fi
if [ -n "$xfail" ]; then
    echo "$name: passes, but is marked XFAIL ($xfail): remove the marker"
    exit 1
fi
echo "$name: ok"
exit 0
