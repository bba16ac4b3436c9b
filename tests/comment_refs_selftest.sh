#!/bin/sh
# comment_refs_selftest.sh — tests/comment_refs.py fails on what it must catch.  On a copy
# of the tree, one fault at a time: (a) a comment naming a file that does not exist, by
# path and by bare name; (b) a comment quoting a docs/ heading that does not exist; (c) a
# comment citing SPEC and one citing seeds/, and a docs/ page citing SPEC; (d) a comment
# naming a function name() that no code has, and one naming an identifier of tamm's own
# (tamm_..., cc_...) that no code has; (e) a function declared in tamm.h without an entry in
# docs/api.md, and one whose entry does not say how it fails.  (c) again, and (a) and (b),
# in every kind of file and folder the check covers: tests/, bench/, samples/, the generated
# tests/rt/gpu/pregen and bench/gpu/pregen, CMake files, the Makefile, shell and Python scripts
# (a # comment and a docstring), cmake/ and .ci/.  Each must make
# the check fail with a message naming the fault; the copy without a fault checks exactly
# as the tree does (the same report).
#
# The faults are checked by one run of the check (comment_refs.py --faults), which reads the
# copy once and, for each fault, reads again what the fault changes (the check of the tree
# runs meanwhile); the last fault is also checked by a run of its own over the copy with that
# fault, which must give the same report.
#
# usage: tests/comment_refs_selftest.sh <repository root> <python3>
set -u
root=$1 py=$2
check=$root/tests/comment_refs.py
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
status=0

mkdir -p "$tmp/src" "$tmp/faults"
for d in rt tammcc include tests samples bench docs cmake .ci; do
  cp -r "$root/$d" "$tmp/src/$d" || exit 1
done
for f in "$root"/*; do
  [ -f "$f" ] && cp "$f" "$tmp/src/"
done

# fault NAME FILE TEXT EXPECTED [FILE2 TEXT2]...: TEXT appended to FILE (relative to the root)
# of the copy, and TEXT2 to FILE2 ..., must make the check fail with a line containing
# EXPECTED.  Each fault is a folder of $tmp/faults for comment_refs.py --faults.
nfaults=0
fault() {
  nfaults=$((nfaults + 1))
  c=$tmp/faults/$(printf '%03d' "$nfaults")
  mkdir "$c"
  printf '%s\n' "$1" >"$c/name"
  printf '%s\n' "$4" >"$c/expect"
  printf '%s\n' "$2" >"$c/1.file"
  printf '%s\n' "$3" >"$c/1.text"
  shift 4
  n=1
  while [ $# -ge 2 ]; do
    n=$((n + 1))
    printf '%s\n' "$1" >"$c/$n.file"
    printf '%s\n' "$2" >"$c/$n.text"
    shift 2
  done
}

fault "a) a path" rt/core/perm.h '/* see rt/core/no_such_file.c */' "names 'rt/core/no_such_file.c'"
fault "a) a bare name" tammcc/clause.h '/* as no_such_unit.h does */' "names 'no_such_unit.h'"
fault "b) a heading" rt/core/buffer.h '/* docs/runtime.md "No such heading" */' 'docs/runtime.md has no heading "No such heading"'
fault "b) a second heading" rt/core/buffer.h '/* docs/runtime.md "Block memory", "Nor this one" */' 'docs/runtime.md has no heading "Nor this one"'
fault "c) SPEC" include/tamm.h '/* (SPEC 3.1) */' "cites 'SPEC'"
fault "c) seeds/" rt/core/fence.c '// the table of seeds/tamm-runtime.md' "cites 'seeds/'"
fault "c) SPEC in tests/" tests/rt/test_api.c '/* (SPEC 7) */' "tests/rt/test_api.c"
fault "c) seeds/ in tests/" tests/rt/core/test_perm_table.c '// the table of seeds/tamm-runtime.md' "cites 'seeds/'"
fault "c) SPEC in bench/" bench/mpi_skip.c '/* (SPEC 5) */' "bench/mpi_skip.c"
fault "c) SPEC in samples/" samples/gemm.c '/* (SPEC 3.1) */' "samples/gemm.c"
fault "c) SPEC in tests/rt/gpu/pregen" tests/rt/gpu/pregen/blas_gemm.tamm.c '/* (SPEC 3.4) */' "tests/rt/gpu/pregen/blas_gemm.tamm.c"
fault "c) SPEC in bench/gpu/pregen" bench/gpu/pregen/b1.tamm.cu '/* (SPEC 3.4) */' "bench/gpu/pregen/b1.tamm.cu"
fault "c) SPEC in a CMakeLists.txt" tests/rt/mpi/CMakeLists.txt '# ranks (SPEC sections 5 and 7)' "tests/rt/mpi/CMakeLists.txt"
fault "c) SPEC in the top CMakeLists.txt" CMakeLists.txt '  # (SPEC 1)' "FAIL: CMakeLists.txt"
fault "c) SPEC in the Makefile" Makefile '# (SPEC 8)' "FAIL: Makefile"
fault "c) SPEC in cmake/" cmake/install.cmake '# (SPEC 4)' "cmake/install.cmake"
fault "c) SPEC in .ci/" .ci/run '# (SPEC 8)' ".ci/run"
fault "c) SPEC in a shell script" tests/tammcc/cuda/blas_emu.sh 'true  # (SPEC 3.4)' "tests/tammcc/cuda/blas_emu.sh"
fault "c) seeds/ in a Python comment" tests/rt/obs/check_trace.py '# see seeds/tamm-runtime.md' "tests/rt/obs/check_trace.py"
fault "c) SPEC in a Python docstring" tests/rt/obs/check_trace.py '"""(SPEC 6)"""' "tests/rt/obs/check_trace.py"
fault "a) a path in a script" bench/run_linalg.sh '# see bench/no_such_script.sh' "names 'bench/no_such_script.sh'"
fault "b) a heading in a CMake comment" tests/rt/obs/CMakeLists.txt '# docs/runtime.md "No such heading"' 'docs/runtime.md has no heading "No such heading"'
fault "b) a heading in a test" tests/rt/test_api.c '/* docs/language.md "No such heading" */' 'docs/language.md has no heading "No such heading"'
fault "c) a page" docs/errors.md 'As SPEC section 6 says.' "docs/errors.md"
fault "d) a function" rt/core/dag.h '/* done by free_all_the_things() */' "names free_all_the_things()"
fault "d) a name of tamm's own" tammcc/guard.h '/* (how: tamm_no_such_kind, guard.c) */' "names tamm_no_such_kind,"
fault "e) no entry" include/tamm.h 'int tamm_selftest_probe(void);' "tamm_selftest_probe() has no entry in docs/api.md"
fault "e) an entry without errors" docs/api.md '
### `int tamm_selftest_probe(void)`
Returns 1.' "the entry of tamm_selftest_probe() names no TAMM_E* error" \
  include/tamm.h 'int tamm_selftest_probe(void);'

