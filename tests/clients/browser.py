#!/usr/bin/env python3
"""A real browser (headless Chromium) doing what Omnisearch's userscripts do, against `serve`.

A page on one loopback origin fetches `serve` on another, as a search-page userscript does:
the query as typed (a literal `%` in it), a request with a `Content-Type` header (so a CORS
preflight), an error reply it must be able to read, and `GET /`. `serve` runs with
`--allow-origin` naming the page's origin; an iframe on a second origin (`localhost` instead of
`127.0.0.1`, not named) must be refused. Each page posts what its `fetch` calls saw back to
the small server that served it.

Usage: browser.py PATH/TO/vault-search PATH/TO/chromium
"""
import http.server
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading

from support import start_serve

PAGE = """<!doctype html><meta charset="utf-8"><title>search page</title>
<body><pre id="out"></pre>
<script>
const serve = "http://127.0.0.1:%(serve_port)d";
const role = "%(role)s";
async function probe(name, url, init) {
  try {
    const r = await fetch(url, init);
    return {name, ok: true, status: r.status, body: await r.text()};
  } catch (e) {
    return {name, ok: false, error: String(e)};
  }
}
(async () => {
  const results = [];
  // Userscripts put the query in the URL as typed: a `%%` is sent as it is.
  results.push(await probe("search", serve + "/search?q=pelican 100%%"));
  if (role === "allowed") {
    results.push(await probe("preflight", serve + "/search?q=pelican",
                             {headers: {"Content-Type": "application/json"}}));
    results.push(await probe("error", serve + "/api/search"));
    results.push(await probe("root", serve + "/"));
  }
  document.getElementById("out").textContent = JSON.stringify(results);
  await fetch("/report?role=" + role, {method: "POST", body: JSON.stringify(results)});
})();
</script>
%(frame)s
"""


def main(binary, chromium):
    reports = {}
    got_both = threading.Event()
    ports = {}

    class Pages(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            role = "denied" if "role=denied" in self.path else "allowed"
            frame = ""
            if role == "allowed":
                frame = f'<iframe src="http://localhost:{ports["page"]}/page?role=denied"></iframe>'
            body = PAGE % {"serve_port": ports["serve"], "role": role, "frame": frame}
            self.reply(200, body.encode(), "text/html; charset=utf-8")

        def do_POST(self):
            role = "denied" if "role=denied" in self.path else "allowed"
            n = int(self.headers.get("Content-Length", "0"))
            reports[role] = json.loads(self.rfile.read(n))
            self.reply(204, b"", "text/plain")
            if len(reports) == 2:
                got_both.set()

        def reply(self, status, body, ctype):
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    with tempfile.TemporaryDirectory() as root:
        vault = os.path.join(root, "vault")
        os.makedirs(os.path.join(vault, "Notes"))
        with open(os.path.join(vault, "Notes", "bird.md"), "w", encoding="utf-8") as f:
            f.write("# Pelican\nthe pelican is 100% bird\n")
        pages = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Pages)
        ports["page"] = pages.server_address[1]
        threading.Thread(target=pages.serve_forever, daemon=True).start()
        origin = f"http://127.0.0.1:{ports['page']}"
        serve, ports["serve"] = start_serve(binary, root, vault, "--allow-origin", origin)
        log_path = os.path.join(root, "chromium.log")
        with open(log_path, "w") as log:
            browser = subprocess.Popen(
                [chromium, "--headless", "--no-sandbox", "--disable-gpu",
                 "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--disable-dev-shm-usage",
                 f"--user-data-dir={os.path.join(root, 'profile')}",
                 f"{origin}/page?role=allowed"],
                stdout=log, stderr=log)
        try:
            if not got_both.wait(90):
                with open(log_path) as f:
                    sys.stderr.write(f.read()[-3000:])
                raise SystemExit(f"the pages never reported back: {reports}")
        finally:
            browser.terminate()
            try:
                browser.wait(timeout=10)
            except subprocess.TimeoutExpired:
                browser.kill()
                browser.wait()
            serve.send_signal(signal.SIGTERM)
            serve.wait(timeout=5)
            pages.shutdown()

    seen = {r["name"]: r for r in reports["allowed"]}
    for name in ("search", "preflight", "error", "root"):
        assert seen[name]["ok"], f"{name}: the page could not read the answer: {seen[name]}"
    hits = json.loads(seen["search"]["body"])
    assert seen["search"]["status"] == 200 and [h["path"] for h in hits] == ["Notes/bird.md"], seen
    hits = json.loads(seen["preflight"]["body"])
    assert seen["preflight"]["status"] == 200 and "<br>" in hits[0]["excerpt"], seen
    assert seen["error"]["status"] == 400 and "error" in json.loads(seen["error"]["body"]), seen
    assert seen["root"]["status"] == 200, seen
    denied = reports["denied"][0]
    assert not denied["ok"], f"a page on an origin not allowed read the vault: {denied}"
    print("browser (headless Chromium, a page on an allowed origin and one on another): ok")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
