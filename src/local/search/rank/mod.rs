//! Ranking for the local engine: candidates from BM25 over expanded terms, then a re-rank with
//! every signal of the weights table, added in [`points`].
//!
//! 0. **Reading** ([`reading`]). A query with two stop words or more is a sentence: its question
//!    words, auxiliaries, pronouns and fillers are filler, looked up exactly and left out of
//!    the candidate query and of the word, coverage and all-words signals; the content words
//!    carry it, in a passage of one sentence or line, and those found in a note's lead count
//!    extra ([`lead`]); a compound it holds also matches by its parts, and each content word
//!    by the other words of its [`thesaurus`] groups (× `w_syn`). After the re-rank, the
//!    words the best-ranked notes share add points to the notes that hold them
//!    ([`feedback`]). Keywords read as typed.
//! 1. **Expansion.** Each query term is looked up in the term dictionaries of the searched
//!    fields: exactly, as an inflection (same English stem: `rebuilds` → `rebuild`,
//!    `rebuilding`), by prefix (3+ characters: `kotlin` → `kotlincompiledaemon`, unless the
//!    longer word is itself a word of the query: `tech technique`) and with typos
//!    (Damerau–Levenshtein 1 from 5 characters, 2 from 9, 1 for a 4-letter word no note holds;
//!    a transposition costs 1). Each variant carries a weight below 1 unless it is exact, so a
//!    typo or prefix match always scores below an exact one.
//! 2. **Candidates.** A BM25 disjunction over the variants with field boosts (file name and
//!    aliases above headings above body); no word is required, so one extra word from an agent
//!    never empties the result. Folder scope, exclusions, `path:`/`ext:`, tags, dates and
//!    properties are filters inside the query ([`super::filter`]).
//! 3. **Re-rank** of the top [`CANDIDATES`] ([`rerank`]): signals read from the postings
//!    ([`features`]), where a match through a variant counts its weight and a word in the text
//!    counts only inside the note's best window ([`proximity`]). Every signal's points are
//!    added in one function, [`points`]: the words matched, in the name and in headings, all
//!    words or the share matched, the term frequency, the query as the name ([`matching`]) or
//!    as a phrase, quoted phrases, a sentence's lead, BM25 scaled to the best candidate's, the
//!    length prior and the feedback share. What each signal counts and its default are in one
//!    place, the [`Weights`](crate::local::weights::Weights) table (`src/local/weights.rs`);
//!    a new signal is a weight there and its term in [`points`]. Everything one query's
//!    ranking reads travels as one [`RankContext`].

mod candidates;
mod context;
mod coordination;
mod expand;
mod features;
mod feedback;
mod hits;
mod lead;
mod matching;
mod points;
mod proximity;
mod reading;
mod rerank;
mod terms;
mod thesaurus;

pub(in crate::local) use candidates::candidate_query;
pub(in crate::local::search) use context::RankContext;
pub(in crate::local) use expand::{expand_query, set_rarity};
pub(in crate::local::search) use rerank::rerank;
pub(in crate::local) use rerank::tie_across;

/// How many BM25 candidates are re-ranked.
pub(in crate::local) const CANDIDATES: usize = 100;

#[cfg(test)]
mod tests;
