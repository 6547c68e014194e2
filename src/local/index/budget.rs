//! How much note text a build holds between its preparing threads and tantivy's indexing
//! threads. Reading and parsing outrun indexing, and tantivy's queue holds up to 10,000
//! batches, so without a bound a build of 100,000 notes held most of the vault in memory
//! before tantivy got to it. Each document carries a [`Share`] of the budget that returns when
//! tantivy, having indexed the document, drops it; a preparing thread with nothing unsent waits
//! while the budget is spent.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};

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
}

/// A document's share of the budget, returned when it is dropped.
#[derive(Debug)]
pub(in crate::local) struct Share {
    budget: Arc<Budget>,
    bytes: u64,
}

impl Budget {
    pub(in crate::local) fn new(limit: u64) -> Arc<Budget> {
        Arc::new(Budget {
            in_flight: AtomicU64::new(0),
            gate: Mutex::new(()),
            freed: Condvar::new(),
            limit,
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
        if self.in_flight() <= self.limit {
            return;
        }
        let mut gate = self.gate.lock().unwrap_or_else(PoisonError::into_inner);
        while self.in_flight() > self.limit {
            gate = self
                .freed
                .wait(gate)
                .unwrap_or_else(PoisonError::into_inner);
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
}
