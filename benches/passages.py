#!/usr/bin/env python3
"""What a search shows an agent, and what the agent spends to get an answer.

usage: benches/passages.py BINARY SHARED_DIR [--sets NAME,...] [-n 5] [--budget TOKENS]
           [--extra 'FLAGS'] [--text [--text-flag FLAG]] [--section]
           [--tokenizers DIR [--encoding o200k|cl100k|claude]] [--json] [--verbose]

  BINARY      a vault-search binary; each question runs as
              `BINARY --vault V --source local --json -n 5 [--budget B] [EXTRA] -- QUESTION`
              with VAULT_SEARCH_CACHE_DIR set to a fresh temporary folder (the index is built
              once per vault before the questions, so no answer carries a rebuild warning).
  SHARED_DIR  the development material (../shared beside a clone), not in this repository:
              eval/queries/NAME.jsonl ({id, query, relevant: [path], kind} a line) and
              eval/answers/NAME.jsonl (one line per (question, relevant note): {id, path,
              lines: [[first, last], ...]}, 1-based inclusive: the lines a person must read to
              answer). Sets named tldr-* run on corpora/tldr/pages, dwarves-brain* on
              corpora/dwarves-brain. Default sets: dwarves-brain-questions, tldr-pages-questions.
  --extra     more flags for every search (split like a shell would).
  --text      count the tokens of the plain-text output (run with --text-flag, default
              `--passages`, and without --json) instead of the JSON; what is shown is still read
              from the JSON of the same search, and a passage (or excerpt) counts as shown only if
              its text is also in the plain-text output.
  --section   the headline `tokens per answered question` charges reading the answer's section
              instead of the whole note (both are always reported).
  --tokenizers DIR  count tokens with a real tokenizer: DIR is where
              `npm install --prefix DIR gpt-tokenizer @anthropic-ai/tokenizer` put them (node runs
              them, offline); --encoding picks o200k (default), cl100k or claude (Claude's earlier
              models). Without it tokens are estimated as ceil(UTF-8 bytes / 4), and the report
              says so.
  --json      print the figures (and per-question details) as JSON.

Definitions (per question set):

  note@5      the share of questions with a relevant note among the top 5 hits.

  shown       what a hit shows of its note. When the hit has `passages` ({line, end_line,
              heading, text, cut?}), each passage claims the note's lines line..end_line. The claim
              is checked against the file: the passage's text, whitespace flattened, must occur in
              those lines' text as the tool cleans it (whitespace flattened; the comments Obsidian
              hides, `<!-- -->` and `%% %%`, left out or not); a line counts as shown only when all
              of its text lies inside the passage's text (a cut passage shows the lines it holds
              whole). A passage whose text is not in its claimed lines shows nothing, and a warning
              names it: a wrong line number is caught, not credited. A hit without passages shows
              its `excerpt`: the excerpt (its `...` cut marks dropped) is looked for in the note's
              text within 40 lines of the hit's `line`, and the lines whose whole text lies
              inside it are shown (an excerpt is cut around the match and flattened, so it may
              show a short line or two whole, and often none). Blank lines count as shown when
              they lie within the shown text.

  answer shown (strict)   a relevant note's hit is in the top 5 and EVERY line of every answer
              range of that note is shown by that hit. A question counts if any of its relevant
              notes (one answer line per note) qualifies.
  answer shown (lenient)  the same with at least one answer range fully shown.
  answer touched  (looser still, for comparison with figures that credit a hit whose excerpt
              merely lies on the answer) some answer line is at least partly shown.
              Both are given as a share of all questions and of the questions whose relevant
              note is in the top 5.

  tokens      of the response as the agent reads it: the whole stdout of the search (JSON, or
              the plain text with --text). Tokens spent on a question = the response's tokens,
              plus, when a relevant note is in the top 5 but its answer is not shown (strict), the
              tokens of reading the best-ranked relevant note: the whole file (what an agent does
              today), or with --section the section(s) holding the answer lines (from the
              heading above a line to the next heading of the same or a higher level; the lines
              before the first heading form a section of their own).
  tokens per answered question = the sum of tokens spent over ALL questions / the number of
              questions whose relevant note is in the top 5.
"""
import argparse
import json
import math
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile

