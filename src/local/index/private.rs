//! The index directory as a trust boundary. It holds the notes' text, and a cache directory
//! may be shared and world-writable (`VAULT_SEARCH_CACHE_DIR=/tmp/…`): another user could plant
//! a symlink where the index or its lock goes (to have us write into, or chmod, a folder or
//! file of theirs or of a third party), or create the folders first, owned by them or open to
//! all, and read or swap the index. So on Unix the `vault-search` folder and the vault's index
//! folder must each be a real folder (not a symlink), owned by this user and writable by no
//! one else; they are created 0700 one level at a time (never through a symlink, never
//! chmod-ing an existing one), and the lock file is opened without following a symlink and
//! checked on its handle. Anything else is refused: `index` stops with one line, a search
//! indexes in memory and says why.
//!
//! Elsewhere (Windows) only "a real folder, not a symlink" is checked, and the lock is opened
//! as it is: the user cache directory (`%LOCALAPPDATA%`) is private to the user by its ACL,
//! which new folders inherit; owners and ACLs of a shared cache directory are not checked.

use std::fs::{self, File};
use std::io::ErrorKind;
use std::path::Path;

use anyhow::{Context, Result};

/// Refuses `dir` unless it is a folder of this user's that no one else may write; `Ok(false)`
/// when there is nothing there.
pub(super) fn check_dir(dir: &Path) -> Result<bool> {
    let md = match fs::symlink_metadata(dir) {
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(false),
        other => other.with_context(|| format!("cannot read {}", dir.display()))?,
    };
    if md.file_type().is_symlink() {
        anyhow::bail!(refused(dir, "it is a symlink"));
    }
    if !md.is_dir() {
        anyhow::bail!(refused(dir, "it is not a folder"));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if md.uid() != rustix::process::geteuid().as_raw() {
            anyhow::bail!(refused(dir, "it is owned by another user"));
        }
        if md.mode() & 0o022 != 0 {
            let why = format!("others may write it (mode {:o})", md.mode() & 0o777);
            anyhow::bail!(refused(dir, &why));
        }
    }
    Ok(true)
}

/// Creates the folder `dir` (0700 on Unix) in a parent already checked, or takes the one there
/// if [`check_dir`] admits it.
pub(super) fn ensure_dir(dir: &Path) -> Result<()> {
    match create_new_dir(dir) {
        Err(e) if e.kind() == ErrorKind::AlreadyExists => {}
        other => other.with_context(|| format!("cannot create {}", dir.display()))?,
    }
    check_dir(dir).map(|_| ())
}

/// Creates `dir` (0700 on Unix), failing when anything — a symlink included — is there.
pub(super) fn create_new_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg_attr(not(unix), allow(unused_mut))]
    let mut builder = fs::DirBuilder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)
}

/// Opens (creating it 0600) the regular file `path`, never through a symlink nor waiting on a
/// FIFO, and refuses one that another user owns or that is no regular file.
pub(super) fn open_own_file(path: &Path) -> Result<File> {
    let mut options = fs::OpenOptions::new();
    options.create(true).truncate(false).write(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Non-blocking: a FIFO planted as the lock would hold the open until a reader came
        // (every `index` and search waiting forever); so it opens at once (or fails with no
        // reader) and the handle's stat refuses it.
        let flags = rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK;
        options.mode(0o600).custom_flags(flags.bits() as i32);
    }
    let file = options.open(path).with_context(|| {
        refused(
            path,
            "it can't be opened as a file of ours (a symlink or a FIFO?)",
        )
    })?;
    let md = file.metadata()?;
    if !md.is_file() {
        anyhow::bail!(refused(path, "it is not a regular file"));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        if md.uid() != rustix::process::geteuid().as_raw() {
            anyhow::bail!(refused(path, "it is owned by another user"));
        }
        // On the handle: what was checked is what is made private.
        file.set_permissions(fs::Permissions::from_mode(0o600))?;
    }
    Ok(file)
}

fn refused(path: &Path, why: &str) -> String {
    format!(
        "refusing {}: {why} (see \"The local index\" in docs/guide.md)",
        path.display()
    )
}
