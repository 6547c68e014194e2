//! The difference between the vault and the index: which notes to add, re-write or remove.
//!
//! Only notes whose size or mtime differ from the manifest (or that are racily clean) are
//! read and hashed; nothing here writes. A note over the size cap is never read: the index
//! keeps a stub of it (path, size, mtime), so it stays unread until its size or mtime change
//! or the cap is raised over its size. A plan is made for one set of caps (the index's
//! recorded ones unless the run was given others) and records them when it is written.

use std::path::Path;

use anyhow::{Context, Result};
use tantivy::DocAddress;

use super::manifest::{Known, Manifest};
use super::read::{kind_of, read_capped, too_large, Unread};
use super::store::{self, Payload};
use super::walk::{walk, Batch, DiskNote};
use crate::core::{Caps, SkippedFile};
use crate::fsread::Beneath;
use crate::fsread::Refused;
use crate::local::stored::{self, Stored};

/// Notes modified less than this before the previous run started are hashed again.
pub(crate) const RACY_WINDOW_NS: i64 = 2_000_000_000;
/// A note whose content must be (re)written.
#[derive(Debug)]
pub(in crate::local) struct Upsert {
    pub(in crate::local) note: DiskNote,
    /// Content already read while comparing hashes (`None`: read it when writing).
    pub(in crate::local) bytes: Option<Vec<u8>>,
    /// Replaces an existing document.
    pub(in crate::local) replaces: bool,
    /// Same content, new size/mtime: re-written only to record them (counted as unchanged).
    pub(in crate::local) touched: bool,
    /// What it replaces is a stub (a note that was over the size cap), not an indexed note.
    pub(in crate::local) was_skipped: bool,
}

/// The difference between the vault and the index.
#[derive(Debug, Default)]
pub(in crate::local) struct Plan {
    pub(in crate::local) upserts: Vec<Upsert>,
    pub(in crate::local) removes: Vec<String>,
    /// How many of `removes` are placeholders (not notes: not counted as removed).
    pub(in crate::local) removed_placeholders: u64,
    pub(in crate::local) unchanged: u64,
    pub(in crate::local) skipped: Vec<SkippedFile>,
    /// Racily clean notes that had to be read and turned out unchanged. Committing a new
    /// run start (an empty commit) stops them being read again on every run, once their mtime
    /// is older than the racy window.
    pub(in crate::local) rechecked: u64,
    /// The newest mtime among them.
    pub(in crate::local) rechecked_mtime_ns: i64,
    /// The caps this plan was made for, recorded by its commit.
    pub(in crate::local) caps: Caps,
    /// They differ from the caps the index recorded: a commit records them even when no file
    /// changes.
    pub(in crate::local) caps_changed: bool,
    /// Unchanged placeholders of files whose content failed; [`Plan::name_failed`] names them
    /// (it reads their documents, which a search has no use for).
    pub(in crate::local) failed: Vec<DocAddress>,
}

impl Plan {
    /// Nothing to write: the index matches the vault.
    pub(in crate::local) fn is_noop(&self) -> bool {
        self.upserts.is_empty() && self.removes.is_empty()
    }

    /// Adds entries the walk could not read (listed first).
    pub(in crate::local) fn add_skipped(&mut self, mut walk_skipped: Vec<SkippedFile>) {
        walk_skipped.append(&mut self.skipped);
        self.skipped = walk_skipped;
    }

    /// A commit without documents would record something new: this run's start (sparing the
    /// next runs from re-reading racily clean notes) or new caps.
    pub(in crate::local) fn wants_bump(&self) -> bool {
        self.caps_changed
            || (self.rechecked > 0 && self.rechecked_mtime_ns < store::now_ns() - RACY_WINDOW_NS)
    }

    /// Names the unchanged placeholders of files whose content failed in `skipped`, with the
    /// reason their document keeps (`searcher`: the commit the plan was made against), so an
    /// `index` run names every placeholder, as `status` does.
    pub(in crate::local) fn name_failed(&mut self, searcher: &tantivy::Searcher) -> Result<()> {
        for addr in std::mem::take(&mut self.failed) {
            self.skipped.push(stored::placeholder(searcher, addr)?);
        }
        Ok(())
    }
}

/// An empty index: every note on disk is to be added, under `caps`.
pub(in crate::local) fn plan_fresh(disk: &mut dyn Iterator<Item = Batch>, caps: Caps) -> Plan {
    let mut plan = Plan {
        caps,
        ..Plan::default()
    };
    for batch in disk {
        plan.upserts.extend(batch.notes().map(|note| Upsert {
            note,
            bytes: None,
            replaces: false,
            touched: false,
            was_skipped: false,
        }));
    }
    plan
}

