//! Where a vault's index lives on disk, and how it is opened, locked and swapped.
//!
//! Layout: `<cache dir>/vault-search/<first 16 hex of blake3(canonical vault path)>/`
//! - `lock`: held (OS file lock) by the one process that may write; others search without
//!   waiting.
//! - `CURRENT`: the name of the live index directory, replaced atomically (write + rename).
//! - `pdf-text/<blake3>.json`: the text of each PDF ever extracted (or why it failed), so an
//!   unchanged PDF is never extracted twice.
//! - `idx-<format>-<nanos>/`: Tantivy index directories. A full (re)build writes into a fresh
//!   one and only then points `CURRENT` at it, so a kill at any instant leaves the previous
//!   index (or none) readable; leftovers are removed by the next successful build. Their
//!   files are written without fsync but `meta.json` (see [`super::unsynced`]).
//!
//! The index holds the notes' text: directories are created 0700 and files set to 0600 on Unix.
//! On Windows the files inherit the ACL of the user's cache directory, which is already
//! private to the user.

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use tantivy::directory::MmapDirectory;
use tantivy::{Index, IndexReader};

use super::private;
use super::replace::replace_file;
use super::unsynced::UnsyncedDirectory;
use crate::core::Caps;
use crate::local::{analyzer, schema};

/// The file naming the live index directory.
pub(crate) const CURRENT: &str = "CURRENT";
const LOCK: &str = "lock";

/// What every commit records, so the next run knows what it is looking at.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct Payload {
    /// [`schema::index_format`] at write time.
    pub(crate) format: String,
    /// When the run that made this commit started (ns since the epoch): notes modified less
    /// than [`super::plan::RACY_WINDOW_NS`] before it are hashed again even when size and
    /// mtime agree.
    pub(crate) run_started_ns: i64,
    /// The vault this index is for.
    pub(crate) vault: String,
    /// The size caps the index is kept under: the last ones an update was given (see
    /// [`crate::core::Limits`]). Absent from older commits, which had the defaults.
    #[serde(default)]
    pub(crate) caps: Caps,
}

/// The index directory of one vault.
#[derive(Debug, Clone)]
pub(crate) struct Store {
    pub(crate) root: PathBuf,
}

/// Proof that this process is the only writer; released on drop (or process death).
#[derive(Debug)]
pub(crate) struct WriterLock {
    _file: File,
}

impl Store {
    /// The store of `vault` below the user cache directory `cache_dir`.
    pub(crate) fn new(cache_dir: &Path, vault: &Path) -> Store {
        let id = blake3::hash(vault.to_string_lossy().as_bytes()).to_hex();
        Store {
            root: cache_dir.join("vault-search").join(&id.as_str()[..16]),
        }
    }

    /// Creates the directory (0700) if needed: the cache directory as it comes, then the
    /// `vault-search` folder and this vault's, each refused unless private to this user (see
    /// [`private`]).
    pub(crate) fn ensure_root(&self) -> Result<()> {
        let create = || -> Result<()> {
            let base = self.root.parent().context("no parent")?;
            if let Some(cache) = base.parent() {
                fs::create_dir_all(cache)?;
            }
            private::ensure_dir(base)?;
            private::ensure_dir(&self.root)
        };
        create()
            .with_context(|| format!("cannot create the index directory {}", self.root.display()))
    }

    /// Fails when the folders of this index exist but are not private to this user (see
    /// [`private`]): nothing in them is to be read or written.
    pub(crate) fn check_private(&self) -> Result<()> {
        if let Some(base) = self.root.parent() {
            private::check_dir(base)?;
        }
        private::check_dir(&self.root).map(|_| ())
    }

    /// Takes the writer lock without waiting; `Ok(None)` when another process holds it.
    pub(crate) fn try_lock(&self) -> Result<Option<WriterLock>> {
        let path = self.root.join(LOCK);
        let file = private::open_own_file(&path)
            .with_context(|| format!("cannot open the lock file {}", path.display()))?;
        match file.try_lock() {
            Ok(()) => Ok(Some(WriterLock { _file: file })),
            Err(fs::TryLockError::WouldBlock) => Ok(None),
            Err(fs::TryLockError::Error(e)) => {
                Err(e).with_context(|| format!("cannot lock {}", path.display()))
            }
        }
    }

