//! Proof that a `vault-search serve` watcher keeps a vault's index current, so a search may
//! skip its freshness walk.
//!
//! Two files in the vault's store directory ([`crate::local::index::store::Store::root`]):
//! - `serve.lock`: held under an OS file lock by the one server watching the vault. The lock
//!   dies with the process (kill -9 included), so a crashed server is never taken for a live one.
//! - `serve.json`: a [`Heartbeat`] the server rewrites atomically (write + rename) at least every
//!   [`BEAT_EVERY`], and at once when an event arrives, saying whether every change it has seen
//!   is already committed (`caught_up`).
//!
//! A reader trusts the watcher only when all of these hold: the lock is held by someone, the
//! heartbeat names this vault, is younger than [`STALE_AFTER`] (a wedged loop stops beating) and
//! says `caught_up`. Anything else (no file, unreadable JSON, clock jump) means "not live", and
//! the search walks the vault as it would without a server: a wrong "not live" costs one walk,
//! a wrong "live" could hide a note, so every doubt falls on the walk's side.
//!
//! This module depends on nothing but the store layout, so the engine and the server both use
//! it without knowing each other.

use std::fs::{self, File};
use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::index::store::{now_ns, Store};
// The write side (the server's beacon) only.
#[cfg(any(test, feature = "serve"))]
use {
    super::index::{replace::replace_file, store::set_private_file},
    anyhow::{Context, Result},
    std::{fs::OpenOptions, io::Write, path::PathBuf},
};

/// The server beats at least this often.
#[cfg(feature = "serve")]
pub(crate) const BEAT_EVERY: Duration = Duration::from_millis(500);
/// A heartbeat older than this means a dead or wedged watcher.
pub(crate) const STALE_AFTER: Duration = Duration::from_secs(3);

const LOCK_FILE: &str = "serve.lock";
const STATE_FILE: &str = "serve.json";

/// What a running server publishes about itself.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct Heartbeat {
    pub(crate) pid: u32,
    /// The HTTP port it serves on.
    pub(crate) port: u16,
    /// The vault it watches (canonical path).
    pub(crate) vault: String,
    /// When this heartbeat was written (ns since the epoch).
    pub(crate) beat_ns: i64,
    /// When the last file-system event arrived (ns since the epoch).
    pub(crate) last_event_ns: Option<i64>,
    /// When the last index update committed or found nothing to do (ns since the epoch).
    pub(crate) last_update_ns: Option<i64>,
    /// Every change seen so far is in the committed index.
    pub(crate) caught_up: bool,
}

/// The write side: held by the server for as long as it watches the vault.
#[cfg(any(test, feature = "serve"))]
#[derive(Debug)]
pub(crate) struct Beacon {
    root: PathBuf,
    lock: File,
    #[cfg(unix)]
    inode: (u64, u64),
}

#[cfg(any(test, feature = "serve"))]
impl Beacon {
    /// Takes the server lock of the store at `root` (which must exist); `Ok(None)` when another
    /// server holds it.
    pub(crate) fn acquire(root: &Path) -> Result<Option<Beacon>> {
        let path = root.join(LOCK_FILE);
        // A reader checking liveness holds the lock for a moment: retry briefly before
        // concluding that another server runs.
        for attempt in 0..20 {
            let file = OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&path)
                .with_context(|| format!("cannot open {}", path.display()))?;
            set_private_file(&path);
            match file.try_lock() {
                Ok(()) => {
                    #[cfg(unix)]
                    let inode = {
                        use std::os::unix::fs::MetadataExt;
                        let m = file.metadata()?;
                        (m.dev(), m.ino())
                    };
                    return Ok(Some(Beacon {
                        root: root.to_path_buf(),
                        lock: file,
                        #[cfg(unix)]
                        inode,
                    }));
                }
                Err(fs::TryLockError::WouldBlock) if attempt < 19 => {
                    std::thread::sleep(Duration::from_millis(25));
                }
                Err(fs::TryLockError::WouldBlock) => return Ok(None),
                Err(fs::TryLockError::Error(e)) => {
                    return Err(e).with_context(|| format!("cannot lock {}", path.display()))
                }
            }
        }
        Ok(None)
    }

    /// Publishes a heartbeat (atomically: readers never see half a file).
    pub(crate) fn beat(&self, hb: &Heartbeat) -> Result<()> {
        let tmp = self.root.join(format!("{STATE_FILE}.tmp"));
        let body = serde_json::to_vec(hb)?;
        {
            let mut f =
                File::create(&tmp).with_context(|| format!("cannot write {}", tmp.display()))?;
            f.write_all(&body)?;
        }
        set_private_file(&tmp);
        replace_file(&tmp, &self.root.join(STATE_FILE))
            .with_context(|| format!("cannot publish {}", self.root.join(STATE_FILE).display()))
    }

    /// False once the lock file is no longer the one this beacon holds (the cache directory
    /// was deleted or replaced): readers can't see the lock any more, so it must be taken anew.
    pub(crate) fn intact(&self) -> bool {
        let path = self.root.join(LOCK_FILE);
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let _ = &self.lock;
            fs::metadata(&path).is_ok_and(|m| (m.dev(), m.ino()) == self.inode)
        }
        #[cfg(not(unix))]
        {
            // Windows can't delete a file another handle has open without sharing: existence
            // is the check there.
            let _ = &self.lock;
            path.exists()
        }
    }

    /// Removes the heartbeat; the lock goes with the beacon.
    #[cfg(feature = "serve")]
    pub(crate) fn retire(self) {
        let _ = fs::remove_file(self.root.join(STATE_FILE));
    }
}

