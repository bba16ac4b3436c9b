#!/usr/bin/env python3
"""check_trace.py — checks what TAMM_TRACE, TAMM_DAG and TAMM_STATS wrote
(docs/runtime.md "Observability"), with a real JSON parser.

  --trace F      the Chrome trace-event JSON: it parses; one process (pid) per
                 rank, each named; per rank one track per CPU worker with task
                 slices; slices on every track nest (Perfetto drops slices that
                 overlap without nesting); every flow has both ends, each inside
                 a slice of its track; with several ranks, block messages as
                 slices on both ranks joined by flows from the sender to the
                 receiver, and sends and receives agree;
  --gpus G --streams S   per rank one track per GPU stream ("GPU g stream s")
                 and per GPU copy stream, task slices on at least two streams,
                 host-to-device and device-to-host copies as slices;
  --io           (TAMM_MEMORY_LIMIT with spills) per rank tracks "spill file k"
                 holding every "io" slice: writes and read-backs of blocks,
                 each with its bytes and the thread that did it;
  --dag F        the Graphviz file is one well-formed digraph; with several
                 ranks one cluster per rank, and each message an edge from a
                 task of the sending rank to one of the receiving rank
                 (through the message's node);
  --stats F      the program's stderr: every TAMM_STATS line names its rank,
                 and every rank printed them;
  --stdout F     with --min-peak-from-stdout: "block bytes: N" there, and
                 every rank's "peak memory: M bytes" must have M >= N;
  --files F      the listing of the output directory: no file beyond the
                 trace, the DAG and the captured output (no per-rank leftovers).
Exit 0 if every check passes; else each failure is printed.
"""
import argparse
import collections
import json
import re
import sys

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg, file=sys.stderr)


def check(cond, msg):
    if not cond:
        fail(msg)
    return cond


EPS = 0.0015  # ts and dur are printed in microseconds with 3 decimals


def check_nesting(slices, where):
    """slices: list of (ts, dur, name) on one track: each pair nests or is disjoint."""
    ok = True
    stack = []
    for ts, dur, name in sorted(slices, key=lambda s: (s[0], -s[1])):
        end = ts + dur
        while stack and stack[-1][0] <= ts + EPS:
            stack.pop()
        if stack and end > stack[-1][0] + EPS:
            if ok:
                fail("%s: slice '%s' [%.3f, %.3f] overlaps '%s' ending at %.3f without nesting"
                     % (where, name, ts, end, stack[-1][1], stack[-1][0]))
            ok = False
        stack.append((end, name))
    return ok


def enclosing(slices, ts):
    for s_ts, s_dur, _ in slices:
        if s_ts - EPS <= ts <= s_ts + s_dur + EPS:
            return True
    return False


