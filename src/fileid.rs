//! Which folder a path names right now, as the file system identifies it: device and inode on
//! Unix, volume serial number and file index on Windows. A vault folder renamed away and
//! another put in its place keeps the path but not the identity, which is how `serve` notices
//! that the folder it watches is no longer the vault. And the state of a file, for caches
//! that must notice a file replaced or rewritten.

use std::path::Path;

/// The identity of the folder at `path` (symlinks followed); `None` when no folder is there.
/// Where the platform has no file ids, every folder is `(0, 0)`: only its existence is seen.
#[cfg_attr(not(feature = "serve"), allow(dead_code))]
pub(crate) fn folder_id(path: &Path) -> Option<(u64, u64)> {
    let m = std::fs::metadata(path).ok().filter(|m| m.is_dir())?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((m.dev(), m.ino()))
    }
    #[cfg(windows)]
    {
        // std's own file index is unstable; winapi-util reads it through the same call
        // (GetFileInformationByHandle) on a handle opened with backup semantics, as a folder
        // needs.
        let _ = m;
        let handle = winapi_util::Handle::from_path_any(path).ok()?;
        let info = winapi_util::file::information(&handle).ok()?;
        Some((info.volume_serial_number(), info.file_index()))
    }
    #[cfg(not(any(unix, windows)))]
    {
        let _ = m;
        Some((0, 0))
    }
}

/// A file's state as far as a cache of it is concerned: its length, mtime and inode (0 off
/// Unix), symlinks followed; `None` when nothing is there. A file rewritten in place changes
/// its mtime, one renamed over it its inode.
pub(crate) fn file_state(path: &Path) -> Option<(u64, std::time::SystemTime, u64)> {
    let m = std::fs::metadata(path).ok()?;
    #[cfg(unix)]
    let ino = std::os::unix::fs::MetadataExt::ino(&m);
    #[cfg(not(unix))]
    let ino = 0;
    Some((m.len(), m.modified().ok()?, ino))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_put_in_the_place_of_another_is_another_folder() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let vault = dir.path().join("Vault");
        std::fs::create_dir(&vault).unwrap_or_else(|e| panic!("{e}"));
        let first = folder_id(&vault);
        assert!(first.is_some());
        assert_eq!(folder_id(&vault), first, "the same folder, the same id");
        std::fs::rename(&vault, dir.path().join("Moved")).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(folder_id(&vault), None, "nothing there");
        assert_eq!(
            folder_id(&dir.path().join("Moved")),
            first,
            "moved, the same folder"
        );
        std::fs::create_dir(&vault).unwrap_or_else(|e| panic!("{e}"));
        if cfg!(any(unix, windows)) {
            assert_ne!(folder_id(&vault), first, "a new folder at the old path");
        }
        std::fs::write(dir.path().join("f.md"), "x").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            folder_id(&dir.path().join("f.md")),
            None,
            "a file is no folder"
        );
    }
}
