//! What one query's ranking reads, gathered once: the index, the parsed query and its expanded
//! words, the BM25 candidates, and what follows from those alone. Every step of the re-rank
//! (features, points, feedback, ordering, hits) reads the same things; one value carries them,
//! so a step that needs one more of them does not grow every signature on the way.

use std::path::Path;

use tantivy::{DocAddress, Searcher};

use super::terms::{reads_as_sentence, ExpandedTerm};
use crate::local::schema::Fields;
use crate::local::search::query::ParsedQuery;

/// One query's ranking: what it searches, what was asked, and the candidates it re-ranks.
pub(in crate::local::search) struct RankContext<'a> {
    pub(in crate::local::search) searcher: &'a Searcher,
    pub(in crate::local::search) fields: &'a Fields,
    pub(in crate::local::search) query: &'a ParsedQuery,
    /// The query's words with their variants, in query order.
    pub(in crate::local::search) terms: &'a [ExpandedTerm],
    /// BM25 score and address of each candidate, best first.
    pub(in crate::local::search) candidates: &'a [(f32, DocAddress)],
    /// The vault's folder: a giant note unchanged on disk is shown from its file.
    pub(in crate::local::search) vault: &'a Path,
    /// How much each word counts, by its rarity (the terms' own, side by side for the windows).
    pub(super) rarity: Vec<f32>,
    /// The query reads as a sentence ([`super::reading`]).
    pub(super) sentence: bool,
    /// The words that carry the query: all of a keyword query's, a sentence's non-filler ones.
    pub(super) content_words: usize,
    /// The best candidate's BM25, which the BM25 signal is scaled by.
    pub(super) max_bm25: f32,
    /// Most bytes of a hit's passage (0: none); the caller's, set after [`RankContext::new`].
    pub(in crate::local::search) passage_bytes: usize,
}

impl<'a> RankContext<'a> {
    pub(in crate::local::search) fn new(
        searcher: &'a Searcher,
        fields: &'a Fields,
        query: &'a ParsedQuery,
        terms: &'a [ExpandedTerm],
        candidates: &'a [(f32, DocAddress)],
        vault: &'a Path,
    ) -> RankContext<'a> {
        RankContext {
            searcher,
            fields,
            query,
            terms,
            candidates,
            vault,
            rarity: terms.iter().map(|t| t.rarity).collect(),
            sentence: reads_as_sentence(terms),
            content_words: terms.iter().filter(|t| !t.filler).count(),
            max_bm25: candidates.iter().map(|c| c.0).fold(0.0f32, f32::max),
            passage_bytes: crate::core::DEFAULT_PASSAGE_BYTES,
        }
    }
}
