//! One clean line of context around a match, and the line number an agent can jump to.
//!
//! Both engines end here: the local engine cuts an excerpt from the note's text, the
//! Omnisearch engine cleans the plugin's HTML-escaped excerpt. Either way an agent gets one
//! line of plain text, never `<br>`, `&amp;` or a raw newline, and never the comments
//! Obsidian hides (`<!-- … -->`, `%% … %%`, see [`super::comments`]).

/// Characters kept before the match.
pub(crate) const BEFORE: usize = 70;
/// Characters kept from the match on.
pub(crate) const AFTER: usize = 130;

/// Bytes on each side of the match a Markdown excerpt is read from for its comments (see
/// [`make_excerpt_from`]). A giant note's hit is shown from a window of its file that reaches
/// at least this far from the match on both sides, so it gets the excerpt its stored text
/// would give.
pub(crate) const COMMENT_CONTEXT: usize = 768;

/// Cuts `BEFORE` characters before and `AFTER` from byte offset `pos` of `text` (clamped to a
/// char boundary), flattens whitespace to single spaces and marks cuts with `...`.
#[cfg(test)]
pub(crate) fn make_excerpt(text: &str, pos: usize) -> String {
    make_excerpt_from(text, pos, 0, false)
}

/// Like [`make_excerpt`], but the window never starts before byte `floor` (the end of the
/// frontmatter, when the match lies after it); no `...` is shown for that boundary.
///
/// For `markdown` text the comments Obsidian hides are left out ([`super::comments`]) and the
/// characters counted are the shown ones. They are looked for in [`COMMENT_CONTEXT`] bytes
/// around the match (from `floor` at the most): a comment that opened before that reach is
/// not seen. `...` marks a cut only where shown text was cut (or text beyond that reach).
/// Only the excerpt changes: the match's offset, and so its line, are the text's own.
pub(crate) fn make_excerpt_from(text: &str, pos: usize, floor: usize, markdown: bool) -> String {
    let pos = floor_char_boundary(text, pos.min(text.len()));
    let floor = if floor <= pos {
        floor_char_boundary(text, floor)
    } else {
        0
    };
    if markdown {
        let from = ceil_char_boundary(text, pos.saturating_sub(COMMENT_CONTEXT)).max(floor);
        let to = floor_char_boundary(text, pos.saturating_add(COMMENT_CONTEXT));
        let hidden = super::comments::hidden(text, from, to, false);
        if !hidden.is_empty() {
            return excerpt_around(text, pos, floor, (from, to), &hidden);
        }
    }
    let start = text[floor..pos]
        .char_indices()
        .rev()
        .nth(BEFORE - 1)
        .map_or(floor, |(i, _)| floor + i);
    let end = text[pos..]
        .char_indices()
        .nth(AFTER)
        .map_or(text.len(), |(i, _)| pos + i);
    let mut out = String::with_capacity(end - start + 6);
    if start > floor {
        out.push_str("...");
    }
    push_flattened(&mut out, &text[start..end]);
    if end < text.len() {
        out.push_str("...");
    }
    out
}

/// [`make_excerpt_from`] on text with `hidden` ranges within the context `(from, to)`: the
/// window counts shown characters only, and leaves the hidden ones out.
fn excerpt_around(
    text: &str,
    pos: usize,
    floor: usize,
    (from, to): (usize, usize),
    hidden: &[(usize, usize)],
) -> String {
    let shown = |i: usize| !hidden.iter().any(|&(a, z)| a <= i && i < z);
    let mut before = text[from..pos]
        .char_indices()
        .rev()
        .filter(|&(i, _)| shown(from + i));
    let start = before.nth(BEFORE - 1).map_or(from, |(i, _)| from + i);
    // Shown text left out before the window, or text beyond the context.
    let cut_before = start > floor && (from > floor || (from..start).any(shown));
    let mut after = text[pos..to]
        .char_indices()
        .filter(|&(i, _)| shown(pos + i));
    let end = after.nth(AFTER).map_or(to, |(i, _)| pos + i);
    let cut_after = end < text.len() && (to < text.len() || (end..to).any(shown));
    let mut kept = String::with_capacity(end - start);
    let mut at = start;
    for &(a, z) in hidden {
        if z > at && a < end {
            kept.push_str(&text[at..a.max(at)]);
            at = z.min(end);
        }
    }
    kept.push_str(&text[at..end]);
    let mut out = String::with_capacity(kept.len() + 6);
    if cut_before {
        out.push_str("...");
    }
    push_flattened(&mut out, &kept);
    if cut_after {
        out.push_str("...");
    }
    out
}

