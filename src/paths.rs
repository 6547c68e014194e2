//! File-system paths as every platform needs them. Note paths are vault-relative and
//! `/`-separated everywhere (index, JSON, MCP, Omnisearch); turning one into a file path, and
//! resolving the vault itself, is done here so no call site depends on the platform's rules:
//!
//! - On Windows, `fs::canonicalize` returns a verbatim path (`\\?\C:\Vault`). Windows passes a
//!   verbatim path to the file system unparsed, so `/` in it is not a separator: joining
//!   `sub/note.md` onto it names no file. [`join_rel`] therefore pushes one component at a
//!   time, and [`canonicalize`] gives the plain form (`C:\Vault`) whenever that names the same
//!   file, which is also what users see in messages, config snippets and the skill.
//! - On Unix both are the std functions' results: `/` already is the separator, and
//!   `canonicalize` has no other form.
//!
//! A name that is not UTF-8 has a spelling of its own in a note path ([`namebytes`]); the
//! functions here that turn a note path into a file path read it back.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

pub(crate) mod namebytes;

/// `root` joined with the `/`-separated vault-relative `rel`, one component at a time (empty
/// and `.` segments skipped), each read back from its spelling (see [`namebytes`]). The caller
/// has checked `rel` for `..` and roots where that matters. On Windows a name that the plain
/// path syntax would change (see [`verbatim`]) makes the whole path verbatim.
pub(crate) fn join_rel(root: &Path, rel: &str) -> PathBuf {
    let segs = rel.split('/').filter(|s| !s.is_empty() && *s != ".");
    let mut p = if cfg!(windows) && segs.clone().any(|s| !plain_name_ok(s)) {
        verbatim(root)
    } else {
        root.to_path_buf()
    };
    for seg in segs {
        p.push(&*namebytes::unspell(seg));
    }
    p
}

/// `path` in the form Windows passes to the file system unparsed (`\\?\C:\…`,
/// `\\?\UNC\server\share\…`), so names under it that the plain syntax would change are
/// reached as they are on disk: a reserved device name (`aux.md`, `con`, `com1.txt` name
/// devices in a plain path) and a name ending in a dot or a space (trimmed in a plain path).
/// `path` itself is made absolute first. Unchanged on Unix, or when it is verbatim already or
/// can't be made absolute.
pub(crate) fn verbatim(path: &Path) -> PathBuf {
    if !cfg!(windows) {
        return path.to_path_buf();
    }
    let Ok(abs) = std::path::absolute(path) else {
        return path.to_path_buf();
    };
    let Some(s) = abs.to_str() else {
        return abs;
    };
    if s.starts_with(r"\\?\") || s.starts_with(r"\\.\") {
        abs
    } else if let Some(unc) = s.strip_prefix(r"\\") {
        PathBuf::from(format!(r"\\?\UNC\{unc}"))
    } else if s.as_bytes().get(1) == Some(&b':') {
        PathBuf::from(format!(r"\\?\{s}"))
    } else {
        abs
    }
}

/// Whether a plain Windows path names the file `seg` as it is spelt: no reserved device name
/// (`CON`, `PRN`, `AUX`, `NUL`, `COM0`–`COM9`, `LPT0`–`LPT9`, with any extension), no dot or
/// space at the end.
fn plain_name_ok(seg: &str) -> bool {
    let stem = seg.split('.').next().unwrap_or(seg).trim_end();
    let reserved = ["CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"]
        .iter()
        .any(|r| stem.eq_ignore_ascii_case(r))
        || (stem.len() == 4
            && stem
                .get(..3)
                .is_some_and(|head| ["COM", "LPT"].iter().any(|r| head.eq_ignore_ascii_case(r)))
            && stem.as_bytes()[3].is_ascii_digit());
    !reserved && !seg.ends_with(['.', ' '])
}

/// The vault folder `rel` (`/`-separated) as it is spelt on disk: a segment that is no entry
/// of its parent as typed takes the one entry that differs from it only in case. Unchanged
/// when a segment matches nothing, or more than one entry (`Notes` and `notes` side by side on
/// a case-sensitive disk), or the folder can't be read.
pub(crate) fn as_on_disk(vault: &Path, rel: &str) -> String {
    let mut dir = vault.to_path_buf();
    let mut out: Vec<String> = Vec::new();
    for seg in rel.split('/') {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return rel.to_string();
        };
        let lower = seg.to_lowercase();
        let mut exact = false;
        let mut folded: Vec<String> = Vec::new();
        for e in entries.flatten() {
            let name = namebytes::spell(&e.file_name()).into_owned();
            if name == seg {
                exact = true;
                break;
            }
            if name.to_lowercase() == lower {
                folded.push(name);
            }
        }
        let name = match (exact, folded.len()) {
            (true, _) => seg.to_string(),
            (false, 1) => folded.remove(0),
            _ => return rel.to_string(),
        };
        dir.push(&*namebytes::unspell(&name));
        out.push(name);
    }
    out.join("/")
}

