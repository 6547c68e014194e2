//! The comments of Markdown text — `<!-- … -->` and Obsidian's `%% … %%` — that Obsidian hides
//! in reading view, found so an excerpt can leave them out: they cost a reader tokens and read
//! as content. Every front-end gets excerpts without them because they are left out where the
//! excerpts are made ([`super::excerpt`]), not after the fact.
//!
//! As Obsidian reads them: a comment runs from its opening mark to the next closing one,
//! across lines, and one that is never closed runs to the end of the text; inside a fenced
//! code block (```` ``` ````, `~~~`) or an inline code span, the marks are text. The scan sees
//! only the stretch it is given: what lies before it is taken to be neither a comment nor
//! code, except that a caller that knows the stretch was cut out of a longer text (an
//! Omnisearch excerpt) can have a `-->` before any `<!--` end a comment that began before it.

use super::scan::{self, CodeRuns};

/// The byte ranges of `text[from..to]` that comments hide, in order and disjoint; a comment
/// still open at `to` runs to `to`. `from` is a line start when it is 0 or follows a `\n`.
/// With `cut_open`, a `-->` before any `<!--` hides the stretch up to it.
pub(crate) fn hidden(text: &str, from: usize, to: usize, cut_open: bool) -> Vec<(usize, usize)> {
    let b = &text.as_bytes()[..to.min(text.len())];
    let from = from.min(b.len());
    let stretch = &b[from..];
    let any = |m: &[u8]| memchr::memmem::find(stretch, m).is_some();
    if !(any(b"<!--") || any(b"%%") || (cut_open && any(b"-->"))) {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut fence: Option<&[u8]> = None;
    let mut line_start = from == 0 || b[from - 1] == b'\n';
    let mut seen_open = !cut_open;
    // The backtick runs of the line being read, listed at its first run outside a comment,
    // with the line's end.
    let mut code: Option<(CodeRuns, usize)> = None;
    let mut i = from;
    while i < b.len() {
        if line_start {
            line_start = false;
            let indent = b[i..].iter().take_while(|&&c| c == b' ').count();
            let rest = &b[i + indent..];
            let marks: [&[u8]; 2] = [b"```", b"~~~"];
            match fence {
                Some(f) if indent <= 3 && rest.starts_with(f) => fence = None,
                Some(_) => {}
                None if indent <= 3 => fence = marks.into_iter().find(|m| rest.starts_with(m)),
                None => {}
            }
            // A fence's own line and the lines inside it are code.
            if fence.is_some() || (indent <= 3 && marks.iter().any(|m| rest.starts_with(m))) {
                i = next_line(b, i);
                line_start = true;
                continue;
            }
        }
        let c = b[i];
        if c == b'\n' {
            line_start = true;
            i += 1;
        } else if c == b'`' {
            let (runs, end) = match code.take() {
                Some((runs, end)) if i < end => (runs, end),
                _ => {
                    let end = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |k| i + k);
                    (CodeRuns::new(b, i, end), end)
                }
            };
            // Past the span the run opens; an unclosed run is text.
            i = runs
                .close(i)
                .unwrap_or_else(|| i + b[i..].iter().take_while(|&&c| c == b'`').count());
            code = Some((runs, end));
        } else if b[i..].starts_with(b"<!--") {
            seen_open = true;
            // From the opening's own dashes: `<!-->` and `<!--->` are whole (empty) comments.
            let end = find(b, i + 2, b"-->").map_or(b.len(), |e| e + 3);
            out.push((i, end));
            i = end;
        } else if b[i..].starts_with(b"%%") {
            let end = find(b, i + 2, b"%%").map_or(b.len(), |e| e + 2);
            out.push((i, end));
            i = end;
        } else if !seen_open && b[i..].starts_with(b"-->") {
            seen_open = true;
            out.push((from, i + 3));
            i += 3;
        } else {
            i += 1;
        }
    }
    scan::end_line(b.len() - from);
    out
}

/// The offset of the first `m` in `b` at or after `at`.
fn find(b: &[u8], at: usize, m: &[u8]) -> Option<usize> {
    memchr::memmem::find(&b[at.min(b.len())..], m).map(|k| at + k)
}

/// The start of the line after the one holding `i`.
fn next_line(b: &[u8], i: usize) -> usize {
    memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |k| i + k + 1)
}

