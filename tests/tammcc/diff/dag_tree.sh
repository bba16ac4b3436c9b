#!/bin/sh
# dag_tree.sh TREESUM DOT — the dependence graph of samples/treesum.c (a recursive
# reduction by task functions, halves with inferred or declared range permissions) is a tree: run it
# over 16 blocks with TAMM_DAG, then check in the Graphviz output that no
# dependence edge joins two "left"/"right" tasks (siblings on disjoint halves
# are independent), that each combine task waits for its two halves, and that
# there are 15 of them.
set -eu
prog=$1
dot=$2
rm -f "$dot"
TAMM_DAG="$dot" TAMM_NUM_WORKERS=2 "$prog" 16 1 | grep -q ' OK ' || { echo "FAIL: treesum did not print OK"; exit 1; }
awk '
  /\[label="/ { split($0, a, "\""); split(a[2], l, "\\\\n"); id = $1; lab[id] = l[1]; n[l[1]]++ }
  / -> / && !/child/ { e++; from = $1; to = $3; sub(/;$/, "", to);
      if ((lab[from] == "left" || lab[from] == "right") && (lab[to] == "left" || lab[to] == "right")) {
          printf "FAIL: dependence %s (%s) -> %s (%s) between two halves\n", from, lab[from], to, lab[to]; bad = 1 }
      if (lab[to] == "combine") into[to]++ }
  END {
      if (n["left"] != 15 || n["right"] != 15) { printf "FAIL: %d left and %d right tasks, expected 15 each\n", n["left"], n["right"]; bad = 1 }
      if (n["combine"] != 15) { printf "FAIL: %d combine tasks, expected 15\n", n["combine"]; bad = 1 }
      for (c in into) if (into[c] < 2) { printf "FAIL: combine task %s waits for %d tasks, expected its two halves\n", c, into[c]; bad = 1 }
      if (bad) exit 1
      printf "dag_tree: a tree: %d left, %d right, %d combine tasks, %d dependence edges, none between halves\n", n["left"], n["right"], n["combine"], e
  }' "$dot"
