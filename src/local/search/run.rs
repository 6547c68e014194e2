//! One search of an opened index: parse the query, expand its terms, collect BM25
//! candidates, re-rank them, shape the hits — or, with filters (or `sort: modified`) and no
//! words, list the notes that pass them, newest first ([`super::list`]). Each hit then says
//! how many notes link to it (`crate::local::links::count_incoming`).

use anyhow::{Context, Result};
use tantivy::collector::TopDocs;
use tantivy::Searcher;

use super::docs::DocsQuery;
use super::{filter, ignore, list, query, rank};
use crate::core::{SearchHit, SearchOptions, Sort};
use crate::local::schema::Fields;
use crate::local::{analyzer, links, schema, stored};

/// Candidates fetched past the cut, to see a run of equal scores across it.
const TIE_MARGIN: usize = 20;

/// Searches an opened index; problems that did not stop it (a bad exclusion pattern) go to
/// `warnings`.
pub(crate) fn run(
    searcher: &Searcher,
    opts: &SearchOptions,
    warnings: &mut Vec<String>,
) -> Result<Vec<SearchHit>> {
    let fields = schema::fields();
    let mut analyzer = analyzer::text_analyzer();
    let parsed = query::parse(&mut analyzer, &opts.query);
    let linked = links::allowed_docs(searcher, fields, &opts.vault, &opts.filters)?
        .map(|docs| DocsQuery::new(searcher, &docs));
    let narrow = filter::Narrowing {
        scope: &opts.scope,
        filters: &opts.filters,
        linked: linked.as_ref(),
    };
    // Built once: `app.json` is read, and a bad filter reported, once per search.
    let ignored = if opts.include_ignored {
        Vec::new()
    } else {
        let filters = ignore::filters(&opts.vault, warnings);
        ignore::queries(&filters, fields.path, warnings)
    };
    if parsed.is_empty() {
        // Asked for newest first, no words is a listing too (of the scope, or the vault).
        if filter::lists_without_words(&parsed, &opts.filters) || opts.sort == Sort::Modified {
            let mut hits = list::newest(searcher, fields, &parsed, narrow, ignored, opts.limit)?;
            links::count_incoming(searcher, fields, &opts.vault, &mut hits)?;
            return Ok(hits);
        }
        return Ok(Vec::new());
    }
    let mut terms = rank::expand_query(searcher, fields, &parsed)?;
    rank::set_rarity(searcher, fields, &mut terms)?;
    // Excluded phrases are filtered after the candidates: fetch more so the limit still fills.
    let k = rank::CANDIDATES.max(opts.limit)
        * if parsed.excluded_phrases.is_empty() {
            1
        } else {
            2
        };
    // A few more than `k`, so that equal scores across the cut are seen whole (see `cut`).
    let collector = TopDocs::with_limit(k + TIE_MARGIN).order_by_score();
    let mut candidates = Vec::new();
    // Quoted phrases are required; when no note has them, fall back to ranking without the
    // requirement rather than answering nothing.
    let tries: &[bool] = if parsed.phrases.is_empty() {
        &[false]
    } else {
        &[true, false]
    };
    for &require in tries {
        let q = rank::candidate_query(
            fields,
            &parsed,
            &terms,
            require,
            narrow,
            ignored.iter().map(|q| q.box_clone()).collect(),
        );
        candidates = searcher
            .search(&q, &collector)
            .context("searching the index")?;
        cut(searcher, fields, &mut candidates, k)?;
        if !candidates.is_empty() {
            break;
        }
    }
    // Newest first: the best candidates, re-ranked (which drops excluded phrases), then
    // ordered by time.
    let mut cx =
        rank::RankContext::new(searcher, fields, &parsed, &terms, &candidates, &opts.vault);
    cx.passage_bytes = opts.passage_bytes;
    let mut hits = rank::rerank(&cx, opts.limit, opts.sort, warnings)?;
    links::count_incoming(searcher, fields, &opts.vault, &mut hits)?;
    Ok(hits)
}

/// Keeps the best `k` of `candidates` (best first), taking those of equal score across the cut
/// by path, not by where they sit in the index: a rebuild deals the notes out to its segments
/// anew, and templated notes (pages of one tool, daily notes) often score the same. A run
/// longer than the margin is cut where it is.
fn cut(
    searcher: &Searcher,
    fields: &Fields,
    candidates: &mut Vec<(f32, tantivy::DocAddress)>,
    k: usize,
) -> Result<()> {
    if let Some(run) = rank::tie_across(candidates, k, |c| c.0) {
        let mut paths: Vec<(String, (f32, tantivy::DocAddress))> = Vec::new();
        for &c in &candidates[run.clone()] {
            let mut path = String::new();
            stored::path_of(searcher, fields, c.1, &mut path)?;
            paths.push((path, c));
        }
        paths.sort_by(|a, b| a.0.cmp(&b.0));
        for (slot, (_, c)) in candidates[run].iter_mut().zip(paths) {
            *slot = c;
        }
    }
    candidates.truncate(k);
    Ok(())
}
