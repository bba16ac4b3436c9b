#!/bin/sh
# docs_code_blocks.sh TAMMCC SRCDIR WORKDIR — the complete programs in the
# documentation compile with tammcc and run.
#
# A fenced code block whose info string is `c program` (a line "```c program")
# in README.md or docs/*.md is a complete program. Each one is written to
# WORKDIR/<file>_<n>.c (n counts the file's program blocks from 1), built with
# `tammcc -O1 -Wall -Wextra -Werror` (as a careful user would: the code tammcc
# adds must not warn either), and run with TAMM_NUM_WORKERS=2 and
# TAMM_CHECK_ACCESS=1 (inferred modes checked at run time); its exit status must
# be 0. If the program block is followed (only blank lines between) by a fenced
# block whose info string is `text output`, the program's standard output must
# equal that block's text. docs/language.md ("Complete programs in these pages")
# documents the marker.
#
# The test fails if a block does not compile, does not exit with 0, or prints
# something else than its output block, and if README.md or docs/language.md has
# no program block (a marker lost by an edit would otherwise pass silently).
#
# Environment: TAMM_INCLUDE (default SRCDIR/include).
set -u
if [ $# -ne 3 ]; then
    echo "usage: docs_code_blocks.sh TAMMCC SRCDIR WORKDIR" >&2
    exit 2
fi
tammcc=$1
src=$2
work=$3
: "${TAMM_INCLUDE:=$src/include}"
rm -rf "$work"
mkdir -p "$work" || exit 2

# extract FILE PREFIX: writes PREFIX_<n>.c (and PREFIX_<n>.expected) for each program block
extract() {
    awk -v pre="$2" '
    /^```c program[[:space:]]*$/ && !inblk && !inexp { n++; inblk = 1; waiting = 0; out = pre "_" n ".c"; printf "" > out;
                                             start[n] = NR; next }
    inblk && /^```[[:space:]]*$/ { inblk = 0; close(out); waiting = 1; next }
    inblk { print > out; next }
    waiting && /^[[:space:]]*$/ { next }
    waiting && /^```text output[[:space:]]*$/ { waiting = 0; inexp = 1; ef = pre "_" n ".expected";
                                                printf "" > ef; next }
    waiting { waiting = 0 }
    inexp && /^```[[:space:]]*$/ { inexp = 0; close(ef); next }
    inexp { print > ef; next }
    END { for (i = 1; i <= n; i++) print i, start[i] > (pre ".lines");
          if (inblk || inexp) { print "unterminated code block" > "/dev/stderr"; exit 1 } }
    ' "$1"
}

total=0
fail=0
for doc in "$src"/README.md "$src"/docs/*.md; do
    [ -f "$doc" ] || continue
    rel=${doc#"$src"/}
    pre=$work/$(echo "$rel" | sed 's|[/.]|_|g')
    if ! extract "$doc" "$pre"; then
        echo "FAIL: $rel: cannot extract its code blocks"
        fail=1
        continue
    fi
    count=0
    [ -s "$pre.lines" ] && count=$(wc -l <"$pre.lines")
    case $rel in
    README.md|docs/language.md)
        if [ "$count" -eq 0 ]; then
            echo "FAIL: $rel has no '\`\`\`c program' block"
            fail=1
        fi ;;
    esac
    i=1
    while [ "$i" -le "$count" ]; do
        c=${pre}_$i.c
        line=$(awk -v i="$i" '$1 == i { print $2 }' "$pre.lines")
        what="$rel:$line (program block $i)"
        total=$((total + 1))
        if ! TAMMCC_NVCC=none "$tammcc" -O1 -Wall -Wextra -Werror -I"$TAMM_INCLUDE" -o "${c%.c}" "$c" \
                >"${c%.c}.cc.log" 2>&1; then
            echo "FAIL: $what does not compile with tammcc:"
            sed 's/^/    /' "${c%.c}.cc.log"
            fail=1
            i=$((i + 1))
            continue
        fi
        (cd "$work" && TAMM_NUM_WORKERS=2 TAMM_CHECK_ACCESS=1 timeout 60 "${c%.c}") \
            >"${c%.c}.out" 2>"${c%.c}.err"
        rc=$?
        if [ $rc -ne 0 ]; then
            echo "FAIL: $what exits with status $rc:"
            sed 's/^/    /' "${c%.c}.err"
            fail=1
        elif [ -f "${c%.c}.expected" ] && ! cmp -s "${c%.c}.expected" "${c%.c}.out"; then
            echo "FAIL: $what prints something else than the output block after it:"
            diff "${c%.c}.expected" "${c%.c}.out" | sed 's/^/    /'
            fail=1
        else
            if [ -f "${c%.c}.expected" ]; then echo "ok: $what (output as documented)"; else echo "ok: $what"; fi
        fi
        i=$((i + 1))
    done
done
echo "$total program blocks checked"
[ "$total" -gt 0 ] || fail=1
exit $fail
