//! Keeps the index of one vault current while `serve` runs: file-system events, debounced,
//! each batch followed by the library's incremental update.
//!
//! The update is [`crate::index_paths()`] for the files the events name: each is stat'ed and
//! hashed as the walk would, so a save costs a few stats, not one per note (a walk is ≈150 ms
//! at 100,000 notes). What the paths can't settle goes to [`crate::index()`], the stat walk of
//! the whole vault that reads only the notes whose size or mtime changed, which needs no event
//! to be complete or exact: a folder created, moved or removed (its notes are not named),
//! `.obsidian/app.json`, an event without paths or spelled outside the vault, the OS saying it
//! dropped events (overflow), a watcher error, a failed update, every few minutes in any case
//! (network mounts and sleep lose events), and the vault or the cache directory coming back
//! after being moved or deleted. A path below a folder that is not there walks too: under
//! Wine, what is created in a moved folder is named under the folder's old name.
//!
//! The loop publishes a [`Heartbeat`] at least every [`liveness::BEAT_EVERY`], and at once when
//! the first event of a batch arrives, so a search never trusts an index that is behind.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use notify::{EventKind, RecursiveMode, Watcher};

use crate::local::liveness::{self, Beacon, Heartbeat};
use crate::local::{now_ns, Store};
use crate::IndexOptions;

use super::events::{Changes, Events, Signal};

/// Quiet time after the last event before the batch is indexed: the events of one save come
/// within a millisecond or two, and a save cut in two by it costs one more small update, not
/// a wrong index (the second batch names the file again).
const DEBOUNCE: Duration = Duration::from_millis(10);
/// A steady stream of events is indexed at least this often.
const MAX_DELAY: Duration = Duration::from_millis(700);
/// Events waiting beyond this are dropped and replaced by one "rescan" flag.
const QUEUE: usize = 4096;
/// A watch that could not be set up (inotify's limit, a folder being moved) is retried this
/// often; meanwhile the index is kept current by walks and searches don't trust it.
const WATCH_RETRY: Duration = Duration::from_secs(5);
/// After SIGTERM, a final update that keeps failing is given up after this.
const STOP_GRACE: Duration = Duration::from_secs(3);
/// Retry pause after an update failed (vault gone, disk full, another writer).
const RETRY: Duration = Duration::from_millis(500);

/// What `/health` and the heartbeat report; shared with the HTTP side.
#[derive(Debug, Clone, Default)]
pub(crate) struct WatchState {
    pub(crate) caught_up: bool,
    pub(crate) last_event_ns: Option<i64>,
    pub(crate) last_update_ns: Option<i64>,
    pub(crate) notes: u64,
    pub(crate) last_error: Option<String>,
    pub(crate) updates: u64,
}

/// Settings of the loop.
#[derive(Debug, Clone)]
pub(crate) struct WatchConfig {
    pub(crate) vault: PathBuf,
    pub(crate) cache_dir: PathBuf,
    pub(crate) port: u16,
    /// Full stat walk this often even without events.
    pub(crate) rescan_every: Duration,
    pub(crate) pdf: crate::core::PdfLimits,
}

/// Runs until `stop` is set; the last batch is committed before it returns.
pub(crate) fn run(
    cfg: &WatchConfig,
    beacon: Beacon,
    state: &Arc<Mutex<WatchState>>,
    stop: &Arc<AtomicBool>,
    warn: &dyn Fn(&str),
    updated: &dyn Fn(),
) -> Result<()> {
    let mut pass = Pass::start(cfg, beacon, state, warn, updated);
    let mut stop_seen: Option<Instant> = None;
    loop {
        let stopping = stop.load(Ordering::SeqCst);
        if stopping && stop_seen.is_none() {
            // One last walk commits whatever reached the disk before the signal, even changes
            // whose events are still on their way.
            stop_seen = Some(Instant::now());
            pass.mark_dirty();
            pass.next_try = Instant::now();
        }
        pass.update_when_settled(stopping);
        if stopping && !pass.dirty {
            break;
        }
        if stopping && stop_seen.is_some_and(|t| t.elapsed() >= STOP_GRACE) {
            break; // a failing final update must not hold up the exit
        }
        if pass.last_beat.elapsed() >= liveness::BEAT_EVERY {
            pass.check_surroundings();
        }
        pass.take_events();
    }
    pass.finish();
    Ok(())
}

/// The loop's state from one pass to the next.
struct Pass<'a> {
    cfg: &'a WatchConfig,
    state: &'a Arc<Mutex<WatchState>>,
    warn: &'a dyn Fn(&str),
    /// Called after each update that ran.
    updated: &'a dyn Fn(),
    store: Store,
    beacon: Option<Beacon>,
    overflow: Arc<AtomicBool>,
    tx: SyncSender<Signal>,
    rx: Receiver<Signal>,
    watcher: Result<notify::RecommendedWatcher>,
    /// Which folder the vault path named when the watch was set up.
    identity: Option<(u64, u64)>,
    events: Events,
    /// Something changed that the committed index does not hold yet.
    dirty: bool,
    /// When it became dirty: a steady stream of events is indexed at least every
    /// [`MAX_DELAY`].
    first_dirty: Option<Instant>,
    last_event: Instant,
    last_walk: Instant,
    last_beat: Instant,
    /// No update before this (one just failed, or another process writes).
    next_try: Instant,
    last_watch_try: Instant,
}

