//! Text made safe to show on a terminal: a note's path or excerpt must not be able to move
//! the cursor, retitle the window or reorder what is shown.

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

/// `s` with every control character (C0, DEL, C1), bidi control and line or paragraph
/// separator written as an escape (`\n`, `\t`, `\u{1b}`, `\u{202e}`): a name, an origin or a
/// path printed as text stays on its line, can't drive the terminal or reorder what is shown,
/// and the escape shows what was there (where [`sanitize_for_terminal`] drops it).
#[cfg(any(test, feature = "cli"))]
pub(crate) fn escape_controls(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(is_unsafe) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if is_unsafe(c) => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(any(test, feature = "cli"))]
fn is_unsafe(c: char) -> bool {
    c.is_control() || is_bidi_control(c) || matches!(c, '\u{2028}' | '\u{2029}')
}

/// Bidi embeddings, overrides, isolates and marks: they reorder or hide what follows.
fn is_bidi_control(c: char) -> bool {
    matches!(
        c,
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_controls_visibly() {
        let s = "a\nb\u{1b}[31m\u{9b}c\u{202e}d\u{2028}é";
        assert_eq!(
            escape_controls(s),
            "a\\nb\\u{1b}[31m\\u{9b}c\\u{202e}d\\u{2028}é"
        );
        assert!(matches!(
            escape_controls("plain é"),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn strips_escapes_and_controls() {
        let s = "a\u{1b}[31mred\u{1b}[0m b\u{1b}]0;title\u{7}c\u{0}d\u{202e}e\tf";
        assert_eq!(
            sanitize_for_terminal(s),
            "aredm bcde f".replace("redm", "red")
        );
    }
}
