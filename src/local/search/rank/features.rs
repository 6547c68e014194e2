//! What the re-rank reads of each candidate from the index: per query term, the best variant
//! weight and weighted occurrence counts in each field, body positions for phrases and
//! passages, the body's length; the path only where a term hit the name or an alias. Nothing
//! is re-tokenized: it all comes from the postings.

use std::collections::HashMap;

use anyhow::Result;
use tantivy::postings::Postings;
use tantivy::schema::IndexRecordOption;
use tantivy::{DocAddress, DocSet, Term};

use super::context::RankContext;
use super::lead;
use crate::local::search::window::{self, Occ};

/// What the postings say about one query term in one note (best variant weight per field,
/// weighted occurrence counts).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct TermHits {
    pub(super) title: f32,
    pub(super) alias: f32,
    pub(super) head: f32,
    pub(super) head_tf: f32,
    pub(super) body: f32,
    pub(super) body_tf: f32,
    pub(super) tags: f32,
}

/// Signals of one candidate, read from the index (no re-tokenizing of the note).
#[derive(Debug, Clone, Default)]
pub(super) struct Features {
    pub(super) path: String,
    pub(super) terms: Vec<TermHits>,
    /// Body positions of the tokens that make up phrases.
    pub(super) positions: HashMap<String, Vec<u32>>,
    /// Body positions of every query term's variants: where the passages are.
    pub(super) occs: Vec<Occ>,
    /// Tokens in the body (tantivy's field norm: exact to 40, then within a few percent).
    pub(super) body_len: u32,
    /// Best variant weight of each query term in the note's lead ([`super::lead`]).
    pub(super) lead: Vec<f32>,
    /// How well the file name or an alias and the query cover each other
    /// ([`super::matching`]); set by the re-rank, which reads the aliases.
    pub(super) name: f32,
    /// The weighted share of the feedback words the note holds ([`super::feedback`]); set by
    /// the re-rank after a first ranking, 0 before.
    pub(super) feedback: f32,
}

/// The features of every candidate, in the order of `candidates`.
pub(super) fn read(cx: &RankContext) -> Result<Vec<Features>> {
    let &RankContext {
        searcher,
        fields,
        query: q,
        terms,
        candidates,
        ..
    } = cx;
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

    let by_segment = by_segment(candidates);
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
        let lead_len = lead::lead_tokens();
        for &(i, _) in &docs {
            feats[i].lead = lead::lead_hits(&feats[i].occs, terms.len(), lead_len);
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
    Ok(feats)
}

/// The candidates of each segment: (index in `candidates`, doc id), in candidate order.
pub(super) fn by_segment(candidates: &[(f32, DocAddress)]) -> HashMap<u32, Vec<(usize, u32)>> {
    let mut by_segment: HashMap<u32, Vec<(usize, u32)>> = HashMap::new();
    for (i, (_, addr)) in candidates.iter().enumerate() {
        by_segment
            .entry(addr.segment_ord)
            .or_default()
            .push((i, addr.doc_id));
    }
    by_segment
}

/// Calls `f(i, postings)` for each candidate `(i, doc)` (sorted by doc) that holds `term`,
/// with the postings positioned on that document.
pub(super) fn for_each_hit(
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
