//! Whether the files of a committed index are intact: every tantivy file ends with a CRC32 of
//! its bytes, and a damaged file read anyway gives wrong answers silently, or panics in a merge
//! thread on every later update. Checking a file reads all of it, so each file is checked once
//! per state (name, size, mtime): the states that passed are kept in [`MARK`] in the index
//! directory, and a search after an incremental commit checks only the new segments' files.
//!
//! On Unix the state also holds the file's inode and change time (ctime): any write to a file,
//! and any setting of its mtime, sets its ctime to the clock, and no call sets it back. So
//! damage that keeps the size and the mtime (a byte flipped in place, the mtime put back) is a
//! new state, checked on the next open, and the index is rebuilt before it answers. Not seen
//! here: damage that bypasses the file system (the disk or its controller corrupting a
//! block, a write to the raw device, a file-system bug), which leaves the ctime as it was; and
//! on Windows, where the standard library gives no change time, damage that keeps the size
//! and the last-write time. For those the update path turns a merge or commit that fails on
//! the damage into a rebuild in the same run; a damaged stretch no query reads stays unseen
//! until then.

use std::collections::HashSet;
use std::fs;
use std::path::Path;

use tantivy::{Index, IndexMeta};

/// The file (in the index directory) listing the file states whose checksum passed.
const MARK: &str = "vault-search-intact";

/// `Err(why)` when a file of the committed segments (`metas`, as the opener read them) fails
/// its checksum (or can't be read).
pub(super) fn check(index: &Index, metas: &IndexMeta, dir: &Path) -> Result<(), String> {
    verify(index, metas, dir, true)
}

/// Records the files of the commit this process just wrote as passed, without reading them
/// back: so the next open checks only what changed since.
pub(super) fn trust_committed(index: &Index, dir: &Path) {
    if let Ok(metas) = index.load_metas() {
        let _ = verify(index, &metas, dir, false);
    }
}

fn verify(index: &Index, metas: &IndexMeta, dir: &Path, read: bool) -> Result<(), String> {
    let passed: HashSet<String> = fs::read_to_string(dir.join(MARK))
        .map(|s| s.lines().map(str::to_string).collect())
        .unwrap_or_default();
    let mut states: Vec<String> = Vec::new();
    let mut checked_any = false;
    let mut files: Vec<_> = metas.list_segment_files().into_iter().collect();
    files.sort();
    for rel in files {
        // A segment lists the deletes file of its last delete opstamp only when it has one.
        let Ok(md) = fs::symlink_metadata(dir.join(&rel)) else {
            continue;
        };
        let mtime = md
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        let state = format!("{} {} {mtime}{}", rel.display(), md.len(), changed(&md));
        if !passed.contains(&state) {
            checked_any = true;
            if !read {
                states.push(state);
                continue;
            }
            match index.directory().validate_checksum(&rel) {
                Ok(true) => {}
                Ok(false) => return Err(format!("damaged: {} fails its checksum", rel.display())),
                Err(e) => return Err(format!("damaged: {e}")),
            }
        }
        states.push(state);
    }
    if checked_any {
        remember(dir, &states);
    }
    Ok(())
}

/// The part of a file's state that only the kernel sets (see the module doc): inode and
/// ctime on Unix; nothing elsewhere.
fn changed(md: &fs::Metadata) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        format!(" {} {}.{:09}", md.ino(), md.ctime(), md.ctime_nsec())
    }
    #[cfg(not(unix))]
    {
        let _ = md;
        String::new()
    }
}

/// Best effort: without the mark, the next open checks every file again. (Private like the
/// index's files, though it holds only file names and sizes.)
fn remember(dir: &Path, states: &[String]) {
    let tmp = dir.join(format!("{MARK}.tmp{}", std::process::id()));
    // Written here, not through the store's file helpers: the store calls this module.
    if fs::write(&tmp, states.join("\n")).is_ok() {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = fs::set_permissions(&tmp, fs::Permissions::from_mode(0o600));
        }
        if fs::rename(&tmp, dir.join(MARK)).is_err() {
            let _ = fs::remove_file(&tmp);
        }
    }
}
