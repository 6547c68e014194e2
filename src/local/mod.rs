//! The local engine: a persistent Tantivy index of the vault in the user's cache directory,
//! kept fresh by a stat walk, ranked with the bonus signals of the README.
//!
//! A search first runs the freshness check ([`refresh`]; only changed notes are read) so a
//! note written a second ago is found; `refresh: false` skips it. When another process holds
//! the writer, the last commit is searched without waiting and the answer is marked stale.
//! When the cache directory is missing, read-only or full, the vault is indexed in memory for
//! this call and a warning says why: the search still answers.
//!
//! Layout: [`index`] is the writing side (walk, manifest, plan, write, refresh, the store and
//! its lock, PDF extraction); [`search`] is the reading side (query, filters, ranking, showing
//! a hit). Both stand on [`schema`] and [`analyzer`] (what is indexed), [`checkpoint`] (the
//! stored table that locates a passage) and [`weights`] (the ranking weights). The search side
//! never writes: the freshness decision in this facade calls the index side, the index side
//! never imports the search side. [`liveness`] is the heartbeat of a `serve` watcher.

pub(crate) mod analyzer;
mod checkpoint;
mod index;
pub(crate) mod liveness;
pub(crate) mod schema;
mod search;
mod stored;
mod weights;

use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use tantivy::{Index, ReloadPolicy, Searcher};

use crate::core::{round_to, IndexOptions, IndexProgress, IndexReport, SearchHit, SearchOptions};
use index::refresh;

pub(crate) use checkpoint::work as passage_work;
#[cfg(feature = "cli")]
pub(crate) use index::extract;
#[cfg(feature = "serve")]
pub(crate) use index::store::now_ns;
pub(crate) use index::store::{Store, WriterLock};
pub(crate) use index::{changed_by_stat, has_pdfs, pdf, skipped_files};
#[cfg(test)]
pub(crate) use search::query;

/// What the local engine found.
#[derive(Debug, Clone, Default)]
pub(crate) struct LocalAnswer {
    pub(crate) hits: Vec<SearchHit>,
    /// The index could not be refreshed (another process is writing it).
    pub(crate) stale: bool,
    /// The freshness walk was skipped: a live `serve` watcher keeps the index current.
    pub(crate) watched: bool,
    /// What the caller should be told (rebuilt, stale, in memory, bad exclusion patterns).
    pub(crate) warnings: Vec<String>,
}

/// A usable committed index of `vault` exists below `cache_dir`.
#[cfg(feature = "mcp")]
pub(crate) fn has_index(cache_dir: &std::path::Path, vault: &std::path::Path) -> bool {
    matches!(
        Store::new(cache_dir, vault).open_current_reader(),
        Ok(Some(_))
    )
}

/// Takes the writer lock of `vault`'s index as an indexer would (`None`: another holds it).
pub(crate) fn writer_lock(
    cache_dir: &std::path::Path,
    vault: &std::path::Path,
) -> Result<Option<WriterLock>> {
    let store = Store::new(cache_dir, vault);
    store.ensure_root()?;
    store.try_lock()
}

/// Builds or updates the index of a vault (`vault-search index`). When another process is
/// indexing, returns at once with `busy: true`.
pub(crate) fn index(opts: &IndexOptions, progress: &dyn IndexProgress) -> Result<IndexReport> {
    let started = Instant::now();
    let store = Store::new(&opts.cache_dir, &opts.vault);
    store.ensure_root()?;
    let Some(lock) = store.try_lock()? else {
        return Ok(IndexReport {
            busy: true,
            index_dir: store.root.display().to_string(),
            ..IndexReport::default()
        });
    };
    let (_, mut report) = refresh::update(
        &store,
        &lock,
        &opts.vault,
        opts.limits(),
        opts.rebuild,
        progress,
    )?;
    report.elapsed_seconds = round_to(started.elapsed().as_secs_f64(), 3);
    Ok(report)
}

/// The folders, tags and frontmatter keys an index knows, each with its note count, sorted by
/// name.
#[cfg(feature = "mcp")]
#[derive(Debug, Clone, Default)]
pub(crate) struct Names {
    /// Every folder with notes below it, nested ones by their full path (`Dev/old`).
    pub(crate) folders: Vec<(String, u64)>,
    /// Tags as search compares them (lowercase, no `#`), with each parent of a nested tag.
    pub(crate) tags: Vec<(String, u64)>,
    /// Frontmatter keys (lowercase).
    pub(crate) keys: Vec<(String, u64)>,
    /// The newest modification time of a file in the index (ns since the epoch).
    pub(crate) newest_ns: Option<i64>,
}

