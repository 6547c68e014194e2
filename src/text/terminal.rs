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

fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
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
}
