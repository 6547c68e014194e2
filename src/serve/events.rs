//! What the file-system events say about the index: noise (our own writes, dot-folders),
//! the vault-relative paths of files that may have changed, or "only a walk can tell" — kept
//! from one update to the next.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Receiver;
use std::time::Instant;

use crate::local::now_ns;

/// A batch naming more paths than this walks instead (a checkout, a sync): past a few
/// thousand, stat'ing the names one by one costs about what the walk does.
const MAX_PATHS: usize = 2000;

/// What the watcher's callback hands the loop.
pub(super) enum Signal {
    Event(notify::Result<notify::Event>),
}

/// What the events since the last update named.
#[derive(Debug, Default)]
pub(super) struct Changes {
    /// Something only a walk settles (an overflow, an error, `app.json`, a path we can't place).
    pub(super) walk: bool,
    /// Vault-relative paths of files that may have changed.
    pub(super) paths: BTreeSet<PathBuf>,
}

impl Changes {
    pub(super) fn walks(&self) -> bool {
        self.walk || self.paths.len() > MAX_PATHS
    }
}

/// What one path of an event means for the index.
#[derive(Debug, PartialEq, Eq)]
enum Seen {
    Noise,
    /// This vault-relative path may have changed.
    Path(PathBuf),
    /// Only a walk can tell.
    Walk,
}

/// Sorts events into "may change the index" and noise, and keeps what they named.
pub(super) struct Events {
    /// Our own heartbeat and index writes, should the cache directory lie inside the vault.
    pub(super) cache_dir: PathBuf,
    pub(super) vault: PathBuf,
    pub(super) changes: Changes,
    /// When the last event that matters came (ns since the epoch).
    pub(super) seen_ns: Option<i64>,
}

impl Events {
    /// Records an event; true when it may change what the index holds.
    pub(super) fn note(&mut self, sig: Signal, last_event: &mut Instant) -> bool {
        let Signal::Event(ev) = sig;
        let relevant = match ev {
            Ok(ev) if ev.need_rescan() || ev.paths.is_empty() => {
                self.changes.walk = true;
                true
            }
            Ok(ev) => {
                let mut any = false;
                for p in &ev.paths {
                    match self.judge(p) {
                        Seen::Noise => continue,
                        Seen::Path(rel) => {
                            self.changes.paths.insert(rel);
                        }
                        Seen::Walk => self.changes.walk = true,
                    }
                    any = true;
                }
                any
            }
            // A watcher error may mean lost events: walk.
            Err(_) => {
                self.changes.walk = true;
                true
            }
        };
        if relevant {
            *last_event = Instant::now();
            self.seen_ns = Some(now_ns());
        }
        relevant
    }

    /// Takes every queued event; true when one of them matters.
    pub(super) fn drain(
        &mut self,
        rx: &Receiver<Signal>,
        overflow: &AtomicBool,
        last: &mut Instant,
    ) -> bool {
        let mut any = overflow.swap(false, Ordering::SeqCst);
        self.changes.walk |= any;
        while let Ok(sig) = rx.try_recv() {
            any |= self.note(sig, last);
        }
        any
    }

    /// Dot-folders are not indexed, except Obsidian's `app.json`, which holds the
    /// excluded-files filters. (Access events never get here: the watcher drops them.)
    #[cfg(test)]
    fn relevant(&self, ev: &notify::Event) -> bool {
        ev.paths.is_empty() || ev.paths.iter().any(|p| self.judge(p) != Seen::Noise)
    }

    fn judge(&self, p: &Path) -> Seen {
        if p.starts_with(&self.cache_dir) {
            return Seen::Noise;
        }
        // A path not spelled below the vault as we know it (macOS's FSEvents reports real
        // paths, symlinks resolved) can't be judged by its folders: any dot-folder above the
        // vault would make it look hidden and every event would be lost. It costs one walk.
        let Ok(rel) = p.strip_prefix(&self.vault) else {
            return Seen::Walk;
        };
        if rel.as_os_str().is_empty()
            || rel.ends_with(".obsidian/app.json")
            || rel.ends_with(".obsidian")
        {
            return Seen::Walk;
        }
        let hidden = |c: &std::ffi::OsStr| c.to_string_lossy().starts_with('.');
        let mut parts: Vec<&std::ffi::OsStr> = rel.iter().collect();
        let name = parts.pop().unwrap_or_default();
        // The walk skips dot-folders, not dot-files that are notes (`.draft.md`).
        if parts.into_iter().any(hidden)
            || (hidden(name) && crate::core::FileKind::of_bytes(name.as_encoded_bytes()).is_none())
        {
            return Seen::Noise;
        }
        Seen::Path(rel.to_path_buf())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use notify::event::{CreateKind, EventKind};

    fn events(vault: &str, cache: &str) -> Events {
        Events {
            cache_dir: PathBuf::from(cache),
            vault: PathBuf::from(vault),
            seen_ns: None,
            changes: Changes::default(),
        }
    }

    fn created(p: &str) -> notify::Event {
        notify::Event::new(EventKind::Create(CreateKind::File)).add_path(PathBuf::from(p))
    }

    #[test]
    fn event_paths_judged_relative_to_the_vault() {
        // A vault below a dot-folder: only the path inside the vault decides.
        let ev = events("top/.vaults/work", "top/.cache");
        assert!(ev.relevant(&created("top/.vaults/work/sub/note.md")));
        assert!(ev.relevant(&created("top/.vaults/work/.obsidian/app.json")));
        assert!(!ev.relevant(&created("top/.vaults/work/.git/index")));
        assert!(!ev.relevant(&created("top/.cache/vault-search/x/serve.json")));
        // Spelled differently (a resolved symlink): unknown, so it counts.
        assert!(ev.relevant(&created("real/top/.vaults/work/note.md")));
    }

    #[test]
    fn event_paths_are_kept_for_the_update() {
        let mut ev = events("v", "c");
        let mut last = Instant::now();
        let mut note = |ev: &mut Events, p: &str| ev.note(Signal::Event(Ok(created(p))), &mut last);
        assert!(note(&mut ev, "v/a/note.md"));
        // A dot-file the walk lists is a note; an editor's swap file is not.
        assert!(note(&mut ev, "v/a/.draft.md"));
        assert!(!note(&mut ev, "v/a/.note.md.swp"));
        assert!(!ev.changes.walks());
        let kept: Vec<_> = ev.changes.paths.iter().cloned().collect();
        assert_eq!(
            kept,
            [PathBuf::from("a/.draft.md"), PathBuf::from("a/note.md")]
        );
        assert!(note(&mut ev, "v/.obsidian/app.json"));
        assert!(ev.changes.walks());
    }
}