/// `fs::canonicalize`, without Windows' verbatim prefix when the plain path names the same
/// file (see the module docs).
pub(crate) fn canonicalize(path: &Path) -> std::io::Result<PathBuf> {
    let real = path.canonicalize()?;
    if cfg!(windows) {
        if let Some(plain) = real.to_str().and_then(plain_windows_path) {
            return Ok(PathBuf::from(plain));
        }
    }
    Ok(real)
}

// Only the front-ends that read notes by a path a client names use it.
#[cfg(any(feature = "mcp", feature = "serve"))]
/// The real path of the folder `root` (symlinks followed), in the spelling [`real_inside`]
/// compares with: on Windows always the verbatim one.
pub(crate) fn real_root(root: &Path) -> std::io::Result<PathBuf> {
    root.canonicalize()
}

// Only the front-ends that read notes by a path a client names use it.
#[cfg(any(feature = "mcp", feature = "serve"))]
/// The real path of `rel` (`/`-separated, spelt as [`namebytes`] says) inside the folder whose [`real_root`] is `real_root`,
/// symlinks followed; `None` when that leads out of it. With no symlink (nor junction) on the
/// way the path is its own real path, inside by construction; only one through a link is
/// resolved with `fs::canonicalize` and compared with `real_root` in the same spelling (on
/// Windows the plain form of a path exists only up to 260 characters, so a deeper note's
/// verbatim path would never start with a plain vault path). The answer is plain when that
/// names the same file (see [`canonicalize`]).
pub(crate) fn real_inside(real_root: &Path, rel: &str) -> std::io::Result<Option<PathBuf>> {
    let mut path = real_root.to_path_buf();
    let mut linked = false;
    for seg in rel.split('/').filter(|s| !s.is_empty() && *s != ".") {
        path.push(&*namebytes::unspell(seg));
        linked = linked || std::fs::symlink_metadata(&path)?.file_type().is_symlink();
    }
    if linked {
        path = path.canonicalize()?;
        if !path.starts_with(real_root) {
            return Ok(None);
        }
    }
    if cfg!(windows) {
        if let Some(plain) = path.to_str().and_then(plain_windows_path) {
            return Ok(Some(PathBuf::from(plain)));
        }
    }
    Ok(Some(path))
}

