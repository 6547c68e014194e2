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
use tantivy::query::{
    BooleanQuery, BoostQuery, DisjunctionMaxQuery, EmptyQuery, Occur, PhraseQuery, Query, TermQuery,
};
use tantivy::schema::{Field, IndexRecordOption, Value};
use tantivy::tokenizer::{RawTokenizer, Stemmer, TextAnalyzer, TokenStream};
use tantivy::{DocAddress, Searcher, TantivyDocument, Term};

use crate::analyzer;
use crate::config::Scope;
use crate::excerpt;
use crate::note;
use crate::query::ParsedQuery;
use crate::schema::Fields;

/// How many BM25 candidates are re-ranked.
pub const CANDIDATES: usize = 100;
/// Final score = bonus + BM25_WEIGHT × BM25.
pub const BM25_WEIGHT: f32 = 2.0;

/// Tuning knobs (development only): `VS_TUNE="name=value,..."`.
pub fn tune(name: &str, default: f32) -> f32 {
    static MAP: OnceLock<HashMap<String, f32>> = OnceLock::new();
    let map = MAP.get_or_init(|| {
        std::env::var("VS_TUNE")
            .unwrap_or_default()
            .split(',')
            .filter_map(|kv| kv.split_once('='))
            .filter_map(|(k, v)| Some((k.trim().to_string(), v.trim().parse().ok()?)))
            .collect()
    });
    map.get(name).copied().unwrap_or(default)
}

fn bm25_part(bm25: f32, max: f32) -> f32 {
    let norm = tune("bm25norm", 0.0);
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
            MatchKind::Inflection => tune("w_infl", 0.85),
            MatchKind::Typo1 => tune("w_typo1", 0.6),
            MatchKind::Prefix => tune("w_prefix", 0.5),
            MatchKind::Typo2 => tune("w_typo2", 0.45),
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
    let dfa = (typo_distance > 0).then(|| lev_builder(typo_distance).build_dfa(term));
    let term_stem = is_stemmable(term).then(|| stem(stemmer, term));
    // Scan below the stem minus one letter: `studies` → stem `studi` → scan `stud`, which also
    // reaches `study`.
    let stem_scan = term_stem.as_ref().map(|s| {
        let cut = s.char_indices().last().map_or(0, |(i, _)| i);
        s[..cut.max(3).min(s.len())].to_string()
    });

    let mut out = Variants::default();
    for (field, _) in field_boosts(fields) {
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
                let mut stream = dict.range().ge(term.as_bytes()).into_stream()?;
                let mut n = 0;
                while stream.advance() && n < MAX_SCAN {
                    n += 1;
                    let k = stream.key();
                    if !k.starts_with(term.as_bytes()) {
                        break;
                    }
                    if let Ok(s) = std::str::from_utf8(k) {
                        if s != term {
                            note_kind(&mut found, s, MatchKind::Prefix);
                        }
                    }
                }
            }
            if let (Some(scan), Some(st)) = (&stem_scan, &term_stem) {
                let mut stream = dict.range().ge(scan.as_bytes()).into_stream()?;
                let mut n = 0;
                while stream.advance() && n < MAX_SCAN {
                    n += 1;
                    let k = stream.key();
                    if !k.starts_with(scan.as_bytes()) {
                        break;
                    }
                    if let Ok(s) = std::str::from_utf8(k) {
                        if s != term && is_stemmable(s) && stem(stemmer, s) == *st {
                            note_kind(&mut found, s, MatchKind::Inflection);
                        }
                    }
                }
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
        let weighted: Vec<(String, f32)> = list.into_iter().map(|(s, k)| (s, k.weight())).collect();
        for (s, w) in &weighted {
            let e = out.all.entry(s.clone()).or_insert(0.0);
            *e = e.max(*w);
        }
        if !weighted.is_empty() {
            out.per_field.push((field, weighted));
        }
    }
    Ok(out)
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
                });
            }
        } else {
            out.push(ExpandedTerm {
                text: t.text.clone(),
                variants: v,
            });
        }
    }
    Ok(out)
}

