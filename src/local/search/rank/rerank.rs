//! The re-rank: the bonus signals of the README's table, read from the candidates' postings
//! (term frequencies per field, body positions for phrases), plus scaled BM25; then the
//! returned notes are read back for their excerpt, line and heading.

use std::collections::HashMap;

use anyhow::{Context, Result};
use tantivy::postings::Postings;
use tantivy::schema::{IndexRecordOption, Value};
use tantivy::{DocAddress, DocSet, Searcher, TantivyDocument, Term};

use super::matching::name_match;
use super::{bm25_part, proximity, ExpandedTerm};
use crate::core::{round_to, FileKind, SearchHit, Sort, ENGINE_LOCAL};
use crate::local::analyzer;
use crate::local::schema::Fields;
use crate::local::search::query::ParsedQuery;
use crate::local::search::window::{self, Occ, Window};
use crate::local::search::{list, show};
use crate::local::weights::tune;
use crate::text::{excerpt, parts, stem_of};

/// What the postings say about one query term in one note (best variant weight per field,
/// weighted occurrence counts).
#[derive(Debug, Clone, Copy, Default)]
struct TermHits {
    title: f32,
    alias: f32,
    head: f32,
    head_tf: f32,
    body: f32,
    body_tf: f32,
    tags: f32,
}

