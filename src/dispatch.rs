//! Picks the engine for a search (`auto`, `omnisearch`, `local`, `both`) and assembles the
//! one answer.
//!
//! `auto` asks Omnisearch first and falls back to the local index on any failure (refused,
//! timeout, bad status, bad body) and when its answer is empty or starved by the folder
//! scope or the filters (the plugin sends at most 50 hits, which we narrow on our side); a
//! search without words (filters only) goes to the local index at once, as the plugin can't
//! list notes, and so does one with `--links-to`/`--linked-from` (see
//! [`omnisearch::search`]), which `omnisearch` and `both` refuse; `omnisearch` alone reports a failure as the engine `omnisearch (offline)` with empty
//! results and an `error`, so "nothing searched" is never mistaken for "no matches".
//!
//! A caller with no local index yet (the MCP server while its first build runs) asks
//! [`omnisearch_first`]: Omnisearch's hits answer at once; otherwise the same answer goes to
//! [`auto_after`], which falls back as `auto` does without asking the plugin again.

use std::borrow::Cow;
use std::time::{Duration, Instant};

use anyhow::Result;

use crate::core::{
    round_to, Comparison, EngineError, SearchHit, SearchOptions, SearchResponse, Source,
    ENGINE_BOTH, ENGINE_LOCAL, ENGINE_OFFLINE, ENGINE_OMNISEARCH,
};
use crate::local;
use crate::omnisearch;

/// Runs one search with the engine `opts.source` asks for.
pub(crate) fn search(opts: &SearchOptions) -> Result<SearchResponse> {
    run(opts, None)
}

/// [`search`] with the local index kept open: a local search without a refresh answers from
/// `kept` instead of opening the index.
pub(crate) fn search_kept(opts: &SearchOptions, kept: &local::Kept) -> Result<SearchResponse> {
    if !matches!(opts.source, Source::Local) {
        return run(opts, None);
    }
    let started = Instant::now();
    let opts = &respelled(opts);
    let mut response = empty_response(opts);
    fill_local(&mut response, local::search_kept(kept, opts)?);
    Ok(finish(response, started.elapsed()))
}

/// Omnisearch asked ahead of an `auto` search, by a caller that would rather not wait for the
/// local index to be built.
#[cfg(feature = "mcp")]
#[derive(Debug)]
pub(crate) enum OmnisearchFirst {
    /// Omnisearch had hits: they are the answer (even when a folder or a filter left fewer
    /// than the limit: no index is there to do better).
    Answered(Box<SearchResponse>),
    /// It had none, or did not answer: the local engine must. Pass this to [`auto_after`], so
    /// the search does not ask Omnisearch a second time.
    Declined(Asked),
}

/// What Omnisearch said to a search it did not answer.
#[derive(Debug)]
pub(crate) struct Asked {
    /// `None`: not asked (a search without words or with a link filter, which the plugin
    /// can't answer).
    answer: Option<Result<omnisearch::OmniAnswer, EngineError>>,
    took: Duration,
}

/// Asks Omnisearch alone for `opts`; its hits are the answer, anything less leaves the search
/// to [`auto_after`].
#[cfg(feature = "mcp")]
pub(crate) fn omnisearch_first(opts: &SearchOptions) -> OmnisearchFirst {
    let started = Instant::now();
    if opts.query.trim().is_empty() || opts.filters.follows_links() {
        return OmnisearchFirst::Declined(Asked {
            answer: None,
            took: Duration::ZERO,
        });
    }
    let opts = &respelled(opts);
    match omnisearch::search(opts) {
        Ok(answer) if !answer.hits.is_empty() => {
            let mut response = empty_response(opts);
            response.engine = ENGINE_OMNISEARCH.into();
            response.results = answer.hits;
            OmnisearchFirst::Answered(Box::new(finish(response, started.elapsed())))
        }
        answer => OmnisearchFirst::Declined(Asked {
            answer: Some(answer),
            took: started.elapsed(),
        }),
    }
}

/// The `auto` search after [`omnisearch_first`] declined: Omnisearch's answer is taken from
/// `asked` instead of asking again. Other sources ignore `asked`.
#[cfg(feature = "mcp")]
pub(crate) fn auto_after(opts: &SearchOptions, asked: Asked) -> Result<SearchResponse> {
    run(opts, Some(asked))
}

