//! Term expansion: each query word becomes the dictionary terms it may stand for — itself,
//! its inflections (same English stem), longer words it is a prefix of, and words one or two
//! typos away — each with a weight below 1 unless exact.

use std::collections::HashMap;
use std::sync::OnceLock;

use anyhow::{Context, Result};
use levenshtein_automata::{Distance, LevenshteinAutomatonBuilder, DFA};
use tantivy::schema::Field;
use tantivy::tokenizer::{RawTokenizer, Stemmer, TextAnalyzer, TokenStream};
use tantivy::{Searcher, Term};

use super::terms::{ExpandedTerm, MatchKind, Variants};
use super::{reading, thesaurus};
use crate::local::schema::Fields;
use crate::local::search::query::ParsedQuery;
use crate::local::weights::weights;

/// At most this many prefix/typo variants per term and field (the closest are kept).
const MAX_VARIANTS: usize = 24;
/// At most this many dictionary entries are scanned per prefix range.
const MAX_SCAN: usize = 4096;

fn lev_builder(distance: u8) -> &'static LevenshteinAutomatonBuilder {
    static B1: OnceLock<LevenshteinAutomatonBuilder> = OnceLock::new();
    static B2: OnceLock<LevenshteinAutomatonBuilder> = OnceLock::new();
    if distance <= 1 {
        B1.get_or_init(|| LevenshteinAutomatonBuilder::new(1, true))
    } else {
        B2.get_or_init(|| LevenshteinAutomatonBuilder::new(2, true))
    }
}

/// A Levenshtein DFA as an FST automaton.
struct Lev<'a>(&'a DFA);

impl tantivy_fst::Automaton for Lev<'_> {
    type State = u32;
    fn start(&self) -> u32 {
        self.0.initial_state()
    }
    fn is_match(&self, s: &u32) -> bool {
        matches!(self.0.distance(*s), Distance::Exact(_))
    }
    fn can_match(&self, s: &u32) -> bool {
        *s != levenshtein_automata::SINK_STATE
    }
    fn accept(&self, s: &u32, b: u8) -> u32 {
        self.0.transition(*s, b)
    }
}

/// How many edits a query word of `chars` characters may be from a dictionary term, given how
/// many notes hold the word itself (`known`).
fn typo_distance_for(chars: usize, known: u64) -> u8 {
    if chars >= 9 {
        2
    } else if chars >= 5 {
        1
    } else if chars == 4 && known == 0 {
        // One edit from a four-letter word reaches many other real words (`cart` → `card`,
        // `care`), so a four-letter word the notes hold even once is taken as meant. One that
        // no note holds matches nothing as it stands, so it is surely misspelt (`linx`, `vieo`)
        // and its one-edit variants are all it can find.
        1
    } else {
        0
    }
}

/// English stem of a lowercase word.
pub(super) fn stem(stemmer: &mut TextAnalyzer, word: &str) -> String {
    let mut s = stemmer.token_stream(word);
    if s.advance() {
        s.token().text.clone()
    } else {
        word.to_string()
    }
}

/// A stemmer analyzer (English Snowball).
pub(super) fn stemmer() -> TextAnalyzer {
    TextAnalyzer::builder(RawTokenizer::default())
        .filter(Stemmer::default())
        .build()
}

fn is_stemmable(w: &str) -> bool {
    w.len() >= 4 && w.bytes().all(|b| b.is_ascii_lowercase())
}

/// Finds the variants of `term` in the dictionaries of the searched fields.
#[cfg(test)]
pub(super) fn expand(
    searcher: &Searcher,
    fields: &Fields,
    term: &str,
    stemmer: &mut TextAnalyzer,
) -> Result<Variants> {
    expand_among(searcher, fields, term, &[], Look::Full, stemmer)
}

/// How far a word is looked up in the dictionaries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Look {
    /// Exactly, as it is: a filler word, a compound's part.
    Exact,
    /// Exactly and by inflection: a stand-in from the thesaurus.
    Inflected,
    /// Also by prefix and with typos: a word of the query.
    Full,
}

