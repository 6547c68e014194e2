//! Completes the plugin's hits from the notes themselves: the line and heading at its match
//! offset, the note's tags, aliases and modification time — reading only files that lie
//! inside the vault — and applies what the plugin can't: the folder scope and the filters
//! (tags, dates, properties, checked against the note on disk as the indexer reads it).

use std::path::Path;

use super::reply::OmniHit;
use super::verify::{self, Tally, MIN_CHECKED};
use crate::core::{
    round_to, FileKind, Filters, Scope, SearchHit, Sort, DEFAULT_MAX_NOTE_BYTES, ENGINE_OMNISEARCH,
};
use crate::text::{excerpt, note, passage};
use crate::{fsread, paths};

/// What narrows and orders the plugin's hits on our side.
#[derive(Debug, Clone, Copy)]
pub(super) struct Shaping<'a> {
    pub(super) scope: &'a Scope,
    pub(super) filters: &'a Filters,
    pub(super) sort: Sort,
    pub(super) limit: usize,
    /// Most bytes of a hit's passage (0: none).
    pub(super) passage_bytes: usize,
}

/// Scopes and filters client-side (the API has neither), orders, cuts to `limit`, and reads
/// each note for the excerpt's line, its heading, tags, aliases and time. Also returns how
/// many hits passed scope and filters before the cut, and how the hits in scope checked
/// against this vault's files (see [`verify`]).
pub(super) fn results(
    vault: &Path,
    hits: Vec<OmniHit>,
    how: Shaping<'_>,
) -> (Vec<SearchHit>, usize, Tally) {
    // Without filters or a time order, only the notes shown are read (and a few more, to
    // check the reply is this vault's).
    let read_all = !how.filters.is_empty() || how.sort == Sort::Modified;
    let mut tally = Tally::default();
    let mut out = Vec::new();
    let mut n = 0;
    // The plugin names a note as Obsidian does, by its name itself: in the index's spelling
    // (see `paths::namebytes`) it is read from disk, scoped and shown as a local hit is.
    let hits = hits.into_iter().map(|mut h| {
        if let std::borrow::Cow::Owned(spelt) = paths::namebytes::spell_str(&h.path) {
            h.path = spelt;
        }
        h
    });
    for h in hits.filter(|h| how.scope.contains(&h.path)) {
        // A hit naming no file of this vault is no hit of it, and counts against the reply.
        if !paths::join_rel(vault, &h.path).exists() {
            tally.count(Some(verify::Verdict::Lacks));
            continue;
        }
        let kind = FileKind::of_name(&h.path).unwrap_or_default();
        if !read_all && out.len() >= how.limit {
            n += 1;
            if kind == FileKind::Note && tally.decided() < MIN_CHECKED {
                tally.count(check_only(vault, &h));
            }
            continue;
        }
        let mut hit = SearchHit {
            vault: None,
            basename: h.basename,
            kind,
            page: None,
            score: round_to(h.score, 2),
            excerpt: h.excerpt,
            engine: ENGINE_OMNISEARCH.into(),
            line: None,
            heading: None,
            passages: Vec::new(),
            tags: Vec::new(),
            aliases: Vec::new(),
            modified: None,
            modified_ns: None,
            matched: h.found_words.clone(),
            highlight: h.found_words,
            path: h.path,
            links_in: None,
        };
        // The plugin's offsets in a canvas or PDF are into text it extracted itself, not into
        // the file: only notes are read back (the others pass no tag or property filter).
        let properties = if kind == FileKind::Note {
            enrich_from_note(vault, &mut hit, h.offset_utf16, how.passage_bytes).map(
                |(p, verdict)| {
                    tally.count(Some(verdict));
                    p
                },
            )
        } else {
            None
        };
        // A note that can't be read can't be shown to pass a filter.
        let passes = how.filters.is_empty()
            || properties.is_some_and(|p| how.filters.admits(&hit.tags, &p, hit.modified_ns));
        if passes {
            n += 1;
            out.push(hit);
        }
    }
    if how.sort == Sort::Modified {
        out.sort_by_key(|h| std::cmp::Reverse(h.modified_ns));
    }
    out.truncate(how.limit);
    (out, n, tally)
}

/// Checks a hit that is not shown against its note, read as [`enrich_from_note`] reads it.
fn check_only(vault: &Path, h: &OmniHit) -> Option<verify::Verdict> {
    let (bytes, _) = fsread::read_beneath(vault, &h.path, DEFAULT_MAX_NOTE_BYTES).ok()?;
    Some(verify::excerpt_in(
        &String::from_utf8_lossy(&bytes),
        &h.excerpt,
    ))
}

/// Reads the note behind an Omnisearch hit: the line and heading at the plugin's UTF-16 match
/// offset, the note's tags, aliases and modification time; returns its properties and whether
/// the hit's excerpt is in it (see [`verify`]). Leaves them unknown (and returns `None`) when
/// the note can't be read.
#[allow(clippy::type_complexity)]
fn enrich_from_note(
    vault: &Path,
    hit: &mut SearchHit,
    offset_utf16: Option<usize>,
    passage_bytes: usize,
) -> Option<(Vec<(String, Vec<String>)>, verify::Verdict)> {
    // Read only a file that really lies inside the vault, from the vault's handle: a symlink
    // (of the note or a folder on its way) is never followed, not even one swapped in during
    // the read; not a FIFO or device, not past the note cap: the plugin's path is not trusted
    // to name a note.
    let (bytes, md) = fsread::read_beneath(vault, &hit.path, DEFAULT_MAX_NOTE_BYTES).ok()?;
    hit.modified_ns = md
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .and_then(|d| i64::try_from(d.as_nanos()).ok());
    hit.modified = hit.modified_ns.and_then(crate::core::rfc3339);
    let text = String::from_utf8_lossy(&bytes);
    let meta = note::parse(&text);
    if let Some(pos) = offset_utf16.and_then(|off| excerpt::utf16_to_byte_offset(&text, off)) {
        let line = excerpt::line_of(&text, pos);
        hit.line = Some(line);
        hit.heading = note::heading_at(&meta, pos);
        // The same passage the local engine would show at that offset.
        let src = passage::Source {
            text: &text,
            floor: meta.body_start,
            at: pos,
            line_at: line,
            markdown: true,
            heading_above: None,
        };
        if passage_bytes > 0 {
            hit.passages = passage::passage(&src, passage_bytes)
                .map(|p| passage::with_lead(&text, meta.body_start, true, p))
                .unwrap_or_default();
        }
    }
    hit.tags = meta.tags;
    hit.aliases = meta.aliases;
    Some((meta.properties, verify::excerpt_in(&text, &hit.excerpt)))
}
