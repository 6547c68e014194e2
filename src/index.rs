//! Builds and updates the local index: walk the vault, compare, read and hash only what
//! changed, write, commit atomically.
//!
//! Per note the index keeps `(path, size, mtime, blake3)` next to the document itself, so the
//! bookkeeping commits atomically with the documents:
//! - same size and mtime → the file is not even read;
//! - otherwise it is read and hashed: same hash → nothing to re-index; new hash → upsert
//!   (`delete_term` on the path + `add_document`); gone from disk → delete;
//! - a note modified within [`RACY_WINDOW_NS`] of the previous run's start is hashed again even
//!   when size and mtime agree (its mtime may not have ticked between two writes).
//!
//! A commit happens only when something changed. A killed run leaves the last commit intact,
//! and because the next run diffs the disk against what the index holds, it converges to
//! exactly what a fresh `--rebuild` gives.

use std::fs::File;
use std::io::{ErrorKind, Read};
use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result};
use tantivy::indexer::{NoMergePolicy, UserOperation};
use tantivy::schema::Value;
use tantivy::{Index, IndexWriter, TantivyDocument, Term};

use crate::config::IndexConfig;
use crate::error::EngineError;
use crate::manifest::{Known, Manifest};
use crate::note;
use crate::output::{round_to, IndexReport, SkippedFile};
use crate::schema::{self, Fields};
use crate::store::{self, Payload, Store, WriterLock};
use crate::walk::{walk, Batch, DiskNote};

/// Notes modified less than this before the previous run started are hashed again.
pub const RACY_WINDOW_NS: i64 = 2_000_000_000;
/// Merge when a commit leaves more segments than this.
pub const MAX_SEGMENTS: usize = 8;
/// Merge when more than this share of the documents are deleted.
pub const MAX_DELETED_RATIO: f64 = 0.2;
/// Writer heap for a full build (split across the indexing threads).
const BUILD_HEAP_BYTES: usize = 96 * 1024 * 1024;
/// Notes handed to tantivy per batch.
const WRITE_BATCH: usize = 64;
/// Writer heap for an incremental update (few documents).
const UPDATE_HEAP_BYTES: usize = 32 * 1024 * 1024;

/// `vault-search index`: build or update the index of `vault` below `cache_dir`.
pub fn run(vault: &Path, cache_dir: Option<&Path>, cfg: &IndexConfig) -> Result<IndexReport> {
    let started = Instant::now();
    let cache_dir = cache_dir.context(
        "no cache directory on this system: pass --cache-dir DIR or set VAULT_SEARCH_CACHE_DIR",
    )?;
    let store = Store::new(cache_dir, vault);
    store.ensure_root()?;
    let Some(lock) = store.try_lock()? else {
        return Ok(IndexReport {
            busy: true,
            index_dir: store.root.display().to_string(),
            ..IndexReport::default()
        });
    };
    let (_, mut report) = update(&store, &lock, vault, cfg.max_note_bytes, cfg.rebuild, true)?;
    report.elapsed_seconds = round_to(started.elapsed().as_secs_f64(), 3);
    Ok(report)
}

/// Brings the store's index up to date with the vault (holding the writer lock) and returns
/// it. A missing or incompatible index is built from scratch into a fresh directory.
pub fn update(
    store: &Store,
    _lock: &WriterLock,
    vault: &Path,
    max_note_bytes: u64,
    rebuild: bool,
    progress: bool,
) -> Result<(Index, IndexReport)> {
    let run_started_ns = store::now_ns();
    // The walk starts at once: opening the index and reading its manifest overlap with it.
    let ((index, dir, fresh, mut plan), walk_skipped) = with_walk(vault, |disk| {
        let existing = if rebuild {
            None
        } else {
            match store.open_current_reader() {
                Ok(found) => found,
                Err(EngineError::IndexIncompatible(why)) => {
                    eprintln!("vault-search: rebuilding the index ({why})");
                    None
                }
                Err(e) => return Err(e.into()),
            }
        };
        match existing {
            Some((index, payload, reader)) => {
                // The reader that validated the index also gives the manifest.
                let dir = store.current_dir().unwrap_or_else(|| store.root.clone());
                let searcher = reader.searcher();
                let known = Manifest::read(&searcher)?;
                let plan = plan_with(
                    &searcher,
                    known,
                    Some(&payload),
                    vault,
                    disk,
                    max_note_bytes,
                )?;
                Ok((index, dir, false, plan))
            }
            None => {
                let (index, dir) = store.create_fresh()?;
                Ok((index, dir, true, plan_fresh(disk)))
            }
        }
    })?;
    plan.add_skipped(walk_skipped);
    let mut report = apply(
        &index,
        fresh,
        plan,
        run_started_ns,
        vault,
        max_note_bytes,
        &dir,
        progress,
    )?;
    if fresh {
        store.publish(&dir)?;
        report.rebuilt = true;
    }
    Ok((index, report))
}

