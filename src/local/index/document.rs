//! The documents the indexer writes: a note's (or a canvas's or PDF's text), and the
//! placeholder of a file that could not be indexed.

use tantivy::schema::{Field, OwnedValue};
use tantivy::Document;

use super::budget::Share;
use super::manifest::{STUB_FAILED, STUB_TOO_LARGE};
use super::walk::DiskNote;
use crate::core::FileKind;
use crate::local::links::{codec, key_of, target_key};
use crate::local::schema::Fields;
use crate::local::{analyzer, checkpoint, stored};
use crate::text::links::{self as text_links, Link};
use crate::text::note;

/// A document as the indexer hands it to tantivy: its values in the order they were added
/// (the order a `TantivyDocument` keeps, so the index is the same), owned as they are — a
/// note's text is moved in, not copied into a `TantivyDocument`'s buffer — and the share of
/// the build's text budget it holds until tantivy, having indexed it, drops it.
#[derive(Debug, Default)]
pub(in crate::local) struct NoteDoc {
    values: Vec<(Field, OwnedValue)>,
    share: Option<Share>,
}

impl NoteDoc {
    fn add_text(&mut self, field: Field, text: impl Into<String>) {
        self.values.push((field, OwnedValue::Str(text.into())));
    }

    fn add_u64(&mut self, field: Field, v: u64) {
        self.values.push((field, OwnedValue::U64(v)));
    }

    fn add_i64(&mut self, field: Field, v: i64) {
        self.values.push((field, OwnedValue::I64(v)));
    }

    fn add_bytes(&mut self, field: Field, bytes: Vec<u8>) {
        self.values.push((field, OwnedValue::Bytes(bytes)));
    }

    /// Holds `share` until the document is dropped.
    pub(in crate::local) fn hold(&mut self, share: Share) {
        self.share = Some(share);
    }
}

type Values<'a> = std::iter::Map<
    std::slice::Iter<'a, (Field, OwnedValue)>,
    fn(&'a (Field, OwnedValue)) -> (Field, &'a OwnedValue),
>;

impl Document for NoteDoc {
    type Value<'a> = &'a OwnedValue;
    type FieldsValuesIter<'a> = Values<'a>;

    fn iter_fields_and_values(&self) -> Values<'_> {
        self.values.iter().map(|(f, v)| (*f, v))
    }
}

/// The path, folders and kind of a file: what every document has.
fn file_document(fields: &Fields, note: &DiskNote, kind: FileKind) -> NoteDoc {
    let mut doc = NoteDoc::default();
    doc.values.reserve(16);
    doc.add_text(fields.path, note.rel.as_str());
    // Every ancestor: `a`, `a/b` for `a/b/n.md`.
    if let Some((dirs, _)) = note.rel.rsplit_once('/') {
        for (end, _) in dirs.match_indices('/') {
            doc.add_text(fields.folders, &dirs[..end]);
        }
        doc.add_text(fields.folders, dirs);
    }
    doc.add_text(fields.name_key, codec::name_term(&key_of(&note.rel)));
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
) -> NoteDoc {
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
    doc.add_bytes(fields.hash, hash.to_vec());
    doc
}

/// The index document of one note, or of a canvas's or PDF's text (moved into it);
/// `card_links` are a canvas's file and link cards.
pub(in crate::local) fn note_document(
    fields: &Fields,
    note: &DiskNote,
    kind: FileKind,
    text: String,
    exact: bool,
    hash: &[u8; 32],
    card_links: Vec<Link>,
) -> NoteDoc {
    let meta = note::parse(&text);
    let mut doc = file_document(fields, note, kind);
    // A PDF's text is no Markdown: a `[[` in it is no link.
    let mut links = if kind.is_markdown() {
        text_links::parse(&text, meta.body_start)
    } else {
        Vec::new()
    };
    links.extend(card_links);
    add_links(fields, &mut doc, &links);
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
    let table = checkpoint::checkpoints(
        &mut analyzer::text_analyzer(),
        &text,
        meta.body_start,
        exact,
    );
    doc.add_text(fields.body, text);
    doc.add_bytes(fields.hash, hash.to_vec());
    if !table.is_empty() {
        for part in checkpoint::parts(table) {
            doc.add_bytes(fields.checkpoints, part);
        }
    }
    doc
}

/// The links of a note, and for each distinct file name they name a `link_keys` term.
fn add_links(fields: &Fields, doc: &mut NoteDoc, links: &[Link]) {
    if links.is_empty() {
        return;
    }
    let mut keys: Vec<String> = links
        .iter()
        .filter(|l| !l.target.is_empty())
        .map(|l| codec::key_term(&target_key(&l.target)))
        .collect();
    keys.sort_unstable();
    keys.dedup();
    for k in keys {
        doc.add_text(fields.link_keys, k);
    }
    let at_most = links.len() >= text_links::MAX_LINKS;
    for value in codec::encode(links, at_most) {
        doc.add_bytes(fields.links, value);
    }
}
