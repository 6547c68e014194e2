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
//! Folders on the way: [`open_beneath`] opens each folder of a vault-relative path from the
//! vault's own handle without following a symlink (Unix: `openat` per component with
//! `O_NOFOLLOW | O_DIRECTORY`), so a folder swapped for a symlink between any check and the
//! open is refused too. It serves the paths that come from outside — MCP `read_note`, an
//! Omnisearch hit, a hit's passage read back from disk — and the index's own reads, through
//! [`Beneath`], which keeps the last folder's handle: the indexer reads folder by folder, so
//! the check on the folders costs one open per folder, and each note is opened by its name
//! relative to its folder, which is cheaper than the whole path. On Windows `open_beneath` is
//! `open_regular` of the joined path: the last component is opened as itself (a reparse point
//! is no regular file), the folders on the way are not checked.

use std::fs::{File, Metadata};
use std::io::{self, Read};
use std::path::Path;

#[cfg(unix)]
use crate::paths::namebytes::unspell;

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

/// Opens the regular file at `rel` (`/`-separated, relative, each name read back from its
/// spelling: see [`crate::paths::namebytes`]) inside `root`, following no symlink on the way
/// (see the module doc); `..`, a root or a drive in `rel` are refused.
pub(crate) fn open_beneath(root: &Path, rel: &str) -> Result<(File, Metadata), Refused> {
    let parts: Vec<&str> = rel
        .split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect();
    let Some((last, folders)) = parts.split_last() else {
        return Err(Refused::NotRegular);
    };
    // On Windows a `\\` is a separator and `C:` a drive that `push` would jump to.
    let foreign = |p: &str| cfg!(windows) && (p.contains('\\') || p.contains(':'));
    if parts.iter().any(|p| *p == ".." || foreign(p)) {
        return Err(Refused::NotRegular);
    }
    #[cfg(unix)]
    {
        let dir = unix::open_folder(root, folders.iter().map(|f| unspell(f)))?;
        unix::open_in(&dir, unspell(last))
    }
    #[cfg(not(unix))]
    {
        let _ = (last, folders);
        open_regular(&crate::paths::join_rel(root, rel))
    }
}

/// Opens files beneath one root by their `/`-separated relative paths as [`open_beneath`]
/// does, keeping the handle of the last folder: the indexer reads a vault folder by folder, so
/// each folder on the way is opened once per folder instead of once per note, and each note by
/// its name alone, not its whole path (the path lookups were 3 % of a full build's CPU).
/// Paths that are not plain (`.`, `..`, empty components) take [`open_beneath`]'s way.
pub(crate) struct Beneath<'a> {
    root: &'a Path,
    #[cfg(unix)]
    folder: Option<(String, rustix::fd::OwnedFd)>,
}

impl<'a> Beneath<'a> {
    pub(crate) fn new(root: &'a Path) -> Self {
        Beneath {
            root,
            #[cfg(unix)]
            folder: None,
        }
    }

    /// [`read_regular`] of `rel` beneath the root.
    pub(crate) fn read(&mut self, rel: &str, cap: u64) -> Result<(Vec<u8>, Metadata), Refused> {
        let (file, md) = self.open(rel)?;
        read_capped(file, md, cap)
    }

    /// [`read_regular`] of `path`, a file below the root whose name is not UTF-8 (on Windows
    /// no `/`-separated `rel` spells it, see [`crate::paths::namebytes`]): opened folder by
    /// folder from the root by its raw components, as [`Beneath::open`] opens the others, so
    /// a folder on its way swapped for a symlink is refused too. Not through the kept folder:
    /// such names are rare. On Windows, where a name reaches here only with an unpaired
    /// surrogate, `read_regular` of the path (see the module doc: the folders on the way are
    /// not checked there).
    pub(crate) fn read_raw(
        &mut self,
        path: &Path,
        cap: u64,
    ) -> Result<(Vec<u8>, Metadata), Refused> {
        #[cfg(unix)]
        {
            use std::path::Component;
            let rel = path
                .strip_prefix(self.root)
                .map_err(|_| Refused::NotRegular)?;
            let mut parts = Vec::new();
            for c in rel.components() {
                match c {
                    Component::Normal(p) => parts.push(p),
                    _ => return Err(Refused::NotRegular),
                }
            }
            let Some((last, folders)) = parts.split_last() else {
                return Err(Refused::NotRegular);
            };
            let dir = unix::open_folder(self.root, folders.iter().copied())?;
            let (file, md) = unix::open_in(&dir, *last)?;
            read_capped(file, md, cap)
        }
        #[cfg(not(unix))]
        {
            read_regular(path, cap)
        }
    }