/// Builds a throwaway index of `vault` in memory (when no cache directory is usable).
pub fn build_in_memory(vault: &Path, max_note_bytes: u64) -> Result<(Index, IndexReport)> {
    let index = Index::create_in_ram(schema::fields().schema.clone());
    store::register_analyzer(&index);
    let run_started_ns = store::now_ns();
    let (mut plan, walk_skipped) = with_walk(vault, |disk| Ok(plan_fresh(disk)))?;
    plan.add_skipped(walk_skipped);
    let mut report = apply(
        &index,
        true,
        plan,
        run_started_ns,
        vault,
        max_note_bytes,
        Path::new(""),
        false,
    )?;
    report.rebuilt = true;
    Ok((index, report))
}

/// A note whose content must be (re)written.
#[derive(Debug)]
struct Upsert {
    note: DiskNote,
    /// Content already read while comparing hashes (`None`: read it when writing).
    bytes: Option<Vec<u8>>,
    /// Replaces an existing document.
    replaces: bool,
    /// Same content, new size/mtime: re-written only to record them (counted as unchanged).
    touched: bool,
}

/// The difference between the vault and the index.
#[derive(Debug, Default)]
pub struct Plan {
    upserts: Vec<Upsert>,
    removes: Vec<String>,
    unchanged: u64,
    skipped: Vec<SkippedFile>,
    /// Racily clean notes that had to be read and turned out unchanged. Committing a new
    /// run start (an empty commit) stops them being read again on every run, once their mtime
    /// is older than the racy window.
    rechecked: u64,
    /// The newest mtime among them.
    rechecked_mtime_ns: i64,
}

impl Plan {
    /// Nothing to write: the index matches the vault.
    pub fn is_noop(&self) -> bool {
        self.upserts.is_empty() && self.removes.is_empty()
    }

    /// Adds entries the walk could not read (listed first).
    pub fn add_skipped(&mut self, mut walk_skipped: Vec<SkippedFile>) {
        walk_skipped.append(&mut self.skipped);
        self.skipped = walk_skipped;
    }

    /// The index matches the vault, but recording this run's start would spare the next runs
    /// from re-reading racily clean notes.
    pub fn wants_bump(&self) -> bool {
        self.rechecked > 0 && self.rechecked_mtime_ns < store::now_ns() - RACY_WINDOW_NS
    }
}

/// Runs `f` on this thread while the vault is walked on others; `f` gets the notes in
/// batches as the walk stats them (so it can open an index, search it or read its manifest
/// before the walk ends, and compare the first notes while the rest are still being stat'ed). Returns what
/// `f` returns and the entries the walk could not read.
pub fn with_walk<T>(
    vault: &Path,
    f: impl FnOnce(&mut dyn Iterator<Item = Batch>) -> Result<T>,
) -> Result<(T, Vec<SkippedFile>)> {
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::channel();
        let walker = s.spawn(move || crate::walk::walk_to(vault, &tx));
        let out = f(&mut rx.into_iter());
        let skipped = walker
            .join()
            .map_err(|_| anyhow::anyhow!("the vault walk failed"))?;
        Ok((out?, skipped))
    })
}

/// An empty index: every note on disk is to be added.
fn plan_fresh(disk: &mut dyn Iterator<Item = Batch>) -> Plan {
    let mut plan = Plan::default();
    for batch in disk {
        plan.upserts.extend(batch.notes().map(|note| Upsert {
            note,
            bytes: None,
            replaces: false,
            touched: false,
        }));
    }
    plan
}

