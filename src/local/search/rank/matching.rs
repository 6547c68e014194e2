//! Matching on names: how well a file name or alias covers the query. (Where a hit's passage
//! and excerpt are is `local::passage`.)

use tantivy::tokenizer::TextAnalyzer;

use super::terms::ExpandedTerm;
use crate::local::analyzer;
use crate::local::weights::weights;

/// How well a name (file name or alias) and the query cover each other, read with every word
/// of the query (a title typed as it is, `Introduction to CRDT`) or with its content words
/// only (a question whose answer is the note `tar`), whichever covers more.
pub(super) fn name_match(analyzer: &mut TextAnalyzer, name: &str, terms: &[ExpandedTerm]) -> f32 {
    let whole = cover(analyzer, name, terms);
    if !terms.iter().any(|t| t.filler) {
        return whole;
    }
    let content: Vec<ExpandedTerm> = terms.iter().filter(|t| !t.filler).cloned().collect();
    whole.max(cover(analyzer, name, &content))
}

/// The share of query terms found in the name times the share of the name's words that are
/// query terms, each weighted by the match kind. 1.0 means "the name is the query".
fn cover(analyzer: &mut TextAnalyzer, name: &str, terms: &[ExpandedTerm]) -> f32 {
    let all = analyzer::analyze(analyzer, name);
    let parts: Vec<&str> = all
        .iter()
        .filter(|t| t.position_length <= 1)
        .map(|t| t.text.as_str())
        .collect();
    if parts.is_empty() || terms.is_empty() {
        return 0.0;
    }
    let term_best = |t: &ExpandedTerm| {
        all.iter()
            .map(|p| t.variants.weight(&p.text))
            .fold(0.0f32, f32::max)
    };
    let query_cover: f32 = terms.iter().map(term_best).sum::<f32>() / terms.len() as f32;
    // A name word is covered by the best query term that matches it, or by a compound query
    // term (`micro-frontend`) that matched the name's compound whole.
    let name_cover: f32 = parts
        .iter()
        .map(|p| {
            terms
                .iter()
                .map(|t| {
                    let w = t.variants.weight(p);
                    if w > 0.0 {
                        w
                    } else {
                        all.iter()
                            .filter(|x| x.position_length > 1 && x.text.contains(p))
                            .map(|x| t.variants.weight(&x.text))
                            .fold(0.0f32, f32::max)
                    }
                })
                .fold(0.0f32, f32::max)
        })
        .sum::<f32>()
        / parts.len() as f32;
    query_cover.powf(weights().qc_pow) * name_cover
}
