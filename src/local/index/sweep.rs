//! Segment files no commit names, left by a process killed mid-update, removed by the next
//! update.
//!
//! tantivy deletes only the files it listed in `.managed.json`, and [`super::unsynced`] writes
//! that list once per commit: a process killed after an update or a merge wrote its segment
//! files but before the commit that lists them (a service manager's hard stop, a shutdown, a
//! crash) leaves them on the disk, unlisted and never deleted — a merge's at 100,000 notes is
//! over 100 MB, and a `serve` left running for years is stopped that way many times. So when
//! an update opens the writer (whose lock no other process can hold meanwhile, so nothing is
//! being written), every file named like a segment's (32 hex digits, a dot) that is not one of
//! the files of the committed segments goes. That is the rule of tantivy's own collection,
//! which also removes what no commit names; a reader of an older commit elsewhere keeps what it
//! has open on Unix, and on Windows the file stays until a later update (removal is best
//! effort: a file that can't be removed now is tried again next time).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use tantivy::Index;

/// Removes the segment files in `dir` that `index`'s last commit does not name; how many
/// went. Call with the index's writer lock held.
pub(super) fn unlisted(index: &Index, dir: &Path) -> usize {
    let Ok(meta) = index.load_metas() else {
        return 0;
    };
    let living: HashSet<PathBuf> = meta.list_segment_files();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            continue;
        };
        if is_segment_file(name)
            && !living.contains(Path::new(name))
            && entry.file_type().is_ok_and(|t| t.is_file())
            && std::fs::remove_file(entry.path()).is_ok()
        {
            removed += 1;
        }
    }
    removed
}

/// `<segment id>.<kind>` (or `.<opstamp>.del`): the id is 32 lowercase hex digits.
fn is_segment_file(name: &str) -> bool {
    let b = name.as_bytes();
    b.len() > 33
        && b[32] == b'.'
        && b[..32]
            .iter()
            .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{IndexOptions, NoProgress};

    #[test]
    fn an_update_removes_what_a_killed_one_left_and_keeps_the_commit() {
        let dir = tempfile::tempdir().unwrap();
        let vault = dir.path().join("vault");
        std::fs::create_dir(&vault).unwrap();
        std::fs::write(vault.join("a.md"), "alpha\n").unwrap();
        let opts = IndexOptions::new(&vault, dir.path().join("cache"));
        let report = crate::local::index(&opts, &NoProgress).unwrap();
        let idx = PathBuf::from(&report.index_dir);
        let names = || -> HashSet<String> {
            std::fs::read_dir(&idx)
                .unwrap()
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect()
        };
        let before = names();
        // What an update or a merge killed before its commit leaves: segment files no commit
        // names, and unlisted in `.managed.json`.
        let orphans = [
            "0123456789abcdef0123456789abcdef.idx",
            "0123456789abcdef0123456789abcdef.store",
            "fedcba9876543210fedcba9876543210.7.del",
        ];
        for o in orphans {
            std::fs::write(idx.join(o), b"left over").unwrap();
        }
        std::fs::write(vault.join("b.md"), "beta\n").unwrap();
        let report = crate::local::index(&opts, &NoProgress).unwrap();
        assert_eq!(
            PathBuf::from(&report.index_dir),
            idx,
            "an update, not a rebuild"
        );
        let after = names();
        for o in orphans {
            assert!(!after.contains(o), "{o} is still there");
        }
        // The commit's files and ours stay (the update may have merged, never swept a file
        // of the commit it opened on).
        for keep in ["meta.json", "vault-search-intact"] {
            assert!(before.contains(keep) && after.contains(keep), "{keep}");
        }
        let index = tantivy::Index::open_in_dir(&idx).unwrap();
        let living: HashSet<String> = index
            .load_metas()
            .unwrap()
            .list_segment_files()
            .into_iter()
            .map(|p| p.to_string_lossy().into_owned())
            .filter(|p| after.contains(p) || !p.ends_with(".del"))
            .collect();
        assert!(!living.is_empty() && living.is_subset(&after));
        assert_eq!(report.notes, 2);
    }

    #[test]
    fn segment_files_are_told_by_their_names() {
        assert!(is_segment_file("2a9323b8d5f846839c60c5c8c7af729a.store"));
        assert!(is_segment_file("2a9323b8d5f846839c60c5c8c7af729a.12.del"));
        for other in [
            "meta.json",
            ".managed.json",
            ".tantivy-writer.lock",
            "vault-search-intact",
            "2a9323b8d5f846839c60c5c8c7af729a",
            "2A9323B8D5F846839C60C5C8C7AF729A.store",
            "2a9323b8d5f846839c60c5c8c7af729.store",
        ] {
            assert!(!is_segment_file(other), "{other}");
        }
    }
}
