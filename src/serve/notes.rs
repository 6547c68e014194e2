//! The hit notes `/search` reads for every answer (to report each match with its offset),
//! kept with their tokens while their files don't change.
//!
//! An answer holds up to 50 notes; reading and tokenizing each again was a sixth of a
//! request's time on a 7,000-note vault, and every open wakes the file watcher too (inotify
//! reports opens). A note is kept under its file's state (length, mtime, inode): a stat per
//! hit tells whether the copy is still the file. Bounded in bytes (text, tokens and the
//! entry's paths), oldest out first, not in notes: a count of notes held few of a vault's
//! notes, and for a vault of large notes it bounded nothing. A note over [`MAX_NOTE_BYTES`]
//! is read each time, not kept.
//!
//! The tokens are held compactly ([`Tokens`]: one string of all their texts and three `u32`
//! per token) rather than a boxed string each, so the same bytes hold several times the notes.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use tantivy::tokenizer::{TextAnalyzer, TokenStream};

use crate::paths;

/// Bytes kept at most, all notes together: their text, their tokens and their entries.
const MAX_BYTES: usize = 32 << 20;
/// A note larger than this is not kept.
const MAX_NOTE_BYTES: usize = 256 << 10;
/// What an entry costs beyond its note and paths: the map's slot, the `Arc`, the queue's slot.
const ENTRY_BYTES: usize = 128;

/// A note's tokens as the index's analyzer reads them.
#[derive(Debug, Default)]
pub(crate) struct Tokens {
    /// Every token's text, one after another.
    texts: String,
    /// Per token: its byte span in the note, and where its text ends in `texts`.
    spans: Vec<[u32; 3]>,
}

impl Tokens {
    /// `None` when an offset would not fit in a `u32` (never for a note under
    /// [`MAX_NOTE_BYTES`]).
    fn of(analyzer: &mut TextAnalyzer, text: &str) -> Option<Tokens> {
        let mut tokens = Tokens::default();
        let mut stream = analyzer.token_stream(text);
        while stream.advance() {
            let t = stream.token();
            tokens.texts.push_str(&t.text);
            tokens.spans.push([
                u32::try_from(t.offset_from).ok()?,
                u32::try_from(t.offset_to).ok()?,
                u32::try_from(tokens.texts.len()).ok()?,
            ]);
        }
        // Kept for as long as the note is: no growth slack.
        tokens.texts.shrink_to_fit();
        tokens.spans.shrink_to_fit();
        Some(tokens)
    }

    /// Each token's byte span in the note and its text.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (usize, usize, &str)> {
        let mut start = 0;
        self.spans.iter().map(move |&[from, to, end]| {
            let text = &self.texts[start..end as usize];
            start = end as usize;
            (from as usize, to as usize, text)
        })
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.spans.len()
    }

    fn bytes(&self) -> usize {
        self.texts.capacity() + self.spans.capacity() * std::mem::size_of::<[u32; 3]>()
    }
}

/// A note's text and its tokens.
#[derive(Debug)]
pub(crate) struct Note {
    pub(crate) text: String,
    /// `None` for a note over [`MAX_NOTE_BYTES`]: its thousands of tokens are streamed, not
    /// held.
    pub(crate) tokens: Option<Tokens>,
}

impl Note {
    pub(crate) fn new(analyzer: &mut TextAnalyzer, text: String) -> Note {
        if text.len() > MAX_NOTE_BYTES {
            return Note { text, tokens: None };
        }
        let tokens = Tokens::of(analyzer, &text);
        Note { text, tokens }
    }

