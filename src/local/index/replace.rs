//! Replacing a file whole: a new file renamed over the old, so a reader sees one or the other,
//! never part of either. Its own module because the index directory ([`super::unsynced`]) and
//! the store that opens it both replace files this way.

use std::fs;
use std::path::Path;

/// Renames `tmp` over `dst`. On Unix that is atomic whoever has `dst` open. On Windows it fails
/// while another program holds `dst` open without delete sharing (a virus scanner, the search
/// indexer, an older reader; Rust itself shares): retried for up to about half a second.
pub(crate) fn replace_file(tmp: &Path, dst: &Path) -> std::io::Result<()> {
    let mut tries = 0;
    loop {
        match fs::rename(tmp, dst) {
            Err(e)
                if cfg!(windows)
                    && e.kind() == std::io::ErrorKind::PermissionDenied
                    && tries < 25 =>
            {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            r => return r,
        }
    }
}