/// Compares the notes on disk with `known`, the manifest of `searcher`'s commit. Only notes
/// whose size or mtime differ (or that are racily clean) are read and hashed; nothing is
/// written. The walk's own unreadable entries are the caller's to add ([`Plan::add_skipped`]).
pub fn plan_with(
    searcher: &tantivy::Searcher,
    mut known: Manifest,
    payload: Option<&Payload>,
    vault: &Path,
    disk: &mut dyn Iterator<Item = Batch>,
    max_note_bytes: u64,
) -> Result<Plan> {
    let racy_after = payload.map_or(i64::MIN, |p| p.run_started_ns - RACY_WINDOW_NS);
    let mut plan = Plan::default();
    // The usual note is unchanged: its path is built in this one buffer, looked up, and
    // forgotten; only the others become owned notes.
    let mut rel = String::new();
    for batch in disk {
        for n in batch.iter() {
            n.rel_into(&mut rel);
            let k = known.take(&rel);
            if let Some(k) = &k {
                if k.size == n.size && k.mtime_ns == n.mtime_ns && k.mtime_ns < racy_after {
                    plan.unchanged += 1;
                    continue;
                }
            }
            plan.consider(searcher, vault, n.to_disk_note(&rel), k, max_note_bytes)?;
        }
    }
    plan.removes.extend(known.untaken());
    Ok(plan)
}

impl Plan {
    /// A note that is new, or whose size or mtime differ, or that is racily clean: read and
    /// hashed to decide.
    fn consider(
        &mut self,
        searcher: &tantivy::Searcher,
        vault: &Path,
        note: DiskNote,
        known: Option<Known>,
        max_note_bytes: u64,
    ) -> Result<()> {
        let fields = schema::fields();
        let Some(k) = known else {
            self.upserts.push(Upsert {
                note,
                bytes: None,
                replaces: false,
                touched: false,
            });
            return Ok(());
        };
        let stat_same = k.size == note.size && k.mtime_ns == note.mtime_ns;
        let bytes = match read_capped(&note.path(vault), max_note_bytes, note.size) {
            Ok(b) => b,
            Err(reason) => {
                self.skipped.push(SkippedFile {
                    path: note.rel.clone(),
                    reason,
                });
                self.removes.push(note.rel);
                return Ok(());
            }
        };
        let old: TantivyDocument = searcher.doc(k.addr).context("reading a stored note")?;
        let same = old
            .get_first(fields.hash)
            .and_then(|v| v.as_bytes())
            .is_some_and(|h| h == blake3::hash(&bytes).as_bytes());
        if same && stat_same {
            self.unchanged += 1;
            self.rechecked += 1;
            self.rechecked_mtime_ns = self.rechecked_mtime_ns.max(note.mtime_ns);
            return Ok(());
        }
        self.upserts.push(Upsert {
            note,
            bytes: Some(bytes),
            replaces: true,
            touched: same,
        });
        Ok(())
    }
}

/// How many notes differ between the vault and the index by size and mtime alone (added,
/// modified or removed), without reading any note.
pub fn changed_by_stat(searcher: &tantivy::Searcher, vault: &Path) -> Result<u64> {
    let mut known = Manifest::read(searcher)?;
    let (disk, _) = walk(vault);
    let mut changed = 0u64;
    for note in disk {
        match known.take(&note.rel) {
            Some(k) if k.size == note.size && k.mtime_ns == note.mtime_ns => {}
            _ => changed += 1,
        }
    }
    Ok(changed + known.untaken_len() as u64)
}

