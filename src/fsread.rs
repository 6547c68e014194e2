//! Reading a file that the vault (or a reply naming a vault path) points at, as a trust
//! boundary: the name may be swapped for a symlink to a file outside the vault, or name a FIFO
//! (opening or reading it would wait forever), a device (endless bytes) or a huge sparse file,
//! between any check and the read. So the check is made on the opened handle, never on the
//! name before opening it:
//!
//! - the last component is opened without following a symlink: `O_NOFOLLOW` on Unix (with
//!   `O_NONBLOCK`, so opening a FIFO returns at once instead of waiting for a writer, and
//!   `O_NOCTTY`); on Windows `FILE_FLAG_OPEN_REPARSE_POINT`, which opens a symlink or junction
//!   itself instead of its target, so its handle is no regular file, with
//!   `FILE_FLAG_BACKUP_SEMANTICS`, without which opening a folder fails (access denied) instead
//!   of giving a handle that says "folder";
//! - the handle's own stat (fstat) must say a regular file of at most the cap;
//! - at most the cap (and one byte to tell a file that grew) is read.
//!
//! Folders on the way are the caller's to trust (the walk never follows a symlinked folder).

use std::fs::{File, Metadata};
use std::io::{self, Read};
use std::path::Path;

/// Why a file was not read.
#[derive(Debug)]
pub(crate) enum Refused {
    /// A symlink, folder, FIFO, socket or device: never read.
    NotRegular,
    /// Larger than the cap (its size, as the handle says, or "more than the cap" when it grew).
    TooLarge(u64),
    /// Missing, unreadable, or the read failed.
    Io(io::Error),
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::NotRegular => f.write_str("not a regular file"),
            Refused::TooLarge(n) => write!(f, "too large ({n} bytes)"),
            Refused::Io(e) => write!(f, "{e}"),
        }
    }
}

/// Opens `path` for reading when it is a regular file, not through a symlink, and returns the
/// handle with its own metadata.
pub(crate) fn open_regular(path: &Path) -> Result<(File, Metadata), Refused> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use rustix::fs::OFlags;
        use std::os::unix::fs::OpenOptionsExt;
        let flags = OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY;
        options.custom_flags(flags.bits() as i32);
    }
    #[cfg(windows)]
    {
        use std::os::windows::fs::OpenOptionsExt;
        const FILE_FLAG_OPEN_REPARSE_POINT: u32 = 0x0020_0000;
        const FILE_FLAG_BACKUP_SEMANTICS: u32 = 0x0200_0000;
        options.custom_flags(FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS);
    }
    let file = options.open(path).map_err(|e| match e.raw_os_error() {
        // O_NOFOLLOW on a symlink.
        #[cfg(unix)]
        Some(code) if code == rustix::io::Errno::LOOP.raw_os_error() => Refused::NotRegular,
        _ => Refused::Io(e),
    })?;
    let md = file.metadata().map_err(Refused::Io)?;
    if !md.is_file() {
        return Err(Refused::NotRegular);
    }
    Ok((file, md))
}

/// The bytes of the regular file at `path` if it holds at most `cap` of them (see the module
/// doc for what is refused), with the opened file's metadata.
pub(crate) fn read_regular(path: &Path, cap: u64) -> Result<(Vec<u8>, Metadata), Refused> {
    let (file, md) = open_regular(path)?;
    if md.len() > cap {
        return Err(Refused::TooLarge(md.len()));
    }
    // Sized from the handle's stat: the file comes in one read and one more that sees the end.
    let mut bytes = Vec::with_capacity(usize::try_from(md.len()).unwrap_or(0) + 1);
    file.take(cap.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(Refused::Io)?;
    if bytes.len() as u64 > cap {
        return Err(Refused::TooLarge(bytes.len() as u64));
    }
    Ok((bytes, md))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_regular_files_within_the_cap_only() {
        let dir = tempfile::tempdir().unwrap();
        let note = dir.path().join("n.md");
        std::fs::write(&note, "hello").unwrap();
        assert_eq!(read_regular(&note, 5).unwrap().0, b"hello");
        assert!(matches!(read_regular(&note, 4), Err(Refused::TooLarge(5))));
        assert!(matches!(
            read_regular(dir.path(), 10),
            Err(Refused::NotRegular)
        ));
        assert!(matches!(
            read_regular(&dir.path().join("gone.md"), 10),
            Err(Refused::Io(_))
        ));
        #[cfg(unix)]
        {
            let link = dir.path().join("link.md");
            std::os::unix::fs::symlink(&note, &link).unwrap();
            assert!(matches!(read_regular(&link, 10), Err(Refused::NotRegular)));
            let fifo = dir.path().join("fifo.md");
            rustix::fs::mknodat(
                rustix::fs::CWD,
                &fifo,
                rustix::fs::FileType::Fifo,
                rustix::fs::Mode::from_raw_mode(0o600),
                0,
            )
            .unwrap();
            assert!(matches!(read_regular(&fifo, 10), Err(Refused::NotRegular)));
        }
    }
}
