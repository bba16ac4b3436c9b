#!/usr/bin/env python3
"""comment_refs.py ROOT [--faults DIR] — the comments of the sources point inside the repository.

Over every comment of the sources, build files and scripts, and over docs/api.md against
include/tamm.h.  The comments: /* ... */ and // ... of the .c .h .cu .cpp files under
ROOT/rt tammcc include tests samples bench (generated ones too: tests/rt/gpu/pregen and
bench/gpu/pregen copy their sources' comments); # ... of CMakeLists.txt, Makefile and the
.cmake .cmake.in .sh .py .supp and #! files under those folders, cmake/, .ci/ and ROOT; and
the triple-quoted strings of .py files.  c) skips this checker and its selftest
(comment_refs*), which name the citations they catch.

 a) a file a comment names exists.  A path-like word is a word ending in .c .h .cu .md .sh
    .py .txt or .cmake.  One with a '/' (docs/runtime.md, rt/core/memlimit.c,
    core/executor.h) must exist relative to ROOT, to ROOT/rt (how the runtime's folders
    name one another: core/layer.h) or to the comment's own folder or a folder above it
    (install/tammcc_rule/main.c in a comment of tests/); a bare name (memunit.h) must exist
    somewhere under rt/ tammcc/ include/ tests/ samples/ bench/ docs/ cmake/ .ci/ or at
    ROOT.  A name exists also where NAME.in does (tammConfig.cmake: configure_file makes
    it).  Not checked: a name in angle brackets (<cuda_runtime.h>, a system header), a
    generic name whose stem is capitals (NAME.tamm.c), the words f.c, file.c, file.cu and
    prog.c, which stand for any user file, and a name not found whose last part the file's
    own code spells (what a script writes, CMake installs or a test reads: the markdown
    tables of bench/run_*.sh, CTest's cost data).
 b) a heading a comment quotes exists: after a .md path, `"Heading"` (optionally after a
    comma, and further `, "Other"` / ` and "Other"` for the same file) must be a title
    of that file: a markdown heading outside fenced code, or the bold lead of a paragraph
    or list item (**Start and stop.**, - **GPUs under MPI** (...)).  The quote matches a
    title equal to it, or one that continues it with ':' or ' (' ("Block states" names
    "Block states: the execution state machine"); backquotes are ignored.
 c) no comment cites SPEC, seeds/ or "the seed's" (documents that do not ship with tamm);
    nor does any page of docs/ or README.md, whose relative links must name files of the
    repository (docs/ stands alone).
 d) a function a comment names as `name()` exists: `name` occurs, outside comments (code
    or string literals), in some .c .h .cu .cpp file under rt/ tammcc/ include/ tests/
    samples/ bench/, or in the code of a build file or script above (not this checker's
    selftest, whose code spells its faults).  So does every name of tamm's own, in lower
    case, that a comment names with or without parentheses (tamm_..., tamm__..., cc_...:
    the runtime's, the API's and tammcc's identifiers); not a pattern (tamm_get_buf_*, tamm_task_<function>_<line>).
 e) every function include/tamm.h declares (a prototype ending in ';', outside comments)
    has an entry in docs/api.md, and the entry says how it fails.  An entry is a code span
    of docs/api.md, outside fenced code, holding the declaration `... name(` (`a / _b / _c(`
    declares a, and a with its last `_part` replaced by _b and by _c).  Its text is the
    section under the heading when the span is in a heading, the table's header row and
    the row when it is in a table row, else the paragraph.  That text must name a TAMM_E*
    code or say "no error" / "no errors" (the function cannot fail).

Prints one line per problem (FILE:LINE: ...) and a summary; exit status 1 if any.

comment_refs.py ROOT --faults DIR — the same, and then the check of each fault of DIR
(for tests/comment_refs_selftest.sh, see check_faults) applied to ROOT one at a time: the
tree is read once, and for each fault only what it changes is read and checked again.
"""
import io
import os
import re
import sys

