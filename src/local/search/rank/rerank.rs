//! The re-rank: the bonus signals of the README's table, read from the candidates' postings
//! (term frequencies per field, body positions for phrases: [`super::features`]), plus scaled
//! BM25; then the returned notes are read back for their excerpt, line and heading
//! ([`super::hits`]).

use anyhow::Result;
use tantivy::tokenizer::TextAnalyzer;
use tantivy::{DocAddress, Searcher};

use std::collections::HashSet;

use super::bonus::{bonus, has_phrase};
use super::features::{self, Features};
use super::matching::name_match;
use super::terms::{reads_as_sentence, ExpandedTerm};
use super::{feedback, hits, proximity};
use crate::core::{SearchHit, Sort};
use crate::local::analyzer;
use crate::local::schema::Fields;
use crate::local::search::query::ParsedQuery;
use crate::local::search::window::{self, Window};
use crate::local::stored::{self, Stored};
use crate::local::weights::weights;
use crate::text::stem_of;

/// Re-ranks BM25 candidates with the bonus signals and returns the best `limit`, each with its
/// excerpt; with [`Sort::Modified`], the newest `limit` of the re-ranked candidates, newest
/// first (only those get an excerpt).
///
/// The signals come from the postings of the candidates (term frequencies, positions), so a
/// note is only read back (and tokenized, for the excerpt) when it is returned; a giant note
/// unchanged on disk is not read back at all, only its passage's stretch of the file.
#[allow(clippy::too_many_arguments)]
pub(crate) fn rerank(
    searcher: &Searcher,
    fields: &Fields,
    q: &ParsedQuery,
    terms: &[ExpandedTerm],
    candidates: &[(f32, DocAddress)],
    limit: usize,
    order: Sort,
    vault: &std::path::Path,
    #[cfg_attr(not(feature = "tuning"), allow(unused_variables, clippy::ptr_arg))]
    warnings: &mut Vec<String>,
) -> Result<Vec<SearchHit>> {
    let mut feats = features::read(searcher, fields, q, terms, candidates)?;
    let mut analyzer = analyzer::text_analyzer();
    let rarity: Vec<f32> = terms.iter().map(|t| t.rarity).collect();
    let size = passage_tokens(terms);
    let windows: Vec<Option<Window>> = feats
        .iter_mut()
        .map(|f| window::best_window(&mut f.occs, &rarity, size, 0))
        .collect();
    let mut scored = score(
        searcher,
        q,
        terms,
        candidates,
        &feats,
        &windows,
        &mut analyzer,
        warnings,
    )?;
    if reads_as_sentence(terms) && weights().s_fb > 0.0 {
        add_feedback(
            searcher,
            fields,
            terms,
            candidates,
            &mut feats,
            &mut scored,
            &mut analyzer,
            warnings,
        )?;
    }
    sort(
        &mut scored,
        &mut feats,
        order,
        searcher,
        fields,
        candidates,
        limit,
    )?;
    scored.truncate(limit);
    // A passage is chosen over `window_tokens` positions: the re-rank's windows spare its scan
    // only when they were as wide (a sentence's are narrower).
    let shown_windows: &[Option<Window>] = if size == window::window_tokens() {
        &windows
    } else {
        &[]
    };
    hits::build(
        searcher,
        fields,
        vault,
        q,
        terms,
        candidates,
        &scored,
        &mut feats,
        shown_windows,
        &rarity,
        &mut analyzer,
    )
}

/// The final score of each candidate (bonus + scaled BM25 − length prior), with its index in
/// `candidates`; a candidate holding an excluded phrase is left out.
#[allow(clippy::too_many_arguments)]
fn score(
    searcher: &Searcher,
    q: &ParsedQuery,
    terms: &[ExpandedTerm],
    candidates: &[(f32, DocAddress)],
    feats: &[Features],
    windows: &[Option<Window>],
    analyzer: &mut TextAnalyzer,
    #[cfg_attr(not(feature = "tuning"), allow(unused_variables, clippy::ptr_arg))]
    warnings: &mut Vec<String>,
) -> Result<Vec<(f64, usize)>> {
    let max_bm25 = candidates.iter().map(|c| c.0).fold(0.0f32, f32::max);
    let content_words = terms.iter().filter(|t| !t.filler).count();
    let mut scored: Vec<(f64, usize)> = Vec::with_capacity(candidates.len());
    for (i, f) in feats.iter().enumerate() {
        if q.excluded_phrases
            .iter()
            .any(|p| has_phrase(&f.positions, p))
        {
            continue;
        }
        let mut name = if f.path.is_empty() {
            0.0
        } else {
            name_match(analyzer, &stem_of(&f.path), terms)
        };
        if f.terms.iter().any(|h| h.alias > 0.0) {
            let doc = Stored::read(searcher, candidates[i].1)?;
            for a in doc.aliases() {
                name = name.max(name_match(analyzer, a, terms));
            }
        }
        let bonus = bonus(q, terms, f, name, windows[i].as_ref());
        let bm25 = candidates[i].0;
        // Tuning builds only: each candidate's signals, to see why a note ranks where it does
        // (the front-end prints warnings on stderr).
        #[cfg(feature = "tuning")]
        if std::env::var_os("VS_EXPLAIN").is_some() {
            // The features hold a path only where a term hit the name: every line names its note.
            let doc = Stored::read(searcher, candidates[i].1)?;
            warnings.push(format!(
                "{}: bonus={bonus} bm25={bm25} name={name} lead={:?} {:?}",
                doc.path(),
                f.lead,
                f.terms
            ));
        }
        // A long note's BM25 says less about it: the same factor as its heading matches.
        let bm25 =
            bm25_part(bm25, max_bm25) * proximity::focus(f.body_len).powf(weights().focus_bm25);
        let prior = proximity::length_prior(f.body_len, content_words);
        scored.push((f64::from(bonus + bm25 - prior), i));
    }
    Ok(scored)
}

