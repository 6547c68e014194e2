//! Local hits in the Omnisearch plugin's reply shape, so any Omnisearch client (ours included)
//! works while Obsidian is closed.
//!
//! The shape is [`crate::omnisearch::wire`]'s, the one our client parses: a JSON array of
//! `{score, vault, path, basename, foundWords, matches: [{match, offset}], excerpt}`, filled as
//! the plugin fills it. `foundWords` is the matched words, then the query's exact phrases and
//! `#tags` ([`super::omniquery`]). `matches` lists every match in the order of the text (a
//! phrase or tag is one match, as the plugin's regex scan finds it), except that a query found
//! verbatim at a match comes first. `offset` counts UTF-16 code units of the note's text, as
//! JavaScript string indices do. The excerpt is cut the plugin's way — 100 units before the
//! match to 300 after, `…` at the cuts, empty lines dropped, from the line holding the match —
//! then HTML-escaped with `<br>` for each line break; it is built around the match the local
//! engine chose its passage by, so it shows the passage that ranked the note.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};
use std::path::Path;

use tantivy::tokenizer::TokenStream;

use super::notes::{Note, Notes};
use super::omniquery::OmniQuery;
use crate::local::analyzer;
use crate::omnisearch::is_safe_relative;
use crate::omnisearch::wire::{OmniMatch, OmniResult};
use crate::paths;
use crate::text::excerpt;
use crate::SearchHit;

/// The plugin reports at most this many matches per note.
const MAX_MATCHES: usize = 99;
/// The plugin's excerpt window around its match, in UTF-16 units.
const EXCERPT_BEFORE: usize = 100;
const EXCERPT_AFTER: usize = 300;

/// Converts local hits for the query `q`; a hit whose path would leave the vault is dropped.
/// The hit notes are read through `notes`. The flag says whether every hit's note was read,
/// and read as its file stands: only such an answer is the commit's to keep (a note missing
/// or torn by a save in progress is read again next time).
pub(crate) fn convert(
    vault: &Path,
    q: &str,
    hits: Vec<SearchHit>,
    notes: &Notes,
) -> (Vec<OmniResult>, bool) {
    let vault_name = vault
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let root = paths::real_root(vault).ok();
    let query = OmniQuery::parse(q);
    let mut analyzer = analyzer::text_analyzer();
    let mut whole = true;
    let results = hits
        .into_iter()
        .filter(|h| is_safe_relative(&h.path))
        .map(|h| {
            let read = root
                .as_deref()
                .and_then(|r| notes.get(r, &h.path, &mut analyzer));
            whole &= read.as_ref().is_some_and(|(_, settled)| *settled);
            let note = read.map(|(n, _)| n);
            let found = note
                .as_deref()
                .map(|n| {
                    let words = (h.matched.as_slice(), h.highlight.as_slice());
                    matches_in(&mut analyzer, n, words, h.line, &query)
                })
                .unwrap_or_default();
            let text = note.as_deref().map(|n| n.text.as_str());
            let excerpt = match text {
                Some(t) if h.kind.text_is_file() => plugin_excerpt(t, found.anchor),
                // A PDF's or canvas's file is not the text the engine read: its passage.
                _ => escape_html(&ellipsis(&h.excerpt)),
            };
            let mut found_words = h.matched;
            for w in query.phrases.iter().chain(&query.tags) {
                if !found_words.contains(w) {
                    found_words.push(w.clone());
                }
            }
            OmniResult {
                score: h.score,
                vault: vault_name.clone(),
                basename: Some(h.basename),
                found_words,
                matches: found.matches,
                excerpt,
                path: h.path,
            }
        })
        .collect();
    (results, whole)
}

/// A note's matches, and where the one its excerpt is built around is: its byte offset and its
/// offset in UTF-16 units (counted once, with the matches').
#[derive(Debug, Default)]
struct Found {
    matches: Vec<OmniMatch>,
    anchor: Option<(usize, usize)>,
}

/// [`matches_in`] a text tokenized here.
#[cfg(test)]
fn find_matches(
    analyzer: &mut tantivy::tokenizer::TextAnalyzer,
    text: &str,
    words: (&[String], &[String]),
    line: Option<u64>,
    query: &OmniQuery,
) -> Found {
    let note = Note::new(analyzer, text.to_string());
    matches_in(analyzer, &note, words, line, query)
}

