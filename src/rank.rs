//! Ranking for the local engine: candidates from BM25 over expanded terms, then a re-rank with
//! the documented bonus signals.
//!
//! 1. **Expansion.** Each query term is looked up in the term dictionaries of the searched
//!    fields: exactly, as an inflection (same English stem: `rebuilds` → `rebuild`,
//!    `rebuilding`), by prefix (3+ characters: `kotlin` → `kotlincompiledaemon`) and with typos
//!    (Damerau–Levenshtein 1 from 5 characters, 2 from 9; a transposition costs 1). Each
//!    variant carries a weight below 1 unless it is exact, so a typo or prefix match always
//!    scores below an exact one.
//! 2. **Candidates.** A BM25 disjunction over the variants with field boosts (file name and
//!    aliases above headings above body); no word is required, so one extra word from an agent
//!    never empties the result. Folder scope and exclusions are filters inside the query.
//! 3. **Re-rank** of the top [`CANDIDATES`] with the seed's signals — +20 per matched term, +50
//!    when all match, +80 for the query phrase in the file name else +30 in the body, +15 per
//!    term in the file name, +8 per (term, heading), term frequency up to +25 — where a match
//!    through a variant counts its weight. The final score adds BM25 scaled by
//!    [`BM25_WEIGHT`], which breaks ties between notes the signals can't tell apart by how
//!    rare the matched words are.

use std::collections::HashMap;
use std::sync::OnceLock;

use anyhow::{Context, Result};
use levenshtein_automata::{Distance, LevenshteinAutomatonBuilder, DFA};
use tantivy::postings::Postings;
use tantivy::query::{
    BooleanQuery, BoostQuery, DisjunctionMaxQuery, EmptyQuery, Occur, PhraseQuery, Query, TermQuery,
};
use tantivy::schema::{Field, IndexRecordOption, Value};
use tantivy::tokenizer::{RawTokenizer, Stemmer, TextAnalyzer, TokenStream};
use tantivy::{DocAddress, DocSet, Searcher, TantivyDocument, Term};

use crate::analyzer;
use crate::config::Scope;
use crate::coordination::CoordinationQuery;
use crate::excerpt;
use crate::note;
use crate::query::ParsedQuery;
use crate::schema::Fields;

/// How many BM25 candidates are re-ranked.
pub const CANDIDATES: usize = 100;
/// Final score = bonus + BM25_WEIGHT × BM25.
pub const BM25_WEIGHT: f32 = 2.0;

/// A ranking constant. Built with `--features tuning`, `VS_TUNE="name=value,..."` overrides
/// them, so the weights can be re-fitted against query sets without recompiling; release
/// builds always use the defaults written here.
pub fn tune(name: &str, default: f32) -> f32 {
    #[cfg(feature = "tuning")]
    {
        static MAP: OnceLock<HashMap<String, f32>> = OnceLock::new();
        let map = MAP.get_or_init(|| {
            std::env::var("VS_TUNE")
                .unwrap_or_default()
                .split(',')
                .filter_map(|kv| kv.split_once('='))
                .filter_map(|(k, v)| Some((k.trim().to_string(), v.trim().parse().ok()?)))
                .collect()
        });
        if let Some(v) = map.get(name) {
            return *v;
        }
    }
    let _ = name;
    default
}

fn bm25_part(bm25: f32, max: f32) -> f32 {
    let norm = tune("bm25norm", 20.0);
    if norm > 0.0 {
        if max > 0.0 {
            norm * bm25 / max
        } else {
            0.0
        }
    } else {
        tune("bm25", BM25_WEIGHT) * bm25
    }
}

/// How a dictionary term relates to the query term.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum MatchKind {
    Exact,
    Inflection,
    Typo1,
    Prefix,
    Typo2,
}

impl MatchKind {
    /// Weight of a match of this kind relative to an exact match.
    pub fn weight(self) -> f32 {
        match self {
            MatchKind::Exact => 1.0,
            MatchKind::Inflection => tune("w_infl", 0.7),
            MatchKind::Typo1 => tune("w_typo1", 0.75),
            MatchKind::Prefix => tune("w_prefix", 0.5),
            MatchKind::Typo2 => tune("w_typo2", 0.6),
        }
    }
}

/// At most this many prefix/typo variants per term and field (the closest are kept).
const MAX_VARIANTS: usize = 24;
/// At most this many dictionary entries are scanned per prefix range.
const MAX_SCAN: usize = 4096;