    /// Where extracted PDF text is cached by the blake3 of the file: beside the index
    /// directories, so a rebuild (a new index directory) never extracts an unchanged PDF again.
    pub(crate) fn text_cache_dir(&self) -> PathBuf {
        self.root.join("pdf-text")
    }

    /// The live index directory, if one was ever published.
    pub(crate) fn current_dir(&self) -> Option<PathBuf> {
        let name = fs::read_to_string(self.root.join(CURRENT)).ok()?;
        let name = name.trim();
        if name.is_empty() || name.contains(['/', '\\']) || name.starts_with('.') {
            return None;
        }
        Some(self.root.join(name))
    }

    /// Opens the live index, with the reader that validated it (for searching). `Ok(None)`:
    /// there is none yet. `Err(IndexIncompatible)`: it exists but was written by another
    /// format or can't be opened.
    pub(crate) fn open_current_reader(
        &self,
    ) -> Result<Option<(Index, Payload, IndexReader)>, IndexIncompatible> {
        let Some(dir) = self.current_dir() else {
            return Ok(None);
        };
        self.check_private()
            .map_err(|e| IndexIncompatible(format!("{e:#}")))?;
        open_index(&dir).map(Some)
    }

    /// The caps the live index recorded, read even from an index this binary can't use (a
    /// rebuild, or one after a format change, keeps the user's caps); the defaults when there
    /// is none.
    pub(crate) fn recorded_caps(&self) -> Caps {
        #[derive(Deserialize)]
        struct OnlyCaps {
            #[serde(default)]
            caps: Caps,
        }
        let read = || {
            let mmap = MmapDirectory::open(self.current_dir()?).ok()?;
            let metas = Index::open(mmap).ok()?.load_metas().ok()?;
            serde_json::from_str::<OnlyCaps>(metas.payload.as_deref()?).ok()
        };
        read().map(|o| o.caps).unwrap_or_default()
    }

    /// Creates an empty index in a fresh directory (not yet published).
    pub(crate) fn create_fresh(&self) -> Result<(Index, PathBuf)> {
        let nanos = now_ns();
        let dir = self
            .root
            .join(format!("idx-{}-{nanos}", schema::index_format()));
        // A new name: whatever is there already (a symlink planted in its place) fails it.
        private::create_new_dir(&dir)
            .with_context(|| format!("cannot create the index directory {}", dir.display()))?;
        let files = UnsyncedDirectory::open(&dir)
            .with_context(|| format!("cannot open the index directory {}", dir.display()))?;
        let index = match Index::create(files, schema::fields().schema.clone(), Default::default())
        {
            Ok(index) => index,
            Err(e) => {
                self.discard(&dir);
                return Err(e).context("cannot create the index");
            }
        };
        register_analyzer(&index);
        Ok((index, dir))
    }

    /// Removes an index directory that was never published (best effort: on Windows a file
    /// still open keeps it until the next build's clean-up).
    pub(crate) fn discard(&self, dir: &Path) {
        let _ = fs::remove_dir_all(dir);
    }

    /// Points `CURRENT` at `dir` atomically, then removes every other index directory.
    pub(crate) fn publish(&self, dir: &Path) -> Result<()> {
        let name = dir
            .file_name()
            .context("index directory has no name")?
            .to_string_lossy()
            .to_string();
        let tmp = self.root.join(format!("{CURRENT}.tmp"));
        {
            let mut f =
                File::create(&tmp).with_context(|| format!("cannot write {}", tmp.display()))?;
            f.write_all(name.as_bytes())?;
            f.sync_all()?;
        }
        set_private_file(&tmp);
        replace_file(&tmp, &self.root.join(CURRENT))
            .with_context(|| format!("cannot replace {}", self.root.join(CURRENT).display()))?;
        self.remove_stale_dirs(Some(dir));
        Ok(())
    }

    /// Removes index directories other than `keep` (leftovers of killed builds, old formats).
    /// Also after an incremental commit: on Windows an old directory that a reader still had
    /// mapped at the rebuild stays behind until a later writer retries.
    pub(crate) fn remove_stale_dirs(&self, keep: Option<&Path>) {
        let Ok(entries) = fs::read_dir(&self.root) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            let is_index = e.file_name().to_string_lossy().starts_with("idx-");
            if is_index && Some(p.as_path()) != keep {
                // Best effort: a reader may still have files open (Windows refuses then); the
                // next build tries again.
                let _ = fs::remove_dir_all(&p);
            }
        }
    }
}