/// Every match in the note in the order of its text, with UTF-16 offsets: the words that
/// matched (`matched`, and their forms as the engine expanded them), the query's phrases and
/// tags.
fn matches_in(
    analyzer: &mut tantivy::tokenizer::TextAnalyzer,
    note: &Note,
    (matched, forms): (&[String], &[String]),
    line: Option<u64>,
    query: &OmniQuery,
) -> Found {
    let text = note.text.as_str();
    let (mut spans, scanned_to) = word_spans(analyzer, note, matched, forms);
    let words = query.phrases.iter().chain(&query.tags);
    spans.extend(words.flat_map(|w| occurrences(&text[..scanned_to], w)));
    // The plugin's scan: leftmost first, the longest at one place, never overlapping.
    spans.sort_by_key(|&(from, to)| (from, std::cmp::Reverse(to)));
    let mut kept: Vec<(usize, usize)> = Vec::new();
    for span in spans {
        if kept.last().is_none_or(|&(_, end)| span.0 >= end) {
            kept.push(span);
        }
    }
    kept.truncate(MAX_MATCHES);
    // The excerpt's match: the first on the line the local engine's passage is on.
    let on_line = line.and_then(|line| {
        let mut lines = excerpt::Lines::default();
        kept.iter()
            .position(|&(from, _)| lines.advance(text, from) == line)
    });
    let anchor_at = on_line.or((!kept.is_empty()).then_some(0));
    // Offsets grow along the text, so one running count converts them all.
    let (mut byte, mut units) = (0usize, 0usize);
    let mut matches: Vec<OmniMatch> = kept
        .iter()
        .map(|&(from, to)| {
            units += text[byte..from].encode_utf16().count();
            byte = from;
            OmniMatch {
                text: text[from..to].to_string(),
                offset: Some(units),
            }
        })
        .collect();
    let anchor = anchor_at.map(|i| (kept[i].0, matches[i].offset.unwrap_or_default()));
    // The plugin puts a multi-word query first when the note holds it verbatim at a match.
    if let Some(whole) = &query.whole {
        if let Some(at) = text.find(whole.as_str()) {
            if let Some(i) = kept.iter().position(|&(from, _)| from == at) {
                let offset = matches[i].offset;
                matches.insert(
                    0,
                    OmniMatch {
                        text: whole.clone(),
                        offset,
                    },
                );
            }
        }
    }
    Found { matches, anchor }
}

/// The spans of the words that matched, as the index reads them, and how far the scan went
/// (the whole text unless it stopped at [`MAX_MATCHES`]).
fn word_spans(
    analyzer: &mut tantivy::tokenizer::TextAnalyzer,
    note: &Note,
    matched: &[String],
    forms: &[String],
) -> (Vec<(usize, usize)>, usize) {
    // The engine's highlight forms include every prefix and typo expansion: hundreds for
    // some queries, tested against every word of 50 notes.
    let forms: HashSet<&str, BuildHasherDefault<Fnv>> = forms.iter().map(String::as_str).collect();
    let mut found: Vec<(usize, usize)> = Vec::new();
    // False once enough matches are found.
    let mut take = |from: usize, to: usize, text: &str| {
        let hit = forms.contains(text)
            || matched
                .iter()
                .any(|m| !m.is_empty() && text.starts_with(m.as_str()));
        // A compound token and its parts share the start: report the span once.
        if hit && found.last().is_none_or(|&(f, _)| f != from) {
            found.push((from, to));
        }
        found.len() < MAX_MATCHES
    };
    match &note.tokens {
        Some(tokens) => {
            for (from, to, text) in tokens.iter() {
                if !take(from, to, text) {
                    return (found, to);
                }
            }
        }
        // Streamed, not collected: a giant note has millions of tokens and only the matches
        // are kept.
        None => {
            let mut stream = analyzer.token_stream(&note.text);
            while stream.advance() {
                let t = stream.token();
                if !take(t.offset_from, t.offset_to, &t.text) {
                    let to = t.offset_to;
                    return (found, to);
                }
            }
        }
    }
    (found, note.text.len())
}

