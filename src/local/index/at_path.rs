//! One vault-relative path as the walk would reach it: how an update for the paths a watcher
//! names ([`super::refresh_paths`]) sees the vault, under the walk's own rules — no dot-folder,
//! no folder followed through a symlink, only indexed names, the walk's own stat.

use std::fs;
use std::path::{Component, Path};

use super::walk::{is_indexed, stat_one, Batch};
use crate::paths::namebytes::spell;

/// What the walk would list at one vault-relative path.
#[derive(Debug)]
pub(crate) enum AtPath {
    /// A file the walk lists, stat'ed as the walk stats it.
    Listed(Batch),
    /// Nothing the walk lists: gone, not a regular file, not an indexed name, or below
    /// something that is not a plain folder (a symlink, a dot-folder, a file).
    Nothing,
    /// A folder: what it holds can't be told from its path.
    Folder,
    /// A folder above it is not there: the path may name a place that moved (Wine names what
    /// is created in a moved folder under the folder's old name).
    NoFolder,
    /// It could not be stat'ed (the walk would name it and go on).
    Unreadable,
}

/// Stats `rel` (vault-relative) as the walk would reach it: every folder above it a real
/// folder, not a dot-folder, and not followed through a symlink.
pub(crate) fn stat_path(vault: &Path, rel: &Path, pdf: bool) -> AtPath {
    let mut parts = Vec::new();
    for c in rel.components() {
        match c {
            Component::Normal(p) => parts.push(p),
            // `..`, a root or a prefix: not a path below the vault.
            _ => return AtPath::Unreadable,
        }
    }
    let Some((name, above)) = parts.split_last() else {
        return AtPath::Folder; // the vault itself
    };
    let mut path = vault.to_path_buf();
    let mut folder_rel = String::new();
    for part in above {
        let spelt = spell(part);
        path.push(part);
        if spelt.starts_with('.') {
            return AtPath::Nothing;
        }
        match fs::symlink_metadata(&path) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => return AtPath::Nothing,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return AtPath::NoFolder,
            Err(_) => return AtPath::Unreadable,
        }
        if !folder_rel.is_empty() {
            folder_rel.push('/');
        }
        folder_rel.push_str(&spelt);
    }
    let ft = match fs::symlink_metadata(path.join(name)) {
        Ok(m) => m.file_type(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return AtPath::Nothing,
        Err(_) => return AtPath::Unreadable,
    };
    if ft.is_dir() {
        return if spell(name).starts_with('.') {
            AtPath::Nothing
        } else {
            AtPath::Folder
        };
    }
    if !ft.is_file() || !is_indexed(name, pdf) {
        return AtPath::Nothing;
    }
    match stat_one(path, folder_rel, name.to_os_string()) {
        Ok(Some(batch)) => AtPath::Listed(batch),
        Ok(None) => AtPath::Nothing,
        Err(()) => AtPath::Unreadable,
    }
}
