//! Passages: the lines of a note around a hit's best match that an agent can answer from,
//! so that it need not read the whole note.
//!
//! A passage is whole lines of the note, never more than a byte cap, chosen inside the
//! section (heading to the next heading of the same or a higher level) that holds the match:
//! first the paragraph, list or code block of the match, then its neighbours below and above
//! in turn while whole blocks fit. A block larger than the cap is cut to the lines around the
//! match (and a line longer than the cap to the characters around it): the passage then says
//! `cut`. Frontmatter is shown only when the match is in it.
//!
//! The work is bounded by the cap, not by the note: at most [`SCAN_ABOVE`] bytes above the
//! match are read for the headings and fences the passage sits in, and a few caps' worth
//! below. A giant note's caller hands in a window of its file (the engines read no more), and
//! the heading it found above that window.

#[cfg(feature = "mcp")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::text::{comments, note};

/// A stretch of a note's own lines that answers the query: `text` is lines `line` to
/// `end_line` of the file, cleaned as excerpts are (the comments Obsidian hides are left out,
/// each line's trailing white space trimmed; the line breaks stay, so the n-th line of `text`
/// is line `line + n - 1` of the note).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, Default)]
#[cfg_attr(feature = "mcp", derive(JsonSchema))]
pub struct Passage {
    /// 1-based first line of the file; absent for canvases and PDFs, whose text is extracted
    /// (a PDF's passage names its `page`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    /// 1-based last line (inclusive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_line: Option<u64>,
    /// PDFs: the page the passage is on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<u64>,
    /// The headings the passage sits under, outermost first, joined with ` > `; absent above
    /// the first heading.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heading: Option<String>,
    pub text: String,
    /// True when the passage stops inside a paragraph, list or code block (or a line was
    /// shortened): read the section for the rest.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cut: bool,
}

/// Bytes above the match scanned for the heading path and code fences; a longer section's
/// start is not looked for (the passage starts at most a cap above the match anyway).
pub(crate) const SCAN_ABOVE: usize = 64 * 1024;

/// Where a hit's passage is cut from.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Source<'a> {
    /// The note's text, or a window of it (whole lines are best: a window that starts inside a
    /// line shows that line from there).
    pub(crate) text: &'a str,
    /// Where the note's body starts in `text` (after the frontmatter; 0 for a window that
    /// starts after it).
    pub(crate) floor: usize,
    /// Byte offset of the best match in `text`.
    pub(crate) at: usize,
    /// The 1-based line of the note that holds `at`.
    pub(crate) line_at: u64,
    /// Markdown: comments are hidden (a canvas's or PDF's text is shown as extracted).
    pub(crate) markdown: bool,
    /// The nearest heading above `text` when it is a window of a longer note.
    pub(crate) heading_above: Option<&'a str>,
}

/// One line of the stretch a passage is chosen from.
#[derive(Debug, Clone, Copy)]
struct Line {
    start: usize,
    /// End of its text (before `\n`).
    end: usize,
    /// 1-based line number in the note.
    number: u64,
    /// The block (paragraph, list, code fence, heading) it belongs to; blank lines outside
    /// fences belong to none.
    block: Option<usize>,
}

