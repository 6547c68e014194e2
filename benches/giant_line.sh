#!/usr/bin/env bash
# A search whose hits include a multi-MB one-line note, against the same search with a small
# note in its place (issue: within 2×). Two copies of VAULT: one gets `giant.md`, 9 MB on one
# line of the words of the notes that hold WORD, a marker word in the middle; the other the
# same note cut to 300 words. Both are indexed, then `quokkamarker WORD` is searched in each,
# taking turns (benches/alternate.py; VS_BENCH_RUNS rounds, 60 by default), with `--no-refresh`
# and with the walk. With --before BIN, that binary's giant search runs in the same rounds.
#
# usage: benches/giant_line.sh VAULT [--bin PATH/vault-search] [--before PATH] [--word WORD]
#
# With --lines instead of VAULT: the time to index a vault of one ~10 MB one-line note, for
# lines built against the scanners over a line (issue: linear in the line's length) beside
# plain text of the same size: `plain` (words), `backticks` (runs of 1…4,400 backticks, none
# closed, then a link and a tag), `md-open` (`[a](` 2.5 million times, then one `)`). Each
# index is a full build into an empty cache; VS_BENCH_RUNS rounds (3 by default), binaries
# and lines taking turns; medians, and each line's ratio to `plain` with the same binary.
#
# usage: benches/giant_line.sh --lines [--bin PATH/vault-search] [--before PATH]
set -euo pipefail

die() { echo "giant_line.sh: $*" >&2; exit 2; }
VAULT=""; BIN=""; BEFORE=""; WORD="tar"; LINES=""
while [ $# -gt 0 ]; do
    case "$1" in
        --bin) BIN="$2"; shift 2;;
        --before) BEFORE="$2"; shift 2;;
        --word) WORD="$2"; shift 2;;
        --lines) LINES=1; shift;;
        -h|--help) sed -n '2,18p' "$0"; exit 0;;
        *) [ -z "$VAULT" ] || die "unexpected argument $1"; VAULT="$1"; shift;;
    esac
done
BIN="${BIN:-target/release/vault-search}"
[ -x "$BIN" ] || die "no binary at $BIN (cargo build --release)"
HERE="$(cd "$(dirname "$0")" && pwd)"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

if [ -n "$LINES" ]; then
    python3 - "$TMP" "${VS_BENCH_RUNS:-3}" "after=$BIN" ${BEFORE:+"before=$BEFORE"} <<'PY'
import os, pathlib, random, shutil, statistics, subprocess, sys, time
tmp, runs, bins = pathlib.Path(sys.argv[1]), int(sys.argv[2]), [a.split("=", 1) for a in sys.argv[3:]]
random.seed(1)
words = "alpha beta gamma delta kiln glaze tide pilot hive queen rook endgame".split()
backticks = " x ".join("`" * n for n in range(1, 4401)) + " [[Target]] #tag\n"
size = len(backticks)
plain, n = [], 0
while n < size:
    plain.append(random.choice(words))
    n += len(plain[-1]) + 1
lines = {
    "plain": " ".join(plain) + " [[Target]] #tag\n",
    "backticks": backticks,
    "md-open": "[a](" * (size // 4) + ") [[Target]] #tag\n",
}
for kind, text in lines.items():
    (tmp / kind).mkdir()
    (tmp / kind / "note.md").write_text(text)
    print(f"{kind}: {len(text) / 1e6:.1f} MB on one line")
took = {(b, k): [] for b, _ in bins for k in lines}
for r in range(runs):
    for b, path in bins[r % len(bins):] + bins[: r % len(bins)]:
        for kind in lines:
            cache = tmp / "cache"
            shutil.rmtree(cache, ignore_errors=True)
            env = dict(os.environ, VAULT_SEARCH_CACHE_DIR=str(cache))
            t = time.perf_counter()
            subprocess.run([path, "--vault", str(tmp / kind), "index"], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            took[b, kind].append(time.perf_counter() - t)
for b, _ in bins:
    base = statistics.median(took[b, "plain"])
    for kind in lines:
        m = statistics.median(took[b, kind])
        print(f"{b:7} {kind:10} median {m:7.2f} s  ({m / base:5.1f}x plain)")
PY
    exit 0
fi
[ -d "$VAULT" ] || die "give a vault directory"
RUNS="${VS_BENCH_RUNS:-60}"

cp -r "$VAULT" "$TMP/giant"
cp -r "$VAULT" "$TMP/small"
python3 - "$VAULT" "$TMP" "$WORD" <<'PY'
import pathlib, random, sys
vault, tmp, word = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3]
random.seed(1)
# The words of notes that hold WORD: the giant note then holds it, and words like it, about
# as often as they do, which is what makes a giant note's passage search dear.
vocab = []
for p in sorted(vault.rglob("*.md")):
    text = p.read_text(errors="ignore")
    if word in text.split():
        vocab += text.split()
    if len(vocab) > 20_000:
        break
out, n = [], 0
while n < 9_000_000:
    w = random.choice(vocab)
    out.append(w)
    n += len(w) + 1
mid = len(out) // 2
out.insert(mid, "quokkamarker")
(tmp / "giant/giant.md").write_text(" ".join(out))
(tmp / "small/giant.md").write_text(" ".join(out[mid - 150 : mid + 150]))
PY
for v in giant small; do
    VAULT_SEARCH_CACHE_DIR="$TMP/c-$v" "$BIN" --vault "$TMP/$v" index >/dev/null
done
run() { # name binary vault extra...
    local name="$1" bin="$2" v="$3"; shift 3
    echo "$name=env VAULT_SEARCH_CACHE_DIR=$TMP/c-$v $bin --vault $TMP/$v --source local $* quokkamarker $WORD"
}
for extra in --no-refresh ""; do
    echo "== ${extra:-with the walk}"
    pairs=("$(run small "$BIN" small $extra)" "$(run giant "$BIN" giant $extra)")
    [ -z "$BEFORE" ] || pairs+=("$(run giant-before "$BEFORE" giant $extra)")
    python3 "$HERE/alternate.py" "$RUNS" "${pairs[@]}"
done
