//! What the command line prints: text for people (sanitised, optionally highlighted) and
//! JSON for scripts and agents (the types of [`crate::core`], serialised as they are).

use std::io::{self, Write};

use serde::Serialize;

use crate::core::{Comparison, IndexReport, SearchResponse};
use crate::local::analyzer;
use crate::status::Status;

/// Removes control characters and ANSI escape sequences so a note can't drive the terminal.
pub(crate) fn sanitize_for_terminal(s: &str) -> String {
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

/// Writes the human-readable form; `color` highlights the matched words (ANSI bold red);
/// `dated` shows each note's modification time instead of its score (results sorted by date).
pub(crate) fn write_text(
    w: &mut dyn Write,
    r: &SearchResponse,
    color: bool,
    dated: bool,
) -> io::Result<()> {
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
        let label = if dated {
            // `2026-11-30T14:00:00+01:00` → `2026-11-30 14:00` (local time).
            hit.modified
                .as_deref()
                .and_then(|m| m.get(..16))
                .map_or_else(|| "unknown date".into(), |m| m.replacen('T', " ", 1))
        } else {
            hit.score.to_string()
        };
        writeln!(
            w,
            "{}. [{}] {}",
            i + 1,
            label,
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
pub(crate) fn highlight(text: &str, forms: &[String]) -> String {
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

/// Writes `--json`: pretty-printed, non-ASCII kept as is, control characters escaped by serde.
pub(crate) fn write_json<T: Serialize>(w: &mut dyn Write, value: &T) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *w, value)?;
    writeln!(w)
}

/// The one-line summary of an index run.
pub(crate) fn index_summary(r: &IndexReport) -> String {
    if r.busy {
        return "another vault-search process is indexing this vault; nothing to do".to_string();
    }
    format!(
        "indexed {} notes: {} added, {} updated, {} removed, {} unchanged, {} skipped in {:.3}s",
        r.notes, r.added, r.updated, r.removed, r.unchanged, r.skipped, r.elapsed_seconds
    )
}

/// The report as text.
pub(crate) fn status_text(st: &Status) -> String {
    let mut out = String::new();
    let mut line = |k: &str, v: String| out.push_str(&format!("{k:<18}{v}\n"));
    line("vault", st.vault.clone());
    line(
        "index",
        st.index_dir
            .clone()
            .unwrap_or_else(|| "(no cache directory)".into()),
    );
    if let Some(e) = &st.index_error {
        line(
            "index error",
            format!("{e} (the next search or `index` rebuilds it)"),
        );
    } else if st.indexed {
        line("notes indexed", st.notes.to_string());
        line(
            "index size",
            format!("{:.1} MiB", st.index_bytes as f64 / 1048576.0),
        );
        line(
            "last indexed",
            st.last_indexed_at.clone().unwrap_or_default(),
        );
        line(
            "changed since",
            st.changed_since
                .map_or("?".into(), |n| format!("{n} notes")),
        );
        if st.skipped > 0 {
            let names: Vec<String> = st
                .skipped_files
                .iter()
                .map(|f| sanitize_for_terminal(&f.path))
                .collect();
            line(
                "skipped",
                format!(
                    "{} too large or unreadable: {}",
                    st.skipped,
                    names.join(", ")
                ),
            );
        }
    } else {
        line(
            "notes indexed",
            "none yet (the first search or `index` builds it)".into(),
        );
    }
    let cap = |n: u64, default: u64| {
        let note = if n == default { " (default)" } else { "" };
        format!("{n} bytes{note}")
    };
    line(
        "size caps",
        format!(
            "notes {}, PDFs {}",
            cap(st.max_note_bytes, crate::core::DEFAULT_MAX_NOTE_BYTES),
            cap(st.max_pdf_bytes, crate::core::DEFAULT_MAX_PDF_BYTES)
        ),
    );
    if !st.skipped_files.is_empty() {
        line(
            "not indexable",
            format!("{} files (see status --json)", st.skipped_files.len()),
        );
    }
    line("schema", st.schema.clone());
    let omni = if st.omnisearch_answers {
        "answers".to_string()
    } else {
        format!(
            "no answer ({})",
            st.omnisearch_error.clone().unwrap_or_default()
        )
    };
    line("omnisearch", format!("port {}: {omni}", st.omnisearch_port));
    if let Some(s) = &st.server {
        let opt = |v: &Option<String>| v.clone().unwrap_or_else(|| "never".into());
        line(
            "serve",
            format!(
                "pid {}, port {}: {} (last event {}, last update {})",
                s.pid.map_or("?".into(), |p| p.to_string()),
                s.port.map_or("?".into(), |p| p.to_string()),
                if s.live {
                    "watching, searches skip the walk"
                } else {
                    "behind or not responding"
                },
                opt(&s.last_event_at),
                opt(&s.last_update_at)
            ),
        );
    }
    out
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
}
