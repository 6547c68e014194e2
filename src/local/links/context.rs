//! The sentence around a link, on one line: what a backlink shows of the note that links.

use crate::text::excerpt::floor_char_boundary;

/// At most this many bytes of context either side of the link.
const REACH: usize = 160;

/// The sentence of line `line` (1-based) of `text` that holds `needle` (the link's target, or
/// failing that the line's start), whitespace folded.
pub(super) fn sentence(text: &str, line: u32, needle: &str) -> String {
    let Some(row) = text.split('\n').nth(line.saturating_sub(1) as usize) else {
        return String::new();
    };
    let row = row.trim_end_matches('\r');
    let (at, len) = match row.find(needle).filter(|_| !needle.is_empty()) {
        Some(i) => (i, needle.len()),
        None => (row.find("[[").unwrap_or(0), 0),
    };
    let mut start = floor_char_boundary(row, at.saturating_sub(REACH));
    for end in [". ", "! ", "? "] {
        if let Some(i) = row[start..at].rfind(end) {
            start += i + end.len();
        }
    }
    let limit = floor_char_boundary(row, (at + REACH).min(row.len()));
    let mut stop = limit;
    let after = at + len;
    for end in [". ", "! ", "? "] {
        if let Some(i) = row[after.min(limit)..limit].find(end) {
            stop = stop.min(after + i + 1);
        }
    }
    row[start..stop]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sentence_holding_the_link() {
        let text = "title\nFirst one. Then see [[Deploy]] for steps. Last one.\n";
        assert_eq!(
            sentence(text, 2, "Deploy"),
            "Then see [[Deploy]] for steps."
        );
        assert_eq!(sentence(text, 1, "x"), "title");
        assert_eq!(sentence(text, 9, "x"), "");
        let long = format!("{} [[T]] {}", "é".repeat(300), "b".repeat(400));
        let s = sentence(&long, 1, "T");
        assert!(s.contains("[[T]]") && s.len() < 400);
    }
}