SRC_DIRS = ("rt", "tammcc", "include", "tests", "samples", "bench")
BARE_DIRS = SRC_DIRS + ("docs", "cmake", ".ci")
CODE_EXT = (".c", ".h", ".cu", ".cpp")
PATH_EXT = ("c", "h", "cu", "md", "sh", "py", "txt", "cmake")
CITE = r"\bSPEC\b|\bseeds/|\bthe seed's\b|\bseed table\b"
# file names that comments use as examples ("a warning in f.c"), never checked as paths
EXAMPLE_NAMES = {"f.c", "file.c", "file.cu", "prog.c"}
HASH_DIRS = SRC_DIRS + ("cmake", ".ci")
HASH_NAMES = ("CMakeLists.txt", "Makefile")
HASH_EXT = (".cmake", ".cmake.in", ".sh", ".py", ".supp")
SELF = "comment_refs"


def walk(root, top, exts, keep=None):
    """Files under ROOT/top with one of exts, or for which keep(full path) is true, as paths
    relative to ROOT (build* and hidden folders below top skipped)."""
    out = []
    base = os.path.join(root, top)
    for d, dirs, files in os.walk(base):
        dirs[:] = sorted(x for x in dirs if not x.startswith("build") and not x.startswith("."))
        for f in sorted(files):
            full = os.path.join(d, f)
            if f.endswith(exts) or (keep is not None and keep(full)):
                out.append(os.path.relpath(full, root))
    return out


def hash_file(path):
    """Whether path is a build file or script, whose comments start with '#'."""
    f = os.path.basename(path)
    if f in HASH_NAMES or f.endswith(HASH_EXT):
        return True
    if "." in f:
        return False
    with open(path, "rb") as fh:
        return fh.read(2) == b"#!"


def hash_kind(path):
    f = os.path.basename(path)
    if f.endswith(".py"):
        return "py"
    if f == "CMakeLists.txt" or f.endswith((".cmake", ".cmake.in")):
        return "cmake"
    return "sh"


def lex_hash(text, kind):
    """Split a build file or script into (code, comments) as lex() does.  kind "sh" (shell,
    make, suppressions): '#' starts a comment at the start of a word outside quotes, and
    here-documents are code; "cmake": '#' outside double quotes; "py": '#' outside strings,
    and a triple-quoted string is a comment too.  Whole-line comments in a row make one
    comment, a comment after code one of its own; a first line '#!' is none."""
    code, comments = [], []
    quote = None        # the string open at the end of the line before: ' " or a triple quote
    doc = None          # the comment of the triple-quoted string open
    heredoc = None      # (word, tabs stripped) of the here-document open
    run = None          # the comment of whole-line comments gathered
    for ln, s in enumerate(text.split("\n"), 1):
        if heredoc is not None:
            code.append(s)
            if (s.lstrip("\t") if heredoc[1] else s) == heredoc[0]:
                heredoc = None
            run = None
            continue
        if ln == 1 and s.startswith("#!"):
            code.append("")
            continue
        out, i, n, cm = [], 0, len(s), None
        while i < n:
            c = s[i]
            if quote is not None and len(quote) == 3:
                j = s.find(quote, i)
                j = n if j < 0 else j
                doc[1].append((ln, s[i:j]))
                out.append(" " * (j - i))
                if j < n:
                    out.append("   ")
                    quote = doc = None
                i = j + 3
                continue
            if c == "\\" and quote != "'" or c == "\\" and kind == "py":
                out.append(s[i:i + 2])
                i += 2
                continue
            if quote is not None:
                if c == quote:
                    quote = None
                out.append(c)
                i += 1
                continue
            if c == "#" and (kind != "sh" or i == 0 or s[i - 1] in " \t;&|()"):
                cm = s[i:]
                break
            if kind == "py" and s.startswith(('"""', "'''"), i):
                quote = s[i:i + 3]
                doc = (ln, [])
                comments.append(doc)
                out.append("   ")
                i += 3
                continue
            if c == '"' or c == "'" and kind != "cmake":
                quote = c
            elif kind == "sh" and s.startswith("<<", i):
                m = re.match(r"<<(-?)\s*['\"]?(\w+)['\"]?", s[i:])
                if m:
                    heredoc = (m.group(2), m.group(1) == "-")
            out.append(c)
            i += 1
        line_code = "".join(out)
        code.append(line_code)
        if cm is None:
            if quote is None or len(quote) != 3:
                run = None
            continue
        if line_code.strip() or run is None:
            run = (ln, [])
            comments.append(run)
        run[1].append((ln, cm.lstrip("#")))
        if line_code.strip():
            run = None
    return "\n".join(code), comments


