//! Writes a plan into the index and commits it: notes are read, hashed, parsed (canvases
//! turned into Markdown, PDFs extracted in child processes) and turned into documents on every
//! core, tantivy indexes them on its own threads, one commit carries
//! the documents and the run's payload together.

use std::path::Path;

use anyhow::{Context, Result};
use tantivy::indexer::{NoMergePolicy, UserOperation};
use tantivy::{Index, IndexWriter, Term};

use super::budget::Budget;
use super::document::{note_document, placeholder, NoteDoc};
use super::extract::{Extractor, Outcome};
use super::merge::maybe_merge;
use super::plan::{Plan, Upsert};
use super::read::{decode, kind_of, read_capped, Unread};
use super::store::{self, Payload};
use super::sweep;
use crate::core::{Caps, FileKind, IndexProgress, IndexReport, Limits, SkippedFile};
use crate::fsread::Beneath;
use crate::local::schema::{self, Fields};
use crate::text::links::{self, Link};
use crate::text::{canvas, parts};

/// Writer heap for a full build (split across the indexing threads).
const BUILD_HEAP_BYTES: usize = 96 * 1024 * 1024;
/// Notes handed to tantivy per batch.
const WRITE_BATCH: usize = 64;
/// Writer heap for an incremental update (few documents).
const UPDATE_HEAP_BYTES: usize = 32 * 1024 * 1024;
/// Note text read but not yet indexed, at most (see [`Budget`]).
const TEXT_IN_FLIGHT_BYTES: u64 = 24 * 1024 * 1024;
/// What a document costs besides its text, as the budget counts it (its values, each in an
/// allocation of its own).
const DOC_OVERHEAD_BYTES: u64 = 1024;

/// Where and how a plan is written.
#[derive(Debug, Clone, Copy)]
pub(in crate::local) struct Target<'a> {
    pub(in crate::local) index: &'a Index,
    /// The index is new (always committed, so it carries a payload).
    pub(in crate::local) fresh: bool,
    /// Its directory (empty for an index in memory).
    pub(in crate::local) dir: &'a Path,
    pub(in crate::local) vault: &'a Path,
    pub(in crate::local) run_started_ns: i64,
    /// PDF extraction (the size caps come with the plan).
    pub(in crate::local) limits: Limits,
    /// Where extracted PDF text is cached (`None`: not cached, e.g. an index in memory).
    pub(in crate::local) text_cache: Option<&'a Path>,
}

/// Writes a plan and commits it, reporting progress per note.
pub(in crate::local) fn write(
    target: Target<'_>,
    plan: Plan,
    progress: &dyn IndexProgress,
) -> Result<IndexReport> {
    let Target {
        index,
        fresh,
        dir,
        vault,
        run_started_ns,
        limits,
        text_cache,
    } = target;
    let extractor = Extractor::new(limits.pdf, text_cache);
    let total = plan.upserts.len() as u64;
    let fields = schema::fields();
    let wants_bump = plan.wants_bump();
    let nothing_to_commit = plan.is_noop() && !fresh && !wants_bump;
    let removes = plan.removes.len();
    let caps = plan.caps;
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
    if !fresh && !dir.as_os_str().is_empty() {
        // With the writer's lock held: what a killed update left is no one's now.
        sweep::unlisted(index, dir);
    }
    progress.start(total);
    for path in &plan.removes {
        writer.delete_term(Term::from_field_text(fields.path, path));
    }
    // A placeholder whose file is gone was never a note: not one removed.
    report.removed = (removes as u64).saturating_sub(plan.removed_placeholders);
    // Reading, hashing, parsing and building documents runs on every core; tantivy's own
    // indexing threads take the documents from there. A note's delete and add come from the
    // same thread in that order, which is all tantivy's opstamps need.
    let budget = Budget::new(TEXT_IN_FLIGHT_BYTES);
    let ctx = Ctx {
        fields,
        vault,
        caps,
        extractor: extractor.as_ref(),
        budget: &budget,
    };
    let tallies = prepare_in_threads(&writer, &ctx, plan.upserts, total, progress);
    progress.committing();
    let mut ops = 0;
    for t in tallies {
        let t = match t {
            Ok(t) => t,
            Err(e) => {
                // A failed indexing thread only says that it was killed; the cause (a full
                // disk, most often) comes out when the writer is asked to commit.
                return Err(match writer.prepare_commit() {
                    Err(cause) => anyhow::Error::new(cause).context("adding notes to the index"),
                    Ok(prepared) => {
                        let _ = prepared.abort();
                        e
                    }
                });
            }
        };
        report.added += t.added;
        report.updated += t.updated;
        report.removed += t.removed;
        report.unchanged += t.touched;
        live += t.added + t.updated + t.touched;
        report.skipped_files.extend(t.skipped);
        report.pending += t.pending;
        ops += t.ops;
    }
    report.notes = live;
    report.skipped = report.skipped_files.len() as u64;
    // Nothing came of the plan (a file that could not be read, a PDF still pending): no
    // commit, so the next run and every search don't find a new commit to chase.
    if ops == 0 && removes == 0 && !fresh && !wants_bump {
        return Ok(report);
    }
    let payload = Payload {
        format: schema::index_format(),
        run_started_ns,
        vault: vault.display().to_string(),
        caps,
    };
    commit(index, writer, &payload)?;
    store::privatize_dir(dir);
    Ok(report)
}