    /// [`open_beneath`] of `rel`, through the kept folder handle when it is the same folder.
    pub(crate) fn open(&mut self, rel: &str) -> Result<(File, Metadata), Refused> {
        #[cfg(unix)]
        {
            let plain = !rel.is_empty()
                && !rel.starts_with('/')
                && !rel.ends_with('/')
                && rel
                    .split('/')
                    .all(|p| !p.is_empty() && p != "." && p != "..");
            if !plain {
                return open_beneath(self.root, rel);
            }
            let (folder, name) = rel.rsplit_once('/').unwrap_or(("", rel));
            let dir = match &mut self.folder {
                Some((f, dir)) if f == folder => &*dir,
                slot => {
                    *slot = None;
                    let parts = folder.split('/').filter(|p| !p.is_empty()).map(unspell);
                    let dir = unix::open_folder(self.root, parts)?;
                    &slot.insert((folder.to_string(), dir)).1
                }
            };
            unix::open_in(dir, unspell(name))
        }
        #[cfg(not(unix))]
        {
            open_beneath(self.root, rel)
        }
    }
}

#[cfg(unix)]
mod unix {
    use std::fs::{File, Metadata};

    use rustix::fd::OwnedFd;
    use rustix::fs::{openat, Mode, OFlags, CWD};
    use rustix::io::Errno;

    use crate::fsread::Refused;

    fn refused(e: Errno) -> Refused {
        match e {
            Errno::LOOP | Errno::NOTDIR => Refused::NotRegular,
            e => Refused::Io(e.into()),
        }
    }

    /// The folder `root/a/b/…` for `folders` = `a`, `b`, …, each opened from the one above
    /// without following a symlink (the root itself may be one: it is the caller's vault).
    pub(super) fn open_folder<P: rustix::path::Arg>(
        root: &std::path::Path,
        folders: impl Iterator<Item = P>,
    ) -> Result<OwnedFd, Refused> {
        let dir_flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        let mut dir = openat(CWD, root, dir_flags, Mode::empty()).map_err(refused)?;
        for folder in folders {
            dir = openat(&dir, folder, dir_flags | OFlags::NOFOLLOW, Mode::empty())
                .map_err(refused)?;
        }
        Ok(dir)
    }

    /// The regular file `name` in `dir`, not through a symlink, with its handle's metadata.
    pub(super) fn open_in<P: rustix::path::Arg>(
        dir: &OwnedFd,
        name: P,
    ) -> Result<(File, Metadata), Refused> {
        let flags =
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
        let file = File::from(openat(dir, name, flags, Mode::empty()).map_err(refused)?);
        let md = file.metadata().map_err(Refused::Io)?;
        if !md.is_file() {
            return Err(Refused::NotRegular);
        }
        Ok((file, md))
    }
}

/// The bytes of the regular file at `path` if it holds at most `cap` of them (see the module
/// doc for what is refused), with the opened file's metadata.
pub(crate) fn read_regular(path: &Path, cap: u64) -> Result<(Vec<u8>, Metadata), Refused> {
    let (file, md) = open_regular(path)?;
    read_capped(file, md, cap)
}

/// At most `cap` bytes of an opened regular file: refused when its stat or its bytes say more.
fn read_capped(file: File, md: Metadata, cap: u64) -> Result<(Vec<u8>, Metadata), Refused> {
    if md.len() > cap {
        return Err(Refused::TooLarge(md.len()));
    }
    // Sized from the handle's stat (and one byte to tell a file that grew past it).
    let mut bytes = Vec::with_capacity(usize::try_from(md.len()).unwrap_or(0) + 1);
    let mut file = file.take(cap.saturating_add(1));
    // The size the handle's stat gave is read first, and when all of it came no read is
    // spent finding the end (a note is one read, not two). Bytes appended since that stat
    // are left out: they changed the mtime, so the next run reads the file again.
    (&mut file)
        .take(md.len())
        .read_to_end(&mut bytes)
        .map_err(Refused::Io)?;
    if (bytes.len() as u64) < md.len() {
        file.read_to_end(&mut bytes).map_err(Refused::Io)?;
    }
    if bytes.len() as u64 > cap {
        return Err(Refused::TooLarge(bytes.len() as u64));
    }
    Ok((bytes, md))
}

