//! The bodies of recent `/search` answers, kept until the next commit.
//!
//! Clients of the plugin's API ask the same thing again and again: a search box re-sends its
//! query after a backspace, a browser extension on every reload of a results page, an agent
//! repeating a search across turns. Between two commits an answer can only change with a
//! note's file changing, and the watcher commits such a change within a fraction of a second,
//! so an answer is kept under the commit it was ranked on
//! ([`OpenIndex::generation`](crate::OpenIndex)) and the state of `.obsidian/app.json` (whose
//! exclusions each search reads), and all are dropped when either changes — the same
//! commit-keyed reuse as a search server's query-result cache. Between a save and its commit
//! (a fraction of a second; longer while the watcher catches up at start or waits to retry
//! after an error) a repeated query answers as it did before the save: ranked on the commit
//! before it, as any search then is, with that answer's excerpts and matches. Only a plain
//! answer is kept: every hit's note read, and unchanged while it was read; no warning.
//!
//! Bounded by count and by bytes; the oldest answer goes first. `/api/search` is not kept:
//! its `elapsed_seconds` says what the search itself took.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};

/// At most this many answers are kept.
const MAX_ANSWERS: usize = 256;
/// At most this many bytes of answers (bodies and queries) are kept.
const MAX_BYTES: usize = 8 << 20;

/// What an answer depends on besides its query: the commit searched and the vault's
/// exclusions file (length, mtime, inode; `None`: none there).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Version {
    pub(super) commit: u64,
    pub(super) exclusions: Option<(u64, std::time::SystemTime, u64)>,
}

/// Answers keyed by query, all of one [`Version`].
#[derive(Debug, Default)]
pub(super) struct Answers {
    kept: Mutex<Kept>,
}

#[derive(Debug, Default)]
struct Kept {
    version: Version,
    by_query: HashMap<String, Arc<[u8]>>,
    /// Oldest first.
    order: VecDeque<String>,
    bytes: usize,
}

impl Kept {
    /// The query is held twice (the map's key and the order's).
    fn cost(query: &str, body: &[u8]) -> usize {
        2 * query.len() + body.len()
    }

    /// Whether answers of `version` may be kept and looked up: they may, forgetting every
    /// answer of another version, unless it is of an older commit (a slow request's), which
    /// must not throw away the newer ones.
    fn at(&mut self, version: Version) -> bool {
        if version.commit < self.version.commit {
            return false;
        }
        if self.version != version {
            *self = Kept {
                version,
                ..Kept::default()
            };
        }
        true
    }
}

impl Answers {
    /// The body answered for `query` at `version`, if kept.
    pub(super) fn get(&self, version: Version, query: &str) -> Option<Arc<[u8]>> {
        let mut k = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        if !k.at(version) {
            return None;
        }
        k.by_query.get(query).cloned()
    }

    /// Keeps `body` as the answer for `query` at `version`; an answer larger than the whole
    /// budget is not kept.
    pub(super) fn put(&self, version: Version, query: &str, body: Arc<[u8]>) {
        let cost = Kept::cost(query, &body);
        if cost > MAX_BYTES {
            return;
        }
        let mut k = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        if !k.at(version) || k.by_query.contains_key(query) {
            return;
        }
        while k.order.len() >= MAX_ANSWERS || k.bytes + cost > MAX_BYTES {
            let Some(old) = k.order.pop_front() else {
                break;
            };
            if let Some(b) = k.by_query.remove(&old) {
                k.bytes -= Kept::cost(&old, &b);
            }
        }
        k.bytes += cost;
        k.order.push_back(query.to_string());
        k.by_query.insert(query.to_string(), body);
    }

    #[cfg(test)]
    fn len_and_bytes(&self) -> (usize, usize) {
        let k = self.kept.lock().unwrap();
        (k.by_query.len(), k.bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(s: &str) -> Arc<[u8]> {
        Arc::from(s.as_bytes())
    }

    fn v(commit: u64) -> Version {
        Version {
            commit,
            exclusions: None,
        }
    }

    #[test]
    fn an_answer_is_kept_until_the_next_commit() {
        let a = Answers::default();
        a.put(v(1), "sqlite", body("[1]"));
        assert_eq!(a.get(v(1), "sqlite").as_deref(), Some(&b"[1]"[..]));
        assert_eq!(a.get(v(1), "other"), None);
        // Another commit: nothing of the last is answered, and nothing of it comes back.
        assert_eq!(a.get(v(2), "sqlite"), None);
        assert_eq!(a.get(v(1), "sqlite"), None);
        assert_eq!(a.len_and_bytes(), (0, 0));
        // The same commit with other exclusions: another version too.
        a.put(v(3), "sqlite", body("[3]"));
        let edited = Version {
            commit: 3,
            exclusions: Some((2, std::time::SystemTime::UNIX_EPOCH, 9)),
        };
        assert_eq!(a.get(edited, "sqlite"), None);
        // A slow request of an older commit neither finds nor drops the newer answers.
        a.put(v(4), "new", body("[4]"));
        a.put(v(2), "old", body("[2]"));
        assert_eq!(a.get(v(2), "new"), None);
        assert!(a.get(v(4), "new").is_some() && a.get(v(4), "old").is_none());
    }

    #[test]
    fn the_oldest_answer_goes_first_past_the_count() {
        let a = Answers::default();
        for i in 0..MAX_ANSWERS + 3 {
            a.put(v(7), &format!("q{i}"), body("[]"));
        }
        let (n, _) = a.len_and_bytes();
        assert_eq!(n, MAX_ANSWERS);
        assert_eq!(a.get(v(7), "q0"), None);
        assert_eq!(a.get(v(7), "q2"), None);
        assert!(a.get(v(7), "q3").is_some());
        assert!(a.get(v(7), &format!("q{}", MAX_ANSWERS + 2)).is_some());
    }

    #[test]
    fn the_bytes_stay_within_the_budget() {
        let a = Answers::default();
        let big = "x".repeat(MAX_BYTES / 3);
        for i in 0..5 {
            a.put(v(1), &format!("q{i}"), body(&big));
            assert!(a.len_and_bytes().1 <= MAX_BYTES);
        }
        assert_eq!(a.len_and_bytes().0, 2);
        assert!(a.get(v(1), "q4").is_some() && a.get(v(1), "q0").is_none());
        // One answer over the whole budget is not kept, and costs the others nothing.
        a.put(v(1), "huge", body(&"y".repeat(MAX_BYTES + 1)));
        assert!(a.get(v(1), "huge").is_none() && a.get(v(1), "q4").is_some());
    }
}
