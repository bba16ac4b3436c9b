#!/bin/sh
# comment_refs_selftest.sh — tests/comment_refs.py fails on what it must catch.  On a copy
# of the tree, one fault at a time: (a) a comment naming a file that does not exist, by
# path and by bare name; (b) a comment quoting a docs/ heading that does not exist; (c) a
# comment citing SPEC and one citing seeds/, and a docs/ page citing SPEC; (d) a comment
# naming a function name() that no code has, and one naming an identifier of tamm's own
# (tamm_..., cc_...) that no code has; (e) a function declared in tamm.h without an entry in
# docs/api.md, and one whose entry does not say how it fails.  (c) again, and (a) and (b),
# in every kind of file and folder the check covers: tests/, bench/, samples/, the generated
# tests/gpu/pregen and bench/gpu/pregen, CMake files, the Makefile, shell and Python scripts
# (a # comment and a docstring), cmake/ and .ci/.  Each must make
# the check fail with a message naming the fault; the copy without a fault passes
# exactly when the tree does.
#
# usage: tests/comment_refs_selftest.sh <repository root> <python3>
set -u
root=$1 py=$2
check=$root/tests/comment_refs.py
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
status=0

mkdir -p "$tmp/src"
for d in rt tammcc include tests samples bench docs cmake .ci; do
  cp -r "$root/$d" "$tmp/src/$d" || exit 1
done
for f in "$root"/*; do
  [ -f "$f" ] && cp "$f" "$tmp/src/"
done

"$py" "$check" "$root" >/dev/null; tree_rc=$?
"$py" "$check" "$tmp/src" >"$tmp/out"; copy_rc=$?
if [ "$tree_rc" != "$copy_rc" ]; then
  echo "FAIL: the copy of the tree checks differently from the tree ($copy_rc, $tree_rc):"
  cat "$tmp/out"
  status=1
fi

# fault NAME FILE TEXT EXPECTED: TEXT appended to FILE (relative to the root) of the copy
# must make the check fail with a line containing EXPECTED; FILE is restored after.
fault() {
  printf '%s\n' "$3" >>"$tmp/src/$2"
  out=$("$py" "$check" "$tmp/src")
  rc=$?
  cp "$root/$2" "$tmp/src/$2"
  if [ "$rc" = 0 ]; then
    echo "FAIL: $1: the check passed: $out"
    status=1
  fi
  case $out in
  *"$4"*) echo "ok: $1: $(printf '%s\n' "$out" | grep -F -- "$4" | head -n 1)" ;;
  *) echo "FAIL: $1: no line names '$4': $out"; status=1 ;;
  esac
}

fault "a) a path" rt/core/perm.h '/* see rt/core/no_such_file.c */' "names 'rt/core/no_such_file.c'"
fault "a) a bare name" tammcc/clause.h '/* as no_such_unit.h does */' "names 'no_such_unit.h'"
fault "b) a heading" rt/core/buffer.h '/* docs/runtime.md "No such heading" */' 'docs/runtime.md has no heading "No such heading"'
fault "b) a second heading" rt/core/buffer.h '/* docs/runtime.md "Block memory", "Nor this one" */' 'docs/runtime.md has no heading "Nor this one"'
fault "c) SPEC" include/tamm.h '/* (SPEC 3.1) */' "cites 'SPEC'"
fault "c) seeds/" rt/core/fence.c '// the table of seeds/tamm-runtime.md' "cites 'seeds/'"
fault "c) SPEC in tests/" tests/test_api.c '/* (SPEC 7) */' "tests/test_api.c"
fault "c) seeds/ in tests/" tests/test_perm_table.c '// the table of seeds/tamm-runtime.md' "cites 'seeds/'"
fault "c) SPEC in bench/" bench/mpi_skip.c '/* (SPEC 5) */' "bench/mpi_skip.c"
fault "c) SPEC in samples/" samples/gemm.c '/* (SPEC 3.1) */' "samples/gemm.c"
fault "c) SPEC in tests/gpu/pregen" tests/gpu/pregen/blas_gemm.tamm.c '/* (SPEC 3.4) */' "tests/gpu/pregen/blas_gemm.tamm.c"
fault "c) SPEC in bench/gpu/pregen" bench/gpu/pregen/b1.tamm.cu '/* (SPEC 3.4) */' "bench/gpu/pregen/b1.tamm.cu"
fault "c) SPEC in a CMakeLists.txt" tests/mpi/CMakeLists.txt '# ranks (SPEC sections 5 and 7)' "tests/mpi/CMakeLists.txt"
fault "c) SPEC in the top CMakeLists.txt" CMakeLists.txt '  # (SPEC 1)' "FAIL: CMakeLists.txt"
fault "c) SPEC in the Makefile" Makefile '# (SPEC 8)' "FAIL: Makefile"
fault "c) SPEC in cmake/" cmake/install.cmake '# (SPEC 4)' "cmake/install.cmake"
fault "c) SPEC in .ci/" .ci/run '# (SPEC 8)' ".ci/run"
fault "c) SPEC in a shell script" tests/tammcc_cuda/blas_emu.sh 'true  # (SPEC 3.4)' "tests/tammcc_cuda/blas_emu.sh"
fault "c) seeds/ in a Python comment" tests/trace/check_trace.py '# see seeds/tamm-runtime.md' "tests/trace/check_trace.py"
fault "c) SPEC in a Python docstring" tests/trace/check_trace.py '"""(SPEC 6)"""' "tests/trace/check_trace.py"
fault "a) a path in a script" bench/run_linalg.sh '# see bench/no_such_script.sh' "names 'bench/no_such_script.sh'"
fault "b) a heading in a CMake comment" tests/trace/CMakeLists.txt '# docs/runtime.md "No such heading"' 'docs/runtime.md has no heading "No such heading"'
fault "b) a heading in a test" tests/test_api.c '/* docs/language.md "No such heading" */' 'docs/language.md has no heading "No such heading"'
fault "c) a page" docs/errors.md 'As SPEC section 6 says.' "docs/errors.md"
fault "d) a function" rt/core/dag.h '/* done by free_all_the_things() */' "names free_all_the_things()"
fault "d) a name of tamm's own" tammcc/guard.h '/* (how: tamm_no_such_kind, guard.c) */' "names tamm_no_such_kind,"
fault "e) no entry" include/tamm.h 'int tamm_selftest_probe(void);' "tamm_selftest_probe() has no entry in docs/api.md"
printf '%s\n' 'int tamm_selftest_probe(void);' >>"$tmp/src/include/tamm.h"
fault "e) an entry without errors" docs/api.md '
### `int tamm_selftest_probe(void)`
Returns 1.' "the entry of tamm_selftest_probe() names no TAMM_E* error"
cp "$root/include/tamm.h" "$tmp/src/include/tamm.h"

[ "$status" = 0 ] && echo "comment_refs_selftest: every fault was caught"
exit "$status"