/// Reads, hashes and parses the notes to write on up to four threads, each handing its
/// documents to `writer`; what each thread did.
fn prepare_in_threads(
    writer: &IndexWriter<NoteDoc>,
    ctx: &Ctx<'_>,
    upserts: Vec<Upsert>,
    total: u64,
    progress: &dyn IndexProgress,
) -> Vec<Result<Tally>> {
    let queue = std::sync::Mutex::new(upserts.into_iter());
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 4)
        .min(total.max(1) as usize);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                s.spawn(|| {
                    let mut t = Tally::default();
                    // Handed to tantivy in batches: one channel message per WRITE_BATCH notes
                    // instead of one per note (its indexing threads spun and yielded on each).
                    let mut ops = Vec::new();
                    let mut folders = Beneath::new(ctx.vault);
                    loop {
                        let next = match queue.lock() {
                            Ok(mut q) => q.next(),
                            Err(_) => None,
                        };
                        let Some(up) = next else { break };
                        let before = ops.len();
                        prepare_one(ctx, &mut folders, up, &mut t, &mut ops);
                        t.ops += (ops.len() - before) as u64;
                        progress.inc();
                        if ops.len() >= WRITE_BATCH {
                            writer
                                .run(std::mem::take(&mut ops))
                                .context("adding notes to the index")?;
                            // Nothing unsent: the one moment a thread may wait for tantivy.
                            ctx.budget.wait();
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
    })
}

/// Commits with the run's payload, then merges small segments.
fn commit(index: &Index, mut writer: IndexWriter<NoteDoc>, payload: &Payload) -> Result<()> {
    let payload_json = serde_json::to_string(payload)?;
    let mut prepared = writer
        .prepare_commit()
        .context("preparing the index commit")?;
    prepared.set_payload(&payload_json);
    prepared.commit().context("committing the index")?;
    maybe_merge(index, &mut writer)?;
    writer
        .wait_merging_threads()
        .context("waiting for index merges")?;
    Ok(())
}

/// What one writing thread did.
#[derive(Debug, Default)]
struct Tally {
    /// Index operations queued (deletes and adds).
    ops: u64,
    added: u64,
    updated: u64,
    touched: u64,
    /// Indexed notes that became stubs (over the cap now) or could not be read again.
    removed: u64,
    skipped: Vec<SkippedFile>,
    /// PDFs left for a later run (the run's extraction budget was spent).
    pending: u64,
}

/// What every writing thread shares.
struct Ctx<'a> {
    fields: &'a Fields,
    vault: &'a Path,
    caps: Caps,
    extractor: Option<&'a Extractor<'a>>,
    budget: &'a std::sync::Arc<Budget>,
}

/// What a file's document holds.
enum Content {
    /// Searchable text (a note, or a canvas's or PDF's parts), whether it is the file's
    /// exact bytes (a hit may then be shown from the file itself), and a canvas's card links.
    Text(String, bool, Vec<Link>),
    /// A file that could not be indexed: a placeholder with its stat and hash, so it is not
    /// tried again until it changes.
    Failed(String),
}

