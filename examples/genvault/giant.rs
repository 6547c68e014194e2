//! Giant notes for a generated vault: the clippings, running logs, tables and one-line dumps
//! real vaults collect, 1–10 MB each, holding nearly every word of the vault far apart.
//!
//! Built from the vault's own notes (read back in path order and picked with a seeded RNG), so
//! the same vault and seed always give the same bytes, and every query of the vault's words
//! also matches them.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::gen::Rng;

/// The giant notes and their sizes in bytes: each under the indexer's default cap of 10 MiB.
pub const GIANTS: [(&str, usize); 4] = [
    ("Clippings/Web clippings.md", 6_000_000),
    ("Journal/Running log.md", 3_000_000),
    ("Tables/Index of everything.md", 1_000_000),
    ("Dumps/export.md", 10_000_000),
];

/// Adds [`GIANTS`] to the vault in `dir`. Returns the bytes written.
pub fn add(dir: &Path, seed: u64) -> io::Result<u64> {
    let mut paths = Vec::new();
    notes_below(dir, &mut paths)?;
    paths.sort();
    let notes: Vec<(String, String)> = paths
        .iter()
        .map(|p| {
            let rel = p
                .strip_prefix(dir)
                .unwrap_or(p)
                .to_string_lossy()
                .into_owned();
            fs::read_to_string(p).map(|t| (rel, t))
        })
        .collect::<io::Result<_>>()?;
    if notes.is_empty() {
        return Ok(0);
    }
    let mut rng = Rng::new(seed ^ 0x0067_6961_6e74);
    let mut bytes = 0u64;
    for (k, (rel, size)) in GIANTS.iter().enumerate() {
        let text = match k {
            0 => clippings(&notes, &mut rng, *size),
            1 => running_log(&notes, &mut rng, *size),
            2 => table(&notes, *size),
            _ => dump(&notes, &mut rng, *size),
        };
        let path = dir.join(rel);
        if let Some(p) = path.parent() {
            fs::create_dir_all(p)?;
        }
        fs::write(&path, &text)?;
        bytes += text.len() as u64;
    }
    Ok(bytes)
}

/// Whole notes in random order, each under a heading of its own.
fn clippings(notes: &[(String, String)], rng: &mut Rng, size: usize) -> String {
    let mut out = String::from("---\ntags: [clippings]\n---\n");
    let mut i = 0;
    while out.len() < size {
        let (rel, text) = &notes[rng.below(notes.len())];
        out.push_str(&format!("\n## Clipped {i}: {rel}\n\n{text}\n"));
        i += 1;
    }
    cut(out, size)
}

/// One dated line per entry: a note's text with its line breaks flattened, no headings.
fn running_log(notes: &[(String, String)], rng: &mut Rng, size: usize) -> String {
    let mut out = String::from("# Running log\n\n");
    let mut i = 0;
    while out.len() < size {
        let (_, text) = &notes[rng.below(notes.len())];
        out.push_str(&format!(
            "- 2025-{:02}-{:02} {}\n",
            1 + i % 12,
            1 + i % 28,
            text.replace('\n', " ")
        ));
        i += 1;
    }
    cut(out, size)
}

/// One row per note, in path order (and again from the start when the vault is small): its
/// name and first 200 characters.
fn table(notes: &[(String, String)], size: usize) -> String {
    let mut out = String::from("| name | summary |\n| --- | --- |\n");
    for (rel, text) in notes.iter().cycle() {
        if out.len() >= size {
            break;
        }
        let name = rel
            .rsplit('/')
            .next()
            .unwrap_or(rel)
            .trim_end_matches(".md");
        let summary: String = text
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .chars()
            .take(200)
            .map(|c| if c == '|' { '/' } else { c })
            .collect();
        out.push_str(&format!("| {name} | {summary} |\n"));
    }
    cut(out, size)
}

/// Every word of randomly picked notes on one line: no line break at all.
fn dump(notes: &[(String, String)], rng: &mut Rng, size: usize) -> String {
    let mut out = String::with_capacity(size + 64 * 1024);
    while out.len() < size {
        let (_, text) = &notes[rng.below(notes.len())];
        for w in text.split_whitespace() {
            out.push_str(w);
            out.push(' ');
        }
    }
    cut(out, size)
}

/// `text` cut to at most `size` bytes, on a character boundary.
fn cut(mut text: String, size: usize) -> String {
    let mut end = size.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text
}

fn notes_below(dir: &Path, out: &mut Vec<PathBuf>) -> io::Result<()> {
    for e in fs::read_dir(dir)? {
        let e = e?;
        let p = e.path();
        let hidden = e.file_name().to_string_lossy().starts_with('.');
        let kind = e.file_type()?;
        if kind.is_dir() && !hidden {
            notes_below(&p, out)?;
        } else if kind.is_file() && p.extension().is_some_and(|x| x == "md") {
            out.push(p);
        }
    }
    Ok(())
}