DEFAULT_SETS = ["dwarves-brain-questions", "tldr-pages-questions"]
WINDOW = 40  # lines around an excerpt's `line` where its text is looked for

# Counts tokens with a tokenizer installed by npm, in one node process fed a line of JSON per
# text (a string) and answering with one count per line.
NODE_COUNTER = r"""
const { createRequire } = require("node:module");
const path = require("node:path");
const req = createRequire(path.join(process.argv[1], "package.json"));
const enc = process.argv[2];
let count;
if (enc === "claude") {
  const t = req("@anthropic-ai/tokenizer").getTokenizer();
  count = (s) => t.encode(s.normalize("NFKC"), "all").length;
} else {
  const e = req(`gpt-tokenizer/cjs/encoding/${enc}_base`);
  count = (s) => e.encode(s).length;
}
const rl = require("node:readline").createInterface({ input: process.stdin });
rl.on("line", (l) => process.stdout.write(count(JSON.parse(l)) + "\n"));
"""


class Tokens:
    """Counts tokens of a text: a real tokenizer through node, or UTF-8 bytes / 4."""

    def __init__(self, tokenizers, encoding):
        self.proc = None
        self.name = "bytes/4 (estimate: no tokenizer given)"
        if tokenizers:
            self.proc = subprocess.Popen(
                ["node", "-e", NODE_COUNTER, os.path.abspath(tokenizers), encoding],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8")
            self.name = {"o200k": "o200k_base", "cl100k": "cl100k_base",
                         "claude": "Claude (earlier models)"}[encoding]
            if self.count("hello world") != 2:
                sys.exit(f"passages: the {encoding} tokenizer in {tokenizers} does not work")

    def count(self, text):
        if self.proc is None:
            return math.ceil(len(text.encode("utf-8")) / 4)
        self.proc.stdin.write(json.dumps(text) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            sys.exit("passages: the tokenizer process stopped")
        return int(line)

    def close(self):
        if self.proc:
            self.proc.stdin.close()
            self.proc.wait()


class Note:
    """A note's lines, and its text cleaned as the tool cleans shown text, char by char."""

    COMMENT = re.compile(r"<!--.*?(?:-->|\Z)|%%.*?(?:%%|\Z)", re.S)

    def __init__(self, path):
        with open(path, encoding="utf-8", errors="replace") as f:
            self.text = f.read().replace("\r\n", "\n")
        self.lines = self.text.split("\n")
        if self.lines and self.lines[-1] == "":
            self.lines.pop()
        self.starts = []
        pos = 0
        for line in self.lines:
            self.starts.append(pos)
            pos += len(line) + 1
        # Two readings of the comments: the tool leaves a comment mark inside code as text,
        # which this scorer does not parse, so text matching either reading counts.
        hidden = [False] * len(self.text)
        for m in self.COMMENT.finditer(self.text):
            for i in range(m.start(), m.end()):
                hidden[i] = True
        self.hidden = {False: None, True: hidden}

    def flat(self, lo, hi, strip_comments):
        """Lines lo..hi (1-based, inclusive), whitespace flattened: (text, line of each char),
        with line 0 for the spaces the flattening put between words."""
        lo, hi = max(lo, 1), min(hi, len(self.lines))
        if lo > hi:
            return "", []
        start = self.starts[lo - 1]
        end = self.starts[hi - 1] + len(self.lines[hi - 1])
        hidden = self.hidden[strip_comments]
        out, owner, pending = [], [], False
        line = lo
        for i in range(start, end):
            c = self.text[i]
            if c == "\n":
                line += 1
            if hidden is not None and hidden[i]:
                continue
            if c.isspace() or (ord(c) < 32 or 127 <= ord(c) < 160):
                pending = bool(out)
                continue
            if pending:
                out.append(" ")
                owner.append(0)
                pending = False
            out.append(c)
            owner.append(line)
        return "".join(out), owner

    def shown_lines(self, lo, hi, shown, near=None):
        """The lines of lo..hi whose whole cleaned text lies inside `shown` (flattened), found
        in those lines' cleaned text (nearest to line `near` when given); None if not found."""
        needle = flatten(shown)
        if not needle:
            return None
        best = None
        for strip in (True, False):
            hay, owner = self.flat(lo, hi, strip)
            i = hay.find(needle)
            while i >= 0:
                lines_at = [owner[k] for k in range(i, i + len(needle)) if owner[k]]
                dist = abs(lines_at[0] - near) if (near and lines_at) else 0
                if best is None or dist < best[0]:
                    best = (dist, hay, owner, i, i + len(needle))
                i = hay.find(needle, i + 1)
            if best is not None:
                break
        if best is None:
            return None
        _, hay, owner, i, j = best
        first, last, pos = {}, {}, {}
        for k, ln in enumerate(owner):
            if ln:
                first.setdefault(ln, k)
                last[ln] = k
        out = set()
        self.touched = {owner[k] for k in range(i, j) if owner[k]}
        nxt = len(owner)
        for ln in range(min(hi, len(self.lines)), max(lo, 1) - 1, -1):
            if ln in first:
                if i <= first[ln] and last[ln] < j:
                    out.add(ln)
                nxt = first[ln]
            else:
                pos[ln] = nxt  # a blank (or hidden) line sits where the next text starts
                if i < pos[ln] < j or (pos[ln] == j and j == len(owner) and i < j):
                    out.add(ln)
        return out

    def section(self, line):
        """The lines (lo, hi) of the section holding `line`."""
        heads = self.headings()
        above = [(n, lvl) for n, lvl in heads if n <= line]
        if not above:
            end = next((n for n, _ in heads if n > line), len(self.lines) + 1)
            return 1, end - 1
        start, lvl = above[-1]
        end = next((n for n, lv in heads if n > start and lv <= lvl), len(self.lines) + 1)
        return start, end - 1

    def headings(self):
        out, fence = [], None
        for n, line in enumerate(self.lines, 1):
            m = re.match(r"\s{0,3}(`{3,}|~{3,})", line)
            if m:
                if fence is None:
                    fence = m.group(1)
                elif m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                    fence = None
                continue
            h = re.match(r"(#{1,6})\s", line)
            if fence is None and h:
                out.append((n, len(h.group(1))))
        return out

    def text_of(self, lines):
        return "\n".join(self.lines[n - 1] for n in sorted(lines))


def flatten(s):
    return " ".join(s.split())


def strip_cut_marks(s):
    s = s.strip()
    for mark in ("...", "…"):
        if s.startswith(mark):
            s = s[len(mark):]
        if s.endswith(mark):
            s = s[: -len(mark)]
    return s


def hit_shows(hit, note, warn):
    """The lines of `note` that `hit` shows whole, and those it shows at least a part of."""
    shown, touched = set(), set()
    passages = hit.get("passages")
    if passages:
        for p in passages:
            lo, hi = p.get("line"), p.get("end_line", p.get("line"))
            if not isinstance(lo, int) or not isinstance(hi, int) or lo < 1 or hi < lo:
                warn(f"{hit['path']}: passage with bad lines {lo}..{hi}")
                continue
            if hi > len(note.lines):
                warn(f"{hit['path']}: passage {lo}-{hi} ends past the note's {len(note.lines)} lines")
                continue
            text = p.get("text", "")
            got = note.shown_lines(lo, hi, strip_cut_marks(text) if p.get("cut") else text)
            if got is None:
                warn(f"{hit['path']}: passage {lo}-{hi} text is not the text of those lines: "
                     f"{flatten(text)[:80]!r}")
                continue
            touched |= note.touched
            if not p.get("cut"):
                missing = [n for n in range(lo, hi + 1) if n not in got and note.lines[n - 1].strip()]
                if missing:
                    warn(f"{hit['path']}: passage {lo}-{hi} (not marked cut) leaves out lines "
                         f"{missing[:5]}")
            shown |= got
        return shown, touched
    line, excerpt = hit.get("line"), strip_cut_marks(hit.get("excerpt") or "")
    if not isinstance(line, int) or not excerpt:
        return shown, touched
    got = note.shown_lines(line - WINDOW, line + WINDOW, excerpt, near=line)
    if got is None:
        warn(f"{hit['path']}: excerpt not found near line {line}: {excerpt[:80]!r}")
        return shown, touched
    return got, note.touched


def load_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def vault_of(shared, name):
    if name.startswith("tldr"):
        return os.path.join(shared, "corpora", "tldr", "pages")
    if name.startswith("dwarves"):
        return os.path.join(shared, "corpora", "dwarves-brain")
    sys.exit(f"passages: no vault known for set {name}")


def run(argv, env):
    p = subprocess.run(argv, env=env, capture_output=True)
    if p.returncode != 0:
        sys.exit(f"passages: {shlex.join(argv)} failed ({p.returncode}): "
                 f"{p.stderr.decode('utf-8', 'replace').strip()[:300]}")
    return p.stdout.decode("utf-8")


def measure_set(a, name, tokens, env):
    vault = vault_of(a.shared, name)
    questions = load_jsonl(os.path.join(a.shared, "eval", "queries", f"{name}.jsonl"))
    answers = {}
    for row in load_jsonl(os.path.join(a.shared, "eval", "answers", f"{name}.jsonl")):
        answers.setdefault(row["id"], {})[row["path"]] = row["lines"]
    run([a.binary, "--vault", vault, "index"], env)
    flags = ["--vault", vault, "--source", "local", "-n", str(a.n)]
    if a.budget is not None:
        flags += ["--budget", str(a.budget)]
    flags += shlex.split(a.extra or "")
    notes, warnings, rows = {}, [], []
    file_tokens = {}

    def note(path):
        if path not in notes:
            notes[path] = Note(os.path.join(vault, path))
        return notes[path]

    for q in questions:
        out = run([a.binary, *flags, "--json", "--", q["query"]], env)
        resp = json.loads(out)
        hits = resp.get("results", [])[: a.n]
        shown_text = out
        if a.text:
            shown_text = run([a.binary, *flags, *shlex.split(a.text_flag), "--", q["query"]], env)
        spent = tokens.count(shown_text)
        relevant = set(q["relevant"])
        ranked = [(r, h) for r, h in enumerate(hits, 1) if h.get("path") in relevant]
        qwarn = []
        warn = lambda m: qwarn.append(f"{q['id']}: {m}")  # noqa: E731
        strict = lenient = touches = False
        for _, h in ranked:
            ranges = answers.get(q["id"], {}).get(h["path"])
            if not ranges:
                warn(f"{h['path']}: no answer lines in the answer set")
                continue
            n = note(h["path"])
            shown, part = hit_shows(h, n, warn)
            if a.text:
                keep = in_text(h, shown_text, warn)
                shown = {ln for ln in shown if any(lo <= ln <= hi for lo, hi in keep)}
                part = {ln for ln in part if any(lo <= ln <= hi for lo, hi in keep)}
            full = [all(ln in shown for ln in range(lo, hi + 1)) for lo, hi in ranges]
            strict |= all(full)
            lenient |= any(full)
            touches |= any(lo <= ln <= hi for lo, hi in ranges for ln in part)
        read = read_section = 0
        if ranked and not strict:
            path = ranked[0][1]["path"]
            n = note(path)
            if path not in file_tokens:
                file_tokens[path] = tokens.count(n.text)
            read = file_tokens[path]
            lines = set()
            for lo, hi in answers.get(q["id"], {}).get(path, []):
                for ln in range(lo, hi + 1):
                    s, e = n.section(ln)
                    lines.update(range(s, e + 1))
            read_section = tokens.count(n.text_of(lines)) if lines else read
        warnings += qwarn
        rows.append({"id": q["id"], "rank": ranked[0][0] if ranked else None,
                     "strict": strict, "lenient": lenient, "touches": touches,
                     "response_tokens": spent,
                     "read_note_tokens": read, "read_section_tokens": read_section,
                     "warnings": qwarn})
    return summarise(name, rows, warnings, a)


def in_text(hit, text_out, warn):
    """The line ranges of `hit` whose passage (or excerpt) text is also in the plain-text output."""
    # A passage's lines are printed indented behind `|`: read them without it.
    flat_out = flatten("\n".join(re.sub(r"^\s*\|\s?", "", l) for l in text_out.splitlines()))
    keep = []
    passages = hit.get("passages")
    parts = passages or [{"line": hit.get("line"), "text": hit.get("excerpt") or ""}]
    for p in parts:
        lo = p.get("line") or 0
        hi = p.get("end_line") or lo
        if not passages:
            lo, hi = lo - WINDOW, hi + WINDOW
        if flatten(strip_cut_marks(p.get("text", ""))) in flat_out:
            keep.append((lo, hi))
        else:
            warn(f"{hit['path']}: shown text of lines {p.get('line')}-{p.get('end_line')} "
                 "is not in the plain-text output")
    return keep


def summarise(name, rows, warnings, a):
    total = len(rows)
    top = [r for r in rows if r["rank"]]
    k = len(top)
    strict = sum(r["strict"] for r in rows)
    lenient = sum(r["lenient"] for r in rows)
    touches = sum(r["touches"] for r in rows)
    spent_note = sum(r["response_tokens"] + r["read_note_tokens"] for r in rows)
    spent_section = sum(r["response_tokens"] + r["read_section_tokens"] for r in rows)
    per = lambda s: round(s / k) if k else None  # noqa: E731
    return {
        "set": name, "questions": total, "note_at_5": k / total if total else 0,
        "in_top": k,
        "shown_strict": strict / total if total else 0,
        "shown_strict_of_top": strict / k if k else 0,
        "shown_lenient": lenient / total if total else 0,
        "shown_lenient_of_top": lenient / k if k else 0,
        "touches": touches / total if total else 0,
        "touches_of_top": touches / k if k else 0,
        "response_tokens_median": statistics.median(r["response_tokens"] for r in rows) if rows else 0,
        "tokens_per_answered_note": per(spent_note),
        "tokens_per_answered_section": per(spent_section),
        "tokens_per_answered": per(spent_section if a.section else spent_note),
        "warnings": warnings, "rows": rows,
    }


def main():
    p = argparse.ArgumentParser(usage=__doc__.split("\n\n")[1])
    p.add_argument("binary")
    p.add_argument("shared")
    p.add_argument("--sets", default=",".join(DEFAULT_SETS))
    p.add_argument("-n", type=int, default=5)
    p.add_argument("--budget", type=int)
    p.add_argument("--extra", default="")
    p.add_argument("--text", action="store_true")
    p.add_argument("--text-flag", default="--passages")
    p.add_argument("--section", action="store_true")
    p.add_argument("--tokenizers")
    p.add_argument("--encoding", default="o200k", choices=["o200k", "cl100k", "claude"])
    p.add_argument("--json", action="store_true")
    p.add_argument("--verbose", action="store_true")
    a = p.parse_args()
    if not os.access(a.binary, os.X_OK):
        sys.exit(f"passages: {a.binary} is not an executable")
    a.binary = os.path.abspath(a.binary)
    tokens = Tokens(a.tokenizers, a.encoding)
    results = []
    with tempfile.TemporaryDirectory(prefix="vs-passages-") as cache:
        env = {**os.environ, "VAULT_SEARCH_CACHE_DIR": cache}
        for name in a.sets.split(","):
            results.append(measure_set(a, name, tokens, env))
    tokens.close()
    if a.json:
        json.dump({"tokens": tokens.name, "n": a.n, "budget": a.budget, "text": a.text,
                   "extra": a.extra, "sets": results}, sys.stdout, indent=1)
        print()
        return
    print(f"tokens: {tokens.name}; {'plain text ' + a.text_flag if a.text else 'JSON'}; "
          f"-n {a.n}" + (f" --budget {a.budget}" if a.budget is not None else "")
          + (f" {a.extra}" if a.extra else ""))
    print(f"{'set':<26} {'note@5':>7} {'strict all/top':>15} {'lenient all/top':>16} "
          f"{'touch all/top':>14} {'resp tok':>9} {'tok/ans note':>13} {'tok/ans sect':>13}")
    for r in results:
        print(f"{r['set']:<26} {r['note_at_5']:>7.3f} "
              f"{r['shown_strict']:>7.3f}/{r['shown_strict_of_top']:.3f} "
              f"{r['shown_lenient']:>8.3f}/{r['shown_lenient_of_top']:.3f} "
              f"{r['touches']:>6.3f}/{r['touches_of_top']:.3f} "
              f"{r['response_tokens_median']:>9.0f} {r['tokens_per_answered_note']:>13,} "
              f"{r['tokens_per_answered_section']:>13,}")
    for r in results:
        if r["warnings"]:
            print(f"{r['set']}: {len(r['warnings'])} warning(s)", file=sys.stderr)
            for w in r["warnings"][: None if a.verbose else 10]:
                print(f"  {w}", file=sys.stderr)


if __name__ == "__main__":
    main()
