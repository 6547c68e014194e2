#!/usr/bin/env python3
"""`serve` over time: how long a saved note takes to show in /search, and serve's memory over
10,000 requests and 3 x 10,000 file changes.

usage: benches/serve_soak.py PATH/vault-search VAULT
       benches/serve_soak.py PATH/vault-search VAULT --saves-only CACHE_DIR [N]

VAULT is copied to a temporary directory first (the changes append lines to its notes).
With --saves-only, only the save latency is measured (N saves, 20 by default), on VAULT itself
with the index already in CACHE_DIR (a 100,000-note vault need not be copied and indexed again
per binary); the notes it writes are removed afterwards.
"""
import http.client
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def main(binary, src, cache=None, saves=20):
    root = tempfile.mkdtemp()
    if cache is None:
        vault = os.path.join(root, "vault")
        shutil.copytree(src, vault)
        cache = os.path.join(root, "cache")
    else:
        vault = src
    tag = f"{os.getpid()}-{int(time.time())}"
    p = subprocess.Popen([binary, "--vault", vault, "--cache-dir", cache,
                          "serve", "--port", "0"], stderr=subprocess.PIPE, text=True)
    port = int(p.stderr.readline().split("127.0.0.1:")[1].split("/")[0])

    def get(path):
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        c.request("GET", path)
        r = c.getresponse()
        body = r.read()
        c.close()
        assert r.status == 200, r.status
        return body

    def rss():
        f = {l.split(":")[0]: l.split()[1] for l in open(f"/proc/{p.pid}/status")
             if l.startswith(("VmRSS", "RssAnon", "RssFile"))}
        return f"RSS {f['VmRSS']} kB (anon {f['RssAnon']}, file {f['RssFile']})"

    try:
        while b'"caught_up":true' not in get("/health"):
            time.sleep(0.1)
        lat = []
        for i in range(saves):
            name = f"soak-new-{tag}-{i}.md"
            t = time.perf_counter()
            with open(os.path.join(vault, name), "w") as f:
                f.write(f"# note\nzqxmarker{i}\n")
            while name.encode() not in get(f"/search?q=zqxmarker{i}"):
                time.sleep(0.005)
            lat.append((time.perf_counter() - t) * 1000)
            time.sleep(0.3)
        lat.sort()
        print(f"save -> in /search: median {statistics.median(lat):.0f} ms, "
              f"p90 {lat[int(len(lat) * 0.9)]:.0f} ms, max {lat[-1]:.0f} ms ({saves} saves)")
        if src == vault:
            for i in range(saves):
                os.remove(os.path.join(vault, f"soak-new-{tag}-{i}.md"))
            return

        print("start:", rss())
        queries = ["tar", "git", "sqlite", "compress%20archive", "network%20interface", "ssh%20key"]
        for i in range(10000):
            get("/search?q=" + queries[i % len(queries)])
            if i + 1 in (1000, 5000, 10000):
                print(f"after {i + 1} requests:", rss())
        notes = [os.path.join(d, n) for d, _, ns in os.walk(vault) for n in ns if n.endswith(".md")]
        for rnd in range(3):
            for i in range(10000):
                with open(notes[i % len(notes)], "a") as f:
                    f.write(f"\nsoak edit {rnd} {i}\n")
                if i % 100 == 99:
                    time.sleep(0.02)
            # Measured once the last batch is committed and the loop is idle again.
            time.sleep(2)
            while b'"caught_up":true' not in get("/health"):
                time.sleep(0.05)
            print(f"after {10000 * (rnd + 1)} changes, idle:", rss())
    finally:
        p.terminate()
        print("exit status", p.wait(timeout=5))
        shutil.rmtree(root)


if __name__ == "__main__":
    if len(sys.argv) > 3 and sys.argv[3] == "--saves-only":
        main(sys.argv[1], sys.argv[2], sys.argv[4], int(sys.argv[5]) if len(sys.argv) > 5 else 20)
    else:
        main(sys.argv[1], sys.argv[2])