/// Compares the notes on disk with `known`, the manifest of `searcher`'s commit, under `caps`.
/// Only notes whose size or mtime differ (or that are racily clean, or are indexed but now over
/// the cap) are read and hashed; nothing is written. The walk's own unreadable entries are the
/// caller's to add ([`Plan::add_skipped`]).
pub(in crate::local) fn plan_with(
    searcher: &tantivy::Searcher,
    mut known: Manifest,
    payload: Option<&Payload>,
    vault: &Path,
    disk: &mut dyn Iterator<Item = Batch>,
    caps: Caps,
) -> Result<Plan> {
    let racy_after = payload.map_or(i64::MIN, |p| p.run_started_ns - RACY_WINDOW_NS);
    let mut plan = Plan {
        caps,
        caps_changed: payload.is_none_or(|p| p.caps != caps),
        ..Plan::default()
    };
    // The usual note is unchanged: its path is built in this one buffer, looked up, and
    // forgotten; only the others become owned notes.
    let mut rel = String::new();
    let mut folders = Beneath::new(vault);
    for batch in disk {
        for n in batch.iter() {
            n.rel_into(&mut rel);
            let k = known.take(&rel);
            if let Some(k) = &k {
                if k.size == n.size && k.mtime_ns == n.mtime_ns {
                    let kind = kind_of(&rel);
                    let cap = caps.max_bytes(kind);
                    // A placeholder stays one, whatever the racy window says, until its file
                    // changes: nothing to read. Still over the cap: named again in this run.
                    if k.too_large && k.size > cap {
                        plan.skipped.push(SkippedFile {
                            path: rel.clone(),
                            reason: too_large(cap, kind),
                        });
                        continue;
                    }
                    // A placeholder of a file over the cap is read below once a raised cap
                    // admits it; one whose content failed (a PDF that did not extract) waits
                    // for a change, named again in this run.
                    if k.skipped && !k.too_large {
                        plan.failed.push(k.addr);
                        continue;
                    }
                    // An indexed file over a lowered cap becomes a placeholder below.
                    if !k.skipped && k.size <= cap && k.mtime_ns < racy_after {
                        plan.unchanged += 1;
                        continue;
                    }
                }
            }
            plan.consider(searcher, &mut folders, n.to_disk_note(&rel), k, caps)?;
        }
    }
    if known.untaken_len() > 0 {
        plan.removed_placeholders = known.untaken_placeholders() as u64;
        plan.removes.extend(known.untaken());
    }
    Ok(plan)
}

impl Plan {
    /// A note that is new, or whose size or mtime differ, or that is racily clean: read and
    /// hashed to decide.
    fn consider(
        &mut self,
        searcher: &tantivy::Searcher,
        folders: &mut Beneath<'_>,
        note: DiskNote,
        known: Option<Known>,
        caps: Caps,
    ) -> Result<()> {
        let Some(k) = known else {
            self.upserts.push(Upsert {
                note,
                bytes: None,
                replaces: false,
                touched: false,
                was_skipped: false,
            });
            return Ok(());
        };
        // A placeholder has no text to compare, and a file over its cap is not read here: the
        // writer turns it into a document or a (new) placeholder.
        let rewrite = |note| Upsert {
            note,
            bytes: None,
            replaces: true,
            touched: false,
            was_skipped: k.skipped,
        };
        let kind = kind_of(&note.rel);
        if k.skipped || note.size > caps.max_bytes(kind) {
            self.upserts.push(rewrite(note));
            return Ok(());
        }
        let stat_same = k.size == note.size && k.mtime_ns == note.mtime_ns;
        let mut note = note;
        let bytes = match read_capped(folders, &note, caps.max_bytes(kind), kind) {
            Ok((b, md)) => {
                note.fill_stat(&md);
                b
            }
            // Grew past the cap since the walk's stat.
            Err(Unread::TooLarge(_)) => {
                self.upserts.push(rewrite(note));
                return Ok(());
            }
            Err(Unread::Failed(reason)) => {
                self.skipped.push(SkippedFile {
                    path: note.rel.clone(),
                    reason,
                });
                self.removes.push(note.rel);
                return Ok(());
            }
        };
        let old = Stored::read(searcher, k.addr).context("reading a stored note")?;
        let same = old
            .hash()
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
            was_skipped: false,
        });
        Ok(())
    }
}

/// How many files differ between the vault and the index by size and mtime alone (added,
/// modified or removed), without reading any; and the files an update would skip as
/// unreadable. A new file that can't be opened is one of those, not a change: `index` skips it
/// (and names it) rather than adding it, so counting it would say "changed" forever.
pub(crate) fn changed_by_stat(
    searcher: &tantivy::Searcher,
    vault: &Path,
    pdf: bool,
) -> Result<(u64, Vec<SkippedFile>)> {
    let mut known = Manifest::read(searcher)?;
    let (disk, _) = walk(vault, pdf);
    let mut changed = 0u64;
    let mut unreadable = Vec::new();
    for note in disk {
        match known.take(&note.rel) {
            Some(k) if k.size == note.size && k.mtime_ns == note.mtime_ns => {}
            Some(_) => changed += 1,
            // Opened only, never read.
            None => match crate::fsread::open_regular(&note.path(vault)) {
                Err(Refused::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => changed += 1,
                Err(why) => unreadable.push(SkippedFile {
                    path: note.rel,
                    reason: format!("cannot read: {why}"),
                }),
                Ok(_) => changed += 1,
            },
        }
    }
    Ok((changed + known.untaken_len() as u64, unreadable))
}
