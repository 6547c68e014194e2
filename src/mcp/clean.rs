//! An excerpt as a model reads it: the note's text without what the note does not show.
//!
//! Excerpts are cut from the raw Markdown, so they can hold HTML comments (`<!-- … -->`) and
//! Obsidian comments (`%% … %%`), which Obsidian hides in reading view; they cost tokens and
//! read as content. A comment cut open by the excerpt's edges is dropped up to that edge.

/// The excerpt without comments (whitespace collapsed where one was taken out).
pub(crate) fn excerpt(s: &str) -> String {
    if !["<!--", "-->", "%%"].iter().any(|m| s.contains(m)) {
        return s.to_string();
    }
    let s = without(s, "<!--", "-->");
    let s = without(&s, "%%", "%%");
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `s` without the spans from `open` to `close`. A `close` before any `open` ends a comment
/// that began before the excerpt; an `open` without `close` runs to its end.
fn without(s: &str, open: &str, close: &str) -> String {
    let mut rest = s;
    if open != close {
        if let Some(end) = rest.find(close) {
            if rest.find(open).is_none_or(|start| start > end) {
                rest = &rest[end + close.len()..];
            }
        }
    }
    let mut out = String::with_capacity(rest.len());
    while let Some(start) = rest.find(open) {
        out.push_str(&rest[..start]);
        out.push(' ');
        let after = &rest[start + open.len()..];
        match after.find(close) {
            Some(end) => rest = &after[end + close.len()..],
            None => return out,
        }
    }
    out.push_str(rest);
    out
}

/// At most `max` characters of `s`, marked when cut.
pub(crate) fn shortened(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_are_left_out() {
        assert_eq!(excerpt("a <!-- hidden --> b"), "a b");
        assert_eq!(excerpt("a %% note to self %% b\n c"), "a b c");
        assert_eq!(excerpt("tail of it --> shown <!-- cut"), "shown");
        assert_eq!(excerpt("x -> y"), "x -> y");
        assert_eq!(shortened("abcdef", 3), "abc…");
        assert_eq!(shortened("abc", 3), "abc");
    }
}