/// The passage the text's signals count in: a few sentences for keywords, one sentence or
/// line for a question ([`super::reading`]), which asks for one thing.
fn passage_tokens(terms: &[ExpandedTerm]) -> u32 {
    if reads_as_sentence(terms) && weights().sent_passage > 0.0 {
        weights().sent_passage as u32
    } else {
        window::window_tokens()
    }
}

/// Adds to each candidate's score its share of the words the best candidates share
/// ([`feedback`]).
#[allow(clippy::too_many_arguments)]
fn add_feedback(
    searcher: &Searcher,
    fields: &Fields,
    terms: &[ExpandedTerm],
    candidates: &[(f32, DocAddress)],
    feats: &mut [Features],
    scored: &mut [(f64, usize)],
    analyzer: &mut TextAnalyzer,
    #[cfg_attr(not(feature = "tuning"), allow(unused_variables, clippy::ptr_arg))]
    warnings: &mut Vec<String>,
) -> Result<()> {
    let mut best: Vec<(f64, usize)> = scored.to_vec();
    best.sort_by(|a, b| b.0.total_cmp(&a.0));
    let k = (weights().fb_docs.max(0.0) as usize).min(best.len());
    // Equal scores across the cut go by path, not by where the notes sit in the index (a
    // rebuild deals them out to its segments anew): the same vault, the same feedback.
    if let Some(run) = tie_across(&best, k, |b| b.0) {
        by_path(&mut best[run], feats, searcher, fields, candidates)?;
    }
    let top: Vec<DocAddress> = best.iter().take(k).map(|&(_, i)| candidates[i].1).collect();
    // The query's own words (and their variants) are no feedback.
    let query_words: HashSet<&str> = terms
        .iter()
        .flat_map(|t| {
            std::iter::once(t.text.as_str()).chain(t.variants.all.keys().map(String::as_str))
        })
        .collect();
    let words = feedback::words(searcher, fields, analyzer, &top, &query_words)?;
    // Tuning builds only: the feedback words, to see what a question was read as.
    #[cfg(feature = "tuning")]
    if std::env::var_os("VS_EXPLAIN").is_some() {
        warnings.push(format!("feedback words: {words:?}"));
    }
    let shares = feedback::shares(searcher, fields, &words, candidates)?;
    for (s, i) in scored.iter_mut() {
        *s += f64::from(weights().s_fb * shares[*i]);
    }
    Ok(())
}

/// The run of equal scores in `items` (sorted best first) that the cut after the first `k`
/// splits, if one does.
pub(in crate::local) fn tie_across<T, S: PartialEq>(
    items: &[T],
    k: usize,
    score: impl Fn(&T) -> S,
) -> Option<std::ops::Range<usize>> {
    if k == 0 || k >= items.len() || score(&items[k]) != score(&items[k - 1]) {
        return None;
    }
    let tie = score(&items[k - 1]);
    let start = items.iter().position(|b| score(b) == tie)?;
    let end = start
        + items[start..]
            .iter()
            .take_while(|b| score(b) == tie)
            .count();
    Some(start..end)
}

/// Orders `run` (candidates of equal score) by path, reading from the fast field the paths
/// the features do not hold (they hold one only where a term hit the name).
fn by_path(
    run: &mut [(f64, usize)],
    feats: &mut [Features],
    searcher: &Searcher,
    fields: &Fields,
    candidates: &[(f32, DocAddress)],
) -> Result<()> {
    for &(_, i) in run.iter() {
        if feats[i].path.is_empty() {
            stored::path_of(searcher, fields, candidates[i].1, &mut feats[i].path)?;
        }
    }
    run.sort_by(|a, b| feats[a.1].path.cmp(&feats[b.1].path));
    Ok(())
}

/// Best first, ties by path — ties of the score as shown (two decimals), which an index
/// updated in place and one rebuilt can reach by slightly different sums; with
/// [`Sort::Modified`], newest first.
fn sort(
    scored: &mut [(f64, usize)],
    feats: &mut [Features],
    order: Sort,
    searcher: &Searcher,
    fields: &Fields,
    candidates: &[(f32, DocAddress)],
    limit: usize,
) -> Result<()> {
    let shown = |s: f64| crate::core::round_to(s, 2);
    scored.sort_by(|a, b| {
        shown(b.0)
            .partial_cmp(&shown(a.0))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    // A run of equal scores that reaches into the returned `limit` goes by path.
    let mut start = 0;
    while start < scored.len().min(limit) {
        let end = start
            + scored[start..]
                .iter()
                .take_while(|s| shown(s.0) == shown(scored[start].0))
                .count();
        if end - start > 1 {
            by_path(&mut scored[start..end], feats, searcher, fields, candidates)?;
        }
        start = end;
    }
    if order == Sort::Modified {
        // Stable: notes of the same time keep their relevance order.
        scored.sort_by_cached_key(|&(_, i)| {
            std::cmp::Reverse(stored::mtime_of(searcher, fields, candidates[i].1))
        });
    }
    Ok(())
}

/// The BM25 part of the final score: scaled to `bm25norm` × BM25 ÷ the best candidate's.
fn bm25_part(bm25: f32, max: f32) -> f32 {
    let norm = weights().bm25norm;
    if norm > 0.0 {
        if max > 0.0 {
            norm * bm25 / max
        } else {
            0.0
        }
    } else {
        weights().bm25 * bm25
    }
}
