//! One search as a front-end asks for it: [`SearchRequest`] holds every option as the user gave
//! it, and [`SearchRequest::resolve`] turns it into the [`SearchOptions`] the engines answer,
//! with the same rules on every front-end (bounds, defaults, what a search without words
//! lists). Each front-end only reads its own spelling of the options into a request; the rows
//! of [`table`] say what those spellings are and where a front-end differs on purpose.

pub(crate) mod table;

use anyhow::{bail, Result};

use super::{Filters, Scope, SearchOptions, Sort, Source};
pub(crate) use table::Front;
use table::{option, Spelling};

/// Words of a query that count; the rest is left out, with a warning. Ranking a few hundred
/// words already costs seconds; half a million kept a search busy for minutes.
pub(crate) const MAX_QUERY_WORDS: usize = 256;
/// Bytes of a query that count (a word a megabyte long is no search either).
pub(crate) const MAX_QUERY_BYTES: usize = 4096;

/// A search as asked, before any rule is applied: one field per row of [`table::OPTIONS`]
/// (a test holds the two together). `None` and empty are "not given".
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SearchRequest {
    /// The words, as given (joined with spaces).
    pub(crate) query: String,
    pub(crate) limit: Option<u64>,
    pub(crate) folder: Option<String>,
    pub(crate) exclude: Vec<String>,
    pub(crate) tags: Vec<String>,
    pub(crate) since: Option<String>,
    pub(crate) until: Option<String>,
    pub(crate) where_: Vec<String>,
    pub(crate) links_to: Vec<String>,
    pub(crate) linked_from: Vec<String>,
    pub(crate) sort: Option<Sort>,
    pub(crate) source: Option<Source>,
    pub(crate) port: Option<u16>,
    pub(crate) no_refresh: bool,
    pub(crate) include_ignored: bool,
    pub(crate) budget: Option<u64>,
    /// Text output shows passages (the command line's rendering; the others always have them).
    pub(crate) passages: bool,
}

/// A request resolved: the options the engines get, and what the front-end renders with.
#[derive(Debug, Clone)]
pub(crate) struct Resolved {
    pub(crate) options: SearchOptions,
    /// The token budget the answer is fitted to (`None`: the whole answer).
    pub(crate) budget: Option<usize>,
    pub(crate) passages: bool,
    /// For the answer's `warnings`: the query was cut.
    pub(crate) warnings: Vec<String>,
}

/// How `front` names option `name` in a message: `--links-to`, `links_to`.
pub(crate) fn spelt(front: Front, name: &str) -> String {
    match (front, option(name).on(front)) {
        (Front::Cli, Spelling::As(n)) => format!("--{n}"),
        (_, Spelling::As(n)) => n.to_string(),
        (_, Spelling::Absent(_)) => name.to_string(),
    }
}

impl SearchRequest {
    /// The options of this search on `front`; `base` gives what the front-end decided itself
    /// (vault, cache directory, port, limits, whether to refresh, which engine by default).
    /// A value out of bounds or a filter that can't be read is an error naming the option as
    /// `front` spells it.
    pub(crate) fn resolve(self, front: Front, base: &SearchOptions) -> Result<Resolved> {
        let (query, cut) = capped_query(&self.query);
        let limit = self.limit.unwrap_or(table::DEFAULT_LIMIT);
        within(front, "limit", limit)?;
        let budget = match (front, self.budget) {
            (_, Some(b)) => Some(b),
            (Front::Mcp, None) => Some(table::DEFAULT_MCP_BUDGET),
            (_, None) => None,
        };
        if let Some(b) = budget {
            within(front, "budget", b)?;
        }
        let source = self.source.unwrap_or(base.source);
        if budget.is_some() && source == Source::Both {
            bail!(
                "{} does not go with {} both (two engines' lists side by side, for people)",
                spelt(front, "budget"),
                spelt(front, "source")
            );
        }
        let filters = Filters::parse(
            &self.tags,
            self.since.as_deref(),
            self.until.as_deref(),
            &self.where_,
        )?
        .with_links(&self.links_to, &self.linked_from)?;
        let scope = Scope::new(self.folder.as_deref(), &self.exclude)?;
        let wordless = query.is_empty();
        let lists = !filters.is_empty() || !scope.is_everything() || self.sort.is_some();
        if wordless && !lists {
            let filters: Vec<String> = [
                "folder",
                "exclude",
                "tags",
                "since",
                "until",
                "where",
                "links_to",
                "linked_from",
            ]
            .iter()
            .filter(|n| option(n).named(front).is_some())
            .map(|n| spelt(front, n))
            .collect();
            bail!(
                "the query is empty: give at least one word to search for, or a filter ({}) or \
                 {} modified to list notes, newest first",
                filters.join(", "),
                spelt(front, "sort")
            );
        }
        let budget = budget.map(|b| b as usize);
        let options = SearchOptions {
            query,
            limit: limit as usize,
            scope,
            filters,
            // Without words there is no relevance: the notes that pass the filters, newest
            // first.
            sort: if wordless {
                Sort::Modified
            } else {
                self.sort.unwrap_or_default()
            },
            source,
            port: self.port.unwrap_or(base.port),
            refresh: base.refresh && !self.no_refresh,
            include_ignored: self.include_ignored,
            passage_bytes: budget.map_or(super::DEFAULT_PASSAGE_BYTES, super::passage_bytes_within),
            ..base.clone()
        };
        Ok(Resolved {
            options,
            budget,
            passages: self.passages,
            warnings: cut.into_iter().collect(),
        })
    }
}

/// `value` of the number option `name` within its bounds on `front`.
fn within(front: Front, name: &str, value: u64) -> Result<()> {
    let o = option(name);
    let (Some(b), Some(max)) = (o.bounds, o.max(front)) else {
        return Ok(());
    };
    if !(b.min..=max).contains(&value) {
        bail!(
            "{} must be {}-{max}, not {value}",
            spelt(front, name),
            b.min
        );
    }
    Ok(())
}

/// The query's words, spaces collapsed, cut to [`MAX_QUERY_WORDS`] and [`MAX_QUERY_BYTES`];
/// the warning when it was cut.
fn capped_query(raw: &str) -> (String, Option<String>) {
    let mut query = String::new();
    let mut words = 0;
    let mut cut = false;
    for w in raw.split_whitespace() {
        if words == MAX_QUERY_WORDS || query.len() + 1 + w.len() > MAX_QUERY_BYTES {
            cut = true;
            break;
        }
        if !query.is_empty() {
            query.push(' ');
        }
        query.push_str(w);
        words += 1;
    }
    if query.is_empty() && cut {
        // One word longer than the cap: its start.
        let mut end = MAX_QUERY_BYTES;
        let w = raw.trim_start();
        while !w.is_char_boundary(end) {
            end -= 1;
        }
        query = w[..end].to_string();
    }
    let warning = cut.then(|| {
        format!(
            "the query was cut to its first {} words: at most {MAX_QUERY_WORDS} words \
             ({MAX_QUERY_BYTES} bytes) of a query count",
            words.max(1)
        )
    });
    (query, warning)
}

#[cfg(test)]
mod tests;
