//! Texts made of parts — a canvas's cards, a PDF's pages — stored as one body with a form feed
//! line between parts, so the index sees one document while an excerpt, and a PDF's page
//! number, come from the one part that matched.

/// Between two parts. A form feed never survives inside a part (see [`clean_part`]), so it
/// marks part boundaries unambiguously; the analyzer reads it as whitespace.
pub(crate) const SEPARATOR: &str = "\n\u{c}\n";

/// A part's text without form feeds (they would read as boundaries).
pub(crate) fn clean_part(s: &str) -> String {
    s.replace('\u{c}', " ")
}

/// Joins parts with [`SEPARATOR`].
pub(crate) fn join<S: AsRef<str>>(parts: &[S]) -> String {
    let mut out = String::new();
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            out.push_str(SEPARATOR);
        }
        out.push_str(&clean_part(p.as_ref()));
    }
    out
}

/// The byte range of the part holding byte offset `pos`.
pub(crate) fn bounds(text: &str, pos: usize) -> (usize, usize) {
    let pos = pos.min(text.len());
    let start = text.as_bytes()[..pos]
        .iter()
        .rposition(|&b| b == 0x0c)
        .map_or(0, |i| i + 1);
    let end = text.as_bytes()[pos..]
        .iter()
        .position(|&b| b == 0x0c)
        .map_or(text.len(), |i| pos + i);
    (start, end)
}

/// The 1-based number of the part holding byte offset `pos`.
pub(crate) fn number_at(text: &str, pos: usize) -> u64 {
    let pos = pos.min(text.len());
    1 + text.as_bytes()[..pos]
        .iter()
        .filter(|&&b| b == 0x0c)
        .count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_round_trip() {
        let t = join(&["one\u{c}x", "two", "three"]);
        assert_eq!(t.matches('\u{c}').count(), 2);
        let at = t.find("two").unwrap();
        assert_eq!(number_at(&t, at), 2);
        let (a, b) = bounds(&t, at);
        assert_eq!(t[a..b].trim(), "two");
        assert_eq!(number_at(&t, 0), 1);
        assert_eq!(bounds(&t, 0).0, 0);
        assert_eq!(number_at(&t, t.len()), 3);
    }
}