/// Signals of one candidate, read from the index (no re-tokenizing of the note).
#[derive(Debug, Clone, Default)]
struct Features {
    path: String,
    terms: Vec<TermHits>,
    /// Body positions of the tokens that make up phrases.
    positions: HashMap<String, Vec<u32>>,
    /// Body positions of every query term's variants: where the passages are.
    occs: Vec<Occ>,
    /// Tokens in the body (tantivy's field norm: exact to 40, then within a few percent).
    body_len: u32,
}

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
    let mut feats: Vec<Features> = vec![Features::default(); candidates.len()];
    for f in &mut feats {
        f.terms = vec![TermHits::default(); terms.len()];
    }
    let mut phrase_tokens: Vec<&String> = q
        .phrases
        .iter()
        .chain(q.excluded_phrases.iter())
        .chain(std::iter::once(&q.sequence))
        .filter(|p| p.len() >= 2)
        .flatten()
        .collect();
    phrase_tokens.sort();
    phrase_tokens.dedup();

    let mut by_segment: HashMap<u32, Vec<(usize, u32)>> = HashMap::new();
    for (i, (_, addr)) in candidates.iter().enumerate() {
        by_segment
            .entry(addr.segment_ord)
            .or_default()
            .push((i, addr.doc_id));
    }
    let path_name = fields.schema.get_field_name(fields.path).to_string();
    for (seg_ord, mut docs) in by_segment {
        docs.sort_by_key(|d| d.1);
        let seg = searcher.segment_reader(seg_ord);
        for (ti, t) in terms.iter().enumerate() {
            for (field, vars) in &t.variants.per_field {
                let inv = seg.inverted_index(*field)?;
                // Body positions give the passages; the other fields need counts only.
                let option = if *field == fields.body {
                    IndexRecordOption::WithFreqsAndPositions
                } else {
                    IndexRecordOption::WithFreqs
                };
                for (s, w) in vars {
                    let term = Term::from_field_text(*field, s);
                    for_each_hit(&inv, &term, option, &docs, |i, postings| {
                        let tf = postings.term_freq() as f32;
                        let h = &mut feats[i].terms[ti];
                        let slot = if *field == fields.title {
                            &mut h.title
                        } else if *field == fields.aliases {
                            &mut h.alias
                        } else if *field == fields.headings {
                            h.head_tf += w * tf;
                            &mut h.head
                        } else if *field == fields.tags {
                            &mut h.tags
                        } else {
                            h.body_tf += w * tf;
                            window::collect(postings, ti, *w, &mut feats[i].occs);
                            &mut feats[i].terms[ti].body
                        };
                        *slot = slot.max(*w);
                    })?;
                }
            }
        }
        // The path (for the file-name signal) only where a term hit the name or an alias;
        // returned notes get theirs from the stored document.
        if let Some(paths) = seg.fast_fields().str(&path_name)? {
            for &(i, doc) in &docs {
                let named = feats[i]
                    .terms
                    .iter()
                    .any(|h| h.title > 0.0 || h.alias > 0.0);
                if named {
                    if let Some(ord) = paths.term_ords(doc).next() {
                        paths.ord_to_str(ord, &mut feats[i].path)?;
                    }
                }
            }
        }
        let norms = seg.get_fieldnorms_reader(fields.body)?;
        for &(i, doc) in &docs {
            feats[i].body_len = norms.fieldnorm(doc);
        }
        let inv = seg.inverted_index(fields.body)?;
        for tok in &phrase_tokens {
            let term = Term::from_field_text(fields.body, tok);
            let option = IndexRecordOption::WithFreqsAndPositions;
            for_each_hit(&inv, &term, option, &docs, |i, postings| {
                let mut pos = Vec::new();
                postings.positions(&mut pos);
                feats[i].positions.insert((*tok).clone(), pos);
            })?;
        }
    }

    let mut analyzer = analyzer::text_analyzer();
    let rarity: Vec<f32> = terms.iter().map(|t| t.rarity).collect();
    let windows: Vec<Option<Window>> = feats
        .iter_mut()
        .map(|f| window::best_window(&mut f.occs, &rarity, window::window_tokens(), 0))
        .collect();
    let max_bm25 = candidates.iter().map(|c| c.0).fold(0.0f32, f32::max);
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
            name_match(&mut analyzer, &stem_of(&f.path), terms)
        };
        if f.terms.iter().any(|h| h.alias > 0.0) {
            let doc: TantivyDocument = searcher.doc(candidates[i].1)?;
            for a in doc.get_all(fields.aliases).filter_map(|v| v.as_str()) {
                name = name.max(name_match(&mut analyzer, a, terms));
            }
        }
        let bonus = bonus(q, terms, f, name, windows[i].as_ref());
        let bm25 = candidates[i].0;
        // Tuning builds only: each candidate's signals, to see why a note ranks where it does
        // (the front-end prints warnings on stderr).
        #[cfg(feature = "tuning")]
        if std::env::var_os("VS_EXPLAIN").is_some() {
            warnings.push(format!(
                "{}: bonus={bonus} bm25={bm25} name={name} {:?}",
                f.path, f.terms
            ));
        }
        // A long note's BM25 says less about it: the same factor as its heading matches.
        let bm25 =
            bm25_part(bm25, max_bm25) * proximity::focus(f.body_len).powf(tune("focus_bm25", 1.0));
        let prior = proximity::length_prior(f.body_len, terms.len());
        scored.push((f64::from(bonus + bm25 - prior), i));
    }
    scored.sort_by(|a, b| {
        b.0.partial_cmp(&a.0)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| feats[a.1].path.cmp(&feats[b.1].path))
    });
    if order == Sort::Modified {
        // Stable: notes of the same time keep their relevance order.
        scored.sort_by_cached_key(|&(_, i)| {
            std::cmp::Reverse(list::mtime_of(searcher, fields, candidates[i].1))
        });
    }
    scored.truncate(limit);

    let phrases: Vec<&[String]> = q
        .phrases
        .iter()
        .chain(std::iter::once(&q.sequence))
        .map(Vec::as_slice)
        .collect();
    let mut out = Vec::with_capacity(scored.len());
    for (score, i) in scored {
        let f = &mut feats[i];
        // A giant note unchanged on disk: its passage comes from the file, not the doc store.
        if let Some(d) = show::disk::show(
            searcher,
            fields,
            vault,
            candidates[i].1,
            &mut analyzer,
            &phrases,
            &f.positions,
            &mut f.occs,
            &rarity,
        )? {
            let (matched, highlight) = matched_terms(terms, &f.terms);
            let modified_ns = list::mtime_of(searcher, fields, candidates[i].1);
            out.push(SearchHit {
                basename: stem_of(&d.path),
                path: d.path,
                // Only a note's text is its file's bytes: the others never take this path.
                kind: FileKind::Note,
                page: None,
                score: round_to(score, 2),
                engine: ENGINE_LOCAL.into(),
                excerpt: d.excerpt,
                line: Some(d.spot.line),
                heading: d.spot.heading,
                tags: d.tags,
                aliases: d.aliases,
                modified: modified_ns.and_then(crate::core::rfc3339),
                modified_ns,
                matched,
                highlight,
            });
            continue;
        }
        let doc: TantivyDocument = searcher
            .doc(candidates[i].1)
            .context("reading a stored note")?;
        let body = doc
            .get_first(fields.body)
            .and_then(|v| v.as_str())
            .unwrap_or_default();
        let table = doc
            .get_first(fields.checkpoints)
            .and_then(|v| v.as_bytes())
            .unwrap_or_default();
        // The best passage (a phrase first), located through the checkpoint table: the work
        // is bounded by the passage, not the note.
        let shown = show::show(
            &mut analyzer,
            body,
            table,
            &phrases,
            &f.positions,
            &mut f.occs,
            &rarity,
        );
        let pos = shown.spot.offset;
        let path = doc
            .get_first(fields.path)
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_string();
        let modified_ns = list::mtime_of(searcher, fields, candidates[i].1);
        let (matched, highlight) = matched_terms(terms, &feats[i].terms);
        let kind = FileKind::of_name(&path).unwrap_or_default();
        // A canvas's card or a PDF's page bounds the excerpt: it never mixes two of them.
        let (excerpt, line, page) = match kind {
            FileKind::Note => (
                excerpt::make_excerpt_from(body, pos, shown.text_start),
                Some(shown.spot.line),
                None,
            ),
            FileKind::Canvas | FileKind::Pdf => {
                let (from, to) = parts::bounds(body, pos);
                let cut = excerpt::make_excerpt_from(&body[..to], pos, from);
                // A line of the text made from a board or a PDF points nowhere in the file.
                let page = (kind == FileKind::Pdf).then(|| parts::number_at(body, pos));
                (cut, None, page)
            }
        };
        out.push(SearchHit {
            basename: stem_of(&path),
            path,
            kind,
            page,
            score: round_to(score, 2),
            engine: ENGINE_LOCAL.into(),
            excerpt,
            line,
            heading: match kind {
                FileKind::Pdf => None,
                _ => shown.spot.heading,
            },
            // From the stored fields: parsing the note again would read all of it.
            tags: doc
                .get_first(fields.tags)
                .and_then(|v| v.as_str())
                .map(|t| t.split(' ').map(str::to_string).collect())
                .unwrap_or_default(),
            aliases: doc
                .get_all(fields.aliases)
                .filter_map(|v| v.as_str())
                .map(str::to_string)
                .collect(),
            modified: modified_ns.and_then(crate::core::rfc3339),
            modified_ns,
            matched,
            highlight,
        });
    }
    Ok(out)
}

