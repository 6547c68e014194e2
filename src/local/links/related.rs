//! `related NOTE`: what to read after a note, from what the index already holds — its links
//! (resolved at query time, as `links` resolves them) and its words — with no model.
//!
//! Candidates and what each adds to a hit's score (the note itself never appears):
//! - a note linking here (`links here`): 3; a note this one links to (`linked from here`): 3;
//! - co-citation, a note linked together with this one from a third note S (`cited with it in
//!   S`): each such S adds `1 / (1 + ln n)`, n the notes S links to (a map of content listing
//!   hundreds says less about each pair than a note citing two), at most 2 in all;
//! - bibliographic coupling, a note linking to a note this one links to (`also links to T`):
//!   each shared T adds `0.5 / (1 + ln m)`, m the notes linking to T, at most 1 in all; a T
//!   with more than [`MAX_COUPLING_SOURCES`] candidate linkers is too common to tell anything
//!   and is not followed;
//! - shared distinctive words (`shares: a, b, c`): the note's top [`QUERY_TERMS`] body terms by
//!   `(1 + ln tf) · idf` are one BM25 query; a hit adds `2 · its score / the best score`.
//!
//! Obsidian's Excluded files are left out: neither a candidate nor a note through which one
//! scores.
//!
//! So a direct link (3) outranks any co-citation, coupling or shared words alone (at most 2),
//! and reasons add up when a note has several. Ties are broken by path: the same index gives
//! the same list.

use std::collections::HashMap;
use std::rc::Rc;

use anyhow::{Context, Result};
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::IndexRecordOption;
use tantivy::{DocAddress, DocSet, Searcher, Term};

use super::graph::Graph;
use crate::core::RelatedHit;
use crate::local::analyzer;
use crate::local::schema::{self, Fields};
use crate::local::stored::{self, Stored};

/// Weight of a direct link, either way.
const LINK: f64 = 3.0;
/// Most that co-citation adds.
const MAX_COCITATION: f64 = 2.0;
/// Most that bibliographic coupling adds.
const MAX_COUPLING: f64 = 1.0;
/// What the best text match adds; the others in proportion to their BM25 score.
const TEXT: f64 = 2.0;
/// Terms of the note that make its text query.
const QUERY_TERMS: usize = 25;
/// Shared words a reason names.
const SHOWN_WORDS: usize = 3;
/// Bytes of a note's text its terms are taken from (a giant note's opening says what it is
/// about; its whole text would cost a tokenization of megabytes).
const TERM_BYTES: usize = 64 * 1024;
/// Link targets (by name, in name order) whose linkers are followed for coupling.
const MAX_COUPLED_TARGETS: usize = 100;
/// A target with more candidate linkers than this is not followed for coupling.
const MAX_COUPLING_SOURCES: usize = 500;

/// What one candidate gathered.
#[derive(Default)]
struct Candidate {
    links_here: bool,
    linked_from_here: bool,
    cocitation: f64,
    /// The notes citing both, in path order.
    cited_in: Vec<String>,
    coupling: f64,
    /// The targets both link to, in path order.
    also_links_to: Vec<String>,
    text: f64,
    shared: Vec<String>,
}

/// The note `name` names, as a vault-relative path, and its `limit` best related notes;
/// `hidden`: the paths Obsidian's Excluded files hide.
pub(crate) fn related(
    searcher: &Searcher,
    dir: &std::path::Path,
    name: &str,
    limit: usize,
    hidden: &dyn Fn(&str) -> bool,
) -> Result<(String, Vec<RelatedHit>)> {
    let fields = schema::fields();
    let coupling = Some((MAX_COUPLED_TARGETS, MAX_COUPLING_SOURCES));
    let (mut graph, path) = Graph::for_note(searcher, fields, dir, name, coupling)?;
    let mut found: HashMap<String, Candidate> = HashMap::new();
    let addr = graph.address(&path);
    let outgoing = match addr {
        Some(a) => graph.targets_of(a, &path)?,
        None => Rc::default(),
    };
    // Obsidian's Excluded files are no note to read next, nor a reason for one.
    let shown = |p: &str| !hidden(p);
    for t in outgoing.iter().filter(|t| shown(t)) {
        found.entry(t.clone()).or_default().linked_from_here = true;
    }
    for (source, targets) in graph.linking_to(&path, None)? {
        if !shown(&source) {
            continue;
        }
        found.entry(source.clone()).or_default().links_here = true;
        let weight = 1.0 / (1.0 + (targets.len() as f64).ln());
        for t in targets.iter().filter(|t| **t != path && shown(t)) {
            let c = found.entry(t.clone()).or_default();
            c.cocitation += weight;
            c.cited_in.push(source.clone());
        }
    }
    let followed: Vec<&String> = (outgoing.iter())
        .filter(|t| graph.coupled(t) && shown(t))
        .collect();
    for target in followed {
        let linkers = graph.linking_to(target, None)?;
        let weight = 0.5 / (1.0 + (linkers.len() as f64).ln());
        for (source, _) in linkers.into_iter().filter(|(s, _)| *s != path && shown(s)) {
            let c = found.entry(source).or_default();
            c.coupling += weight;
            c.also_links_to.push(target.clone());
        }
    }
    if let Some(a) = addr {
        let similar = similar(searcher, fields, a, limit)?;
        for (p, text, shared) in similar.into_iter().filter(|(p, ..)| shown(p)) {
            let c = found.entry(p).or_default();
            c.text = text;
            c.shared = shared;
        }
    }
    found.remove(&path);
    let mut hits: Vec<RelatedHit> = found
        .into_iter()
        .map(|(p, c)| hit(p, c))
        .filter(|h| h.score > 0.0)
        .collect();
    hits.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.path.cmp(&b.path))
    });
    hits.truncate(limit);
    Ok((path, hits))
}

