//! `search_notes`' text: what a client that shows the model only text shows it, a passage's
//! lines under its place and a line for a hit without one, rather than the JSON's field names
//! on every hit.

use std::fmt::Write as _;

use crate::core::{ENGINE_OFFLINE, ENGINE_OMNISEARCH};
use crate::text::terminal::escape_controls;
use crate::SearchResponse;

/// Per hit `path:first-last — heading` and its passage's lines indented under it, or
/// `path:line — heading — excerpt` for a hit without one, after a header naming the engine.
pub(crate) fn to_text(a: &SearchResponse) -> String {
    let mut out = String::new();
    for w in &a.warnings {
        let _ = writeln!(out, "note: {}", escape_controls(w));
    }
    if a.stale {
        out.push_str("note: another process is updating the index; results may be stale\n");
    }
    if a.engine == ENGINE_OFFLINE {
        let why = escape_controls(a.error.as_deref().unwrap_or("no answer"));
        let _ = writeln!(
            out,
            "Omnisearch did not answer ({why}): nothing was searched. Use source=auto or local."
        );
        return out;
    }
    if a.results.is_empty() {
        let _ = writeln!(
            out,
            "No notes match \"{}\" ({}). Try fewer words or other words (a synonym, the \
             English or German term){}.",
            escape_controls(&super::clean::shortened(&a.query, 80)),
            a.engine,
            if a.engine == ENGINE_OMNISEARCH {
                "; Omnisearch needs every word, source=local does not"
            } else {
                ""
            }
        );
        return out;
    }
    let _ = writeln!(
        out,
        "{} hits ({}); answer from a passage, citing path:line-end, or read_note(path, heading):",
        a.total_results, a.engine
    );
    for h in &a.results {
        // A name's newline or control is shown escaped (the structured content carries the
        // path as it is).
        out.push_str(&escape_controls(&h.path));
        if let Some(p) = h.passages.first() {
            // The passage's lines, indented, under `path:first-last — heading`.
            match (p.line, p.end_line) {
                (Some(a), Some(b)) if a < b => {
                    let _ = write!(out, ":{a}-{b}");
                }
                (Some(a), _) => {
                    let _ = write!(out, ":{a}");
                }
                _ => {}
            }
            if let Some(page) = p.page {
                let _ = write!(out, " (page {page})");
            }
            if let Some(heading) = &p.heading {
                let _ = write!(out, " — {}", one_line(heading));
            }
            out.push_str(if p.cut { " (cut)\n" } else { "\n" });
            for line in p.text.split('\n') {
                if line.is_empty() {
                    out.push('\n');
                } else {
                    let _ = writeln!(out, "  {}", escape_controls(line));
                }
            }
            continue;
        }
        if let Some(l) = h.line {
            let _ = write!(out, ":{l}");
        }
        if let Some(heading) = &h.heading {
            let _ = write!(out, " — {}", one_line(heading));
        }
        let _ = writeln!(out, " — {}", one_line(&h.excerpt));
    }
    out
}

fn one_line(s: &str) -> String {
    escape_controls(&s.split_whitespace().collect::<Vec<_>>().join(" ")).into_owned()
}
