#!/usr/bin/env bash
# `serve` side by side on one vault: a local search while `serve` watches the vault (the walk
# skipped) vs `--no-refresh` vs the same search with no server (the walk), then `/search`
# latency of `serve` vs the Omnisearch stand-in (when given), then serve's RSS.
#
# usage: benches/serve.sh VAULT [--bin PATH/vault-search] [--omni-emu DIR] [--query Q]
#
# DIR is a copy of the Omnisearch stand-in with `npm install` done. Needs python3 and curl.
# The CLI pairs take turns (benches/alternate.py, VS_BENCH_RUNS rounds, 150 by default).
# The index lives in a temporary cache directory, built once before timing.
set -euo pipefail

die() { echo "serve.sh: $*" >&2; exit 2; }
VAULT=""; BIN=""; EMU=""; Q="SQLite SQL engine"
while [ $# -gt 0 ]; do
    case "$1" in
        --bin) BIN="$2"; shift 2;;
        --omni-emu) EMU="$2"; shift 2;;
        --query) Q="$2"; shift 2;;
        -h|--help) sed -n '2,9p' "$0"; exit 0;;
        *) [ -z "$VAULT" ] || die "unexpected argument $1"; VAULT="$1"; shift;;
    esac
done
[ -n "$VAULT" ] || die "give a vault directory"
BIN="${BIN:-target/release/vault-search}"
[ -x "$BIN" ] || die "no binary at $BIN (cargo build --release)"
command -v python3 >/dev/null || die "python3 not found"
HERE="$(cd "$(dirname "$0")" && pwd)"
RUNS="${VS_BENCH_RUNS:-150}"
command -v curl >/dev/null || die "curl not found"

CACHE="$(mktemp -d)"
cleanup() { [ -n "${SPID:-}" ] && kill "$SPID" 2>/dev/null && wait "$SPID" 2>/dev/null; [ -n "${EPID:-}" ] && kill "$EPID" 2>/dev/null; rm -rf "$CACHE"; }
trap cleanup EXIT
VS=("$BIN" --vault "$VAULT" --cache-dir "$CACHE")
ENC="$(python3 -c 'import sys,urllib.parse;print(urllib.parse.quote(sys.argv[1]))' "$Q")"
"${VS[@]}" index >/dev/null

free_port() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
# wait_http URL [SECONDS]: the stand-in indexes the whole vault in memory before it answers.
wait_http() { for _ in $(seq $(( ${2:-60} * 10 ))); do curl -sf "$1" >/dev/null && return 0; sleep 0.1; done; die "no answer from $1"; }
rss() { awk '/VmRSS/ {print $2 " kB"}' "/proc/$1/status"; }

PORT="$(free_port)"
"${VS[@]}" serve --port "$PORT" 2>/dev/null & SPID=$!
wait_http "http://127.0.0.1:$PORT/health"
until curl -s "http://127.0.0.1:$PORT/health" | grep -q '"caught_up":true'; do sleep 0.1; done
echo "== serve RSS after start: $(rss "$SPID")"

echo "== local search: serve watching vs --no-refresh"
"$HERE/alternate.py" "$RUNS" \
    "no-refresh=$(printf '%q ' "${VS[@]}" --source local --no-refresh -- "$Q")" \
    "watched (serve running)=$(printf '%q ' "${VS[@]}" --source local -- "$Q")"

if [ -n "$EMU" ]; then
    EPORT="$(free_port)"
    node "$EMU/server.mjs" --vault "$VAULT" --port "$EPORT" 2>/dev/null & EPID=$!
    wait_http "http://127.0.0.1:$EPORT/search?q=x" 900
    echo "== /search latency: serve vs the Omnisearch stand-in (one connection per request, alternating)"
    python3 - "$PORT" "$EPORT" "$ENC" <<'PY'
import http.client, statistics, sys, time
ports, q = sys.argv[1:3], sys.argv[3]
def once(port):
    t = time.perf_counter()
    c = http.client.HTTPConnection("127.0.0.1", int(port), timeout=30)
    c.request("GET", "/search?q=" + q)
    c.getresponse().read()
    c.close()
    return (time.perf_counter() - t) * 1000
for p in ports:
    for _ in range(20): once(p)
times = {p: [] for p in ports}
for _ in range(300):
    for p in ports: times[p].append(once(p))
for name, p in zip(["serve", "stand-in"], ports):
    t = sorted(times[p])
    print(f"{name:9} median {statistics.median(t):.2f} ms, p90 {t[int(len(t) * 0.9)]:.2f} ms")
PY
    echo "== stand-in RSS: $(rss "$EPID")"
fi
echo "== serve RSS after the runs: $(rss "$SPID")"

kill "$SPID"; wait "$SPID" 2>/dev/null || true; SPID=""
echo "== local search without a server (the freshness walk) vs --no-refresh"
"$HERE/alternate.py" "$RUNS" \
    "no-refresh=$(printf '%q ' "${VS[@]}" --source local --no-refresh -- "$Q")" \
    "walk (no server)=$(printf '%q ' "${VS[@]}" --source local -- "$Q")"