def check_trace(path, nranks, workers, gpus, streams, deps, io=False):
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        fail("%s is not valid JSON: %s" % (path, e))
        return
    print("trace: valid JSON")
    evs = doc["traceEvents"] if isinstance(doc, dict) else doc
    if not check(isinstance(evs, list) and evs, "the trace has events"):
        return
    pids = sorted(set(e.get("pid") for e in evs))
    check(pids == list(range(nranks)), "one process per rank: pids %s, expected 0..%d" % (pids, nranks - 1))
    pname = {e["pid"]: e["args"]["name"] for e in evs if e.get("ph") == "M" and e.get("name") == "process_name"}
    for r in range(nranks):
        check(r in pname and str(r) in pname[r], "rank %d's process is named (%s)" % (r, pname.get(r)))
    tname = {(e["pid"], e["tid"]): e["args"]["name"] for e in evs if e.get("ph") == "M" and e.get("name") == "thread_name"}
    tracks = collections.defaultdict(list)
    for e in evs:
        if e.get("ph") == "X":
            check(e.get("dur", -1) >= 0, "slice '%s' has a duration >= 0" % e.get("name"))
            tracks[(e["pid"], e["tid"])].append((e["ts"], e.get("dur", 0), e.get("name")))
    for key, sl in tracks.items():
        check(key in tname, "track pid %d tid %d (%d slices) is named" % (key[0], key[1], len(sl)))
        check_nesting(sl, "rank %d track '%s'" % (key[0], tname.get(key, key[1])))
    for r in range(nranks):
        cpu = [k for k, n in tname.items() if k[0] == r and n.startswith("cpu worker")]
        if workers:
            check(len(cpu) == workers, "rank %d: %d CPU worker tracks, expected %d" % (r, len(cpu), workers))
        ntask = sum(1 for e in evs if e.get("ph") == "X" and e.get("pid") == r and e.get("cat") == "task"
                    and (r, e["tid"]) in cpu)
        check(ntask > 0, "rank %d: task slices on its CPU worker tracks (%d)" % (r, ntask))
    print("trace: %d processes, tracks per rank: %s" % (len(pids), ", ".join(
        "%d: %d" % (r, sum(1 for k in tname if k[0] == r)) for r in pids)))

    # flows: both ends, each inside a slice of its track
    flows = collections.defaultdict(lambda: {"s": [], "f": []})
    for e in evs:
        if e.get("ph") in ("s", "f"):
            flows[(e.get("cat"), e.get("id"))][e["ph"]].append(e)
    for (cat, fid), ends in flows.items():
        if not check(len(ends["s"]) == 1 and len(ends["f"]) == 1,
                     "flow %s/%s has one start and one end (%d, %d)" % (cat, fid, len(ends["s"]), len(ends["f"]))):
            continue
        for ph in ("s", "f"):
            e = ends[ph][0]
            check(enclosing(tracks.get((e["pid"], e["tid"]), []), e["ts"]),
                  "flow %s/%s: its '%s' end at %.3f lies in a slice of rank %d track %s"
                  % (cat, fid, ph, e["ts"], e["pid"], tname.get((e["pid"], e["tid"]), e["tid"])))
    ndep = sum(1 for (c, _) in flows if c == "dep")
    msgflows = [(fid, v) for (c, fid), v in flows.items() if c == "msg" and v["s"] and v["f"]]
    print("trace: %d dependence arrows, %d message arrows" % (ndep, len(msgflows)))
    if deps:
        check(ndep > 0, "dependence arrows")
    if nranks > 1:
        check(msgflows, "message arrows between ranks")
        pairs = set()
        for fid, v in msgflows:
            s, f = v["s"][0], v["f"][0]
            check(s["pid"] != f["pid"], "message arrow %s joins two ranks (%d -> %d)" % (fid, s["pid"], f["pid"]))
            pairs.add((s["pid"], f["pid"]))
            # the ranks' clocks are aligned (one machine here): a message is received after it is sent
            check(f["ts"] >= s["ts"] - 50, "message arrow %s goes forward in time (%.3f -> %.3f)"
                  % (fid, s["ts"], f["ts"]))
        print("trace: rank pairs with messages: %s" % sorted(pairs))
        msgs = [e for e in evs if e.get("ph") == "X" and e.get("cat") == "msg"]
        sends = collections.Counter((e["pid"], e["args"]["peer"]) for e in msgs if e["name"].startswith("send"))
        recvs = collections.Counter((e["args"]["peer"], e["pid"]) for e in msgs if e["name"].startswith("recv"))
        check(sends and sends == recvs, "message slices: every send has its receive (%s vs %s)"
              % (dict(sends), dict(recvs)))
        for r in range(nranks):
            check(any(e["pid"] == r for e in msgs), "rank %d has message slices" % r)
        check(all(e["args"].get("bytes", -1) >= 0 for e in msgs), "message slices carry their bytes")
    if gpus:
        for r in range(nranks):
            for g in range(gpus):
                st = {}
                for s in range(streams):
                    k = [key for key, n in tname.items() if key[0] == r and n == "GPU %d stream %d" % (g, s)]
                    check(len(k) == 1, "rank %d: a track 'GPU %d stream %d'" % (r, g, s))
                    if k:
                        st[s] = k[0]
                check(any(key[0] == r and n == "GPU %d copy stream" % g for key, n in tname.items()),
                      "rank %d: a track 'GPU %d copy stream'" % (r, g))
                used = [s for s, key in st.items()
                        if any(e.get("ph") == "X" and e.get("cat") == "task" and (e["pid"], e["tid"]) == key for e in evs)]
                print("trace: rank %d GPU %d: task slices on streams %s" % (r, g, used))
                if streams > 1:
                    check(len(used) >= 2, "rank %d GPU %d: tasks on at least two streams (%s)" % (r, g, used))
        copies = [e for e in evs if e.get("ph") == "X" and e.get("cat") == "copy"]
        h2d = [e for e in copies if e["name"].startswith("H2D")]
        d2h = [e for e in copies if e["name"].startswith("D2H")]
        print("trace: %d host-to-device and %d device-to-host copy slices" % (len(h2d), len(d2h)))
        check(h2d and d2h, "host-to-device and device-to-host copies as slices")
        check(all(e["args"].get("bytes", 0) > 0 for e in copies), "copy slices carry their bytes")
        check(all(tname.get((e["pid"], e["tid"]), "").startswith("GPU ") for e in copies), "copies on GPU tracks")
    if io:
        ios = [e for e in evs if e.get("ph") == "X" and e.get("cat") == "io"]
        for r in range(nranks):
            mine = [e for e in ios if e["pid"] == r]
            writes = [e for e in mine if re.match(r"^write \w+\[\d+\]$", e["name"])]
            reads = [e for e in mine if re.match(r"^read \w+\[\d+\]$", e["name"])]
            print("trace: rank %d: %d spill writes and %d read-backs as slices, on %d tracks" % (
                r, len(writes), len(reads), len(set(e["tid"] for e in mine))))
            check(writes and reads, "rank %d: spill-file writes and read-backs as slices" % r)
            check(len(writes) + len(reads) == len(mine), "rank %d: every io slice is 'write B[i]' or 'read B[i]'" % r)
        check(all(tname.get((e["pid"], e["tid"]), "").startswith("spill file ") for e in ios),
              "io slices on the 'spill file k' tracks only")
        check(all(e["args"].get("bytes", 0) > 0 and e["args"].get("by") for e in ios),
              "io slices carry their bytes and the thread that did them")
        check(not any(e.get("cat") == "io" and not tname.get((e["pid"], e["tid"]), "").startswith("spill file ")
                      for e in evs), "no io slice elsewhere")


