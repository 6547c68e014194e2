//! Where a note's frontmatter may hold links: the parts of its lines that YAML reads as text.
//!
//! Obsidian links the wikilinks of property values that are strings, and tells its users to
//! quote them (Obsidian Help, "Properties": `link: "[[Episode IV]]"`): unquoted, `up: [[X]]`
//! is YAML's flow sequence holding a sequence holding `X`, not text, and Obsidian links
//! nothing there. So, line by line, without parsing YAML whole:
//!
//! - a quoted string (`"…"` with `\` escapes, `'…'` with `''`) is text, inside a flow
//!   sequence or map too (`up: ["[[A]]", "[[B]]"]`);
//! - a plain scalar (`up: see [[X]]`, a list item `- see [[X]]`, the continuation lines of a
//!   multi-line or block scalar) is text: YAML reads it as a string;
//! - a value opening with `[` or `{` is a flow collection: only its quoted strings are text;
//! - a comment (`#` at the start of a value or after a space, outside quotes) is not.

/// The byte ranges of `line` (one frontmatter line) that are text.
pub(crate) fn text_ranges(line: &str) -> Vec<(usize, usize)> {
    let b = line.as_bytes();
    let mut at = b.iter().take_while(|&&c| c == b' ' || c == b'\t').count();
    // Block sequence markers: `- `, `- - `.
    while b.get(at) == Some(&b'-') && matches!(b.get(at + 1), None | Some(b' ' | b'\t')) {
        at += 1;
        at += b[at..]
            .iter()
            .take_while(|&&c| c == b' ' || c == b'\t')
            .count();
    }
    if let Some(value) = value_after_key(b, at) {
        at = value;
    }
    let mut out = Vec::new();
    match b.get(at) {
        None | Some(b'#' | b'|' | b'>') => {}
        Some(b'[' | b'{') => quoted_only(b, at, &mut out),
        Some(b'"' | b'\'') => {
            let end = quoted_end(b, at);
            out.push((at + 1, end.saturating_sub(1).max(at + 1)));
        }
        Some(_) => out.push((at, comment_at(b, at).unwrap_or(b.len()))),
    }
    out
}

/// Where the value starts when the line from `at` is `key: value` (a plain key, no quote or
/// bracket before its `:`), past the spaces after the colon.
fn value_after_key(b: &[u8], at: usize) -> Option<usize> {
    if matches!(b.get(at), Some(b'"' | b'\'' | b'[' | b'{' | b'#')) {
        return None;
    }
    let mut i = at;
    while i < b.len() {
        match b[i] {
            b':' if matches!(b.get(i + 1), None | Some(b' ' | b'\t')) => {
                let v = i + 1;
                return Some(
                    v + b[v..]
                        .iter()
                        .take_while(|&&c| c == b' ' || c == b'\t')
                        .count(),
                );
            }
            b'#' if i > at && matches!(b[i - 1], b' ' | b'\t') => return None,
            _ => i += 1,
        }
    }
    None
}

/// The end (past the closing quote, or the line's end) of the quoted string opening at `at`.
fn quoted_end(b: &[u8], at: usize) -> usize {
    let q = b[at];
    let mut i = at + 1;
    while i < b.len() {
        match b[i] {
            b'\\' if q == b'"' => i += 2,
            c if c == q => {
                if q == b'\'' && b.get(i + 1) == Some(&b'\'') {
                    i += 2;
                } else {
                    return i + 1;
                }
            }
            _ => i += 1,
        }
    }
    b.len()
}

/// The insides of the quoted strings of a flow collection starting at `at`, up to a comment.
fn quoted_only(b: &[u8], mut at: usize, out: &mut Vec<(usize, usize)>) {
    while at < b.len() {
        match b[at] {
            b'"' | b'\'' => {
                let end = quoted_end(b, at);
                out.push((at + 1, end.saturating_sub(1).max(at + 1)));
                at = end;
            }
            b'#' if at > 0 && matches!(b[at - 1], b' ' | b'\t') => return,
            _ => at += 1,
        }
    }
}

/// A comment's `#` in a plain scalar from `at`: one after a space.
fn comment_at(b: &[u8], at: usize) -> Option<usize> {
    (at + 1..b.len()).find(|&i| b[i] == b'#' && matches!(b[i - 1], b' ' | b'\t'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(line: &str) -> Vec<&str> {
        text_ranges(line)
            .into_iter()
            .map(|(a, b)| &line[a..b])
            .collect()
    }

    #[test]
    fn strings_are_text_lists_and_comments_are_not() {
        assert_eq!(text("up: \"[[X]]\""), ["[[X]]"]);
        assert_eq!(text("up: '[[X]]' # [[C]]"), ["[[X]]"]);
        assert_eq!(text("up: [[X]]"), Vec::<&str>::new());
        assert_eq!(text("  - [[X]]"), Vec::<&str>::new());
        assert_eq!(text("  - \"[[X|x]]\""), ["[[X|x]]"]);
        assert_eq!(
            text("up: [\"[[A]]\", '[[B]]', [[C]]] # \"[[D]]\""),
            ["[[A]]", "[[B]]"]
        );
        assert_eq!(text("up: see [[X]] # [[C]]"), ["see [[X]] "]);
        assert_eq!(text("# [[C]]"), Vec::<&str>::new());
        assert_eq!(text("  continued [[X]]"), ["continued [[X]]"]);
        assert_eq!(text("up: \"a \\\" [[X]]\""), ["a \\\" [[X]]"]);
        assert_eq!(text("d: |"), Vec::<&str>::new());
    }
}
