//! Local hits in the Omnisearch plugin's reply shape, so any Omnisearch client (ours included)
//! works while Obsidian is closed.
//!
//! The shape is [`crate::omnisearch::wire`]'s, the one our client parses: a JSON array of
//! `{score, vault, path, basename, foundWords, matches: [{match, offset}], excerpt}`. `offset`
//! counts UTF-16 code units of the note's text, as JavaScript string indices do; the excerpt
//! is HTML-escaped, as the plugin sends it. The match the local engine built its excerpt
//! around comes first, so a client that jumps to `matches[0]` lands on the same line the
//! local engine reports.

use std::path::Path;

use tantivy::tokenizer::TokenStream;

use crate::local::analyzer;
use crate::omnisearch::is_safe_relative;
use crate::omnisearch::wire::{OmniMatch, OmniResult};
use crate::paths;
use crate::text::excerpt;
use crate::SearchHit;

/// The plugin reports at most this many matches per note.
const MAX_MATCHES: usize = 99;

/// Converts local hits; a hit whose path would leave the vault is dropped.
pub(crate) fn convert(vault: &Path, hits: Vec<SearchHit>) -> Vec<OmniResult> {
    let vault_name = vault
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let root = paths::canonicalize(vault).ok();
    let mut analyzer = analyzer::text_analyzer();
    hits.into_iter()
        .filter(|h| is_safe_relative(&h.path))
        .map(|h| {
            let text = root.as_deref().and_then(|r| read_inside(r, &h.path));
            let matches = text
                .as_deref()
                .map(|t| find_matches(&mut analyzer, t, &h.matched, &h.highlight, h.line))
                .unwrap_or_default();
            OmniResult {
                score: h.score,
                vault: vault_name.clone(),
                basename: Some(h.basename),
                found_words: h.matched,
                matches,
                excerpt: escape_html(&h.excerpt),
                path: h.path,
            }
        })
        .collect()
}

/// Reads a note only when it really lies inside the vault (no symlink out).
fn read_inside(root: &Path, rel: &str) -> Option<String> {
    let real = paths::canonicalize(&paths::join_rel(root, rel)).ok()?;
    if !real.starts_with(root) {
        return None;
    }
    let bytes = std::fs::read(real).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// Every word of `text` that matched, with its UTF-16 offset; the first on `line` first.
fn find_matches(
    analyzer: &mut tantivy::tokenizer::TextAnalyzer,
    text: &str,
    matched: &[String],
    forms: &[String],
    line: Option<u64>,
) -> Vec<OmniMatch> {
    // The engine's highlight forms include every prefix and typo expansion: hundreds for
    // some queries, tested against every word of 50 notes.
    let forms: std::collections::HashSet<&str> = forms.iter().map(String::as_str).collect();
    let mut found: Vec<(usize, usize)> = Vec::new();
    // Streamed, not collected: a note has thousands of tokens and only the matches are kept.
    let mut stream = analyzer.token_stream(text);
    while stream.advance() {
        let t = stream.token();
        let hit = forms.contains(t.text.as_str())
            || matched
                .iter()
                .any(|m| !m.is_empty() && t.text.starts_with(m.as_str()));
        // A compound token and its parts share the start: report the span once.
        if hit && found.last().is_none_or(|&(from, _)| from != t.offset_from) {
            found.push((t.offset_from, t.offset_to));
        }
        if found.len() >= MAX_MATCHES {
            break;
        }
    }
    if let Some(line) = line {
        if let Some(i) = found
            .iter()
            .position(|&(from, _)| excerpt::line_of(text, from) == line)
        {
            let first = found.remove(i);
            found.insert(0, first);
        }
    }
    // Offsets grow along the text, so one running count converts them all.
    let mut order: Vec<usize> = (0..found.len()).collect();
    order.sort_by_key(|&i| found[i].0);
    let mut utf16 = vec![0usize; found.len()];
    let (mut byte, mut units) = (0usize, 0usize);
    for i in order {
        let from = found[i].0;
        units += text[byte..from].encode_utf16().count();
        byte = from;
        utf16[i] = units;
    }
    found
        .iter()
        .zip(utf16)
        .map(|(&(from, to), offset)| OmniMatch {
            text: text[from..to].to_string(),
            offset: Some(offset),
        })
        .collect()
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

    #[test]
    fn offsets_count_utf16_units_and_the_excerpt_line_comes_first() {
        let text = "𝄞 café daemon\nsecond Daemon line\n";
        let mut a = analyzer::text_analyzer();
        let m = find_matches(&mut a, text, &["daemon".into()], &[], Some(2));
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].text, "Daemon");
        let second = text.find("Daemon").unwrap();
        assert_eq!(m[0].offset, Some(text[..second].encode_utf16().count()));
        // 𝄞 is two UTF-16 units, é one.
        assert_eq!(m[1].offset, Some(2 + 1 + 5));
        assert_eq!(
            m[0].offset
                .and_then(|o| excerpt::utf16_to_byte_offset(text, o)),
            Some(second)
        );
    }

    #[test]
    fn escapes_like_the_plugin() {
        assert_eq!(
            escape_html(r#"a<b> & "c" 'd'"#),
            "a&lt;b&gt; &amp; &quot;c&quot; &#039;d&#039;"
        );
    }
}
