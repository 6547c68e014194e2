//! The re-rank: every candidate's points ([`super::points`]), from what its postings say
//! ([`super::features`]); for a sentence, the feedback of a first ranking, then its points
//! again; then the returned notes are read back for their excerpt, line and heading
//! ([`super::hits`]).

use anyhow::Result;
use tantivy::tokenizer::TextAnalyzer;
use tantivy::DocAddress;

use std::collections::HashSet;

use super::context::RankContext;
use super::features::{self, Features};
use super::matching::name_match;
use super::points::{has_phrase, points};
use super::{feedback, hits};
use crate::core::{SearchHit, Sort};
use crate::local::analyzer;
use crate::local::search::window::{self, Window};
use crate::local::stored::{self, Stored};
use crate::local::weights::weights;
use crate::text::stem_of;

/// Re-ranks the context's BM25 candidates and returns the best `limit`, each with its
/// excerpt; with [`Sort::Modified`], the newest `limit` of the re-ranked candidates, newest
/// first (only those get an excerpt).
///
/// The signals come from the postings of the candidates (term frequencies, positions), so a
/// note is only read back (and tokenized, for the excerpt) when it is returned; a giant note
/// unchanged on disk is not read back at all, only its passage's stretch of the file.
pub(in crate::local::search) fn rerank(
    cx: &RankContext,
    limit: usize,
    order: Sort,
    #[cfg_attr(not(feature = "tuning"), allow(unused_variables, clippy::ptr_arg))]
    warnings: &mut Vec<String>,
) -> Result<Vec<SearchHit>> {
    let mut feats = features::read(cx)?;
    let mut analyzer = analyzer::text_analyzer();
    let size = passage_tokens(cx);
    let windows: Vec<Option<Window>> = feats
        .iter_mut()
        .map(|f| window::best_window(&mut f.occs, &cx.rarity, size, 0))
        .collect();
    let mut scored = score(cx, &mut feats, &windows, &mut analyzer, warnings)?;
    if cx.sentence && weights().s_fb > 0.0 {
        add_feedback(
            cx,
            &mut feats,
            &windows,
            &mut scored,
            &mut analyzer,
            warnings,
        )?;
    }
    sort(cx, &mut scored, &mut feats, order, limit)?;
    scored.truncate(limit);
    // A passage is chosen over `window_tokens` positions: the re-rank's windows spare its scan
    // only when they were as wide (a sentence's are narrower).
    let shown_windows: &[Option<Window>] = if size == window::window_tokens() {
        &windows
    } else {
        &[]
    };
    hits::build(cx, &scored, &mut feats, shown_windows, &mut analyzer)
}

/// The points of each candidate ([`points`]), with its index in the candidates, its name
/// match noted in its features; a candidate holding an excluded phrase is left out.
fn score(
    cx: &RankContext,
    feats: &mut [Features],
    windows: &[Option<Window>],
    analyzer: &mut TextAnalyzer,
    #[cfg_attr(not(feature = "tuning"), allow(unused_variables, clippy::ptr_arg))]
    warnings: &mut Vec<String>,
) -> Result<Vec<(f64, usize)>> {
    let mut scored: Vec<(f64, usize)> = Vec::with_capacity(cx.candidates.len());
    for (i, f) in feats.iter_mut().enumerate() {
        if cx
            .query
            .excluded_phrases
            .iter()
            .any(|p| has_phrase(&f.positions, p))
        {
            continue;
        }
        let mut name = if f.path.is_empty() {
            0.0
        } else {
            name_match(analyzer, &stem_of(&f.path), cx.terms)
        };
        if f.terms.iter().any(|h| h.alias > 0.0) {
            let doc = Stored::read(cx.searcher, cx.candidates[i].1)?;
            for a in doc.aliases() {
                name = name.max(name_match(analyzer, a, cx.terms));
            }
        }
        f.name = name;
        let bm25 = cx.candidates[i].0;
        let score = points(cx, f, bm25, windows[i].as_ref());
        // Tuning builds only: each candidate's signals, to see why a note ranks where it does
        // (the front-end prints warnings on stderr).
        #[cfg(feature = "tuning")]
        if std::env::var_os("VS_EXPLAIN").is_some() {
            // The features hold a path only where a term hit the name: every line names its note.
            let doc = Stored::read(cx.searcher, cx.candidates[i].1)?;
            warnings.push(format!(
                "{}: points={score} bm25={bm25} name={name} lead={:?} {:?}",
                doc.path(),
                f.lead,
                f.terms
            ));
        }
        scored.push((score, i));
    }
    Ok(scored)
}

/// The passage the text's signals count in: a few sentences for keywords, one sentence or
/// line for a question ([`super::reading`]), which asks for one thing.
fn passage_tokens(cx: &RankContext) -> u32 {
    if cx.sentence && weights().sent_passage > 0.0 {
        weights().sent_passage as u32
    } else {
        window::window_tokens()
    }
}

/// Notes in each candidate's features its share of the words the best candidates share
/// ([`feedback`]), and scores the candidates again with it.
fn add_feedback(
    cx: &RankContext,
    feats: &mut [Features],
    windows: &[Option<Window>],
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
        by_path(cx, &mut best[run], feats)?;
    }
    let top: Vec<DocAddress> = best
        .iter()
        .take(k)
        .map(|&(_, i)| cx.candidates[i].1)
        .collect();
    // The query's own words (and their variants) are no feedback.
    let query_words: HashSet<&str> = cx
        .terms
        .iter()
        .flat_map(|t| {
            std::iter::once(t.text.as_str()).chain(t.variants.all.keys().map(String::as_str))
        })
        .collect();
    let words = feedback::words(cx.searcher, cx.fields, analyzer, &top, &query_words)?;
    // Tuning builds only: the feedback words, to see what a question was read as.
    #[cfg(feature = "tuning")]
    if std::env::var_os("VS_EXPLAIN").is_some() {
        warnings.push(format!("feedback words: {words:?}"));
    }
    let shares = feedback::shares(cx.searcher, cx.fields, &words, cx.candidates)?;
    for (s, i) in scored.iter_mut() {
        let f = &mut feats[*i];
        f.feedback = shares[*i];
        *s = points(cx, f, cx.candidates[*i].0, windows[*i].as_ref());
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
fn by_path(cx: &RankContext, run: &mut [(f64, usize)], feats: &mut [Features]) -> Result<()> {
    for &(_, i) in run.iter() {
        if feats[i].path.is_empty() {
            let addr = cx.candidates[i].1;
            stored::path_of(cx.searcher, cx.fields, addr, &mut feats[i].path)?;
        }
    }
    run.sort_by(|a, b| feats[a.1].path.cmp(&feats[b.1].path));
    Ok(())
}

/// Best first, ties by path — ties of the score as shown (two decimals), which an index
/// updated in place and one rebuilt can reach by slightly different sums; with
/// [`Sort::Modified`], newest first.
fn sort(
    cx: &RankContext,
    scored: &mut [(f64, usize)],
    feats: &mut [Features],
    order: Sort,
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
            by_path(cx, &mut scored[start..end], feats)?;
        }
        start = end;
    }
    if order == Sort::Modified {
        // Stable: notes of the same time keep their relevance order.
        scored.sort_by_cached_key(|&(_, i)| {
            std::cmp::Reverse(stored::mtime_of(cx.searcher, cx.fields, cx.candidates[i].1))
        });
    }
    Ok(())
}