/// Writes a plan and commits it (a fresh index always gets a commit, so it carries a payload).
/// With `progress`, a bar appears on stderr when the run takes over a second on a terminal.
#[allow(clippy::too_many_arguments)]
fn apply(
    index: &Index,
    fresh: bool,
    plan: Plan,
    run_started_ns: i64,
    vault: &Path,
    max_note_bytes: u64,
    dir: &Path,
    progress: bool,
) -> Result<IndexReport> {
    let total = plan.upserts.len() as u64;
    let fields = schema::fields();
    let nothing_to_commit = plan.is_noop() && !fresh && !plan.wants_bump();
    let mut report = IndexReport {
        index_dir: dir.display().to_string(),
        unchanged: plan.unchanged,
        skipped_files: plan.skipped,
        ..IndexReport::default()
    };
    let mut live = plan.unchanged;
    if nothing_to_commit {
        report.notes = live;
        report.skipped = report.skipped_files.len() as u64;
        return Ok(report);
    }
    let heap = if fresh {
        BUILD_HEAP_BYTES
    } else {
        UPDATE_HEAP_BYTES
    };
    let mut writer = new_writer(index, heap)?;
    let progress = crate::progress::Progress::start(progress, total);
    for path in &plan.removes {
        writer.delete_term(Term::from_field_text(fields.path, path));
        report.removed += 1;
    }
    // Reading, hashing, parsing and building documents runs on every core; tantivy's own
    // indexing threads take the documents from there. A note's delete and add come from the
    // same thread in that order, which is all tantivy's opstamps need.
    let queue = std::sync::Mutex::new(plan.upserts.into_iter());
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 4)
        .min(total.max(1) as usize);
    let tallies: Vec<Result<Tally>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                s.spawn(|| {
                    let mut t = Tally::default();
                    // Handed to tantivy in batches: one channel message per WRITE_BATCH notes
                    // instead of one per note (its indexing threads spun and yielded on each).
                    let mut ops = Vec::new();
                    loop {
                        let next = match queue.lock() {
                            Ok(mut q) => q.next(),
                            Err(_) => None,
                        };
                        let Some(up) = next else { break };
                        prepare_one(fields, vault, max_note_bytes, up, &mut t, &mut ops);
                        progress.inc();
                        if ops.len() >= WRITE_BATCH {
                            writer
                                .run(std::mem::take(&mut ops))
                                .context("adding notes to the index")?;
                        }
                    }
                    writer.run(ops).context("adding notes to the index")?;
                    Ok(t)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(anyhow::anyhow!("an indexing thread failed")))
            })
            .collect()
    });
    progress.committing();
    for t in tallies {
        let t = t?;
        report.added += t.added;
        report.updated += t.updated;
        report.unchanged += t.touched;
        live += t.added + t.updated + t.touched;
        report.skipped_files.extend(t.skipped);
    }
    report.notes = live;
    report.skipped = report.skipped_files.len() as u64;
    let payload = Payload {
        format: schema::index_format(),
        run_started_ns,
        vault: vault.display().to_string(),
    };
    let payload_json = serde_json::to_string(&payload)?;
    let mut prepared = writer
        .prepare_commit()
        .context("preparing the index commit")?;
    prepared.set_payload(&payload_json);
    prepared.commit().context("committing the index")?;
    maybe_merge(index, &mut writer)?;
    writer
        .wait_merging_threads()
        .context("waiting for index merges")?;
    drop(progress);
    store::privatize_dir(dir);
    Ok(report)
}

/// What one writing thread did.
#[derive(Debug, Default)]
struct Tally {
    added: u64,
    updated: u64,
    touched: u64,
    skipped: Vec<SkippedFile>,
}

/// Reads (if needed) and hashes one note, and queues its delete (when it replaces one) and its
/// add, in that order.
fn prepare_one(
    fields: &Fields,
    vault: &Path,
    max_note_bytes: u64,
    up: Upsert,
    t: &mut Tally,
    ops: &mut Vec<UserOperation>,
) {
    let bytes = match up.bytes {
        Some(b) => b,
        None => match read_capped(&up.note.path(vault), max_note_bytes, up.note.size) {
            Ok(b) => b,
            Err(reason) => {
                t.skipped.push(SkippedFile {
                    path: up.note.rel.clone(),
                    reason,
                });
                return;
            }
        },
    };
    if up.replaces {
        ops.push(UserOperation::Delete(Term::from_field_text(
            fields.path,
            &up.note.rel,
        )));
    }
    let hash = blake3::hash(&bytes);
    let text = decode(bytes);
    ops.push(UserOperation::Add(note_document(
        fields,
        &up.note,
        &text,
        hash.as_bytes(),
    )));
    match (up.replaces, up.touched) {
        (false, _) => t.added += 1,
        (true, false) => t.updated += 1,
        (true, true) => t.touched += 1,
    }
}

