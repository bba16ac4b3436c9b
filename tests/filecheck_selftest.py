#!/usr/bin/env python3
"""filecheck_selftest.py — the ctest filecheck_selftest: cases that filecheck.py must pass
and cases it must fail (each failing case also names a text its report must contain: the
directive, its check-file line, the nearest candidate).  Owns only these cases."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FC = os.path.join(HERE, "filecheck.py")

# (name, check file, input, expected exit status, texts the report must contain)
CASES = [
    ("plain", "CHECK: foo\nCHECK: bar\n", "x\nfoo\ny\nbar\n", 0, []),
    ("order", "CHECK: bar\nCHECK: foo\n", "foo\nbar\n", 1, ["check:2: error: expected text not found", "CHECK: foo"]),
    ("same line twice", "CHECK: a\nCHECK: b\n", "a b\n", 0, []),
    ("whitespace", "CHECK: int   x = 1 ;\n", "    int x\t=  1 ;\n", 0, []),
    ("whitespace needed", "CHECK: a b\n", "ab\n", 1, []),
    ("regex", "CHECK: f_cuda_{{[0-9a-f]+}}(x)\n", "f_cuda_494c8eee(x)\n", 0, []),
    ("regex fails", "CHECK: f_cuda_{{[0-9]+}}(x)\n", "f_cuda_abc(x)\n", 1, ["nearest candidate", "f_cuda_abc(x)"]),
    ("literal specials", "CHECK: a[0] (b) *c+.\n", "a[0] (b) *c+.\n", 0, []),
    ("literal not regex", "CHECK: a.c\n", "abc\n", 1, []),
    ("next", "CHECK: a\nCHECK-NEXT: b\n", "a\nb\n", 0, []),
    ("next fails", "CHECK: a\nCHECK-NEXT: b\n", "a\nx\nb\n", 1, ["check:2: error", "CHECK-NEXT: b", "not on the next line", ":2: x"]),
    ("same", "CHECK: a\nCHECK-SAME: c\n", "a b c\n", 0, []),
    ("same before", "CHECK: b\nCHECK-SAME: a\n", "a b\n", 1, ["CHECK-SAME"]),
    ("not", "CHECK: a\nCHECK-NOT: x\nCHECK: b\n", "a\ny\nb\nx\n", 0, []),
    ("not fails", "CHECK: a\nCHECK-NOT: x\nCHECK: b\n", "a\nx\nb\n", 1, ["check:2: error", "CHECK-NOT: x", "excluded text found"]),
    ("not at end", "CHECK: a\nCHECK-NOT: x\n", "a\nb\nx\n", 1, ["CHECK-NOT"]),
    ("not at start", "CHECK-NOT: x\nCHECK: a\n", "x\na\n", 1, ["CHECK-NOT"]),
    ("label blocks", "CHECK-LABEL: task 1\nCHECK: READ\nCHECK-LABEL: task 2\nCHECK: WRITE\n",
     "task 1\nREAD\ntask 2\nWRITE\n", 0, []),
    ("label confines", "CHECK-LABEL: task 1\nCHECK: WRITE\nCHECK-LABEL: task 2\nCHECK: WRITE\n",
     "task 1\nREAD\ntask 2\nWRITE\n", 1, ["check:2: error", "CHECK: WRITE"]),
    ("label missing", "CHECK-LABEL: task 3\n", "task 1\n", 1, ["label not found", "nearest candidate", "task 1"]),
    ("label next", "CHECK-LABEL: task 1\nCHECK-NEXT: READ\n", "task 1\nREAD\n", 0, []),
    ("empty", "CHECK: a\nCHECK-EMPTY:\nCHECK-NEXT: b\n", "a\n\nb\n", 0, []),
    ("empty fails", "CHECK: a\nCHECK-EMPTY:\n", "a\nb\n", 1, ["CHECK-EMPTY"]),
    ("mode", "CHECK: tamm_cc_ref({{.*}}, TAMM_READWRITE);\n", "tamm_cc_ref(&r, T0, 2, i0, TAMM_READ);\n", 1,
     ["nearest candidate", "TAMM_READ);"]),
    ("comments ignored", "# checks a and nothing else\nCHECK: a\n", "a\n", 0, []),
    ("prefix glued", "XCHECK: a\nCHECK: b\n", "b\n", 0, []),
    ("no directives", "just a comment\n", "a\n", 2, []),
    ("unclosed regex", "CHECK: {{a\n", "a\n", 2, []),
    ("next first", "CHECK-NEXT: a\n", "a\n", 2, []),
]


def main():
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, check, text, want, texts in CASES:
            cf = os.path.join(tmp, "check")
            with open(cf, "w") as fh:
                fh.write(check)
            p = subprocess.run([sys.executable, FC, cf], input=text, capture_output=True, text=True)
            out = p.stdout + p.stderr
            missing = [t for t in texts if t not in out]
            if p.returncode != want or missing:
                bad += 1
                print("FAIL %s: exit %d (want %d)%s\n%s" % (name, p.returncode, want,
                      ", report lacks %r" % missing if missing else "", out))
            else:
                print("ok   %s%s" % (name, "" if want == 0 else " (fails as it must)"))
    print("%d of %d cases as expected" % (len(CASES) - bad, len(CASES)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
