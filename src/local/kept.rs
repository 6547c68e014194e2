//! The committed index kept open between searches, for a process that answers many of them
//! (`serve`): opening it per search cost each one the integrity check's stats, the segment
//! files' opening and a cold doc-store block cache.
//!
//! The reader is tantivy's, reloaded by hand: when a search (or the process's own update, via
//! [`Kept::refresh`]) finds that a commit replaced `meta.json`, the new commit's files are
//! checked once ([`store::check_commit`], the same integrity check as every open) and the
//! reader reloads; when `CURRENT` names another directory (a rebuild), the index is opened
//! anew. Telling costs two stats per search. A search that fails on the kept reader drops it,
//! and the caller's usual path (which rebuilds a damaged index) answers instead.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use tantivy::{Index, IndexReader, Searcher};

use super::fresh::LocalAnswer;
use super::index::store::{self, Store};
use super::{quiet, search};
use crate::core::SearchOptions;

/// One vault's committed index, opened at most once per commit.
pub(crate) struct Kept {
    vault: PathBuf,
    cache_dir: PathBuf,
    store: Store,
    open: Mutex<Option<Open>>,
    /// The last [`Open::generation`] handed out.
    generations: AtomicU64,
}

struct Open {
    dir: PathBuf,
    index: Index,
    reader: IndexReader,
    stamp: Stamp,
    /// Which commit the reader reads, as a number that changes with every reload or reopen:
    /// what a cache of answers is keyed on.
    generation: u64,
}

/// Which commit is on disk: `CURRENT` and the live directory's `meta.json`, each as
/// (length, mtime, inode). Both are replaced by a rename, so a new commit shows as a new inode
/// even within one mtime tick.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stamp {
    current: Option<(u64, std::time::SystemTime, u64)>,
    meta: Option<(u64, std::time::SystemTime, u64)>,
}

impl std::fmt::Debug for Kept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kept").field("store", &self.store).finish()
    }
}

impl Kept {
    pub(crate) fn new(vault: &Path, cache_dir: &Path) -> Kept {
        Kept {
            vault: vault.to_path_buf(),
            cache_dir: cache_dir.to_path_buf(),
            store: Store::new(cache_dir, vault),
            open: Mutex::new(None),
            generations: AtomicU64::new(0),
        }
    }

    fn stamp(&self, dir: &Path) -> Stamp {
        Stamp {
            current: crate::fileid::file_state(&self.store.root.join(store::CURRENT)),
            meta: crate::fileid::file_state(&dir.join("meta.json")),
        }
    }

    /// The searcher of the last commit: the kept one, reloaded or reopened first when a commit
    /// replaced it. `None`: no usable index (none yet, another format, damaged files).
    pub(crate) fn searcher(&self) -> Option<Searcher> {
        self.with_current(|o| o.reader.searcher())
    }

    /// Which commit the next search reads (checked as [`Kept::searcher`] checks it): a number
    /// that changes with every commit picked up. `None`: no usable index.
    #[cfg_attr(not(feature = "serve"), allow(dead_code))]
    pub(crate) fn generation(&self) -> Option<u64> {
        self.with_current(|o| o.generation)
    }

    /// `f` of the last commit's open index, reloaded or reopened first when a commit
    /// replaced it.
    fn with_current<T>(&self, f: impl Fn(&Open) -> T) -> Option<T> {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(o) = open.as_mut() {
            let stamp = self.stamp(&o.dir);
            if stamp == o.stamp {
                return Some(f(o));
            }
            let same_dir = self.store.current_dir().as_deref() == Some(o.dir.as_path());
            if same_dir && self.reload(o, stamp) {
                return Some(f(o));
            }
        }
        *open = self.reopen();
        open.as_ref().map(f)
    }