/// A usable committed local index of `opts.vault` exists: a search can read it at once,
/// where without one it builds the index first.
#[cfg(feature = "mcp")]
pub(crate) fn has_index(opts: &SearchOptions) -> bool {
    opts.cache_dir
        .as_deref()
        .is_some_and(|cache| local::has_index(cache, &opts.vault))
}

/// A usable committed local index of `vault` exists below `cache_dir`.
#[cfg(feature = "mcp")]
pub(crate) fn has_local_index(
    cache_dir: Option<&std::path::Path>,
    vault: &std::path::Path,
) -> bool {
    cache_dir.is_some_and(|cache| local::has_index(cache, vault))
}

/// A note's links by path, from the last committed local index (`Ok(None)` without one):
/// what the MCP server shows with a note it reads.
#[cfg(feature = "mcp")]
pub(crate) fn note_links(
    cache_dir: Option<&std::path::Path>,
    vault: &std::path::Path,
    note: &str,
) -> Result<Option<(String, crate::core::NoteLinks)>> {
    match cache_dir {
        Some(cache) => local::note_links(cache, vault, note),
        None => Ok(None),
    }
}

/// The vault's counts of links, broken links and orphans from the last committed local
/// index (`None` without one, or when it can't be read): the MCP server's vault overview.
#[cfg(feature = "mcp")]
pub(crate) fn link_counts(
    cache_dir: Option<&std::path::Path>,
    vault: &std::path::Path,
) -> Option<crate::core::LinkCounts> {
    local::link_counts(cache_dir?, vault).ok().flatten()
}

#[cfg(feature = "mcp")]
pub(crate) use local::Names;

/// The folders, tags and frontmatter keys the local index knows, each with its note count
/// (`None` without an index): the MCP server's hints and vault overview.
#[cfg(feature = "mcp")]
pub(crate) fn folders_and_tags(
    cache_dir: Option<&std::path::Path>,
    vault: &std::path::Path,
) -> Option<Names> {
    local::folders_and_tags(cache_dir?, vault).ok().flatten()
}

/// Whether Obsidian's "Excluded files" hide a vault-relative path from the local search.
#[cfg(feature = "mcp")]
pub(crate) fn excluded_by_obsidian(vault: &std::path::Path, rel: &str) -> bool {
    local::excluded_by_obsidian(vault, rel)
}

/// Obsidian's "Excluded files" of a vault, to test the paths of an answer.
#[cfg(feature = "mcp")]
pub(crate) fn obsidian_exclusions(vault: &std::path::Path) -> local::Excluded {
    local::obsidian_exclusions(vault)
}

/// `--folder notes` means the folder `Notes`, as it does on the case-insensitive disks of
/// macOS and Windows: the index and the plugin compare paths exactly.
fn respelled(opts: &SearchOptions) -> Cow<'_, SearchOptions> {
    if opts.scope.is_everything() {
        return Cow::Borrowed(opts);
    }
    Cow::Owned(SearchOptions {
        scope: opts
            .scope
            .respelled(|f| crate::paths::as_on_disk(&opts.vault, f)),
        ..opts.clone()
    })
}

fn empty_response(opts: &SearchOptions) -> SearchResponse {
    SearchResponse {
        query: opts.query.clone(),
        engine: String::new(),
        elapsed_seconds: 0.0,
        vault: opts.vault.display().to_string(),
        total_results: 0,
        results: Vec::new(),
        error: None,
        stale: false,
        watched: false,
        fallback_reason: None,
        omnisearch_hits: None,
        comparison: None,
        warnings: Vec::new(),
        vaults: Vec::new(),
    }
}

fn finish(mut response: SearchResponse, elapsed: Duration) -> SearchResponse {
    response.total_results = response.results.len();
    response.elapsed_seconds = round_to(elapsed.as_secs_f64(), 3);
    response
}