/// The scored hit of a candidate, its reasons strongest first.
fn hit(path: String, c: Candidate) -> RelatedHit {
    let mut reasons = Vec::new();
    if c.links_here {
        reasons.push("links here".to_string());
    }
    if c.linked_from_here {
        reasons.push("linked from here".to_string());
    }
    if let Some(first) = c.cited_in.iter().min() {
        reasons.push(format!(
            "cited with it in {first}{}",
            more(c.cited_in.len())
        ));
    }
    if let Some(first) = c.also_links_to.iter().min() {
        reasons.push(format!(
            "also links to {first}{}",
            more(c.also_links_to.len())
        ));
    }
    if !c.shared.is_empty() {
        reasons.push(format!("shares: {}", c.shared.join(", ")));
    }
    let score = LINK
        * (f64::from(u8::from(c.links_here)) + f64::from(u8::from(c.linked_from_here)))
        + c.cocitation.min(MAX_COCITATION)
        + c.coupling.min(MAX_COUPLING)
        + c.text;
    RelatedHit {
        path,
        score: crate::core::round_to(score, 3),
        reasons,
    }
}

fn more(n: usize) -> String {
    if n > 1 {
        format!(" and {} more", n - 1)
    } else {
        String::new()
    }
}

/// The notes sharing the distinctive words of the note at `addr`: (path, what the match adds,
/// the shared words most distinctive first).
fn similar(
    searcher: &Searcher,
    fields: &Fields,
    addr: DocAddress,
    limit: usize,
) -> Result<Vec<(String, f64, Vec<String>)>> {
    let body = Stored::read(searcher, addr).context("reading the note")?;
    let text = body.body();
    let text = &text[..crate::text::excerpt::floor_char_boundary(text, TERM_BYTES)];
    let terms = distinctive_terms(searcher, fields, text)?;
    if terms.is_empty() {
        return Ok(Vec::new());
    }
    let clauses: Vec<(Occur, Box<dyn Query>)> = terms
        .iter()
        .map(|t| {
            let q = TermQuery::new(t.clone(), IndexRecordOption::WithFreqs);
            (Occur::Should, Box::new(q) as Box<dyn Query>)
        })
        .collect();
    let query = BooleanQuery::new(clauses);
    let top = searcher.search(&query, &TopDocs::with_limit(limit + 20).order_by_score())?;
    let top: Vec<(f32, DocAddress)> = top.into_iter().filter(|(_, a)| *a != addr).collect();
    let best = top.first().map_or(0.0, |(s, _)| f64::from(*s));
    if best <= 0.0 {
        return Ok(Vec::new());
    }
    let mut out = Vec::with_capacity(top.len());
    for (score, hit) in top {
        let mut path = String::new();
        stored::path_of(searcher, fields, hit, &mut path)?;
        if path.is_empty() {
            continue;
        }
        let shared = shared_terms(searcher, fields, hit, &terms)?;
        out.push((path, TEXT * f64::from(score) / best, shared));
    }
    Ok(out)
}

/// The note's [`QUERY_TERMS`] most distinctive body terms, most distinctive first: weight
/// `(1 + ln tf) · idf`, among words of three characters or more (two in a script without
/// spaces), not numbers, that some other note has too.
fn distinctive_terms(searcher: &Searcher, fields: &Fields, text: &str) -> Result<Vec<Term>> {
    let mut counts: HashMap<String, u32> = HashMap::new();
    let mut analyzer = analyzer::text_analyzer();
    for token in analyzer::analyze(&mut analyzer, text) {
        let t = token.text;
        // CJK text comes as two-character bigrams: they are its words.
        let shortest = if t.is_ascii() { 3 } else { 2 };
        if t.chars().count() < shortest
            || t.chars()
                .all(|c| c.is_ascii_digit() || !c.is_alphanumeric())
        {
            continue;
        }
        *counts.entry(t).or_default() += 1;
    }
    let n = searcher.num_docs() as f64;
    let mut weighted: Vec<(f64, String)> = Vec::with_capacity(counts.len());
    for (t, tf) in counts {
        let df = searcher.doc_freq(&Term::from_field_text(fields.body, &t))? as f64;
        if df < 2.0 {
            continue;
        }
        let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
        weighted.push(((1.0 + f64::from(tf).ln()) * idf, t));
    }
    weighted.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    Ok(weighted
        .into_iter()
        .take(QUERY_TERMS)
        .map(|(_, t)| Term::from_field_text(fields.body, &t))
        .collect())
}

/// Which of `terms` (in their order) the document at `addr` holds, the first few.
fn shared_terms(
    searcher: &Searcher,
    fields: &Fields,
    addr: DocAddress,
    terms: &[Term],
) -> Result<Vec<String>> {
    let inverted = searcher
        .segment_reader(addr.segment_ord)
        .inverted_index(fields.body)?;
    let mut out = Vec::new();
    for term in terms {
        let Some(mut postings) = inverted.read_postings(term, IndexRecordOption::Basic)? else {
            continue;
        };
        // A fresh posting list stands on its first document, which may lie past this one.
        let at = match postings.doc() {
            d if d >= addr.doc_id => d,
            _ => postings.seek(addr.doc_id),
        };
        if at == addr.doc_id {
            out.push(term.value().as_str().unwrap_or_default().to_string());
            if out.len() == SHOWN_WORDS {
                break;
            }
        }
    }
    Ok(out)
}