/// The index on disk was written by another schema or analyzer version, or can't be opened:
/// it is rebuilt from scratch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct IndexIncompatible(pub(crate) String);

impl std::fmt::Display for IndexIncompatible {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "index incompatible: {}", self.0)
    }
}

impl std::error::Error for IndexIncompatible {}

/// Opens a tantivy index directory and checks its format.
pub(crate) fn open_index(dir: &Path) -> Result<(Index, Payload, IndexReader), IndexIncompatible> {
    let incompatible = IndexIncompatible;
    let files = UnsyncedDirectory::open(dir).map_err(|e| incompatible(e.to_string()))?;
    let index = Index::open(files).map_err(|e| incompatible(e.to_string()))?;
    let metas = index
        .load_metas()
        .map_err(|e| incompatible(e.to_string()))?;
    let payload: Payload = metas
        .payload
        .as_deref()
        .and_then(|p| serde_json::from_str(p).ok())
        .ok_or_else(|| incompatible("no commit payload".into()))?;
    if payload.format != schema::index_format() {
        return Err(incompatible(format!(
            "built as {}, this binary uses {}",
            payload.format,
            schema::index_format()
        )));
    }
    if index.schema() != schema::fields().schema {
        return Err(incompatible("schema differs".into()));
    }
    register_analyzer(&index);
    // Damaged files answer wrongly without an error: checked before anything reads them.
    super::intact::check(&index, &metas, dir).map_err(incompatible)?;
    // Opening a reader opens every segment file: a truncated or missing one shows here.
    let reader: IndexReader = index
        .reader_builder()
        .reload_policy(tantivy::ReloadPolicy::Manual)
        .try_into()
        .map_err(|e| incompatible(format!("unreadable: {}", first_line(&e.to_string()))))?;
    Ok((index, payload, reader))
}

/// Checks the commit `dir` holds now as [`open_index`] checks it (its files against their
/// checksums, once per file state), for a reader kept open that is about to reload onto it.
pub(crate) fn check_commit(index: &Index, dir: &Path) -> Result<(), IndexIncompatible> {
    let metas = index
        .load_metas()
        .map_err(|e| IndexIncompatible(e.to_string()))?;
    super::intact::check(index, &metas, dir).map_err(IndexIncompatible)
}

fn first_line(s: &str) -> String {
    let line = s.lines().next().unwrap_or(s);
    line.chars().take(200).collect()
}

/// Makes the project's analyzer known to an index (tantivy does not persist analyzers).
pub(crate) fn register_analyzer(index: &Index) {
    index
        .tokenizers()
        .register(analyzer::NAME, analyzer::text_analyzer());
}

/// Nanoseconds since the Unix epoch (0 for a clock before 1970).
pub(crate) fn now_ns() -> i64 {
    system_time_ns(SystemTime::now())
}

/// A `SystemTime` as signed nanoseconds since the Unix epoch.
pub(crate) fn system_time_ns(t: SystemTime) -> i64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_nanos()).unwrap_or(i64::MAX),
        Err(e) => -i64::try_from(e.duration().as_nanos()).unwrap_or(i64::MAX),
    }
}

pub(crate) fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
        fs::set_permissions(dir, fs::Permissions::from_mode(0o700))
    }
    #[cfg(not(unix))]
    {
        fs::create_dir_all(dir)
    }
}

/// Sets a file to 0600 (Unix; elsewhere a no-op: see the module docs).
pub(crate) fn set_private_file(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = fs::set_permissions(path, fs::Permissions::from_mode(0o600));
    }
    #[cfg(not(unix))]
    let _ = path;
}

/// Sets every file in an index directory to 0600 (tantivy creates its lock files with the
/// umask). A file already 0600 is left alone: a chmod sets the file's ctime, which the
/// integrity check ([`super::intact`]) reads as a change to check again.
pub(crate) fn privatize_dir(dir: &Path) {
    if let Ok(entries) = fs::read_dir(dir) {
        for e in entries.flatten() {
            let Ok(md) = e.metadata() else { continue };
            #[cfg(unix)]
            if std::os::unix::fs::PermissionsExt::mode(&md.permissions()) & 0o777 == 0o600 {
                continue;
            }
            if md.is_file() {
                set_private_file(&e.path());
            }
        }
    }
}
