//! A deterministic generator of realistic Obsidian vaults, for benchmarks.
//!
//! Seeded, so the same `(notes, seed)` always gives byte-identical vaults. Notes have:
//! Zipf-distributed vocabulary (s ≈ 1.07 over 50,000 words, like English text), YAML
//! frontmatter with tags and aliases on most notes, 1–4 heading levels, wikilinks, fenced code
//! blocks, folders 1–5 deep, and sizes from 100 B to 50 kB with a median near 1 kB
//! (log-normal).

use std::fs;
use std::io;
use std::path::Path;

/// SplitMix64: small, fast, good enough for synthetic text.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.unit() * n as f64) as usize % n.max(1)
    }
    /// Standard normal (Box–Muller).
    pub fn normal(&mut self) -> f64 {
        let u1 = self.unit().max(1e-12);
        let u2 = self.unit();
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }
}

const SYLLABLES: &[&str] = &[
    "ka", "to", "ri", "ne", "mo", "sa", "lu", "de", "pi", "ga", "vo", "te", "ra", "in", "el", "an",
    "or", "us", "ba", "ze", "qu", "fi", "sh", "th", "ch", "ex", "ly", "po", "ma", "ku",
];

/// A vocabulary of `n` pseudo-words, most frequent first, plus a Zipf sampler over it.
pub struct Vocab {
    pub words: Vec<String>,
    cdf: Vec<f64>,
}

impl Vocab {
    pub fn new(n: usize, rng: &mut Rng) -> Vocab {
        let mut words = Vec::with_capacity(n);
        let mut seen = std::collections::HashSet::new();
        while words.len() < n {
            // Frequent words are short, rare ones longer.
            let rank = words.len();
            let syl = 1 + (rank as f64 + 1.0).log10() as usize + rng.below(2);
            let w: String = (0..syl)
                .map(|_| SYLLABLES[rng.below(SYLLABLES.len())])
                .collect();
            if seen.insert(w.clone()) {
                words.push(w);
            }
        }
        let s = 1.07;
        let mut cdf = Vec::with_capacity(n);
        let mut acc = 0.0;
        for r in 1..=n {
            acc += 1.0 / (r as f64).powf(s);
            cdf.push(acc);
        }
        for c in &mut cdf {
            *c /= acc;
        }
        Vocab { words, cdf }
    }
    pub fn word(&self, rng: &mut Rng) -> &str {
        let u = rng.unit();
        let i = self
            .cdf
            .partition_point(|c| *c < u)
            .min(self.words.len() - 1);
        &self.words[i]
    }
    pub fn rare(&self, rng: &mut Rng) -> &str {
        &self.words[self.words.len() / 2 + rng.below(self.words.len() / 2)]
    }
}

fn sentence(v: &Vocab, rng: &mut Rng, words: usize) -> String {
    let mut s = String::new();
    for i in 0..words {
        if i > 0 {
            s.push(' ');
        }
        let w = v.word(rng);
        if i == 0 {
            let mut c = w.chars();
            if let Some(f) = c.next() {
                s.extend(f.to_uppercase());
                s.push_str(c.as_str());
            }
        } else {
            s.push_str(w);
        }
    }
    s.push('.');
    s
}

/// One note's text, about `target` bytes.
pub fn note(v: &Vocab, rng: &mut Rng, title: &str, titles: &[String], target: usize) -> String {
    let mut out = String::with_capacity(target + 256);
    if rng.unit() < 0.7 {
        out.push_str("---\ntags: [");
        for k in 0..1 + rng.below(3) {
            if k > 0 {
                out.push_str(", ");
            }
            out.push_str(v.word(rng));
        }
        out.push_str("]\n");
        if rng.unit() < 0.3 {
            out.push_str(&format!("aliases: [{} {}]\n", v.rare(rng), v.word(rng)));
        }
        out.push_str("---\n");
    }
    out.push_str(&format!("# {title}\n\n"));
    while out.len() < target {
        match rng.below(10) {
            0 => {
                let level = 2 + rng.below(3);
                out.push_str(&format!(
                    "\n{} {}\n\n",
                    "#".repeat(level),
                    sentence(v, rng, 3).trim_end_matches('.')
                ));
            }
            1 if !titles.is_empty() => {
                out.push_str(&format!(
                    "See [[{}]] for {}.\n",
                    titles[rng.below(titles.len())],
                    v.word(rng)
                ));
            }
            2 => {
                out.push_str(&format!(
                    "```sh\n{} --{} {}\n```\n",
                    v.word(rng),
                    v.word(rng),
                    v.rare(rng)
                ));
            }
            3 => {
                out.push_str(&format!(
                    "- {}\n- {}\n",
                    sentence(v, rng, 6),
                    sentence(v, rng, 5)
                ));
            }
            _ => {
                let n = 8 + rng.below(20);
                out.push_str(&sentence(v, rng, n));
                out.push_str(if rng.unit() < 0.3 { "\n\n" } else { " " });
            }
        }
    }
    out.push('\n');
    out
}

/// Writes `notes` notes below `dir` (which must not exist or be empty). Returns the bytes written.
pub fn generate(dir: &Path, notes: usize, seed: u64) -> io::Result<u64> {
    let mut rng = Rng::new(seed);
    let vocab = Vocab::new(50_000, &mut rng);
    let folders: Vec<String> = (0..(notes / 40).clamp(4, 2000))
        .map(|_| {
            let depth = 1 + rng.below(5);
            (0..depth)
                .map(|_| vocab.word(&mut rng).to_string())
                .collect::<Vec<_>>()
                .join("/")
        })
        .collect();
    let mut titles: Vec<String> = Vec::with_capacity(notes);
    let mut bytes = 0u64;
    for i in 0..notes {
        let title = format!("{} {} {i}", vocab.word(&mut rng), vocab.rare(&mut rng));
        // Log-normal sizes: median ~1 kB, clamped to 100 B – 50 kB.
        let size = (1000.0 * (rng.normal() * 0.9).exp()).clamp(100.0, 50_000.0) as usize;
        let text = note(&vocab, &mut rng, &title, &titles, size);
        let folder = &folders[rng.below(folders.len())];
        let path = dir.join(folder).join(format!("{title}.md"));
        if let Some(p) = path.parent() {
            fs::create_dir_all(p)?;
        }
        fs::write(&path, &text)?;
        bytes += text.len() as u64;
        if titles.len() < 5000 {
            titles.push(title);
        }
    }
    fs::create_dir_all(dir.join(".obsidian"))?;
    fs::write(dir.join(".obsidian/app.json"), "{}\n")?;
    Ok(bytes)
}