/// The BM25 candidate query.
pub fn candidate_query(
    fields: &Fields,
    q: &ParsedQuery,
    terms: &[ExpandedTerm],
    require_phrases: bool,
    scope: &Scope,
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
    // Coordination: BM25 sums per-term scores, so a note with every word can lose to one that
    // repeats a single rare word. Conjunctions of all terms (and, for 3–6 terms, of all but
    // one, the "one extra word" case) lift the notes that cover the query into the candidates.
    let n = term_queries.len();
    if n >= 2 {
        let all: Vec<(Occur, Box<dyn Query>)> = term_queries
            .iter()
            .map(|q| (Occur::Must, q.box_clone()))
            .collect();
        should.push((
            Occur::Should,
            Box::new(BoostQuery::new(
                Box::new(BooleanQuery::new(all)),
                tune("c_all", 1.0),
            )),
        ));
    }
    if (3..=6).contains(&n) {
        for skip in 0..n {
            let some: Vec<(Occur, Box<dyn Query>)> = term_queries
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != skip)
                .map(|(_, q)| (Occur::Must, q.box_clone()))
                .collect();
            should.push((
                Occur::Should,
                Box::new(BoostQuery::new(
                    Box::new(BooleanQuery::new(some)),
                    tune("c_loo", 0.5),
                )),
            ));
        }
    }
    for q in term_queries {
        should.push((Occur::Should, q));
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
}

/// Re-ranks BM25 candidates with the bonus signals.
pub fn rerank(
    searcher: &Searcher,
    fields: &Fields,
    q: &ParsedQuery,
    terms: &[ExpandedTerm],
    candidates: &[(f32, DocAddress)],
) -> Result<Vec<Ranked>> {
    let mut analyzer = analyzer::text_analyzer();
    let mut out = Vec::with_capacity(candidates.len());
    let max_bm25 = candidates.iter().map(|c| c.0).fold(0.0f32, f32::max);
    for &(bm25, addr) in candidates {
        let doc: TantivyDocument = searcher.doc(addr).context("reading a stored note")?;
        let path = doc
            .get_first(fields.path)
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_string();
        let body = doc
            .get_first(fields.body)
            .and_then(|v| v.as_str())
            .unwrap_or_default();
        let aliases: Vec<&str> = doc
            .get_all(fields.aliases)
            .filter_map(|v| v.as_str())
            .collect();
        let basename = crate::omnisearch::stem_of(&path);
        if !q.excluded_phrases.is_empty() {
            let body_toks = tokens(&mut analyzer, body);
            let title_toks = tokens(&mut analyzer, &basename);
            if q.excluded_phrases.iter().any(|p| {
                find_phrase(&body_toks, p).is_some() || find_phrase(&title_toks, p).is_some()
            }) {
                continue;
            }
        }
        let (bonus, pos, text_start) =
            score_note(&mut analyzer, q, terms, &basename, &aliases, body);
        let (excerpt, line) = match pos {
            Some(p) => (
                excerpt::make_excerpt(body, p),
                Some(excerpt::line_of(body, p)),
            ),
            None => {
                let start = text_start;
                let first = body[start..]
                    .find(|c: char| !c.is_whitespace())
                    .map_or(start, |i| start + i);
                (
                    excerpt::make_excerpt(body, first),
                    Some(excerpt::line_of(body, first)),
                )
            }
        };
        if std::env::var_os("VS_EXPLAIN").is_some() {
            eprintln!("{path}: bonus={bonus} bm25={bm25}");
        }
        out.push(Ranked {
            path,
            basename,
            score: f64::from(bonus + bm25_part(bm25, max_bm25)),
            excerpt,
            line,
        });
    }
    out.sort_by(|a, b| {
        b.score
            .partial_cmp(&a.score)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| a.path.cmp(&b.path))
    });
    Ok(out)
}

/// Tokens of a text as (text, position, byte offset), part level only (whole compound tokens
/// are kept too, at their first part's position).
fn tokens(analyzer: &mut TextAnalyzer, text: &str) -> Vec<(String, usize, usize)> {
    analyzer::analyze(analyzer, text)
        .into_iter()
        .map(|t| (t.text, t.position, t.offset_from))
        .collect()
}

/// Where `phrase` occurs in a token list (consecutive positions), as the byte offset of its
/// first token.
fn find_phrase(toks: &[(String, usize, usize)], phrase: &[String]) -> Option<usize> {
    if phrase.is_empty() {
        return None;
    }
    let mut by_pos: HashMap<usize, Vec<&str>> = HashMap::new();
    for (t, p, _) in toks {
        by_pos.entry(*p).or_default().push(t);
    }
    toks.iter()
        .filter(|(t, _, _)| *t == phrase[0])
        .find(|(_, p, _)| {
            phrase[1..].iter().enumerate().all(|(i, w)| {
                by_pos
                    .get(&(p + i + 1))
                    .is_some_and(|v| v.iter().any(|x| x == w))
            })
        })
        .map(|(_, _, off)| *off)
}

