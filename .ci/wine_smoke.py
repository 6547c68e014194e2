#!/usr/bin/env python3
"""The Windows binary end to end under Wine, as a Windows user would run it.

Indexes and searches a vault whose names are not ASCII, whose deepest note's path is beyond
Windows' classic 260-character limit and whose names include a device name and folders ending
in a dot and in a space, checks `status`, starts `serve` and queries it over HTTP
from this (Linux) side — Wine processes share the loopback — until it has picked up an edit,
and has a short raw JSON-RPC exchange with `mcp` over stdio. Paths are handed to the binary in
their Windows spelling (`winepath -w`). Exits non-zero on the first failure.

    python3 .ci/wine_smoke.py path/to/vault-search.exe

`.ci/windows` runs this with WINEPREFIX and the Wine-only DLL stub already in place.
"""

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

# Deep enough that the note's absolute Windows path is over 260 characters.
DEEP = "/".join(f"level-{i:02d}-of-a-deeply-nested-archive" for i in range(8))
NOTES = {
    "Notes/Café crème.md": "# Café crème\n\nA croissant and a crème brûlée at the corner café.\n",
    "日本語/メモ.md": "# メモ\n\nsakura blossoms in April, 桜の花\n",
    "Ünïcödé folder/🚀 launch.md": "# Launch 🚀\n\nThe rocket checklist: fuel, countdown.\n",
    f"{DEEP}/a note at the bottom.md": "# Deep\n\nThe abyssal plain lies far below.\n",
    # Names a plain Windows path changes: a device name, a folder ending in a dot, one ending
    # in a space. Made here, from Linux: Wine refuses to create them from a Windows program.
    "aux.md": "# Aux\n\nThe auxiliary generator hums.\n",
    "Drafts./plan.md": "# Plan\n\nA trebuchet for the garden.\n",
    "Ideas /list.md": "# List\n\nA quokka, a numbat.\n",
}


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def winpath(p: Path) -> str:
    return subprocess.run(
        ["winepath", "-w", str(p)], check=True, capture_output=True, text=True
    ).stdout.strip()


class Binary:
    def __init__(self, exe: str, vault: Path, cache: Path):
        self.exe = exe
        self.common = ["--vault", winpath(vault), "--cache-dir", winpath(cache)]
        # A port nothing listens on: no real Obsidian answers.
        self.env = {**os.environ, "OMNISEARCH_PORT": "9", "WINEDEBUG": "-all"}

    def argv(self, args):
        return ["wine", self.exe, *self.common, *args]

    def run(self, *args) -> str:
        p = subprocess.run(self.argv(args), capture_output=True, env=self.env, timeout=300)
        check(
            p.returncode == 0,
            f"{args}: exit {p.returncode}\nstdout: {p.stdout.decode(errors='replace')}\n"
            f"stderr: {p.stderr.decode(errors='replace')}",
        )
        return p.stdout.decode("utf-8")

    def json(self, *args):
        return json.loads(self.run(*args))

    def popen(self, *args, **kw):
        return subprocess.Popen(self.argv(args), env=self.env, **kw)


def top_path(bin_: Binary, query: str) -> str:
    r = bin_.json("--json", "--source", "local", "--", query)
    check(r["results"], f"{query!r}: no hit")
    return r["results"][0]["path"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str):
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.loads(r.read())


def wait_for(what: str, probe, seconds: float):
    deadline = time.monotonic() + seconds
    last = None
    while time.monotonic() < deadline:
        try:
            got = probe()
            if got:
                return got
        except OSError as e:  # not listening yet
            last = e
        time.sleep(0.5)
    raise AssertionError(f"{what}: not within {seconds}s ({last})")


def check_index_and_search(bin_: Binary, vault: Path):
    # (winepath itself stops at 260 characters: the length is the vault's plus the note's.)
    deep = len(winpath(vault)) + 1 + len(f"{DEEP}/a note at the bottom.md")
    check(deep > 260, f"the deep note's path is short: {deep} characters")
    report = bin_.json("index", "--json")
    check(report["notes"] == len(NOTES) and report["skipped"] == 0, f"index: {report}")
    check(top_path(bin_, "croissant") == "Notes/Café crème.md", "croissant")
    check(top_path(bin_, "crème") == "Notes/Café crème.md", "a non-ASCII query")
    check(top_path(bin_, "sakura") == "日本語/メモ.md", "sakura")
    check(top_path(bin_, "countdown") == "Ünïcödé folder/🚀 launch.md", "countdown")
    check(top_path(bin_, "abyssal") == f"{DEEP}/a note at the bottom.md", "the deep note")
    check(top_path(bin_, "auxiliary") == "aux.md", "a device name")
    check(top_path(bin_, "trebuchet") == "Drafts./plan.md", "a folder ending in a dot")
    check(top_path(bin_, "quokka") == "Ideas /list.md", "a folder ending in a space")
    text = bin_.run("--source", "local", "croissant")
    check("1. [" in text and "Notes/Café crème.md" in text, f"text output: {text}")
    st = bin_.json("status", "--json")
    check(st["indexed"] is True and st["notes"] == len(NOTES), f"status: {st}")
    check(st["changed_since"] == 0, f"status after index: {st}")


