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
fail=0 named=0 untested=0 skipped=0
# table rows, without the header and separator rows
grep -n '^|' "$doc" | grep -v '^[0-9]*:|[-| ]*|$' | grep -v '^[0-9]*:| code |\|^[0-9]*:| class |' >"${TMPDIR:-/tmp}/errtab.$$"
while IFS= read -r row; do
    line=${row%%:*}
    cell=$(printf '%s\n' "${row#*:}" | sed 's/|[[:space:]]*$//; s/.*|//; s/^[[:space:]]*//; s/[[:space:]]*$//')
    if [ "$cell" = untested ]; then
        untested=$((untested + 1))
        continue
    fi
    name=$(printf '%s\n' "$cell" | sed -n 's/^`\([^`]*\)`.*/\1/p')
    case=$(printf '%s\n' "$cell" | sed -n 's/^`[^`]*` (`\(.*\)`)$/\1/p')
    if [ -z "$name" ]; then
        echo "FAIL: docs/errors.md:$line: the last cell names no test and does not say untested: '$cell'"
        fail=1
        continue
    fi
    named=$((named + 1))
    if ! printf '%s\n' "$tests" | grep -qxF -- "$name"; then
        family=${name%%_*}_
        case $family in
        mpi_|tammcc_)
            # built only with MPI / with libclang: absent as a whole in such builds
            if ! printf '%s\n' "$tests" | grep -q "^$family"; then
                skipped=$((skipped + 1))
                continue
            fi ;;
        esac
        echo "FAIL: docs/errors.md:$line: no ctest named '$name'"
        fail=1
    fi
    if [ -n "$case" ] && ! grep -rqF -- "$case" "$src/tests"; then
        echo "FAIL: docs/errors.md:$line: '$case' (a case of $name) occurs nowhere under tests/"
        fail=1
    fi
done <"${TMPDIR:-/tmp}/errtab.$$"
rm -f "${TMPDIR:-/tmp}/errtab.$$"
echo "docs/errors.md: $named rows name a test, $untested are untested; $skipped name tests this build lacks (no MPI or no tammcc)"
[ "$named" -gt 0 ] || fail=1
exit $fail
