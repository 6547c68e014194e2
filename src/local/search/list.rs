//! Notes by modification time: the answer to a search with filters and no words
//! (`--tag meeting --since 7d`).
//!
//! A listing is the filter clauses over all notes, collected newest first straight from the
//! `mtime_ns` fast column, so it costs about the filters, whatever the vault's size.

use anyhow::{Context, Result};
use tantivy::collector::TopDocs;
use tantivy::query::{AllQuery, BooleanQuery, Occur, Query};
use tantivy::{DocAddress, Order, Searcher};

use super::filter::{clauses as filter_clauses, Narrowing};
use super::query::ParsedQuery;
use crate::core::{rfc3339, FileKind, SearchHit, ENGINE_LOCAL};
use crate::local::analyzer;
use crate::local::schema::Fields;
use crate::local::stored::Stored;
use crate::text::{excerpt, note, stem_of};

/// The notes that pass every filter, newest first, at most `limit`.
pub(in crate::local) fn newest(
    searcher: &Searcher,
    fields: &Fields,
    q: &ParsedQuery,
    narrow: Narrowing<'_>,
    ignored: Vec<Box<dyn Query>>,
    limit: usize,
) -> Result<Vec<SearchHit>> {
    let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Must, Box::new(AllQuery))];
    clauses.extend(filter_clauses(fields, q, narrow, ignored));
    let query = BooleanQuery::new(clauses);
    // Excluded phrases are checked on the text afterwards (as in the ranked path): fetch more
    // so the limit still fills.
    let k = if q.excluded_phrases.is_empty() {
        limit
    } else {
        limit.saturating_mul(4).max(200)
    };
    let mtime = fields.schema.get_field_name(fields.mtime_ns);
    let top: Vec<(Option<i64>, DocAddress)> = searcher
        .search(
            &query,
            &TopDocs::with_limit(k).order_by_fast_field::<i64>(mtime, Order::Desc),
        )
        .context("listing the index")?;
    let mut analyzer = analyzer::text_analyzer();
    let mut out = Vec::with_capacity(limit.min(top.len()));
    for (ns, addr) in top {
        if out.len() >= limit {
            break;
        }
        let doc = Stored::read(searcher, addr).context("reading a stored note")?;
        let body = doc.body();
        if !q.excluded_phrases.is_empty() {
            let tokens: Vec<String> = analyzer::analyze(&mut analyzer, body)
                .into_iter()
                .map(|t| t.text)
                .collect();
            let has = |p: &Vec<String>| tokens.windows(p.len()).any(|w| w == p.as_slice());
            if q.excluded_phrases.iter().any(has) {
                continue;
            }
        }
        let path = doc.path().to_string();
        let meta = note::parse(body);
        let pos = first_text(body, meta.body_start);
        let kind = FileKind::of_name(&path).unwrap_or_default();
        // A canvas's first card, a PDF's first page.
        out.push(SearchHit {
            vault: None,
            basename: stem_of(&path),
            path,
            kind,
            page: kind.page_at(body, pos),
            score: 0.0,
            excerpt: kind.excerpt(body, pos, meta.body_start),
            engine: ENGINE_LOCAL.into(),
            line: kind.text_is_file().then(|| excerpt::line_of(body, pos)),
            heading: if kind.has_headings() {
                note::heading_at(&meta, pos)
            } else {
                None
            },
            // A listing asked no question: its excerpt is where the note's text starts.
            passages: Vec::new(),
            tags: meta.tags,
            aliases: meta.aliases,
            modified: ns.and_then(rfc3339),
            modified_ns: ns,
            matched: Vec::new(),
            highlight: Vec::new(),
            links_in: None,
        });
    }
    Ok(out)
}

/// Where the text of a note starts: its first non-blank line after the frontmatter.
fn first_text(body: &str, from: usize) -> usize {
    let rest = &body[from.min(body.len())..];
    let skip = rest.len() - rest.trim_start().len();
    from + skip
}