LEX_NEXT = re.compile(r"/[*/]|[\"']")


def lex(text):
    """Split C source into (code, comments): code is the text with every comment replaced
    by spaces (newlines kept, string and character literals kept); comments is a list of
    (line, [(line, text of that line of the comment)])."""
    code = []
    comments = []
    i, n, line = 0, len(text), 1
    while i < n:
        m = LEX_NEXT.search(text, i)          # the next comment or literal: code up to it
        k = m.start() if m else n
        if k > i:
            seg = text[i:k]
            code.append(seg)
            line += seg.count("\n")
            i = k
            continue
        c = text[i]
        if c == "/":
            block = text[i + 1] == "*"
            start = line
            j = text.find("*/", i + 2) if block else text.find("\n", i)
            if j < 0:
                j = n
            end = j + 2 if block else j
            body = text[i + 2:j]
            lines = []
            for k, part in enumerate(body.split("\n")):
                lines.append((start + k, part))
            comments.append((start, lines))
            seg = text[i:min(end, n)]
            code.append(re.sub(r"[^\n]", " ", seg))
            line += seg.count("\n")
            i = end
            continue
        j = i + 1
        while j < n and text[j] != c and text[j] != "\n":
            j += 2 if text[j] == "\\" else 1
        seg = text[i:j + 1]
        code.append(seg)
        line += seg.count("\n")
        i = j + 1
    return "".join(code), comments


def comment_text(lines):
    """A comment's lines without their decoration, joined by single spaces, and for each
    character of the result the source line it comes from."""
    parts, where = [], []
    for ln, s in lines:
        s = LEAD_STARS.sub("", s)                 # leading ' * '
        s = LEAD_MARKS.sub("", s)                 # '/**', '//!', '///<' remainders
        s = s.strip()
        if not s:
            continue
        if parts:
            parts.append(" ")
            where.append(ln)
        parts.append(s)
        where.extend([ln] * len(s))
    return "".join(parts), where


def md_titles(path):
    """The titles of a markdown file: headings outside fenced code, and bold leads."""
    titles = set()
    fence = None
    with open(path, encoding="utf-8") as f:
        for raw in f:
            s = raw.rstrip("\n")
            fence, inside = fences(s, fence)
            if inside:
                continue
            m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", s)
            if m:
                titles.add(norm(m.group(1)))
                continue
            m = re.match(r"^\s*(?:[-*+]\s+|\d+\.\s+)?\*\*(.+?)\*\*", s)
            if m:
                titles.add(norm(m.group(1)).rstrip(".").rstrip(":"))
    return titles


def fences(s, fence):
    """Track fenced code (CommonMark: an opening ``` or ~~~ whose info string has no backquote,
    closed by a line of at least as many of the same character).  Returns the new fence
    state and whether line s is code or a fence line (not prose)."""
    if fence is None:
        m = re.match(r"^ {0,3}(`{3,}|~{3,})([^`]*)$", s)
        return (m.group(1), True) if m else (None, False)
    m = re.match(r"^ {0,3}(`{3,}|~{3,})\s*$", s)
    if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
        return None, True
    return fence, True


