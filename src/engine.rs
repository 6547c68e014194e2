//! Picks the engine for a search (`auto`, `omnisearch`, `local`) and shapes its answer into
//! the output contract.
//!
//! `auto` asks Omnisearch first and falls back to the local index on any failure (refused,
//! timeout, bad status, bad body); `omnisearch` alone reports a failure as the engine
//! `omnisearch (offline)` with empty results and an `error`, so "nothing searched" is never
//! mistaken for "no matches".

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Result;

use crate::cli::Source;
use crate::config::Scope;
use crate::error::EngineError;
use crate::excerpt;
use crate::local;
use crate::note;
use crate::omnisearch;
use crate::output::{round_to, Comparison, SearchHit, SearchResponse};

pub const ENGINE_OMNISEARCH: &str = "omnisearch";
pub const ENGINE_OFFLINE: &str = "omnisearch (offline)";
pub const ENGINE_LOCAL: &str = "local";
pub const ENGINE_BOTH: &str = "both";

/// Everything one search needs; the library entry point [`crate::search`] takes this.
#[derive(Debug, Clone)]
pub struct SearchOptions {
    /// The vault directory (canonicalised by the caller or not: it is used as given).
    pub vault: PathBuf,
    /// User cache directory; the index lives in `<cache_dir>/vault-search/<vault id>/`.
    /// `None` keeps the index in memory for this call only.
    pub cache_dir: Option<PathBuf>,
    /// Query text: words, `"quoted phrases"`, `-excluded` words.
    pub query: String,
    /// At most this many results.
    pub limit: usize,
    /// Folder filter.
    pub scope: Scope,
    /// Which engine answers.
    pub source: Source,
    /// Omnisearch HTTP port.
    pub port: u16,
    /// Refresh the local index (stat walk) before searching.
    pub refresh: bool,
    /// Also return notes hidden by Obsidian's "Excluded files" (local engine).
    pub include_ignored: bool,
}

impl SearchOptions {
    /// Options for a local search of `vault` with the defaults of the command line.
    pub fn new(vault: impl Into<PathBuf>, query: impl Into<String>) -> SearchOptions {
        SearchOptions {
            vault: vault.into(),
            cache_dir: None,
            query: query.into(),
            limit: 10,
            scope: Scope::default(),
            source: Source::Auto,
            port: crate::config::DEFAULT_PORT,
            refresh: true,
            include_ignored: false,
        }
    }
}

/// Runs one search with the engine `opts.source` asks for.
pub fn search(opts: &SearchOptions) -> Result<SearchResponse> {
    let started = Instant::now();
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
    };
    match opts.source {
        Source::Local => use_local(opts, &mut response)?,
        Source::Omnisearch => match omnisearch::query(opts.port, &opts.query) {
            Ok(hits) => {
                response.engine = ENGINE_OMNISEARCH.into();
                response.results = omni_results(&opts.vault, hits, &opts.scope, opts.limit).0;
            }
            Err(e) => {
                response.engine = ENGINE_OFFLINE.into();
                response.error = Some(reason(e));
            }
        },
        Source::Auto => match omnisearch::query(opts.port, &opts.query) {
            Ok(hits) => {
                let raw = hits.len();
                let (results, in_scope) = omni_results(&opts.vault, hits, &opts.scope, opts.limit);
                // Omnisearch requires every word: one extra word empties its answer. And it
                // caps at 50 results, which a narrow --folder can filter down to too few.
                let scope_starved = !opts.scope.is_everything()
                    && raw >= omnisearch::MAX_RESULTS
                    && in_scope < opts.limit;
                if results.is_empty() || scope_starved {
                    use_local(opts, &mut response)?;
                    response.omnisearch_hits = Some(in_scope);
                } else {
                    response.engine = ENGINE_OMNISEARCH.into();
                    response.results = results;
                }
            }
            Err(e) => {
                response.fallback_reason = Some(reason(e));
                use_local(opts, &mut response)?;
            }
        },
        Source::Both => {
            let (omni_engine, omni_error, omni) = match omnisearch::query(opts.port, &opts.query) {
                Ok(hits) => (
                    ENGINE_OMNISEARCH.to_string(),
                    None,
                    omni_results(&opts.vault, hits, &opts.scope, opts.limit).0,
                ),
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
        EngineError::OmnisearchUnavailable(why) | EngineError::IndexIncompatible(why) => why,
    }
}

fn use_local(opts: &SearchOptions, response: &mut SearchResponse) -> Result<()> {
    let local = local::search(opts)?;
    response.engine = ENGINE_LOCAL.into();
    response.results = local.hits;
    response.stale = local.stale;
    response.watched = local.watched;
    Ok(())
}

/// Puts two answers side by side: overlap@k with k = the shorter list.
pub fn compare(
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

/// Scopes client-side (the API has no folder parameter), cuts to `limit`, and reads each note
/// for the excerpt's line, its heading, tags and aliases. Also returns how many hits were in
/// scope before the cut.
fn omni_results(
    vault: &Path,
    hits: Vec<omnisearch::OmniHit>,
    scope: &Scope,
    limit: usize,
) -> (Vec<SearchHit>, usize) {
    let in_scope: Vec<omnisearch::OmniHit> = hits
        .into_iter()
        .filter(|h| scope.contains(&h.path))
        .collect();
    let n = in_scope.len();
    let results = in_scope
        .into_iter()
        .take(limit)
        .map(|h| {
            let mut hit = SearchHit {
                basename: h.basename,
                score: round_to(h.score, 2),
                excerpt: h.excerpt,
                engine: ENGINE_OMNISEARCH.into(),
                line: None,
                heading: None,
                tags: Vec::new(),
                aliases: Vec::new(),
                matched: h.found_words.clone(),
                highlight: h.found_words,
                path: h.path,
            };
            enrich_from_note(vault, &mut hit, h.offset_utf16);
            hit
        })
        .collect();
    (results, n)
}

/// Reads the note behind an Omnisearch hit: the line and heading at the plugin's UTF-16 match
/// offset, and the note's tags and aliases. Leaves them unknown when the note can't be read.
fn enrich_from_note(vault: &Path, hit: &mut SearchHit, offset_utf16: Option<usize>) {
    // Read only a file that really lies inside the vault: a symlink (of the note or a folder
    // on its way) pointing elsewhere is never followed.
    let inside = match (vault.join(&hit.path).canonicalize(), vault.canonicalize()) {
        (Ok(real), Ok(root)) => real.starts_with(root).then_some(real),
        _ => None,
    };
    let Some(Ok(bytes)) = inside.map(std::fs::read) else {
        return;
    };
    let text = String::from_utf8_lossy(&bytes);
    let meta = note::parse(&text);
    if let Some(pos) = offset_utf16.and_then(|off| excerpt::utf16_to_byte_offset(&text, off)) {
        hit.line = Some(excerpt::line_of(&text, pos));
        hit.heading = note::heading_at(&meta, pos);
    }
    hit.tags = meta.tags;
    hit.aliases = meta.aliases;
}
