//! A walk over a text's lines that knows which lie in fenced code, for what reads a note's
//! structure (passages, outlines) without parsing it whole.

/// Walks the lines of a text, knowing which lie in a fenced code block (CommonMark: a fence
/// of three or more backticks or tildes, closed by a fence of the same character at least as
/// long, indented at most three spaces).
pub(crate) struct Walk<'a> {
    text: &'a str,
    at: usize,
    fence: Option<(u8, usize)>,
}

impl<'a> Walk<'a> {
    pub(crate) fn new(text: &'a str, at: usize) -> Walk<'a> {
        Walk {
            text,
            at,
            fence: None,
        }
    }

    /// The next line before `hi`: its start, the end of its text, and whether it is code
    /// (inside a fence, or a fence's own line).
    pub(crate) fn next_line(&mut self, hi: usize) -> Option<(usize, usize, bool)> {
        if self.at >= hi {
            return None;
        }
        let s = self.at;
        let rest = &self.text.as_bytes()[s..hi];
        let len = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
        let mut e = s + len;
        self.at = (e + 1).min(hi.max(e));
        if self.at <= s {
            self.at = hi;
        }
        if e > s && self.text.as_bytes()[e - 1] == b'\r' {
            e -= 1;
        }
        let line = &self.text.as_bytes()[s..e];
        let indent = line.iter().take_while(|&&c| c == b' ').count();
        let marker = (indent <= 3)
            .then(|| {
                let c = *line.get(indent)?;
                let n = line[indent..].iter().take_while(|&&x| x == c).count();
                ((c == b'`' || c == b'~') && n >= 3).then_some((c, n))
            })
            .flatten();
        let code = match (self.fence, marker) {
            (Some((c, n)), Some((mc, mn)))
                if mc == c
                    && mn >= n
                    && line[indent + mn..].iter().all(u8::is_ascii_whitespace) =>
            {
                self.fence = None;
                true
            }
            (Some(_), _) => true,
            (None, Some(m)) => {
                self.fence = Some(m);
                true
            }
            (None, None) => false,
        };
        Some((s, e, code))
    }
}

/// The start of the first line at or after `i` (i itself when a line starts there).
pub(crate) fn line_after_or_at(text: &str, i: usize) -> usize {
    if i == 0 || text.as_bytes().get(i - 1) == Some(&b'\n') {
        return i;
    }
    text[i..].find('\n').map_or(text.len(), |n| i + n + 1)
}

pub(crate) fn floor_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

pub(crate) fn ceil_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}