def norm(s):
    return re.sub(r"\s+", " ", s.replace("`", "")).strip()


def title_ok(q, titles):
    q = norm(q)
    for t in titles:
        if t == q or t.startswith(q + ":") or t.startswith(q + " ("):
            return True
    return False


LEAD_STARS = re.compile(r"^\s*\*+(?!/)")
LEAD_MARKS = re.compile(r"^[*/<!]+")
CITE_RE = re.compile(CITE)
CAPS = re.compile(r"[A-Z_]+")
FIRST_HEADING = re.compile(r",?\s*\"([^\"]+)\"")
MORE_HEADING = re.compile(r"(?:,|\s+and)\s*\"([^\"]+)\"")
FUNCTION_RE = re.compile(r"(?<![\w])([A-Za-z_]\w*)\(\)")
OWN_NAME_RE = re.compile(r"(?<![\w<])((?:tamm_|tamm__|cc_)[a-z0-9_]*[a-z0-9])(?![\w*<])")
PATH_RE = re.compile(r"(?<![\w./<-])((?:\.\./|[\w.+-]+/)*[\w+-][\w.+-]*\.(?:%s))(?![\w/>-]|\.\w)"
                     % "|".join(PATH_EXT))


def lex_file(root, p):
    """(code, comments) of ROOT/p, a C-family source or a build file or script."""
    with open(os.path.join(root, p), encoding="utf-8", errors="replace") as f:
        text = f.read()
    return lex(text) if p.endswith(CODE_EXT) else lex_hash(text, hash_kind(p))


def code_idents(p, code):
    """The identifiers p's code gives to d) (none for the selftest, whose code spells its faults)."""
    if not p.endswith(CODE_EXT) and SELF in os.path.basename(p):
        return frozenset()
    return frozenset(re.findall(r"[A-Za-z_]\w*", code))


def index(root):
    """What the checks of the comments look up, from the tree: the bare names of its files,
    and every checked file's (code, comments) and identifiers."""
    # every file of the repository, for bare names
    bare = set()
    for top in BARE_DIRS:
        for p in walk(root, top, tuple("." + e for e in PATH_EXT)):
            bare.add(os.path.basename(p))
        for p in walk(root, top, (".in",)):
            bare.add(os.path.basename(p)[:-3])
    for f in os.listdir(root):
        if os.path.isfile(os.path.join(root, f)):
            bare.add(f)
    # every C-family source of the tree, then the build files and scripts (tamm_add_executable
    # is a CMake function)
    files = []
    for top in SRC_DIRS:
        files += walk(root, top, CODE_EXT)
    files += [f for f in sorted(os.listdir(root))
              if os.path.isfile(os.path.join(root, f)) and hash_file(os.path.join(root, f))]
    for top in HASH_DIRS:
        files += walk(root, top, HASH_EXT, keep=hash_file)
    lexed, own = {}, {}
    for p in files:
        lexed[p] = lex_file(root, p)
        own[p] = code_idents(p, lexed[p][0])
    return {"bare": bare, "lexed": lexed, "own": own, "idents": frozenset().union(*own.values())}


