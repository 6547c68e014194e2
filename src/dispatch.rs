//! Picks the engine for a search (`auto`, `omnisearch`, `local`, `both`) and assembles the
//! one answer.
//!
//! `auto` asks Omnisearch first and falls back to the local index on any failure (refused,
//! timeout, bad status, bad body) and when its answer is empty or starved by the folder
//! scope or the filters (the plugin sends at most 50 hits, which we narrow on our side); a
//! search without words (filters only) goes to the local index at once, as the plugin can't
//! list notes; `omnisearch` alone reports a failure as the engine `omnisearch (offline)` with empty
//! results and an `error`, so "nothing searched" is never mistaken for "no matches".

use std::time::Instant;

use anyhow::Result;

use crate::core::{
    round_to, Comparison, EngineError, SearchHit, SearchOptions, SearchResponse, Source,
    ENGINE_BOTH, ENGINE_LOCAL, ENGINE_OFFLINE, ENGINE_OMNISEARCH,
};
use crate::local;
use crate::omnisearch;

/// Runs one search with the engine `opts.source` asks for.
pub(crate) fn search(opts: &SearchOptions) -> Result<SearchResponse> {
    let started = Instant::now();
    // `--folder notes` means the folder `Notes`, as it does on the case-insensitive disks of
    // macOS and Windows: the index and the plugin compare paths exactly.
    let respelled;
    let opts = if opts.scope.is_everything() {
        opts
    } else {
        respelled = SearchOptions {
            scope: opts
                .scope
                .respelled(|f| crate::paths::as_on_disk(&opts.vault, f)),
            ..opts.clone()
        };
        &respelled
    };
    let mut response = SearchResponse {
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
    };
    let wordless = opts.query.trim().is_empty();
    match opts.source {
        Source::Local => use_local(opts, &mut response)?,
        Source::Omnisearch if wordless => anyhow::bail!(
            "--source omnisearch needs words to search for: the plugin can't list notes by \
             filters alone (use --source local or auto)"
        ),
        Source::Auto if wordless => use_local(opts, &mut response)?,
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
        Source::Auto => match omnisearch::search(opts) {
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
    response.total_results = response.results.len();
    response.elapsed_seconds = round_to(started.elapsed().as_secs_f64(), 3);
    Ok(response)
}

fn reason(e: EngineError) -> String {
    match e {
        EngineError::OmnisearchUnavailable(why) => why,
    }
}

fn use_local(opts: &SearchOptions, response: &mut SearchResponse) -> Result<()> {
    let local = local::search(opts)?;
    response.engine = ENGINE_LOCAL.into();
    response.results = local.hits;
    response.stale = local.stale;
    response.watched = local.watched;
    response.warnings.extend(local.warnings);
    Ok(())
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
