//! The files of a vault the index does not hold — images, audio, any attachment — listed only
//! when a link names one. The index holds notes, canvases and (unless left out) PDFs, so that
//! is where a link to a note is resolved; a link whose file name has another extension
//! (`![[diagram.png]]`) can only be confirmed by the disk. The listing follows the walk's
//! rules (see `crate::local::index::walk`): symlinks are not followed, files and folders whose
//! name starts with `.` are skipped (Obsidian hides them), and a name that is not UTF-8 is
//! spelled as the index spells it (`crate::paths::namebytes`). It reads directories only, no
//! file is stat'ed or opened.

use std::path::Path;

/// The extensions of attachments: Obsidian's accepted formats (its Help, "Accepted file
/// formats": images, audio, video, PDF) and the office, e-book and archive files vaults keep
/// beside them. A target with another extension (`[[Node.js]]`, `[[v1.2]]`) would be a note.
const ATTACHMENTS: &[&str] = &[
    "avif", "bmp", "gif", "heic", "ico", "jpeg", "jpg", "png", "svg", "tif", "tiff",
    "webp", //
    "3gp", "aac", "flac", "m4a", "mp3", "ogg", "opus", "wav", "webm", //
    "mkv", "mov", "mp4", "ogv", "pdf", //
    "csv", "doc", "docx", "epub", "odp", "ods", "odt", "ppt", "pptx", "rtf", "xls", "xlsx", //
    "7z", "gz", "rar", "tar", "zip",
];

/// Whether a link's target names an attachment (by its extension, see [`ATTACHMENTS`]).
pub(super) fn is_attachment(target: &str) -> bool {
    let name = target.rsplit('/').next().unwrap_or(target);
    name.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty() && ATTACHMENTS.iter().any(|a| a.eq_ignore_ascii_case(ext))
    })
}

/// At most this many files are listed (a vault with more attachments leaves the rest
/// unresolved rather than spend unbounded time and memory).
const MAX_FILES: usize = 2_000_000;

/// Every file below `vault` as a vault-relative `/`-separated path, in the index's spelling;
/// folders that can't be read are left out.
pub(super) fn list(vault: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack: Vec<(std::path::PathBuf, String)> = vec![(vault.to_path_buf(), String::new())];
    while let Some((dir, rel)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = crate::paths::namebytes::spell(&entry.file_name()).into_owned();
            if name.starts_with('.') {
                continue;
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let child = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            if kind.is_dir() {
                stack.push((entry.path(), child));
            } else if kind.is_file() {
                out.push(child);
                if out.len() >= MAX_FILES {
                    return out;
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_files_skips_dot_files_and_folders() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("a/b")).unwrap();
        std::fs::create_dir_all(dir.path().join(".obsidian")).unwrap();
        std::fs::write(dir.path().join("a/b/pic.png"), b"x").unwrap();
        std::fs::write(dir.path().join(".obsidian/app.json"), b"{}").unwrap();
        std::fs::write(dir.path().join("n.md"), b"x").unwrap();
        std::fs::write(dir.path().join("a/.hidden.png"), b"x").unwrap();
        let mut got = list(dir.path());
        got.sort();
        assert_eq!(got, ["a/b/pic.png", "n.md"]);
    }
}
