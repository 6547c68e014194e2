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
    /// The exact path, kept only when the file name is not valid UTF-8 (then `rel` is lossy).
    pub raw_path: Option<PathBuf>,
    pub size: u64,
    pub mtime_ns: i64,
}

impl DiskNote {
    /// Where to read the note.
    pub fn path(&self, vault: &Path) -> PathBuf {
        match &self.raw_path {
            Some(p) => p.clone(),
            None => vault.join(&self.rel),
        }
    }
}

/// Is this file name a Markdown note (`.md`, any case)?
pub fn is_markdown(name: &str) -> bool {
    name.len() > 3
        && name.is_char_boundary(name.len() - 3)
        && name[name.len() - 3..].eq_ignore_ascii_case(".md")
}

/// A unit of work: list a directory, or stat a batch of its Markdown entries (so the files of
/// one big directory are stat'ed by all threads, not one).
enum Work {
    List(PathBuf, String),
    Stat(String, Vec<(fs::DirEntry, std::ffi::OsString)>),
}

/// Files stat'ed per work item.
const STAT_BATCH: usize = 256;

struct Queue {
    work: VecDeque<Work>,
    busy: usize,
}

/// Every note below `vault`, and the entries that could not be read.
pub fn walk(vault: &Path) -> (Vec<DiskNote>, Vec<SkippedFile>) {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 8);
    let queue = Mutex::new(Queue {
        work: VecDeque::from([Work::List(vault.to_path_buf(), String::new())]),
        busy: 0,
    });
    let ready = Condvar::new();
    let results: Vec<(Vec<DiskNote>, Vec<SkippedFile>)> = std::thread::scope(|s| {
        let helpers: Vec<_> = (1..threads)
            .map(|_| s.spawn(|| worker(&queue, &ready)))
            .collect();
        let mut all = vec![worker(&queue, &ready)];
        all.extend(helpers.into_iter().map(|w| w.join().unwrap_or_default()));
        all
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
                if let Some(w) = q.work.pop_front() {
                    q.busy += 1;
                    break Some(w);
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
        let Some(work) = next else {
            ready.notify_all();
            break;
        };
        let mut more = Vec::new();
        match work {
            Work::List(dir, rel) => list_dir(&dir, &rel, &mut more, &mut skipped),
            Work::Stat(rel, entries) => stat_all(&rel, entries, &mut notes, &mut skipped),
        }
        if let Ok(mut q) = queue.lock() {
            q.work.extend(more);
            q.busy -= 1;
        }
        ready.notify_all();
    }
    (notes, skipped)
}

fn join_rel(rel: &str, name: &str) -> String {
    let mut s = String::with_capacity(rel.len() + 1 + name.len());
    if !rel.is_empty() {
        s.push_str(rel);
        s.push('/');
    }
    s.push_str(name);
    s
}

fn list_dir(dir: &Path, rel: &str, more: &mut Vec<Work>, skipped: &mut Vec<SkippedFile>) {
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
    let mut batch = Vec::new();
    for entry in entries {
        let Ok(entry) = entry else { continue };
        let Ok(ft) = entry.file_type() else { continue };
        if ft.is_dir() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if !name.starts_with('.') {
                more.push(Work::List(entry.path(), join_rel(rel, &name)));
            }
        } else if ft.is_file() {
            let name = entry.file_name();
            if is_markdown(&name.to_string_lossy()) {
                batch.push((entry, name));
            }
            if batch.len() == STAT_BATCH {
                more.push(Work::Stat(rel.to_string(), std::mem::take(&mut batch)));
            }
        }
    }
    if !batch.is_empty() {
        more.push(Work::Stat(rel.to_string(), batch));
    }
}

fn stat_all(
    rel: &str,
    entries: Vec<(fs::DirEntry, std::ffi::OsString)>,
    notes: &mut Vec<DiskNote>,
    skipped: &mut Vec<SkippedFile>,
) {
    for (entry, name_os) in entries {
        let rel = join_rel(rel, &name_os.to_string_lossy());
        match entry.metadata() {
            Ok(md) => notes.push(DiskNote {
                raw_path: name_os.to_str().is_none().then(|| entry.path()),
                rel,
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
