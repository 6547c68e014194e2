#!/usr/bin/env python3
"""Every relative link in the project's Markdown documents resolves.

usage: .ci/links.py [FILE.md ...]   (default: README.md, ARCHITECTURE.md, BENCHMARKS.md,
                                      CHANGELOG.md, RELEASING.md and docs/*.md)

A link resolves when its file or folder exists (relative to the document, or to the repository's
root for a link starting with `/`) and, when it names an `#anchor` in a Markdown document, that
document has a heading whose GitHub slug is the anchor (or an HTML `id`/`name` of that value).
Links to other sites (`https:`, `mailto:` ...) are not fetched. Links inside code (fenced blocks,
indented blocks and `inline code`) are not links. Prints one line per broken link,
`FILE:LINE: broken link TARGET (why)`, and exits 1 when there is any; standard library only.
"""

import os
import re
import sys
import unicodedata
from urllib.parse import unquote

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT = ["README.md", "ARCHITECTURE.md", "BENCHMARKS.md", "CHANGELOG.md", "RELEASING.md"]

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
INLINE_CODE = re.compile(r"(`+)(.+?)\1", re.S)
# [text](target) and ![alt](target); the target may be <wrapped> and followed by a "title".
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)")
REF_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
HTML_ID = re.compile(r"<[^>]+\s(?:id|name)\s*=\s*[\"']([^\"']+)[\"']", re.I)
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def code_blanked(text):
    """The document's lines with code blocks and inline code blanked (line numbers kept)."""
    lines = text.split("\n")
    out, fence, prev_blank = [], None, True
    for line in lines:
        m = FENCE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            out.append("")
            continue
        if m:
            fence = m.group(1)
            out.append("")
            continue
        if prev_blank and (line.startswith("    ") or line.startswith("\t")) and line.strip():
            out.append("")  # an indented code block (a list's continuation lines follow text)
            continue
        out.append(line)
        prev_blank = not line.strip()
    joined = "\n".join(out)
    return INLINE_CODE.sub(lambda m: m.group(1) + " " * len(m.group(2)) + m.group(1), joined)


def heading_text(raw):
    """A heading's rendered text: code spans keep their text, links their label, emphasis and
    HTML tags go."""
    text = re.sub(r"`+([^`]*)`+", r"\1", raw)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"<[^>]+>", "", text)
    text = re.sub(r"(\*+|_{2,})", "", text)
    return text.strip()


def slug(text):
    """GitHub's anchor for a heading: lowercase, punctuation dropped except `-` and `_`, each
    space a `-`."""
    out = []
    for ch in text.lower():
        cat = unicodedata.category(ch)
        if ch in "-_" or cat[0] in "LN" or cat == "Mn":
            out.append(ch)
        elif ch == " ":
            out.append("-")
    return "".join(out)


_anchors = {}


def anchors(path):
    """The anchors a Markdown document defines: its headings' slugs (repeats numbered -1, -2 ...)
    and its HTML ids and names."""
    if path in _anchors:
        return _anchors[path]
    with open(path, encoding="utf-8") as f:
        text = f.read()
    found, seen = set(), {}
    fence, prev = None, ""
    for line in text.split("\n"):
        m = FENCE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            prev = ""
            continue
        if m:
            fence, prev = m.group(1), ""
            continue
        title = None
        h = ATX.match(line)
        if h:
            title = h.group(2) or ""
        elif SETEXT.match(line) and prev.strip() and not prev.lstrip().startswith(("|", "-", "*", ">")):
            title = prev
        if title is not None:
            base = slug(heading_text(title))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
        found.update(HTML_ID.findall(line))
        prev = line
    _anchors[path] = found
    return found


def check(doc):
    """The broken links of one document, as printable lines."""
    with open(doc, encoding="utf-8") as f:
        text = code_blanked(f.read())
    broken = []
    targets = []
    for m in INLINE_LINK.finditer(text):
        targets.append((text.count("\n", 0, m.start()) + 1, m.group(1)))
    for n, line in enumerate(text.split("\n"), 1):
        m = REF_DEF.match(line)
        if m:
            targets.append((n, m.group(1)))
    rel = os.path.relpath(doc, ROOT)
    for line, target in targets:
        target = target.strip("<>")
        if not target or SCHEME.match(target) or target.startswith("//"):
            continue
        path_part, _, anchor = target.partition("#")
        path_part = unquote(path_part)
        if path_part.startswith("/"):
            dest = os.path.join(ROOT, path_part.lstrip("/"))
        elif path_part:
            dest = os.path.normpath(os.path.join(os.path.dirname(doc), path_part))
        else:
            dest = doc
        if not os.path.exists(dest):
            broken.append(f"{rel}:{line}: broken link {target} (no such file)")
            continue
        if anchor and dest.endswith(".md") and os.path.isfile(dest):
            if unquote(anchor).lower() not in anchors(dest):
                where = os.path.relpath(dest, ROOT)
                broken.append(f"{rel}:{line}: broken link {target} (no heading #{anchor} in {where})")
    return broken


def main(argv):
    if argv:
        docs = [os.path.abspath(a) for a in argv]
    else:
        docs = [os.path.join(ROOT, d) for d in DEFAULT]
        folder = os.path.join(ROOT, "docs")
        if os.path.isdir(folder):
            docs += sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".md"))
    broken = []
    for doc in docs:
        if not os.path.isfile(doc):
            broken.append(f"{os.path.relpath(doc, ROOT)}: missing document")
            continue
        broken += check(doc)
    for b in broken:
        print(b, file=sys.stderr)
    if broken:
        return 1
    print(f"links: {len(docs)} documents, every relative link resolves")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