fn new_writer(index: &Index, heap: usize) -> Result<IndexWriter> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 2);
    let threads = if heap <= UPDATE_HEAP_BYTES {
        1
    } else {
        threads
    };
    let w: IndexWriter = index
        .writer_with_num_threads(threads, heap)
        .context("cannot open the index for writing")?;
    w.set_merge_policy(Box::new(NoMergePolicy));
    Ok(w)
}

/// Merges when segments pile up (all but the largest) or too many documents are deleted (all).
fn maybe_merge(index: &Index, writer: &mut IndexWriter) -> Result<()> {
    let metas = index
        .searchable_segment_metas()
        .context("listing index segments")?;
    let max_doc: u64 = metas.iter().map(|m| u64::from(m.max_doc())).sum();
    let deleted: u64 = metas.iter().map(|m| u64::from(m.num_deleted_docs())).sum();
    let ratio = if max_doc == 0 {
        0.0
    } else {
        deleted as f64 / max_doc as f64
    };
    let mut ids: Vec<_> = if ratio > MAX_DELETED_RATIO {
        metas.iter().map(|m| m.id()).collect()
    } else if metas.len() > MAX_SEGMENTS {
        let mut by_size = metas.clone();
        by_size.sort_by_key(|m| std::cmp::Reverse(m.num_docs()));
        by_size.iter().skip(1).map(|m| m.id()).collect()
    } else {
        Vec::new()
    };
    if ids.len() >= 2 || (ids.len() == 1 && deleted > 0) {
        ids.sort();
        writer
            .merge(&ids)
            .wait()
            .context("merging index segments")?;
        let _ = writer.garbage_collect_files().wait();
    }
    Ok(())
}

/// Reads a file of at most `cap` bytes; the reason as text when it can't.
fn read_capped(path: &Path, cap: u64, size_hint: u64) -> Result<Vec<u8>, String> {
    let file = File::open(path).map_err(|e| match e.kind() {
        ErrorKind::NotFound => "vanished before it could be read".to_string(),
        _ => format!("cannot read: {e}"),
    })?;
    // Sized from the walk's stat: the note comes in one read (and one more that sees the
    // end), not in the doubling reads of an empty buffer.
    let mut bytes = Vec::with_capacity(usize::try_from(size_hint.min(cap)).unwrap_or(0) + 1);
    file.take(cap.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read: {e}"))?;
    if bytes.len() as u64 > cap {
        return Err(format!("larger than {cap} bytes (see --max-note-bytes)"));
    }
    Ok(bytes)
}

/// UTF-8 with invalid sequences replaced; a leading BOM is dropped.
fn decode(bytes: Vec<u8>) -> String {
    // Valid UTF-8 (nearly every note) keeps its buffer: no copy of the note.
    let mut text = String::from_utf8(bytes)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    if text.starts_with('\u{feff}') {
        text.drain(..'\u{feff}'.len_utf8());
    }
    text
}

/// The index document of one note.
fn note_document(fields: &Fields, note: &DiskNote, text: &str, hash: &[u8; 32]) -> TantivyDocument {
    let meta = note::parse(text);
    let mut doc = TantivyDocument::default();
    doc.add_text(fields.path, &note.rel);
    let mut folder = String::new();
    let segments: Vec<&str> = note.rel.split('/').collect();
    for seg in &segments[..segments.len().saturating_sub(1)] {
        if !folder.is_empty() {
            folder.push('/');
        }
        folder.push_str(seg);
        doc.add_text(fields.folders, &folder);
    }
    let file_name = segments.last().copied().unwrap_or("");
    let title = &file_name[..file_name.len().saturating_sub(3)];
    doc.add_text(fields.title, title);
    for a in &meta.aliases {
        doc.add_text(fields.aliases, a);
    }
    if !meta.tags.is_empty() {
        doc.add_text(fields.tags, meta.tags.join(" "));
    }
    let headings: Vec<&str> = meta
        .headings
        .iter()
        .filter(|h| h.level <= 3)
        .map(|h| h.text.as_str())
        .collect();
    if !headings.is_empty() {
        doc.add_text(fields.headings, headings.join("\n"));
    }
    doc.add_text(fields.body, text);
    doc.add_u64(fields.size, note.size);
    doc.add_i64(fields.mtime_ns, note.mtime_ns);
    doc.add_bytes(fields.hash, hash.as_slice());
    doc
}
