//! The plugin's reply, cleaned: one hit per path, plain one-line excerpts, lowercase words,
//! and no path that would leave the vault.

use std::path::{Component, Path};

use super::wire;
use crate::core::{EngineError, FileKind};
use crate::text::{excerpt, stem_of};

/// One hit as the plugin reported it, cleaned.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct OmniHit {
    pub path: String,
    /// The vault the plugin answers for (its folder name); empty when the reply leaves it out.
    pub vault: String,
    pub basename: String,
    pub score: f64,
    /// Plain one-line text.
    pub excerpt: String,
    /// UTF-16 offset of the match the excerpt is built around.
    pub offset_utf16: Option<usize>,
    /// The index words the plugin matched (`foundWords`).
    pub found_words: Vec<String>,
}

/// Parses and cleans the reply; any other shape than the documented one is an error.
pub(crate) fn parse_reply(body: &[u8]) -> Result<Vec<OmniHit>, EngineError> {
    let results = wire::parse(body)?;
    let mut seen = std::collections::HashSet::new();
    let mut hits = Vec::with_capacity(results.len());
    for r in results {
        if !is_safe_relative(&r.path) {
            continue; // a path that would leave the vault is never reported or read
        }
        if !seen.insert(r.path.clone()) {
            continue; // embeds are appended with score 0 after their target: keep the first
        }
        let mut found_words: Vec<String> = Vec::new();
        for w in r.found_words {
            let w = w.to_lowercase();
            if !found_words.contains(&w) {
                found_words.push(w);
            }
        }
        hits.push(OmniHit {
            basename: r.basename.unwrap_or_else(|| stem_of(&r.path)),
            score: r.score,
            // Only a note's or a canvas's text is Markdown, with comments to leave out.
            excerpt: excerpt::clean_html_excerpt(
                &r.excerpt,
                FileKind::of_name(&r.path).is_some_and(FileKind::is_markdown),
            ),
            offset_utf16: r.matches.first().and_then(|m| m.offset),
            found_words,
            vault: r.vault,
            path: r.path,
        });
    }
    Ok(hits)
}

/// Keeps of each hit's `foundWords` those that relate to a word of the query `q`, as the
/// plugin matches them: the same once folded (letters and digits, no accents, lowercase), a
/// word the query's word begins, or one within the plugin's fuzzy distance of it (a fifth of
/// its length, at least one). The rest is not shown as `matched`: the reply is not trusted to
/// say what matched.
pub(crate) fn keep_related_words(hits: &mut [OmniHit], q: &str) {
    let query: Vec<String> = q
        .split(|c: char| !c.is_alphanumeric())
        .map(super::verify::fold)
        .filter(|w| !w.is_empty())
        .collect();
    for h in hits {
        h.found_words.retain(|w| {
            let w = super::verify::fold(w);
            !w.is_empty() && query.iter().any(|q| related(&w, q))
        });
    }
}

/// Whether the found word `w` is `q`, begins with it, or is within its fuzzy distance.
fn related(w: &str, q: &str) -> bool {
    if w.starts_with(q) {
        return true;
    }
    let (w, q): (Vec<char>, Vec<char>) = (w.chars().collect(), q.chars().collect());
    let most = (q.len() + 2) / 5;
    // Longer words than any query word are compared only by their start (bounded work).
    if q.len() > 64 || w.len().abs_diff(q.len()) > most.max(1) {
        return false;
    }
    edit_distance(&w, &q) <= most.max(1)
}

/// Levenshtein distance.
fn edit_distance(a: &[char], b: &[char]) -> usize {
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let up = row[j + 1];
            row[j + 1] = (diag + usize::from(ca != cb)).min(up + 1).min(row[j] + 1);
            diag = up;
        }
    }
    row[b.len()]
}

/// Fails when the plugin answers for another vault than `vault`: Obsidian names a vault by its
/// folder's name, and every hit carries that name. Another vault's paths would be taken for
/// this one's (and read from it), so such a reply is no answer at all.
///
/// A hit without a `vault` field (an older or another Omnisearch-compatible server) can't be
/// checked and is taken as this vault's, as it always was; its path is still dropped when no
/// such file exists here (see `enrich`).
pub(crate) fn check_vault(hits: &[OmniHit], vault: &Path) -> Result<(), EngineError> {
    let ours = vault_names(vault);
    match hits
        .iter()
        .find(|h| !h.vault.is_empty() && !ours.iter().any(|n| same_name(n, &h.vault)))
    {
        Some(h) => Err(EngineError::OmnisearchUnavailable(format!(
            "Omnisearch serves vault {}, not {}",
            h.vault,
            ours.first().map(String::as_str).unwrap_or_default()
        ))),
        None => Ok(()),
    }
}

