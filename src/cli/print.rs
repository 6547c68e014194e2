//! What the command line prints: text for people (sanitised, optionally highlighted) and
//! JSON for scripts and agents (the types of [`crate::core`], serialised as they are). The
//! status and index reports print through their `Display`, which the MCP server shares.

use std::io::{self, Write};

use serde::Serialize;

use crate::core::{Comparison, Passage, SearchResponse};
use crate::local::analyzer;
use crate::text::terminal::{escape_controls, sanitize_for_terminal};

/// How a search's text output looks.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct TextStyle {
    /// Highlight the matched words (ANSI bold red).
    pub(crate) color: bool,
    /// Show each note's modification time instead of its score (results sorted by date).
    pub(crate) dated: bool,
    /// Show each hit's passage, numbered, instead of its excerpt.
    pub(crate) passages: bool,
}

/// Writes the human-readable form.
pub(crate) fn write_text(
    w: &mut dyn Write,
    r: &SearchResponse,
    style: TextStyle,
) -> io::Result<()> {
    let TextStyle {
        color,
        dated,
        passages,
    } = style;
    writeln!(
        w,
        "=== Vault Search: '{}' [{} - {:.3}s] vault={} ===",
        sanitize_for_terminal(&r.query),
        r.engine,
        r.elapsed_seconds,
        escape_controls(&r.vault)
    )?;
    if let Some(c) = &r.comparison {
        return write_comparison(w, c);
    }
    if r.results.is_empty() {
        writeln!(w, "(no results)")?;
    }
    for (i, hit) in r.results.iter().enumerate() {
        let label = if dated {
            // `2026-11-30T14:00:00+01:00` → `2026-11-30 14:00` (local time).
            hit.modified
                .as_deref()
                .and_then(|m| m.get(..16))
                .map_or_else(|| "unknown date".into(), |m| m.replacen('T', " ", 1))
        } else {
            hit.score.to_string()
        };
        match &hit.vault {
            Some(v) => writeln!(
                w,
                "{}. [{}] {}:{}",
                i + 1,
                label,
                escape_controls(v),
                escape_controls(&hit.path)
            )?,
            None => writeln!(w, "{}. [{}] {}", i + 1, label, escape_controls(&hit.path))?,
        }
        if passages && !hit.passages.is_empty() {
            for p in &hit.passages {
                write_passage(w, p, color.then_some(hit.highlight.as_slice()))?;
            }
            continue;
        }
        if !hit.excerpt.is_empty() {
            let excerpt = sanitize_for_terminal(&hit.excerpt);
            let shown = if color {
                highlight_words(&excerpt, &hit.highlight)
            } else {
                excerpt
            };
            writeln!(w, "   {shown}")?;
        }
    }
    Ok(())
}

