//! The folders and tags an index knows, with how many notes have each: read from the term
//! dictionaries, so it costs about the number of distinct names, not the vault's size. A
//! search whose folder or tag matches nothing names the closest of these.

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