impl<'a> Pass<'a> {
    fn start(
        cfg: &'a WatchConfig,
        beacon: Beacon,
        state: &'a Arc<Mutex<WatchState>>,
        warn: &'a dyn Fn(&str),
        updated: &'a dyn Fn(),
    ) -> Pass<'a> {
        let overflow = Arc::new(AtomicBool::new(false));
        let (tx, rx) = mpsc::sync_channel::<Signal>(QUEUE);
        let watcher = start_watcher(&cfg.vault, &tx, &overflow);
        if let Err(e) = &watcher {
            warn(&format!("cannot watch the vault ({e:#}); retrying"));
        }
        let events = Events {
            cache_dir: crate::paths::canonicalize(&cfg.cache_dir)
                .unwrap_or_else(|_| cfg.cache_dir.clone()),
            vault: cfg.vault.clone(),
            seen_ns: None,
            // The first pass walks: whatever changed while nobody watched.
            changes: Changes {
                walk: true,
                paths: Default::default(),
            },
        };
        Pass {
            cfg,
            state,
            warn,
            updated,
            store: Store::new(&cfg.cache_dir, &cfg.vault),
            beacon: Some(beacon),
            overflow,
            tx,
            rx,
            watcher,
            identity: vault_identity(&cfg.vault),
            events,
            dirty: true, // the first pass indexes whatever changed while nobody watched
            first_dirty: Some(Instant::now()),
            last_event: Instant::now(),
            last_walk: Instant::now(),
            last_beat: Instant::now() - liveness::BEAT_EVERY,
            next_try: Instant::now(),
            last_watch_try: Instant::now(),
        }
    }

    /// Something may have changed: the next update walks the vault.
    fn mark_dirty(&mut self) {
        self.events.changes.walk = true;
        self.dirty = true;
        self.first_dirty = self.first_dirty.or(Some(Instant::now()));
    }

    /// `/health` shows when the last event that matters came.
    fn record_seen(&self) {
        if self.events.seen_ns.is_some() {
            lock(self.state).last_event_ns = self.events.seen_ns;
        }
    }

    fn publish(&self, caught_up: bool) {
        publish(&self.beacon, self.cfg, self.state, caught_up);
    }

    /// Updates the index once the events have settled (or at once when stopping).
    fn update_when_settled(&mut self, stopping: bool) {
        let now = Instant::now();
        let settled = now.duration_since(self.last_event) >= DEBOUNCE
            || self
                .first_dirty
                .is_some_and(|t| now.duration_since(t) >= MAX_DELAY);
        if !(self.dirty && now >= self.next_try && (settled || stopping)) {
            return;
        }
        // Events that arrive during the update make the index dirty again.
        self.dirty = false;
        self.first_dirty = None;
        let changes = std::mem::take(&mut self.events.changes);
        let walks = changes.walks();
        if walks {
            self.last_walk = now;
        }
        let updated = update(self.cfg, &changes);
        // The update's buffers are freed by now; without this glibc keeps them mapped.
        crate::heap::release_free_memory();
        match updated {
            Ok(Some(notes)) => {
                (self.updated)();
                let mut st = lock(self.state);
                st.notes = notes;
                st.last_update_ns = Some(now_ns());
                st.last_error = None;
                st.updates += 1;
            }
            Ok(None) => {
                // Another process writes the index: ours comes after it, and walks, since what
                // it wrote is not named by our events.
                self.mark_dirty();
                self.next_try = Instant::now() + RETRY;
            }
            Err(e) => {
                self.mark_dirty();
                self.next_try = Instant::now() + RETRY;
                let why = format!("{e:#}");
                let mut st = lock(self.state);
                if st.last_error.as_deref() != Some(why.as_str()) {
                    (self.warn)(&format!("cannot update the index: {why}"));
                }
                st.last_error = Some(why);
            }
        }
        self.dirty |= self
            .events
            .drain(&self.rx, &self.overflow, &mut self.last_event);
        self.record_seen();
        self.first_dirty = self.first_dirty.or(self.dirty.then(Instant::now));
        self.publish(!self.dirty && self.watcher.is_ok());
        self.last_beat = Instant::now();
    }

    /// Once a beat: follows a vault that moved, retries a failed watch, takes the heartbeat
    /// lock anew when the cache directory went away, walks every `rescan_every`, and beats.
    fn check_surroundings(&mut self) {
        // The vault moved away (or was replaced): the old watch follows the old folder.
        let now_identity = vault_identity(&self.cfg.vault);
        let moved = now_identity != self.identity || now_identity.is_none();
        // Setting up a recursive watch costs a call per folder: retry a failed one slowly.
        let retry = self.watcher.is_err() && self.last_watch_try.elapsed() >= WATCH_RETRY;
        if moved || retry {
            self.last_watch_try = Instant::now();
            self.watcher = if now_identity.is_some() {
                start_watcher(&self.cfg.vault, &self.tx, &self.overflow)
            } else {
                Err(anyhow::anyhow!("the vault folder is gone"))
            };
            self.identity = now_identity;
            self.mark_dirty();
        }
        // The cache directory was deleted: take the lock anew where readers look for it.
        if !self.beacon.as_ref().is_some_and(Beacon::intact) {
            self.beacon = None;
            if self.store.ensure_root().is_ok() {
                self.beacon = Beacon::acquire(&self.store.root).ok().flatten();
            }
            self.mark_dirty();
        }
        if self.last_walk.elapsed() >= self.cfg.rescan_every {
            self.mark_dirty();
        }
        self.publish(!self.dirty && self.watcher.is_ok());
        self.last_beat = Instant::now();
    }

    /// Waits briefly for events and notes those that may change the index.
    fn take_events(&mut self) {
        // While dirty, no longer than until the batch settles.
        let wait = if self.dirty {
            DEBOUNCE
                .saturating_sub(self.last_event.elapsed())
                .clamp(Duration::from_millis(1), Duration::from_millis(25))
        } else {
            Duration::from_millis(100)
        };
        match self.rx.recv_timeout(wait) {
            Ok(sig) => {
                if self.events.note(sig, &mut self.last_event) {
                    self.record_seen();
                    if !self.dirty {
                        self.dirty = true;
                        self.first_dirty = Some(Instant::now());
                        // Say "behind" before anything else: a search must not trust us now.
                        self.publish(false);
                        self.last_beat = Instant::now();
                    }
                    self.dirty |= self
                        .events
                        .drain(&self.rx, &self.overflow, &mut self.last_event);
                    self.record_seen();
                }
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => {
                self.watcher = Err(anyhow::anyhow!("the watcher stopped"));
            }
        }
        if self.overflow.swap(false, Ordering::SeqCst) {
            self.mark_dirty();
            self.last_event = Instant::now();
        }
    }

    /// Stops watching, then gives up the heartbeat lock.
    fn finish(self) {
        drop(self.watcher);
        if let Some(b) = self.beacon {
            b.retire();
        }
    }
}

