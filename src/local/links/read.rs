//! What the links queries read from the index: every file's path, a document's links (from
//! their fast column: no stored body is loaded; a note's links may be several values, see
//! [`codec`]), every document's links one value at a time, and the documents that may link to
//! a file (one `link_keys` term).

use anyhow::Result;
use tantivy::collector::DocSetCollector;
use tantivy::columnar::BytesColumn;
use tantivy::query::TermQuery;
use tantivy::schema::IndexRecordOption;
use tantivy::{DocAddress, Searcher, Term};

use super::codec;
use crate::local::schema::Fields;
use crate::text::links::Link;

/// Every live document's address and path, in index order, its column opened once per
/// segment.
pub(super) fn paths(searcher: &Searcher, fields: &Fields) -> Result<Vec<(DocAddress, String)>> {
    let path_name = fields.schema.get_field_name(fields.path);
    let mut out = Vec::new();
    for (ord, seg) in searcher.segment_readers().iter().enumerate() {
        let Some(paths) = seg.fast_fields().str(path_name)? else {
            continue;
        };
        // The column's values in one pass over its dictionary: looking a document's value up
        // by its ordinal reads a dictionary block per document (most of the time of a query
        // over 20,000 notes).
        let mut names: Vec<String> = Vec::with_capacity(paths.num_terms());
        let mut stream = paths.dictionary().stream()?;
        while stream.advance() {
            names.push(String::from_utf8_lossy(stream.key()).into_owned());
        }
        let alive = seg.alive_bitset();
        for doc in 0..seg.max_doc() {
            if alive.is_some_and(|a| !a.is_alive(doc)) {
                continue;
            }
            let path = match paths.term_ords(doc).next() {
                Some(o) => names.get(o as usize).cloned().unwrap_or_default(),
                None => String::new(),
            };
            if !path.is_empty() {
                out.push((DocAddress::new(ord as u32, doc), path));
            }
        }
    }
    Ok(out)
}

/// Calls `found(i, value)` for every `links` value of each document `docs[i]` (as [`paths`]
/// lists them): one value at a time, in the order of the segment's dictionary, so that a pass
/// over every link of the vault holds one note's links, never all of them.
pub(super) fn each_links_value(
    searcher: &Searcher,
    fields: &Fields,
    docs: &[(DocAddress, String)],
    mut found: impl FnMut(usize, &[u8]),
) -> Result<()> {
    let links_name = fields.schema.get_field_name(fields.links);
    let by_segment = docs.chunk_by(|a, b| a.0.segment_ord == b.0.segment_ord);
    let mut first = 0;
    for group in by_segment {
        let seg = searcher.segment_reader(group[0].0.segment_ord);
        if let Some(col) = seg.fast_fields().bytes(links_name)? {
            let at = (first..first + group.len()).map(|i| (docs[i].0.doc_id, i));
            each_value(&col, at, true, &mut found)?;
        }
        first += group.len();
    }
    Ok(())
}

/// The links the document at `addr` makes, and what of them its stored form lacks.
pub(super) fn links_and_cut(
    searcher: &Searcher,
    fields: &Fields,
    addr: DocAddress,
) -> Result<(Vec<Link>, codec::Cut)> {
    let name = fields.schema.get_field_name(fields.links);
    let ff = searcher.segment_reader(addr.segment_ord).fast_fields();
    let mut values: Vec<Vec<u8>> = Vec::new();
    if let Some(col) = ff.bytes(name)? {
        // The dictionary's order is the parts' order (their headers are numbered so).
        let mut ords: Vec<u64> = col.term_ords(addr.doc_id).collect();
        ords.sort_unstable();
        for ord in ords {
            let mut bytes = Vec::new();
            col.ord_to_bytes(ord, &mut bytes)?;
            values.push(bytes);
        }
    }
    let cut = codec::cut_of(values.iter().map(Vec::as_slice));
    let links = values.iter().flat_map(|v| codec::decode(v)).collect();
    Ok((links, cut))
}

/// The links the document at `addr` makes.
pub(super) fn links_at(
    searcher: &Searcher,
    fields: &Fields,
    addr: DocAddress,
) -> Result<Vec<Link>> {
    Ok(links_and_cut(searcher, fields, addr)?.0)
}

/// The path and links of each of `addrs`, in the order of `addrs` (an empty path when a
/// document has none): only the links whose target `keep` keeps, none without `keep`
/// (decoding the others would cost most of the work). Each segment's columns are
/// opened once and their dictionaries read in ordinal order, so that one pass over a block
/// of the dictionary serves every value in it: a note's backlinks, hundreds of them, cost
/// about one read of the blocks holding them, not a block each.
pub(super) fn paths_and_links(
    searcher: &Searcher,
    fields: &Fields,
    addrs: &[DocAddress],
    keep: Option<&dyn Fn(&str) -> bool>,
) -> Result<Vec<(String, Vec<Link>)>> {
    let path_name = fields.schema.get_field_name(fields.path);
    let links_name = fields.schema.get_field_name(fields.links);
    let mut out: Vec<(String, Vec<Link>)> = vec![(String::new(), Vec::new()); addrs.len()];
    let mut order: Vec<usize> = (0..addrs.len()).collect();
    order.sort_unstable_by_key(|&i| addrs[i]);
    for group in order.chunk_by(|&a, &b| addrs[a].segment_ord == addrs[b].segment_ord) {
        let ff = searcher
            .segment_reader(addrs[group[0]].segment_ord)
            .fast_fields();
        let docs = || group.iter().map(|&i| (addrs[i].doc_id, i));
        if let Some(col) = ff.str(path_name)? {
            each_value(&col, docs(), false, |i, bytes| {
                out[i].0 = String::from_utf8_lossy(bytes).into_owned();
            })?;
        }
        if let Some(keep) = keep {
            if let Some(col) = ff.bytes(links_name)? {
                // A note's parts come in order: the dictionary's order is theirs.
                each_value(&col, docs(), true, |i, bytes| {
                    out[i].1.extend(codec::decode_where(bytes, keep));
                })?;
            }
        }
    }
    Ok(out)
}

/// Calls `found(i, value)` for each `(doc, i)` of `docs` that has a value in `col` (each of
/// its values with `all`, else its first), reading the dictionary in ordinal order.
fn each_value(
    col: &BytesColumn,
    docs: impl Iterator<Item = (tantivy::DocId, usize)>,
    all: bool,
    mut found: impl FnMut(usize, &[u8]),
) -> Result<()> {
    let mut ords: Vec<(u64, usize)> = docs
        .flat_map(|(doc, i)| {
            col.term_ords(doc)
                .take(if all { usize::MAX } else { 1 })
                .map(move |o| (o, i))
        })
        .collect();
    ords.sort_unstable();
    let sorted: Vec<u64> = ords.iter().map(|o| o.0).collect();
    let mut at = ords.iter();
    col.dictionary().sorted_ords_to_term_cb(&sorted, |bytes| {
        if let Some(&(_, i)) = at.next() {
            found(i, bytes);
        }
    })?;
    Ok(())
}

/// The documents holding `term` in `field` (a path, a link key), in index order.
pub(super) fn holding(
    searcher: &Searcher,
    field: tantivy::schema::Field,
    term: &str,
) -> Result<Vec<DocAddress>> {
    let q = TermQuery::new(Term::from_field_text(field, term), IndexRecordOption::Basic);
    let mut docs: Vec<DocAddress> = searcher.search(&q, &DocSetCollector)?.into_iter().collect();
    docs.sort_unstable();
    Ok(docs)
}
