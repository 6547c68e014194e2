//! The folders, tags and frontmatter keys an index knows, with how many notes have each: read from the term
//! dictionaries, so it costs about the number of distinct names, not the vault's size. A
//! search whose folder or tag matches nothing names the closest of these; the MCP server's
//! vault overview lists the largest.

use anyhow::Result;
use tantivy::schema::Field;
use tantivy::Searcher;

/// Each distinct term of `field` with its note count (deleted notes not yet merged away may
/// still count), sorted by name.
pub(in crate::local) fn terms(searcher: &Searcher, field: Field) -> Result<Vec<(String, u64)>> {
    let mut all: std::collections::BTreeMap<String, u64> = Default::default();
    for segment in searcher.segment_readers() {
        let inverted = segment.inverted_index(field)?;
        let mut stream = inverted.terms().stream()?;
        while stream.advance() {
            let name = String::from_utf8_lossy(stream.key()).into_owned();
            *all.entry(name).or_default() += u64::from(stream.value().doc_freq);
        }
    }
    Ok(all.into_iter().collect())
}

/// The largest value of an i64 fast field over all segments (a modification time).
pub(in crate::local) fn newest(searcher: &Searcher, field: Field) -> Result<Option<i64>> {
    let name = searcher.schema().get_field_name(field).to_string();
    let mut newest = None;
    for segment in searcher.segment_readers() {
        if segment.num_docs() == 0 {
            continue;
        }
        let column = segment.fast_fields().i64(&name)?;
        newest = newest.max(Some(column.max_value()));
    }
    Ok(newest)
}
