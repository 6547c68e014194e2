//! The links a note makes, as Obsidian reads them: wikilinks and embeds (`[[target#sub|text]]`,
//! `![[…]]`), Markdown links to vault files (`[text](Some%20Note.md)`, `<…>` destinations),
//! and wikilinks in frontmatter properties (`related: "[[X]]"`).
//!
//! It runs in the indexing pass over every note, so it is one cheap scan: a note with no `[`
//! costs one `memchr`, and only lines holding a `[` are looked at closely. Nothing inside
//! code blocks as CommonMark reads them (fenced or indented, in callouts and list items too:
//! see [`super::blocks`]), inline code, `%% … %%` or `<!-- … -->` comments is a link; a destination with
//! a scheme (`https:`, `mailto:`, `obsidian:`) is not a vault link.
//!
//! What a link points to is decided later, at query time (see `crate::local::links`): here a
//! link is only what the note wrote.

use super::blocks::Blocks;
use super::destination::Destinations;
use super::scan::{self, CodeRuns};

/// One link as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Link {
    /// The target as written (a Markdown destination percent-decoded), without its subpath;
    /// empty for a link inside the same note (`[[#Heading]]`).
    pub target: String,
    /// After `#`: a heading (`Heading`, nested `A#B`) or a block (`^id`); empty for none.
    pub subpath: String,
    /// The text shown instead of the target (`[[t|text]]`, `[text](t)`), empty for none.
    pub text: String,
    /// 1-based line in the note.
    pub line: u32,
    /// `![[…]]`, `![…](…)`, or a canvas's file card.
    pub embed: bool,
}

/// At most this many links are kept per note (a generated note may hold a million).
pub(crate) const MAX_LINKS: usize = 20_000;

/// Every link of a Markdown note, in order. `body_start` is where the frontmatter ends (see
/// [`super::note::NoteMeta::body_start`]): wikilinks above it are property links.
pub(crate) fn parse(text: &str, body_start: usize) -> Vec<Link> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let Some(first) = memchr::memchr(b'[', bytes) else {
        return out;
    };
    let body_start = body_start.min(text.len());
    if first < body_start {
        frontmatter_links(&text[..body_start], &mut out);
    }
    body_links(text, body_start, &mut out);
    out.truncate(MAX_LINKS);
    out
}

/// Wikilinks in property values that YAML reads as text (see [`super::property_links`]):
/// Obsidian links nothing else there.
fn frontmatter_links(fm: &str, out: &mut Vec<Link>) {
    for (i, line) in fm.split('\n').enumerate() {
        if line.contains("[[") {
            let line = line.trim_end_matches('\r');
            let text = super::property_links::text_ranges(line);
            wikilinks(line, &text, i as u32 + 1, out);
        }
    }
}

/// Multi-line state of the body scan.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Open {
    Nothing,
    /// Inside `%% … %%`.
    Percent,
    /// Inside `<!-- … -->`.
    Html,
}

fn body_links(text: &str, body_start: usize, out: &mut Vec<Link>) {
    let bytes = text.as_bytes();
    let mut line_no = 1 + memchr::memchr_iter(b'\n', &bytes[..body_start]).count() as u32;
    let mut state = Open::Nothing;
    let mut blocks = Blocks::default();
    // The line ends, the `[`s and the comment markers (`%`, `<`) are each found by one SIMD
    // pass over the body and read in step with the lines: a line holding none of them costs
    // a few comparisons (most lines; a per-line search cost more than the rest of the parse).
    let body = &bytes[body_start..];
    let mut ends = memchr::memchr_iter(b'\n', body);
    let mut brackets = memchr::memchr_iter(b'[', body).peekable();
    let mut markers = memchr::memchr2_iter(b'%', b'<', body).peekable();
    let mut from = 0;
    // Reused for every line: the live (outside comments and code) byte ranges.
    let mut live: Vec<(usize, usize)> = Vec::new();
    while from < body.len() && out.len() < MAX_LINKS {
        let end = ends.next().map_or(body.len(), |i| i + 1);
        let (start, this_line) = (from, line_no);
        from = end;
        line_no += 1;
        let lb = &body[start..end];
        if state == Open::Nothing {
            let mut bare = lb.strip_suffix(b"\n").unwrap_or(lb);
            bare = bare.strip_suffix(b"\r").unwrap_or(bare);
            if blocks.is_code(bare) {
                continue;
            }
        }
        let has_bracket = holds(&mut brackets, start, end);
        let has_marker = holds(&mut markers, start, end)
            || (state != Open::Nothing && memchr::memchr(b'-', lb).is_some());
        // Most lines: no link, no comment marker to follow.
        if !has_marker && (!has_bracket || state != Open::Nothing) {
            continue;
        }
        let line = text[body_start + start..body_start + end].trim_end_matches(['\n', '\r']);
        live.clear();
        state = live_ranges(line, state, &mut live);
        if has_bracket && !live.is_empty() {
            wikilinks(line, &live, this_line, out);
            markdown_links(line, &live, this_line, out);
        }
        scan::end_line(line.len());
    }
}

