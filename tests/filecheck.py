#!/usr/bin/env python3
"""filecheck.py — a small FileCheck-like matcher for tamm's golden tests.

Owns: checking a tool's output (tammcc --emit=c, --explain, the CUDA plans)
against the lines that matter, written as directives in a check file, instead
of comparing the whole output to a snapshot.

Usage:  filecheck.py CHECKFILE [INPUT]        (INPUT defaults to stdin)
        exit 0 when every directive holds, 1 (with a report) when one fails,
        2 on a malformed check file.

Directives (any text may come before them on the line, e.g. `# CHECK:`):
  CHECK: P        a line holding P, at or after the end of the previous match
  CHECK-NEXT: P   P on the line right after the previous match's line
  CHECK-SAME: P   P on the previous match's line, after the previous match
  CHECK-NOT: P    P does not occur between the previous match and the next
                  positive match (or the end of the block / the input)
  CHECK-LABEL: P  splits the input into blocks: every label is found first,
                  in order, and the directives between two labels are matched
                  only between the two labels' lines
  CHECK-EMPTY:    the line right after the previous match is empty
Patterns are literal text, except `{{regex}}` parts (Python regular
expressions), as in LLVM FileCheck.  Matching ignores whitespace amounts: any
run of whitespace in a pattern matches any non-empty run of whitespace in the
input, and leading/trailing whitespace of a pattern is ignored.  Lines without
a directive are comments.

On a failure the report names the directive, its line in the check file, the
input range searched, and the nearest candidate line of the input (by
similarity), so that a wrong mode or a lost `#line` is easy to spot.
"""
import difflib
import re
import sys

KINDS = ("CHECK-LABEL", "CHECK-NEXT", "CHECK-SAME", "CHECK-NOT", "CHECK-EMPTY", "CHECK")
DIRECTIVE = re.compile(r"(?:^|[^A-Za-z0-9_-])(CHECK(?:-LABEL|-NEXT|-SAME|-NOT|-EMPTY)?):(.*)$")


class CheckError(Exception):
    """A malformed check file (exit 2)."""


class Directive:
    def __init__(self, kind, text, lineno):
        self.kind, self.text, self.lineno = kind, text.strip(), lineno
        self.regex = compile_pattern(self.text, lineno) if kind != "CHECK-EMPTY" else None


def compile_pattern(text, lineno):
    """Literal text with {{regex}} parts; whitespace runs match any whitespace run."""
    if not text:
        raise CheckError("line %d: empty pattern" % lineno)
    out, i = [], 0
    while i < len(text):
        j = text.find("{{", i)
        if j < 0:
            j = len(text)
        lit = text[i:j]
        for k, part in enumerate(re.split(r"\s+", lit)):
            if k:
                out.append(r"\s+")
            out.append(re.escape(part))
        if j == len(text):
            break
        e = text.find("}}", j + 2)
        if e < 0:
            raise CheckError("line %d: '{{' without '}}'" % lineno)
        while text.startswith("}", e + 2):  # '}}}': the regex ends with '}'
            e += 1
        out.append("(?:%s)" % text[j + 2:e])
        i = e + 2
    try:
        return re.compile("".join(out))
    except re.error as err:
        raise CheckError("line %d: bad regex: %s" % (lineno, err))


def parse_checks(lines):
    dirs = []
    for n, line in enumerate(lines, 1):
        m = DIRECTIVE.search(line)
        if m:
            d = Directive(m.group(1), m.group(2), n)
            if d.kind in ("CHECK-NEXT", "CHECK-SAME", "CHECK-EMPTY") and (not dirs or dirs[-1].kind == "CHECK-NOT"):
                raise CheckError("line %d: %s needs a positive match before it" % (n, d.kind))
            if d.kind == "CHECK-EMPTY" and d.text:
                raise CheckError("line %d: CHECK-EMPTY takes no pattern" % n)
            dirs.append(d)
    if not dirs:
        raise CheckError("no CHECK directives")
    return dirs


class Failure(Exception):
    def __init__(self, directive, msg, lo, hi, near=None):
        Exception.__init__(self, msg)
        self.directive, self.lo, self.hi, self.near = directive, lo, hi, near


def search(lines, d, line, col, hi):
    """First match of d at or after (line, col), before line hi: (line, end column)."""
    for n in range(line, hi):
        m = d.regex.search(lines[n], col if n == line else 0)
        if m:
            return n, m.end()
    return None


