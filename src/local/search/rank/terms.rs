//! The query as the ranking sees it: each term with its variants (inflections, prefixes,
//! typos) and their weights, and how much the term counts against the others. The expansion
//! makes them; the candidate query, the features and the bonus read them.

use std::collections::HashMap;

use tantivy::schema::Field;

use crate::local::weights::weights;

/// How a dictionary term relates to the query term.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(in crate::local::search) enum MatchKind {
    Exact,
    Inflection,
    Typo1,
    Prefix,
    Typo2,
}

impl MatchKind {
    /// Weight of a match of this kind relative to an exact match.
    pub(super) fn weight(self) -> f32 {
        match self {
            MatchKind::Exact => 1.0,
            MatchKind::Inflection => weights().w_infl,
            MatchKind::Typo1 => weights().w_typo1,
            MatchKind::Prefix => weights().w_prefix,
            MatchKind::Typo2 => weights().w_typo2,
        }
    }
}

/// The variants of one query term: token → weight, over all fields.
#[derive(Debug, Clone, Default)]
pub(in crate::local::search) struct Variants {
    pub(in crate::local::search) all: HashMap<String, f32>,
    pub(in crate::local::search) per_field: Vec<(Field, Vec<(String, f32)>)>,
}

impl Variants {
    pub(super) fn weight(&self, token: &str) -> f32 {
        self.all.get(token).copied().unwrap_or(0.0)
    }
}

/// A query term with its variants; compound words whose whole form is unknown are searched
/// by their parts instead.
#[derive(Debug, Clone)]
pub(in crate::local::search) struct ExpandedTerm {
    pub(in crate::local::search) text: String,
    pub(in crate::local::search) variants: Variants,
    /// How much this term counts relative to the others (mean 1 over the content words):
    /// rarer terms count more; a filler word counts 0.
    pub(in crate::local::search) rarity: f32,
    /// A stop word in a query read as a sentence ([`super::reading`]): it is looked up exactly
    /// and counts only for the query as a phrase and as a name.
    pub(in crate::local::search) filler: bool,
}

/// Whether the query reads as a sentence: some of its words are filler ([`super::reading`]).
pub(super) fn reads_as_sentence(terms: &[ExpandedTerm]) -> bool {
    terms.iter().any(|t| t.filler)
}

impl ExpandedTerm {
    pub(super) fn new(text: String, variants: Variants) -> ExpandedTerm {
        ExpandedTerm {
            text,
            variants,
            rarity: 1.0,
            filler: false,
        }
    }
}