impl Look {
    /// The characters of `term` that the prefix and typo rules go by (0: those rules are off).
    fn chars_of(self, term: &str) -> usize {
        if self == Look::Full {
            term.chars().count()
        } else {
            0
        }
    }
}

/// Finds the variants of `term`, one word of a query whose other words are `others`, looked up
/// as far as `look` says.
fn expand_among(
    searcher: &Searcher,
    fields: &Fields,
    term: &str,
    others: &[&str],
    look: Look,
    stemmer: &mut TextAnalyzer,
) -> Result<Variants> {
    let chars = look.chars_of(term);
    // A word the notes already contain is taken as spelt right: looking for its typo variants
    // (the costliest walk of the dictionary) would mostly add noise. Words the notes lack, or
    // hold only once or twice, get the typo walk (a word looked up exactly, or by inflection,
    // gets none: no need to count its notes).
    let known = if look == Look::Full {
        doc_freq_in(searcher, fields.body, term)? + doc_freq_in(searcher, fields.title, term)?
    } else {
        0
    };
    let typo_distance = if known > weights().typo_known_df as u64 {
        0
    } else {
        typo_distance_for(chars, known)
    };
    let dfa = (typo_distance > 0).then(|| lev_builder(typo_distance).build_dfa(term));
    let term_stem = (look != Look::Exact && is_stemmable(term)).then(|| stem(stemmer, term));
    // Scan below the stem minus one letter: `studies` → stem `studi` → scan `stud`, which also
    // reaches `study`.
    let stem_scan = term_stem.as_ref().map(|s| {
        let cut = s.char_indices().last().map_or(0, |(i, _)| i);
        s[..cut.max(3).min(s.len())].to_string()
    });

    let mut out = Variants::default();
    // The dictionaries are walked for the text and the file name only: headings, aliases and
    // tags are part of the text (frontmatter included), so their variants are a subset of the
    // text's and a cheap exact lookup finds them.
    let mut union: HashMap<String, MatchKind> = HashMap::new();
    for field in [fields.body, fields.title] {
        let mut found: HashMap<String, MatchKind> = HashMap::new();
        for seg in searcher.segment_readers() {
            let inv = seg
                .inverted_index(field)
                .context("reading the term dictionary")?;
            let dict = inv.terms();
            if dict.get(term.as_bytes())?.is_some() {
                found.insert(term.to_string(), MatchKind::Exact);
            }
            if chars >= 3 {
                scan_prefix(dict, term, |s| {
                    // In `tech technique` the note's `technique` is the second word's match;
                    // counting it as a prefix of `tech` too would credit one word twice.
                    if s != term && !others.contains(&s) {
                        note_kind(&mut found, s, MatchKind::Prefix);
                    }
                })?;
            }
            if let (Some(scan), Some(st)) = (&stem_scan, &term_stem) {
                scan_prefix(dict, scan, |s| {
                    if s != term && is_stemmable(s) && stem(stemmer, s) == *st {
                        note_kind(&mut found, s, MatchKind::Inflection);
                    }
                })?;
            }
            if let Some(dfa) = &dfa {
                let mut stream = dict.search(Lev(dfa)).into_stream()?;
                let mut n = 0;
                while stream.advance() && n < MAX_SCAN {
                    n += 1;
                    if let Ok(s) = std::str::from_utf8(stream.key()) {
                        let kind = match dfa.eval(s) {
                            Distance::Exact(0) => MatchKind::Exact,
                            Distance::Exact(1) => MatchKind::Typo1,
                            _ => MatchKind::Typo2,
                        };
                        // A typo must not turn a short word into a different short word
                        // (`cats` → `cat`): the candidate needs the length rule too.
                        if kind != MatchKind::Exact && s.chars().count() >= 4 {
                            note_kind(&mut found, s, kind);
                        }
                    }
                }
            }
        }
        let mut list: Vec<(String, MatchKind)> = found.into_iter().collect();
        list.sort_by(|a, b| {
            a.1.cmp(&b.1)
                .then(a.0.len().cmp(&b.0.len()))
                .then(a.0.cmp(&b.0))
        });
        list.truncate(MAX_VARIANTS + 1);
        for (s, k) in &list {
            note_kind(&mut union, s, *k);
        }
        push_field(&mut out, field, list);
    }
    for field in [fields.aliases, fields.headings, fields.tags] {
        let mut list = Vec::new();
        for (s, k) in &union {
            let mut present = false;
            for seg in searcher.segment_readers() {
                let inv = seg
                    .inverted_index(field)
                    .context("reading the term dictionary")?;
                if inv.terms().get(s.as_bytes())?.is_some() {
                    present = true;
                    break;
                }
            }
            if present {
                list.push((s.clone(), *k));
            }
        }
        list.sort_by(|a, b| a.1.cmp(&b.1).then(a.0.cmp(&b.0)));
        push_field(&mut out, field, list);
    }
    Ok(out)
}