/// The passage around `src.at`, at most `max_bytes` of the note's text; `None` when the
/// stretch holds no text at all.
pub(crate) fn passage(src: &Source, max_bytes: usize) -> Option<Passage> {
    let text = src.text;
    let at = floor_boundary(text, src.at.min(text.len()));
    // Frontmatter is a region of its own: a match in it shows frontmatter, one after it never.
    let (lo, hi) = if at >= src.floor {
        (src.floor.min(text.len()), text.len())
    } else {
        // Inside the frontmatter: its lines, without the `---` around them.
        let end = src.floor.min(text.len());
        let open = text[..end].find('\n').map_or(0, |i| i + 1);
        let close = text[..end.saturating_sub(1)]
            .rfind('\n')
            .map_or(end, |i| i + 1);
        (open.min(at), close.max(open).max(at + 1).min(end))
    };
    let in_body = at >= src.floor;
    let line_start = text[lo..at].rfind('\n').map_or(lo, |i| lo + i + 1);
    let scan_from = line_after_or_at(text, line_start.saturating_sub(SCAN_ABOVE).max(lo));
    let max_bytes = max_bytes.max(1);
    let mut walk = Walk::new(text, scan_from);
    // Lines from the scan's start up to the match's line, with the heading stack as it stands.
    let mut lines: Vec<(usize, usize, Option<u8>, bool)> = Vec::new();
    let mut stack: Vec<(u8, &str)> = Vec::new();
    let mut section_level = 0u8;
    let mut section_from = 0usize;
    while let Some((s, e, fenced)) = walk.next_line(hi) {
        let heading = (in_body && !fenced)
            .then(|| note::heading(&text[s..e]))
            .flatten();
        if let Some((level, title)) = heading {
            while stack.last().is_some_and(|&(l, _)| l >= level) {
                stack.pop();
            }
            stack.push((level, title));
            section_level = level;
            section_from = lines.len() + 1;
        }
        lines.push((s, e, heading.map(|(l, _)| l), fenced));
        if s >= line_start {
            break;
        }
    }
    let match_idx = lines.len().checked_sub(1)?;
    // The match's line number fixes every other line's.
    let number = |i: usize| src.line_at + i as u64 - match_idx as u64;
    let heading_path = if stack.is_empty() {
        in_body
            .then(|| src.heading_above.map(str::to_string))
            .flatten()
    } else {
        Some(
            stack
                .iter()
                .map(|&(_, t)| t)
                .collect::<Vec<_>>()
                .join(" > "),
        )
    };
    // Lines below the match, a few caps on; where its section ends (a heading of its level or
    // a higher one).
    let reach = text[line_start..].len().min(max_bytes.saturating_mul(3)) + line_start;
    let mut section_end = None;
    while let Some((s, e, fenced)) = walk.next_line(hi) {
        if s > reach {
            break;
        }
        let heading = (in_body && !fenced)
            .then(|| note::heading(&text[s..e]))
            .flatten();
        if let Some((level, _)) = heading {
            if section_end.is_none() && (section_level == 0 || level <= section_level) {
                section_end = Some(lines.len());
            }
        }
        lines.push((s, e, heading.map(|(l, _)| l), fenced));
    }
    let first = section_from.min(lines.len());
    let focus = match_idx.max(first);
    let stretch: Vec<Line> = blocks(text, &lines[first..], first, &number);
    if stretch.is_empty() {
        return None;
    }
    let end = section_end.map_or(stretch.len(), |e| e.saturating_sub(first));
    let (a, b, cut) = choose(&stretch, focus - first, end, max_bytes);
    render(src, &stretch[a..=b], at, max_bytes, cut, heading_path)
}

/// Numbers the lines and groups them into blocks: a run of non-blank lines, a fenced code
/// block (blank lines inside it included), a heading alone.
fn blocks(
    text: &str,
    lines: &[(usize, usize, Option<u8>, bool)],
    offset: usize,
    number: &dyn Fn(usize) -> u64,
) -> Vec<Line> {
    let mut out = Vec::with_capacity(lines.len());
    let mut block = 0usize;
    let mut open = false;
    for (i, &(s, e, heading, fenced)) in lines.iter().enumerate() {
        let blank = !fenced && text[s..e].trim().is_empty();
        let id = if blank {
            open = false;
            None
        } else if heading.is_some() {
            block += 1;
            open = false;
            Some(block)
        } else {
            if !open {
                block += 1;
                open = true;
            }
            Some(block)
        };
        out.push(Line {
            start: s,
            end: e,
            number: number(offset + i),
            block: id,
        });
    }
    out
}

/// The lines `a..=b` of the passage around line `m`, and whether a block was cut: the
/// match's block whole when it fits, grown by whole blocks below and above in turn within its
/// section (the lines before `section_end`), then, the section whole, on into the sections
/// after it (an answer often reads on: a short section that names the question, the next that
/// answers it); else the lines around the match.
fn choose(lines: &[Line], m: usize, section_end: usize, max_bytes: usize) -> (usize, usize, bool) {
    let size = |a: usize, b: usize| lines[b].end.saturating_sub(lines[a].start);
    // A blank focus line (a match cannot be on one, but a heading's section may start with
    // one) moves to the next line with text.
    let m = (m..lines.len())
        .find(|&i| lines[i].block.is_some())
        .or_else(|| (0..m).rev().find(|&i| lines[i].block.is_some()))
        .unwrap_or(m);
    let Some(block) = lines[m].block else {
        return (m, m, false);
    };
    let mut a = (0..=m)
        .rev()
        .take_while(|&i| lines[i].block == Some(block))
        .last()
        .unwrap_or(m);
    let mut b = (m..lines.len())
        .take_while(|&i| lines[i].block == Some(block))
        .last()
        .unwrap_or(m);
    if size(a, b) > max_bytes {
        // The block alone is too long: the lines around the match, more below than above.
        let (mut a, mut b) = (m, m);
        let mut below = true;
        loop {
            let grown = if below && b + 1 < lines.len() {
                (a, b + 1)
            } else if a > 0 {
                (a - 1, b)
            } else if b + 1 < lines.len() {
                (a, b + 1)
            } else {
                break;
            };
            if size(grown.0, grown.1) > max_bytes {
                break;
            }
            (a, b) = grown;
            below = !below;
        }
        return (a, b, true);
    }
    // Whole blocks: the next one below, then the one above, while they fit.
    let (mut down, mut up) = (true, true);
    let mut below = true;
    let section = &lines[..section_end.max(b + 1).min(lines.len())];
    while down || up {
        if below && down {
            match next_block_end(section, b) {
                Some(nb) if size(a, nb) <= max_bytes => b = nb,
                _ => down = false,
            }
        } else if up {
            match prev_block_start(lines, a) {
                Some(na) if size(na, b) <= max_bytes => a = na,
                _ => up = false,
            }
        }
        below = !below;
    }
    // The section is whole: read on past its end while whole blocks fit.
    if prev_block_start(lines, a).is_none() && next_block_end(section, b).is_none() {
        while let Some(nb) = next_block_end(lines, b) {
            if size(a, nb) > max_bytes {
                break;
            }
            b = nb;
        }
    }
    (a, b, false)
}