/// The query terms a note matched, and every variant of them to highlight.
fn matched_terms(terms: &[ExpandedTerm], hits: &[TermHits]) -> (Vec<String>, Vec<String>) {
    let mut matched = Vec::new();
    let mut highlight = Vec::new();
    for (t, h) in terms.iter().zip(hits) {
        if h.title.max(h.alias).max(h.head).max(h.body).max(h.tags) > 0.0 {
            matched.push(t.text.clone());
            highlight.extend(t.variants.all.keys().cloned());
        }
    }
    (matched, highlight)
}

/// Calls `f(i, postings)` for each candidate `(i, doc)` (sorted by doc) that holds `term`,
/// with the postings positioned on that document.
fn for_each_hit(
    inv: &tantivy::InvertedIndexReader,
    term: &Term,
    option: IndexRecordOption,
    docs: &[(usize, u32)],
    mut f: impl FnMut(usize, &mut tantivy::postings::SegmentPostings),
) -> Result<()> {
    let Some(mut postings) = inv.read_postings(term, option)? else {
        return Ok(());
    };
    for &(i, doc) in docs {
        if postings.doc() <= doc && postings.seek(doc) == doc {
            f(i, &mut postings);
        }
    }
    Ok(())
}

/// Does the body hold `phrase` (consecutive positions)?
fn has_phrase(positions: &HashMap<String, Vec<u32>>, phrase: &[String]) -> bool {
    let Some(first) = phrase.first().and_then(|t| positions.get(t)) else {
        return false;
    };
    first.iter().any(|&p| {
        phrase[1..].iter().enumerate().all(|(k, t)| {
            positions
                .get(t)
                .is_some_and(|v| v.binary_search(&(p + k as u32 + 1)).is_ok())
        })
    })
}

