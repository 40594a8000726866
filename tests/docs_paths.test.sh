#!/bin/bash
# Every repository path the docs name exists: README.md and docs/*.md, the paths inside
# backticks (inline code and code blocks) that look like paths into the repository
# (starting with app/ core/ cli/ tests/ scripts/ bench/ assets/ shaders/ docs/ fuzz/
# packaging/ cmake/ .ci/, or a top-level file such as CMakeLists.txt), and every
# markdown link's target (relative to the document, as a reader's browser resolves it),
# with its #anchor when it points into a markdown file. A glob (tests/*.test.sh) passes
# when it matches something. Build outputs (build/..., build-asan/...) and URLs are not
# checked. One line per path; the last line is "N passed, M failed".
# Usage: tests/docs_paths.test.sh [BUILD_DIR]   (ctest passes the build directory; unused)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
exec python3 - "$ROOT" <<'EOF'
import glob
import os
import re
import sys

root = sys.argv[1]
PREFIXES = ("app/", "core/", "cli/", "tests/", "scripts/", "bench/", "assets/", "shaders/", "docs/",
            "fuzz/", "packaging/", "cmake/", ".ci/")
TOP_LEVEL = {name for name in os.listdir(root) if os.path.isfile(os.path.join(root, name))}
TOP_LEVEL |= {"CMakeLists.txt", "README.md"}  # named even if one went missing
docs = ["README.md"] + sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "docs", "*.md")))


def slug(heading):
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to '-'."""
    text = "".join(ch for ch in heading.strip().lower() if ch.isalnum() or ch in " -_")
    return text.replace(" ", "-")


def anchors(path):
    found, fenced = set(), False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("```"):
                fenced = not fenced
            elif not fenced and re.match(r"#{1,6} ", line):
                found.add(slug(line.lstrip("#")))
    return found


def path_like(token):
    token = token.strip("\"'(),;:")
    if token.startswith("./"):
        token = token[2:]
    if not token or "$" in token or "://" in token or "\\" in token:
        return None
    if token.startswith(PREFIXES) or token in TOP_LEVEL:
        return token
    return None


checks = {}  # what is checked -> the docs that name it


def name(what, doc):
    checks.setdefault(what, [])
    if doc not in checks[what]:
        checks[what].append(doc)


for doc in docs:
    with open(os.path.join(root, doc), encoding="utf-8") as f:
        text = f.read()
    # Code blocks: every whitespace-separated word; the rest: inline code spans.
    prose = []
    fenced = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            for word in line.split():
                token = path_like(word)
                if token:
                    name(("path", token), doc)
        else:
            prose.append(line)
    prose = "\n".join(prose)
    for span in re.findall(r"(`+)(.+?)\1", prose, flags=re.S):
        for word in span[1].split():
            token = path_like(word)
            if token:
                name(("path", token), doc)
    for target in re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", prose):
        if re.match(r"[a-z]+:", target):  # https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        if file_part:
            resolved = os.path.normpath(os.path.join(os.path.dirname(doc), file_part))
        else:
            resolved = doc
        name(("link", resolved, anchor), doc)

passed = failed = 0
for what in sorted(checks):
    named_in = ", ".join(checks[what])
    if what[0] == "path":
        token = what[1]
        if any(ch in token for ch in "*?["):
            ok = bool(glob.glob(os.path.join(root, token)))
        else:
            ok = os.path.exists(os.path.join(root, token))
        label, problem = token, "no such path"
    else:
        resolved, anchor = what[1], what[2]
        label = resolved + ("#" + anchor if anchor else "")
        full = os.path.join(root, resolved)
        if resolved.startswith(".."):
            ok, problem = False, "outside the repository"
        elif not os.path.exists(full):
            ok, problem = False, "no such file"
        elif anchor and resolved.endswith(".md") and anchor not in anchors(full):
            ok, problem = False, "no heading with the anchor #" + anchor
        else:
            ok, problem = True, ""
        label = "link " + label
    if ok:
        passed += 1
        print("ok   %s" % label)
    else:
        failed += 1
        print("FAIL %s: %s (named in %s)" % (label, problem, named_in))
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
EOF
