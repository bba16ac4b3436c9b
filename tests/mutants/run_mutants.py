#!/usr/bin/env python3
"""run_mutants.py — mutation testing of the test suite (`make mutants`, issue 31 item 4).

Each tests/mutants/NAME.patch is one small, deliberate bug: a unified diff against the
source tree, after a header of `# ` lines:

    # mutant: NAME
    # changes: FILE: what the edit breaks, in one line
    # (any further comment lines: why this mutant is here)
    # tests: REGEX          the ctest -R regex of the Release tests that should kill it

For every mutant, one at a time, this script applies the patch to a scratch copy of the
source tree (WORK/src; the working tree is never touched), builds that copy (Release, in
WORK/build, one build directory reused for all mutants: a mutant costs the objects of the
files it touches and the relinks), runs `ctest -R REGEX -j2 --timeout 120` there and
records which tests failed: the tests that kill the mutant.  Every test of the list runs
(no early stop), since the count of killers is the point.  A table follows: mutant, its
change, the number and names of its killers; then one line of totals.  The exit status is
0 only when every mutant applied, built, and was killed by at least two tests (a mutant
that one test alone catches is one refactoring of that test away from going unnoticed).

    run_mutants.py [--source DIR] [--work DIR] [--jobs N] [NAME...]   run the mutants
    run_mutants.py --build-only [--source DIR] [--work DIR]   only refresh and build the copy
    run_mutants.py --check [--source DIR]     only check that every patch applies to the
                                              source tree (ctest mutants_apply; no build)

The scratch copy is refreshed from the source tree at the start of a run: a file whose
contents differ (a source edit since the last run, or a mutant left by an interrupted one)
is copied and gets a new time stamp, so that the build sees it; the others keep theirs.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SOURCE = os.path.normpath(os.path.join(HERE, "..", ".."))


class Mutant:
    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)[: -len(".patch")]
        self.changes = ""
        self.tests = ""
        self.files = []
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.startswith("# changes:"):
                    self.changes = line[len("# changes:"):].strip()
                elif line.startswith("# tests:"):
                    self.tests = line[len("# tests:"):].strip()
                elif line.startswith("+++ b/"):
                    self.files.append(line[len("+++ b/"):].strip())
        self.killers = []
        self.ran = 0
        self.status = ""  # "", or why the mutant could not be judged


def load_mutants(names):
    paths = sorted(os.path.join(HERE, f) for f in os.listdir(HERE) if f.endswith(".patch"))
    ms = [Mutant(p) for p in paths]
    if names:
        known = {m.name for m in ms}
        for n in names:
            if n not in known:
                sys.exit(f"run_mutants: no mutant {n} (tests/mutants/{n}.patch)")
        ms = [m for m in ms if m.name in names]
    return ms


def git_env(directory):
    # `git apply` inside a directory of a git repository patches paths relative to the
    # repository's root, which for the scratch copy (under build/) is the working tree:
    # stopping git's search at the directory's parent makes it patch the directory itself
    env = dict(os.environ)
    env["GIT_CEILING_DIRECTORIES"] = os.path.dirname(os.path.abspath(directory))
    return env


def git_apply(directory, patch, *opts):
    if shutil.which("git"):
        cmd = ["git", "apply", *opts, patch]
    else:  # GNU patch reads the same unified diffs (and skips the header)
        cmd = ["patch", "-p1", "-s", "-f", "-N", *(["--dry-run"] if "--check" in opts else []), "-i", patch]
    r = subprocess.run(cmd, cwd=directory, env=git_env(directory), capture_output=True, text=True)
    return r.returncode == 0, (r.stdout + r.stderr).strip()


def check(source, ms):
    bad = 0
    for m in ms:
        problems = []
        if not m.changes:
            problems.append("no '# changes:' line")
        if not m.tests:
            problems.append("no '# tests:' line")
        if not m.files:
            problems.append("no file changed")
        ok, out = git_apply(source, m.path, "--check")
        if not ok:
            problems.append("does not apply: " + out.replace("\n", "; "))
        if problems:
            bad += 1
            print(f"{m.name}: " + "; ".join(problems))
        else:
            print(f"{m.name}: applies ({', '.join(m.files)})")
    print(f"{len(ms)} mutants, {len(ms) - bad} apply cleanly, {bad} do not")
    return 1 if bad or len(ms) < 10 else 0


def source_files(source):
    """The files of the source tree: git's tracked and untracked-not-ignored files, or,
    outside a git checkout, every file but build directories."""
    r = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=source,
                       capture_output=True)
    if r.returncode == 0 and r.stdout:
        return [f for f in r.stdout.decode().split("\0") if f and os.path.isfile(os.path.join(source, f))]
    out = []
    for root, dirs, files in os.walk(source):
        dirs[:] = [d for d in dirs if not d.startswith("build") and d != ".git"]
        for f in files:
            out.append(os.path.relpath(os.path.join(root, f), source))
    return out


def same(a, b):
    try:
        if os.path.getsize(a) != os.path.getsize(b):
            return False
        with open(a, "rb") as fa, open(b, "rb") as fb:
            return fa.read() == fb.read()
    except OSError:
        return False


def sync(source, scratch, files):
    """Make scratch hold the source tree's files; a changed file gets a new time stamp."""
    n = 0
    for f in files:
        s, d = os.path.join(source, f), os.path.join(scratch, f)
        if same(s, d):
            continue
        os.makedirs(os.path.dirname(d), exist_ok=True)
        shutil.copyfile(s, d)
        shutil.copymode(s, d)
        os.utime(d, None)
        n += 1
    keep = set(files)
    for root, _dirs, names in os.walk(scratch):
        for nm in names:
            rel = os.path.relpath(os.path.join(root, nm), scratch)
            if rel not in keep:
                os.remove(os.path.join(root, nm))
    return n


