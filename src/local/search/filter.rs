//! The filters as clauses of the index query, so they select notes before ranking and never
//! shorten a result list: folder scope, Obsidian's ignored files, `-excluded` words, the
//! plugin's `path:`/`ext:`, and `--tag`, `--since`/`--until`, `--where`, `--links-to`/`--linked-from`.
//!
//! How each is indexed (see `index-schema/schema.json`): a tag is one exact term of
//! `tag_paths`, which holds every tag of a note and every ancestor of a nested tag, so
//! `--tag project` is one term query that also finds `project/alpha`; a property condition is
//! one exact term of `properties` (`key`, `key=value`); the modification time is a range over
//! the `mtime_ns` fast column; `path:`/`ext:` are case-insensitive regular expressions over the
//! `path` terms (substring, as the plugin compares); the link filters are resolved first into
//! the notes they let through (`crate::local::links::allowed_docs`), matched by address
//! ([`DocsQuery`]). Positive filters score 0, so they leave the BM25 of the candidates as it was.

use std::ops::Bound;

use tantivy::query::{
    BooleanQuery, ConstScoreQuery, Occur, Query, RangeQuery, RegexQuery, TermQuery,
};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::Term;

use super::docs::DocsQuery;
use super::ignore::escape;
use super::query::ParsedQuery;
use crate::core::{Filters, Scope};
use crate::local::schema::Fields;
use crate::local::stored;

/// Everything that narrows a search, besides the query's words.
#[derive(Debug, Clone, Copy)]
pub(in crate::local) struct Narrowing<'a> {
    pub(in crate::local) scope: &'a Scope,
    pub(in crate::local) filters: &'a Filters,
    /// The notes `--links-to` and `--linked-from` let through, resolved beforehand
    /// (`crate::local::links::allowed_docs`); `None` without those filters.
    pub(in crate::local) linked: Option<&'a DocsQuery>,
}

/// The filter clauses (`Must` and `MustNot`) for a query's candidates or a listing.
pub(in crate::local) fn clauses(
    fields: &Fields,
    q: &ParsedQuery,
    narrow: Narrowing<'_>,
    ignored: Vec<Box<dyn Query>>,
) -> Vec<(Occur, Box<dyn Query>)> {
    let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    let scope = narrow.scope;
    let filters = narrow.filters;
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
    // Placeholders of files that could not be indexed are never hits, nor listed.
    clauses.push((
        Occur::MustNot,
        raw_term(fields.skipped, stored::PLACEHOLDER),
    ));
    if !q.paths.is_empty() {
        let any: Vec<Box<dyn Query>> = q
            .paths
            .iter()
            .map(|p| path_regex(fields.path, &format!(".*{}.*", escape(p))))
            .collect();
        clauses.push((Occur::Must, zero(one_of(any))));
    }
    for p in &q.excluded_paths {
        clauses.push((
            Occur::MustNot,
            path_regex(fields.path, &format!(".*{}.*", escape(p))),
        ));
    }
    if !q.exts.is_empty() {
        // The extension: what follows the path's last dot.
        let any: Vec<Box<dyn Query>> = q
            .exts
            .iter()
            .map(|e| path_regex(fields.path, &format!(r".*\.{}[^.]*", escape(e))))
            .collect();
        clauses.push((Occur::Must, zero(one_of(any))));
    }
    for e in &q.excluded_exts {
        clauses.push((
            Occur::MustNot,
            path_regex(fields.path, &format!(r".*\.{}[^.]*", escape(e))),
        ));
    }
    for t in &filters.tags {
        clauses.push((Occur::Must, zero(raw_term(fields.tag_paths, t))));
    }
    for p in &filters.properties {
        clauses.push((Occur::Must, zero(raw_term(fields.properties, &p.term()))));
    }
    if filters.since_ns.is_some() || filters.until_ns.is_some() {
        let bound = |v: Option<i64>| match v {
            Some(ns) => Bound::Included(Term::from_field_i64(fields.mtime_ns, ns)),
            None => Bound::Unbounded,
        };
        let range = RangeQuery::new(bound(filters.since_ns), bound(filters.until_ns));
        clauses.push((Occur::Must, zero(Box::new(range))));
    }
    if let Some(linked) = narrow.linked {
        clauses.push((Occur::Must, zero(Box::new(linked.clone()))));
    }
    clauses
}

/// True when the clauses would narrow the notes beyond the scope and the ignored files: what
/// makes an empty query a listing.
pub(in crate::local) fn lists_without_words(q: &ParsedQuery, filters: &Filters) -> bool {
    !filters.is_empty() || q.has_path_filters()
}

fn zero(q: Box<dyn Query>) -> Box<dyn Query> {
    Box::new(ConstScoreQuery::new(q, 0.0))
}

fn one_of(qs: Vec<Box<dyn Query>>) -> Box<dyn Query> {
    Box::new(BooleanQuery::new(
        qs.into_iter().map(|q| (Occur::Should, q)).collect(),
    ))
}

fn path_regex(field: Field, pattern: &str) -> Box<dyn Query> {
    match RegexQuery::from_pattern(&format!("(?is){pattern}"), field) {
        Ok(q) => Box::new(q),
        // Every meta character is escaped, so this can't happen; matching nothing is the
        // answer that never widens a filter.
        Err(_) => Box::new(tantivy::query::EmptyQuery),
    }
}

pub(in crate::local) fn raw_term(field: Field, text: &str) -> Box<dyn Query> {
    Box::new(TermQuery::new(
        Term::from_field_text(field, text),
        IndexRecordOption::Basic,
    ))
}