def nearest(lines, d, lo, hi):
    best, best_n = 0.0, None
    pat = re.sub(r"\{\{.*?\}\}", "", d.text)
    pat = " ".join(pat.split())
    for n in range(max(lo, 0), min(hi, len(lines))):
        r = difflib.SequenceMatcher(None, pat, " ".join(lines[n].split())).ratio()
        if r > best:
            best, best_n = r, n
    return best_n


def match_block(lines, dirs, lo, hi):
    """Match the non-label directives of one block, input lines [lo, hi)."""
    line, col, nots = lo, 0, []
    prev = None  # line of the previous positive match
    for d in dirs:
        if d.kind == "CHECK-NOT":
            nots.append(d)
            continue
        if d.kind == "CHECK":
            at = search(lines, d, line, col, hi)
            if at is None:
                raise Failure(d, "expected text not found", line, hi, nearest(lines, d, line, hi))
        elif d.kind in ("CHECK-NEXT", "CHECK-EMPTY"):
            n = prev + 1 if prev is not None else lo
            if n >= hi:
                raise Failure(d, "no line after the previous match", n, hi)
            if d.kind == "CHECK-EMPTY":
                if lines[n].strip():
                    raise Failure(d, "line is not empty", n, n + 1, n)
                at = (n, 0)
            else:
                m = d.regex.search(lines[n])
                if not m:
                    raise Failure(d, "not on the next line", n, n + 1, n)
                at = (n, m.end())
        else:  # CHECK-SAME
            m = d.regex.search(lines[prev], col) if prev is not None else None
            if not m:
                raise Failure(d, "not on the same line as the previous match", prev, prev + 1, prev)
            at = (prev, m.end())
        check_nots(lines, nots, line, col, at[0], d)
        nots = []
        prev, (line, col) = at[0], at
    check_nots(lines, nots, line, col, hi, None)


def check_nots(lines, nots, line, col, end, _next):
    """Each CHECK-NOT pattern must not match from (line, col) up to line `end` (exclusive:
    the line of the next match is not searched; the matcher works on whole lines)."""
    for d in nots:
        at = search(lines, d, line, col, end)
        if at is not None:
            raise Failure(d, "excluded text found", at[0], at[0] + 1, at[0])


def run(checkname, checklines, lines):
    dirs = parse_checks(checklines)
    labels, line = [], 0
    for i, d in enumerate(dirs):
        if d.kind == "CHECK-LABEL":
            at = search(lines, d, line, 0, len(lines))
            if at is None:
                raise Failure(d, "label not found", line, len(lines), nearest(lines, d, line, len(lines)))
            labels.append((i, at[0]))
            line = at[0] + 1
    bounds = [(-1, 0)] + labels + [(len(dirs), len(lines))]
    for k in range(len(bounds) - 1):
        (i0, l0), (i1, l1) = bounds[k], bounds[k + 1]
        block = dirs[i0 + 1:i1]
        if k == 0:
            match_block(lines, block, 0, l1)
        else:
            # the label's own line starts its block: it anchors CHECK-NEXT/SAME after it
            match_block_after_label(lines, [dirs[i0]] + block, l0, l1)


def match_block_after_label(lines, dirs, l0, hi):
    label = dirs[0]
    label.kind = "CHECK"  # matched again, as a plain CHECK, on its own line
    try:
        match_block(lines, dirs, l0, hi)
    finally:
        label.kind = "CHECK-LABEL"


def report(checkname, inputname, lines, f):
    d = f.directive
    out = ["%s:%d: error: %s" % (checkname, d.lineno, f), "  %s: %s" % (d.kind, d.text)]
    if f.lo is not None and f.hi is not None:
        out.append("  searched %s lines %d-%d" % (inputname, f.lo + 1, max(f.lo + 1, f.hi)))
    if f.near is not None and 0 <= f.near < len(lines):
        out.append("  nearest candidate, %s:%d: %s" % (inputname, f.near + 1, lines[f.near].rstrip()))
    return "\n".join(out)


def main(argv):
    if len(argv) not in (2, 3):
        sys.stderr.write("usage: filecheck.py CHECKFILE [INPUT]\n")
        return 2
    checkname = argv[1]
    with open(checkname, encoding="utf-8") as fh:
        checklines = fh.read().splitlines()
    if len(argv) == 3:
        inputname = argv[2]
        with open(inputname, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
    else:
        inputname = "<stdin>"
        text = sys.stdin.read()
    lines = text.splitlines()
    try:
        run(checkname, checklines, lines)
    except CheckError as e:
        sys.stderr.write("%s: malformed check file: %s\n" % (checkname, e))
        return 2
    except Failure as f:
        sys.stdout.write(report(checkname, inputname, lines, f) + "\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