/// Field boosts of the candidate query.
fn field_boosts(f: &Fields) -> [(Field, f32); 5] {
    [
        (f.title, tune("b_title", 4.0)),
        (f.aliases, tune("b_title", 4.0)),
        (f.headings, tune("b_head", 2.0)),
        (f.tags, tune("b_tags", 1.5)),
        (f.body, 1.0),
    ]
}

/// The variants of one query term: token → weight, over all fields.
#[derive(Debug, Clone, Default)]
pub struct Variants {
    pub all: HashMap<String, f32>,
    pub per_field: Vec<(Field, Vec<(String, f32)>)>,
}

impl Variants {
    fn weight(&self, token: &str) -> f32 {
        self.all.get(token).copied().unwrap_or(0.0)
    }
}

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

/// English stem of a lowercase word.
pub fn stem(stemmer: &mut TextAnalyzer, word: &str) -> String {
    let mut s = stemmer.token_stream(word);
    if s.advance() {
        s.token().text.clone()
    } else {
        word.to_string()
    }
}

/// A stemmer analyzer (English Snowball).
pub fn stemmer() -> TextAnalyzer {
    TextAnalyzer::builder(RawTokenizer::default())
        .filter(Stemmer::default())
        .build()
}

fn is_stemmable(w: &str) -> bool {
    w.len() >= 4 && w.bytes().all(|b| b.is_ascii_lowercase())
}

