//! Lists a vault's Markdown notes fast: a parallel directory walk that stats each file
//! relative to its directory (`DirEntry::metadata`, an `fstatat` on the open directory on
//! Linux) instead of resolving the full path again.
//!
//! Rules: symlinks are never followed (neither to files nor to directories, so a link can't
//! leak a file from outside the vault or loop); directories whose name starts with `.`
//! (`.obsidian`, `.git`, `.trash`) are skipped; files ending in `.md` (any case) are notes.
//! Entries that can't be listed or stat'ed are reported, not fatal.

use std::collections::VecDeque;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex};

use crate::output::SkippedFile;
use crate::store;

/// A Markdown file found on disk.
#[derive(Debug, Clone)]
pub struct DiskNote {
    /// Vault-relative path with `/` separators.
    pub rel: String,
    pub abs: PathBuf,
    pub size: u64,
    pub mtime_ns: i64,
}

/// Is this file name a Markdown note (`.md`, any case)?
pub fn is_markdown(name: &str) -> bool {
    name.len() > 3
        && name.is_char_boundary(name.len() - 3)
        && name[name.len() - 3..].eq_ignore_ascii_case(".md")
}

struct Queue {
    dirs: VecDeque<(PathBuf, String)>,
    busy: usize,
}

/// Every note below `vault`, and the entries that could not be read.
pub fn walk(vault: &Path) -> (Vec<DiskNote>, Vec<SkippedFile>) {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 4);
    let queue = Mutex::new(Queue {
        dirs: VecDeque::from([(vault.to_path_buf(), String::new())]),
        busy: 0,
    });
    let ready = Condvar::new();
    let results: Vec<(Vec<DiskNote>, Vec<SkippedFile>)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| s.spawn(|| worker(&queue, &ready)))
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().unwrap_or_default())
            .collect()
    });
    let mut notes = Vec::new();
    let mut skipped = Vec::new();
    for (n, s) in results {
        notes.extend(n);
        skipped.extend(s);
    }
    (notes, skipped)
}

fn worker(queue: &Mutex<Queue>, ready: &Condvar) -> (Vec<DiskNote>, Vec<SkippedFile>) {
    let mut notes = Vec::new();
    let mut skipped = Vec::new();
    loop {
        let next = {
            let Ok(mut q) = queue.lock() else {
                break;
            };
            loop {
                if let Some(d) = q.dirs.pop_front() {
                    q.busy += 1;
                    break Some(d);
                }
                if q.busy == 0 {
                    break None;
                }
                q = match ready.wait(q) {
                    Ok(q) => q,
                    Err(_) => return (notes, skipped),
                };
            }
        };
        let Some((dir, rel)) = next else {
            ready.notify_all();
            break;
        };
        let mut subdirs = Vec::new();
        list_dir(&dir, &rel, &mut subdirs, &mut notes, &mut skipped);
        if let Ok(mut q) = queue.lock() {
            q.dirs.extend(subdirs);
            q.busy -= 1;
        }
        ready.notify_all();
    }
    (notes, skipped)
}

fn join_rel(rel: &str, name: &str) -> String {
    if rel.is_empty() {
        name.to_string()
    } else {
        format!("{rel}/{name}")
    }
}

fn list_dir(
    dir: &Path,
    rel: &str,
    subdirs: &mut Vec<(PathBuf, String)>,
    notes: &mut Vec<DiskNote>,
    skipped: &mut Vec<SkippedFile>,
) {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            skipped.push(SkippedFile {
                path: rel.to_string(),
                reason: format!("cannot list: {e}"),
            });
            return;
        }
    };
    for entry in entries {
        let Ok(entry) = entry else { continue };
        let name_os = entry.file_name();
        let name = name_os.to_string_lossy();
        let Ok(ft) = entry.file_type() else { continue };
        if ft.is_dir() {
            if !name.starts_with('.') {
                subdirs.push((entry.path(), join_rel(rel, &name)));
            }
        } else if ft.is_file() && is_markdown(&name) {
            let rel = join_rel(rel, &name);
            match entry.metadata() {
                Ok(md) => notes.push(DiskNote {
                    rel,
                    abs: entry.path(),
                    size: md.len(),
                    mtime_ns: md.modified().map_or(0, store::system_time_ns),
                }),
                // Deleted between the listing and the stat: simply not there any more.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => skipped.push(SkippedFile {
                    path: rel,
                    reason: format!("cannot stat: {e}"),
                }),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_names() {
        assert!(is_markdown("a.md"));
        assert!(is_markdown("A.MD"));
        assert!(!is_markdown(".md"));
        assert!(!is_markdown("a.mdx"));
        assert!(!is_markdown("é.m"));
    }
}