/// Appends `s` with every run of whitespace (and control characters) turned into one space and
/// the ends trimmed.
fn push_flattened(out: &mut String, s: &str) {
    let mut pending_space = false;
    let base = out.len();
    for c in s.chars() {
        if c.is_whitespace() || c.is_control() {
            pending_space = out.len() > base;
        } else {
            if pending_space {
                out.push(' ');
                pending_space = false;
            }
            out.push(c);
        }
    }
}

/// Flattens whitespace of arbitrary text into one trimmed line.
pub(crate) fn flatten(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    push_flattened(&mut out, s);
    out
}

/// The largest char boundary `<= i`.
pub(crate) fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The smallest char boundary `>= i`.
fn ceil_char_boundary(s: &str, mut i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// 1-based line number of byte offset `pos` (`\n`, `\r\n` and lone `\r` all end a line).
pub(crate) fn line_of(text: &str, pos: usize) -> u64 {
    let mut lines = Lines::default();
    lines.advance(text, pos)
}

/// The line numbers of offsets taken in increasing order, each counted from the last one's
/// instead of from the start: numbering every match of a long note costs one pass, not one
/// per match.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Lines {
    at: usize,
    line: u64,
    prev_cr: bool,
}

impl Default for Lines {
    fn default() -> Lines {
        Lines {
            at: 0,
            line: 1,
            prev_cr: false,
        }
    }
}

impl Lines {
    /// The 1-based line of byte offset `pos` of `text` (the same text on every call); an offset
    /// before the last one gets the last one's line.
    pub(crate) fn advance(&mut self, text: &str, pos: usize) -> u64 {
        let end = pos.min(text.len());
        if end > self.at {
            for &b in &text.as_bytes()[self.at..end] {
                match b {
                    b'\n' if self.prev_cr => self.prev_cr = false,
                    b'\n' => self.line += 1,
                    b'\r' => {
                        self.line += 1;
                        self.prev_cr = true;
                    }
                    _ => self.prev_cr = false,
                }
            }
            self.at = end;
        }
        self.line
    }
}

/// Converts an offset in UTF-16 code units (what JavaScript's string indices count) to a byte
/// offset of the same text; `None` when it lies past the end.
pub(crate) fn utf16_to_byte_offset(text: &str, units: usize) -> Option<usize> {
    let mut seen = 0usize;
    for (i, c) in text.char_indices() {
        if seen >= units {
            return Some(i);
        }
        seen += c.len_utf16();
    }
    (seen >= units).then_some(text.len())
}

/// Turns Omnisearch's HTML-escaped excerpt into plain text: `<br>` and other tags become blanks,
/// entities are unescaped, whitespace collapses to one line. For `markdown` text the comments
/// are left out too ([`super::comments`]); the plugin cut the excerpt out of the note, so a
/// `-->` before any `<!--` ends a comment that began before it.
pub(crate) fn clean_html_excerpt(html: &str, markdown: bool) -> String {
    let mut stripped = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(lt) = rest.find('<') {
        stripped.push_str(&rest[..lt]);
        match rest[lt..].find('>') {
            Some(gt) => {
                // A line break, so a fence's line is still a line start for the comments.
                stripped.push('\n');
                rest = &rest[lt + gt + 1..];
            }
            None => {
                stripped.push_str(&rest[lt..]);
                rest = "";
            }
        }
    }
    stripped.push_str(rest);
    let text = unescape_entities(&stripped);
    if !markdown {
        return flatten(&text);
    }
    flatten(&super::comments::strip(&text, true))
}