/// One update; `Some(notes)` when it ran, `None` when another process was writing.
fn update(cfg: &WatchConfig, changes: &Changes) -> Result<Option<u64>> {
    if !cfg.vault.is_dir() {
        anyhow::bail!("the vault {} is not there", cfg.vault.display());
    }
    let mut opts = IndexOptions::new(&cfg.vault, &cfg.cache_dir);
    opts.pdf = cfg.pdf;
    let report = if changes.walks() {
        crate::index(&opts)?
    } else {
        let paths: Vec<PathBuf> = changes.paths.iter().cloned().collect();
        crate::index_paths(&opts, &paths)?
    };
    Ok((!report.busy).then_some(report.notes))
}

fn start_watcher(
    vault: &Path,
    tx: &SyncSender<Signal>,
    overflow: &Arc<AtomicBool>,
) -> Result<notify::RecommendedWatcher> {
    let tx = tx.clone();
    let overflow = Arc::clone(overflow);
    let mut w = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
        // Opening a file or a folder is an event too (inotify's IN_OPEN): every walk opens
        // each folder of the vault, every search reads its hits. Queued, those would fill the
        // queue, read as an overflow and start another walk, which opens every folder again.
        if res
            .as_ref()
            .is_ok_and(|ev| matches!(ev.kind, EventKind::Access(_)))
        {
            return;
        }
        if let Err(TrySendError::Full(_)) = tx.try_send(Signal::Event(res)) {
            overflow.store(true, Ordering::SeqCst);
        }
    })
    .context("cannot start the file watcher")?;
    w.watch(vault, RecursiveMode::Recursive)
        .with_context(|| format!("cannot watch {}", vault.display()))?;
    Ok(w)
}

/// Which folder the vault path names now (see `fileid`).
fn vault_identity(vault: &Path) -> Option<(u64, u64)> {
    crate::fileid::folder_id(vault)
}

/// Writes the heartbeat; `caught_up` only with a working watcher (without one, changes
/// could go unseen until the next walk).
fn publish(
    beacon: &Option<Beacon>,
    cfg: &WatchConfig,
    state: &Arc<Mutex<WatchState>>,
    caught_up: bool,
) {
    let hb = {
        let mut st = lock(state);
        st.caught_up = caught_up && beacon.is_some();
        Heartbeat {
            pid: std::process::id(),
            port: cfg.port,
            vault: cfg.vault.display().to_string(),
            beat_ns: now_ns(),
            last_event_ns: st.last_event_ns,
            last_update_ns: st.last_update_ns,
            caught_up: st.caught_up,
        }
    };
    if let Some(b) = beacon {
        let _ = b.beat(&hb);
    }
}

pub(crate) fn lock(state: &Mutex<WatchState>) -> std::sync::MutexGuard<'_, WatchState> {
    state
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
