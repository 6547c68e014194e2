//! The index's directory with fewer writes to the disk per commit. tantivy's
//! [`MmapDirectory`] syncs every file it writes, and rewrites `.managed.json` (its list of the
//! files it may delete) by a new temporary file, synced and renamed, once for each new file: a
//! commit of one note made about fifteen syncs and fifteen new files, and on ext4 each new
//! file costs a scan past the inodes freed recently (the files the last merges removed). The
//! index is a cache of the vault, so here:
//!
//! - segment files are flushed to the OS on terminate (what every reader needs) but not synced,
//!   nor is the folder;
//! - `.managed.json` is kept in memory as tantivy rewrites it and written (atomically: a new
//!   file renamed over it, not synced) once per commit, just before `meta.json`, and when the
//!   last handle on the directory goes;
//! - `meta.json`, the one file that says which commit is live, is written as tantivy writes it:
//!   a temporary file, synced, renamed over it.
//!
//! Durability, traded knowingly. After a power loss (not a crash of the process: the kernel
//! still writes back what it was given) the last commits may be gone, or their segment files
//! short, zeroed or missing while `meta.json` names them. That is what any damaged index is:
//! opening it checks each file it has not checked before against its checksum
//! ([`super::intact`]; a file whose size or mtime changed is checked again), a file that fails
//! or is missing makes the index incompatible, and it is rebuilt from the vault. A commit that
//! lost only its rename leaves the one before, and the next walk (every `serve` start walks)
//! re-reads what changed since. Nothing the vault holds is lost, only the time of a rebuild.
//! A process killed between a merge's (or an update's) files and the next commit leaves them
//! unlisted in `.managed.json`, where tantivy would never delete them: the next update does
//! ([`super::sweep`]). Windows is the same: tantivy's folder sync is a no-op there.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use tantivy::directory::error::{
    DeleteError, LockError, OpenDirectoryError, OpenReadError, OpenWriteError,
};
use tantivy::directory::{
    AntiCallToken, Directory, DirectoryLock, FileHandle, FileSlice, Lock, MmapDirectory,
    TerminatingWrite, WatchCallback, WatchHandle, WritePtr,
};

use super::replace::replace_file;

/// The file that names the live commit: the one write kept durable.
const META: &str = "meta.json";
/// tantivy's list of the files it manages (and may garbage-collect).
const MANAGED: &str = ".managed.json";

/// An [`MmapDirectory`] whose segment files are not synced and whose `.managed.json` is
/// written once per commit (see the module docs).
#[derive(Debug, Clone)]
pub(crate) struct UnsyncedDirectory {
    inner: MmapDirectory,
    root: PathBuf,
    managed: Arc<Managed>,
}

/// The `.managed.json` tantivy wrote last, while it is not on disk yet; shared by the clones
/// of one directory (tantivy clones it for each of its threads).
#[derive(Debug)]
struct Managed {
    path: PathBuf,
    pending: Mutex<Option<Vec<u8>>>,
}

impl Managed {
    fn flush(&self) -> io::Result<()> {
        let mut pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(data) = pending.as_deref() {
            replace_unsynced(&self.path, data)?;
            *pending = None;
        }
        Ok(())
    }
}

impl Drop for Managed {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

impl UnsyncedDirectory {
    /// Opens `dir` (which must exist) as [`MmapDirectory::open`] does.
    pub(crate) fn open(dir: &Path) -> Result<UnsyncedDirectory, OpenDirectoryError> {
        Ok(UnsyncedDirectory {
            inner: MmapDirectory::open(dir)?,
            root: dir.to_path_buf(),
            managed: Arc::new(Managed {
                path: dir.join(MANAGED),
                pending: Mutex::new(None),
            }),
        })
    }
}

/// A segment file: flushed on terminate (what a reader of the same machine needs), not synced.
struct UnsyncedFile(File);

impl Write for UnsyncedFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl TerminatingWrite for UnsyncedFile {
    fn terminate_ref(&mut self, _: AntiCallToken) -> io::Result<()> {
        self.0.flush()
    }
}

impl Directory for UnsyncedDirectory {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        self.inner.get_file_handle(path)
    }

