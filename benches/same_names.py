#!/usr/bin/env python3
"""Link resolution over many files of one name, before and after (issue: the same-named case
within 2x a search of another word).

usage: benches/same_names.py N BIN [BIN ...]   (VS_BENCH_RUNS rounds, 5 by default)

Builds a vault of N folders each holding a `Note.md` (the word `alpha`) and an `Other.md`
(the word `bravo`), and 10 notes at the root writing `[[Note]]` 2,000 times each. Each
binary indexes it into a cache of its own; then, taking turns in every round, each binary
answers: a search of `alpha` (hits linked Note.md files: each hit's `links_in` resolves the
20,000 links), a search of `bravo` (hits nobody links to), `links --orphans`, and MCP
`search_notes` for `alpha` (one server per call, the handshake included). Prints the median
seconds of each.
"""
import json, os, statistics, subprocess, sys, tempfile, time

HUBS, LINKS_PER_HUB = 10, 2000


def make_vault(root, n):
    for i in range(n):
        d = os.path.join(root, f"f{i:05}")
        os.makedirs(d)
        with open(os.path.join(d, "Note.md"), "w") as f:
            f.write(f"# Note {i}\n\nalpha topic {i}\n")
        with open(os.path.join(d, "Other.md"), "w") as f:
            f.write(f"# Other {i}\n\nbravo topic {i}\n")
    for h in range(HUBS):
        with open(os.path.join(root, f"hub{h}.md"), "w") as f:
            f.write("alpha hub\n" + "".join(f"see [[Note]] {j}\n" for j in range(LINKS_PER_HUB)))


def mcp_search(binary, vault, cache, word):
    msgs = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "bench", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "search_notes", "arguments": {"query": word}}},
    ]
    p = subprocess.Popen([binary, "mcp", "--vault", vault, "--cache-dir", cache,
                          "--port", "9"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    for m in msgs:
        p.stdin.write(json.dumps(m) + "\n")
    p.stdin.flush()
    for line in p.stdout:
        if json.loads(line).get("id") == 2:
            break
    p.stdin.close()
    p.wait()


def main():
    n, bins = int(sys.argv[1]), sys.argv[2:]
    runs = int(os.environ.get("VS_BENCH_RUNS", "5"))
    tmp = tempfile.mkdtemp()
    vault = os.path.join(tmp, "vault")
    os.makedirs(vault)
    make_vault(vault, n)
    caches = {}
    for i, b in enumerate(bins):
        caches[b] = os.path.join(tmp, f"cache{i}")
        subprocess.run([b, "index", "--vault", vault, "--cache-dir", caches[b]],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def cli(b, *args):
        return lambda: subprocess.run(
            [b, *args, "--vault", vault, "--cache-dir", caches[b]], check=True,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    tasks = {}
    for b in bins:
        tasks[(b, "search alpha")] = cli(b, "search", "--source", "local", "alpha")
        tasks[(b, "search bravo")] = cli(b, "search", "--source", "local", "bravo")
        tasks[(b, "links --orphans")] = cli(b, "links", "--orphans", "--json")
        tasks[(b, "mcp search_notes alpha")] = (
            lambda b=b: mcp_search(b, vault, caches[b], "alpha"))
    times = {k: [] for k in tasks}
    for _ in range(runs):
        for k, f in tasks.items():
            t = time.monotonic()
            f()
            times[k].append(time.monotonic() - t)
    print(f"{n} same-named files, {HUBS}x{LINKS_PER_HUB} links, median of {runs}:")
    for k, v in times.items():
        print(f"  {k[0]:<40} {k[1]:<24} {statistics.median(v):8.3f} s")


if __name__ == "__main__":
    main()