    fn next_generation(&self) -> u64 {
        self.generations.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// Checks the commit now in `o.dir` and reloads onto it; false when it fails its check
    /// or changed again meanwhile (then the index is opened anew).
    fn reload(&self, o: &mut Open, stamp: Stamp) -> bool {
        if store::check_commit(&o.index, &o.dir).is_err() || o.reader.reload().is_err() {
            return false;
        }
        // A commit between the check and the reload would be read unchecked.
        if self.stamp(&o.dir) != stamp {
            return false;
        }
        o.stamp = stamp;
        o.generation = self.next_generation();
        true
    }

    fn reopen(&self) -> Option<Open> {
        self.store.check_private().ok()?;
        let dir = self.store.current_dir()?;
        let stamp = self.stamp(&dir);
        let (index, _, reader) = self.store.open_current_reader().ok()??;
        // Opened from another directory or commit than stamped: the next search looks again.
        let stamp = if self.store.current_dir().as_deref() == Some(dir.as_path()) {
            stamp
        } else {
            Stamp {
                current: None,
                meta: None,
            }
        };
        Some(Open {
            dir,
            index,
            reader,
            stamp,
            generation: self.next_generation(),
        })
    }

    /// Picks up a new commit now rather than on the next search (after this process's own
    /// update, so no search pays for the reload).
    pub(crate) fn refresh(&self) {
        let _ = self.searcher();
    }

    /// Forgets the reader (it failed a search).
    fn forget(&self) {
        *self.open.lock().unwrap_or_else(PoisonError::into_inner) = None;
    }

    /// A local search without a refresh answered from the kept reader; `None` when it can't
    /// be (another vault or cache, a refresh asked for, no usable index, a failed search): the
    /// caller's usual path answers.
    pub(crate) fn search(&self, opts: &SearchOptions) -> Option<LocalAnswer> {
        let ours = opts.vault == self.vault && opts.cache_dir.as_deref() == Some(&self.cache_dir);
        if opts.refresh || !ours {
            return None;
        }
        let searcher = self.searcher()?;
        let mut warnings = Vec::new();
        match quiet::catch(|| search::run(&searcher, opts, &mut warnings)) {
            Ok(Ok(hits)) => Some(LocalAnswer {
                hits,
                stale: false,
                watched: false,
                warnings,
            }),
            _ => {
                self.forget();
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{IndexOptions, NoProgress, Source};

    fn paths(kept: &Kept, opts: &SearchOptions) -> Option<Vec<String>> {
        let mut p: Vec<_> = kept
            .search(opts)?
            .hits
            .into_iter()
            .map(|h| h.path)
            .collect();
        p.sort();
        Some(p)
    }

    #[test]
    fn each_commit_is_seen_by_the_next_search() {
        let dir = tempfile::tempdir().unwrap();
        let vault = dir.path().join("vault");
        std::fs::create_dir(&vault).unwrap();
        std::fs::write(vault.join("a.md"), "alpha\n").unwrap();
        let cache = dir.path().join("cache");
        let mut index = IndexOptions::new(&vault, &cache);
        let kept = Kept::new(&vault, &cache);
        let mut opts = SearchOptions::new(&vault, "alpha");
        opts.cache_dir = Some(cache.clone());
        opts.source = Source::Local;
        opts.refresh = false;
        assert_eq!(paths(&kept, &opts), None, "no index yet");
        assert_eq!(kept.generation(), None);
        crate::local::index(&index, &NoProgress).unwrap();
        assert_eq!(paths(&kept, &opts).unwrap(), ["a.md"]);
        let first = kept.generation().unwrap();
        assert_eq!(
            kept.generation(),
            Some(first),
            "no commit, the same generation"
        );
        // An incremental commit: the same directory, reloaded.
        std::fs::write(vault.join("b.md"), "alpha beta\n").unwrap();
        crate::local::index(&index, &NoProgress).unwrap();
        assert_ne!(kept.generation(), Some(first));
        assert_eq!(paths(&kept, &opts).unwrap(), ["a.md", "b.md"]);
        // A rebuild: another directory, opened anew.
        let before = kept.open.lock().unwrap().as_ref().unwrap().dir.clone();
        std::fs::remove_file(vault.join("a.md")).unwrap();
        index.rebuild = true;
        crate::local::index(&index, &NoProgress).unwrap();
        assert_eq!(paths(&kept, &opts).unwrap(), ["b.md"]);
        assert_ne!(kept.open.lock().unwrap().as_ref().unwrap().dir, before);
        // Not this reader's to answer.
        opts.refresh = true;
        assert_eq!(paths(&kept, &opts), None);
    }
}