/// Whether the next of `marks` (positions in order) at or after `start` is before `end`;
/// those before `start` are passed over.
fn holds(
    marks: &mut std::iter::Peekable<impl Iterator<Item = usize>>,
    start: usize,
    end: usize,
) -> bool {
    while marks.next_if(|&i| i < start).is_some() {}
    marks.peek().is_some_and(|&i| i < end)
}

/// The ranges of `line` outside comments and inline code, given the state the line opens in;
/// the state the next line opens in.
fn live_ranges(line: &str, mut state: Open, live: &mut Vec<(usize, usize)>) -> Open {
    let b = line.as_bytes();
    let mut i = 0;
    let mut start = 0;
    // The line's backtick runs, listed at its first run outside a comment.
    let mut code: Option<CodeRuns> = None;
    while i < b.len() {
        match state {
            Open::Percent => match line[i..].find("%%") {
                Some(j) => {
                    i += j + 2;
                    start = i;
                    state = Open::Nothing;
                }
                None => return state,
            },
            Open::Html => match line[i..].find("-->") {
                Some(j) => {
                    i += j + 3;
                    start = i;
                    state = Open::Nothing;
                }
                None => return state,
            },
            _ => match b[i] {
                b'`' => {
                    let runs = code.get_or_insert_with(|| CodeRuns::new(b, i, b.len()));
                    match runs.close(i) {
                        Some(close) => {
                            if i > start {
                                live.push((start, i));
                            }
                            i = close;
                            start = i;
                        }
                        None => i += b[i..].iter().take_while(|&&c| c == b'`').count(),
                    }
                }
                b'%' if b.get(i + 1) == Some(&b'%') => {
                    if i > start {
                        live.push((start, i));
                    }
                    i += 2;
                    state = Open::Percent;
                }
                b'<' if line[i..].starts_with("<!--") => {
                    if i > start {
                        live.push((start, i));
                    }
                    i += 4;
                    state = Open::Html;
                }
                _ => i += 1,
            },
        }
    }
    if matches!(state, Open::Nothing) && start < b.len() {
        live.push((start, b.len()));
    }
    state
}

/// `[[…]]` and `![[…]]` inside the live ranges of a line.
fn wikilinks(line: &str, live: &[(usize, usize)], line_no: u32, out: &mut Vec<Link>) {
    for &(from, to) in live {
        let seg = &line[from..to];
        let mut at = 0;
        while let Some(j) = seg[at..].find("[[") {
            let open = at + j;
            let Some(k) = seg[open + 2..].find("]]") else {
                break;
            };
            let inner = &seg[open + 2..open + 2 + k];
            at = open + 2 + k + 2;
            let embed = open > 0 && seg.as_bytes()[open - 1] == b'!';
            if let Some(link) = wikilink(inner, line_no, embed) {
                out.push(link);
            }
        }
    }
}

/// The inside of `[[…]]`: `target#subpath|text`. A `\|` (the pipe escaped in a table) is the
/// same pipe.
fn wikilink(inner: &str, line: u32, embed: bool) -> Option<Link> {
    let (dest, text) = match inner.find('|') {
        Some(p) => (inner[..p].trim_end_matches('\\'), inner[p + 1..].trim()),
        None => (inner, ""),
    };
    let (target, subpath) = split_subpath(dest.trim());
    if target.is_empty() && subpath.is_empty() || target.contains('[') {
        return None;
    }
    Some(Link {
        target: target.to_string(),
        subpath: subpath.to_string(),
        text: text.to_string(),
        line,
        embed,
    })
}

/// `target#subpath` → (`target`, `subpath`), both trimmed.
fn split_subpath(dest: &str) -> (&str, &str) {
    match dest.find('#') {
        Some(h) => (dest[..h].trim(), dest[h + 1..].trim()),
        None => (dest, ""),
    }
}