/// Reads (if needed) and hashes one file, and queues its delete (when it replaces one) and its
/// add, in that order.
fn prepare_one(
    ctx: &Ctx<'_>,
    folders: &mut Beneath<'_>,
    mut up: Upsert,
    t: &mut Tally,
    ops: &mut Vec<UserOperation<NoteDoc>>,
) {
    let fields = ctx.fields;
    let kind = kind_of(&up.note.rel);
    let cap = ctx.caps.max_bytes(kind);
    let read = match up.bytes.take() {
        Some(b) => Ok(b),
        None => read_capped(folders, &up.note, cap, kind).map(|(b, md)| {
            up.note.fill_stat(&md);
            b
        }),
    };
    if matches!(read, Err(Unread::TooLarge(_))) && !up.note.stated {
        // Listed by name only: the placeholder keeps the stat the next walk compares.
        if let Ok(md) = std::fs::symlink_metadata(up.note.path(ctx.vault)) {
            up.note.fill_stat(&md);
        }
    }
    let delete = |ops: &mut Vec<UserOperation<NoteDoc>>| {
        ops.push(UserOperation::Delete(Term::from_field_text(
            fields.path,
            &up.note.rel,
        )));
    };
    let bytes = match read {
        Ok(b) => b,
        Err(Unread::TooLarge(reason)) => {
            // Remembered with its stat (a placeholder), not read again until it changes.
            t.removed += u64::from(up.replaces && !up.was_skipped);
            placeholder_or_skip(&up, kind, reason, t, ops, fields);
            return;
        }
        Err(Unread::Failed(reason)) => {
            if up.replaces {
                delete(ops);
                t.removed += u64::from(!up.was_skipped);
            }
            t.skipped.push(SkippedFile {
                path: up.note.rel.clone(),
                reason,
            });
            return;
        }
    };
    let hash = blake3::hash(&bytes);
    let content = match kind {
        FileKind::Note => {
            let (text, exact) = decode(bytes);
            Content::Text(text, exact, Vec::new())
        }
        FileKind::Canvas => match canvas::to_markdown_with_cards(&decode(bytes).0) {
            Ok((md, cards)) => Content::Text(md, false, links::canvas_links(&cards)),
            Err(reason) => Content::Failed(reason),
        },
        FileKind::Pdf => {
            let Some(x) = ctx.extractor else {
                return;
            };
            match x.pdf(&up.note.path(ctx.vault), &bytes, &hash) {
                Outcome::Pages(pages) => Content::Text(parts::join(&pages), false, Vec::new()),
                Outcome::Failed(reason) => Content::Failed(reason),
                Outcome::Pending => {
                    t.pending += 1;
                    return;
                }
            }
        }
    };
    if up.replaces {
        delete(ops);
    }
    let failed = matches!(content, Content::Failed(_));
    let doc = match content {
        Content::Text(text, exact, cards) => {
            let share = ctx.budget.take(text.len() as u64 + DOC_OVERHEAD_BYTES);
            let mut doc =
                note_document(fields, &up.note, kind, text, exact, hash.as_bytes(), cards);
            doc.hold(share);
            doc
        }
        Content::Failed(reason) => {
            t.skipped.push(SkippedFile {
                path: up.note.rel.clone(),
                reason: reason.clone(),
            });
            // A document that turns into a placeholder leaves the notes.
            t.removed += u64::from(up.replaces && !up.was_skipped);
            placeholder(fields, &up.note, kind, &reason, hash.as_bytes(), false)
        }
    };
    ops.push(UserOperation::Add(doc));
    if failed {
        return;
    }
    // A file that replaces its placeholder is new to the index.
    match (up.replaces && !up.was_skipped, up.touched) {
        (false, _) => t.added += 1,
        (true, false) => t.updated += 1,
        (true, true) => t.touched += 1,
    }
}

fn new_writer(index: &Index, heap: usize) -> Result<IndexWriter<NoteDoc>> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 2);
    let threads = if heap <= UPDATE_HEAP_BYTES {
        1
    } else {
        threads
    };
    let w: IndexWriter<NoteDoc> = index
        .writer_with_num_threads(threads, heap)
        .context("cannot open the index for writing")?;
    w.set_merge_policy(Box::new(NoMergePolicy));
    Ok(w)
}

/// A file too large to read: a placeholder (no hash: it changes with the size).
fn placeholder_or_skip(
    up: &Upsert,
    kind: FileKind,
    reason: String,
    t: &mut Tally,
    ops: &mut Vec<UserOperation<NoteDoc>>,
    fields: &Fields,
) {
    if up.replaces {
        ops.push(UserOperation::Delete(Term::from_field_text(
            fields.path,
            &up.note.rel,
        )));
    }
    t.skipped.push(SkippedFile {
        path: up.note.rel.clone(),
        reason: reason.clone(),
    });
    ops.push(UserOperation::Add(placeholder(
        fields, &up.note, kind, &reason, &[0; 32], true,
    )));
}
