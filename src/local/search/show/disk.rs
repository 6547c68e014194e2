//! A giant note's hit, shown from its file on disk: only the passage's stretch of the file is
//! read, never the note's stored body.
//!
//! Tantivy's doc store hands out a document whole: showing one hit of a 10 MB note meant
//! decompressing and copying 10 MB (28 ms against 5 ms for the same search without it). The
//! index knows what it needs without the stored document — path, size, mtime, tags, aliases
//! and the checkpoint table are fast fields — so when the file still has the size and mtime
//! it was indexed with, and its text was its bytes (the table's header says so), the stretch
//! between the checkpoints around the passage is read from the file, plus a margin for the
//! excerpt. Otherwise (the file changed: the index is stale anyway; text that was not valid
//! UTF-8) the caller falls back to the stored body.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use anyhow::Result;
use tantivy::{DocAddress, Searcher};

use super::start::{passage_pos, Cues};
use crate::core::Passage;
use crate::local::checkpoint::{
    around, encode, heading_text, join, locate, rows, Checkpoint, Spot, HEADING_BYTES, NO_HEADING,
};
use crate::local::schema::Fields;
use crate::local::search::window::Occ;
use crate::local::stored;
use crate::text::{excerpt, passage};

/// Notes at least this large are shown from their file; below, the stored document costs
/// less than opening the file.
pub(crate) const DISK_MIN_BYTES: u64 = 64 * 1024;
/// Bytes read on each side of the passage's stretch: more than an excerpt's context in
/// characters of up to four bytes.
const MARGIN: u64 = 1024;
// The excerpt reads this far around the match for comments: the window has to hold it (the
// window's start may move up to three bytes on to a char boundary).
const _: () = assert!(MARGIN as usize >= excerpt::COMMENT_CONTEXT + 4);
/// A stretch between two checkpoints longer than this (text without spaces) is not read.
const MAX_STRETCH: u64 = 256 * 1024;

/// A hit shown from the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DiskHit {
    pub(crate) path: String,
    pub(crate) spot: Spot,
    pub(crate) excerpt: String,
    pub(crate) passage: Option<Passage>,
    pub(crate) tags: Vec<String>,
    pub(crate) aliases: Vec<String>,
}

/// What a hit of `addr` shows, read from its file when that is a giant note unchanged since
/// it was indexed; `None` when the stored document has to be read instead.
pub(crate) fn show(
    searcher: &Searcher,
    fields: &Fields,
    vault: &Path,
    addr: DocAddress,
    cues: &Cues,
    occs: &mut [Occ],
) -> Result<Option<DiskHit>> {
    let seg = searcher.segment_reader(addr.segment_ord);
    let ff = seg.fast_fields();
    let doc = addr.doc_id;
    let name = |f| fields.schema.get_field_name(f);
    let Some(size) = ff.u64(name(fields.size))?.first(doc) else {
        return Ok(None);
    };
    if size < DISK_MIN_BYTES {
        return Ok(None);
    }
    let Some(mtime_ns) = ff.i64(name(fields.mtime_ns))?.first(doc) else {
        return Ok(None);
    };
    let mut parts = Vec::new();
    if let Some(col) = ff.bytes(name(fields.checkpoints))? {
        for ord in col.term_ords(doc) {
            let mut part = Vec::new();
            col.ord_to_bytes(ord, &mut part)?;
            parts.push(part);
        }
    }
    let table = join(parts);
    let exact = rows(&table).next().is_some_and(|h| h.fence == 1);
    if !exact {
        return Ok(None);
    }
    let strs = |f| -> Result<Vec<String>> {
        let mut out = Vec::new();
        if let Some(col) = ff.str(name(f))? {
            for ord in col.term_ords(doc) {
                let mut s = String::new();
                col.ord_to_str(ord, &mut s)?;
                out.push(s);
            }
        }
        Ok(out)
    };
    let Some(path) = strs(fields.path)?.into_iter().next() else {
        return Ok(None);
    };
    let Some(mut file) = open_unchanged(vault, &path, size, mtime_ns) else {
        return Ok(None);
    };
    let Some((spot, excerpt, passage)) = show_in_file(&mut file, size, &table, cues, occs) else {
        return Ok(None);
    };
    let tags = strs(fields.tags)?
        .first()
        .map(|t| stored::split_tags(t))
        .unwrap_or_default();
    Ok(Some(DiskHit {
        path,
        spot,
        excerpt,
        passage,
        tags,
        aliases: strs(fields.aliases)?,
    }))
}

/// The file at `path` when it is a regular file of the size and mtime the index recorded.
fn open_unchanged(vault: &Path, rel: &str, size: u64, mtime_ns: i64) -> Option<File> {
    // Never through a symlink (the walk follows none) nor a FIFO swapped in since; the opened
    // file's own stat: what is read below is what was compared.
    let (file, md) = crate::fsread::open_beneath(vault, rel).ok()?;
    (md.len() == size && mtime_of(&md) == mtime_ns).then_some(file)
}