fn push_field(out: &mut Variants, field: Field, list: Vec<(String, MatchKind)>) {
    let weighted: Vec<(String, f32)> = list.into_iter().map(|(s, k)| (s, k.weight())).collect();
    for (s, w) in &weighted {
        let e = out.all.entry(s.clone()).or_insert(0.0);
        *e = e.max(*w);
    }
    if !weighted.is_empty() {
        out.per_field.push((field, weighted));
    }
}

/// Adds the variants `more` to `v`, their weights × `scale`; a token already there keeps the
/// better weight.
fn merge_scaled(v: &mut Variants, more: Variants, scale: f32) {
    for (field, list) in more.per_field {
        let at = match v.per_field.iter().position(|(f, _)| *f == field) {
            Some(at) => at,
            None => {
                v.per_field.push((field, Vec::new()));
                v.per_field.len() - 1
            }
        };
        for (s, w) in list {
            let w = w * scale;
            let slot = &mut v.per_field[at].1;
            match slot.iter_mut().find(|(t, _)| *t == s) {
                Some(e) => e.1 = e.1.max(w),
                None => slot.push((s.clone(), w)),
            }
            let e = v.all.entry(s).or_insert(0.0);
            *e = e.max(w);
        }
    }
}

/// Calls `f` with each dictionary term starting with `prefix` (at most [`MAX_SCAN`]).
fn scan_prefix(
    dict: &tantivy::termdict::TermDictionary,
    prefix: &str,
    mut f: impl FnMut(&str),
) -> Result<()> {
    let mut stream = dict.range().ge(prefix.as_bytes()).into_stream()?;
    let mut n = 0;
    while stream.advance() && n < MAX_SCAN {
        n += 1;
        let k = stream.key();
        if !k.starts_with(prefix.as_bytes()) {
            break;
        }
        if let Ok(s) = std::str::from_utf8(k) {
            f(s);
        }
    }
    Ok(())
}

/// Documents holding `term` in `field`, summed over segments (deleted ones included).
fn doc_freq_in(searcher: &Searcher, field: Field, term: &str) -> Result<u64> {
    let mut df = 0u64;
    for seg in searcher.segment_readers() {
        let inv = seg.inverted_index(field)?;
        if let Some(info) = inv.terms().get(term.as_bytes())? {
            df += u64::from(info.doc_freq);
        }
    }
    Ok(df)
}

fn note_kind(found: &mut HashMap<String, MatchKind>, s: &str, kind: MatchKind) {
    let e = found.entry(s.to_string()).or_insert(kind);
    if kind < *e {
        *e = kind;
    }
}