/// [`read_regular`] of `rel` inside `root`, through [`open_beneath`].
pub(crate) fn read_beneath(
    root: &Path,
    rel: &str,
    cap: u64,
) -> Result<(Vec<u8>, Metadata), Refused> {
    let (file, md) = open_beneath(root, rel)?;
    read_capped(file, md, cap)
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
    #[test]
    fn beneath_keeps_the_folder_and_still_refuses_symlinks_on_the_way() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("vault");
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::create_dir_all(root.join("c")).unwrap();
        std::fs::write(root.join("a/b/n.md"), "one").unwrap();
        std::fs::write(root.join("a/b/m.md"), "two").unwrap();
        std::fs::write(root.join("c/x.md"), "three").unwrap();
        std::fs::write(root.join("top.md"), "four").unwrap();
        std::fs::write(dir.path().join("outside.md"), "secret").unwrap();
        let mut b = Beneath::new(&root);
        let mut read = |rel: &str| b.read(rel, 10).map(|(bytes, _)| bytes);
        assert_eq!(read("a/b/n.md").unwrap(), b"one");
        assert_eq!(read("a/b/m.md").unwrap(), b"two");
        assert_eq!(read("c/x.md").unwrap(), b"three");
        assert_eq!(read("top.md").unwrap(), b"four");
        assert_eq!(read("./a//b/n.md").unwrap(), b"one");
        assert!(matches!(read("a/b/gone.md"), Err(Refused::Io(_))));
        assert!(matches!(read("a/b"), Err(Refused::NotRegular)));
        for bad in ["../outside.md", "a/../../outside.md", "", "/outside.md"] {
            assert!(read(bad).is_err(), "{bad}");
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.path(), root.join("up")).unwrap();
            assert!(matches!(read("up/outside.md"), Err(Refused::NotRegular)));
            std::os::unix::fs::symlink(dir.path().join("outside.md"), root.join("c/l.md")).unwrap();
            assert!(matches!(read("c/l.md"), Err(Refused::NotRegular)));
            // A folder swapped for a symlink after it was read from: the swap is refused.
            std::fs::rename(root.join("c"), root.join("c-old")).unwrap();
            std::os::unix::fs::symlink(dir.path(), root.join("c")).unwrap();
            assert_eq!(read("a/b/n.md").unwrap(), b"one");
            assert!(matches!(read("c/outside.md"), Err(Refused::NotRegular)));
        }
    }

    /// A folder and a note whose names are not UTF-8 are opened by their spelling (see
    /// `paths::namebytes`), through the kept folder too; the U+FFFD of a lossy spelling names
    /// no file.
    #[cfg(target_os = "linux")]
    #[test]
    fn opens_names_that_are_not_utf8_by_their_spelling() {
        use std::os::unix::ffi::OsStrExt;
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join(std::ffi::OsStr::from_bytes(b"d\xfcr"));
        std::fs::create_dir(&folder).unwrap();
        std::fs::write(
            folder.join(std::ffi::OsStr::from_bytes(b"caf\xe9.md")),
            "one",
        )
        .unwrap();
        std::fs::write(folder.join("plain.md"), "two").unwrap();
        let spelt = "d\u{effc}r/caf\u{efe9}.md";
        assert_eq!(read_beneath(dir.path(), spelt, 10).unwrap().0, b"one");
        let mut b = Beneath::new(dir.path());
        assert_eq!(b.read("d\u{effc}r/plain.md", 10).unwrap().0, b"two");
        assert_eq!(b.read(spelt, 10).unwrap().0, b"one");
        assert!(matches!(
            b.read("d\u{fffd}r/caf\u{fffd}.md", 10),
            Err(Refused::Io(_))
        ));
    }

    #[test]
    fn opens_beneath_the_root_without_following_a_symlink_on_the_way() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("vault");
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::write(root.join("a/b/n.md"), "hello").unwrap();
        std::fs::write(dir.path().join("outside.md"), "secret").unwrap();
        assert_eq!(read_beneath(&root, "a/b/n.md", 10).unwrap().0, b"hello");
        assert_eq!(read_beneath(&root, "./a//b/n.md", 10).unwrap().0, b"hello");
        assert!(matches!(
            read_beneath(&root, "a/b/n.md", 4),
            Err(Refused::TooLarge(5))
        ));
        for bad in ["../outside.md", "a/../../outside.md", "", "a"] {
            assert!(read_beneath(&root, bad, 10).is_err(), "{bad}");
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.path(), root.join("up")).unwrap();
            assert!(matches!(
                read_beneath(&root, "up/outside.md", 10),
                Err(Refused::NotRegular)
            ));
            // The root itself may be reached through a symlink: it is the caller's vault.
            let alias = dir.path().join("alias");
            std::os::unix::fs::symlink(&root, &alias).unwrap();
            assert_eq!(read_beneath(&alias, "a/b/n.md", 10).unwrap().0, b"hello");
        }
    }
}