/// `[text](dest)` and `![alt](dest)` inside the live ranges of a line, when `dest` is no URL.
fn markdown_links(line: &str, live: &[(usize, usize)], line_no: u32, out: &mut Vec<Link>) {
    for &(from, to) in live {
        let seg = &line[from..to];
        let b = seg.as_bytes();
        let mut at = 0;
        // The first `]` after the last `[` looked at: the first after any `[` before it too,
        // so a line of `[`s and one `]` is scanned once, not once per `[`.
        let mut next_close = 0;
        let last_paren = memchr::memrchr(b')', b);
        let mut destinations = Destinations::new(seg);
        while let Some(j) = memchr::memchr(b'[', &b[at..]) {
            let open = at + j;
            at = open + 1;
            if b.get(open + 1) == Some(&b'[') {
                // A wikilink: skip past it.
                at = seg[open..].find("]]").map_or(b.len(), |k| open + k + 2);
                continue;
            }
            if next_close <= open {
                match memchr::memchr(b']', &b[open + 1..]) {
                    Some(k) => next_close = open + 1 + k,
                    None => break,
                }
            }
            let close = next_close;
            if b.get(close + 1) != Some(&b'(') {
                continue;
            }
            if last_paren.is_none_or(|p| p < close + 2) {
                // No `)` left on the line: no destination can end.
                break;
            }
            let Some((dest, end)) = destinations.at(close + 2) else {
                continue;
            };
            at = end;
            let embed = open > 0 && b[open - 1] == b'!';
            if let Some(link) = markdown_link(&seg[open + 1..close], dest, line_no, embed) {
                out.push(link);
            }
        }
    }
}

fn markdown_link(text: &str, dest: &str, line: u32, embed: bool) -> Option<Link> {
    let dest = dest.trim();
    // A URL, or one pasted inside the brackets (`[a]([b](https://…))`, a common import
    // artefact): not a vault file.
    if dest.is_empty() || has_scheme(dest) || dest.contains("://") {
        return None;
    }
    let decoded = percent_decode(dest);
    let (target, subpath) = split_subpath(&decoded);
    if target.is_empty() && subpath.is_empty() {
        return None;
    }
    Some(Link {
        target: target.to_string(),
        subpath: subpath.to_string(),
        text: text.trim().to_string(),
        line,
        embed,
    })
}