/// The seed's bonus signals for one note (see the module docs), from its features and how
/// well its name matches the query.
fn bonus(
    q: &ParsedQuery,
    terms: &[ExpandedTerm],
    f: &Features,
    name: f32,
    window: Option<&Window>,
) -> f32 {
    let n = f.terms.len();
    if n == 0 {
        return 0.0;
    }
    let mut bonus = 0.0f32;
    let mut min_match = 1.0f32;
    let mut sum_match = 0.0f32;
    let mut tf = 0.0f32;
    for (k, (h, t)) in f.terms.iter().zip(terms).enumerate() {
        let title = h.title.max(h.alias);
        // In the text, a word counts where the best passage holds it, not anywhere in the note.
        let (body, head, body_tf) = proximity::near(h.body, h.head, h.body_tf, window, k);
        let matched = title.max(body).max(head).max(h.tags);
        min_match = min_match.min(matched);
        sum_match += matched * t.rarity;
        tf += body_tf;
        let r = if tune("rar_term", 0.0) > 0.0 {
            t.rarity
        } else {
            1.0
        };
        bonus += tune("s_term", 20.0) * matched * r
            + tune("s_title", 8.0) * title
            + tune("s_head", 2.0) * h.head_tf.min(3.0) * proximity::focus(f.body_len);
    }
    if min_match > 0.0 {
        bonus += tune("s_all", 80.0) * min_match;
    } else {
        let frac = sum_match / n as f32;
        bonus += tune("s_part", 40.0) * frac.powf(tune("cov_pow", 2.0));
    }
    bonus += tf.min(tune("s_tf", 5.0));
    // The query as the file name (or an alias): +80 scaled by how much of the query is in the
    // name and how much of the name is the query, +40 more when they are the same words;
    // otherwise the query as a phrase in the body +30.
    bonus += tune("s_ptitle", 80.0) * name;
    if name >= 0.999 {
        bonus += tune("s_exact_title", 40.0);
    } else if q.sequence.len() >= 2 && has_phrase(&f.positions, &q.sequence) {
        bonus += tune("s_pbody", 30.0);
    }
    for p in &q.phrases {
        if has_phrase(&f.positions, p) {
            bonus += tune("s_qphrase", 60.0);
        }
    }
    bonus
}

#[cfg(test)]
mod tests {
    //! Each signal of the README's table, in points, on hand-made features.
    use super::*;
    use crate::local::search::query;
    use crate::local::search::rank::Variants;

    fn q(text: &str) -> ParsedQuery {
        query::parse(&mut analyzer::text_analyzer(), text)
    }

    fn terms(q: &ParsedQuery) -> Vec<ExpandedTerm> {
        q.terms
            .iter()
            .map(|t| ExpandedTerm {
                text: t.text.clone(),
                variants: Variants::default(),
                rarity: 1.0,
            })
            .collect()
    }

    fn body(weight: f32, tf: f32) -> TermHits {
        TermHits {
            body: weight,
            body_tf: tf,
            ..TermHits::default()
        }
    }

    fn feats(hits: Vec<TermHits>) -> Features {
        Features {
            path: String::new(),
            terms: hits,
            positions: HashMap::new(),
            occs: Vec::new(),
            body_len: 0,
        }
    }

