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

# include level: core/task.c includes gpu.h
mkdir -p "$tmp/src" && cp -r "$root/rt" "$tmp/src/rt"
printf '#include "gpu.h"\n' >>"$tmp/src/rt/core/task.c"
out=$(sh "$check" "$tmp/src")
case $? in 0) echo "FAIL: core/task.c including gpu.h passed: $out"; status=1 ;; esac
case $out in *"NEW violation: rt/core/task.c includes gpu.h"*) ;; *) echo "FAIL: not named: $out"; status=1 ;; esac

# include level: core/task.c includes trace.h (only init/ may include obs/)
rm -rf "$tmp/src" && mkdir -p "$tmp/src" && cp -r "$root/rt" "$tmp/src/rt"
printf '#include "trace.h"\n' >>"$tmp/src/rt/core/task.c"
out=$(sh "$check" "$tmp/src")
case $? in 0) echo "FAIL: core/task.c including trace.h passed: $out"; status=1 ;; esac
case $out in *"NEW violation: rt/core/task.c includes trace.h"*) ;; *) echo "FAIL: not named: $out"; status=1 ;; esac

# folder cycle: core/task.c includes worker.h (core -> exec, while exec/ includes
# core headers); no per-folder rule forbids the edge, only the acyclicity check
# catches it.
rm -rf "$tmp/src" && mkdir -p "$tmp/src" && cp -r "$root/rt" "$tmp/src/rt"
printf '#include "worker.h"\n' >>"$tmp/src/rt/core/task.c"
out=$(sh "$check" "$tmp/src")
case $? in 0) echo "FAIL: a cycle core <-> exec passed: $out"; status=1 ;; esac
case $out in *"NEW folder cycle"*core*) ;; *) echo "FAIL: cycle not named: $out"; status=1 ;; esac

# link level: an object of core/ that calls tamm__flow_sync (defined in mpi/ only)
cp -r "$objs" "$tmp/objs"
printf 'void tamm__flow_sync(int kind);\nvoid tamm__selftest_probe(void) { tamm__flow_sync(0); }\n' >"$tmp/probe.c"
"$cc" -c "$tmp/probe.c" -o "$tmp/objs/core/probe.c.o" || { echo "FAIL: cannot compile the probe"; exit 1; }
out=$(sh "$check" "$root" "$tmp/objs")
case $? in 0) echo "FAIL: a core object using an mpi symbol passed: $out"; status=1 ;; esac
case $out in *"link-level violation: rt/core/probe.c.o uses tamm__flow_sync, defined only in mpi"*) ;;
  *) echo "FAIL: not named: $out"; status=1 ;; esac

# link level: an object of gpu/ that calls tamm__trace_msg (defined in obs/ only: the
# layers below obs reach it through the recorders init installs)
rm -rf "$tmp/objs" && cp -r "$objs" "$tmp/objs"
printf 'void tamm__trace_msg(void);\nvoid tamm__selftest_probe2(void) { tamm__trace_msg(); }\n' >"$tmp/probe2.c"
"$cc" -c "$tmp/probe2.c" -o "$tmp/objs/gpu/probe2.c.o" || { echo "FAIL: cannot compile the probe"; exit 1; }
out=$(sh "$check" "$root" "$tmp/objs")
case $? in 0) echo "FAIL: a gpu object using an obs symbol passed: $out"; status=1 ;; esac
case $out in *"link-level violation: rt/gpu/probe2.c.o uses tamm__trace_msg, defined only in obs"*) ;;
  *) echo "FAIL: not named: $out"; status=1 ;; esac

# link level: an object of core/ that calls tamm__workers_stop (defined in exec/, and
# not part of the executor interface core/executor.h declares)
rm -rf "$tmp/objs" && cp -r "$objs" "$tmp/objs"
printf 'void tamm__workers_stop(void);\nvoid tamm__selftest_probe3(void) { tamm__workers_stop(); }\n' >"$tmp/probe3.c"
"$cc" -c "$tmp/probe3.c" -o "$tmp/objs/core/probe3.c.o" || { echo "FAIL: cannot compile the probe"; exit 1; }
out=$(sh "$check" "$root" "$tmp/objs")
case $? in 0) echo "FAIL: a core object using an exec symbol outside executor.h passed: $out"; status=1 ;; esac
case $out in *"link-level violation: rt/core/probe3.c.o uses tamm__workers_stop, defined only in exec"*) ;;
  *) echo "FAIL: not named: $out"; status=1 ;; esac

[ $status -eq 0 ] && echo "layering selftest ok"
exit $status