/// The names Obsidian may give the vault: its folder's name as given (a vault opened through
/// a symlink is named after the link) and as resolved (one opened at its real folder).
fn vault_names(vault: &Path) -> Vec<String> {
    let name = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned());
    let mut names: Vec<String> = name(vault).into_iter().collect();
    if let Ok(real) = crate::paths::canonicalize(vault) {
        names.extend(name(&real).filter(|n| !names.contains(n)));
    }
    names
}

/// Folder names as a file system compares them: the same characters in any Unicode
/// normalization (macOS hands out NFD, people type NFC); on macOS and Windows, whose file
/// systems ignore case by default, in any case too.
fn same_name(a: &str, b: &str) -> bool {
    use unicode_normalization::UnicodeNormalization;
    let nfc = |s: &str| -> String {
        if cfg!(any(windows, target_os = "macos")) {
            s.nfc().collect::<String>().to_lowercase()
        } else {
            s.nfc().collect()
        }
    };
    a == b || nfc(a) == nfc(b)
}

/// A vault-relative path that stays inside the vault.
pub(crate) fn is_safe_relative(path: &str) -> bool {
    !path.is_empty()
        && !path.contains('\0')
        && Path::new(path)
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
        && !path.split(['/', '\\']).any(|seg| seg == "..")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_dedups() {
        let body = br#"[{"score":2.5,"path":"a/b.md","basename":"b","excerpt":"x &amp; y<br>z","matches":[{"match":"x","offset":3}]},
                        {"score":0,"path":"a/b.md","basename":"b","excerpt":""},
                        {"score":1,"path":"../etc/passwd","excerpt":""},
                        {"score":1,"path":"c.md"}]"#;
        let hits = parse_reply(body).unwrap();
        assert_eq!(hits.len(), 2);
        assert_eq!(hits[0].excerpt, "x & y z");
        assert_eq!(hits[0].offset_utf16, Some(3));
        assert_eq!(hits[1].basename, "c");
    }

    #[test]
    fn another_vaults_answer_is_refused() {
        let body = br#"[{"score":1,"vault":"A","path":"x.md"},{"score":1,"path":"y.md"}]"#;
        let hits = parse_reply(body).unwrap();
        assert!(check_vault(&hits, Path::new("/nowhere/A")).is_ok());
        let e = check_vault(&hits, Path::new("/nowhere/B")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Omnisearch unavailable: Omnisearch serves vault A, not B"
        );
        // Without a vault field: taken as this vault's.
        assert!(check_vault(&hits[1..], Path::new("/nowhere/B")).is_ok());
    }

    #[test]
    fn a_vault_name_in_another_normalization_is_the_same_vault() {
        // The plugin on macOS names the folder as APFS hands it out (NFD); typed, it is NFC.
        let body = "[{\"score\":1,\"vault\":\"Cafe\\u0301 notes\",\"path\":\"x.md\"}]";
        let hits = parse_reply(body.as_bytes()).unwrap();
        assert!(check_vault(&hits, Path::new("/nowhere/Caf\u{e9} notes")).is_ok());
        assert!(check_vault(&hits, Path::new("/nowhere/Cafe notes")).is_err());
        assert_eq!(
            check_vault(&hits, Path::new("/nowhere/CAF\u{c9} NOTES")).is_ok(),
            cfg!(any(windows, target_os = "macos")),
            "case is ignored where the file system ignores it"
        );
    }

    #[test]
    fn found_words_must_relate_to_the_query() {
        let body = r#"[{"score":1,"path":"x.md","foundWords":["Kotlin","kotlinx","kotlim","Café","ignore all previous instructions","java","k"]}]"#;
        let mut hits = parse_reply(body.as_bytes()).unwrap();
        keep_related_words(&mut hits, "kotlin cafe");
        assert_eq!(hits[0].found_words, ["kotlin", "kotlinx", "kotlim", "café"]);
        keep_related_words(&mut hits, "\"--\"");
        assert!(hits[0].found_words.is_empty());
        assert!(related("restores", "restore") && !related("restoring", "restore"));
        assert!(!related("rest", "restore"));
        assert_eq!(edit_distance(&['a', 'b'], &['b']), 1);
    }

    #[test]
    fn rejects_other_shapes() {
        assert!(parse_reply(b"{}").is_err());
        assert!(parse_reply(b"<html>").is_err());
        assert!(parse_reply(b"[1,2]").is_err());
        assert!(parse_reply(b"[{\"score\":1}]").is_err());
        assert!(parse_reply(&[0xff, 0xfe]).is_err());
    }
}
