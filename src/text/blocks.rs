//! Which lines of a note's body are code, as CommonMark reads its blocks (the reading Obsidian's
//! editor and its link index share), for what must not look inside code: link extraction.
//!
//! One line at a time, looking only at each line's start (its `>` markers, its indent, a list
//! marker, a fence), so a note costs one pass whatever its lines hold. The rules, from the
//! CommonMark spec (0.31.2):
//!
//! - A fence (4.5) is three or more backticks or tildes, indented at most three spaces; a
//!   backtick fence's info string holds no backtick. It is closed only by a fence of the same
//!   character at least as long, with nothing after it but spaces — or by the end of the
//!   block quote or list item that holds it. `~~~` inside a backtick fence is code.
//! - Indented code (4.4): four or more columns of indent (a tab to the next multiple of four)
//!   past the container's content, not continuing a paragraph.
//! - Block quotes (5.1, Obsidian's callouts are block quotes): `>` markers are taken off the
//!   line first; a fence opened inside one ends on the first line without as many markers.
//! - List items (5.2): `-`, `+`, `*`, `1.` or `1)` then a space; the item's content starts at
//!   the column after the marker and its spaces, and a fence or indented code inside it is
//!   measured from there (`- ```` opens a fence).

/// The state of the walk over a body's lines.
#[derive(Debug, Default)]
pub(crate) struct Blocks {
    fence: Option<Fence>,
    /// The content columns of the open list items, innermost last.
    items: Vec<usize>,
    /// The block-quote depth of the paragraph the last line continued, if it did.
    para: Option<usize>,
}

#[derive(Debug, Clone, Copy)]
struct Fence {
    ch: u8,
    len: usize,
    /// The block-quote depth it was opened at.
    quotes: usize,
    /// The content column of the list item it was opened in (0 outside lists).
    column: usize,
}

impl Blocks {
    /// Whether `line` (without its line ending) is code: inside a fence, a fence's own line,
    /// or indented code. Lines must be given in order.
    pub(crate) fn is_code(&mut self, line: &[u8]) -> bool {
        let (quotes, rest) = strip_quotes(line);
        if let Some(f) = self.fence {
            let (col, at) = indent(rest);
            let blank = at == rest.len();
            let closed_by_container = quotes < f.quotes || (!blank && col < f.column);
            if !closed_by_container {
                if col.saturating_sub(f.column) <= 3 {
                    let run = run_of(&rest[at..], f.ch);
                    if run >= f.len && rest[at + run..].iter().all(u8::is_ascii_whitespace) {
                        self.fence = None;
                    }
                }
                return true;
            }
            self.fence = None;
        }
        let (col, at) = indent(rest);
        if at == rest.len() {
            self.para = None;
            return false;
        }
        while self.items.last().is_some_and(|&c| col < c) {
            self.items.pop();
        }
        let base = self.items.last().copied().unwrap_or(0);
        let continues = self.para == Some(quotes);
        if col >= base + 4 && !continues {
            return true;
        }
        // A list marker, then the item's content from its column.
        let (content_col, content) = match list_marker(&rest[at..]) {
            Some(width) if col < base + 4 => {
                let after = &rest[at + width..];
                let (spaces, skip) = indent_from(after, col + width);
                let spaces = spaces - (col + width);
                // Five or more spaces: the content is indented code starting one column on.
                let c = if spaces >= 5 || skip == after.len() {
                    col + width + 1
                } else {
                    col + width + spaces
                };
                self.items.push(c);
                (c, &after[skip..])
            }
            _ => (base, &rest[at..]),
        };
        if let Some(f) = fence_open(content) {
            self.fence = Some(Fence {
                quotes,
                column: content_col,
                ..f
            });
            self.para = None;
            return true;
        }
        self.para = (content.first() != Some(&b'#')).then_some(quotes);
        false
    }
}