STMT_NODE = re.compile(r'^\s*(\w+)\s*\[(.*)\];$')
STMT_EDGE = re.compile(r'^\s*(\w+)\s*->\s*(\w+)\s*(\[.*\])?;$')


def check_dag(path, nranks):
    try:
        with open(path) as f:
            lines = f.read().split("\n")
    except OSError as e:
        fail("%s: %s" % (path, e))
        return
    while lines and lines[-1] == "":
        lines.pop()
    if not check(lines and lines[0].startswith("digraph") and lines[0].rstrip().endswith("{") and lines[-1] == "}",
                 "%s is one digraph { ... }" % path):
        return
    depth = 0
    clusters = []
    nodes, edges = {}, []
    cur = None
    ok = True
    for ln in lines[1:-1]:
        s = ln.strip()
        if s.startswith("subgraph"):
            m = re.match(r'subgraph (cluster_rank(\d+)) \{$', s)
            ok &= check(m is not None and depth == 0, "well-formed subgraph line: %r" % s)
            if m:
                clusters.append(int(m.group(2)))
                cur = int(m.group(2))
            depth += 1
        elif s == "}":
            depth -= 1
            cur = None
            ok &= check(depth >= 0, "balanced braces")
        elif s.startswith("node ") or s.startswith("label=") or s.startswith("graph ") or s.startswith("style="):
            continue
        elif STMT_EDGE.match(s):
            m = STMT_EDGE.match(s)
            edges.append((m.group(1), m.group(2), cur))
        elif STMT_NODE.match(s):
            m = STMT_NODE.match(s)
            nodes[m.group(1)] = (m.group(2), cur)
        else:
            ok &= check(False, "a DOT statement: %r" % s)
    check(depth == 0, "balanced braces at the end")
    if not ok:
        return
    print("dag: one digraph, %d nodes, %d edges, clusters %s" % (len(nodes), len(edges), clusters))
    if nranks == 1:
        check(edges, "dependence edges")
        return
    check(sorted(clusters) == list(range(nranks)), "one cluster per rank: %s" % clusters)
    rank_of = {}
    for n, (_, c) in nodes.items():
        m = re.match(r'r(\d+)_t\d+$', n)
        if m:
            rank_of[n] = int(m.group(1))
            check(c == int(m.group(1)), "node %s lies in its rank's cluster" % n)
    into, outof = collections.defaultdict(list), collections.defaultdict(list)
    for a, b, _ in edges:
        if b.startswith("m_"):
            into[b].append(a)
        if a.startswith("m_"):
            outof[a].append(b)
    msgs = set(into) | set(outof)
    check(msgs, "message nodes between ranks")
    for mname in msgs:
        m = re.match(r'm_(\d+)_(\d+)_\d+$', mname)
        if not check(m is not None, "message node name %s" % mname):
            continue
        src, dst = int(m.group(1)), int(m.group(2))
        check(len(into[mname]) == 1 and rank_of.get(into[mname][0]) == src,
              "message %s comes from a task of rank %d (%s)" % (mname, src, into[mname]))
        check(len(outof[mname]) == 1 and rank_of.get(outof[mname][0]) == dst,
              "message %s goes to a task of rank %d (%s)" % (mname, dst, outof[mname]))
    print("dag: %d messages between ranks" % len(msgs))