    /// The heap bytes the note holds.
    fn bytes(&self) -> usize {
        self.text.capacity() + self.tokens.as_ref().map_or(0, Tokens::bytes)
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
#[derive(Debug)]
pub(crate) struct Notes {
    kept: Mutex<Kept>,
    /// Bytes kept at most.
    budget: usize,
}

impl Default for Notes {
    fn default() -> Notes {
        Notes {
            kept: Mutex::default(),
            budget: MAX_BYTES,
        }
    }
}

fn stamp(path: &Path) -> Option<Stamp> {
    crate::fileid::file_state(path)
}

/// The [`Stamp`] of an opened file, from its handle.
fn handle_stamp(md: &std::fs::Metadata) -> Option<Stamp> {
    #[cfg(unix)]
    let ino = std::os::unix::fs::MetadataExt::ino(md);
    // As `fileid::file_state` has it elsewhere.
    #[cfg(not(unix))]
    let ino = 0;
    Some((md.len(), md.modified().ok()?, ino))
}

impl Notes {
    /// The note at `rel` in the vault whose [`paths::real_root`] is `root`, only when it really
    /// lies inside the vault (no symlink out), and whether it was read as the file stands
    /// (false: the file changed while it was read, so the text may be torn).
    pub(crate) fn get(
        &self,
        root: &Path,
        rel: &str,
        analyzer: &mut TextAnalyzer,
    ) -> Option<(Arc<Note>, bool)> {
        let real = paths::real_inside(root, rel).ok()??;
        let before = stamp(&real)?;
        if let Some((s, note)) = self.lock().notes.get(&real) {
            if *s == before {
                return Some((Arc::clone(note), true));
            }
        }
        // Bounded and of a regular file, as every read of a vault file: a FIFO or a device
        // swapped in since the search must not hang or grow the server. Opened folder by
        // folder from the vault's handle (`real_inside` only looked): a folder swapped for a
        // symlink to one outside since then is refused, not read through.
        let (bytes, md) =
            crate::fsread::read_beneath(root, rel, crate::core::DEFAULT_MAX_NOTE_BYTES).ok()?;
        let read = handle_stamp(&md)?;
        let note = Arc::new(Note::new(
            analyzer,
            String::from_utf8_lossy(&bytes).into_owned(),
        ));
        // Changed (or swapped) while it was read: not kept under either state. Kept under the
        // state of the file that was read, as its handle says.
        let settled = read == before && stamp(&real) == Some(read);
        if note.tokens.is_some() && settled {
            self.keep(real, read, Arc::clone(&note));
        }
        Some((note, settled))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Kept> {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn keep(&self, path: PathBuf, stamp: Stamp, note: Arc<Note>) {
        let mut k = self.lock();
        k.bytes += cost(&path, &note);
        if let Some((_, old)) = k.notes.insert(path.clone(), (stamp, note)) {
            k.bytes -= cost(&path, &old);
        } else {
            k.order.push_back(path);
        }
        while k.bytes > self.budget {
            let Some(oldest) = k.order.pop_front() else {
                break;
            };
            if let Some((_, gone)) = k.notes.remove(&oldest) {
                k.bytes -= cost(&oldest, &gone);
            }
        }
    }
}

/// What keeping `note` under `path` costs in bytes: the path is held twice, as the map's key
/// and in the queue.
fn cost(path: &Path, note: &Note) -> usize {
    2 * path.as_os_str().len() + note.bytes() + ENTRY_BYTES
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
        let (a, settled) = notes.get(&root, "a.md", &mut analyzer).unwrap();
        assert!(settled);
        assert_eq!(a.tokens.as_ref().map(Tokens::len), Some(2));
        let (again, _) = notes.get(&root, "a.md", &mut analyzer).unwrap();
        assert!(Arc::ptr_eq(&a, &again), "read again unchanged");
        std::fs::write(root.join("a.md"), "second, longer words\n").unwrap();
        let (changed, _) = notes.get(&root, "a.md", &mut analyzer).unwrap();
        assert_eq!(changed.text, "second, longer words\n");
        assert!(notes.get(&root, "../outside.md", &mut analyzer).is_none());
    }

    #[test]
    fn the_compact_tokens_are_the_analyzers() {
        let mut analyzer = crate::local::analyzer::text_analyzer();
        let text = "Ünïcode `SQLite` SQL-engine, café 🦀 naïve_words x86_64\n# Tïtle #tag/sub";
        let note = Note::new(&mut analyzer, text.to_string());
        let mut want = Vec::new();
        let mut stream = analyzer.token_stream(text);
        while stream.advance() {
            let t = stream.token();
            want.push((t.offset_from, t.offset_to, t.text.clone()));
        }
        assert!(want.len() > 5);
        let got: Vec<(usize, usize, String)> = note
            .tokens
            .as_ref()
            .unwrap()
            .iter()
            .map(|(from, to, t)| (from, to, t.to_string()))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn the_kept_notes_stay_within_the_budget() {
        let dir = tempfile::tempdir().unwrap();
        let root = paths::real_root(dir.path()).unwrap();
        let budget = 64 << 10;
        let notes = Notes {
            budget,
            ..Notes::default()
        };
        let mut analyzer = crate::local::analyzer::text_analyzer();
        let body = "some words of a note, repeated\n".repeat(40);
        for i in 0..200 {
            std::fs::write(root.join(format!("n{i}.md")), &body).unwrap();
            notes
                .get(&root, &format!("n{i}.md"), &mut analyzer)
                .unwrap();
            let k = notes.lock();
            assert!(k.bytes <= budget, "{} bytes kept", k.bytes);
            assert_eq!(k.notes.len(), k.order.len());
        }
        let k = notes.lock();
        let n = k.notes.len();
        assert!((10..200).contains(&n), "{n} notes kept");
        // Oldest out first.
        assert!(k.notes.keys().any(|p| p.ends_with("n199.md")));
        assert!(!k.notes.keys().any(|p| p.ends_with("n0.md")));
        let counted: usize = k.notes.iter().map(|(p, (_, n))| cost(p, n)).sum();
        assert_eq!(counted, k.bytes);
    }
}
