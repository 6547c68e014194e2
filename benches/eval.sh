#!/usr/bin/env bash
# Ranking quality on known-item query sets: MRR@10 per kind, per set, and the mean over kinds.
#
# usage: benches/eval.sh SHARED_DIR [BINARY] [VS_TUNE settings...]
#   SHARED_DIR  the development material, kept beside a clone (as ../shared), not in this
#               repository. It holds eval/eval.py (the scorer: MRR@10 per kind), the known-item
#               query sets eval/queries/*.jsonl ({id, query, relevant, kind} a line), and the
#               vaults: corpora/tldr/pages, the English tldr-pages collection
#               (https://github.com/tldr-pages/tldr, CC BY 4.0), and corpora/dwarves-brain, a
#               company team's public Obsidian vault (https://github.com/dwarvesf/brain, CC0).
#               Without it there is nothing to score: the tests never need it.
#   BINARY      defaults to target/release/vault-search; build with `--features tuning` to let
#               the VS_TUNE settings (e.g. "w_infl=0.7,s_tf=5") override ranking constants
# Query sets named tldr-* run on corpora/tldr/pages, dwarves-brain* on corpora/dwarves-brain.
set -euo pipefail
SHARED="${1:?usage: benches/eval.sh SHARED_DIR [BINARY] [VS_TUNE...]}"
BIN="${2:-target/release/vault-search}"
shift $(( $# >= 2 ? 2 : 1 ))
command -v python3 >/dev/null || { echo "eval.sh: python3 is missing" >&2; exit 2; }
[ -x "$BIN" ] || { echo "eval.sh: build $BIN first (cargo build --release)" >&2; exit 2; }
WORK="$(mktemp -d)"; trap 'rm -rf "$WORK"' EXIT
export VAULT_SEARCH_CACHE_DIR="$WORK/cache"
configs=("$@"); [ ${#configs[@]} -gt 0 ] || configs=("")
for cfg in "${configs[@]}"; do
    for qs in "$SHARED"/eval/queries/*.jsonl; do
        name="$(basename "$qs" .jsonl)"
        case "$name" in
            tldr*) vault="$SHARED/corpora/tldr/pages";;
            dwarves*) vault="$SHARED/corpora/dwarves-brain";;
            *) continue;;
        esac
        VS_TUNE="$cfg" python3 "$SHARED/eval/eval.py" --vault "$vault" --queries "$qs" \
            --engine "vs:$BIN" --misses > "$WORK/$name.json" 2> "$WORK/$name.misses"
    done
    python3 - "$WORK" "$cfg" <<'PY'
import glob, json, os, sys
work, cfg = sys.argv[1], sys.argv[2]
every = []
for f in sorted(glob.glob(f"{work}/*.json")):
    d = json.load(open(f))
    kinds = {k: v["mrr10"] for k, v in d.items() if isinstance(v, dict) and "mrr10" in v and k != "all"}
    every += kinds.values()
    print(f"{os.path.basename(f)[:-5]:24} " + " ".join(f"{k}={v:.3f}" for k, v in kinds.items()))
print(f"mean over kinds {sum(every) / len(every):.4f}, min {min(every):.3f}  [{cfg}]")
PY
done
