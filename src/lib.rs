//! vault-search: ranked full-text search over an Obsidian vault, for people and AI agents.
//!
//! Two engines answer the same query: the Obsidian Omnisearch plugin's local HTTP API when
//! Obsidian runs, and a persistent Tantivy index in the user's cache dir otherwise. The
//! layers (see ARCHITECTURE.md): the search vocabulary ([`SearchOptions`], [`SearchResponse`],
//! …) at the bottom, the two engines on it, one dispatcher choosing between them, and the
//! front-ends on top. Other Rust tools (a memory CLI, an agent) embed the search with
//! [`search()`], [`index()`] and [`status()`]:
//!
//! ```
//! use vault_search::{IndexOptions, SearchOptions, Source};
//!
//! let dir = tempfile::tempdir()?;
//! let vault = dir.path().join("vault");
//! std::fs::create_dir(&vault)?;
//! std::fs::write(vault.join("kotlin.md"), "# Kotlin\nThe daemon kept a stale lock.\n")?;
//! let cache = dir.path().join("cache");
//!
//! // Optional: searches build and refresh the index themselves.
//! let report = vault_search::index(&IndexOptions::new(&vault, &cache))?;
//! assert_eq!(report.notes, 1);
//!
//! let mut opts = SearchOptions::new(&vault, "stale daemon");
//! opts.source = Source::Local; // don't ask Obsidian
//! opts.cache_dir = Some(cache);
//! let answer = vault_search::search(&opts)?;
//! assert_eq!(answer.results[0].path, "kotlin.md");
//! assert_eq!(answer.results[0].line, Some(2));
//! # Ok::<(), anyhow::Error>(())
//! ```
//!
//! The front-ends are Cargo features, all on by default: `cli` (the binary: clap),
//! `mcp` (rmcp, schemars, tokio) and `serve` (notify, signal-hook). With
//! `default-features = false` this crate is the engines and the dispatcher alone. An embedder
//! that indexes PDFs points [`PdfLimits::extractor`] at a program that calls
//! [`extract_pdf_main()`] when its first argument is `__extract-pdf`; that needs no feature.

mod core;
mod dispatch;
mod fileid;
mod fsread;
#[cfg(any(feature = "mcp", feature = "serve"))]
mod heap;
mod local;
#[cfg(feature = "mcp")]
mod mcp;
mod omnisearch;
mod paths;
mod pdf_child;
#[cfg(any(feature = "mcp", feature = "cli"))]
mod read;
#[cfg(feature = "serve")]
mod serve;
mod status;
mod text;
mod vaults;

#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod cli;

#[cfg(test)]
mod fuzz;

use std::path::Path;

use anyhow::Result;

pub use crate::core::{fit_to_budget, MAX_BUDGET, MIN_BUDGET};
pub use crate::core::{
    normalize_folder, parse_time, passage_bytes_within, property_value, tag_key, Comparison,
    EngineError, FileKind, Filters, IncomingLink, IndexOptions, IndexProgress, IndexReport, Limits,
    LinkSource, LinksOptions, LinksQuery, LinksResponse, OutgoingLink, Passage, PdfLimits,
    PropertyFilter, RelatedHit, RelatedOptions, RelatedResponse, Scope, SearchHit, SearchOptions,
    SearchResponse, SkippedFile, Sort, Source, TargetKinds, UnresolvedTarget, Vault, VaultAnswer,
    DEFAULT_MAX_NOTE_BYTES, DEFAULT_MAX_PDF_BYTES, DEFAULT_PASSAGE_BYTES, DEFAULT_PORT,
    DEFAULT_RELATED_LIMIT, DEFAULT_SEARCH_PDF_BUDGET, MAX_RELATED_LIMIT,
};
pub use crate::pdf_child::extract_pdf_main;
pub use crate::status::Status;
pub use crate::text::tokens::estimate as estimate_tokens;

/// Runs one search with the engine `opts.source` asks for (what `vault-search QUERY` does).
/// Problems that did not stop it come back in [`SearchResponse::warnings`].
pub fn search(opts: &SearchOptions) -> Result<SearchResponse> {
    dispatch::search(opts)
}

/// Runs one search in every one of `vaults` (`opts.vault` is ignored) and merges the answers
/// into one ranked list: each hit names its vault (`vault`), each vault keeps its own order,
/// and `vaults` says what each answered (docs/guide.md, "Several vaults", has the merge rule).
/// A vault that can't be searched is a warning; an error only when none can be. Name them with
/// [`Vault::name_all`].
pub fn search_vaults(vaults: &[Vault], opts: &SearchOptions) -> Result<SearchResponse> {
    vaults::search(vaults, opts)
}

