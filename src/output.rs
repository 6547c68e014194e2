//! The output contract: every type an agent or script parses, and the text format for people.
//!
//! JSON (`--json`) is one [`SearchResponse`] object. Fields may be added in later versions;
//! existing fields never change meaning. The README documents the same schema.

use std::io::{self, Write};

use serde::{Deserialize, Serialize};

/// One search, as printed by `--json`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SearchResponse {
    /// The query as typed (words joined with single spaces).
    pub query: String,
    /// Which engine answered: `omnisearch`, `local`, or `omnisearch (offline)`.
    pub engine: String,
    /// Wall time of the search, in seconds, rounded to milliseconds.
    pub elapsed_seconds: f64,
    /// Canonical vault directory.
    pub vault: String,
    /// `results.len()`.
    pub total_results: usize,
    pub results: Vec<SearchHit>,
    /// Why nothing was searched (only with `engine: "omnisearch (offline)"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// True when the local index could not be refreshed (another process holds the writer), so
    /// the answer comes from the last committed index.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stale: bool,
    /// Why the local engine answered in `auto` mode (Omnisearch failed: the reason).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback_reason: Option<String>,
}

/// One ranked note.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SearchHit {
    /// Vault-relative path with `/` separators.
    pub path: String,
    /// File name without `.md`.
    pub basename: String,
    /// Engine score, rounded to 2 decimals; comparable only within one response.
    pub score: f64,
    /// One line of plain text around the first match (`...` where cut).
    pub excerpt: String,
    /// The engine that produced this hit.
    pub engine: String,
    /// 1-based line of the note where the excerpt's match is; `null` when unknown.
    pub line: Option<u64>,
}

/// The summary of one `vault-search index` run, as printed by `--json`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct IndexReport {
    /// Notes in the index after the run.
    pub notes: u64,
    pub added: u64,
    pub updated: u64,
    pub removed: u64,
    pub unchanged: u64,
    /// Files that were not indexed (too large, unreadable, vanished), counted in `skipped`.
    pub skipped: u64,
    pub skipped_files: Vec<SkippedFile>,
    pub elapsed_seconds: f64,
    /// Where the index lives.
    pub index_dir: String,
    /// True when the whole index was (re)built from scratch.
    pub rebuilt: bool,
    /// True when another process was indexing, so this run did nothing.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub busy: bool,
}

/// A file the indexer skipped, and why.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct SkippedFile {
    pub path: String,
    pub reason: String,
}

/// Rounds to `places` decimals, the way the JSON contract promises.
pub fn round_to(x: f64, places: i32) -> f64 {
    if !x.is_finite() {
        return 0.0;
    }
    let f = 10f64.powi(places);
    (x * f).round() / f
}

/// Removes control characters and ANSI escape sequences so a note can't drive the terminal.
pub fn sanitize_for_terminal(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // CSI: ESC [ params final-byte; OSC: ESC ] ... BEL or ESC \ ; other: ESC + one char.
            match chars.peek() {
                Some('[') => {
                    chars.next();
                    for n in chars.by_ref() {
                        if ('\u{40}'..='\u{7e}').contains(&n) {
                            break;
                        }
                    }
                }
                Some(']') => {
                    chars.next();
                    while let Some(n) = chars.next() {
                        if n == '\u{7}' {
                            break;
                        }
                        if n == '\u{1b}' {
                            chars.next();
                            break;
                        }
                    }
                }
                Some(_) => {
                    chars.next();
                }
                None => {}
            }
        } else if c == '\t' || c == '\n' || c == '\r' {
            out.push(' ');
        } else if c.is_control() || is_bidi_control(c) {
            // dropped: C0/C1 controls, DEL, and bidi overrides that reorder what is shown
        } else {
            out.push(c);
        }
    }
    out
}

fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Writes the human-readable form.
pub fn write_text(w: &mut dyn Write, r: &SearchResponse) -> io::Result<()> {
    writeln!(
        w,
        "=== Vault Search: '{}' [{} - {:.3}s] vault={} ===",
        sanitize_for_terminal(&r.query),
        r.engine,
        r.elapsed_seconds,
        sanitize_for_terminal(&r.vault)
    )?;
    if r.results.is_empty() {
        writeln!(w, "(no results)")?;
    }
    for (i, hit) in r.results.iter().enumerate() {
        writeln!(
            w,
            "{}. [{}] {}",
            i + 1,
            hit.score,
            sanitize_for_terminal(&hit.path)
        )?;
        if !hit.excerpt.is_empty() {
            writeln!(w, "   {}", sanitize_for_terminal(&hit.excerpt))?;
        }
    }
    Ok(())
}

/// Writes `--json`: pretty-printed, non-ASCII kept as is, control characters escaped by serde.
pub fn write_json<T: Serialize>(w: &mut dyn Write, value: &T) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *w, value)?;
    writeln!(w)
}

/// The one-line summary of an index run.
pub fn index_summary(r: &IndexReport) -> String {
    if r.busy {
        return "another vault-search process is indexing this vault; nothing to do".to_string();
    }
    format!(
        "indexed {} notes: {} added, {} updated, {} removed, {} unchanged, {} skipped in {:.3}s",
        r.notes, r.added, r.updated, r.removed, r.unchanged, r.skipped, r.elapsed_seconds
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_escapes_and_controls() {
        let s = "a\u{1b}[31mred\u{1b}[0m b\u{1b}]0;title\u{7}c\u{0}d\u{202e}e\tf";
        assert_eq!(
            sanitize_for_terminal(s),
            "aredm bcde f".replace("redm", "red")
        );
    }

    #[test]
    fn rounds() {
        assert_eq!(round_to(41.237, 2), 41.24);
        assert_eq!(round_to(f64::NAN, 2), 0.0);
    }
}
