#!/bin/sh
# layering.sh — the runtime's dependencies point one way (docs/architecture.md).
#
# usage: tests/layering.sh [repository root [folder of the built rt objects]]
#
# rt/ has one folder per layer:  base < core < exec < gpu, mpi < obs < init.  A file's layer is its folder; a header's layer is the folder
# that holds it (header names are unique across rt/).  The rules, on
# #include "..." lines:
#   - base/ includes no header of another layer;
#   - core/ and exec/ include no header of gpu/, mpi/ or init/, and core/ none
#     of exec/: exec/ implements the executor interface core/executor.h
#     declares, bound at link time (the hot path crosses it on every task);
#   - gpu/ includes no header of mpi/, and mpi/ none of gpu/;
#   - no layer but init/ includes a header of init/ or of obs/;
#   - core/, exec/ and obs/ include no <mpi.h> and no CUDA header.
# obs/ may include the headers of the layers below (it reads tasks, blocks, GPUs
# and ranks); they reach obs only through the recorders they declare, which
# init/ installs.  init/ (tamm_init, tamm_finalize) may include every layer.
# Over all folders, the graph of include edges between folders has no cycle.
#
# Given the folder of the built objects (ctest passes the build's), the same
# rules hold at link level: an object of a layer has no undefined symbol that
# only the objects of a layer it may not include define (a function declared in
# a core header but defined in gpu/ would pass the include check).  The core
# may use a symbol defined only in exec/ if core/executor.h declares it.
#
# ALLOWED lists the violations tolerated, each one "file header" (empty: the
# core reaches gpu/ and mpi/ only through core/layer.h).  Any violation not in
# the list fails the check, and so does an entry that no longer occurs.
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
rt=$root/rt
objs=${2:-}
case $objs in '' | /*) ;; *) objs=$(pwd)/$objs ;; esac
cd "$rt" || { echo "layering: no $rt"; exit 1; }

ALLOWED=''

for d in base core exec gpu mpi obs init; do
  [ -d "$d" ] || { echo "layering: rt/$d is missing"; exit 1; }
done

found=$(mktemp) || exit 1
trap 'rm -f "$found"' EXIT

# every header's layer (header names are unique across rt/), then one pass over
# all files: "FILE HEADER" for each rule broken, "FILE <system>" for an MPI or
# CUDA header where it does not belong, and "edge FROM TO" for the folder graph
hdrs=$(for h in */*.h; do printf '%s %s ' "${h##*/}" "${h%%/*}"; done)
scan=$(mktemp) || exit 1
awk -v hdrs="$hdrs" '
  BEGIN { n = split(hdrs, a, " "); for (i = 1; i < n; i += 2) hl[a[i]] = a[i + 1] }
  FNR == 1 { layer = FILENAME; sub(/\/.*/, "", layer); sys = 0 }
  /^[ \t]*#[ \t]*include[ \t]*</ && layer ~ /^(core|exec|obs|base)$/ && !sys &&
    /<(mpi\.h|cuda[a-z_]*\.h|cublas[a-z_0-9]*\.h)>/ { print FILENAME, "<system>"; sys = 1 }
  /^[ \t]*#[ \t]*include[ \t]*"/ {
    h = $0; sub(/^[^"]*"/, "", h); sub(/".*/, "", h)
    if (!(h in hl) || hl[h] == layer) next # a header outside rt/ (include/tamm.h, ...), or its own layer
    to = hl[h]; print "edge", layer, to
    bad = 0
    if (layer == "base") bad = 1
    else if ((layer == "core" || layer == "exec") && (to == "gpu" || to == "mpi")) bad = 1
    else if ((layer == "gpu" && to == "mpi") || (layer == "mpi" && to == "gpu")) bad = 1
    else if (to == "init") bad = 1
    else if (to == "obs" && layer != "init") bad = 1
    if (bad) print FILENAME, h
  }' */*.c */*.h >"$scan"
grep -v '^edge ' "$scan" >"$found"

status=0
while read -r f h; do
  [ -n "$f" ] || continue
  if printf '%s\n' "$ALLOWED" | grep -qx "$f $h"; then
    continue
  fi
  echo "layering: NEW violation: rt/$f includes $h (see the rules in tests/layering.sh)"
  status=1
done <"$found"

printf '%s\n' "$ALLOWED" | while read -r f h; do
  [ -n "$f" ] || continue
  if ! grep -qx "$f $h" "$found"; then
    echo "layering: rt/$f no longer includes $h: remove it from ALLOWED in tests/layering.sh"
    exit 1
  fi
done || status=1

# ---- folder graph: no cycle ----
# Every #include "..." of a header in another folder is an edge between the two
# folders; the folder graph must be acyclic (tsort finds any loop).
# BACK_EDGES lists the edges that still close a cycle, each "from to",
# tolerated until removed: they are left out of the graph, and an entry whose
# edge no longer occurs fails the check, so the list only shrinks.  It is empty.
# The intended order is base < core < exec < gpu, mpi < obs < init.
BACK_EDGES=''
edges=$(mktemp) || exit 1
sed -n 's/^edge //p' "$scan" | sort -u >"$edges"
printf '%s\n' "$BACK_EDGES" | while read -r a b; do
  [ -n "$a" ] || continue
  grep -qx "$a $b" "$edges" && continue
  echo "layering: rt/$a no longer includes rt/$b: remove \"$a $b\" from BACK_EDGES in tests/layering.sh"
  exit 1
done || status=1
# (an empty pattern would match every edge: drop empty lines first)
printf '%s\n' "$BACK_EDGES" | sed '/^$/d' >"$edges.back"
grep -vxFf "$edges.back" "$edges" >"$edges.dag"
if ! loop=$(tsort "$edges.dag" 2>&1 >/dev/null) || [ -n "$loop" ]; then
  echo "layering: NEW folder cycle in the include graph:" $(printf '%s\n' "$loop" | sed -n 's/^tsort: \([a-z]*\)$/\1/p')
  status=1
fi
rm -f "$edges" "$edges.dag" "$edges.back"

# ---- the documented graph ----
# docs/architecture.md ("Include graph between folders") states the count of include lines of
# each edge; where the tree has that file, the counts must be today's.
doc=$root/docs/architecture.md
if [ -f "$doc" ]; then
  have=$(sed -n 's/^edge //p' "$scan" | sort | uniq -c | awk '{ print $2, "->", $3, $1 }' | sort)
  said=$(awk '/^### Include graph between folders/ { g = 1; next }
              g && /^```/ { if (++fence == 2) exit; next }
              g && fence == 1 { for (i = 1; i + 3 <= NF; i++) if ($(i + 1) == "->") print $i, "->", $(i + 2), $(i + 3) }' "$doc" | sort)
  if [ "$have" != "$said" ]; then
    echo "layering: docs/architecture.md's include graph between folders is not the tree's (include lines per edge):"
    printf '%s\n' "$said" >"$found.said"
    printf '%s\n' "$have" | diff "$found.said" - | sed -n 's/^< /  documented: /p; s/^> /  in rt\/:     /p'
    rm -f "$found.said"
    status=1
  fi
fi
rm -f "$scan"

# ---- link level ----
checked=
if [ -n "$objs" ]; then
  if [ ! -d "$objs/core" ]; then
    echo "layering: no objects under $objs (build the runtime first)"
    exit 1
  fi
  command -v nm >/dev/null 2>&1 || { echo "layering: nm not found"; exit 1; }
  defs=$(mktemp) && undef=$(mktemp) || exit 1
  trap 'rm -f "$found" "$defs" "$undef"' EXIT
  # "SYMBOL LAYER" for every definition, "SYMBOL LAYER FILE" for every use (nm -A
  # prefixes each line with its object, whose folder is its layer)
  nm -A --defined-only "$objs"/*/*.o | awk -v p="$objs/" '
    { f = substr($1, length(p) + 1); sub(/\.o:.*/, ".o", f); l = f; sub(/\/.*/, "", l) }
    NF == 3 && $2 ~ /^[TDBRVWCGS]$/ { print $3, l }' | sort -u >"$defs"
  nm -A -u "$objs"/*/*.o | awk -v p="$objs/" '
    { f = substr($1, length(p) + 1); sub(/\.o:.*/, ".o", f); l = f; sub(/\/.*/, "", l); print $NF, l, f }' >"$undef"
  # a symbol defined in the user's own layer or one it may use is fine
  # the core reaches exec/ only through what core/executor.h declares (bound at link time)
  execapi=$(grep -o 'tamm__[A-Za-z0-9_]*' core/executor.h | sort -u | tr '\n' ' ')
  sort "$undef" | join - "$defs" | awk -v execapi="$execapi" '
    BEGIN { n_api = split(execapi, api_list, " "); for (i = 1; i <= n_api; i++) api[api_list[i]] = 1 }
    { key = $1 " " $3; n[key]++; ok[key] += allowed($2, $4, $1); file[key] = $3; sym[key] = $1; from[key] = $2; to[key] = to[key] " " $4 }
    function allowed(a, b, s) {
      if (a == b) return 1
      if (a == "core" && b == "exec") return (s in api)
      if (a == "base") return 0
      if (b == "init") return 0
      if (b == "obs" && a != "init") return 0
      if ((a == "core" || a == "exec") && (b == "gpu" || b == "mpi")) return 0
      if ((a == "gpu" && b == "mpi") || (a == "mpi" && b == "gpu")) return 0
      return 1
    }
    END { for (k in n) if (!ok[k]) printf "rt/%s uses %s, defined only in%s\n", file[k], sym[k], to[k] }' |
    sort >"$found.link"
  while read -r line; do
    echo "layering: NEW link-level violation: $line"
    status=1
  done <"$found.link"
  rm -f "$found.link"
  checked=", link level checked"
fi

if [ $status -eq 0 ]; then
  echo "layering ok ($(grep -c . "$found") allowed violations left$checked)"
fi
exit $status