    fn open_read(&self, path: &Path) -> Result<FileSlice, OpenReadError> {
        self.inner.open_read(path)
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        self.inner.delete(path)
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        self.inner.exists(path)
    }

    /// As [`MmapDirectory`] opens it (a new file, never one that exists), minus the sync.
    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        // Private from the start, as `replace_unsynced` writes (see there).
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let file = options.open(self.root.join(path)).map_err(|e| {
            if e.kind() == io::ErrorKind::AlreadyExists {
                OpenWriteError::FileAlreadyExists(path.to_path_buf())
            } else {
                OpenWriteError::wrap_io_error(e, path.to_path_buf())
            }
        })?;
        Ok(BufWriter::new(Box::new(UnsyncedFile(file))))
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        if path == Path::new(MANAGED) {
            let pending = self
                .managed
                .pending
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if let Some(data) = pending.as_ref() {
                return Ok(data.clone());
            }
        }
        self.inner.atomic_read(path)
    }

    /// `meta.json` as tantivy writes it (synced), after the pending `.managed.json`: the files
    /// a commit names are listed on disk before it is live, so a later collection deletes them.
    fn atomic_write(&self, path: &Path, data: &[u8]) -> io::Result<()> {
        if path == Path::new(MANAGED) {
            *self
                .managed
                .pending
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = Some(data.to_vec());
            return Ok(());
        }
        if path == Path::new(META) {
            self.managed.flush()?;
            return self.inner.atomic_write(path, data);
        }
        replace_unsynced(&self.root.join(path), data)
    }

    /// Nothing: the only write that must reach the disk, `meta.json`'s, syncs itself.
    fn sync_directory(&self) -> io::Result<()> {
        Ok(())
    }

    fn acquire_lock(&self, lock: &Lock) -> Result<DirectoryLock, LockError> {
        self.inner.acquire_lock(lock)
    }

    fn watch(&self, watch_callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        self.inner.watch(watch_callback)
    }
}

/// Writes `data` to a new file beside `dst` and renames it over `dst` ([`replace_file`], which
/// waits out a Windows program holding `dst` open): a reader sees the old content or the new,
/// never part of it.
fn replace_unsynced(dst: &Path, data: &[u8]) -> io::Result<()> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let name = dst
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dst.with_file_name(format!(
        ".{name}.{}-{}.tmp",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    // Private like every file of the index (0600 on Unix, whatever the umask): `.managed.json`
    // is written here after the store made the directory's files private. On Windows the file
    // inherits the ACL of the user's cache directory.
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let written = options.open(&tmp).and_then(|mut f| f.write_all(data));
    let replaced = written.and_then(|()| replace_file(&tmp, dst));
    if replaced.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    replaced
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn files_read_back_and_managed_json_waits_for_the_commit() {
        let dir = tempfile::tempdir().unwrap();
        let d = UnsyncedDirectory::open(dir.path()).unwrap();
        let mut w = d.open_write(Path::new("a.bin")).unwrap();
        w.write_all(b"hello").unwrap();
        w.terminate().unwrap();
        assert_eq!(fs::read(dir.path().join("a.bin")).unwrap(), b"hello");
        assert!(matches!(
            d.open_write(Path::new("a.bin")),
            Err(OpenWriteError::FileAlreadyExists(_))
        ));
        let managed = Path::new(MANAGED);
        for data in [&b"one"[..], b"two"] {
            d.atomic_write(managed, data).unwrap();
            assert_eq!(d.atomic_read(managed).unwrap(), data);
        }
        assert!(!dir.path().join(MANAGED).exists(), "not before the commit");
        d.atomic_write(Path::new(META), b"{}").unwrap();
        assert_eq!(fs::read(dir.path().join(MANAGED)).unwrap(), b"two");
        assert_eq!(d.atomic_read(Path::new(META)).unwrap(), b"{}");
        // What tantivy writes after its last commit (a collection) reaches the disk when the
        // last handle goes.
        d.clone().atomic_write(managed, b"three").unwrap();
        drop(d);
        assert_eq!(fs::read(dir.path().join(MANAGED)).unwrap(), b"three");
        assert_eq!(
            names(dir.path()),
            [MANAGED, "a.bin", META],
            "no temporary file left"
        );
    }
}
