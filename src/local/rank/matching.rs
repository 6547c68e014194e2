//! Matching on the text of a returned note and on names: where the excerpt starts, how well a
//! file name or alias covers the query, where a phrase occurs.

use tantivy::tokenizer::TextAnalyzer;

use super::{tune, ExpandedTerm};
use crate::local::analyzer;
use crate::local::query::ParsedQuery;

/// Where the excerpt of a returned note starts: the first quoted phrase, else the query as a
/// phrase, else the earliest match of any term — preferring the text over the frontmatter.
pub(super) fn excerpt_position(
    analyzer: &mut TextAnalyzer,
    q: &ParsedQuery,
    terms: &[ExpandedTerm],
    body: &str,
    text_start: usize,
) -> usize {
    let toks = tokens(analyzer, body);
    for p in q.phrases.iter().chain(std::iter::once(&q.sequence)) {
        if p.len() >= 2 {
            if let Some(off) = find_phrase(&toks, p) {
                return off;
            }
        }
    }
    let mut in_frontmatter: Option<usize> = None;
    for (tok, _, off) in &toks {
        if terms.iter().any(|t| t.variants.weight(tok) > 0.0) {
            if *off >= text_start {
                return *off;
            }
            in_frontmatter.get_or_insert(*off);
        }
    }
    in_frontmatter.unwrap_or_else(|| {
        body[text_start..]
            .find(|c: char| !c.is_whitespace())
            .map_or(text_start, |i| text_start + i)
    })
}

/// Tokens of a text as (text, position, byte offset); compound wholes sit at their first
/// part's position.
fn tokens(analyzer: &mut TextAnalyzer, text: &str) -> Vec<(String, usize, usize)> {
    analyzer::analyze(analyzer, text)
        .into_iter()
        .map(|t| (t.text, t.position, t.offset_from))
        .collect()
}

/// How well a name (file name or alias) and the query cover each other: the share of query
/// terms found in the name times the share of the name's words that are query terms, each
/// weighted by the match kind. 1.0 means "the name is the query".
pub(super) fn name_match(analyzer: &mut TextAnalyzer, name: &str, terms: &[ExpandedTerm]) -> f32 {
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
    query_cover.powf(tune("qc_pow", 3.0)) * name_cover
}

/// Where `phrase` occurs in a token list (consecutive positions), as the byte offset of its
/// first token.
fn find_phrase(toks: &[(String, usize, usize)], phrase: &[String]) -> Option<usize> {
    let first = phrase.first()?;
    toks.iter().enumerate().find_map(|(i, (t, p, off))| {
        if t != first {
            return None;
        }
        let mut want = p + 1;
        let mut k = 1;
        for (u, q, _) in &toks[i + 1..] {
            if k == phrase.len() {
                break;
            }
            if *q > want {
                return None;
            }
            if *q == want && *u == phrase[k] {
                k += 1;
                want += 1;
            }
        }
        (k == phrase.len()).then_some(*off)
    })
}
