//! Reading a listed file for the indexer: within its size cap (a file over it is never read,
//! only named), and decoded as text.

use std::io::ErrorKind;

use super::walk::DiskNote;
use crate::core::FileKind;
use crate::fsread::{Beneath, Refused};

/// The kind of a listed file (the walk lists only the three kinds).
pub(in crate::local) fn kind_of(rel: &str) -> FileKind {
    FileKind::of_name(rel).unwrap_or_default()
}

/// Why a file was not read.
#[derive(Debug)]
pub(in crate::local) enum Unread {
    /// Over its size cap: the index keeps a placeholder, and the file is not read again until
    /// it changes.
    TooLarge(String),
    /// Vanished or unreadable: tried again on the next run.
    Failed(String),
}

/// The reason given for a file over its cap.
pub(in crate::local) fn too_large(cap: u64, kind: FileKind) -> String {
    format!("larger than {cap} bytes (see {})", kind.cap_flag())
}

/// Reads a listed file of at most `cap` bytes; why, when it can't. A file whose size (the
/// walk's stat) is over the cap is not even opened; one that became a symlink or a special
/// file since the walk, or whose folder became a symlink, is not read (see [`crate::fsread`]).
/// `folders` keeps the last folder's handle from one read to the next.
pub(in crate::local) fn read_capped(
    folders: &mut Beneath<'_>,
    note: &DiskNote,
    cap: u64,
    kind: FileKind,
) -> Result<(Vec<u8>, std::fs::Metadata), Unread> {
    if note.size > cap {
        return Err(Unread::TooLarge(too_large(cap, kind)));
    }
    let read = match &note.raw_path {
        // A name that is not UTF-8: the walk kept the exact path (below the vault, opened
        // folder by folder all the same). On Windows `rel` names no such file (see
        // `paths::namebytes`); on Unix it does, but the path is at hand.
        Some(path) => folders.read_raw(path, cap),
        None => folders.read(&note.rel, cap),
    };
    match read {
        Ok(read) => Ok(read),
        Err(Refused::TooLarge(_)) => Err(Unread::TooLarge(too_large(cap, kind))),
        Err(Refused::NotRegular) => Err(Unread::Failed(
            "not a regular file (a symlink or special file) when read".to_string(),
        )),
        Err(Refused::Io(e)) if e.kind() == ErrorKind::NotFound => Err(Unread::Failed(
            "vanished before it could be read".to_string(),
        )),
        Err(Refused::Io(e)) => Err(Unread::Failed(format!("cannot read: {e}"))),
    }
}

/// UTF-8 with invalid sequences replaced; a leading BOM is dropped. True when nothing was:
/// the text is the file's bytes.
pub(in crate::local) fn decode(bytes: Vec<u8>) -> (String, bool) {
    // Valid UTF-8 (nearly every note) keeps its buffer: no copy of the note.
    let (mut text, mut exact) = match String::from_utf8(bytes) {
        Ok(t) => (t, true),
        Err(e) => (String::from_utf8_lossy(e.as_bytes()).into_owned(), false),
    };
    if text.starts_with('\u{feff}') {
        text.drain(..'\u{feff}'.len_utf8());
        exact = false;
    }
    (text, exact)
}