/// A vault's local index held open between searches, for a process that answers many (what
/// `serve` keeps): [`OpenIndex::search`] is [`search()`], except that a local search without
/// a refresh (`source: Local`, `refresh: false`, this vault and cache directory) answers from
/// a reader opened once per commit instead of opening the index (and checking its files) each
/// time. A new commit is picked up by the next search, or at once with
/// [`OpenIndex::reload`].
#[derive(Debug)]
pub struct OpenIndex {
    kept: local::Kept,
}

impl OpenIndex {
    /// The index of `vault` below `cache_dir`; nothing is opened before the first search.
    pub fn new(vault: &Path, cache_dir: &Path) -> OpenIndex {
        OpenIndex {
            kept: local::Kept::new(vault, cache_dir),
        }
    }

    /// Runs one search as [`search()`] does.
    pub fn search(&self, opts: &SearchOptions) -> Result<SearchResponse> {
        dispatch::search_kept(opts, &self.kept)
    }

    /// Picks up the last commit now (after an update), so the next search does not wait for it.
    pub fn reload(&self) {
        self.kept.refresh();
    }

    /// Which commit the next search reads: a number that changes with every commit picked up
    /// (`None`: no usable index yet). Answers kept under one stay right until it changes.
    #[cfg_attr(not(feature = "serve"), allow(dead_code))]
    pub(crate) fn generation(&self) -> Option<u64> {
        self.kept.generation()
    }
}

/// Builds or updates the local index of a vault (what `vault-search index` does). When another
/// process is indexing, returns at once with `busy: true`.
pub fn index(opts: &IndexOptions) -> Result<IndexReport> {
    local::index(opts, &crate::core::NoProgress)
}

/// Updates the local index for the files at `paths` (relative to the vault) alone, without
/// walking the vault: for a caller that watches the vault itself (what `serve` does with its
/// file-system events). Each path is stat'ed and compared as the walk of [`index()`] would,
/// under the same rules; a path naming a folder, or anything the paths can't settle, makes it
/// run [`index()`] instead. `skipped_files` names only what these paths skipped.
pub fn index_paths(opts: &IndexOptions, paths: &[std::path::PathBuf]) -> Result<IndexReport> {
    local::index_paths(opts, paths)
}

/// [`index()`], reporting each written note to `progress` (a front-end's progress bar).
pub fn index_with_progress(
    opts: &IndexOptions,
    progress: &dyn IndexProgress,
) -> Result<IndexReport> {
    local::index(opts, progress)
}

/// A note's links and backlinks, the vault's broken links, or its orphans (what
/// `vault-search links` does), from the local index brought up to date first.
pub fn links(opts: &LinksOptions) -> Result<LinksResponse> {
    local::vault_links(opts)
}

/// The notes to read after one note (what `vault-search related` does): its link neighbours
/// and the notes sharing its distinctive words, merged into one ranked list, each hit saying
/// why; from the local index brought up to date first.
pub fn related(opts: &RelatedOptions) -> Result<RelatedResponse> {
    local::vault_related(opts)
}

/// What the index of `vault` holds, how stale it is, and whether Omnisearch answers on `port`
/// (what `vault-search status` shows).
pub fn status(vault: &Path, cache_dir: Option<&Path>, port: u16) -> Result<Status> {
    status::status(vault, cache_dir, port)
}

/// Not API, a test hook: bytes of note text this thread tokenized to locate hits since the
/// last call (the total, and the most for one hit). Lets tests assert that the work per hit
/// does not grow with the note.
#[doc(hidden)]
pub fn __passage_work() -> (u64, u64) {
    local::passage_work()
}

/// Not API, a test hook: the most bytes the scanners of a line (links, tags, comments) looked
/// at per byte of that line, on any thread since the last call; resets it. Lets tests assert
/// that no line, however it is built, costs a scan more than a few passes.
#[doc(hidden)]
pub fn __scan_work() -> u64 {
    text::scan::worst_ratio()
}

/// Not API, a test hook: holds the writer lock of `vault`'s index below `cache_dir` until the
/// returned value is dropped, as another `vault-search index` would.
#[doc(hidden)]
pub fn __hold_writer_lock(cache_dir: &Path, vault: &Path) -> Result<Box<dyn std::any::Any>> {
    let lock = local::writer_lock(cache_dir, vault)?
        .ok_or_else(|| anyhow::anyhow!("the writer lock is taken"))?;
    Ok(Box::new(lock))
}

/// Not API, a test hook: would a search of `vault` trust a `serve` watcher and skip its walk?
#[doc(hidden)]
pub fn __watcher_is_live(cache_dir: &Path, vault: &Path) -> bool {
    local::liveness::watcher_is_live(cache_dir, vault)
}