/// `scheme:` as RFC 3986 spells it (`https:`, `mailto:`, `obsidian:`, `file:`): a URL, not a
/// vault path. A Windows drive (`C:`) is one letter, so it counts too — it is not in the vault.
pub(crate) fn has_scheme(dest: &str) -> bool {
    let Some(colon) = dest.find(':') else {
        return false;
    };
    let scheme = &dest[..colon];
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// `%20` and the other escapes as UTF-8; a malformed escape stays as written.
pub(crate) fn percent_decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_string();
    }
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = |c: u8| (c as char).to_digit(16);
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The links of a canvas's file cards (`file` plus its `subpath`) and link cards (a `url`
/// that is a vault path, not a URL), each on the line of its card in the canvas's text (see
/// [`super::canvas::to_markdown_with_cards`]). A file card shows its file, as an embed does.
pub(crate) fn canvas_links(cards: &[super::canvas::Card]) -> Vec<Link> {
    let mut out = Vec::new();
    for c in cards.iter().take(MAX_LINKS) {
        if c.file {
            let (target, subpath) = split_subpath(&c.target);
            let sub = c.subpath.trim_start_matches('#');
            if !target.is_empty() {
                out.push(Link {
                    target: target.to_string(),
                    subpath: if sub.is_empty() { subpath } else { sub }.to_string(),
                    text: String::new(),
                    line: c.line,
                    embed: true,
                });
            }
        } else if let Some(link) = markdown_link("", &c.target, c.line, false) {
            out.push(link);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn links(text: &str) -> Vec<Link> {
        parse(text, super::super::note::parse(text).body_start)
    }

    fn targets(text: &str) -> Vec<(String, String, String, u32, bool)> {
        links(text)
            .into_iter()
            .map(|l| (l.target, l.subpath, l.text, l.line, l.embed))
            .collect()
    }

    fn t(
        target: &str,
        sub: &str,
        text: &str,
        line: u32,
        embed: bool,
    ) -> (String, String, String, u32, bool) {
        (target.into(), sub.into(), text.into(), line, embed)
    }

    #[test]
    fn every_wikilink_form() {
        let text = "See [[Alpha]] and [[Beta|the beta]].\n[[Gamma#Setup]] [[Delta#^b1]] [[#Local]]\n![[pic.png]] ![[Epsilon#Part|shown]]\n| a | [[Zeta\\|z]] |\n";
        assert_eq!(
            targets(text),
            [
                t("Alpha", "", "", 1, false),
                t("Beta", "", "the beta", 1, false),
                t("Gamma", "Setup", "", 2, false),
                t("Delta", "^b1", "", 2, false),
                t("", "Local", "", 2, false),
                t("pic.png", "", "", 3, true),
                t("Epsilon", "Part", "shown", 3, true),
                t("Zeta", "", "z", 4, false),
            ]
        );
        assert!(links("[[]] [[ ]] [[#]]").is_empty());
    }

    #[test]
    fn markdown_links_to_vault_files_only() {
        let text = "[one](Some%20Note.md) [two](<Other Note.md>) ![img](assets/a%20b.png \"title\")\n\
                    [web](https://example.org/x.md) [mail](mailto:a@b.c) [obs](obsidian://open?x)\n\
                    [rel](../up/Note.md#Head) [same](#Here) [paren](Note_(draft).md) [empty]() [no] link\n\
                    [t1](A.md 'x') [t2](B.md (y)) [bad](C.md words) [n]([x](https://x.org)) [m]([https://x.org)\n";
        assert_eq!(
            targets(text),
            [
                t("Some Note.md", "", "one", 1, false),
                t("Other Note.md", "", "two", 1, false),
                t("assets/a b.png", "", "img", 1, true),
                t("../up/Note.md", "Head", "rel", 3, false),
                t("", "Here", "same", 3, false),
                t("Note_(draft).md", "", "paren", 3, false),
                t("A.md", "", "t1", 4, false),
                t("B.md", "", "t2", 4, false),
            ]
        );
    }

    #[test]
    fn code_and_comments_hold_no_links() {
        let text = "a `[[InCode]]` b ``[[x]] ` y`` [[Live1]]\n```\n[[Fenced]]\n```\n~~~md\n[x](Fenced.md)\n~~~\n\
                    %% [[Hidden]] %% [[Live2]] %% open\n[[StillHidden]]\nclose %% [[Live3]]\n\
                    <!-- [[Html]] --> [[Live4]] <!--\n[[HtmlHidden]]\n--> [t](Live5.md)\n";
        let names: Vec<String> = links(text).into_iter().map(|l| l.target).collect();
        assert_eq!(names, ["Live1", "Live2", "Live3", "Live4", "Live5.md"]);
        let lines: Vec<u32> = links(text).into_iter().map(|l| l.line).collect();
        assert_eq!(lines, [1, 8, 10, 11, 13]);
    }

    #[test]
    fn frontmatter_property_links() {
        let text = "---\nrelated: \"[[Alpha]]\"\nsee:\n  - \"[[Beta|b]]\"\n  - \"[[Gamma#H]]\"\nurl: [x](y.md)\n---\nbody [[Delta]]\n";
        assert_eq!(
            targets(text),
            [
                t("Alpha", "", "", 2, false),
                t("Beta", "", "b", 4, false),
                t("Gamma", "H", "", 5, false),
                t("Delta", "", "", 8, false),
            ]
        );
    }

    #[test]
    fn crlf_and_unclosed_forms() {
        let text = "x [[A]]\r\n[[unclosed\r\n[t](B.md\r\n`[[C]]\r\n";
        // An unclosed backtick is literal text, so C is a link.
        assert_eq!(
            targets(text),
            [t("A", "", "", 1, false), t("C", "", "", 4, false)]
        );
    }

    #[test]
    fn canvas_file_and_link_cards() {
        let json = r##"{"nodes":[
            {"id":"t","type":"text","text":"card [[Alpha]]","x":0,"y":0,"width":10,"height":10},
            {"id":"f","type":"file","file":"Notes/Beta.md","subpath":"#Part","x":0,"y":20,"width":10,"height":10},
            {"id":"u","type":"link","url":"https://example.org","x":0,"y":40,"width":10,"height":10},
            {"id":"v","type":"link","url":"Docs/Gamma%20G.md","x":0,"y":60,"width":10,"height":10}]}"##;
        let (md, cards) = super::super::canvas::to_markdown_with_cards(json).unwrap();
        let mut all = links(&md);
        all.extend(canvas_links(&cards));
        let got: Vec<_> = all
            .into_iter()
            .map(|l| (l.target, l.subpath, l.text, l.line, l.embed))
            .collect();
        assert_eq!(
            got,
            [
                t("Alpha", "", "", 1, false),
                t("Notes/Beta.md", "Part", "", 3, true),
                t("Docs/Gamma G.md", "", "", 7, false),
            ]
        );
    }

    #[test]
    fn adversarial_lines_cost_one_pass() {
        // Quadratic scanning would take minutes on these; they hold one link each.
        let n = 200_000;
        for line in [
            format!("{}] [[x]]", "[a".repeat(n)),
            format!("{} [[x]]", "[a](b ".repeat(n)),
            format!("[[x]] {}", "[[a ".repeat(n)),
            format!("[[x]] {}", "%% <!-- ".repeat(n)),
        ] {
            let got = links(&line);
            assert_eq!(got.len(), 1, "{}", &line[..40]);
            assert_eq!(got[0].target, "x");
        }
    }

    /// The live ranges as read before [`CodeRuns`] (the code then): from each opening run,
    /// a search of the rest of the line for a run of its length.
    fn live_by_rescanning(line: &str, mut state: Open, live: &mut Vec<(usize, usize)>) -> Open {
        let b = line.as_bytes();
        let mut i = 0;
        let mut start = 0;
        while i < b.len() {
            match state {
                Open::Percent => match line[i..].find("%%") {
                    Some(j) => {
                        i += j + 2;
                        start = i;
                        state = Open::Nothing;
                    }
                    None => return state,
                },
                Open::Html => match line[i..].find("-->") {
                    Some(j) => {
                        i += j + 3;
                        start = i;
                        state = Open::Nothing;
                    }
                    None => return state,
                },
                _ => match b[i] {
                    b'`' => {
                        let run = b[i..].iter().take_while(|&&c| c == b'`').count();
                        match closing_run(b, i + run, run) {
                            Some(close) => {
                                if i > start {
                                    live.push((start, i));
                                }
                                i = close;
                                start = i;
                            }
                            None => i += run,
                        }
                    }
                    b'%' if b.get(i + 1) == Some(&b'%') => {
                        if i > start {
                            live.push((start, i));
                        }
                        i += 2;
                        state = Open::Percent;
                    }
                    b'<' if line[i..].starts_with("<!--") => {
                        if i > start {
                            live.push((start, i));
                        }
                        i += 4;
                        state = Open::Html;
                    }
                    _ => i += 1,
                },
            }
        }
        if matches!(state, Open::Nothing) && start < b.len() {
            live.push((start, b.len()));
        }
        state
    }

    /// The end of the backtick run of length `run` that closes an inline code span opened before
    /// `from`.
    fn closing_run(b: &[u8], mut from: usize, run: usize) -> Option<usize> {
        while from < b.len() {
            if b[from] == b'`' {
                let n = b[from..].iter().take_while(|&&c| c == b'`').count();
                if n == run {
                    return Some(from + n);
                }
                from += n;
            } else {
                from += 1;
            }
        }
        None
    }

    #[test]
    fn the_same_live_ranges_as_rescanning_the_line() {
        for line in super::super::scan::tests::lines(b"``%<!-> x", 3000, 60) {
            for state in [Open::Nothing, Open::Percent, Open::Html] {
                let (mut live, mut want) = (Vec::new(), Vec::new());
                let next = live_ranges(&line, state, &mut live);
                assert!(next == live_by_rescanning(&line, state, &mut want));
                assert_eq!(live, want, "{line:?}");
            }
        }
    }

    #[test]
    fn runs_of_every_length_cost_one_pass() {
        // Runs of lengths 2…2000, none closed: reading each as a code span's opening would
        // search the rest of the line 2000 times.
        let runs: String = (2..=2000).map(|n| "`".repeat(n) + " ").collect();
        let line = format!("{runs}[[x]] [t](y.md) `a` [[z]]");
        super::super::scan::take_looked();
        let got: Vec<_> = links(&line).into_iter().map(|l| l.target).collect();
        assert_eq!(got, ["x", "z", "y.md"]);
        assert!(super::super::scan::take_looked() <= 2 * line.len());
    }

    #[test]
    fn percent_decoding_and_schemes() {
        assert_eq!(percent_decode("a%20b%C3%A9%zz%2"), "a bé%zz%2");
        assert!(has_scheme("https://x") && has_scheme("C:/x") && has_scheme("obsidian://x"));
        assert!(!has_scheme("Note.md") && !has_scheme("a/b:c.md") && !has_scheme(":x"));
    }
}