/// One search; `asked` holds Omnisearch's answer when an `auto` search had it already.
fn run(opts: &SearchOptions, asked: Option<Asked>) -> Result<SearchResponse> {
    let started = Instant::now();
    let earlier = asked.as_ref().map_or(Duration::ZERO, |a| a.took);
    let opts = &respelled(opts);
    let mut response = empty_response(opts);
    let wordless = opts.query.trim().is_empty();
    let links = opts.filters.follows_links();
    match opts.source {
        Source::Local => use_local(opts, &mut response)?,
        Source::Omnisearch | Source::Both if links => anyhow::bail!(
            "--links-to and --linked-from need the local engine: the plugin can't follow \
             links (use --source local or auto)"
        ),
        Source::Omnisearch if wordless => anyhow::bail!(
            "--source omnisearch needs words to search for: the plugin can't list notes by \
             filters alone (use --source local or auto)"
        ),
        Source::Auto if wordless || links => use_local(opts, &mut response)?,
        Source::Omnisearch => match omnisearch::search(opts) {
            Ok(answer) => {
                response.engine = ENGINE_OMNISEARCH.into();
                response.results = answer.hits;
            }
            Err(e) => {
                response.engine = ENGINE_OFFLINE.into();
                response.error = Some(reason(e));
            }
        },
        Source::Auto => match asked
            .and_then(|a| a.answer)
            .unwrap_or_else(|| omnisearch::search(opts))
        {
            Ok(answer) => {
                // Omnisearch requires every word: one extra word empties its answer. And it
                // caps at 50 results, which a narrow --folder or a filter can cut down to too
                // few.
                let narrowed = !opts.scope.is_everything() || !opts.filters.is_empty();
                let scope_starved = narrowed
                    && answer.raw >= omnisearch::MAX_RESULTS
                    && answer.in_scope < opts.limit;
                if answer.hits.is_empty() || scope_starved {
                    use_local(opts, &mut response)?;
                    response.omnisearch_hits = Some(answer.in_scope);
                } else {
                    response.engine = ENGINE_OMNISEARCH.into();
                    response.results = answer.hits;
                }
            }
            Err(e) => {
                response.fallback_reason = Some(reason(e));
                use_local(opts, &mut response)?;
            }
        },
        Source::Both => {
            let (omni_engine, omni_error, omni) = match omnisearch::search(opts) {
                Ok(answer) => (ENGINE_OMNISEARCH.to_string(), None, answer.hits),
                Err(e) => (ENGINE_OFFLINE.to_string(), Some(reason(e)), Vec::new()),
            };
            use_local(opts, &mut response)?;
            response.engine = ENGINE_BOTH.into();
            response.comparison = Some(compare(
                omni_engine,
                omni_error,
                omni,
                response.results.clone(),
            ));
        }
    }
    Ok(finish(response, started.elapsed() + earlier))
}

fn reason(e: EngineError) -> String {
    match e {
        EngineError::OmnisearchUnavailable(why) => why,
    }
}

fn use_local(opts: &SearchOptions, response: &mut SearchResponse) -> Result<()> {
    fill_local(response, local::search(opts)?);
    Ok(())
}

fn fill_local(response: &mut SearchResponse, local: local::LocalAnswer) {
    response.engine = ENGINE_LOCAL.into();
    response.results = local.hits;
    response.stale = local.stale;
    response.watched = local.watched;
    response.warnings.extend(local.warnings);
}

/// Puts two answers side by side: overlap@k with k = the shorter list.
fn compare(
    omnisearch_engine: String,
    omnisearch_error: Option<String>,
    omnisearch: Vec<SearchHit>,
    local: Vec<SearchHit>,
) -> Comparison {
    let k = omnisearch.len().min(local.len());
    let top: std::collections::HashSet<&str> =
        omnisearch.iter().take(k).map(|h| h.path.as_str()).collect();
    let both = local
        .iter()
        .take(k)
        .filter(|h| top.contains(h.path.as_str()))
        .count();
    Comparison {
        omnisearch_engine,
        omnisearch_error,
        k,
        overlap_at_k: if k == 0 {
            0.0
        } else {
            round_to(both as f64 / k as f64, 3)
        },
        omnisearch,
        local,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_after_takes_the_answer_it_is_given() {
        let dir = tempfile::tempdir().unwrap();
        let vault = dir.path().join("vault");
        std::fs::create_dir(&vault).unwrap();
        std::fs::write(vault.join("kotlin.md"), "# Kotlin\nThe daemon.\n").unwrap();
        let mut opts = SearchOptions::new(&vault, "daemon");
        opts.cache_dir = Some(dir.path().join("cache"));
        // Nothing listens on port 1: asking again would say "connection refused".
        opts.port = 1;
        let asked = Asked {
            answer: Some(Err(EngineError::OmnisearchUnavailable(
                "asked before".into(),
            ))),
            took: Duration::ZERO,
        };
        let r = auto_after(&opts, asked).unwrap();
        assert_eq!(r.engine, ENGINE_LOCAL);
        assert_eq!(r.fallback_reason.as_deref(), Some("asked before"));
        assert_eq!(r.results[0].path, "kotlin.md");
    }
}
