#!/usr/bin/env python3
"""Full-build throughput and peak memory: `index --rebuild` of a vault into a new cache, side by side.

usage: benches/build.py VAULT NAME=BINARY [NAME=BINARY ...] [--runs N] [--callgrind]

Each round rebuilds the index of VAULT once with every binary (the order rotates from round to
round, so a noisy machine's drift falls on all of them alike), each run into a cache directory
of its own, removed afterwards. After 2 warm-up rounds (the vault's pages in the page cache),
RUNS rounds (default 7) are timed. Prints per binary the median wall time, the throughput
(bytes of the vault's notes and canvases over that median), the median of the per-round ratios
to the first binary, the median CPU time (user + system) and the peak resident memory over all
runs (of the process itself, as the kernel counts it).

--callgrind adds each binary's instruction count for one build (valgrind --tool=callgrind):
slow, but repeatable on a loaded machine where wall time is not.

Examples:
  benches/build.py /path/to/tldr before=target/vs-before after=target/fast/vault-search
  cargo run --profile fast --example genvault -- /path/to/v100k 100000
  benches/build.py /path/to/v100k after=target/fast/vault-search --runs 3
Run it under `nice` on a shared machine; the builds inherit it.
"""
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def vault_bytes(vault):
    """Bytes of what a build reads: notes and canvases, outside dot-folders."""
    total = 0
    for root, dirs, files in os.walk(vault):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for f in files:
            if f.lower().endswith((".md", ".canvas")):
                p = os.path.join(root, f)
                if not os.path.islink(p):
                    total += os.path.getsize(p)
    return total


def build_once(binary, vault):
    """Wall seconds, CPU seconds and peak RSS (KiB) of one rebuild into a new cache."""
    cache = tempfile.mkdtemp(prefix="vs-build-bench-")
    env = dict(os.environ, VAULT_SEARCH_CACHE_DIR=cache)
    argv = [binary, "--vault", vault, "index", "--rebuild"]
    try:
        t = time.perf_counter()
        p = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t
        err = p.stderr.read().decode(errors="replace")
        p.stderr.close()
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"{binary} failed: {err.strip()}")
        return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def instructions(binary, vault):
    cache = tempfile.mkdtemp(prefix="vs-build-bench-")
    out = os.path.join(cache, "callgrind.out")
    env = dict(os.environ, VAULT_SEARCH_CACHE_DIR=cache)
    try:
        r = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", binary,
             "--vault", vault, "index", "--rebuild"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True)
        m = re.search(r"refs:\s+([\d,]+)", r.stderr)
        return int(m.group(1).replace(",", "")) if m else None
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def main():
    args = sys.argv[1:]
    runs, callgrind = 7, False
    if "--callgrind" in args:
        args.remove("--callgrind")
        callgrind = True
    if "--runs" in args:
        i = args.index("--runs")
        runs = int(args[i + 1])
        del args[i:i + 2]
    if len(args) < 2 or any("=" not in a for a in args[1:]):
        sys.exit(__doc__)
    vault = args[0]
    bins = [a.split("=", 1) for a in args[1:]]
    size = vault_bytes(vault)
    walls = [[] for _ in bins]
    cpus = [[] for _ in bins]
    peaks = [0 for _ in bins]
    ratios = [[] for _ in bins]
    for r in range(2 + runs):
        k = r % len(bins)
        order = list(range(len(bins)))[k:] + list(range(len(bins)))[:k]
        took = [0.0] * len(bins)
        for i in order:
            wall, cpu, rss = build_once(bins[i][1], vault)
            took[i] = wall
            if r >= 2:
                walls[i].append(wall)
                cpus[i].append(cpu)
                peaks[i] = max(peaks[i], rss)
        if r >= 2:
            for i in range(len(bins)):
                ratios[i].append(took[i] / took[0])
    print(f"vault {vault}: {size / 1e6:.1f} MB of notes; {runs} rounds")
    print(f"{'':12} {'median s':>9} {'MB/s':>7} {'ratio':>7} {'cpu s':>7} {'peak MiB':>9}")
    for i, (name, _) in enumerate(bins):
        med = statistics.median(walls[i])
        print(f"{name:12} {med:9.3f} {size / 1e6 / med:7.1f} {statistics.median(ratios[i]):7.3f} "
              f"{statistics.median(cpus[i]):7.2f} {peaks[i] / 1024:9.1f}")
    if callgrind:
        for name, binary in bins:
            n = instructions(binary, vault)
            print(f"{name:12} instructions {n:,}" if n else f"{name:12} instructions ?")


if __name__ == "__main__":
    main()
