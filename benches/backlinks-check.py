#!/usr/bin/env python3
"""Checks `vault-search links` against an independent count of a vault's backlinks.

usage: benches/backlinks-check.py VAULT [BINARY]

For every note whose file name no other note has, the notes linking to it are counted here
with a plain reading of the Markdown, written apart from the Rust code: `[[name]]`,
`[[name|text]]`, `[[name#heading]]`, `![[name]]` (a target with folders must be the end of the
note's path), and `[text](path/name.md)` with `%20`-style escapes, outside fenced code, inline
code and comments. The binary's `links NOTE --json` must list the same linking notes.
Prints the counts and each disagreement; exits 1 when there is one.
"""
import collections, json, os, re, subprocess, sys, tempfile, urllib.parse

FENCE = re.compile(r"^\s*(```|~~~)")
WIKI = re.compile(r"!?\[\[([^\]|#^]*)")
MDLINK = re.compile(r"\[[^\]]*\]\(([^)\s]+\.md)(#[^)]*)?\)", re.I)


def without_code(text):
    out, fence = [], None
    for line in text.split("\n"):
        m = FENCE.match(line)
        if m:
            fence = m.group(1) if fence is None else (None if m.group(1) == fence else fence)
            out.append("")
        elif fence:
            out.append("")
        else:
            out.append(re.sub(r"`[^`]*`", "", line))
    text = re.sub(r"<!--.*?-->", "", "\n".join(out), flags=re.S)
    return re.sub(r"%%.*?%%", "", text, flags=re.S)


def main():
    vault = sys.argv[1]
    binary = sys.argv[2] if len(sys.argv) > 2 else "target/release/vault-search"
    notes = []
    for root, dirs, files in os.walk(vault):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        notes += [os.path.relpath(os.path.join(root, f), vault).replace(os.sep, "/")
                  for f in files if f.lower().endswith(".md") and not f.startswith(".")]
    by_name = collections.defaultdict(list)
    for n in notes:
        by_name[n.rsplit("/", 1)[-1][:-3].lower()].append(n)

    def unique(target):
        name = target.rsplit("/", 1)[-1].lower().removesuffix(".md")
        found = by_name.get(name, [])
        return found[0] if len(found) == 1 else None

    linking = collections.defaultdict(set)
    for n in notes:
        with open(os.path.join(vault, n), encoding="utf-8", errors="replace") as f:
            text = without_code(f.read())
        for m in WIKI.finditer(text):
            target = m.group(1).strip().lstrip("/")
            note = unique(target) if target else None
            want = target.lower().removesuffix(".md")
            path = note and note.lower()[:-3]
            if note and note != n and (path == want or path.endswith("/" + want)):
                linking[note].add(n)
        for m in MDLINK.finditer(text):
            target = urllib.parse.unquote(m.group(1))
            note = None if "://" in target else unique(target)
            if note and note != n:
                linking[note].add(n)

    named_once = sorted(n for n in notes if unique(n) == n)
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, VAULT_SEARCH_CACHE_DIR=cache)
        subprocess.run([binary, "index", "--vault", vault], env=env, check=True,
                       capture_output=True)
        agree, differ = 0, []
        for n in named_once:
            out = subprocess.run([binary, "--json", "links", "--vault", vault, n], env=env,
                                 capture_output=True, text=True)
            if out.returncode != 0:
                differ.append((n, out.stderr.strip()))
                continue
            ours = {l["source"] for l in json.loads(out.stdout).get("incoming") or []}
            if ours == linking[n]:
                agree += 1
            else:
                differ.append((n, f"only ours {sorted(ours - linking[n])}, "
                                  f"only counted {sorted(linking[n] - ours)}"))
    pairs = sum(len(v) for v in linking.values())
    print(f"{len(notes)} notes, {len(named_once)} with a name of their own, "
          f"{sum(1 for n in named_once if linking[n])} of them linked to "
          f"({pairs} linking note → note pairs)")
    print(f"backlinks agree for {agree}, differ for {len(differ)}")
    for n, why in differ:
        print(f"  {n}: {why}")
    sys.exit(1 if differ else 0)


main()
