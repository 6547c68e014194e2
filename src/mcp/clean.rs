//! Text as a model reads it in a tool's answer: a query echoed back is shortened.
//!
//! (Excerpts need nothing here: they come without the comments Obsidian hides from where they
//! are made, `text::comments`, for every front-end alike.)

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
    fn long_text_is_shortened() {
        assert_eq!(shortened("abcdef", 3), "abc…");
        assert_eq!(shortened("abc", 3), "abc");
    }
}