/// A passage under its hit: where it is (`lines 12-20, page 3, under Heading`), then its lines,
/// each indented, and `(cut)` when it stops inside a block.
fn write_passage(w: &mut dyn Write, p: &Passage, highlight: Option<&[String]>) -> io::Result<()> {
    let mut place = Vec::new();
    match (p.line, p.end_line) {
        (Some(a), Some(b)) if a < b => place.push(format!("lines {a}-{b}")),
        (Some(a), _) => place.push(format!("line {a}")),
        _ => {}
    }
    if let Some(page) = p.page {
        place.push(format!("page {page}"));
    }
    if let Some(h) = &p.heading {
        place.push(format!("under {}", sanitize_for_terminal(h)));
    }
    if p.cut {
        place.push("cut".into());
    }
    writeln!(w, "   [{}]", place.join(", "))?;
    for line in p.text.split('\n') {
        let line = sanitize_for_terminal(line);
        let line = match highlight {
            Some(forms) => highlight_words(&line, forms),
            None => line,
        };
        if line.is_empty() {
            writeln!(w, "   |")?;
        } else {
            writeln!(w, "   | {line}")?;
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
        writeln!(w, "{:>2}. {} | {}", i + 1, cell(l), escape_controls(r))?;
    }
    writeln!(w, "overlap@{}: {:.2}", c.k, c.overlap_at_k)
}

/// Wraps the words of `text` whose normalised form is in `forms` in ANSI bold red.
pub(crate) fn highlight_words(text: &str, forms: &[String]) -> String {
    if forms.is_empty() {
        return text.to_string();
    }
    let mut analyzer = analyzer::text_analyzer();
    let mut ranges: Vec<(usize, usize)> = analyzer::analyze(&mut analyzer, text)
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

/// Writes `--json`: pretty-printed, non-ASCII kept as is, every control character (C0 by
/// serde, C1 and bidi controls by [`crate::core::escape_json_controls`]) as a `\u` escape.
/// Streamed in pieces of about 64 KiB: a `links --unresolved` of 500 MB is never held whole.
pub(crate) fn write_json<T: Serialize>(w: &mut dyn Write, value: &T) -> io::Result<()> {
    let mut escaped = Escaped {
        out: w,
        pending: Vec::with_capacity(2 * PIECE),
    };
    serde_json::to_writer_pretty(&mut escaped, value)?;
    escaped.flush_upto(escaped.pending.len())?;
    writeln!(escaped.out)
}

/// Bytes of JSON escaped and written at a time.
const PIECE: usize = 64 * 1024;

/// A writer escaping the control characters of the JSON written through it, a piece at a
/// time, each cut between two characters (a character's bytes are escaped together).
struct Escaped<'w> {
    out: &'w mut dyn Write,
    pending: Vec<u8>,
}

impl Escaped<'_> {
    /// Escapes and writes the first `end` pending bytes (moved back to a character's start).
    fn flush_upto(&mut self, mut end: usize) -> io::Result<()> {
        while end > 0 && end < self.pending.len() && (self.pending[end] & 0xc0) == 0x80 {
            end -= 1;
        }
        let rest = self.pending.split_off(end);
        let piece = std::mem::replace(&mut self.pending, rest);
        self.out
            .write_all(&crate::core::escape_json_controls(piece))
    }
}

impl Write for Escaped<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.pending.extend_from_slice(buf);
        if self.pending.len() >= PIECE {
            // The last character stays: its bytes may not all be written yet.
            self.flush_upto(self.pending.len() - 1)?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The `--json` bytes of `value`, pretty-printed or on one line (a budgeted answer: an agent's
/// tokens are not spent on indentation).
pub(crate) fn json_bytes<T: Serialize>(value: &T, pretty: bool) -> io::Result<Vec<u8>> {
    let json = if pretty {
        serde_json::to_vec_pretty(value)?
    } else {
        serde_json::to_vec(value)?
    };
    Ok(crate::core::escape_json_controls(json))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_is_escaped_across_pieces() {
        // Controls straddling every piece boundary: the same bytes as escaping it whole.
        let text: String = "ab\u{9b}é\u{202e}".repeat(PIECE / 3);
        let mut out = Vec::new();
        write_json(&mut out, &vec![text.clone(), text]).unwrap();
        let whole =
            serde_json::to_vec_pretty(&vec!["ab\u{9b}é\u{202e}".repeat(PIECE / 3); 2]).unwrap();
        let mut expected = crate::core::escape_json_controls(whole);
        expected.push(b'\n');
        assert_eq!(out, expected);
        assert!(!String::from_utf8(out).unwrap().contains('\u{9b}'));
    }

    #[test]
    fn highlights_matched_forms() {
        let h = highlight_words("Kotlin bootstrap, kotlincompile x", &["kotlin".into()]);
        assert_eq!(h, "\u{1b}[1;31mKotlin\u{1b}[0m bootstrap, kotlincompile x");
        assert_eq!(highlight_words("abc", &[]), "abc");
    }
}