def check_comments(root, p, code, comments, bare, idents, title_cache):
    """Checks a) to d) over the comments of p.  Returns its problems, its counts, and what they
    depend on besides p and the files of the tree: the names looked up in idents and the
    markdown files whose titles were read."""
    problems = []
    counts = {"names": 0, "comments": 0, "paths": 0, "headings": 0, "functions": 0}
    looked, mds = set(), set()

    def bad(ln, msg):
        problems.append("%s:%d: %s" % (p, ln, msg))

    def known(name):
        looked.add(name)
        return name in idents

    def own(ref):
        """Whether p's own code spells ref's last part: what it writes, installs or reads."""
        return re.search(r"(?<![\w.])%s(?![\w])" % re.escape(os.path.basename(ref)), code)

    self_file = SELF in os.path.basename(p)
    for _, lines in comments:
        counts["comments"] += 1
        text, where = comment_text(lines)
        if not text:
            continue
        # c) SPEC and seeds/
        for m in CITE_RE.finditer(text) if not self_file else ():
            bad(where[m.start()],
                "cites '%s', a document that does not ship with tamm (cite docs/ instead)" % m.group(0))
        # a) and b) paths, and headings after .md paths
        for m in PATH_RE.finditer(text):
            ref = m.group(1)
            ln = where[m.start()]
            stem = os.path.basename(ref).split(".")[0]
            if ref in EXAMPLE_NAMES or CAPS.fullmatch(stem):
                continue
            counts["paths"] += 1
            if "/" in ref:
                cands = [os.path.join(root, ref), os.path.join(root, "rt", ref)]
                d = os.path.dirname(p)
                while d:
                    cands.append(os.path.join(root, d, ref))
                    d = os.path.dirname(d)
                cands += [c + ".in" for c in cands]
                found = next((c for c in cands if os.path.isfile(c)), None)
                if found and found.endswith(".in"):
                    continue
                if not found:
                    if not own(ref):
                        bad(ln, "names '%s', which is not a file of the repository" % ref)
                    continue
            else:
                if ref not in bare:
                    if not own(ref):
                        bad(ln, "names '%s', which is no file of the repository" % ref)
                    continue
                found = None
            if not ref.endswith(".md"):
                continue
            rest = text[m.end():]
            h = FIRST_HEADING.match(rest)
            while h:
                counts["headings"] += 1
                if found is None:
                    found = next((os.path.join(dp, ref) for dp, _, fs in os.walk(root)
                                  if ref in fs and "/build" not in dp), None)
                if found not in title_cache:
                    title_cache[found] = md_titles(found)
                mds.add(found)
                if not title_ok(h.group(1), title_cache[found]):
                    bad(where[m.end() + h.start(1)], "%s has no heading \"%s\"" % (ref, h.group(1)))
                rest = rest[h.end():]
                h = MORE_HEADING.match(rest)
        # d) name(), and tamm's own names
        for kind, regex, shown in (("functions", FUNCTION_RE, "%s()"), ("names", OWN_NAME_RE, "%s")):
            for m in regex.finditer(text):
                counts[kind] += 1
                if not known(m.group(1)):
                    bad(where[m.start()],
                        "names %s, which occurs in no code of rt/ tammcc/ include/ tests/ samples/ bench/"
                        " (nor in a script)" % (shown % m.group(1)))
    return problems, counts, (looked, mds)


def check_pages(root, cache):
    """c) over README.md and docs/: its problems and the number of pages.  cache holds each
    page's problems by its text (the files of the tree being the same)."""
    problems = []
    pages = ["README.md"] + walk(root, "docs", (".md",))
    for p in pages:
        with open(os.path.join(root, p), encoding="utf-8") as f:
            text = f.read()
        if (p, text) not in cache:
            cache[(p, text)] = check_page(root, p, text)
        problems += cache[(p, text)]
    return problems, len(pages)


def check_page(root, p, text):
    problems = []
    fence = None
    for ln, s in enumerate(io.StringIO(text), 1):
        fence, inside = fences(s.rstrip("\n"), fence)
        for m in re.finditer(CITE, s):
            problems.append("%s:%d: cites '%s', a document that does not ship with tamm"
                            % (p, ln, m.group(0)))
        if inside:
            continue
        for m in re.finditer(r"\]\(([^)\s#]+)(?:#[^)]*)?\)", s):
            target = m.group(1)
            if re.match(r"^[a-z]+:", target):
                continue
            full = os.path.normpath(os.path.join(root, os.path.dirname(p), target))
            if not full.startswith(root + os.sep) or not os.path.exists(full):
                problems.append("%s:%d: links to '%s', which is not a file of the repository"
                                % (p, ln, target))
    return problems


