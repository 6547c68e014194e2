//! The freshness check, written once: walk the vault while the committed index is opened
//! (and, for a search, searched), compare the two, and bring the index up to date under the
//! writer lock.
//!
//! Per note the index keeps `(path, size, mtime, blake3)` next to the document itself, so the
//! bookkeeping commits atomically with the documents:
//! - same size and mtime → the file is not even read;
//! - otherwise it is read and hashed: same hash → nothing to re-index; new hash → upsert
//!   (`delete_term` on the path + `add_document`); gone from disk → delete;
//! - a note modified within [`super::plan::RACY_WINDOW_NS`] of the previous run's start is
//!   hashed again even when size and mtime agree (its mtime may not have ticked between two
//!   writes).
//!
//! A commit happens only when something changed. A killed run leaves the last commit intact,
//! and because the next run diffs the disk against what the index holds, it converges to
//! exactly what a fresh `--rebuild` gives.
//!
//! [`check`] takes no lock, so a search never waits for a writer; [`apply`] runs under the
//! lock and checks again only when another process committed in between. `index`, a search
//! and a watcher all go through these two.
//!
//! The size caps are the index's: [`check`] resolves the caps it was given against the ones
//! the last commit recorded ([`crate::core::Limits::caps`]), plans under them, and the commit
//! records them, so an update that was given none keeps the user's last choice.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use tantivy::{Index, Searcher};

use super::manifest::Manifest;
use super::plan::{plan_fresh, plan_with, Plan};
use super::store::{self, Payload, Store, WriterLock};
use super::walk::{walk_to, Batch, Stat};
use super::write::{write, Target};
use crate::core::{Caps, IndexProgress, IndexReport, Limits, SkippedFile};
use crate::local::schema;

/// The commit a check compared the vault against.
#[derive(Debug)]
struct Base {
    index: Index,
    /// The live directory as `CURRENT` named it before `index` was opened.
    dir: PathBuf,
    payload: Payload,
    /// The commit as the check read it (the plan's document addresses point into it).
    searcher: Searcher,
}

/// What a freshness check found.
#[derive(Debug)]
pub(crate) struct Checked<T> {
    /// What the caller's `during` returned (`None` when there was no usable index).
    pub(crate) found: Option<T>,
    /// `None`: no usable index, or a rebuild was asked for; a fresh one is to be built.
    base: Option<Base>,
    /// The live index directory when the check began (an incompatible one has no `base`).
    seen_dir: Option<PathBuf>,
    rebuild: bool,
    plan: Plan,
    /// When the walk started: the racy window of the next run counts from here.
    run_started_ns: i64,
    /// Name every placeholder in the report, unchanged ones too (`index`; a search has no
    /// report to show them in).
    name_all_skipped: bool,
}

impl<T> Checked<T> {
    /// The index already matches the vault: nothing needs the writer.
    pub(crate) fn is_current(&self) -> bool {
        self.base.is_some() && self.plan.is_noop() && !self.plan.wants_bump()
    }

    /// The index matches the vault, but an empty commit would record something new (this
    /// run's start, or the caps it was given).
    pub(crate) fn only_wants_bump(&self) -> bool {
        self.base.is_some() && self.plan.is_noop() && self.plan.wants_bump()
    }
}

/// Walks `vault` on other threads while this one opens the committed index of `store` and
/// runs `during` on it, then compares the notes on disk with the index's manifest as the walk
/// streams them. Reads only notes whose size or mtime changed; writes nothing. An index of
/// another format is reported in `warnings` and planned as a fresh build.
pub(crate) fn check<T>(
    store: &Store,
    vault: &Path,
    limits: Limits,
    rebuild: bool,
    warnings: &mut Vec<String>,
    during: impl FnOnce(&Searcher) -> Result<T>,
) -> Result<Checked<T>> {
    let run_started_ns = store::now_ns();
    let seen_dir = store.current_dir();
    let pdf = limits.pdf.extractor.is_some();
    // With no index to compare with, every note is read: its stat comes from the open file.
    let stat = if rebuild || seen_dir.is_none() {
        Stat::Names
    } else {
        Stat::Files
    };
    let ((found, base, mut plan), walk_skipped) = with_walk(vault, pdf, stat, |disk| {
        let existing = if rebuild {
            None
        } else {
            match store.open_current_reader() {
                Ok(found) => found,
                Err(store::IndexIncompatible(why)) => {
                    warnings.push(format!("rebuilding the index ({why})"));
                    None
                }
            }
        };
        let Some((index, payload, reader)) = existing else {
            // A rebuild, or one after a format change, keeps the caps the old index recorded.
            let caps = limits.caps(store.recorded_caps());
            return Ok((None, None, plan_fresh(disk, caps)));
        };
        let searcher = reader.searcher();
        let found = during(&searcher)?;
        // The reader that validated the index also gives the manifest.
        let known = Manifest::read(&searcher)?;
        let caps = limits.caps(payload.caps);
        let plan = plan_with(&searcher, known, Some(&payload), vault, disk, caps)?;
        // `CURRENT` as read before the index was opened, never after: a rebuild published
        // meanwhile would pair this index with the new directory, `still_current` would pass
        // while the old directory's files stay (Windows keeps them while mapped), and the
        // commit would go to the old directory, which the clean-up then removes. Read before,
        // a mismatch only costs a second check.
        let dir = seen_dir.clone().unwrap_or_else(|| store.root.clone());
        Ok((
            Some(found),
            Some(Base {
                index,
                dir,
                payload,
                searcher,
            }),
            plan,
        ))
    })?;
    plan.add_skipped(walk_skipped);
    Ok(Checked {
        found,
        base,
        seen_dir,
        rebuild,
        plan,
        run_started_ns,
        name_all_skipped: false,
    })
}

