//! The documents the indexer writes: a note's (or a canvas's or PDF's text), and the
//! placeholder of a file that could not be indexed.

use tantivy::TantivyDocument;

use super::manifest::{STUB_FAILED, STUB_TOO_LARGE};
use super::walk::DiskNote;
use crate::core::FileKind;
use crate::local::schema::Fields;
use crate::local::{analyzer, checkpoint, stored};
use crate::text::note;

/// The path, folders and kind of a file: what every document has.
fn file_document(fields: &Fields, note: &DiskNote, kind: FileKind) -> TantivyDocument {
    let mut doc = TantivyDocument::default();
    doc.add_text(fields.path, &note.rel);
    let mut folder = String::new();
    let segments: Vec<&str> = note.rel.split('/').collect();
    for seg in &segments[..segments.len().saturating_sub(1)] {
        if !folder.is_empty() {
            folder.push('/');
        }
        folder.push_str(seg);
        doc.add_text(fields.folders, &folder);
    }
    doc.add_text(fields.ext, kind.ext());
    doc.add_u64(fields.size, note.size);
    doc.add_i64(fields.mtime_ns, note.mtime_ns);
    doc
}

/// The document of a file that could not be indexed: no text (so no query matches it), only
/// what the freshness check compares and why it failed.
pub(in crate::local) fn placeholder(
    fields: &Fields,
    note: &DiskNote,
    kind: FileKind,
    reason: &str,
    hash: &[u8; 32],
    too_large: bool,
) -> TantivyDocument {
    let mut doc = file_document(fields, note, kind);
    doc.add_text(fields.skipped, stored::PLACEHOLDER);
    doc.add_u64(
        fields.stub,
        if too_large {
            STUB_TOO_LARGE
        } else {
            STUB_FAILED
        },
    );
    doc.add_text(fields.skip_reason, reason);
    doc.add_bytes(fields.hash, hash.as_slice());
    doc
}

/// The index document of one note, or of a canvas's or PDF's text.
pub(in crate::local) fn note_document(
    fields: &Fields,
    note: &DiskNote,
    kind: FileKind,
    text: &str,
    exact: bool,
    hash: &[u8; 32],
) -> TantivyDocument {
    let meta = note::parse(text);
    let mut doc = file_document(fields, note, kind);
    let file_name = note.rel.rsplit('/').next().unwrap_or("");
    doc.add_text(fields.title, kind.strip(file_name));
    for a in &meta.aliases {
        doc.add_text(fields.aliases, a);
    }
    if !meta.tags.is_empty() {
        doc.add_text(fields.tags, stored::join_tags(&meta.tags));
    }
    for t in crate::core::tag_terms(&meta.tags) {
        doc.add_text(fields.tag_paths, t);
    }
    for p in crate::core::property_terms(&meta.properties) {
        doc.add_text(fields.properties, p);
    }
    let headings: Vec<&str> = meta
        .headings
        .iter()
        .filter(|h| h.level <= 3)
        .map(|h| h.text.as_str())
        .collect();
    if !headings.is_empty() {
        doc.add_text(fields.headings, headings.join("\n"));
    }
    doc.add_text(fields.body, text);
    doc.add_bytes(fields.hash, hash.as_slice());
    let table =
        checkpoint::checkpoints(&mut analyzer::text_analyzer(), text, meta.body_start, exact);
    if !table.is_empty() {
        doc.add_bytes(fields.checkpoints, table.as_slice());
    }
    doc
}