/// Expands every term of the query, each read as content or filler ([`super::reading`]).
pub(in crate::local) fn expand_query(
    searcher: &Searcher,
    fields: &Fields,
    q: &ParsedQuery,
) -> Result<Vec<ExpandedTerm>> {
    let mut stemmer = stemmer();
    let words: Vec<&str> = q.terms.iter().map(|t| t.text.as_str()).collect();
    let as_typed: Vec<(&str, &[String])> = q
        .terms
        .iter()
        .map(|t| (t.text.as_str(), t.parts.as_slice()))
        .collect();
    let filler = reading::fillers(q, &as_typed);
    // The terms as searched (a compound the notes lack by its parts), with the parts of a
    // compound kept whole: what the final reading judges.
    let mut out: Vec<ExpandedTerm> = Vec::new();
    let mut searched: Vec<(String, Vec<String>)> = Vec::new();
    let sentence = filler.iter().any(|&f| f);
    let mut given: Vec<&str> = Vec::new();
    for (t, &exact_only) in q.terms.iter().zip(&filler) {
        let look = if exact_only { Look::Exact } else { Look::Full };
        let mut v = expand_among(searcher, fields, &t.text, &words, look, &mut stemmer)?;
        if sentence && weights().w_part > 0.0 && !v.all.is_empty() && !t.parts.is_empty() {
            for p in t.parts.iter().filter(|p| !reading::is_filler_word(p)) {
                let pv = expand_among(searcher, fields, p, &words, Look::Exact, &mut stemmer)?;
                merge_scaled(&mut v, pv, weights().w_part);
            }
        }
        if sentence && !exact_only && weights().w_syn > 0.0 && t.parts.is_empty() {
            for alt in thesaurus::alternatives(&t.text) {
                // A stand-in the question also holds is matched as that word already, and one
                // note word counts for one question word only (`kill … close` → `terminate`).
                if words.contains(&alt) || given.contains(&alt) {
                    continue;
                }
                given.push(alt);
                let av =
                    expand_among(searcher, fields, alt, &words, Look::Inflected, &mut stemmer)?;
                merge_scaled(&mut v, av, weights().w_syn);
            }
        }
        if v.all.is_empty() && !t.parts.is_empty() {
            for p in &t.parts {
                if out.iter().any(|e| &e.text == p) {
                    continue;
                }
                let only = exact_only || reading::is_filler_word(p);
                let look = if only { Look::Exact } else { Look::Full };
                let v = expand_among(searcher, fields, p, &words, look, &mut stemmer)?;
                out.push(ExpandedTerm::new(p.clone(), v));
                searched.push((p.clone(), Vec::new()));
            }
        } else {
            out.push(ExpandedTerm::new(t.text.clone(), v));
            searched.push((t.text.clone(), t.parts.clone()));
        }
    }
    let as_searched: Vec<(&str, &[String])> = searched
        .iter()
        .map(|(w, p)| (w.as_str(), p.as_slice()))
        .collect();
    let filler = reading::fillers(q, &as_searched);
    for (e, f) in out.iter_mut().zip(filler) {
        if !f && reading::is_filler_word(&e.text) {
            // Read as content after all (every word searched is a stop word): all its variants.
            e.variants = expand_among(searcher, fields, &e.text, &words, Look::Full, &mut stemmer)?;
        }
        e.filler = f;
    }
    Ok(out)
}

/// Sets each term's rarity from its document frequency in the text (the most frequent of its
/// variants): idf^p normalised to a mean of 1.
pub(in crate::local) fn set_rarity(
    searcher: &Searcher,
    fields: &Fields,
    terms: &mut [ExpandedTerm],
) -> Result<()> {
    let p = weights().idf_pow;
    if terms.is_empty() || p == 0.0 {
        return Ok(());
    }
    let n = searcher.num_docs().max(1) as f32;
    let mut idfs = Vec::with_capacity(terms.len());
    for t in terms.iter() {
        if t.filler {
            // A filler word neither picks a note's passage nor weighs in its coverage.
            idfs.push(0.0);
            continue;
        }
        let mut df = 0u64;
        for (s, _) in t.variants.all.iter().filter(|(_, w)| **w >= 0.99) {
            df = df.max(searcher.doc_freq(&Term::from_field_text(fields.body, s))?);
        }
        let df = df as f32;
        idfs.push((1.0 + (n - df + 0.5) / (df + 0.5)).ln().max(0.01).powf(p));
    }
    let content = terms.iter().filter(|t| !t.filler).count().max(1);
    let mean = idfs.iter().sum::<f32>() / content as f32;
    for (t, idf) in terms.iter_mut().zip(idfs) {
        t.rarity = idf / mean;
    }
    Ok(())
}