    /// The passage as if every body match of the features stood together in it.
    fn together(f: &Features) -> Window {
        Window {
            per_term: f.terms.iter().map(|h| h.body).collect(),
            tf: f.terms.iter().map(|h| h.body_tf).collect(),
            ..Window::default()
        }
    }

    fn points(query: &str, f: &Features, name: f32) -> f32 {
        let pq = q(query);
        bonus(&pq, &terms(&pq), f, name, Some(&together(f)))
    }

    #[test]
    fn each_matched_word_all_words_and_term_frequency() {
        // One word, in the text once: +20 (matched) +80 (all matched) +1 (tf).
        assert_eq!(points("daemon", &feats(vec![body(1.0, 1.0)]), 0.0), 101.0);
        // Through a variant of weight 0.5: both word signals scale.
        assert_eq!(points("daemon", &feats(vec![body(0.5, 0.5)]), 0.0), 50.5);
        // Term frequency stops at +5.
        assert_eq!(points("daemon", &feats(vec![body(1.0, 40.0)]), 0.0), 105.0);
    }

    #[test]
    fn words_count_in_the_passage_only() {
        // Both words are in the text, but the best passage holds only the first: scored as a
        // partial match (+20, +40 × (1/2)², +1 tf), not as all words.
        let pq = q("stale lock");
        let f = feats(vec![body(1.0, 1.0), body(1.0, 1.0)]);
        let mut w = together(&f);
        w.per_term[1] = 0.0;
        w.tf[1] = 0.0;
        assert_eq!(bonus(&pq, &terms(&pq), &f, 0.0, Some(&w)), 31.0);
        assert_eq!(points("stale lock", &f, 0.0), 20.0 * 2.0 + 80.0 + 2.0);
    }

    #[test]
    fn partial_matches_get_the_squared_share() {
        // Two words, one matched: +20, +40 × (1/2)² = +10, +1 tf.
        let f = feats(vec![body(1.0, 1.0), TermHits::default()]);
        assert_eq!(points("stale lock", &f, 0.0), 31.0);
    }

    #[test]
    fn words_in_the_name_and_in_headings() {
        let base = points("daemon", &feats(vec![body(1.0, 1.0)]), 0.0);
        let titled = TermHits {
            title: 1.0,
            ..body(1.0, 1.0)
        };
        assert_eq!(points("daemon", &feats(vec![titled]), 0.0) - base, 8.0);
        let headed = TermHits {
            head: 1.0,
            head_tf: 7.0,
            ..body(1.0, 1.0)
        };
        // +2 per occurrence in headings, up to 3 occurrences...
        assert_eq!(points("daemon", &feats(vec![headed]), 0.0) - base, 6.0);
        // ...scaled down in a note far longer than an article (2,000 tokens).
        let mut long = feats(vec![headed]);
        long.body_len = 8000;
        assert_eq!(points("daemon", &long, 0.0) - base, 1.5);
    }

    #[test]
    fn the_query_as_the_name() {
        let f = feats(vec![body(1.0, 1.0)]);
        let base = points("daemon", &f, 0.0);
        assert_eq!(points("daemon", &f, 0.5) - base, 40.0);
        // Identical: +80 and +40 more.
        assert_eq!(points("daemon", &f, 1.0) - base, 120.0);
    }

    #[test]
    fn phrases_in_the_text() {
        let mut f = feats(vec![body(1.0, 1.0), body(1.0, 1.0)]);
        let scattered = points("stale lock", &f, 0.0);
        f.positions.insert("stale".into(), vec![3]);
        f.positions.insert("lock".into(), vec![9]);
        assert_eq!(points("stale lock", &f, 0.0), scattered);
        f.positions.insert("lock".into(), vec![4, 9]);
        // The query as a phrase: +30.
        assert_eq!(points("stale lock", &f, 0.0) - scattered, 30.0);
        // A quoted phrase present: +60 on top (the unquoted sequence still counts).
        assert_eq!(points("\"stale lock\"", &f, 0.0) - scattered, 90.0);
        // A name match replaces the body-phrase bonus.
        assert_eq!(points("stale lock", &f, 1.0) - scattered, 120.0);
    }
}