/// The mtime as the walk records it.
#[cfg(unix)]
fn mtime_of(md: &std::fs::Metadata) -> i64 {
    use std::os::unix::fs::MetadataExt;
    md.mtime()
        .saturating_mul(1_000_000_000)
        .saturating_add(md.mtime_nsec())
}

/// The mtime as the walk records it (elsewhere from `modified()`, as the walk does).
#[cfg(not(unix))]
fn mtime_of(md: &std::fs::Metadata) -> i64 {
    md.modified()
        .map_or(0, crate::local::index::store::system_time_ns)
}

/// Bytes `from..to` of the file as text, starting at the first character boundary at or after
/// `from` and ending at the last one before `to`; `None` when they are not UTF-8.
fn read_text(file: &mut File, from: u64, to: u64) -> Option<(u64, String)> {
    let mut buf = vec![0u8; usize::try_from(to.saturating_sub(from)).ok()?];
    file.seek(SeekFrom::Start(from)).ok()?;
    file.read_exact(&mut buf).ok()?;
    let skip = buf
        .iter()
        .take(3)
        .take_while(|&&b| b & 0xC0 == 0x80)
        .count();
    buf.drain(..skip);
    match std::str::from_utf8(&buf) {
        Ok(_) => {}
        // Cut inside the last character.
        Err(e) if e.error_len().is_none() => buf.truncate(e.valid_up_to()),
        Err(_) => return None,
    }
    String::from_utf8(buf).ok().map(|t| (from + skip as u64, t))
}

/// The spot and excerpt of a hit, as `passage::show` and the excerpt would give them on the
/// whole text, computed on the window of the file around the passage.
fn show_in_file(
    file: &mut File,
    size: u64,
    table: &[u8],
    cues: &Cues,
    occs: &mut [Occ],
) -> Option<(Spot, String, Option<Passage>)> {
    let header = rows(table).next()?;
    let text_start = u64::from(header.offset);
    let pos = passage_pos(cues, occs, header.pos)?;
    // The same stretch `locate` would tokenize: from the checkpoint at or before `pos` to
    // the next one.
    let (base, next) = around(table, pos);
    let end = next.map_or(size, |r| u64::from(r.offset));
    if end.saturating_sub(u64::from(base.offset)) > MAX_STRETCH {
        return None;
    }
    // The passage reaches up to its cap on either side of the match.
    let margin = MARGIN.max(cues.passage_bytes as u64 + 256);
    let (wstart, text) = read_text(
        file,
        u64::from(base.offset).saturating_sub(margin),
        (end + margin).min(size),
    )?;
    let shift = |off: u32| u32::try_from(u64::from(off).checked_sub(wstart)?).ok();
    // The checkpoints in window coordinates; a heading above the window is read on its own.
    let shifted = |r: Checkpoint| {
        Some(Checkpoint {
            offset: shift(r.offset)?,
            heading: if r.heading == NO_HEADING {
                NO_HEADING
            } else {
                shift(r.heading).unwrap_or(NO_HEADING)
            },
            ..r
        })
    };
    let local_start = usize::try_from(text_start.saturating_sub(wstart)).ok()?;
    let mut local = vec![Checkpoint {
        offset: local_start as u32,
        ..header
    }];
    if base.pos > 0 || base.offset > 0 {
        local.push(shifted(base)?);
    }
    if let Some(n) = next.and_then(shifted) {
        local.push(n);
    }
    let local_table = encode(local.into_iter());
    let mut spot = locate(&text, &local_table, local_start, pos);
    if spot.heading.is_none() && base.heading != NO_HEADING && shift(base.heading).is_none() {
        let h = u64::from(base.heading);
        let (at, line) = read_text(file, h, (h + HEADING_BYTES as u64).min(size))?;
        spot.heading = (at == h).then(|| heading_text(&line, 0)).flatten();
    }
    let floor = if text_start >= wstart { local_start } else { 0 };
    let excerpt = excerpt::make_excerpt_from(&text, spot.offset, floor, true);
    // A window that starts inside a line shows lines from the next one on.
    let line_floor = if floor > 0 || wstart == 0 {
        floor
    } else {
        text.find('\n')
            .map_or(text.len(), |i| i + 1)
            .min(spot.offset)
    };
    let src = passage::Source {
        text: &text,
        floor: line_floor,
        at: spot.offset,
        line_at: spot.line,
        markdown: true,
        heading_above: spot.heading.as_deref(),
    };
    let passage = (cues.passage_bytes > 0)
        .then(|| passage::passage(&src, cues.passage_bytes))
        .flatten();
    spot.offset += wstart as usize;
    Some((spot, excerpt, passage))
}
