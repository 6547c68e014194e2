#!/usr/bin/env node
// Calibrates a token estimate that needs no tokenizer against real tokenizers.
//
// usage: node benches/tokens-calibrate.mjs --tokenizers DIR --shared SHARED_DIR
//            [--bin BINARY] [--chunks N] [--seed S] [--out FILE.json]
//            [--samples FILE] [--load FILE]
//
//   --tokenizers DIR  a folder where the tokenizers are installed, not in this repository:
//                     `npm install --prefix DIR gpt-tokenizer @anthropic-ai/tokenizer`.
//                     gpt-tokenizer bundles OpenAI's o200k_base and cl100k_base encodings;
//                     @anthropic-ai/tokenizer bundles the tokenizer of Claude's earlier models
//                     (counted as its countTokens does: NFKC, then encode). Both run offline.
//   --shared DIR      the development material (../shared beside a clone): the vaults
//                     corpora/dwarves-brain and corpora/tldr/pages{,.zh,.ja,.ko,.ru,.ar}.
//   --bin BINARY      also measure `--json` responses of this vault-search binary (queries of
//                     eval/queries/*-questions.jsonl on their vaults, and the description lines
//                     of tldr pages.zh / pages.ja used as queries on those vaults).
//   --chunks N        chunks per text class (default 300), --seed S for the sampler (default 1).
//   --samples FILE    write each chunk's character counts and token counts there (JSON lines);
//   --load FILE       read them back instead of cutting and tokenizing (then --tokenizers and
//                     --shared are not needed): to try weights quickly.
//
// Text classes: english-notes (the team vault's notes with fenced code left out), english-tldr,
// code (the fenced code blocks of the team vault), zh, ja, ko, ru, ar (tldr translations),
// json-en and json-cjk (the binary's --json output). From each class's text, concatenated file
// after file in a fixed pseudo-random order, N chunks are cut: each starts at a line start and
// is 200 to 4,000 bytes long (log-uniform), cut back to a character boundary.
//
// For each chunk and tokenizer the ratio real tokens / estimate is taken; a ratio over 1.0 is an
// undercount. Estimates:
//   E1  ceil(bytes / 4)
//   E2  ceil(ascii_bytes / 3) + non-ASCII chars
//   E3  ascii_bytes / 3 + 2 × (non-ASCII chars of 3+ bytes) + (non-ASCII chars of 2 bytes)
//   W   per-character weights by class (WEIGHTS below): ASCII letters, ASCII digits, ASCII
//       punctuation and symbols, ASCII whitespace, `tail`: a letter or digit past the 12th of
//       its run (base64, hashes: random letters cost up to a token per 1.1 chars, words ~4);
//       2-byte chars: below U+0370 (Latin with accents: b2), Greek (U+0370..U+03FF), Cyrillic
//       (U+0400..U+04FF), from U+0500 (Hebrew, Arabic, ...: b2x); 3-byte chars: CJK (kana,
//       ideographs, Hangul, CJK and full-width punctuation) and the rest (Indic, Thai,
//       Vietnamese letters of U+1Exx, typographic punctuation: b3); 4-byte chars (emoji).
//       A weighted sum is additive over the parts of a response, so a response can be estimated
//       piece by piece. WEIGHTS come from a linear program over the --samples of one run
//       (least mean overcount, English prose counted twice, subject to no chunk undercounted
//       under any tokenizer; the class `random` left out of the constraints), rounded, and
//       checked by this script's table: text no tokenizer has learnt (base64, hex, UUIDs) is
//       still undercounted by up to 1.5 ×.
import { readFileSync, readdirSync, statSync, writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { execFileSync } from "node:child_process";
import { join, resolve } from "node:path";
import { tmpdir } from "node:os";

// Per-character weights of W.
const WEIGHTS = {
  letter: 0.3, digit: 0.5, punct: 1, space: 0.3, tail: 0.7,
  b2: 1.5, greek: 2, cyrillic: 0.7, b2x: 1.4, cjk: 1.7, b3: 3, b4: 4,
};
const CLASSES = Object.keys(WEIGHTS);

function args() {
  const a = { chunks: 300, seed: 1 };
  const v = process.argv.slice(2);
  for (let i = 0; i < v.length; i++) {
    const k = v[i];
    if (["--tokenizers", "--shared", "--bin", "--chunks", "--seed", "--out", "--samples", "--load"].includes(k)) {
      if (i + 1 >= v.length) usage(`${k} needs a value`);
      a[k.slice(2)] = v[++i];
    } else usage(`unknown argument ${k}`);
  }
  if (!a.load && (!a.tokenizers || !a.shared)) usage("--tokenizers and --shared are required");
  a.chunks = Number(a.chunks);
  a.seed = Number(a.seed);
  return a;
}

function usage(msg) {
  const head = readFileSync(new URL(import.meta.url), "utf8").split("\n");
  const doc = head.slice(1, head.findIndex((l) => l.startsWith("import"))).join("\n");
  process.stderr.write(`tokens-calibrate: ${msg}\n${doc}\n`);
  process.exit(2);
}

function loadTokenizers(dir) {
  const req = createRequire(join(resolve(dir), "package.json"));
  const o200 = req("gpt-tokenizer/cjs/encoding/o200k_base");
  const cl100 = req("gpt-tokenizer/cjs/encoding/cl100k_base");
  const claude = req("@anthropic-ai/tokenizer").getTokenizer();
  return {
    o200k: (s) => o200.encode(s).length,
    cl100k: (s) => cl100.encode(s).length,
    claude: (s) => claude.encode(s.normalize("NFKC"), "all").length,
  };
}

// A small seeded generator (mulberry32), so runs are repeatable.
function rng(seed) {
  let t = seed >>> 0;
  return () => {
    t = (t + 0x6d2b79f5) >>> 0;
    let r = Math.imul(t ^ (t >>> 15), 1 | t);
    r ^= r + Math.imul(r ^ (r >>> 7), 61 | r);
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}

function mdFiles(dir) {
  const out = [];
  const walk = (d) => {
    for (const name of readdirSync(d).sort()) {
      if (name.startsWith(".")) continue;
      const p = join(d, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else if (name.endsWith(".md")) out.push(p);
    }
  };
  walk(dir);
  return out;
}

function shuffle(xs, rand) {
  const a = xs.slice();
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

// Splits a note into its prose (fenced blocks left out) and the contents of its fenced blocks.
function splitFences(text) {
  const prose = [];
  const code = [];
  let fence = null;
  for (const line of text.split("\n")) {
    const m = line.match(/^\s*(`{3,}|~{3,})/);
    if (fence === null && m) fence = m[1];
    else if (fence !== null && m && m[1][0] === fence[0] && m[1].length >= fence.length)
      fence = null;
    else (fence === null ? prose : code).push(line);
  }
  return { prose: prose.join("\n"), code: code.join("\n") };
}

// Cuts n chunks from the texts joined: each starts at a line start and holds 200..4000 bytes.
function chunks(texts, n, rand) {
  const buf = Buffer.from(texts.join("\n"), "utf8");
  const out = [];
  if (buf.length < 4000) return out;
  for (let i = 0; i < n; i++) {
    const len = Math.round(Math.exp(Math.log(200) + rand() * (Math.log(4000) - Math.log(200))));
    let start = Math.floor(rand() * (buf.length - len));
    while (start > 0 && buf[start - 1] !== 0x0a) start--;
    let end = Math.min(start + len, buf.length);
    while (end < buf.length && (buf[end] & 0xc0) === 0x80) end--;
    out.push(buf.subarray(start, end).toString("utf8"));
  }
  return out;
}

const CJK = (cp) =>
  (cp >= 0x2e80 && cp <= 0x9fff) || (cp >= 0xac00 && cp <= 0xd7af) ||
  (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0xfe30 && cp <= 0xfe4f) || (cp >= 0xff00 && cp <= 0xffef);

function counts(s) {
  const c = Object.fromEntries(CLASSES.map((k) => [k, 0]));
  c.bytes = 0;
  let run = 0;
  for (const ch of s) {
    const cp = ch.codePointAt(0);
    const alnum = /[A-Za-z0-9]/.test(ch);
    run = alnum ? run + 1 : 0;
    if (cp < 0x80) {
      if (run > 12) c.tail++;
      else if (/[A-Za-z]/.test(ch)) c.letter++;
      else if (alnum) c.digit++;
      else if (/\s/.test(ch)) c.space++;
      else c.punct++;
      c.bytes += 1;
    } else if (cp < 0x800) {
      c[cp < 0x370 ? "b2" : cp < 0x400 ? "greek" : cp < 0x500 ? "cyrillic" : "b2x"]++;
      c.bytes += 2;
    } else if (cp < 0x10000) (c[CJK(cp) ? "cjk" : "b3"]++, (c.bytes += 3));
    else (c.b4++, (c.bytes += 4));
  }
  return c;
}

const ascii = (c) => c.letter + c.digit + c.punct + c.space + c.tail;
const two = (c) => c.b2 + c.greek + c.cyrillic + c.b2x;
const ESTIMATES = {
  E1: (c) => Math.ceil(c.bytes / 4),
  E2: (c) => Math.ceil(ascii(c) / 3) + two(c) + c.cjk + c.b3 + c.b4,
  E3: (c) => ascii(c) / 3 + 2 * (c.cjk + c.b3 + c.b4) + two(c),
};
const weighted = (w) => (c) => CLASSES.reduce((s, k) => s + w[k] * c[k], 0);

function jsonResponses(bin, shared, rand) {
  const out = { "json-en": [], "json-cjk": [] };
  const cache = mkdtempSync(join(tmpdir(), "vs-calibrate-"));
  const run = (vault, q) =>
    execFileSync(bin, ["--vault", vault, "--source", "local", "--json", "-n", "5", "--", q], {
      env: { ...process.env, VAULT_SEARCH_CACHE_DIR: cache },
      maxBuffer: 64 << 20,
    }).toString("utf8");
  try {
    for (const [set, vault] of [
      ["dwarves-brain-questions", "corpora/dwarves-brain"],
      ["tldr-pages-questions", "corpora/tldr/pages"],
    ]) {
      const lines = readFileSync(join(shared, "eval/queries", `${set}.jsonl`), "utf8").split("\n");
      for (const l of lines.filter(Boolean))
        out["json-en"].push(run(join(shared, vault), JSON.parse(l).query));
    }
    for (const lang of ["zh", "ja"]) {
      const vault = join(shared, "corpora/tldr", `pages.${lang}`);
      const files = shuffle(mdFiles(vault), rand).slice(0, 40);
      for (const f of files) {
        // A page's description line ("> ...") as a question someone would ask.
        const d = readFileSync(f, "utf8").split("\n").find((x) => x.startsWith("> "));
        if (d) out["json-cjk"].push(run(vault, d.slice(2).replace(/[。.]$/, "")));
      }
    }
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
  return out;
}

// Text no tokenizer has learnt: base64 (as in a pasted data URI), hex digests, UUIDs.
function randomText(rand) {
  const bytes = (n) => Buffer.from(Array.from({ length: n }, () => Math.floor(rand() * 256)));
  const out = [];
  for (let i = 0; i < 40; i++) {
    out.push(`![](data:image/png;base64,${bytes(3000).toString("base64")})`);
    out.push(Array.from({ length: 30 }, () => bytes(20).toString("hex")).join("\n"));
    out.push(Array.from({ length: 30 }, () => bytes(16).toString("hex").replace(/^(.{8})(.{4})(.{4})(.{4})/, "$1-$2-$3-$4-")).join("\n"));
  }
  return out;
}

function textClasses(a, rand) {
  const s = a.shared;
  const read = (files) => files.map((f) => readFileSync(f, "utf8"));
  const team = read(shuffle(mdFiles(join(s, "corpora/dwarves-brain")), rand)).map(splitFences);
  const tldr = (lang) => read(shuffle(mdFiles(join(s, "corpora/tldr", lang)), rand));
  const texts = {
    "english-notes": team.map((t) => t.prose),
    "english-tldr": tldr("pages"),
    code: team.map((t) => t.code).filter(Boolean),
    zh: tldr("pages.zh"),
    ja: tldr("pages.ja"),
    ko: tldr("pages.ko"),
    ru: tldr("pages.ru"),
    ar: tldr("pages.ar"),
    "indic-thai-el": [...tldr("pages.hi"), ...tldr("pages.ta"), ...tldr("pages.bn"), ...tldr("pages.th"), ...tldr("pages.el")],
    random: randomText(rand),
  };
  const out = {};
  for (const [k, v] of Object.entries(texts)) out[k] = chunks(v, a.chunks, rand);
  if (a.bin) {
    // Whole responses, as the agent reads them, and chunks cut from them as parts of one.
    for (const [k, v] of Object.entries(jsonResponses(a.bin, s, rand)))
      out[k] = v.concat(chunks(v, a.chunks, rand));
  }
  return out;
}

const median = (xs) => {
  const s = xs.slice().sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

function main() {
  const a = args();
  let samples = [];
  if (a.load) {
    samples = readFileSync(a.load, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
  } else {
    const toks = loadTokenizers(a.tokenizers);
    const classes = textClasses(a, rng(a.seed));
    for (const [cls, list] of Object.entries(classes))
      for (const text of list) {
        const c = counts(text);
        for (const [tk, f] of Object.entries(toks)) samples.push({ cls, tk, c, tokens: f(text) });
      }
  }
  if (a.samples) writeFileSync(a.samples, samples.map((x) => JSON.stringify(x)).join("\n") + "\n");
  const tokenizers = [...new Set(samples.map((x) => x.tk))];
  const classes = [...new Set(samples.map((x) => x.cls))];
  const chunkCount = (cls) => samples.filter((x) => x.cls === cls).length / tokenizers.length;
  const estimates = { ...ESTIMATES, W: weighted(WEIGHTS) };
  const report = { weights: WEIGHTS, tokenizers, classes: {} };
  for (const cls of classes) {
    const of = samples.filter((x) => x.cls === cls);
    const r = (report.classes[cls] = { chunks: chunkCount(cls), est: {} });
    r.bytes_per_token = {};
    for (const tk of tokenizers) {
      const t = of.filter((x) => x.tk === tk);
      r.bytes_per_token[tk] = t.reduce((s, x) => s + x.c.bytes, 0) / t.reduce((s, x) => s + x.tokens, 0);
    }
    for (const [name, est] of Object.entries(estimates)) {
      const ratios = of.map((x) => x.tokens / Math.max(est(x.c), 1e-9));
      r.est[name] = { max: Math.max(...ratios), median: median(ratios) };
      r.est[name].by_tokenizer = Object.fromEntries(
        tokenizers.map((tk) => [tk, Math.max(...of.filter((x) => x.tk === tk).map((x) => x.tokens / Math.max(est(x.c), 1e-9)))]),
      );
    }
  }
  if (a.out) writeFileSync(a.out, JSON.stringify(report, null, 1));
  const names = Object.keys(estimates);
  console.log(`tokenizers: ${report.tokenizers.join(", ")}; ratio = real tokens / estimate, max and median over chunks × tokenizers (> 1.00 undercounts)`);
  console.log(`W = ${CLASSES.map((k) => `${k} ${WEIGHTS[k]}`).join(", ")}`);
  console.log(["class".padEnd(14), "n".padStart(4), "B/tok".padStart(6), ...names.map((n) => `${n} max/med`.padStart(15))].join(" "));
  for (const [cls, r] of Object.entries(report.classes)) {
    const bpt = Math.min(...Object.values(r.bytes_per_token));
    console.log(
      [cls.padEnd(14), String(r.chunks).padStart(4), bpt.toFixed(2).padStart(6),
        ...names.map((n) => `${r.est[n].max.toFixed(2)} / ${r.est[n].median.toFixed(2)}`.padStart(15))].join(" "),
    );
  }
}

main();
