//! The hit notes `/search` reads for every answer (to report each match with its offset),
//! kept with their tokens while their files don't change.
//!
//! An answer holds up to 50 notes; reading and tokenizing each again was a sixth of a
//! request's time on a 7,000-note vault, and every open wakes the file watcher too (inotify
//! reports opens). A note is kept under its file's state (length, mtime, inode): a stat per
//! hit tells whether the copy is still the file. Bounded in notes and bytes, oldest out first;
//! a note over [`MAX_NOTE_BYTES`] is read each time, not kept.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use tantivy::tokenizer::{TextAnalyzer, TokenStream};

use crate::paths;

/// Notes kept at most.
const MAX_NOTES: usize = 512;
/// Text kept at most, all notes together (tokens count about as much again).
const MAX_BYTES: usize = 8 << 20;
/// A note larger than this is not kept.
const MAX_NOTE_BYTES: usize = 256 << 10;

/// One token of a note as the index's analyzer reads it.
#[derive(Debug)]
pub(crate) struct Token {
    pub(crate) from: usize,
    pub(crate) to: usize,
    pub(crate) text: Box<str>,
}

/// A note's text and its tokens.
#[derive(Debug)]
pub(crate) struct Note {
    pub(crate) text: String,
    /// `None` for a note over [`MAX_NOTE_BYTES`]: its thousands of tokens are streamed, not
    /// held.
    pub(crate) tokens: Option<Vec<Token>>,
}

impl Note {
    pub(crate) fn new(analyzer: &mut TextAnalyzer, text: String) -> Note {
        if text.len() > MAX_NOTE_BYTES {
            return Note { text, tokens: None };
        }
        let mut tokens = Vec::new();
        {
            let mut stream = analyzer.token_stream(&text);
            while stream.advance() {
                let t = stream.token();
                tokens.push(Token {
                    from: t.offset_from,
                    to: t.offset_to,
                    text: t.text.as_str().into(),
                });
            }
        }
        Note {
            text,
            tokens: Some(tokens),
        }
    }
}

type Stamp = (u64, SystemTime, u64);

#[derive(Debug, Default)]
struct Kept {
    notes: HashMap<PathBuf, (Stamp, Arc<Note>)>,
    /// Oldest first.
    order: VecDeque<PathBuf>,
    bytes: usize,
}

/// The notes of recent answers.
#[derive(Debug, Default)]
pub(crate) struct Notes {
    kept: Mutex<Kept>,
}

fn stamp(path: &Path) -> Option<Stamp> {
    crate::fileid::file_state(path)
}

impl Notes {
    /// The note at `rel` in the vault whose [`paths::real_root`] is `root`, only when it really
    /// lies inside the vault (no symlink out).
    pub(crate) fn get(
        &self,
        root: &Path,
        rel: &str,
        analyzer: &mut TextAnalyzer,
    ) -> Option<Arc<Note>> {
        let real = paths::real_inside(root, rel).ok()??;
        let before = stamp(&real)?;
        if let Some((s, note)) = self.lock().notes.get(&real) {
            if *s == before {
                return Some(Arc::clone(note));
            }
        }
        // Bounded and of a regular file, as every read of a vault file: a FIFO or a device
        // swapped in since the search must not hang or grow the server.
        let (bytes, _) =
            crate::fsread::read_regular(&real, crate::core::DEFAULT_MAX_NOTE_BYTES).ok()?;
        let note = Arc::new(Note::new(
            analyzer,
            String::from_utf8_lossy(&bytes).into_owned(),
        ));
        // Changed while it was read: not kept under either state.
        if note.tokens.is_some() && stamp(&real) == Some(before) {
            self.keep(real, before, Arc::clone(&note));
        }
        Some(note)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Kept> {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn keep(&self, path: PathBuf, stamp: Stamp, note: Arc<Note>) {
        let mut k = self.lock();
        k.bytes += note.text.len();
        if let Some((_, old)) = k.notes.insert(path.clone(), (stamp, note)) {
            k.bytes -= old.text.len();
        } else {
            k.order.push_back(path);
        }
        while k.notes.len() > MAX_NOTES || k.bytes > MAX_BYTES {
            let Some(oldest) = k.order.pop_front() else {
                break;
            };
            if let Some((_, gone)) = k.notes.remove(&oldest) {
                k.bytes -= gone.text.len();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_note_follows_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let root = paths::real_root(dir.path()).unwrap();
        std::fs::write(root.join("a.md"), "first words\n").unwrap();
        let notes = Notes::default();
        let mut analyzer = crate::local::analyzer::text_analyzer();
        let a = notes.get(&root, "a.md", &mut analyzer).unwrap();
        assert_eq!(a.tokens.as_ref().map(Vec::len), Some(2));
        let again = notes.get(&root, "a.md", &mut analyzer).unwrap();
        assert!(Arc::ptr_eq(&a, &again), "read again unchanged");
        std::fs::write(root.join("a.md"), "second, longer words\n").unwrap();
        let changed = notes.get(&root, "a.md", &mut analyzer).unwrap();
        assert_eq!(changed.text, "second, longer words\n");
        assert!(notes.get(&root, "../outside.md", &mut analyzer).is_none());
        for i in 0..MAX_NOTES + 10 {
            std::fs::write(root.join(format!("n{i}.md")), "x\n").unwrap();
            notes
                .get(&root, &format!("n{i}.md"), &mut analyzer)
                .unwrap();
        }
        assert_eq!(notes.lock().notes.len(), MAX_NOTES);
        assert_eq!(notes.lock().order.len(), MAX_NOTES);
    }
}