/// `s` without what comments hide in it (`cut_open`: as for [`hidden`]).
pub(crate) fn strip(s: &str, cut_open: bool) -> String {
    let mut out = String::with_capacity(s.len());
    let mut at = 0;
    for (a, z) in hidden(s, 0, s.len(), cut_open) {
        out.push_str(&s[at..a]);
        at = z;
    }
    out.push_str(&s[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(s: &str) -> String {
        strip(s, false)
    }

    #[test]
    fn both_kinds_across_lines_and_unclosed() {
        assert_eq!(shown("a <!-- x\ny --> b"), "a  b");
        assert_eq!(shown("a %%x\n\ny%% b %% open"), "a  b ");
        assert_eq!(shown("a <!-- %% --> b %% <!-- %% c"), "a  b  c");
        assert_eq!(
            shown("no comment -> here --> at all"),
            "no comment -> here --> at all"
        );
        assert_eq!(shown("a<!-->b<!--->c"), "abc");
    }

    #[test]
    fn code_keeps_its_marks() {
        assert_eq!(shown("`%%` and ``a %% b`` %%x%%"), "`%%` and ``a %% b`` ");
        assert_eq!(
            shown("```\n%% in fence\n```\n%%x%%y"),
            "```\n%% in fence\n```\ny"
        );
        assert_eq!(
            shown("~~~md\n<!-- kept\n~~~\n<!-- gone -->z"),
            "~~~md\n<!-- kept\n~~~\nz"
        );
        // An unclosed backtick is text, so the comment after it counts.
        assert_eq!(shown("a ` b %%c%% d"), "a ` b  d");
        // Inside a comment a backtick is hidden with it.
        assert_eq!(shown("%% ` %% x"), " x");
        // A fence mark indented four spaces is not a fence.
        assert_eq!(shown("    ```\n%%x%%y"), "    ```\ny");
    }

    /// `hidden` as it read code spans before [`CodeRuns`]: from each opening run, a search
    /// of the rest of the line for a run of its length.
    fn hidden_by_rescanning(text: &str, from: usize, to: usize) -> Vec<(usize, usize)> {
        let b = &text.as_bytes()[..to.min(text.len())];
        let mut out = Vec::new();
        let mut fence: Option<&[u8]> = None;
        let mut line_start = from == 0 || b[from - 1] == b'\n';
        let mut i = from;
        while i < b.len() {
            if line_start {
                line_start = false;
                let indent = b[i..].iter().take_while(|&&c| c == b' ').count();
                let rest = &b[i + indent..];
                let marks: [&[u8]; 2] = [b"```", b"~~~"];
                match fence {
                    Some(f) if indent <= 3 && rest.starts_with(f) => fence = None,
                    Some(_) => {}
                    None if indent <= 3 => fence = marks.into_iter().find(|m| rest.starts_with(m)),
                    None => {}
                }
                if fence.is_some() || (indent <= 3 && marks.iter().any(|m| rest.starts_with(m))) {
                    i = next_line(b, i);
                    line_start = true;
                    continue;
                }
            }
            if b[i] == b'\n' {
                line_start = true;
                i += 1;
            } else if b[i] == b'`' {
                let open = b[i..].iter().take_while(|&&c| c == b'`').count();
                let mut j = i + open;
                i += open;
                while j < b.len() && b[j] != b'\n' {
                    if b[j] == b'`' {
                        let run = b[j..].iter().take_while(|&&c| c == b'`').count();
                        if run == open {
                            i = j + run;
                            break;
                        }
                        j += run;
                    } else {
                        j += 1;
                    }
                }
            } else if b[i..].starts_with(b"<!--") {
                let end = find(b, i + 2, b"-->").map_or(b.len(), |e| e + 3);
                out.push((i, end));
                i = end;
            } else if b[i..].starts_with(b"%%") {
                let end = find(b, i + 2, b"%%").map_or(b.len(), |e| e + 2);
                out.push((i, end));
                i = end;
            } else {
                i += 1;
            }
        }
        out
    }

    #[test]
    fn code_spans_hide_the_same_as_rescanning_the_line() {
        let texts = crate::text::scan::tests::lines(b"``%<!->\n x", 3000, 60);
        for text in &texts {
            for from in [0, text.len() / 3] {
                assert_eq!(
                    hidden(text, from, text.len(), false),
                    hidden_by_rescanning(text, from, text.len()),
                    "{text:?} from {from}"
                );
            }
        }
        // Runs of lengths 1…2000 on one line, none closed, then a comment.
        let line: String = (1..=2000).map(|n| "`".repeat(n) + " ").collect();
        let text = format!("{line}%%x%%");
        crate::text::scan::take_looked();
        assert_eq!(hidden(&text, 0, text.len(), false).len(), 1);
        assert!(crate::text::scan::take_looked() <= text.len());
    }

    #[test]
    fn a_cut_stretch_may_start_inside_a_comment() {
        assert_eq!(strip("tail --> shown <!-- cut", true), " shown ");
        assert_eq!(shown("tail --> shown"), "tail --> shown");
        // Mid-line: the stretch's first line is no line start, so no fence there.
        assert_eq!(hidden("```x %%a%%", 3, 10, false), [(5, 10)]);
    }
}
