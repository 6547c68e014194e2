#!/usr/bin/env python3
"""An independent HTTP client (Python's urllib) against `vault-search serve`.

Checks what any Omnisearch client relies on: the reply's shape, UTF-16 offsets, the
HTML-escaped excerpt, the JSON API, the Host refusal, and a clean exit on SIGTERM.
Usage: omnisearch_client.py PATH/TO/vault-search
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request


def get(port, path, headers=None):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, None


def main(binary):
    with tempfile.TemporaryDirectory() as root:
        vault = os.path.join(root, "vault")
        os.makedirs(os.path.join(vault, "Notes"))
        text = "# 𝄞 Clef\nintro line\nthe <pelican> & co\n"
        with open(os.path.join(vault, "Notes", "bird.md"), "w", encoding="utf-8") as f:
            f.write(text)
        env = {k: v for k, v in os.environ.items() if not k.startswith("OBSIDIAN_VAULT")}
        proc = subprocess.Popen(
            [binary, "--vault", vault, "--cache-dir", os.path.join(root, "cache"), "serve", "--port", "0"],
            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env)
        try:
            line = proc.stderr.readline()
            port = int(line.split("http://127.0.0.1:")[1].split("/")[0])
            deadline = time.time() + 30
            while time.time() < deadline:
                status, health = get(port, "/health")
                if status == 200 and health["caught_up"]:
                    break
                time.sleep(0.05)
            else:
                raise SystemExit("serve never caught up")

            status, hits = get(port, "/search?q=" + urllib.parse.quote("pelican"))
            assert status == 200 and isinstance(hits, list) and len(hits) == 1, hits
            hit = hits[0]
            keys = {"score", "vault", "path", "basename", "foundWords", "matches", "excerpt"}
            assert set(hit) == keys, hit
            assert hit["path"] == "Notes/bird.md" and hit["basename"] == "bird", hit
            assert "&lt;pelican&gt; &amp; co" in hit["excerpt"], hit["excerpt"]
            m = hit["matches"][0]
            units = text.encode("utf-16-le")
            start = m["offset"] * 2
            assert units[start:start + 14].decode("utf-16-le") == "pelican", m

            status, resp = get(port, "/api/search?q=pelican&limit=3")
            assert status == 200 and resp["engine"] == "local", resp
            assert [r["path"] for r in resp["results"]] == ["Notes/bird.md"], resp

            status, _ = get(port, "/search?q=pelican", {"Host": "attacker.example"})
            assert status == 403, status
            status, _ = get(port, "/search?q=pelican", {"Origin": "https://attacker.example"})
            assert status == 403, status
        finally:
            proc.send_signal(signal.SIGTERM)
            code = proc.wait(timeout=5)
        assert code == 0, code
    print("omnisearch client (urllib): ok")


if __name__ == "__main__":
    main(sys.argv[1])
