#!/bin/sh
# layering_selftest.sh — tests/layering.sh fails on what it must catch: a core
# file that includes a GPU header or an obs header, a new cycle between folders,
# and (link level) a core object that uses a symbol only the MPI layer defines,
# a GPU object that uses one only obs defines, and a core object that uses one
# of exec/ that the executor interface (core/executor.h) does not declare.  Each
# case runs the check on a copy of rt/ (or of the built objects) with one
# violation added.
#
# usage: tests/layering_selftest.sh <repository root> <folder of the built rt objects> <C compiler>
set -u
root=$1 objs=$2 cc=$3
check=$root/tests/layering.sh
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
status=0

# the tree as it is passes
if ! out=$(sh "$check" "$root" "$objs"); then
  echo "FAIL: the layering check fails on the tree itself: $out"
  status=1
fi

# include_case FILE HEADER EXPECTED: rt/FILE of a copy of the tree also includes
# HEADER; the check must fail with a message that matches the pattern *EXPECTED*.
include_case() {
  rm -rf "$tmp/src" && mkdir -p "$tmp/src" && cp -r "$root/rt" "$tmp/src/rt"
  printf '#include "%s"\n' "$2" >>"$tmp/src/rt/$1"
  out=$(sh "$check" "$tmp/src")
  case $? in 0) echo "FAIL: rt/$1 including $2 passed: $out"; status=1 ;; esac
  case $out in *$3*) ;; *) echo "FAIL: rt/$1 including $2: not named ($3): $out"; status=1 ;; esac
}

# link_case LAYER SYMBOL DEFINER: a copy of the built objects gains LAYER/probe.c.o,
# which calls SYMBOL; the check must fail naming the object, the symbol and
# the one layer that defines it (DEFINER, the third argument).
link_case() {
  rm -rf "$tmp/objs" && cp -r "$objs" "$tmp/objs"
  printf 'void %s(void);\nvoid tamm__selftest_probe(void) { %s(); }\n' "$2" "$2" >"$tmp/probe.c"
  "$cc" -c "$tmp/probe.c" -o "$tmp/objs/$1/probe.c.o" || { echo "FAIL: cannot compile the probe"; exit 1; }
  out=$(sh "$check" "$root" "$tmp/objs")
  case $? in 0) echo "FAIL: a $1 object using $2 passed: $out"; status=1 ;; esac
  case $out in *"link-level violation: rt/$1/probe.c.o uses $2, defined only in $3"*) ;;
    *) echo "FAIL: $1 using $2: not named: $out"; status=1 ;; esac
}

# include level: the core includes a GPU header, or an obs header (only init/ may)
include_case core/task.c gpu.h "NEW violation: rt/core/task.c includes gpu.h"
include_case core/task.c trace.h "NEW violation: rt/core/task.c includes trace.h"
# folder cycle: core -> exec while exec/ includes core headers; no per-folder
# rule forbids the edge, only the acyclicity check catches it
include_case core/task.c worker.h "NEW folder cycle*core"

# the documented include graph: an include the rules allow (exec/ of a core header) changes the
# count of its edge, which docs/architecture.md must then state
rm -rf "$tmp/src" && mkdir -p "$tmp/src/docs" && cp -r "$root/rt" "$tmp/src/rt" && cp "$root/docs/architecture.md" "$tmp/src/docs/"
if ! out=$(sh "$check" "$tmp/src"); then echo "FAIL: a copy of rt/ and docs/architecture.md fails: $out"; status=1; fi
printf '#include "task.h"\n' >>"$tmp/src/rt/exec/worker.c"
out=$(sh "$check" "$tmp/src")
case $? in 0) echo "FAIL: an include more than docs/architecture.md counts passed: $out"; status=1 ;; esac
case $out in *"in rt/:     exec -> core 12"*) ;; *) echo "FAIL: the stale count of exec -> core is not named: $out"; status=1 ;; esac

# link level: the core calls the MPI layer; gpu/ calls obs/ (the layers below obs
# reach it through the recorders init installs); the core calls an exec/ function
# the executor interface (core/executor.h) does not declare
link_case core tamm__flow_sync mpi
link_case gpu tamm__trace_msg obs
link_case core tamm__workers_stop exec

[ $status -eq 0 ] && echo "layering selftest ok"
exit $status
