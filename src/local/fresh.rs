//! One search against the index as fresh as this call can make it: the freshness decision.
//!
//! The walk starts first, before the index is even opened: it needs nothing from it and it is
//! the long part. The last commit is searched meanwhile; what the walk shows then decides
//! ([`Next`]): those hits are the answer (current, trusted, or stale while another process
//! writes), or the index is updated under the writer lock and searched again, or — with no
//! usable cache directory — the vault is indexed in memory for this one search.

use std::time::Duration;

use anyhow::{Context, Result};
use tantivy::{Index, ReloadPolicy, Searcher};

use super::index::refresh::{self, Checked};
use super::index::store::{Store, WriterLock};
use super::{liveness, search};
use crate::core::{SearchHit, SearchOptions};

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

/// What the walk and the writer lock leave this search to do.
enum Next {
    /// The answer is known: the last commit is current, trusted, or all there is.
    Answer(LocalAnswer),
    /// Nothing on disk can answer: index the vault in memory, for this reason.
    InMemory(String),
    /// The index is behind and the writer lock is ours: update it, then search.
    Update {
        lock: WriterLock,
        checked: Box<Checked<Vec<SearchHit>>>,
    },
}

/// Searches `opts.vault`'s index, refreshed first unless `opts.refresh` is off or a live
/// `serve` watcher keeps it current; what could not be done goes into `warnings`.
pub(super) fn search_once(opts: &SearchOptions, warnings: &mut Vec<String>) -> Result<LocalAnswer> {
    let Some(cache) = opts.cache_dir.as_deref() else {
        return in_memory(opts, "no cache directory on this system".into(), warnings);
    };
    let store = Store::new(cache, &opts.vault);
    if let Err(e) = store.check_private() {
        return in_memory(opts, format!("{e:#}"), warnings);
    }
    match decide(opts, cache, &store, warnings)? {
        Next::Answer(a) => Ok(a),
        Next::InMemory(why) => in_memory(opts, why, warnings),
        Next::Update { lock, checked } => {
            update_then_search(opts, &store, lock, *checked, warnings)
        }
    }
}

fn answer(hits: Vec<SearchHit>, stale: bool) -> LocalAnswer {
    LocalAnswer {
        hits,
        stale,
        watched: false,
        warnings: Vec::new(),
    }
}

/// The walk against the last commit, and the writer lock when the index is behind.
fn decide(
    opts: &SearchOptions,
    cache: &std::path::Path,
    store: &Store,
    warnings: &mut Vec<String>,
) -> Result<Next> {
    // Without a refresh, or while a live `serve` watcher keeps the index current, the last
    // commit is the answer. No usable index yet: build one as a refreshing search would.
    let watched = opts.refresh && liveness::watcher_is_live(cache, &opts.vault);
    if !opts.refresh || watched {
        if let Ok(Some((_, _, reader))) = store.open_current_reader() {
            let hits = search::run(&reader.searcher(), opts, warnings)?;
            let mut a = answer(hits, false);
            a.watched = watched;
            return Ok(Next::Answer(a));
        }
    }
    let mut search_warnings = Vec::new();
    let checked = refresh::check(
        store,
        &opts.vault,
        opts.limits,
        false,
        warnings,
        |searcher| search::run(searcher, opts, &mut search_warnings),
    )?;
    warnings.append(&mut search_warnings);
    if checked.is_current() {
        return Ok(Next::Answer(answer(
            checked.found.unwrap_or_default(),
            false,
        )));
    }
    if let Err(e) = store.ensure_root() {
        return Ok(Next::InMemory(format!("{e:#}")));
    }
    Ok(match store.try_lock() {
        Ok(Some(lock)) => Next::Update {
            lock,
            checked: Box::new(checked),
        },
        // Current but for racily clean notes: another process records the run.
        Ok(None) if checked.only_wants_bump() => {
            Next::Answer(answer(checked.found.unwrap_or_default(), false))
        }
        Ok(None) => match checked.found {
            Some(hits) => Next::Answer(answer(hits, true)),
            None => Next::InMemory("another process is building the index".into()),
        },
        Err(e) => match checked.found {
            Some(hits) => {
                warnings.push(format!("{e:#}; searching the index without refreshing it"));
                Next::Answer(answer(hits, true))
            }
            None => Next::InMemory(format!("{e:#}")),
        },
    })
}

/// Applies what the walk found under the writer lock, then searches the new commit; when
/// the update fails, the last commit's hits answer (stale), else an in-memory index.
fn update_then_search(
    opts: &SearchOptions,
    store: &Store,
    lock: WriterLock,
    checked: Checked<Vec<SearchHit>>,
    warnings: &mut Vec<String>,
) -> Result<LocalAnswer> {
    let bump_only = checked.only_wants_bump();
    let last_hits = checked.found.clone();
    let applied = refresh::apply(
        store,
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
