//! The folders, tags and frontmatter keys an index knows, with how many notes have each: read from the term
//! dictionaries, so it costs about the number of distinct names, not the vault's size. A
//! search whose folder or tag matches nothing names the closest of these; the MCP server's
//! vault overview lists the largest. Where Obsidian's Excluded files hide notes, the overview
//! counts by each term's postings instead ([`terms_without`]), so a hidden note's folder, tags
//! and keys don't show.

use std::collections::HashSet;

use anyhow::Result;
use tantivy::collector::DocSetCollector;
use tantivy::query::{BooleanQuery, Occur, Query};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocAddress, DocSet, Searcher, TERMINATED};

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

#[cfg(feature = "mcp")]
/// The live documents any of `queries` matches (Obsidian's exclusions, see `super::ignore`).
pub(in crate::local) fn matching(
    searcher: &Searcher,
    queries: Vec<Box<dyn Query>>,
) -> Result<HashSet<DocAddress>> {
    let any = BooleanQuery::new(queries.into_iter().map(|q| (Occur::Should, q)).collect());
    Ok(searcher.search(&any, &DocSetCollector)?)
}

#[cfg(feature = "mcp")]
/// [`terms`] without the documents of `hidden`: each term's postings read, the live documents
/// outside `hidden` counted (a term only they hold is left out).
pub(in crate::local) fn terms_without(
    searcher: &Searcher,
    field: Field,
    hidden: &HashSet<DocAddress>,
) -> Result<Vec<(String, u64)>> {
    let mut all: std::collections::BTreeMap<String, u64> = Default::default();
    for (ord, segment) in searcher.segment_readers().iter().enumerate() {
        let inverted = segment.inverted_index(field)?;
        let alive = segment.alive_bitset();
        let mut stream = inverted.terms().stream()?;
        while stream.advance() {
            let mut postings =
                inverted.read_postings_from_terminfo(stream.value(), IndexRecordOption::Basic)?;
            let mut n = 0;
            let mut doc = postings.doc();
            while doc != TERMINATED {
                let live = alive.is_none_or(|a| a.is_alive(doc));
                if live && !hidden.contains(&DocAddress::new(ord as u32, doc)) {
                    n += 1;
                }
                doc = postings.advance();
            }
            if n > 0 {
                let name = String::from_utf8_lossy(stream.key()).into_owned();
                *all.entry(name).or_default() += n;
            }
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