"$py" "$check" "$root" >"$tmp/tree" &
tree_pid=$!
"$py" "$check" "$tmp/src" --faults "$tmp/faults" >"$tmp/out"; copy_rc=$?
wait "$tree_pid"; tree_rc=$?
if [ "$tree_rc" != "$copy_rc" ] || ! cmp -s "$tmp/tree" "$tmp/out"; then
  echo "FAIL: the copy of the tree checks differently from the tree ($copy_rc, $tree_rc):"
  diff "$tmp/tree" "$tmp/out"
  status=1
fi

for c in "$tmp"/faults/*; do
  name=$(cat "$c/name") expect=$(cat "$c/expect")
  if ! [ -f "$c/rc" ]; then
    echo "FAIL: $name: not checked"
    status=1
    continue
  fi
  out=$(cat "$c/out") rc=$(cat "$c/rc")
  if [ "$rc" = 0 ]; then
    echo "FAIL: $name: the check passed: $out"
    status=1
  fi
  case $out in
  *"$expect"*) echo "ok: $name: $(printf '%s\n' "$out" | grep -F -- "$expect" | head -n 1)" ;;
  *) echo "FAIL: $name: no line names '$expect': $out"; status=1 ;;
  esac
done

# the last fault again, by a run of the check of its own over the copy with that fault
for f in "$c"/*.file; do
  cat "${f%.file}.text" >>"$tmp/src/$(cat "$f")"
done
"$py" "$check" "$tmp/src" >"$tmp/alone"; rc=$?
if [ "$rc" != "$(cat "$c/rc")" ] || ! cmp -s "$tmp/alone" "$c/out"; then
  echo "FAIL: $(cat "$c/name"): checked alone, the report differs ($rc):"
  diff "$c/out" "$tmp/alone"
  status=1
fi

[ "$status" = 0 ] && echo "comment_refs_selftest: every fault was caught ($nfaults faults)"
exit "$status"