/// The names of the committed index of `vault`; `None` without an index.
#[cfg(feature = "mcp")]
pub(crate) fn folders_and_tags(
    cache_dir: &std::path::Path,
    vault: &std::path::Path,
) -> Result<Option<Names>> {
    let Ok(Some((_, _, reader))) = Store::new(cache_dir, vault).open_current_reader() else {
        return Ok(None);
    };
    let searcher = reader.searcher();
    let fields = schema::fields();
    let folders = search::names::terms(&searcher, fields.folders)?;
    let tags = search::names::terms(&searcher, fields.tag_paths)?;
    let mut keys = search::names::terms(&searcher, fields.properties)?;
    // `key=value` terms are the values; a key alone is its own term.
    keys.retain(|(k, _)| !k.contains('='));
    let newest_ns = search::names::newest(&searcher, fields.mtime_ns)?;
    Ok(Some(Names {
        folders,
        tags,
        keys,
        newest_ns,
    }))
}

/// Whether Obsidian's "Excluded files" hide the vault-relative path `rel` from search.
#[cfg(feature = "mcp")]
pub(crate) fn excluded_by_obsidian(vault: &std::path::Path, rel: &str) -> bool {
    search::ignore::excludes(&search::ignore::filters(vault), rel)
}

/// Runs a local search.
///
/// With a refresh, the stat walk of the vault runs on other threads while this one searches
/// the last commit; when the walk shows the index is current (the usual case), those results
/// are the answer, so the freshness check costs about the walk, not walk + search.
pub(crate) fn search(opts: &SearchOptions) -> Result<LocalAnswer> {
    warm_up();
    let mut warnings = Vec::new();
    let first = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        search_once(opts, &mut warnings)
    }));
    let why = match first {
        Ok(Ok(mut answer)) => {
            warnings.append(&mut answer.warnings);
            answer.warnings = warnings;
            return Ok(answer);
        }
        Ok(Err(e)) => format!("{e:#}"),
        Err(_) => "the index reader failed".to_string(),
    };
    // The index opened but could not be searched (damaged files that only show when read):
    // rebuild it once and search again.
    let Some(cache) = opts.cache_dir.as_deref() else {
        anyhow::bail!(why);
    };
    let store = Store::new(cache, &opts.vault);
    let Ok(Some(lock)) = store.try_lock() else {
        anyhow::bail!(why);
    };
    let mut warnings = vec![format!(
        "rebuilding the index ({})",
        why.lines().next().unwrap_or("")
    )];
    refresh::update(
        &store,
        &lock,
        &opts.vault,
        opts.limits,
        true,
        &crate::core::NoProgress,
    )?;
    drop(lock);
    let mut answer = search_once(opts, &mut warnings)?;
    warnings.append(&mut answer.warnings);
    answer.warnings = warnings;
    Ok(answer)
}

/// Builds, on a spare core, what tantivy builds once per process the first time a query reads
/// a field that some segment has no terms for: an empty term dictionary, whose construction
/// (a 20,000-cell FST builder) costs ~0.8 ms — a fifth of a whole search. That happens in
/// most vaults: tags or aliases used nowhere, or the small segments that incremental updates
/// commit (one note without headings is enough). Started before the index is opened, it is
/// usually ready when the query needs it; when no field is missing it costs that CPU on
/// another core and no wall time.
fn warm_up() {
    std::thread::spawn(|| drop(tantivy::termdict::TermDictionary::empty()));
}

fn answer(hits: Vec<SearchHit>, stale: bool) -> LocalAnswer {
    LocalAnswer {
        hits,
        stale,
        watched: false,
        warnings: Vec::new(),
    }
}