/// Writes what `checked` found, holding the writer lock, and returns the index as committed.
/// When the committed index is no longer the one that was checked (another process committed
/// meanwhile), the check runs again first, under the lock.
pub(crate) fn apply<T>(
    store: &Store,
    _lock: &WriterLock,
    vault: &Path,
    limits: Limits,
    checked: Checked<T>,
    progress: &dyn IndexProgress,
    warnings: &mut Vec<String>,
) -> Result<(Index, IndexReport)> {
    let Checked {
        base,
        seen_dir,
        rebuild,
        plan,
        run_started_ns,
        name_all_skipped,
        ..
    } = checked;
    // A rebuild replaces whatever is there; otherwise the plan is only valid against the
    // commit it was made from. Under the lock nobody else commits, so one check again is
    // always enough.
    let (base, mut plan, run_started_ns) =
        if rebuild || still_current(store, base.as_ref(), seen_dir.as_deref()) {
            (base, plan, run_started_ns)
        } else {
            let again = check(store, vault, limits, false, warnings, |_| Ok(()))?;
            (again.base, again.plan, again.run_started_ns)
        };
    if let (true, Some(b)) = (name_all_skipped, &base) {
        plan.name_failed(&b.searcher)?;
    }
    let (index, dir, fresh) = match base {
        Some(b) => (b.index, b.dir, false),
        None => {
            let (index, dir) = store.create_fresh()?;
            (index, dir, true)
        }
    };
    let text_cache = store.text_cache_dir();
    let target = Target {
        index: &index,
        fresh,
        dir: &dir,
        vault,
        run_started_ns,
        limits,
        text_cache: Some(&text_cache),
    };
    let written = write(target, plan, progress).and_then(|mut report| {
        if fresh {
            store.publish(&dir)?;
            report.rebuilt = true;
        }
        Ok(report)
    });
    match written {
        Ok(report) => {
            super::intact::trust_committed(&index, &dir);
            if !fresh {
                store.remove_stale_dirs(Some(&dir));
            }
            Ok((index, report))
        }
        Err(e) => {
            if fresh {
                // A build that failed (a full disk, most often) must not keep the space it
                // took: the next build could never fit beside it.
                drop(index);
                store.discard(&dir);
            }
            Err(e)
        }
    }
}

/// `check` + `apply` under a lock already held: what `vault-search index` does.
pub(crate) fn update(
    store: &Store,
    lock: &WriterLock,
    vault: &Path,
    limits: Limits,
    rebuild: bool,
    progress: &dyn IndexProgress,
) -> Result<(Index, IndexReport)> {
    let mut warnings = Vec::new();
    let mut checked = check(store, vault, limits, rebuild, &mut warnings, |_| Ok(()))?;
    checked.name_all_skipped = true;
    let (index, mut report) = apply(store, lock, vault, limits, checked, progress, &mut warnings)?;
    report.warnings = warnings;
    Ok((index, report))
}

/// Is the index that `base` describes still the committed one (and, without a base, is the
/// live directory still the one the check saw)?
fn still_current(store: &Store, base: Option<&Base>, seen_dir: Option<&Path>) -> bool {
    let Some(base) = base else {
        return store.current_dir().as_deref() == seen_dir;
    };
    if store.current_dir().as_deref() != Some(base.dir.as_path()) {
        return false;
    }
    let committed: Option<Payload> = base
        .index
        .load_metas()
        .ok()
        .and_then(|m| m.payload)
        .and_then(|p| serde_json::from_str(&p).ok());
    committed.as_ref() == Some(&base.payload)
}

/// Builds a throwaway index of `vault` in memory (when no cache directory is usable).
pub(crate) fn build_in_memory(vault: &Path, limits: Limits) -> Result<Index> {
    let index = Index::create_in_ram(schema::fields().schema.clone());
    store::register_analyzer(&index);
    let run_started_ns = store::now_ns();
    let pdf = limits.pdf.extractor.is_some();
    let caps = limits.caps(Caps::default());
    let (mut plan, walk_skipped) =
        with_walk(vault, pdf, Stat::Names, |disk| Ok(plan_fresh(disk, caps)))?;
    plan.add_skipped(walk_skipped);
    let target = Target {
        index: &index,
        fresh: true,
        dir: Path::new(""),
        vault,
        run_started_ns,
        limits,
        text_cache: None,
    };
    write(target, plan, &crate::core::NoProgress).context("indexing the vault in memory")?;
    Ok(index)
}

/// Runs `f` on this thread while the vault is walked on others; `f` gets the notes in
/// batches as the walk stats them (so it can open an index, search it or read its manifest
/// before the walk ends, and compare the first notes while the rest are still being
/// stat'ed). Returns what `f` returns and the entries the walk could not read.
fn with_walk<T>(
    vault: &Path,
    pdf: bool,
    stat: Stat,
    f: impl FnOnce(&mut dyn Iterator<Item = Batch>) -> Result<T>,
) -> Result<(T, Vec<SkippedFile>)> {
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::channel();
        let walker = s.spawn(move || walk_to(vault, pdf, stat, &tx));
        let out = f(&mut rx.into_iter());
        let skipped = walker
            .join()
            .map_err(|_| anyhow::anyhow!("the vault walk failed"))?;
        Ok((out?, skipped))
    })
}
