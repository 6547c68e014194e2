//! The BM25 candidate query: every variant of every term with its field boost, coordination
//! bonuses, the query as a phrase, and the filters ([`crate::local::search::filter`]) inside the query so
//! they never shorten the result list.

use std::collections::HashMap;

use tantivy::query::{
    BooleanQuery, BoostQuery, DisjunctionMaxQuery, EmptyQuery, Occur, PhraseQuery, Query, TermQuery,
};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::Term;

use super::coordination::CoordinationQuery;
use super::terms::ExpandedTerm;
use crate::local::schema::Fields;
use crate::local::search::filter::{self, Narrowing};
use crate::local::search::query::ParsedQuery;
use crate::local::weights::weights;

/// Field boosts of the candidate query.
fn field_boosts(f: &Fields) -> [(Field, f32); 5] {
    [
        (f.title, weights().b_title),
        (f.aliases, weights().b_title),
        (f.headings, weights().b_head),
        (f.tags, weights().b_tags),
        (f.body, 1.0),
    ]
}

/// The BM25 candidate query.
pub(in crate::local) fn candidate_query(
    fields: &Fields,
    q: &ParsedQuery,
    terms: &[ExpandedTerm],
    require_phrases: bool,
    narrow: Narrowing<'_>,
    ignored: Vec<Box<dyn Query>>,
) -> Box<dyn Query> {
    let mut should: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    let boosts: HashMap<Field, f32> = field_boosts(fields).into_iter().collect();
    let mut term_queries: Vec<Box<dyn Query>> = Vec::new();
    // Filler words ("how", "do", "my") would lift every note that holds them.
    for t in terms.iter().filter(|t| !t.filler) {
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
                weights().c_all,
                weights().c_loo,
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
    clauses.extend(filter::clauses(fields, q, narrow, ignored));
    // Excluded phrases are filtered in `rerank`: tantivy 0.27's phrase scorer trips a debug
    // assertion when used as an exclusion.
    Box::new(BooleanQuery::new(clauses))
}
