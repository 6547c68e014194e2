//! The index build that `vault-search mcp` runs in the background.
//!
//! An MCP client starts the server and waits for its `initialize` answer before showing any
//! tool, so the server cannot build a 38k-note index first. It answers at once and builds
//! (or refreshes) the index on its own thread; searches meanwhile wait for that build or read
//! the last commit ([`super::tools`] decides). Without this, a search that finds no index while
//! the build holds the writer lock would index the whole vault a second time, in memory.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::{IndexOptions, IndexProgress, IndexReport};

/// How far the running build is: notes written of the notes it will write.
#[derive(Debug, Default)]
struct Counts {
    total: AtomicU64,
    done: AtomicU64,
}

impl IndexProgress for Counts {
    fn start(&self, total: u64) {
        self.total.store(total, Ordering::Relaxed);
        self.done.store(0, Ordering::Relaxed);
    }
    fn inc(&self) {
        self.done.fetch_add(1, Ordering::Relaxed);
    }
    fn committing(&self) {}
}

/// Where the background build is.
#[derive(Debug, Clone)]
pub(crate) enum Phase {
    NotStarted,
    Running { since: Instant },
    Finished(Outcome),
}

/// How a finished build ended.
#[derive(Debug, Clone)]
pub(crate) enum Outcome {
    Indexed(IndexReport),
    /// Another process held the writer lock: nothing was done.
    Busy,
    Failed(String),
}

/// One background build at a time, and a way to wait for it.
#[derive(Debug)]
pub(crate) struct Indexer {
    vault: PathBuf,
    cache_dir: Option<PathBuf>,
    /// As `index` extracts them: all new PDFs, no per-run budget.
    pdf: crate::core::PdfLimits,
    phase: Mutex<Phase>,
    changed: Condvar,
    counts: Arc<Counts>,
}

impl Indexer {
    pub(crate) fn new(
        vault: PathBuf,
        cache_dir: Option<PathBuf>,
        pdf: crate::core::PdfLimits,
    ) -> Indexer {
        Indexer {
            vault,
            cache_dir,
            pdf: crate::core::PdfLimits {
                per_run: None,
                ..pdf
            },
            phase: Mutex::new(Phase::NotStarted),
            changed: Condvar::new(),
            counts: Arc::default(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Phase> {
        // A panic while holding this lock can only come from the few assignments below; the
        // phase they leave is still meaningful.
        self.phase
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(crate) fn phase(&self) -> Phase {
        self.lock().clone()
    }

    /// Notes the running (or last) build has written, and how many it is writing in all.
    pub(crate) fn progress(&self) -> (u64, u64) {
        let c = &self.counts;
        (
            c.done.load(Ordering::Relaxed),
            c.total.load(Ordering::Relaxed),
        )
    }

    /// Starts the build unless one runs or has run; `retry_busy` starts another after a run
    /// that found the writer lock taken (that process may have died before committing).
    pub(crate) fn ensure_started(self: &Arc<Self>, retry_busy: bool) {
        let mut phase = self.lock();
        let start = match &*phase {
            Phase::NotStarted => true,
            Phase::Finished(Outcome::Busy) => retry_busy,
            _ => false,
        };
        if !start {
            return;
        }
        let Some(cache_dir) = self.cache_dir.clone() else {
            // No cache directory on this system: every search indexes in memory.
            *phase = Phase::Finished(Outcome::Failed("no cache directory".into()));
            return;
        };
        *phase = Phase::Running {
            since: Instant::now(),
        };
        drop(phase);
        let me = Arc::clone(self);
        let spawned = std::thread::Builder::new()
            .name("vault-search-index".into())
            .spawn(move || {
                let mut opts = IndexOptions::new(&me.vault, cache_dir);
                opts.pdf = me.pdf;
                let counts = Arc::clone(&me.counts);
                let built =
                    std::panic::catch_unwind(|| crate::index_with_progress(&opts, &*counts));
                let outcome = match built {
                    Ok(Ok(report)) if report.busy => Outcome::Busy,
                    Ok(Ok(report)) => Outcome::Indexed(report),
                    Ok(Err(e)) => Outcome::Failed(format!("{e:#}")),
                    Err(_) => Outcome::Failed("the index build failed".into()),
                };
                if let Outcome::Failed(why) = &outcome {
                    eprintln!("vault-search mcp: background indexing failed: {why}");
                }
                crate::heap::release_free_memory();
                *me.lock() = Phase::Finished(outcome);
                me.changed.notify_all();
            });
        if let Err(e) = spawned {
            *self.lock() = Phase::Finished(Outcome::Failed(format!(
                "cannot start the indexing thread: {e}"
            )));
        }
    }

    /// Blocks until no build runs or `max` has passed; returns the phase then.
    pub(crate) fn wait(&self, max: Duration) -> Phase {
        let deadline = Instant::now() + max;
        let mut phase = self.lock();
        while matches!(*phase, Phase::Running { .. }) {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            phase = self
                .changed
                .wait_timeout(phase, left)
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .0;
        }
        phase.clone()
    }
}
