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
use crate::omnisearch;
use crate::output::{round_to, SearchHit, SearchResponse};

pub const ENGINE_OMNISEARCH: &str = "omnisearch";
pub const ENGINE_OFFLINE: &str = "omnisearch (offline)";
pub const ENGINE_LOCAL: &str = "local";

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
        fallback_reason: None,
    };
    let omni = match opts.source {
        Source::Local => None,
        Source::Auto | Source::Omnisearch => Some(omnisearch::query(opts.port, &opts.query)),
    };
    match omni {
        Some(Ok(hits)) => {
            response.engine = ENGINE_OMNISEARCH.into();
            response.results = omni_results(&opts.vault, hits, &opts.scope, opts.limit);
        }
        Some(Err(EngineError::OmnisearchUnavailable(why))) if opts.source == Source::Omnisearch => {
            response.engine = ENGINE_OFFLINE.into();
            response.error = Some(why);
        }
        other => {
            if let Some(Err(e)) = other {
                response.fallback_reason = Some(e.to_string());
            }
            let local = local::search(opts)?;
            response.engine = ENGINE_LOCAL.into();
            response.results = local.hits;
            response.stale = local.stale;
        }
    }
    response.total_results = response.results.len();
    response.elapsed_seconds = round_to(started.elapsed().as_secs_f64(), 3);
    Ok(response)
}

/// Scopes client-side (the API has no folder parameter), cuts to `limit`, and finds each
/// excerpt's line by reading the note.
fn omni_results(
    vault: &Path,
    hits: Vec<omnisearch::OmniHit>,
    scope: &Scope,
    limit: usize,
) -> Vec<SearchHit> {
    hits.into_iter()
        .filter(|h| scope.contains(&h.path))
        .take(limit)
        .map(|h| {
            let line = h
                .offset_utf16
                .and_then(|off| line_at_utf16(vault, &h.path, off));
            SearchHit {
                basename: h.basename,
                score: round_to(h.score, 2),
                excerpt: h.excerpt,
                engine: ENGINE_OMNISEARCH.into(),
                line,
                path: h.path,
            }
        })
        .collect()
}

/// The 1-based line of a UTF-16 offset in a note; `None` when the note can't be read or is
/// shorter than the offset.
fn line_at_utf16(vault: &Path, rel: &str, offset: usize) -> Option<u64> {
    let bytes = std::fs::read(vault.join(rel)).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let pos = excerpt::utf16_to_byte_offset(&text, offset)?;
    Some(excerpt::line_of(&text, pos))
}