def check_api(root, code):
    """e) the functions of include/tamm.h, whose code (comments blanked) is code, against
    docs/api.md: its problems and the number of functions."""
    problems = []
    hdr = "include/tamm.h"
    flat = re.sub(r"#[^\n]*", " ", code)
    decls = []
    for m in re.finditer(r"(?:^|(?<=[;{}]))\s*((?:[A-Za-z_]\w*[\s*]+)+?)\b(tamm_\w+)\s*\(((?:[^;{}()]|\([^;{}()]*\))*)\)\s*;", flat):
        if "typedef" in m.group(1) or "return" in m.group(1):
            continue
        decls.append((m.group(2), flat.count("\n", 0, m.start(2)) + 1))
    codes = re.findall(r"\b(TAMM_E[A-Z]+)\s*=", code)
    api = os.path.join(root, "docs", "api.md")
    with open(api, encoding="utf-8") as f:
        md = f.read().split("\n")
    entries = {}
    fence = None
    for i, s in enumerate(md):
        fence, inside = fences(s, fence)
        if inside:
            continue
        for span in re.findall(r"`([^`]+)`", s):
            dm = re.match(r"^(?:[A-Za-z_]\w*[\s*]+)+?(tamm_\w+)((?:\s*/\s*_\w+)*)\s*\(", span)
            if not dm:
                continue
            names = [dm.group(1)]
            for suf in re.findall(r"_\w+", dm.group(2)):
                names.append(dm.group(1).rsplit("_", 1)[0] + suf)
            if re.match(r"^#{1,6}\s", s):
                j = i + 1
                while j < len(md) and not re.match(r"^#{1,6}\s", md[j]):
                    j += 1
                body = "\n".join(md[i:j])
            elif s.lstrip().startswith("|"):
                j = i
                while j > 0 and md[j - 1].lstrip().startswith("|"):
                    j -= 1
                body = md[j] + "\n" + s
            else:
                a = i
                while a > 0 and md[a - 1].strip():
                    a -= 1
                b = i
                while b + 1 < len(md) and md[b + 1].strip():
                    b += 1
                body = "\n".join(md[a:b + 1])
            for nm in names:
                entries.setdefault(nm, []).append((i + 1, body))
    for name, ln in decls:
        if name not in entries:
            problems.append("%s:%d: %s() has no entry in docs/api.md" % (hdr, ln, name))
            continue
        if not any(re.search(r"\b(?:%s)\b" % "|".join(codes), body) or re.search(r"\bno\s+errors?\b", body, re.I)
                   for _, body in entries[name]):
            problems.append("docs/api.md:%d: the entry of %s() names no TAMM_E* error and does not say 'no error'"
                            % (entries[name][0][0], name))
    return problems, len(decls)


def check(root, idx, memo):
    """Every check over the tree at ROOT whose index is idx.  memo holds what is already known
    of this tree (filled in with the rest): "files", check_comments' results by file;
    "titles", md_titles' by file; "pages", check_pages' cache.  Returns the report and the
    exit status."""
    per_file = memo["files"]
    for p, (code, comments) in idx["lexed"].items():
        if p not in per_file:
            per_file[p] = check_comments(root, p, code, comments, idx["bare"], idx["idents"], memo["titles"])
    problems = []
    counts = {"names": 0, "comments": 0, "paths": 0, "headings": 0, "functions": 0}
    for p in idx["lexed"]:
        problems += per_file[p][0]
        for k, v in per_file[p][1].items():
            counts[k] += v
    page_problems, npages = check_pages(root, memo["pages"])
    api_problems, napi = check_api(root, idx["lexed"]["include/tamm.h"][0])
    problems += page_problems + api_problems
    out = ["FAIL: " + line for line in problems]
    out.append("comment_refs: %d files, %d comments: %d file names, %d quoted headings, %d name() "
               "references, %d names of tamm's own; %d pages; %d functions of tamm.h against docs/api.md; "
               "%d problems"
               % (len(idx["lexed"]), counts["comments"], counts["paths"], counts["headings"],
                  counts["functions"], counts["names"], npages, napi, len(problems)))
    return "\n".join(out) + "\n", 1 if problems else 0


