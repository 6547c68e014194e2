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
    /// True when the local engine skipped its freshness walk because a live `vault-search
    /// serve` watcher keeps the index current.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub watched: bool,
    /// Why the local engine answered in `auto` mode (Omnisearch failed: the reason).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback_reason: Option<String>,
    /// In `auto` mode, when Omnisearch answered but too little (it requires every word, so
    /// one extra word empties its answer) and the local engine answered instead: how many
    /// hits Omnisearch had in scope.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub omnisearch_hits: Option<usize>,
    /// `--source both`: the two engines side by side.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comparison: Option<Comparison>,
}

/// `--source both`: both engines' answers to the same query.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Comparison {
    /// `omnisearch` or `omnisearch (offline)`.
    pub omnisearch_engine: String,
    /// Why Omnisearch did not answer, when it didn't.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub omnisearch_error: Option<String>,
    pub omnisearch: Vec<SearchHit>,
    pub local: Vec<SearchHit>,
    /// k = the smaller list's length (at most `--limit`).
    pub k: usize,
    /// Paths in both top-k lists, divided by k (0 when k is 0).
    pub overlap_at_k: f64,
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
    /// The nearest heading above the match (the section to read); `null` when none.
    #[serde(default)]
    pub heading: Option<String>,
    /// Frontmatter and inline tags of the note.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Frontmatter aliases of the note.
    #[serde(default)]
    pub aliases: Vec<String>,
    /// The query words this note matched (normalised: lowercase, accents folded).
    #[serde(default)]
    pub matched: Vec<String>,
    /// Normalised word forms to highlight in the excerpt (text output on a terminal).
    #[serde(skip)]
    pub highlight: Vec<String>,
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

/// Writes the human-readable form; `color` highlights the matched words (ANSI bold red).
pub fn write_text(w: &mut dyn Write, r: &SearchResponse, color: bool) -> io::Result<()> {
    writeln!(
        w,
        "=== Vault Search: '{}' [{} - {:.3}s] vault={} ===",
        sanitize_for_terminal(&r.query),
        r.engine,
        r.elapsed_seconds,
        sanitize_for_terminal(&r.vault)
    )?;
    if let Some(c) = &r.comparison {
        return write_comparison(w, c);
    }
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
            let excerpt = sanitize_for_terminal(&hit.excerpt);
            let shown = if color {
                highlight(&excerpt, &hit.highlight)
            } else {
                excerpt
            };
            writeln!(w, "   {shown}")?;
        }
    }
    Ok(())
}

const COLUMN: usize = 48;

fn cell(s: &str) -> String {
    let clean = sanitize_for_terminal(s);
    let n = clean.chars().count();
    if n <= COLUMN {
        format!("{clean}{}", " ".repeat(COLUMN - n))
    } else {
        let cut: String = clean.chars().take(COLUMN - 1).collect();
        format!("{cut}…")
    }
}

/// `--source both` as two columns.
fn write_comparison(w: &mut dyn Write, c: &Comparison) -> io::Result<()> {
    let left_title = match &c.omnisearch_error {
        Some(e) => format!("{} ({})", c.omnisearch_engine, e),
        None => c.omnisearch_engine.clone(),
    };
    writeln!(w, "    {} | local", cell(&left_title))?;
    let rows = c.omnisearch.len().max(c.local.len());
    if rows == 0 {
        writeln!(w, "(no results)")?;
    }
    for i in 0..rows {
        let l = c.omnisearch.get(i).map_or("", |h| h.path.as_str());
        let r = c.local.get(i).map_or("", |h| h.path.as_str());
        writeln!(
            w,
            "{:>2}. {} | {}",
            i + 1,
            cell(l),
            sanitize_for_terminal(r)
        )?;
    }
    writeln!(w, "overlap@{}: {:.2}", c.k, c.overlap_at_k)
}

/// Wraps the words of `text` whose normalised form is in `forms` in ANSI bold red.
pub fn highlight(text: &str, forms: &[String]) -> String {
    if forms.is_empty() {
        return text.to_string();
    }
    let mut analyzer = crate::analyzer::text_analyzer();
    let mut ranges: Vec<(usize, usize)> = crate::analyzer::analyze(&mut analyzer, text)
        .into_iter()
        .filter(|t| forms.contains(&t.text))
        .map(|t| (t.offset_from, t.offset_to))
        .collect();
    ranges.sort_unstable();
    let mut out = String::with_capacity(text.len() + ranges.len() * 12);
    let mut at = 0;
    for (from, to) in ranges {
        if from < at {
            continue; // a part inside a highlighted compound
        }
        out.push_str(&text[at..from]);
        out.push_str("\u{1b}[1;31m");
        out.push_str(&text[from..to]);
        out.push_str("\u{1b}[0m");
        at = to;
    }
    out.push_str(&text[at..]);
    out
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
    fn highlights_matched_forms() {
        let h = highlight("Kotlin bootstrap, kotlincompile x", &["kotlin".into()]);
        assert_eq!(h, "\u{1b}[1;31mKotlin\u{1b}[0m bootstrap, kotlincompile x");
        assert_eq!(highlight("abc", &[]), "abc");
    }

    #[test]
    fn rounds() {
        assert_eq!(round_to(41.237, 2), 41.24);
        assert_eq!(round_to(f64::NAN, 2), 0.0);
    }
}
