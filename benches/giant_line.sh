#!/usr/bin/env bash
# A search whose hits include a multi-MB one-line note, against the same search with a small
# note in its place (issue: within 2×). Two copies of VAULT: one gets `giant.md`, 9 MB on one
# line of the words of the notes that hold WORD, a marker word in the middle; the other the
# same note cut to 300 words. Both are indexed, then `quokkamarker WORD` is searched in each,
# taking turns (benches/alternate.py; VS_BENCH_RUNS rounds, 60 by default), with `--no-refresh`
# and with the walk. With --before BIN, that binary's giant search runs in the same rounds.
#
# usage: benches/giant_line.sh VAULT [--bin PATH/vault-search] [--before PATH] [--word WORD]
set -euo pipefail

die() { echo "giant_line.sh: $*" >&2; exit 2; }
VAULT=""; BIN=""; BEFORE=""; WORD="tar"
while [ $# -gt 0 ]; do
    case "$1" in
        --bin) BIN="$2"; shift 2;;
        --before) BEFORE="$2"; shift 2;;
        --word) WORD="$2"; shift 2;;
        -h|--help) sed -n '2,9p' "$0"; exit 0;;
        *) [ -z "$VAULT" ] || die "unexpected argument $1"; VAULT="$1"; shift;;
    esac
done
[ -d "$VAULT" ] || die "give a vault directory"
BIN="${BIN:-target/release/vault-search}"
[ -x "$BIN" ] || die "no binary at $BIN (cargo build --release)"
HERE="$(cd "$(dirname "$0")" && pwd)"
RUNS="${VS_BENCH_RUNS:-60}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

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
