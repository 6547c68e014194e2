#!/usr/bin/env python3
"""What storing and reading every link costs, side by side for two binaries.

usage: benches/link_storage.py AFTER_BIN [BEFORE_BIN] [--runs N] [--only build|memory|moc]

Generates, in a temporary directory:
- build: 4,000 notes of a few hundred words and 5 links each, plus 3 maps of content
  linking 3,000 of them (links far past tantivy's 65,535 bytes of one value); each binary's
  full build (`index --rebuild`) taking turns, N rounds (5 by default): median wall time.
- moc: the 3,000-link map of content alone; `links Index --json`: outgoing links listed,
  orphans among the notes it links.
- memory: 1,000 notes with 3,500 broken links each (about 63 MB of links); peak RSS
  (`/usr/bin/time -v`) of `links --unresolved`, `links --orphans` and an MCP session
  answering `vault_overview`.
Each binary gets its own cache (an index of its own format).
"""
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WORDS = ("alpha beta gamma delta roadmap quarterly owner review deploy budget plan "
         "incident retro metric launch design draft notes sync").split()


def project(i):
    return f"Project note number {i:04} about the quarterly roadmap and its owners"


def moc_vault(root, extra_notes=0):
    rnd = random.Random(1)
    (root / "Projects").mkdir(parents=True)
    for i in range(3000):
        # Linked to each other only in the build vault: in the map's own, only it links them.
        links = " ".join(f"[[{project(rnd.randrange(3000))}]]" for _ in range(2 * bool(extra_notes)))
        words = " ".join(rnd.choice(WORDS) for _ in range(200))
        (root / "Projects" / f"{project(i)}.md").write_text(f"# {i}\n{words}\n{links}\n")
    for i in range(extra_notes):
        links = " ".join(f"[[Other {rnd.randrange(extra_notes)}]]" for _ in range(5))
        words = " ".join(rnd.choice(WORDS) for _ in range(300))
        (root / f"Other {i}.md").write_text(f"# Other {i}\n{words}\n{links}\n")
    lines = [f"- [[{project(i)}|Project {i}]]" for i in range(3000)]
    for m in range(1 if extra_notes == 0 else 3):
        (root / f"Index{m or ''}.md").write_text("# Projects\n\n" + "\n".join(lines) + "\n")


def broken_vault(root):
    rnd = random.Random(2)
    root.mkdir(parents=True)
    for i in range(1000):
        body = "\n".join(f"see [[Gone {rnd.randrange(200_000)}]]" for _ in range(3500))
        (root / f"n{i:04}.md").write_text(f"# n{i}\n{body}\n")


def run(binary, vault, cache, args, rss=False):
    env = dict(os.environ, VAULT_SEARCH_CACHE_DIR=str(cache))
    argv = [binary, "--vault", str(vault), *args]
    if rss:
        argv = ["/usr/bin/time", "-v", *argv]
    p = subprocess.run(argv, env=env, capture_output=True, check=True)
    if rss:
        m = re.search(rb"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
        return p.stdout, int(m.group(1)) / 1024
    return p.stdout, None


def mcp_overview_rss(binary, vault, cache):
    env = dict(os.environ, VAULT_SEARCH_CACHE_DIR=str(cache))
    p = subprocess.Popen(["/usr/bin/time", "-v", binary, "--vault", str(vault), "mcp"],
                         env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    msgs = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-03-26", "capabilities": {},
            "clientInfo": {"name": "bench", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "vault_overview", "arguments": {}}},
    ]
    for m in msgs[:2]:
        p.stdin.write((json.dumps(m) + "\n").encode())
    p.stdin.flush()
    p.stdout.readline()
    p.stdin.write((json.dumps(msgs[2]) + "\n").encode())
    p.stdin.flush()
    answer = json.loads(p.stdout.readline())
    p.stdin.close()
    err = p.stderr.read()
    p.wait()
    m = re.search(rb"Maximum resident set size \(kbytes\): (\d+)", err)
    text = answer["result"]["content"][0]["text"].splitlines()
    return int(m.group(1)) / 1024, [l for l in text if "links" in l]


def main():
    args = sys.argv[1:]
    runs, only = 5, None
    if "--runs" in args:
        i = args.index("--runs")
        runs = int(args[i + 1])
        del args[i:i + 2]
    if "--only" in args:
        i = args.index("--only")
        only = args[i + 1]
        del args[i:i + 2]
    if not args:
        sys.exit(__doc__)
    bins = {"after": args[0]}
    if len(args) > 1:
        bins["before"] = args[1]
    tmp = Path(tempfile.mkdtemp())
    if only in (None, "moc"):
        moc_vault(tmp / "moc")
        for name, b in bins.items():
            cache = tmp / f"c-moc-{name}"
            run(b, tmp / "moc", cache, ["index"])
            out, _ = run(b, tmp / "moc", cache, ["--json", "links", "Index"])
            r = json.loads(out)
            orphans = json.loads(run(b, tmp / "moc", cache, ["--json", "links", "--orphans"])[0])
            print(f"moc {name}: outgoing {len(r['outgoing'])}, "
                  f"orphans {len(orphans['orphans'])}, warnings {r.get('warnings', [])}")
    if only in (None, "build"):
        moc_vault(tmp / "build", extra_notes=1000)
        times = {n: [] for n in bins}
        for k in range(runs + 1):
            for name, b in (list(bins.items()) if k % 2 else list(bins.items())[::-1]):
                t = time.perf_counter()
                run(b, tmp / "build", tmp / f"c-build-{name}", ["index", "--rebuild"])
                if k:
                    times[name].append(time.perf_counter() - t)
        for name, ts in times.items():
            print(f"full build {name}: median {statistics.median(ts):.3f} s over {len(ts)}")
    if only in (None, "memory"):
        broken_vault(tmp / "broken")
        for name, b in bins.items():
            cache = tmp / f"c-broken-{name}"
            run(b, tmp / "broken", cache, ["index"])
            for q in ["--unresolved", "--orphans"]:
                out, mb = run(b, tmp / "broken", cache, ["--json", "links", q], rss=True)
                print(f"links {q} {name}: peak {mb:.0f} MB, output {len(out) / 1e6:.0f} MB")
            mb, lines = mcp_overview_rss(b, tmp / "broken", cache)
            print(f"mcp vault_overview {name}: peak {mb:.0f} MB, {lines}")
    subprocess.run(["rm", "-rf", str(tmp)], check=True)


if __name__ == "__main__":
    main()