/// The plugin's window around the match at `byte` (`pos` UTF-16 units into `text`): where it
/// starts (in units), its text (a surrogate pair cut at either end leaves a U+FFFD, as decoding
/// JavaScript's slice does), and whether two or more units follow it. Only the window is
/// walked, and taken from the text as it is: encoding to UTF-16 and back was half the work.
fn window_around(text: &str, byte: usize, pos: usize) -> (usize, String, bool) {
    let from = pos.saturating_sub(EXCERPT_BEFORE);
    // Back from the match to a character boundary at or before unit `from`.
    let (mut start, mut back) = (byte, 0);
    for c in text[..byte].chars().rev() {
        if back >= pos - from {
            break;
        }
        back += c.len_utf16();
        start -= c.len_utf8();
    }
    let mut want = pos - from + EXCERPT_AFTER;
    let mut window = String::new();
    let mut body = text[start..].chars();
    // A pair cut at `from`: its second half comes first.
    if back > pos - from && body.next().is_some() {
        window.push(char::REPLACEMENT_CHARACTER);
        want -= 1;
    }
    let body = body.as_str();
    let (mut end, mut half, mut units) = (0, false, 0);
    for (i, c) in body.char_indices() {
        let n = c.len_utf16();
        if units + n <= want {
            end = i + c.len_utf8();
        } else if units < want {
            // A pair cut at the window's end: its first half is the last unit.
            half = true;
        }
        units += n;
        if units >= want + 2 {
            break;
        }
    }
    window.push_str(&body[..end]);
    window.extend(half.then_some(char::REPLACEMENT_CHARACTER));
    (from, window, units >= want + 2)
}

/// FNV-1a, for the set of highlight forms: it is asked once per word of every hit note, and
/// std's SipHash (built to resist hash flooding, which the words of a local reply can't mount)
/// was the largest single cost of a reply's matches.
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// Where `needle` (lowercase) occurs in `text`, ignoring ASCII case (so offsets stay those of
/// `text`), without overlaps.
fn occurrences(text: &str, needle: &str) -> Vec<(usize, usize)> {
    let hay = text.to_ascii_lowercase();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = hay[from..].find(needle) {
        let at = from + i;
        out.push((at, at + needle.len()));
        from = at + needle.len().max(1);
        if out.len() >= MAX_MATCHES {
            break;
        }
    }
    out
}

/// The plugin's excerpt of `text` around the match at `anchor`, its byte offset and its offset
/// in UTF-16 units (none: the note's start).
fn plugin_excerpt(text: &str, anchor: Option<(usize, usize)>) -> String {
    let (window, at) = match anchor {
        Some((byte, pos)) => {
            let (from, window, more) = window_around(text, byte, pos);
            let mut w = String::with_capacity(window.len() + 6);
            if from > 0 {
                w.push('…');
            }
            w.push_str(window.trim());
            // The plugin's own test: no `…` when one unit is left.
            if more {
                w.push('…');
            }
            // As in the plugin, the match's place counted in the window before it was
            // prefixed and trimmed.
            (w, Some(pos - from))
        }
        None => {
            let units: Vec<u16> = text.encode_utf16().take(EXCERPT_AFTER).collect();
            (String::from_utf16_lossy(&units), None)
        }
    };
    let mut joined = String::with_capacity(window.len());
    for line in window.split(['\r', '\n']).filter(|l| !l.is_empty()) {
        if !joined.is_empty() {
            joined.push('\n');
        }
        joined.push_str(line);
    }
    // From the line holding the match: the last line break at or before it.
    let start = at.and_then(|at| {
        let k = excerpt::utf16_to_byte_offset(&joined, at).unwrap_or(joined.len());
        if joined[k..].starts_with('\n') {
            Some(k)
        } else {
            joined[..k].rfind('\n')
        }
    });
    let shown = match start {
        Some(i) if i > 0 => &joined[i..],
        _ => &joined[..],
    };
    escape_html(shown).trim().replace('\n', "<br>")
}

/// The local engine's `...` cut marks as the plugin's `…`.
fn ellipsis(s: &str) -> String {
    let s = s
        .strip_prefix("...")
        .map_or(s.to_string(), |r| format!("…{r}"));
    s.strip_suffix("...").map_or(s.clone(), |r| format!("{r}…"))
}