/// The seed's bonus signals for one note, and the byte offset the excerpt should start from.
fn score_note(
    analyzer: &mut TextAnalyzer,
    q: &ParsedQuery,
    terms: &[ExpandedTerm],
    basename: &str,
    aliases: &[&str],
    body: &str,
) -> (f32, Option<usize>, usize) {
    let title_toks = tokens(analyzer, basename);
    let mut alias_toks = Vec::new();
    for a in aliases {
        alias_toks.extend(tokens(analyzer, a));
    }
    let body_toks = tokens(analyzer, body);
    // The excerpt prefers a match in the text over one in the frontmatter.
    let meta = note::parse(body);
    let text_start = meta.body_start;
    let headings: Vec<Vec<(String, usize, usize)>> = meta
        .headings
        .iter()
        .map(|h| tokens(analyzer, &h.text))
        .collect();

    let best = |toks: &[(String, usize, usize)], v: &crate::rank::Variants| {
        toks.iter()
            .map(|(t, _, _)| v.weight(t))
            .fold(0.0f32, f32::max)
    };
    let mut bonus = 0.0f32;
    let mut matched_all = true;
    let mut min_match = 1.0f32;
    let mut sum_match = 0.0f32;
    let mut tf = 0.0f32;
    let mut first_pos: Option<usize> = None;
    for t in terms {
        let v = &t.variants;
        let w_title = best(&title_toks, v).max(best(&alias_toks, v));
        let mut w_body = 0.0f32;
        for (tok, _, off) in &body_toks {
            let w = v.weight(tok);
            if w > 0.0 {
                w_body = w_body.max(w);
                tf += w;
                let better = match first_pos {
                    None => true,
                    Some(p) => {
                        (*off >= text_start, std::cmp::Reverse(*off))
                            > (p >= text_start, std::cmp::Reverse(p))
                    }
                };
                if better {
                    first_pos = Some(*off);
                }
            }
        }
        let mut heading_hits = 0.0f32;
        let mut w_head = 0.0f32;
        for h in &headings {
            let w = best(h, v);
            heading_hits += w;
            w_head = w_head.max(w);
        }
        let matched = w_title.max(w_body).max(w_head);
        if matched <= 0.0 {
            matched_all = false;
        }
        min_match = min_match.min(matched);
        sum_match += matched;
        if std::env::var_os("VS_EXPLAIN").is_some() {
            eprintln!("  {basename}: term {} title={w_title} body={w_body} head={w_head} hits={heading_hits}", t.text);
        }
        bonus += tune("s_term", 20.0) * matched
            + tune("s_title", 15.0) * w_title
            + tune("s_head", 8.0) * heading_hits.min(3.0);
    }
    if matched_all && !terms.is_empty() {
        bonus += tune("s_all", 50.0) * min_match;
    } else if !terms.is_empty() {
        let frac = sum_match / terms.len() as f32;
        bonus += tune("s_part", 0.0) * frac.powf(tune("cov_pow", 2.0));
    }
    bonus += tf.min(tune("s_tf", 25.0));

    // The query as a phrase: in the file name (or an alias) +80, else in the body +30.
    let seq = &q.sequence;
    if !seq.is_empty() {
        if find_phrase(&title_toks, seq).is_some() || find_phrase(&alias_toks, seq).is_some() {
            bonus += tune("s_ptitle", 80.0);
            let title_parts: Vec<&str> = title_toks
                .iter()
                .filter(|(t, _, _)| !seq.is_empty() && seq.iter().any(|s| s == t))
                .map(|(t, _, _)| t.as_str())
                .collect();
            if title_parts.len() == title_toks.len() {
                bonus += tune("s_exact_title", 40.0); // the file name is exactly the query
            }
        } else if let Some(off) = find_phrase(&body_toks, seq) {
            bonus += tune("s_pbody", 30.0);
            if seq.len() >= 2 {
                first_pos = Some(off);
            }
        }
    }
    for p in &q.phrases {
        if let Some(off) = find_phrase(&body_toks, p) {
            bonus += 60.0;
            first_pos = Some(off);
        } else if find_phrase(&title_toks, p).is_some() {
            bonus += 60.0;
        }
    }
    (bonus, first_pos, text_start)
}