def check_serve(bin_: Binary, vault: Path):
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    # A long rescan period: the edit below must come through the watcher.
    server = bin_.popen("serve", "--port", str(port), "--rescan-secs", "3600")
    try:
        wait_for("serve answers /health", lambda: get(f"{base}/health")["caught_up"], 120)
        hits = get(f"{base}/search?q=croissant")
        check([h["path"] for h in hits][:1] == ["Notes/Café crème.md"], f"/search: {hits}")
        q = urllib.parse.quote("crème")
        r = get(f"{base}/api/search?q={q}")
        check(r["results"][0]["path"] == "Notes/Café crème.md", f"/api/search: {r}")

        note = vault / "Notes" / "Café crème.md"
        note.write_text(note.read_text(encoding="utf-8") + "\nA zeppelin flew over.\n", "utf-8")

        def found():
            paths = [h["path"] for h in get(f"{base}/api/search?q=zeppelin")["results"]]
            return paths == ["Notes/Café crème.md"]

        wait_for("serve picks up the edit", found, 60)
    finally:
        server.terminate()
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def check_mcp(bin_: Binary):
    server = bin_.popen("mcp", stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def send(msg):
        server.stdin.write((json.dumps(msg) + "\n").encode())
        server.stdin.flush()

    def answer(id_):
        while True:
            line = server.stdout.readline()
            check(line, "mcp closed its stdout")
            msg = json.loads(line)
            if msg.get("id") == id_:
                return msg

    try:
        send({
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "wine-smoke", "version": "0"},
            },
        })
        init = answer(1)
        check(init["result"]["serverInfo"]["name"] == "vault-search", f"initialize: {init}")
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send({
            "jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "search_notes", "arguments": {"query": "sakura", "source": "local"}},
        })
        r = answer(2)["result"]
        check(not r.get("isError"), f"search_notes: {r}")
        paths = [h["path"] for h in r["structuredContent"]["results"]]
        check(paths[:1] == ["日本語/メモ.md"], f"search_notes: {r}")
        send({
            "jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "read_note", "arguments": {"path": "日本語/メモ.md"}},
        })
        r = answer(3)["result"]
        text = "".join(c.get("text", "") for c in r["content"])
        check(not r.get("isError") and "桜の花" in text, f"read_note: {r}")
        # The deep note: its real path exists only in the verbatim spelling (`\\?\C:\…`).
        deep = f"{DEEP}/a note at the bottom.md"
        send({
            "jsonrpc": "2.0", "id": 4, "method": "tools/call",
            "params": {"name": "read_note", "arguments": {"path": deep}},
        })
        r = answer(4)["result"]
        text = "".join(c.get("text", "") for c in r["content"])
        check(not r.get("isError") and "abyssal plain" in text, f"read_note, deep: {r}")
        for i, (rel, words) in enumerate([("aux.md", "generator hums"), ("Drafts./plan.md", "trebuchet")]):
            send({
                "jsonrpc": "2.0", "id": 5 + i, "method": "tools/call",
                "params": {"name": "read_note", "arguments": {"path": rel}},
            })
            r = answer(5 + i)["result"]
            text = "".join(c.get("text", "") for c in r["content"])
            check(not r.get("isError") and words in text, f"read_note {rel}: {r}")
    finally:
        server.stdin.close()
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    check(server.returncode == 0, f"mcp exit {server.returncode} after stdin closed")


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    exe = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        vault = root / "Vault ẞ"
        for rel, body in NOTES.items():
            p = vault / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(body, encoding="utf-8")
        bin_ = Binary(exe, vault, root / "cache")
        for name, step in [
            ("index, search, status", lambda: check_index_and_search(bin_, vault)),
            ("serve over HTTP, an edit picked up", lambda: check_serve(bin_, vault)),
            ("mcp over stdio", lambda: check_mcp(bin_)),
        ]:
            try:
                step()
            except Exception as e:  # report which step failed, exit non-zero
                print(f"wine smoke FAILED ({name}): {type(e).__name__}: {e}", file=sys.stderr)
                return 1
            print(f"wine smoke: {name}: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