def check_faults(root, faults, idx, memo):
    """--faults DIR: each folder of DIR (in order of name) is one fault, files 1.file, 1.text,
    2.file, 2.text ...: text N.text appended to the file N.file names (relative to ROOT).
    Each fault is applied to ROOT, the tree checked, and ROOT restored; the report goes to
    the folder's out and the exit status to its rc.  The check is the whole check, from the
    index of the tree without faults: a file a fault changes is read again, and a file whose
    check could change with it (a name it looked up that the fault's code adds or removes, a
    markdown file whose titles it read that the fault changes) is checked again."""
    for case in sorted(os.listdir(faults)):
        d = os.path.join(faults, case)
        edits, n = [], 1
        while os.path.exists(os.path.join(d, "%d.file" % n)):
            with open(os.path.join(d, "%d.file" % n)) as f:
                rel = os.path.normpath(f.read().strip())
            with open(os.path.join(d, "%d.text" % n), "rb") as f:
                edits.append((rel, f.read()))
            n += 1
        saved = {}
        for rel, text in edits:
            path = os.path.join(root, rel)
            if rel not in saved:
                with open(path, "rb") as f:      # an existing file: the index's file names hold
                    saved[rel] = f.read()
            with open(path, "ab") as f:
                f.write(text)
        try:
            changed = set(saved)
            if all(rel in idx["lexed"] or rel.endswith(".md") for rel in changed):
                cidx = dict(idx, lexed=dict(idx["lexed"]), own=dict(idx["own"]))
                for rel in changed & set(idx["lexed"]):
                    cidx["lexed"][rel] = lex_file(root, rel)
                    cidx["own"][rel] = code_idents(rel, cidx["lexed"][rel][0])
                flipped = set()
                if any(cidx["own"][rel] != idx["own"][rel] for rel in changed & set(idx["lexed"])):
                    cidx["idents"] = frozenset().union(*cidx["own"].values())
                    flipped = cidx["idents"] ^ idx["idents"]
                mds = {os.path.realpath(os.path.join(root, rel)) for rel in changed if rel.endswith(".md")}
                titles = {k: v for k, v in memo["titles"].items()
                          if k is None or os.path.realpath(k) not in mds}
                known = {p: r for p, r in memo["files"].items()
                         if p not in changed and not (r[2][0] & flipped)
                         and not any(k is not None and os.path.realpath(k) in mds for k in r[2][1])}
            else:                                   # a file the index does not read: all again
                cidx, titles, known = index(root), {}, {}
            out, rc = check(root, cidx, {"files": known, "titles": titles, "pages": memo["pages"]})
        finally:
            for rel, text in saved.items():
                with open(os.path.join(root, rel), "wb") as f:
                    f.write(text)
        with open(os.path.join(d, "out"), "w") as f:
            f.write(out)
        with open(os.path.join(d, "rc"), "w") as f:
            f.write("%d\n" % rc)


def main():
    args = sys.argv[1:]
    faults = None
    if len(args) == 3 and args[1] == "--faults":
        faults = args[2]
        args = args[:1]
    if len(args) != 1:
        print("usage: comment_refs.py ROOT [--faults DIR]", file=sys.stderr)
        return 2
    root = os.path.abspath(args[0])
    idx = index(root)
    memo = {"files": {}, "titles": {}, "pages": {}}
    out, rc = check(root, idx, memo)
    if faults is not None:
        check_faults(root, faults, idx, memo)
    sys.stdout.write(out)
    return rc


if __name__ == "__main__":
    sys.exit(main())