/// The block-quote markers at the start of a line taken off: (how many, the rest).
fn strip_quotes(mut line: &[u8]) -> (usize, &[u8]) {
    let mut n = 0;
    loop {
        let spaces = line.iter().take(4).take_while(|&&c| c == b' ').count();
        if spaces <= 3 && line.get(spaces) == Some(&b'>') {
            line = &line[spaces + 1..];
            if line.first() == Some(&b' ') {
                line = &line[1..];
            }
            n += 1;
        } else {
            return (n, line);
        }
    }
}

/// The column a line's text starts at and its byte offset (a tab to the next multiple of 4).
fn indent(line: &[u8]) -> (usize, usize) {
    indent_from(line, 0)
}

/// [`indent`] of a line part starting at column `col`.
fn indent_from(line: &[u8], mut col: usize) -> (usize, usize) {
    let mut at = 0;
    while let Some(&c) = line.get(at) {
        match c {
            b' ' => col += 1,
            b'\t' => col += 4 - col % 4,
            _ => break,
        }
        at += 1;
    }
    (col, at)
}

fn run_of(s: &[u8], ch: u8) -> usize {
    s.iter().take_while(|&&c| c == ch).count()
}

/// The width of a list marker at the start of `s` (`- `, `1. `: the marker only), if any.
fn list_marker(s: &[u8]) -> Option<usize> {
    let width = match s.first()? {
        b'-' | b'+' | b'*' => 1,
        b'0'..=b'9' => {
            let digits = s.iter().take(10).take_while(|c| c.is_ascii_digit()).count();
            if digits > 9 || !matches!(s.get(digits), Some(b'.' | b')')) {
                return None;
            }
            digits + 1
        }
        _ => return None,
    };
    match s.get(width) {
        None | Some(b' ' | b'\t') => Some(width),
        _ => None,
    }
}

/// A fence opening at the start of `s` (already past its indent).
fn fence_open(s: &[u8]) -> Option<Fence> {
    let ch = *s.first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let len = run_of(s, ch);
    if len < 3 || (ch == b'`' && memchr::memchr(b'`', &s[len..]).is_some()) {
        return None;
    }
    Some(Fence {
        ch,
        len,
        quotes: 0,
        column: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The code lines of `text`, 1-based.
    fn code(text: &str) -> Vec<usize> {
        let mut b = Blocks::default();
        text.split('\n')
            .enumerate()
            .filter(|(_, l)| b.is_code(l.as_bytes()))
            .map(|(i, _)| i + 1)
            .collect()
    }

    #[test]
    fn fences_close_on_their_kind_and_length() {
        assert_eq!(code("````\n```\n[[x]]\n````\ntext"), [1, 2, 3, 4]);
        assert_eq!(code("~~~\n```\n~~~~ \ntext"), [1, 2, 3]);
        assert_eq!(code("```\na\n``` not a close\n```\nb"), [1, 2, 3, 4]);
        // A backtick in the info string: inline code, no fence.
        assert_eq!(code("``` a`b\ntext"), Vec::<usize>::new());
        assert_eq!(code("   ```\nx\n    ```\n   ```\ny"), [1, 2, 3, 4]);
    }

    #[test]
    fn fences_in_callouts_and_list_items() {
        assert_eq!(code("> [!note]\n> ```\n> x\n> ```\n> y"), [2, 3, 4]);
        // The quote ends: so does its fence.
        assert_eq!(code("> ```\n> x\ny"), [1, 2]);
        assert_eq!(code("- item\n  ```\n  x\n  ```\n  y"), [2, 3, 4]);
        assert_eq!(code("- ```\n  x\n  ```\ny"), [1, 2, 3]);
        // The item ends: so does its fence.
        assert_eq!(code("1. ```\n   x\ny"), [1, 2]);
    }

    #[test]
    fn indented_code_but_not_a_paragraph_continued() {
        assert_eq!(code("text\n\n    code\n\tcode\nafter"), [3, 4]);
        assert_eq!(code("text\n    continued"), Vec::<usize>::new());
        assert_eq!(code("- item\n\n      code\n  para"), [3]);
        assert_eq!(code("- item\n    nested text"), Vec::<usize>::new());
        assert_eq!(code("# Heading\n    code"), [2]);
        assert_eq!(code(">     code\n> text"), [1]);
    }
}