/// The escaping the plugin applies to excerpts.
pub(crate) fn escape_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#039;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(text: &str, words: &[&str], line: Option<u64>, q: &str) -> Found {
        let words: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        let mut a = analyzer::text_analyzer();
        find_matches(&mut a, text, (&words, &[]), line, &OmniQuery::parse(q))
    }

    #[test]
    fn offsets_count_utf16_units_in_the_order_of_the_text() {
        let text = "𝄞 café daemon\nsecond Daemon line\n";
        let f = matches(text, &["daemon"], Some(2), "daemon");
        let got: Vec<(&str, Option<usize>)> = f
            .matches
            .iter()
            .map(|m| (m.text.as_str(), m.offset))
            .collect();
        let second = text.find("Daemon").unwrap();
        // 𝄞 is two UTF-16 units, é one.
        let second_units = text[..second].encode_utf16().count();
        assert_eq!(
            got,
            [("daemon", Some(2 + 1 + 5)), ("Daemon", Some(second_units))]
        );
        // The excerpt stays on the local engine's line.
        assert_eq!(f.anchor, Some((second, second_units)));
    }

    #[test]
    fn a_phrase_is_one_match_and_a_verbatim_query_comes_first() {
        let text = "roses here; old roses there, Old Roses and #garden\n";
        let f = matches(
            text,
            &["old", "roses", "garden"],
            None,
            r#""old roses" #garden"#,
        );
        let got: Vec<&str> = f.matches.iter().map(|m| m.text.as_str()).collect();
        // As the plugin answers (checked against it): the quoted phrase first, found verbatim.
        assert_eq!(
            got,
            ["old roses", "roses", "old roses", "Old Roses", "#garden"]
        );
        let f = matches(text, &["old", "roses"], None, "old roses");
        let got: Vec<(&str, Option<usize>)> = f
            .matches
            .iter()
            .map(|m| (m.text.as_str(), m.offset))
            .collect();
        assert_eq!(got[0], ("old roses", Some(12)));
        assert_eq!(got[1], ("roses", Some(0)));
    }

    /// The anchor of the match at `byte` in `text`.
    fn at(text: &str, byte: usize) -> Option<(usize, usize)> {
        Some((byte, text[..byte].encode_utf16().count()))
    }

    #[test]
    fn excerpts_are_cut_as_the_plugin_cuts_them() {
        let text = "---\ntags: [x]\n---\n# Title\n\nfirst line\n\nthe match & more\nlast\n";
        let match_at = text.find("match").unwrap();
        // From the match's line on, as the plugin answers (checked against it).
        assert_eq!(
            plugin_excerpt(text, at(text, match_at)),
            "the match &amp; more<br>last"
        );
        let long = format!("{}\nthe match\n{}", "a".repeat(150), "b".repeat(400));
        let e = plugin_excerpt(&long, at(&long, long.find("match").unwrap()));
        assert!(e.starts_with("the match<br>b") && e.ends_with("b…"), "{e}");
        let one_line = format!("{} match {}", "a".repeat(150), "b".repeat(400));
        let e = plugin_excerpt(&one_line, at(&one_line, 151));
        assert!(e.starts_with("…aaa") && e.ends_with("bbb…"), "{e}");
        assert_eq!(plugin_excerpt("a\n\nb", None), "a<br>b");
        assert_eq!(ellipsis("...mid..."), "…mid…");
    }

    /// The window as it was cut from the whole note's units and decoded.
    fn window_around_whole(text: &str, pos: usize) -> (usize, String, bool) {
        let units: Vec<u16> = text.encode_utf16().collect();
        let len = units.len();
        let (from, to) = (
            pos.saturating_sub(EXCERPT_BEFORE),
            (pos + EXCERPT_AFTER).min(len),
        );
        let window = String::from_utf16_lossy(&units[from..to]);
        (from, window, to + 1 < len)
    }

    #[test]
    fn the_window_is_the_one_cut_from_the_whole_note() {
        for text in [
            String::new(),
            "x".to_string(),
            "é😀a".repeat(120),
            "😀".repeat(300),
            format!("{}\r\n{}", "a😀".repeat(70), "é".repeat(330)),
            format!("{}m{}", "😀".repeat(51), "b".repeat(299)),
            format!("{}m{}", "a".repeat(99), "😀".repeat(151)),
            format!("{}m{}", "ab".repeat(80), "c".repeat(300)),
            format!("{}m{}", "ab".repeat(80), "c".repeat(301)),
        ] {
            let mut byte = 0;
            while byte <= text.len() {
                if text.is_char_boundary(byte) {
                    let pos = text[..byte].encode_utf16().count();
                    assert_eq!(
                        window_around(&text, byte, pos),
                        window_around_whole(&text, pos),
                        "{byte} in {text:?}"
                    );
                }
                byte += 1;
            }
        }
    }

    #[test]
    fn escapes_like_the_plugin() {
        assert_eq!(
            escape_html(r#"a<b> & "c" 'd'"#),
            "a&lt;b&gt; &amp; &quot;c&quot; &#039;d&#039;"
        );
    }
}