def check_stats(path, nranks, min_peak):
    with open(path, errors="replace") as f:
        lines = f.read().split("\n")
    stats = [l for l in lines if l.startswith("tamm stats") or l.startswith("tamm: GPU") or l.startswith("  ")]
    check(stats, "TAMM_STATS printed its summary")
    ranks = set()
    for l in stats:
        m = re.search(r'\brank (\d+)\b', l)
        if check(m is not None, "a TAMM_STATS line names its rank: %r" % l):
            ranks.add(int(m.group(1)))
    check(ranks == set(range(nranks)), "statistics from every rank (%s)" % sorted(ranks))
    print("stats: %d lines, each with its rank, ranks %s" % (len(stats), sorted(ranks)))
    if min_peak is not None:
        peaks = {}
        for l in stats:
            m = re.search(r'\brank (\d+)\b.*peak memory: (\d+) bytes', l)
            if m:
                peaks[int(m.group(1))] = int(m.group(2))
        check(set(peaks) == set(range(nranks)), "every rank reports its peak memory (%s)" % peaks)
        for r, p in sorted(peaks.items()):
            print("stats: rank %d peak memory %d bytes, blocks %d bytes" % (r, p, min_peak))
            check(p >= min_peak, "rank %d: peak memory %d >= the %d bytes of its blocks" % (r, p, min_peak))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trace")
    ap.add_argument("--dag")
    ap.add_argument("--stats")
    ap.add_argument("--stdout")
    ap.add_argument("--files")
    ap.add_argument("--ranks", type=int, default=1)
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--gpus", type=int, default=0)
    ap.add_argument("--streams", type=int, default=0)
    ap.add_argument("--deps", action="store_true", help="the program has dependent tasks: arrows expected")
    ap.add_argument("--io", action="store_true", help="TAMM_MEMORY_LIMIT spills: spill-file slices expected")
    ap.add_argument("--min-peak-from-stdout", action="store_true")
    a = ap.parse_args()
    if a.files:
        with open(a.files) as f:
            extra = set(f.read().split()) - {"trace.json", "dag.dot", "out", "err", "files"}
        check(not extra, "no files beyond the trace and the DAG: %s" % sorted(extra))
    if a.trace:
        check_trace(a.trace, a.ranks, a.workers, a.gpus, a.streams, a.deps, a.io)
    if a.dag:
        check_dag(a.dag, a.ranks)
    min_peak = None
    if a.min_peak_from_stdout:
        with open(a.stdout) as f:
            m = re.search(r'block bytes: (\d+)', f.read())
        if check(m is not None, "the program printed its block bytes"):
            min_peak = int(m.group(1))
    if a.stats:
        check_stats(a.stats, a.ranks, min_peak)
    if failures:
        print("%d checks failed" % len(failures), file=sys.stderr)
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
