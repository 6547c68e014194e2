//! How much note text a build holds between its preparing threads and tantivy's indexing
//! threads. Reading and parsing outrun indexing, and tantivy's queue holds up to 10,000
//! batches, so without a bound a build of 100,000 notes held most of the vault in memory
//! before tantivy got to it. Each document carries a [`Share`] of the budget that returns when
//! tantivy, having indexed the document, drops it; a preparing thread with nothing unsent waits
//! while the budget is spent.

use std::sync::{Arc, Condvar, Mutex, PoisonError};

/// Bytes of note text in flight, and how many may be.
#[derive(Debug)]
pub(in crate::local) struct Budget {
    in_flight: Mutex<u64>,
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
            in_flight: Mutex::new(0),
            freed: Condvar::new(),
            limit,
        })
    }

    /// Counts `bytes` as in flight until the share is dropped. Never waits: a thread takes
    /// shares for the batch it is filling and waits only once that batch is sent
    /// ([`Budget::wait`]), so no thread waits on documents that it holds itself.
    pub(in crate::local) fn take(self: &Arc<Self>, bytes: u64) -> Share {
        *self.lock() += bytes;
        Share {
            budget: Arc::clone(self),
            bytes,
        }
    }

    /// Waits while more than the limit is in flight. Call it holding no unsent share.
    pub(in crate::local) fn wait(&self) {
        let mut n = self.lock();
        while *n > self.limit {
            n = self.freed.wait(n).unwrap_or_else(PoisonError::into_inner);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, u64> {
        self.in_flight
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for Share {
    fn drop(&mut self) {
        let mut n = self.budget.lock();
        *n = n.saturating_sub(self.bytes);
        if *n <= self.budget.limit {
            self.budget.freed.notify_all();
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
        assert_eq!(*budget.lock(), 0);
        // Within the limit, no wait at all.
        let _s = budget.take(10);
        budget.wait();
    }
}