/// What a reader sees of the server for a store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Observed {
    /// The last heartbeat, when one could be read.
    pub(crate) heartbeat: Option<Heartbeat>,
    /// Some process holds the server lock.
    pub(crate) locked: bool,
    /// The watcher can be trusted: see the module docs.
    pub(crate) live: bool,
}

/// Looks at the server files of the store at `root`; `None` when no server holds the lock.
pub(crate) fn observe(root: &Path, vault: &Path) -> Option<Observed> {
    if !lock_is_held(&root.join(LOCK_FILE)) {
        return None;
    }
    let heartbeat = fs::read(root.join(STATE_FILE))
        .ok()
        .and_then(|b| serde_json::from_slice::<Heartbeat>(&b).ok());
    let live = heartbeat.as_ref().is_some_and(|hb| trustworthy(hb, vault));
    Some(Observed {
        heartbeat,
        locked: true,
        live,
    })
}

/// True when a healthy, caught-up watcher keeps the index of `vault` below `cache_dir`
/// current, so a search may skip its freshness walk.
pub(crate) fn watcher_is_live(cache_dir: &Path, vault: &Path) -> bool {
    let root = Store::new(cache_dir, vault).root;
    observe(&root, vault).is_some_and(|o| o.live)
}

fn trustworthy(hb: &Heartbeat, vault: &Path) -> bool {
    let age_ns = now_ns().saturating_sub(hb.beat_ns);
    let stale_ns = i64::try_from(STALE_AFTER.as_nanos()).unwrap_or(i64::MAX);
    // A heartbeat from the future means the clock jumped: trust nothing.
    let fresh = (-1_000_000_000..stale_ns).contains(&age_ns);
    fresh && hb.caught_up && Path::new(&hb.vault) == vault
}

/// Someone holds the lock on `path`. Opening read-only never creates the file.
fn lock_is_held(path: &Path) -> bool {
    let Ok(file) = File::open(path) else {
        return false;
    };
    // Taking it ourselves means nobody held it; dropping the file releases it at once.
    matches!(file.try_lock(), Err(fs::TryLockError::WouldBlock))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn beat(vault: &Path, caught_up: bool, age: Duration) -> Heartbeat {
        Heartbeat {
            pid: std::process::id(),
            port: 1,
            vault: vault.display().to_string(),
            beat_ns: now_ns() - i64::try_from(age.as_nanos()).unwrap_or(0),
            last_event_ns: None,
            last_update_ns: None,
            caught_up,
        }
    }

    #[test]
    fn live_only_while_locked_fresh_and_caught_up() {
        let dir = tempfile::tempdir().unwrap();
        let vault = dir.path().join("v");
        let root = dir.path().join("store");
        fs::create_dir_all(&root).unwrap();
        assert!(observe(&root, &vault).is_none());

        let beacon = Beacon::acquire(&root).unwrap().unwrap();
        assert!(
            Beacon::acquire(&root).unwrap().is_none(),
            "one server per vault"
        );
        beacon.beat(&beat(&vault, true, Duration::ZERO)).unwrap();
        assert!(observe(&root, &vault).unwrap().live);
        assert!(!observe(&root, Path::new("/elsewhere")).unwrap().live);

        beacon.beat(&beat(&vault, false, Duration::ZERO)).unwrap();
        assert!(!observe(&root, &vault).unwrap().live, "behind on events");

        beacon
            .beat(&beat(&vault, true, STALE_AFTER + Duration::from_secs(1)))
            .unwrap();
        let seen = observe(&root, &vault).unwrap();
        assert!(seen.locked && !seen.live, "wedged: heartbeat too old");

        beacon.beat(&beat(&vault, true, Duration::ZERO)).unwrap();
        assert!(beacon.intact());
        drop(beacon);
        // The heartbeat file is still there (as after kill -9), but nobody holds the lock.
        assert!(observe(&root, &vault).is_none());
    }

    #[test]
    #[cfg_attr(
        windows,
        ignore = "Wine can't remove a folder while a file in it is open"
    )]
    fn a_deleted_store_is_noticed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("store");
        fs::create_dir_all(&root).unwrap();
        let beacon = Beacon::acquire(&root).unwrap().unwrap();
        fs::remove_dir_all(&root).unwrap();
        assert!(!beacon.intact());
    }
}