fn search_once(opts: &SearchOptions, warnings: &mut Vec<String>) -> Result<LocalAnswer> {
    let Some(cache) = opts.cache_dir.as_deref() else {
        return in_memory(opts, "no cache directory on this system".into(), warnings);
    };
    let store = Store::new(cache, &opts.vault);
    // Without a refresh, or while a live `serve` watcher keeps the index current, the last
    // commit is the answer. No usable index yet: build one as a refreshing search would.
    let watched = opts.refresh && liveness::watcher_is_live(cache, &opts.vault);
    if !opts.refresh || watched {
        if let Ok(Some((_, _, reader))) = store.open_current_reader() {
            let hits = search::run(&reader.searcher(), opts, warnings)?;
            let mut a = answer(hits, false);
            a.watched = watched;
            return Ok(a);
        }
    }
    // The walk starts first, before the index is even opened: it needs nothing from it and it
    // is the long part. The last commit is searched meanwhile; when the walk shows it is
    // current, those hits are the answer.
    let mut search_warnings = Vec::new();
    let checked = refresh::check(
        &store,
        &opts.vault,
        opts.limits,
        false,
        warnings,
        |searcher| search::run(searcher, opts, &mut search_warnings),
    )?;
    warnings.append(&mut search_warnings);
    if checked.is_current() {
        let hits = checked.found.unwrap_or_default();
        return Ok(answer(hits, false));
    }
    let bump_only = checked.only_wants_bump();
    if let Err(e) = store.ensure_root() {
        return in_memory(opts, format!("{e:#}"), warnings);
    }
    let lock = match store.try_lock() {
        Ok(Some(lock)) => lock,
        Ok(None) if bump_only => return Ok(answer(checked.found.unwrap_or_default(), false)),
        Ok(None) => {
            return match checked.found {
                Some(hits) => Ok(answer(hits, true)),
                None => in_memory(
                    opts,
                    "another process is building the index".into(),
                    warnings,
                ),
            }
        }
        Err(e) => {
            return match checked.found {
                Some(hits) => {
                    warnings.push(format!("{e:#}; searching the index without refreshing it"));
                    Ok(answer(hits, true))
                }
                None => in_memory(opts, format!("{e:#}"), warnings),
            }
        }
    };
    let last_hits = checked.found.clone();
    let applied = refresh::apply(
        &store,
        &lock,
        &opts.vault,
        opts.limits,
        checked,
        &crate::core::NoProgress,
        warnings,
    );
    drop(lock);
    match applied {
        // Current, but racily clean notes were re-read: this run is recorded so later
        // searches don't read them again (best effort; the answer is already right).
        _ if bump_only => Ok(answer(last_hits.unwrap_or_default(), false)),
        Ok((index, report)) => {
            if report.pending > 0 {
                warnings.push(format!(
                    "{} PDFs are not extracted yet (a search extracts {} at most): run `vault-search index` to include them",
                    report.pending,
                    opts.limits.pdf.per_run.unwrap_or(0)
                ));
            }
            let hits = search::run(&open_searcher(&index)?, opts, warnings)?;
            Ok(answer(hits, false))
        }
        Err(e) => {
            let why = format!("cannot update the index: {e:#}");
            match last_hits {
                Some(hits) => {
                    warnings.push(format!("{why}; searching the last committed index"));
                    Ok(answer(hits, true))
                }
                None => in_memory(opts, why, warnings),
            }
        }
    }
}

/// Indexes the vault in memory for this one search, saying why in `warnings`.
fn in_memory(opts: &SearchOptions, why: String, warnings: &mut Vec<String>) -> Result<LocalAnswer> {
    warnings.push(format!(
        "{why}; indexing the vault in memory for this search"
    ));
    // Caps not given are the ones a stored index recorded (one of another format, or another
    // process's), as the update this stands in for would use them.
    let mut limits = opts.limits;
    if let Some(cache) = opts.cache_dir.as_deref() {
        let caps = limits.caps(Store::new(cache, &opts.vault).recorded_caps());
        limits.max_note_bytes = Some(caps.max_note_bytes);
        limits.pdf.max_bytes = Some(caps.max_pdf_bytes);
    }
    let index = refresh::build_in_memory(&opts.vault, limits)?;
    let hits = search::run(&open_searcher(&index)?, opts, warnings)?;
    Ok(answer(hits, false))
}

/// Opens a searcher; retried briefly because a concurrent writer may remove the files of an
/// older commit between our reading `meta.json` and opening its segments.
fn open_searcher(index: &Index) -> Result<Searcher> {
    let mut last = None;
    for attempt in 0..5u64 {
        match index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
        {
            Ok(r) => {
                let r: tantivy::IndexReader = r;
                return Ok(r.searcher());
            }
            Err(e) => {
                last = Some(e);
                std::thread::sleep(Duration::from_millis(10 * (attempt + 1)));
            }
        }
    }
    Err(last.map_or_else(
        || anyhow::anyhow!("cannot open the index"),
        anyhow::Error::from,
    ))
    .context("cannot open the index for searching")
}
