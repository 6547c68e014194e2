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

use crate::text::walk::{ceil_boundary, floor_boundary, line_after_or_at, Walk};
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
    if first >= lines.len() {
        return None;
    }
    let focus = match_idx.max(first);
    let stretch: Vec<Line> = blocks(text, &lines, 0, &number);
    let end = section_end.unwrap_or(stretch.len());
    let (a, b, cut) = choose(&stretch, focus, (first, end), max_bytes);
    render(src, &stretch[a..=b], at, max_bytes, cut, heading_path)
}

/// Most bytes of a note's lead passage ([`with_lead`]).
pub(crate) const LEAD_BYTES: usize = 400;

/// `main` and, when it does not already show it, the note's lead: the first paragraph of its
/// body (after the frontmatter and a title heading), where a note mostly says what it is about
/// — what a question's answer leans on as often as the passage at its words. `text` is the
/// whole note from its start (a window of a giant note has no lead to show).
pub(crate) fn with_lead(text: &str, floor: usize, markdown: bool, main: Passage) -> Vec<Passage> {
    let mut walk = Walk::new(text, floor.min(text.len()));
    let mut number = text[..floor.min(text.len())].matches('\n').count() as u64 + 1;
    let mut first = None;
    while let Some((s, e, code)) = walk.next_line(text.len()) {
        let line = &text[s..e];
        if !line.trim().is_empty() && (code || note::heading(line).is_none()) {
            first = Some((s, number));
            break;
        }
        number += 1;
        if s > floor + LEAD_BYTES * 4 {
            break;
        }
    }
    let Some((at, line_at)) = first else {
        return vec![main];
    };
    let shown = |n: u64| {
        main.line
            .zip(main.end_line)
            .is_some_and(|(a, b)| a <= n && n <= b)
    };
    if shown(line_at) {
        return vec![main];
    }
    let src = Source {
        text,
        floor,
        at,
        line_at,
        markdown,
        heading_above: None,
    };
    match passage(&src, LEAD_BYTES) {
        // Overlapping lines are shown once, in the best passage.
        Some(lead) if lead.end_line.is_some_and(|e| !shown(e)) && !lead.cut => vec![main, lead],
        _ => vec![main],
    }
}

/// Numbers the lines and groups them into blocks: a run of non-blank lines, a fenced code
/// block (blank lines inside it included), a heading with the block after it (a heading is
/// never shown without its first lines).
fn blocks(
    text: &str,
    lines: &[(usize, usize, Option<u8>, bool)],
    offset: usize,
    number: &dyn Fn(usize) -> u64,
) -> Vec<Line> {
    let mut out = Vec::with_capacity(lines.len());
    let mut block = 0usize;
    let mut open = false;
    // After a heading, until the first line with text.
    let mut headed = false;
    for (i, &(s, e, heading, fenced)) in lines.iter().enumerate() {
        let blank = !fenced && text[s..e].trim().is_empty();
        let id = if blank && headed {
            Some(block)
        } else if blank {
            open = false;
            None
        } else if heading.is_some() {
            block += 1;
            open = true;
            headed = true;
            Some(block)
        } else {
            headed = false;
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
/// section (the lines `section.0..section.1`), then, the section whole, on into the sections
/// around it, below first (an answer often reads on: a short section that names the question,
/// the next that answers it; a short note is shown whole); else the lines around the match.
fn choose(
    lines: &[Line],
    m: usize,
    section: (usize, usize),
    max_bytes: usize,
) -> (usize, usize, bool) {
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
        // The block alone is too long: the lines around the match, one below for one above.
        let (a, b) = grow_around(lines.len(), m, 1, |a, b| size(a, b) <= max_bytes);
        return (a, b, true);
    }
    // Whole blocks: the next one below, then the one above, while they fit.
    let within = &lines[..section.1.max(b + 1).min(lines.len())];
    let above = |a: usize, floor: usize| prev_block_start(lines, a).filter(|&na| na >= floor);
    let grow = |a: &mut usize, b: &mut usize, below: &[Line], floor: usize| {
        let (mut down, mut up) = (true, true);
        let mut turn_below = true;
        while down || up {
            if turn_below && down {
                match next_block_end(below, *b) {
                    Some(nb) if size(*a, nb) <= max_bytes => *b = nb,
                    _ => down = false,
                }
            } else if up {
                match above(*a, floor) {
                    Some(na) if size(na, *b) <= max_bytes => *a = na,
                    _ => up = false,
                }
            }
            turn_below = !turn_below;
        }
    };
    grow(&mut a, &mut b, within, section.0);
    // The section is whole: on into the sections around it while whole blocks fit.
    if above(a, section.0).is_none() && next_block_end(within, b).is_none() {
        grow(&mut a, &mut b, lines, 0);
    }
    (a, b, false)
}

/// The window `a..=b` of `len` lines grown from line `m` a line at a time while `fits(a, b)`:
/// `downs` lines below for each one above, below first, and on the other side when one side
/// has no more lines.
pub(crate) fn grow_around(
    len: usize,
    m: usize,
    downs: usize,
    mut fits: impl FnMut(usize, usize) -> bool,
) -> (usize, usize) {
    let (mut a, mut b) = (m, m);
    let mut step = 0;
    loop {
        let down = step % (downs + 1) != downs && b + 1 < len;
        let next = if down {
            (a, b + 1)
        } else if a > 0 {
            (a - 1, b)
        } else if b + 1 < len {
            (a, b + 1)
        } else {
            break;
        };
        if !fits(next.0, next.1) {
            break;
        }
        (a, b) = next;
        step += 1;
    }
    (a, b)
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

#[cfg(test)]
#[path = "passage_tests.rs"]
mod tests;
