#!/usr/bin/env bash
# Whole-process speed comparison, side by side on the same vault and queries:
#   vault-search (local, with the freshness check), vault-search --no-refresh, `rg -l -i` on the
#   query terms, the original Python scanner (when given), and Omnisearch through vault-search
#   and through curl (when a server is given).
#
# usage: benches/compare.sh VAULT [--queries FILE.jsonl] [--n 20] [--rounds 3]
#                           [--python PATH/search_vault.py] [--omnisearch-port PORT]
#                           [--bin PATH/vault-search]
#
# Each engine runs the same batch of queries (one process per query); hyperfine times the
# batch. The rounds alternate between engines, and the median over all runs, divided by the
# number of queries, is the per-query figure. Needs hyperfine, ripgrep and python3 (Debian:
# apt-get install hyperfine ripgrep python3); it installs nothing itself.
set -euo pipefail

die() { echo "compare.sh: $*" >&2; exit 2; }
VAULT=""; QUERIES=""; N=20; ROUNDS=3; PY=""; PORT=""; BIN=""
while [ $# -gt 0 ]; do
    case "$1" in
        --queries) QUERIES="$2"; shift 2;;
        --n) N="$2"; shift 2;;
        --rounds) ROUNDS="$2"; shift 2;;
        --python) PY="$2"; shift 2;;
        --omnisearch-port) PORT="$2"; shift 2;;
        --bin) BIN="$2"; shift 2;;
        -h|--help) sed -n '2,16p' "$0"; exit 0;;
        *) [ -z "$VAULT" ] || die "unexpected argument $1"; VAULT="$1"; shift;;
    esac
done
[ -n "$VAULT" ] && [ -d "$VAULT" ] || die "give a vault directory (see --help)"
missing=""
for tool in hyperfine rg python3; do command -v "$tool" >/dev/null || missing="$missing $tool"; done
[ -z "$missing" ] || die "missing:$missing (Debian: apt-get install hyperfine ripgrep python3)"
HERE="$(cd "$(dirname "$0")/.." && pwd)"
if [ -z "$BIN" ]; then
    BIN="$HERE/target/release/vault-search"
    [ -x "$BIN" ] || die "build it first: cargo build --release (or pass --bin)"
fi
if [ -n "$PY" ] && [ ! -f "$PY" ]; then
    echo "note: $PY not found; skipping the Python original" >&2; PY=""
fi

WORK="$(mktemp -d)"; trap 'rm -rf "$WORK"' EXIT
export VAULT_SEARCH_CACHE_DIR="$WORK/cache"

# The queries: from an eval-style JSONL file, or a built-in mix.
python3 - "$QUERIES" "$N" > "$WORK/queries.txt" <<'PY'
import json, sys
path, n = sys.argv[1], int(sys.argv[2])
if path:
    qs = [json.loads(l)["query"] for l in open(path) if l.strip()]
else:
    qs = ["archive extract", "network configuration", "git commit", "docker image",
          "compress files", "list processes", "\"the current directory\"", "user password",
          "http request", "disk usage"]
for q in qs[:n]:
    print(q.replace("\n", " "))
PY
NQ=$(wc -l < "$WORK/queries.txt")

# One batch script per engine: one process per query.
mk() { # name, command template: @Q@ the query (shell-quoted), @T@ rg -e terms, @U@ URL-encoded
    local name="$1" tmpl="$2"
    python3 - "$tmpl" "$WORK/queries.txt" > "$WORK/$name.sh" <<'PY'
import shlex, sys, urllib.parse
tmpl, qfile = sys.argv[1], sys.argv[2]
print("#!/bin/sh")
for q in open(qfile).read().splitlines():
    terms = [t.strip('"').lstrip("-") for t in q.split()]
    terms = [t for t in terms if t]
    rg_terms = " ".join("-e " + shlex.quote(t) for t in terms) or "-e ''"
    line = tmpl.replace("@Q@", shlex.quote(q)).replace("@T@", rg_terms)
    line = line.replace("@U@", urllib.parse.quote(q, safe=""))
    print(line + " >/dev/null 2>&1 || true")
PY
    chmod +x "$WORK/$name.sh"
    ENGINES+=("$name")
}
ENGINES=()
V="$(cd "$VAULT" && pwd)"
mk vs-fresh "'$BIN' --vault '$V' --source local --json -n 10 -- @Q@"
mk vs-norefresh "'$BIN' --vault '$V' --source local --no-refresh --json -n 10 -- @Q@"
mk rg "rg -l -i @T@ '$V'"
[ -n "$PY" ] && mk python "OBSIDIAN_VAULT='$V' python3 '$PY' @Q@ --source local --json -n 10"
if [ -n "$PORT" ]; then
    mk vs-omnisearch "'$BIN' --vault '$V' --source omnisearch --port $PORT --json -n 10 -- @Q@"
    mk curl "curl -s 'http://127.0.0.1:$PORT/search?q=@U@'"
fi

"$BIN" --vault "$V" index >/dev/null   # build the index once (not timed)
for r in $(seq "$ROUNDS"); do
    for e in "${ENGINES[@]}"; do
        hyperfine -N -w 1 -r 3 --export-json "$WORK/$e.$r.json" "$WORK/$e.sh" >/dev/null 2>&1
    done
done

python3 - "$WORK" "$NQ" "$ROUNDS" "${ENGINES[@]}" <<'PY'
import json, statistics, sys
work, nq, rounds, engines = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
med = {}
for e in engines:
    times = []
    for r in range(1, rounds + 1):
        times += json.load(open(f"{work}/{e}.{r}.json"))["results"][0]["times"]
    med[e] = statistics.median(times) / nq * 1000
print(f"{nq} queries, {rounds} alternating rounds; median per query")
print("| engine | median ms/query | × rg |")
print("| --- | --- | --- |")
for e in engines:
    print(f"| {e} | {med[e]:.1f} | {med[e] / med['rg']:.2f} |")
if "python" in med:
    print(f"vault-search (fresh) is {med['python'] / med['vs-fresh']:.0f}× faster than the Python original")
if "curl" in med:
    print(f"Omnisearch via vault-search adds {med['vs-omnisearch'] - med['curl']:.1f} ms over curl")
PY
