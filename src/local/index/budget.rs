//! How much note text a build holds between its preparing threads and tantivy's indexing
//! threads. Reading and parsing outrun indexing, and tantivy's queue holds up to 10,000
//! batches, so without a bound a build of 100,000 notes held most of the vault in memory
//! before tantivy got to it. Each document carries a [`Share`] of the budget that returns when
//! tantivy, having indexed the document, drops it; a preparing thread with nothing unsent waits
//! while the budget is spent.
//!
//! When no share comes back for [`STALL`] (tantivy's indexing threads died, of a full disk
//! say, and their queue will never drain), the budget gives up bounding, so the build goes on
//! to the commit that reports the cause instead of waiting forever.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How long a wait may see no share returned before the budget stops bounding.
const STALL: Duration = Duration::from_secs(10);

/// Bytes of note text in flight, and how many may be.
#[derive(Debug)]
pub(in crate::local) struct Budget {
    /// Counted without the lock: a share is taken and returned once per document, and a
    /// lock (or a wake-up call) each time showed as system time.
    in_flight: AtomicU64,
    /// Held by a waiting thread between its check and its wait, and by the drop that wakes
    /// it, so that wake-up can't fall in between.
    gate: Mutex<()>,
    freed: Condvar,
    limit: u64,
    stall: Duration,
    /// Set once a wait stalled: no more waiting.
    given_up: AtomicBool,
}

/// A document's share of the budget, returned when it is dropped.
#[derive(Debug)]
pub(in crate::local) struct Share {
    budget: Arc<Budget>,
    bytes: u64,
}

impl Budget {
    pub(in crate::local) fn new(limit: u64) -> Arc<Budget> {
        Self::with_stall(limit, STALL)
    }

    fn with_stall(limit: u64, stall: Duration) -> Arc<Budget> {
        Arc::new(Budget {
            in_flight: AtomicU64::new(0),
            gate: Mutex::new(()),
            freed: Condvar::new(),
            limit,
            stall,
            given_up: AtomicBool::new(false),
        })
    }

    /// Counts `bytes` as in flight until the share is dropped. Never waits: a thread takes
    /// shares for the batch it is filling and waits only once that batch is sent
    /// ([`Budget::wait`]), so no thread waits on documents that it holds itself.
    pub(in crate::local) fn take(self: &Arc<Self>, bytes: u64) -> Share {
        self.in_flight.fetch_add(bytes, Ordering::AcqRel);
        Share {
            budget: Arc::clone(self),
            bytes,
        }
    }

    /// Waits while more than the limit is in flight. Call it holding no unsent share.
    pub(in crate::local) fn wait(&self) {
        if self.in_flight() <= self.limit || self.given_up.load(Ordering::Relaxed) {
            return;
        }
        let mut gate = self.gate.lock().unwrap_or_else(PoisonError::into_inner);
        let (mut last, mut since) = (self.in_flight(), Instant::now());
        while self.in_flight() > self.limit {
            gate = self
                .freed
                .wait_timeout(gate, self.stall)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
            let now = self.in_flight();
            if now < last {
                (last, since) = (now, Instant::now());
            } else if since.elapsed() >= self.stall {
                self.given_up.store(true, Ordering::Relaxed);
                return;
            }
        }
    }

    fn in_flight(&self) -> u64 {
        self.in_flight.load(Ordering::Acquire)
    }
}

impl Drop for Share {
    fn drop(&mut self) {
        let b = &self.budget;
        let before = b.in_flight.fetch_sub(self.bytes, Ordering::AcqRel);
        // Only the drop that brings the count back within the limit can have a thread to
        // wake (one waits only above it).
        if before > b.limit && before - self.bytes <= b.limit {
            let _gate = b.gate.lock().unwrap_or_else(PoisonError::into_inner);
            b.freed.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_waiting_thread_goes_on_once_shares_are_dropped() {
        let budget = Budget::new(10);
        let shares: Vec<Share> = (0..4).map(|_| budget.take(5)).collect();
        let waiter = {
            let b = Arc::clone(&budget);
            std::thread::spawn(move || b.wait())
        };
        drop(shares);
        waiter.join().unwrap();
        assert_eq!(budget.in_flight(), 0);
        // Within the limit, no wait at all.
        let _s = budget.take(10);
        budget.wait();
    }

    #[test]
    fn a_budget_that_nothing_returns_to_stops_bounding() {
        let budget = Budget::with_stall(10, Duration::from_millis(50));
        let _stuck = budget.take(11);
        budget.wait();
        // Given up: later waits return at once.
        assert!(budget.given_up.load(Ordering::Relaxed));
        budget.wait();
    }
}
