#!/bin/sh
# docs_error_table.sh SRCDIR BUILDDIR — every test named in docs/errors.md exists.
#
# In each table row of docs/errors.md the last cell names the test that produces
# the error: `ctest_name`, optionally followed by (`case`), or the word untested.
# The ctest name must be registered in BUILDDIR (ctest -N), and the case must occur
# verbatim in a file under SRCDIR/tests. A row with neither fails, so that a new
# row cannot go without its test (or an honest "untested"). Tests named mpi_* or
# tammcc_* are let off when the build has no test of that family at all (built
# without MPI, or without libclang).
set -u
if [ $# -ne 2 ]; then
    echo "usage: docs_error_table.sh SRCDIR BUILDDIR" >&2
    exit 2
fi
src=$1
build=$2
doc=$src/docs/errors.md
[ -f "$doc" ] || { echo "FAIL: $doc is missing"; exit 1; }
tests=$(cd "$build" && ctest -N | sed -n 's/^ *Test *#[0-9]*: //p')
[ -n "$tests" ] || { echo "FAIL: ctest -N in $build lists no test"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/errtab.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
# table rows, without the header and separator rows
grep -n '^|' "$doc" | grep -v '^[0-9]*:|[-| ]*|$' | grep -v '^[0-9]*:| code |\|^[0-9]*:| class |' >"$tmp/rows"
# the lines under tests/ that hold any row's case, found in one pass: a case occurs under
# tests/ exactly when it occurs in one of these lines
sed -n 's/.*|[[:space:]]*`[^`]*` (`\(.*\)`)[[:space:]]*|[[:space:]]*$/\1/p' "$tmp/rows" >"$tmp/cases"
if [ -s "$tmp/cases" ]; then grep -rhF -f "$tmp/cases" "$src/tests" >"$tmp/hits"; else : >"$tmp/hits"; fi
printf '%s\n' "$tests" >"$tmp/tests"
# one awk over the rows (a shell loop ran ~1,300 processes, 20-50 s on a busy 2-core machine)
awk -v TESTS="$tmp/tests" -v HITS="$tmp/hits" '
BEGIN {
    while ((getline t < TESTS) > 0) { have[t] = 1; split(t, p, "_"); fam[p[1] "_"] = 1 }
    nh = 0
    while ((getline h < HITS) > 0) hit[++nh] = h
}
{
    line = $0; sub(/:.*/, "", line)
    cell = $0; sub(/^[0-9]*:/, "", cell)
    sub(/\|[[:space:]]*$/, "", cell); sub(/.*\|/, "", cell)
    sub(/^[[:space:]]*/, "", cell); sub(/[[:space:]]*$/, "", cell)
    if (cell == "untested") { untested++; next }
    name = ""; kase = ""
    if (match(cell, /^`[^`]*`/)) name = substr(cell, 2, RLENGTH - 2)
    if (match(cell, /^`[^`]*` \(`.*`\)$/)) { kase = cell; sub(/^`[^`]*` \(`/, "", kase); sub(/`\)$/, "", kase) }
    if (name == "") {
        printf "FAIL: docs/errors.md:%s: the last cell names no test and does not say untested: '\''%s'\''\n", line, cell
        fail = 1; next
    }
    named++
    if (!(name in have)) {
        f = name; sub(/_.*/, "_", f)
        if ((f == "mpi_" || f == "tammcc_") && !(f in fam)) { skipped++; next } # built only with MPI / libclang
        printf "FAIL: docs/errors.md:%s: no ctest named '\''%s'\''\n", line, name
        fail = 1
    }
    if (kase != "") {
        found = 0
        for (i = 1; i <= nh && !found; i++) if (index(hit[i], kase)) found = 1
        if (!found) { printf "FAIL: docs/errors.md:%s: '\''%s'\'' (a case of %s) occurs nowhere under tests/\n", line, kase, name; fail = 1 }
    }
}
END {
    printf "docs/errors.md: %d rows name a test, %d are untested; %d name tests this build lacks (no MPI or no tammcc)\n", named, untested, skipped
    exit (fail || named == 0)
}' "$tmp/rows"