/// Finds the variants of `term` in the dictionaries of the searched fields.
pub fn expand(
    searcher: &Searcher,
    fields: &Fields,
    term: &str,
    stemmer: &mut TextAnalyzer,
) -> Result<Variants> {
    let chars = term.chars().count();
    let typo_distance: u8 = if chars >= 9 {
        2
    } else if chars >= 5 {
        1
    } else {
        0
    };
    // A word the notes already contain is taken as spelt right: looking for its typo variants
    // (the costliest walk of the dictionary) would mostly add noise. Words the notes lack, or
    // hold only once or twice, get the typo walk.
    let known =
        doc_freq_in(searcher, fields.body, term)? + doc_freq_in(searcher, fields.title, term)?;
    let typo_distance = if known > tune("typo_known_df", 2.0) as u64 {
        0
    } else {
        typo_distance
    };
    let dfa = (typo_distance > 0).then(|| lev_builder(typo_distance).build_dfa(term));
    let term_stem = is_stemmable(term).then(|| stem(stemmer, term));
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
                    if s != term {
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

/// A query term with its variants; compound words whose whole form is unknown are searched
/// by their parts instead.
#[derive(Debug, Clone)]
pub struct ExpandedTerm {
    pub text: String,
    pub variants: Variants,
    /// How much this term counts relative to the others (mean 1): rarer terms count more.
    pub rarity: f32,
}

/// Expands every term of the query.
pub fn expand_query(
    searcher: &Searcher,
    fields: &Fields,
    q: &ParsedQuery,
) -> Result<Vec<ExpandedTerm>> {
    let mut stemmer = stemmer();
    let mut out: Vec<ExpandedTerm> = Vec::new();
    for t in &q.terms {
        let v = expand(searcher, fields, &t.text, &mut stemmer)?;
        if v.all.is_empty() && !t.parts.is_empty() {
            for p in &t.parts {
                if out.iter().any(|e| &e.text == p) {
                    continue;
                }
                let v = expand(searcher, fields, p, &mut stemmer)?;
                out.push(ExpandedTerm {
                    text: p.clone(),
                    variants: v,
                    rarity: 1.0,
                });
            }
        } else {
            out.push(ExpandedTerm {
                text: t.text.clone(),
                variants: v,
                rarity: 1.0,
            });
        }
    }
    Ok(out)
}

/// Sets each term's rarity from its document frequency in the text (the most frequent of its
/// variants): idf^p normalised to a mean of 1.
pub fn set_rarity(searcher: &Searcher, fields: &Fields, terms: &mut [ExpandedTerm]) -> Result<()> {
    let p = tune("idf_pow", 1.0);
    if terms.is_empty() || p == 0.0 {
        return Ok(());
    }
    let n = searcher.num_docs().max(1) as f32;
    let mut idfs = Vec::with_capacity(terms.len());
    for t in terms.iter() {
        let mut df = 0u64;
        for (s, _) in t.variants.all.iter().filter(|(_, w)| **w >= 0.99) {
            df = df.max(searcher.doc_freq(&Term::from_field_text(fields.body, s))?);
        }
        let df = df as f32;
        idfs.push((1.0 + (n - df + 0.5) / (df + 0.5)).ln().max(0.01).powf(p));
    }
    let mean = idfs.iter().sum::<f32>() / idfs.len() as f32;
    for (t, idf) in terms.iter_mut().zip(idfs) {
        t.rarity = idf / mean;
    }
    Ok(())
}

/// The BM25 candidate query.
pub fn candidate_query(
    fields: &Fields,
    q: &ParsedQuery,
    terms: &[ExpandedTerm],
    require_phrases: bool,
    scope: &Scope,
    ignored: Vec<Box<dyn Query>>,
) -> Box<dyn Query> {
    let mut should: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    let boosts: HashMap<Field, f32> = field_boosts(fields).into_iter().collect();
    let mut term_queries: Vec<Box<dyn Query>> = Vec::new();
    for t in terms {
        let mut per_field: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for (field, vars) in &t.variants.per_field {
            let fb = boosts.get(field).copied().unwrap_or(1.0);
            let alts: Vec<Box<dyn Query>> = vars
                .iter()
                .map(|(s, w)| {
                    let tq = TermQuery::new(
                        Term::from_field_text(*field, s),
                        IndexRecordOption::WithFreqs,
                    );
                    Box::new(BoostQuery::new(Box::new(tq), fb * w)) as Box<dyn Query>
                })
                .collect();
            per_field.push((
                Occur::Should,
                Box::new(DisjunctionMaxQuery::with_tie_breaker(alts, 0.1)),
            ));
        }
        if !per_field.is_empty() {
            term_queries.push(Box::new(BooleanQuery::new(per_field)) as Box<dyn Query>);
        }
    }
    // Coordination (all terms, all but one): see `coordination`.
    if !term_queries.is_empty() {
        should.push((
            Occur::Should,
            Box::new(CoordinationQuery::new(
                term_queries,
                tune("c_all", 3.0),
                tune("c_loo", 1.5),
            )),
        ));
    }
    for phrase in q.phrases.iter().chain(std::iter::once(&q.sequence)) {
        if phrase.len() < 2 {
            continue;
        }
        for (field, boost) in [
            (fields.body, 2.0),
            (fields.title, 4.0),
            (fields.headings, 2.0),
        ] {
            let pterms: Vec<Term> = phrase
                .iter()
                .map(|s| Term::from_field_text(field, s))
                .collect();
            should.push((
                Occur::Should,
                Box::new(BoostQuery::new(Box::new(PhraseQuery::new(pterms)), boost)),
            ));
        }
    }
    if should.is_empty() {
        return Box::new(EmptyQuery);
    }
    let mut clauses: Vec<(Occur, Box<dyn Query>)> =
        vec![(Occur::Must, Box::new(BooleanQuery::new(should)))];
    if require_phrases {
        // A quoted phrase is a requirement (as in Omnisearch): in the body, file name or a
        // heading.
        for p in &q.phrases {
            let anywhere: Vec<(Occur, Box<dyn Query>)> =
                [fields.body, fields.title, fields.headings]
                    .into_iter()
                    .map(|f| {
                        let t: Vec<Term> = p.iter().map(|s| Term::from_field_text(f, s)).collect();
                        (
                            Occur::Should,
                            Box::new(PhraseQuery::new(t)) as Box<dyn Query>,
                        )
                    })
                    .collect();
            clauses.push((Occur::Must, Box::new(BooleanQuery::new(anywhere))));
        }
    }
    if let Some(folder) = &scope.folder {
        clauses.push((Occur::Must, raw_term(fields.folders, folder)));
    }
    for ex in &scope.excludes {
        clauses.push((Occur::MustNot, raw_term(fields.folders, ex)));
    }
    for q in ignored {
        clauses.push((Occur::MustNot, q));
    }
    for ex in &q.excluded_terms {
        for f in [
            fields.body,
            fields.title,
            fields.headings,
            fields.aliases,
            fields.tags,
        ] {
            clauses.push((Occur::MustNot, raw_term(f, ex)));
        }
    }
    // Excluded phrases are filtered in `rerank`: tantivy 0.27's phrase scorer trips a debug
    // assertion when used as an exclusion.
    Box::new(BooleanQuery::new(clauses))
}

fn raw_term(field: Field, text: &str) -> Box<dyn Query> {
    Box::new(TermQuery::new(
        Term::from_field_text(field, text),
        IndexRecordOption::Basic,
    ))
}

/// One re-ranked note.
#[derive(Debug, Clone)]
pub struct Ranked {
    pub path: String,
    pub basename: String,
    pub score: f64,
    pub excerpt: String,
    pub line: Option<u64>,
    pub heading: Option<String>,
    pub tags: Vec<String>,
    pub aliases: Vec<String>,
    /// Query terms this note matched.
    pub matched: Vec<String>,
    /// Word forms (variants of the matched terms) to highlight.
    pub highlight: Vec<String>,
}

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
}

/// Re-ranks BM25 candidates with the bonus signals and returns the best `limit`, each with its
/// excerpt.
///
/// The signals come from the postings of the candidates (term frequencies, positions), so a
/// note is only read back (and tokenized, for the excerpt) when it is returned.
pub fn rerank(
    searcher: &Searcher,
    fields: &Fields,
    q: &ParsedQuery,
    terms: &[ExpandedTerm],
    candidates: &[(f32, DocAddress)],
    limit: usize,
) -> Result<Vec<Ranked>> {
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
                for (s, w) in vars {
                    let term = Term::from_field_text(*field, s);
                    for_each_hit(
                        &inv,
                        &term,
                        IndexRecordOption::WithFreqs,
                        &docs,
                        |i, postings| {
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
                                &mut h.body
                            };
                            *slot = slot.max(*w);
                        },
                    )?;
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
            name_match(&mut analyzer, &crate::omnisearch::stem_of(&f.path), terms)
        };
        if f.terms.iter().any(|h| h.alias > 0.0) {
            let doc: TantivyDocument = searcher.doc(candidates[i].1)?;
            for a in doc.get_all(fields.aliases).filter_map(|v| v.as_str()) {
                name = name.max(name_match(&mut analyzer, a, terms));
            }
        }
        let bonus = bonus(q, terms, f, name);
        let bm25 = candidates[i].0;
        if std::env::var_os("VS_EXPLAIN").is_some() {
            eprintln!(
                "{}: bonus={bonus} bm25={bm25} name={name} {:?}",
                f.path, f.terms
            );
        }
        scored.push((f64::from(bonus + bm25_part(bm25, max_bm25)), i));
    }
    scored.sort_by(|a, b| {
        b.0.partial_cmp(&a.0)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| feats[a.1].path.cmp(&feats[b.1].path))
    });
    scored.truncate(limit);

    let mut out = Vec::with_capacity(scored.len());
    for (score, i) in scored {
        let doc: TantivyDocument = searcher
            .doc(candidates[i].1)
            .context("reading a stored note")?;
        let body = doc
            .get_first(fields.body)
            .and_then(|v| v.as_str())
            .unwrap_or_default();
        let meta = note::parse(body);
        let pos = excerpt_position(&mut analyzer, q, terms, body, meta.body_start);
        let path = doc
            .get_first(fields.path)
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_string();
        let mut matched = Vec::new();
        let mut highlight = Vec::new();
        for (t, h) in terms.iter().zip(&feats[i].terms) {
            if h.title.max(h.alias).max(h.head).max(h.body).max(h.tags) > 0.0 {
                matched.push(t.text.clone());
                highlight.extend(t.variants.all.keys().cloned());
            }
        }
        out.push(Ranked {
            basename: crate::omnisearch::stem_of(&path),
            path,
            score,
            excerpt: excerpt::make_excerpt_from(body, pos, meta.body_start),
            line: Some(excerpt::line_of(body, pos)),
            heading: note::heading_at(&meta, pos),
            tags: meta.tags.clone(),
            aliases: meta.aliases.clone(),
            matched,
            highlight,
        });
    }
    Ok(out)
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
fn bonus(q: &ParsedQuery, terms: &[ExpandedTerm], f: &Features, name: f32) -> f32 {
    let n = f.terms.len();
    if n == 0 {
        return 0.0;
    }
    let mut bonus = 0.0f32;
    let mut min_match = 1.0f32;
    let mut sum_match = 0.0f32;
    let mut tf = 0.0f32;
    for (h, t) in f.terms.iter().zip(terms) {
        let title = h.title.max(h.alias);
        let matched = title.max(h.body).max(h.head).max(h.tags);
        min_match = min_match.min(matched);
        sum_match += matched * t.rarity;
        tf += h.body_tf;
        let r = if tune("rar_term", 0.0) > 0.0 {
            t.rarity
        } else {
            1.0
        };
        bonus += tune("s_term", 20.0) * matched * r
            + tune("s_title", 8.0) * title
            + tune("s_head", 2.0) * h.head_tf.min(3.0);
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

/// Where the excerpt of a returned note starts: the first quoted phrase, else the query as a
/// phrase, else the earliest match of any term — preferring the text over the frontmatter.
fn excerpt_position(
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
fn name_match(analyzer: &mut TextAnalyzer, name: &str, terms: &[ExpandedTerm]) -> f32 {
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