/// The last line of the block after line `b` (the blank lines between included).
fn next_block_end(lines: &[Line], b: usize) -> Option<usize> {
    let start = (b + 1..lines.len()).find(|&i| lines[i].block.is_some())?;
    let id = lines[start].block;
    Some(
        (start..lines.len())
            .take_while(|&i| lines[i].block == id)
            .last()
            .unwrap_or(start),
    )
}

/// The first line of the block before line `a`.
fn prev_block_start(lines: &[Line], a: usize) -> Option<usize> {
    let end = (0..a).rev().find(|&i| lines[i].block.is_some())?;
    let id = lines[end].block;
    Some(
        (0..=end)
            .rev()
            .take_while(|&i| lines[i].block == id)
            .last()
            .unwrap_or(end),
    )
}

/// The passage's text: the lines cleaned (comments out, trailing white space off, a line over
/// the cap cut around the match), blank lines at its ends dropped.
fn render(
    src: &Source,
    lines: &[Line],
    at: usize,
    max_bytes: usize,
    mut cut: bool,
    heading: Option<String>,
) -> Option<Passage> {
    let text = src.text;
    let (from, to) = (lines.first()?.start, lines.last()?.end);
    let hidden = if src.markdown {
        comments::hidden(text, from, to, false)
    } else {
        Vec::new()
    };
    let mut shown: Vec<(u64, String)> = Vec::with_capacity(lines.len());
    for l in lines {
        let mut s = l.start;
        let mut e = l.end;
        let mut pre = "";
        let mut post = "";
        if e - s > max_bytes {
            // One line longer than the cap (a one-line dump, a table row): the stretch around
            // the match, or its start.
            let (cs, ce) = if (s..=e).contains(&at) {
                let back = max_bytes / 3;
                (
                    at.saturating_sub(back).max(s),
                    (at + max_bytes - back).min(e),
                )
            } else {
                (s, s + max_bytes)
            };
            let (cs, ce) = (ceil_boundary(text, cs), floor_boundary(text, ce));
            pre = if cs > s { "…" } else { "" };
            post = if ce < e { "…" } else { "" };
            (s, e) = (cs, ce);
            cut = true;
        }
        let mut line = String::with_capacity(e - s + 6);
        line.push_str(pre);
        let mut i = s;
        for &(ha, hz) in hidden.iter().filter(|&&(ha, hz)| hz > s && ha < e) {
            line.push_str(&text[i..ha.max(i)]);
            i = hz.min(e).max(i);
        }
        line.push_str(&text[i..e]);
        line.push_str(post);
        let trimmed = line.trim_end().len();
        line.truncate(trimmed);
        shown.push((l.number, line));
    }
    while shown.last().is_some_and(|(_, l)| l.trim().is_empty()) {
        shown.pop();
    }
    let lead = shown
        .iter()
        .take_while(|(_, l)| l.trim().is_empty())
        .count();
    shown.drain(..lead);
    let (first, last) = (shown.first()?.0, shown.last()?.0);
    let body: Vec<&str> = shown.iter().map(|(_, l)| l.as_str()).collect();
    Some(Passage {
        line: Some(first),
        end_line: Some(last),
        page: None,
        heading,
        text: body.join("\n"),
        cut,
    })
}

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
fn line_after_or_at(text: &str, i: usize) -> usize {
    if i == 0 || text.as_bytes().get(i - 1) == Some(&b'\n') {
        return i;
    }
    text[i..].find('\n').map_or(text.len(), |n| i + n + 1)
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

#[cfg(test)]
#[path = "passage_tests.rs"]
mod tests;
