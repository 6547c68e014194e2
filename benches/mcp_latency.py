#!/usr/bin/env python3
"""`vault-search mcp` timings: `initialize` on a cold vault, and warm `search_notes` latency.

usage: benches/mcp_latency.py BIN VAULT [--queries FILE.jsonl] [--n 40] [--cold-rounds 5] [--cli]

Speaks raw JSON-RPC over the server's pipes (standard library only), so the figures are the
server's, not a client SDK's.

- cold initialize: a fresh, empty cache dir each round (the vault was never indexed); the time
  from spawning the process to the `initialize` answer, and from writing the request to the
  answer. The server is then stopped, mid-build.
- first search: after `initialize` on a cold vault, how long the first `search_notes` takes
  (it waits for the background build of the whole index).
- warm search: the same server afterwards, `--n` queries (one pass to warm up, then timed),
  `source: local`, each with the freshness check; median and 90th percentile per call.

- with `--cli`: the same queries as whole `vault-search --json --source local` processes on the
  same index, timed in the same run, alternating with the MCP calls, for a side-by-side ratio.

Queries come from a JSONL file with a "query" field per line (default: a few fixed words).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


class Server:
    def __init__(self, binary, vault, cache):
        env = dict(os.environ, VAULT_SEARCH_CACHE_DIR=cache, OMNISEARCH_PORT="9")
        env.pop("OBSIDIAN_VAULT", None)
        self.spawned = time.perf_counter()
        self.p = subprocess.Popen(
            [binary, "mcp", "--vault", vault, "--index-wait", "600"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self.next_id = 1

    def request(self, method, params):
        rid = self.next_id
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}
        sent = time.perf_counter()
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        self.p.stdin.flush()
        while True:
            line = self.p.stdout.readline()
            if not line:
                sys.exit(f"the server closed stdout waiting for {method}")
            reply = json.loads(line)
            if reply.get("id") == rid:
                return reply, sent, time.perf_counter()

    def notify(self, method):
        self.p.stdin.write((json.dumps({"jsonrpc": "2.0", "method": method}) + "\n").encode())
        self.p.stdin.flush()

    def initialize(self):
        reply, sent, got = self.request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1"},
            },
        )
        assert "result" in reply, reply
        self.notify("notifications/initialized")
        return got - self.spawned, got - sent

    def search(self, query):
        reply, sent, got = self.request(
            "tools/call",
            {"name": "search_notes", "arguments": {"query": query, "source": "local"}},
        )
        result = reply.get("result", {})
        assert not result.get("isError"), reply
        return got - sent

    def stop(self):
        self.p.stdin.close()
        try:
            self.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()


def ms(s):
    return f"{s * 1000:.1f} ms"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("vault")
    ap.add_argument("--queries")
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("--cold-rounds", type=int, default=5)
    ap.add_argument("--cli", action="store_true")
    a = ap.parse_args()
    binary, vault = os.path.abspath(a.binary), os.path.abspath(a.vault)
    if a.queries:
        with open(a.queries, encoding="utf-8") as f:
            queries = [json.loads(l)["query"] for l in f if l.strip()][: a.n]
    else:
        queries = ["install package", "list files", "network interface", "git commit"] * (a.n // 4)

    spawn_to_init, request_to_init = [], []
    for _ in range(a.cold_rounds):
        with tempfile.TemporaryDirectory() as cache:
            s = Server(binary, vault, cache)
            total, req = s.initialize()
            spawn_to_init.append(total)
            request_to_init.append(req)
            s.stop()
    print(f"cold initialize, spawn -> answer:   median {ms(statistics.median(spawn_to_init))} "
          f"(max {ms(max(spawn_to_init))}, {a.cold_rounds} rounds)")
    print(f"cold initialize, request -> answer: median {ms(statistics.median(request_to_init))} "
          f"(max {ms(max(request_to_init))})")

    with tempfile.TemporaryDirectory() as cache:
        s = Server(binary, vault, cache)
        s.initialize()
        first = s.search(queries[0])
        print(f"first search on a cold vault (waits for the background build): {ms(first)}")
        for q in queries:
            s.search(q)
        times, cli = [], []
        env = dict(os.environ, VAULT_SEARCH_CACHE_DIR=cache, OMNISEARCH_PORT="9")
        for q in queries:
            times.append(s.search(q))
            if a.cli:
                t0 = time.perf_counter()
                subprocess.run(
                    [binary, "--vault", vault, "--json", "--source", "local", "--", q],
                    env=env, stdout=subprocess.DEVNULL, check=True,
                )
                cli.append(time.perf_counter() - t0)
        s.stop()
        times.sort()
        p90 = times[min(len(times) - 1, int(len(times) * 0.9))]
        print(f"warm search_notes ({len(times)} queries): median {ms(statistics.median(times))}, "
              f"p90 {ms(p90)}")
        if cli:
            print(f"the same queries as CLI processes: median {ms(statistics.median(cli))} "
                  f"(MCP / CLI = {statistics.median(times) / statistics.median(cli):.2f})")


if __name__ == "__main__":
    main()