/// The non-verbatim spelling of a Windows verbatim path: `\\?\C:\x` → `C:\x`,
/// `\\?\UNC\server\share\x` → `\\server\share\x`. `None` when there is no prefix to remove
/// or the plain path would be parsed differently (a name Windows reserves, one ending in a dot
/// or space, `/`, or a path beyond the classic 260-character limit).
fn plain_windows_path(verbatim: &str) -> Option<String> {
    let rest = verbatim.strip_prefix(r"\\?\")?;
    let (plain, tail) = if let Some(unc) = rest.strip_prefix(r"UNC\") {
        (format!(r"\\{unc}"), unc)
    } else {
        let b = rest.as_bytes();
        let drive = b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && b[2] == b'\\';
        if !drive {
            return None;
        }
        (rest.to_string(), &rest[3..])
    };
    if plain.len() >= 260 || tail.contains('/') {
        return None;
    }
    let ok = tail
        .split('\\')
        .filter(|s| !s.is_empty())
        .all(plain_name_ok);
    ok.then_some(plain)
}

/// The absolute path of the running binary (what the skill's `allowed-tools` pre-approves and
/// the MCP setup snippets name).
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub(crate) fn binary_path() -> Result<PathBuf> {
    let exe = std::env::current_exe().context("cannot find the path of this binary")?;
    Ok(canonicalize(&exe).unwrap_or(exe))
}

/// A path as a shell command names it: on Windows with `/` separators, which Git Bash (where
/// `\` is an escape character), PowerShell and `cmd` all accept.
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub(crate) fn slashed(path: &str, windows: bool) -> String {
    if windows {
        path.replace('\\', "/")
    } else {
        path.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_of_four_bytes_ending_in_a_wide_letter_is_no_reserved_name() {
        // `abé` is four bytes with a character across byte 3: no slicing inside it.
        assert_eq!(
            plain_windows_path("\\\\?\\C:\\abé\\n").as_deref(),
            Some("C:\\abé\\n")
        );
    }

    #[test]
    fn a_folder_takes_its_spelling_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        let v = dir.path();
        std::fs::create_dir_all(v.join("Projects/Work Log")).unwrap();
        std::fs::write(v.join("Projects/readme.md"), "x").unwrap();
        assert_eq!(as_on_disk(v, "projects/work log"), "Projects/Work Log");
        assert_eq!(as_on_disk(v, "Projects/Work Log"), "Projects/Work Log");
        // Nothing like it: as typed.
        assert_eq!(as_on_disk(v, "projects/nope"), "projects/nope");
        assert_eq!(as_on_disk(v, "Elsewhere"), "Elsewhere");
    }

    #[test]
    fn rel_paths_join_component_by_component() {
        let root = Path::new("vault");
        let expected: PathBuf = ["vault", "sub", "deeper", "note.md"].iter().collect();
        assert_eq!(join_rel(root, "sub/deeper/note.md"), expected);
        assert_eq!(join_rel(root, "./sub//deeper/note.md"), expected);
        assert_eq!(join_rel(root, "note.md"), root.join("note.md"));
        // Each segment is one component, whatever the platform's separator.
        assert_eq!(join_rel(root, "a/b.md").components().count(), 3);
    }

    #[test]
    fn verbatim_prefix_removed_only_when_safe() {
        let plain = |s: &str| plain_windows_path(s);
        assert_eq!(
            plain(r"\\?\C:\Notes\Vault").as_deref(),
            Some(r"C:\Notes\Vault")
        );
        assert_eq!(plain(r"\\?\d:\").as_deref(), Some(r"d:\"));
        assert_eq!(
            plain(r"\\?\UNC\server\share\Vault").as_deref(),
            Some(r"\\server\share\Vault")
        );
        assert_eq!(plain(r"C:\Notes\me"), None);
        assert_eq!(plain("/srv/notes/Vault"), None);
        assert_eq!(plain(r"\\?\Volume{1234}\x"), None);
        assert_eq!(plain(r"\\?\C:\notes\CON"), None);
        assert_eq!(plain(r"\\?\C:\notes\nul.md"), None);
        assert_eq!(plain(r"\\?\C:\notes\com1.txt"), None);
        assert_eq!(plain(r"\\?\C:\notes\trailing."), None);
        assert_eq!(plain(r"\\?\C:\notes\trailing "), None);
        assert_eq!(plain(r"\\?\C:\a/b"), None);
        assert_eq!(
            plain(r"\\?\C:\notes\console\computer").as_deref(),
            Some(r"C:\notes\console\computer")
        );
        let long = format!(r"\\?\C:\{}", "x".repeat(300));
        assert_eq!(plain(&long), None);
    }

    #[test]
    fn names_a_plain_windows_path_would_change() {
        for bad in [
            "aux.md",
            "CON",
            "Nul.tar.gz",
            "com1.txt",
            "LPT9",
            "Drafts.",
            "Ideas ",
        ] {
            assert!(!plain_name_ok(bad), "{bad}");
        }
        for ok in [
            "console.md",
            "auxiliary.md",
            "com10.md",
            "a.b.md",
            "Notes",
            ".obsidian",
        ] {
            assert!(plain_name_ok(ok), "{ok}");
        }
        let root = Path::new("vault");
        // Ordinary names: the root as given, on every platform.
        assert!(join_rel(root, "Notes/a.md").starts_with(root));
        if cfg!(unix) {
            assert_eq!(join_rel(root, "aux.md"), root.join("aux.md"));
            assert_eq!(verbatim(root), root);
        }
    }

    #[cfg(windows)]
    #[test]
    fn unusual_names_make_the_path_verbatim_on_windows() {
        let p = |s: &str| PathBuf::from(s);
        assert_eq!(verbatim(&p(r"C:\Vault")), p(r"\\?\C:\Vault"));
        assert_eq!(verbatim(&p(r"\\?\C:\Vault")), p(r"\\?\C:\Vault"));
        assert_eq!(
            verbatim(&p(r"\\server\share\Vault")),
            p(r"\\?\UNC\server\share\Vault")
        );
        assert_eq!(join_rel(&p(r"C:\V"), "a/b.md"), p(r"C:\V\a\b.md"));
        assert_eq!(join_rel(&p(r"C:\V"), "a/aux.md"), p(r"\\?\C:\V\a\aux.md"));
        assert_eq!(
            join_rel(&p(r"C:\V"), "Drafts./x.md"),
            p(r"\\?\C:\V\Drafts.\x.md")
        );
        assert!(verbatim(Path::new("relative")).is_absolute());
    }

    #[test]
    fn canonicalize_is_std_on_unix() {
        let dir = tempfile::tempdir().unwrap();
        let got = canonicalize(dir.path()).unwrap();
        if cfg!(unix) {
            assert_eq!(got, dir.path().canonicalize().unwrap());
        }
        assert!(got.is_absolute());
    }

    #[test]
    fn windows_commands_use_forward_slashes() {
        assert_eq!(
            slashed(r"C:\Tools\bin\vault-search.exe", true),
            "C:/Tools/bin/vault-search.exe"
        );
        // On Unix a backslash is part of a file name.
        assert_eq!(slashed(r"/opt/odd\name", false), r"/opt/odd\name");
    }
}
