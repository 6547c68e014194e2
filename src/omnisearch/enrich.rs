//! Completes the plugin's hits from the notes themselves: the line and heading at its match
//! offset, the note's tags and aliases — reading only files that lie inside the vault.

use std::path::Path;

use super::client::OmniHit;
use crate::core::{round_to, FileKind, Scope, SearchHit, ENGINE_OMNISEARCH};
use crate::text::{excerpt, note};

/// Scopes client-side (the API has no folder parameter), cuts to `limit`, and reads each note
/// for the excerpt's line, its heading, tags and aliases. Also returns how many hits were in
/// scope before the cut.
pub(super) fn results(
    vault: &Path,
    hits: Vec<OmniHit>,
    scope: &Scope,
    limit: usize,
) -> (Vec<SearchHit>, usize) {
    let in_scope: Vec<OmniHit> = hits
        .into_iter()
        .filter(|h| scope.contains(&h.path))
        .collect();
    let n = in_scope.len();
    let results = in_scope
        .into_iter()
        .take(limit)
        .map(|h| {
            let kind = FileKind::of_name(&h.path).unwrap_or_default();
            let mut hit = SearchHit {
                basename: h.basename,
                kind,
                page: None,
                score: round_to(h.score, 2),
                excerpt: h.excerpt,
                engine: ENGINE_OMNISEARCH.into(),
                line: None,
                heading: None,
                tags: Vec::new(),
                aliases: Vec::new(),
                matched: h.found_words.clone(),
                highlight: h.found_words,
                path: h.path,
            };
            // The plugin's offsets in a canvas or PDF are into text it extracted itself, not
            // into the file: only notes are read back.
            if kind == FileKind::Note {
                enrich_from_note(vault, &mut hit, h.offset_utf16);
            }
            hit
        })
        .collect();
    (results, n)
}

/// Reads the note behind an Omnisearch hit: the line and heading at the plugin's UTF-16 match
/// offset, and the note's tags and aliases. Leaves them unknown when the note can't be read.
fn enrich_from_note(vault: &Path, hit: &mut SearchHit, offset_utf16: Option<usize>) {
    // Read only a file that really lies inside the vault: a symlink (of the note or a folder
    // on its way) pointing elsewhere is never followed.
    let inside = match (vault.join(&hit.path).canonicalize(), vault.canonicalize()) {
        (Ok(real), Ok(root)) => real.starts_with(root).then_some(real),
        _ => None,
    };
    let Some(Ok(bytes)) = inside.map(std::fs::read) else {
        return;
    };
    let text = String::from_utf8_lossy(&bytes);
    let meta = note::parse(&text);
    if let Some(pos) = offset_utf16.and_then(|off| excerpt::utf16_to_byte_offset(&text, off)) {
        hit.line = Some(excerpt::line_of(&text, pos));
        hit.heading = note::heading_at(&meta, pos);
    }
    hit.tags = meta.tags;
    hit.aliases = meta.aliases;
}