def restore(source, scratch, rels):
    for f in rels:
        s, d = os.path.join(source, f), os.path.join(scratch, f)
        if os.path.exists(s):
            shutil.copyfile(s, d)
            os.utime(d, None)
        elif os.path.exists(d):
            os.remove(d)


def log_tail(path, n=30):
    with open(path, encoding="utf-8", errors="replace") as f:
        return "".join(f.readlines()[-n:])


def build(bdir, jobs, logpath):
    with open(logpath, "w") as log:
        return subprocess.run(["cmake", "--build", bdir, f"-j{jobs}"], stdout=log, stderr=subprocess.STDOUT).returncode == 0


FAILED_RE = re.compile(r"^\s*\d+\s+-\s+(\S+)\s+\(")
TOTAL_RE = re.compile(r"tests passed, (\d+) tests failed out of (\d+)")


def run_tests(bdir, regex, logpath):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    with open(logpath, "w") as log:
        subprocess.run(["ctest", "--test-dir", bdir, "-R", regex, "-j2", "--timeout", "120"],
                       stdout=log, stderr=subprocess.STDOUT, env=env)
    failed, total, after = [], 0, False
    with open(logpath, encoding="utf-8", errors="replace") as f:
        for line in f:
            t = TOTAL_RE.search(line)
            if t:
                total = int(t.group(2))
            if "The following tests FAILED:" in line:
                after = True
                continue
            mm = FAILED_RE.match(line) if after else None
            if mm:
                failed.append(mm.group(1))
    return sorted(set(failed)), total


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--source", default=DEFAULT_SOURCE)
    ap.add_argument("--work", default=None, help="scratch copy and its build (default SOURCE/build/mutants)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--build-only", action="store_true", help="refresh and build the unmutated scratch copy, then stop")
    ap.add_argument("names", nargs="*")
    a = ap.parse_args()
    source = os.path.abspath(a.source)
    ms = load_mutants(a.names)
    if a.check:
        return check(source, ms)

    work = os.path.abspath(a.work or os.path.join(source, "build", "mutants"))
    scratch, bdir = os.path.join(work, "src"), os.path.join(work, "build")
    os.makedirs(scratch, exist_ok=True)
    files = source_files(source)
    n = sync(source, scratch, files)
    print(f"=== mutants: scratch copy {scratch} ({n} of {len(files)} files refreshed), build {bdir}", flush=True)
    if not os.path.exists(os.path.join(bdir, "CMakeCache.txt")):
        with open(os.path.join(work, "configure.log"), "w") as log:
            if subprocess.run(["cmake", "-S", scratch, "-B", bdir, "-DCMAKE_BUILD_TYPE=Release"],
                              stdout=log, stderr=subprocess.STDOUT).returncode:
                print(log_tail(os.path.join(work, "configure.log")))
                sys.exit("run_mutants: the scratch copy does not configure")
    # the unmutated tree must build: a failure below is then the mutant's
    if not build(bdir, a.jobs, os.path.join(work, "build-pristine.log")):
        print(log_tail(os.path.join(work, "build-pristine.log")))
        sys.exit("run_mutants: the unmutated scratch copy does not build")
    if a.build_only:
        print(f"=== mutants: the unmutated scratch copy is built in {bdir}")
        return 0

    for m in ms:
        t0 = time.time()
        ok, out = git_apply(scratch, m.path)
        if not ok:
            m.status = "does not apply"
            print(f"--- {m.name}: does not apply: {out}", flush=True)
            continue
        try:
            blog = os.path.join(work, f"{m.name}.build.log")
            if not build(bdir, a.jobs, blog):
                m.status = "does not build"
                print(f"--- {m.name}: does not build (see {blog})", flush=True)
                print(log_tail(blog, 15))
                continue
            m.killers, m.ran = run_tests(bdir, m.tests, os.path.join(work, f"{m.name}.ctest.log"))
            if m.ran == 0:
                m.status = "no test matches"
            print(f"--- {m.name}: {len(m.killers)} of {m.ran} tests kill it ({int(time.time() - t0)} s)"
                  + (": " + " ".join(m.killers) if m.killers else ""), flush=True)
        finally:
            restore(source, scratch, m.files)
    # the scratch sources are the unmutated tree again (restore); its build catches up at the next run

    print()
    w = max(len(m.name) for m in ms)
    print(f"{'mutant':<{w}}  {'killed by':>9}  change / killing tests")
    strong = weak = survived = broken = 0
    for m in ms:
        if m.status:
            broken += 1
            verdict = m.status
        else:
            verdict = f"{len(m.killers)} of {m.ran}"
            if len(m.killers) >= 2:
                strong += 1
            elif m.killers:
                weak += 1
            else:
                survived += 1
        print(f"{m.name:<{w}}  {verdict:>9}  {m.changes}")
        print(f"{'':<{w}}  {'':>9}  killed by: {' '.join(m.killers) if m.killers else '(none)'}")
    print(f"mutants: {len(ms)}, killed by >= 2 tests: {strong}, by 1 test: {weak}, survived: {survived}, "
          f"not judged (apply/build/no tests): {broken}")
    return 0 if strong == len(ms) else 1


if __name__ == "__main__":
    sys.exit(main())