/// Unescapes the entities an HTML escaper produces: the five named ones, `&nbsp;`, `&apos;` and
/// numeric references. Unknown or malformed references are kept verbatim.
pub(crate) fn unescape_entities(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let tail = &rest[amp..];
        let decoded = tail
            .get(1..tail.len().min(12))
            .and_then(|t| t.find(';').map(|semi| (&t[..semi], semi + 2)))
            .and_then(|(name, len)| decode_entity(name).map(|c| (c, len)));
        match decoded {
            Some((c, len)) => {
                out.push(c);
                rest = &tail[len..];
            }
            None => {
                out.push('&');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn decode_entity(name: &str) -> Option<char> {
    match name {
        "amp" => Some('&'),
        "lt" => Some('<'),
        "gt" => Some('>'),
        "quot" => Some('"'),
        "apos" => Some('\''),
        "nbsp" => Some(' '),
        _ => {
            let num = name.strip_prefix('#')?;
            let code = match num.strip_prefix(['x', 'X']) {
                Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                None => num.parse::<u32>().ok()?,
            };
            char::from_u32(code).filter(|c| *c != '\0')
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The line of `pos` counted from the text's line ends, each `\r\n` one end.
    fn counted_line(text: &str, pos: usize) -> u64 {
        let head = text[..pos].replace("\r\n", "\n").replace('\r', "\n");
        head.matches('\n').count() as u64 + 1
    }

    #[test]
    fn lines_numbered_forward_match_lines_counted_from_the_start() {
        let text = "a\nb\r\nc\rd\n\n\r\r\ne\r\n";
        let mut lines = Lines::default();
        for pos in 0..=text.len() {
            assert_eq!(
                lines.advance(text, pos),
                counted_line(text, pos),
                "at {pos}"
            );
            assert_eq!(line_of(text, pos), counted_line(text, pos), "at {pos}");
        }
        // Taking every other offset crosses `\r\n` pairs in one step and lands between them.
        let mut lines = Lines::default();
        for pos in (1..=text.len()).step_by(2) {
            assert_eq!(
                lines.advance(text, pos),
                counted_line(text, pos),
                "at {pos}"
            );
        }
        assert_eq!(lines.advance(text, 0), counted_line(text, text.len()));
    }

    #[test]
    fn cleans_omnisearch_html() {
        let h = "# Debug&lt;br>**Project:** `x &amp;&amp; y` &quot;q&quot; &#039;s&#039;<br>next  line…";
        assert_eq!(
            clean_html_excerpt(h, true),
            "# Debug<br>**Project:** `x && y` \"q\" 's' next line…"
        );
        assert_eq!(
            clean_html_excerpt("a<br>b<span class=\"x\">c</span>", true),
            "a b c"
        );
        assert_eq!(
            clean_html_excerpt("a & b &bogus; &#x41;", true),
            "a & b &bogus; A"
        );
    }

    #[test]
    fn omnisearch_excerpts_lose_their_comments() {
        // As `mcp` cleaned them before: the same answers, now for every front-end.
        let clean = |s: &str| clean_html_excerpt(s, true);
        assert_eq!(clean("a &lt;!-- hidden --&gt; b"), "a b");
        assert_eq!(clean("a %% note to self %% b<br> c"), "a b c");
        assert_eq!(clean("tail of it --&gt; shown &lt;!-- cut"), "shown");
        assert_eq!(clean("x -&gt; y"), "x -> y");
        // A PDF's text has no Markdown comments.
        assert_eq!(
            clean_html_excerpt("50%% off %% now", false),
            "50%% off %% now"
        );
        // In code the marks are text.
        assert_eq!(
            clean("`%%` a<br>```<br>%% b<br>```<br>c %%d%%"),
            "`%%` a ``` %% b ``` c"
        );
    }

    #[test]
    fn local_excerpts_lose_their_comments() {
        let text = "# T\nkeep <!-- secret -->this %%and that%% MATCH here `%%` ok";
        let pos = text.find("MATCH").unwrap();
        assert_eq!(
            make_excerpt_from(text, pos, 0, true),
            "# T keep this MATCH here `%%` ok"
        );
        assert!(make_excerpt_from(text, pos, 0, false).contains("secret"));
        // The window counts shown characters: a long comment before the match takes none.
        let long = format!("{}<!-- {} -->MATCH", "a".repeat(100), "c".repeat(500));
        let e = make_excerpt_from(&long, long.find("MATCH").unwrap(), 0, true);
        assert_eq!(e, format!("...{}MATCH", "a".repeat(BEFORE)));
        // A comment open at the window's start or end: cut to its edge, no `...` for it.
        let open = format!("%% {} %% MATCH %% {}", "c".repeat(300), "d".repeat(300));
        assert_eq!(
            make_excerpt_from(&open, open.find("MATCH").unwrap(), 0, true),
            "MATCH"
        );
        // Without comments, the excerpt is what it always was.
        let plain = format!("{}MATCH{}", "a".repeat(1000), "b".repeat(1000));
        let at = plain.find("MATCH").unwrap();
        assert_eq!(
            make_excerpt_from(&plain, at, 0, true),
            make_excerpt(&plain, at)
        );
    }

    #[test]
    fn a_window_holding_the_context_gives_the_whole_texts_excerpt() {
        // As a giant note's hit is shown from a window of its file.
        let text = format!(
            "{}<!-- {} -->{}MATCH %% x %% {}",
            "w ".repeat(400),
            "c ".repeat(300),
            "v ".repeat(20),
            "z ".repeat(600)
        );
        let pos = text.find("MATCH").unwrap();
        let whole = make_excerpt_from(&text, pos, 0, true);
        assert!(
            whole.contains("w w v v") && whole.contains("v MATCH z"),
            "{whole}"
        );
        for w in [pos - COMMENT_CONTEXT - 3, pos - COMMENT_CONTEXT] {
            let window = &text[w..pos + COMMENT_CONTEXT + 4];
            assert_eq!(make_excerpt_from(window, pos - w, 0, true), whole);
        }
    }

    #[test]
    fn excerpt_window_and_ellipses() {
        let text = format!("{}MATCH{}", "a".repeat(100), "b".repeat(200));
        let e = make_excerpt(&text, 100);
        assert!(e.starts_with("...") && e.ends_with("..."));
        assert_eq!(e.chars().count(), 3 + 70 + 130 + 3);
        assert_eq!(make_excerpt("short\n\ntext", 0), "short text");
    }

    #[test]
    fn excerpt_window_stops_at_the_floor() {
        let text = "---\ntags: x\n---\n# Title here";
        let floor = text.find('#').unwrap();
        assert_eq!(
            make_excerpt_from(text, floor + 2, floor, true),
            "# Title here"
        );
        assert!(make_excerpt_from(text, 4, floor, true).starts_with("--- tags"));
    }

    #[test]
    fn excerpt_never_splits_utf8() {
        let text = "é".repeat(300);
        let e = make_excerpt(&text, 301); // inside a char
        assert!(e.contains('é'));
    }

    #[test]
    fn utf16_offsets() {
        let t = "😀 日本 x";
        // 😀 is 2 UTF-16 units, then space, 日, 本, space, x
        assert_eq!(utf16_to_byte_offset(t, 0), Some(0));
        assert_eq!(utf16_to_byte_offset(t, 2), Some(4));
        assert_eq!(utf16_to_byte_offset(t, 6), Some(t.len() - 1));
        assert_eq!(utf16_to_byte_offset(t, 99), None);
    }

    #[test]
    fn lines() {
        assert_eq!(line_of("a\nb\r\nc\rd", 0), 1);
        assert_eq!(line_of("a\nb\r\nc\rd", 2), 2);
        assert_eq!(line_of("a\nb\r\nc\rd", 5), 3);
        assert_eq!(line_of("a\nb\r\nc\rd", 7), 4);
    }
}
