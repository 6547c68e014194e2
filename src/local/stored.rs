//! The stored document: the one place that reads a document back from the index, and that
//! names the values the index stores for the other sides to agree on (the placeholder marker,
//! the tags codec). The indexer writes documents with these; the search side and `status`
//! read them only through here.

use anyhow::{Context, Result};
use tantivy::schema::Value;
use tantivy::{DocAddress, Searcher, TantivyDocument};

use crate::core::SkippedFile;
use crate::local::schema::{self, Fields};

/// The `skipped` field's value on a placeholder: a file that could not be indexed, which no
/// query matches and no listing shows.
pub(in crate::local) const PLACEHOLDER: &str = "yes";

/// A note's tags as its one stored `tags` value (a tag holds no spaces).
pub(in crate::local) fn join_tags(tags: &[String]) -> String {
    tags.join(" ")
}

/// The tags of a stored `tags` value.
pub(in crate::local) fn split_tags(stored: &str) -> Vec<String> {
    stored.split(' ').map(str::to_string).collect()
}

/// The indexed modification time of a document.
pub(in crate::local) fn mtime_of(
    searcher: &Searcher,
    fields: &Fields,
    addr: DocAddress,
) -> Option<i64> {
    let name = fields.schema.get_field_name(fields.mtime_ns);
    searcher
        .segment_reader(addr.segment_ord)
        .fast_fields()
        .i64(name)
        .ok()?
        .first(addr.doc_id)
}

/// The path of a document from its fast field: no stored block is decompressed.
pub(in crate::local) fn path_of(
    searcher: &Searcher,
    fields: &Fields,
    addr: DocAddress,
    out: &mut String,
) -> Result<()> {
    let name = fields.schema.get_field_name(fields.path);
    if let Some(paths) = searcher
        .segment_reader(addr.segment_ord)
        .fast_fields()
        .str(name)?
    {
        if let Some(ord) = paths.term_ords(addr.doc_id).next() {
            paths.ord_to_str(ord, out)?;
        }
    }
    Ok(())
}

/// A placeholder's path and the reason its document keeps.
pub(in crate::local) fn placeholder(searcher: &Searcher, addr: DocAddress) -> Result<SkippedFile> {
    let fields = schema::fields();
    let doc: TantivyDocument = searcher.doc(addr).context("reading a placeholder")?;
    let text = |field| {
        doc.get_first(field)
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_string()
    };
    Ok(SkippedFile {
        path: text(fields.path),
        reason: text(fields.skip_reason),
    })
}

/// A stored document, read whole (its body included).
pub(in crate::local) struct Stored {
    doc: TantivyDocument,
    fields: &'static Fields,
}

impl Stored {
    /// Reads the document at `addr` (the caller says what it was reading in an error).
    pub(in crate::local) fn read(searcher: &Searcher, addr: DocAddress) -> tantivy::Result<Self> {
        Ok(Stored {
            doc: searcher.doc(addr)?,
            fields: schema::fields(),
        })
    }

    fn text(&self, field: tantivy::schema::Field) -> &str {
        self.doc
            .get_first(field)
            .and_then(|v| v.as_str())
            .unwrap_or_default()
    }

    pub(in crate::local) fn path(&self) -> &str {
        self.text(self.fields.path)
    }

    /// The indexed text: a note's, or the text made from a canvas or a PDF.
    pub(in crate::local) fn body(&self) -> &str {
        self.text(self.fields.body)
    }

    /// The checkpoint table (empty for a small note), joined from its parts.
    pub(in crate::local) fn checkpoints(&self) -> std::borrow::Cow<'_, [u8]> {
        let mut values = self
            .doc
            .get_all(self.fields.checkpoints)
            .filter_map(|v| v.as_bytes());
        let Some(first) = values.next() else {
            return std::borrow::Cow::Borrowed(&[]);
        };
        let rest: Vec<&[u8]> = values.collect();
        if rest.is_empty() {
            return std::borrow::Cow::Borrowed(first);
        }
        let all = std::iter::once(first).chain(rest).map(<[u8]>::to_vec);
        std::borrow::Cow::Owned(crate::local::checkpoint::join(all.collect()))
    }

    /// The content hash the indexer recorded.
    pub(in crate::local) fn hash(&self) -> Option<&[u8]> {
        self.doc
            .get_first(self.fields.hash)
            .and_then(|v| v.as_bytes())
    }

    pub(in crate::local) fn tags(&self) -> Vec<String> {
        self.doc
            .get_first(self.fields.tags)
            .and_then(|v| v.as_str())
            .map(split_tags)
            .unwrap_or_default()
    }

    pub(in crate::local) fn aliases(&self) -> impl Iterator<Item = &str> {
        self.doc
            .get_all(self.fields.aliases)
            .filter_map(|v| v.as_str())
    }
}
