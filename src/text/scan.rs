//! What the scanners over a line (links, tags, comments) share so that each stays linear in
//! the line's length however the line is built — a note is anyone's text, and the first search
//! after a save waits for its indexing.
//!
//! Inline code: as CommonMark reads it, a run of n backticks opens a span that the next run of
//! exactly n backticks closes; a run that no later run of its length closes is text. Looking
//! for the closer from each opening run costs the rest of the line per unclosed run, which is
//! quadratic on a line of runs of lengths 1, 2, 3, …; [`CodeRuns`] lists a line's runs once
//! and finds each one's next run of the same length in one pass from the end.
//!
//! [`NextByte`] answers "where is the next `b` at or after `i`" for rising `i` from one memo,
//! so asking again from the `[` after it does not search the same bytes again.
//!
//! The bytes these look ahead over are counted per line (a test hook, [`worst_ratio`]): the
//! most any line cost, as a multiple of its length, is what a quadratic scan would blow up.

use std::cell::Cell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

/// No run, no byte.
const NONE: usize = usize::MAX;

/// The backtick runs of one line (or of its part from some offset on).
pub(crate) struct CodeRuns {
    /// `(start, end)` of each maximal run, in order.
    runs: Vec<(usize, usize)>,
    /// For each run, the index of the next run of the same length, or [`NONE`].
    next: Vec<usize>,
}

impl CodeRuns {
    /// The runs of `b[from..to]`, where `to` is the line's end (a run ends there).
    pub(crate) fn new(b: &[u8], from: usize, to: usize) -> CodeRuns {
        let mut runs = Vec::new();
        let mut at = from;
        while let Some(k) = memchr::memchr(b'`', &b[at..to]) {
            let start = at + k;
            let end = start + b[start..to].iter().take_while(|&&c| c == b'`').count();
            runs.push((start, end));
            at = end;
        }
        look(to - from);
        let mut next = vec![NONE; runs.len()];
        let mut last: HashMap<usize, usize> = HashMap::new();
        for (k, &(start, end)) in runs.iter().enumerate().rev() {
            if let Some(j) = last.insert(end - start, k) {
                next[k] = j;
            }
        }
        CodeRuns { runs, next }
    }

    /// The end of the code span that the run starting at `i` opens, or `None` when no later
    /// run of its length closes it (then the run is text). `i` is the start of a run.
    pub(crate) fn close(&self, i: usize) -> Option<usize> {
        let k = self.runs.partition_point(|r| r.0 < i);
        debug_assert_eq!(self.runs.get(k).map(|r| r.0), Some(i), "not a run start");
        match self.next.get(k) {
            Some(&j) if j != NONE && self.runs[k].0 == i => Some(self.runs[j].1),
            _ => None,
        }
    }

    /// The code spans read from the first run on: each opening run up to its closer, an
    /// unclosed run passed over as text.
    pub(crate) fn spans(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut k = 0;
        while k < self.runs.len() {
            match self.next[k] {
                NONE => k += 1,
                j => {
                    out.push((self.runs[k].0, self.runs[j].1));
                    k = j + 1;
                }
            }
        }
        out
    }
}

/// The code spans of `line`, as [`CodeRuns::spans`] reads them.
pub(crate) fn code_spans(line: &str) -> Vec<(usize, usize)> {
    let b = line.as_bytes();
    match memchr::memchr(b'`', b) {
        Some(first) => CodeRuns::new(b, first, b.len()).spans(),
        None => Vec::new(),
    }
}

/// The next occurrence of one byte at or after a position, remembered: asked from rising
/// positions, every byte is searched at most once.
pub(crate) struct NextByte {
    byte: u8,
    /// The last search started here…
    from: usize,
    /// …and found the byte here ([`NONE`]: nowhere after `from`).
    at: usize,
}

impl NextByte {
    pub(crate) fn new(byte: u8) -> NextByte {
        NextByte {
            byte,
            from: NONE,
            at: NONE,
        }
    }

    /// The offset of the first `self.byte` in `b` at or after `i`.
    pub(crate) fn find(&mut self, b: &[u8], i: usize) -> Option<usize> {
        if !(self.from <= i && (self.at == NONE || i <= self.at)) {
            let found = memchr::memchr(self.byte, b.get(i..).unwrap_or_default());
            look(found.map_or(b.len().saturating_sub(i), |k| k + 1));
            self.from = i;
            self.at = found.map_or(NONE, |k| i + k);
        }
        (self.at != NONE).then_some(self.at)
    }
}

thread_local! {
    /// Bytes looked ahead over on this thread since the last [`end_line`].
    static LOOKED: Cell<usize> = const { Cell::new(0) };
}

/// The most a line cost the scanners since the last [`worst_ratio`], in bytes looked at per
/// byte of the line.
static WORST: AtomicU64 = AtomicU64::new(0);

/// Counts `bytes` looked ahead over for the line being scanned.
pub(crate) fn look(bytes: usize) {
    LOOKED.with(|l| l.set(l.get().saturating_add(bytes)));
}

/// Ends the scan of a line (or stretch) `len` bytes long: what it cost joins [`WORST`].
pub(crate) fn end_line(len: usize) {
    let looked = LOOKED.with(|l| l.replace(0));
    if looked > 0 {
        WORST.fetch_max((looked / len.max(1)) as u64, Ordering::Relaxed);
    }
}

/// Not API, a test hook: the most bytes a scan looked at per byte of its line since the last
/// call (every thread); resets it. Linear scans keep it a small constant on any line.
pub(crate) fn worst_ratio() -> u64 {
    WORST.swap(0, Ordering::Relaxed)
}

/// The bytes looked ahead over on this thread since the last call.
#[cfg(test)]
pub(crate) fn take_looked() -> usize {
    LOOKED.with(|l| l.replace(0))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The code spans as the scanners read them before [`CodeRuns`]: from each opening run,
    /// a search of the rest of the line for a run of its length.
    fn spans_by_rescanning(line: &str) -> Vec<(usize, usize)> {
        let b = line.as_bytes();
        let mut spans = Vec::new();
        let mut i = 0;
        while i < b.len() {
            if b[i] != b'`' {
                i += 1;
                continue;
            }
            let open = b[i..].iter().take_while(|&&c| c == b'`').count();
            let mut j = i + open;
            let mut closed = None;
            while j < b.len() {
                if b[j] == b'`' {
                    let run = b[j..].iter().take_while(|&&c| c == b'`').count();
                    if run == open {
                        closed = Some(j + run);
                        break;
                    }
                    j += run;
                } else {
                    j += 1;
                }
            }
            match closed {
                Some(end) => {
                    spans.push((i, end));
                    i = end;
                }
                None => i += open,
            }
        }
        spans
    }

    /// A small deterministic generator of lines over a few bytes.
    pub(crate) fn lines(alphabet: &[u8], count: usize, max_len: usize) -> Vec<String> {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut step = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        (0..count)
            .map(|_| {
                let len = (step() % max_len as u64) as usize;
                (0..len)
                    .map(|_| alphabet[(step() % alphabet.len() as u64) as usize] as char)
                    .collect()
            })
            .collect()
    }

    #[test]
    fn the_same_spans_as_rescanning_the_line() {
        for line in [
            "a `b` c",
            "``a ` b`` `c",
            "` `` ``` `` `",
            "```a``b```",
            "`unclosed",
            "``` x `` y ` z ``` w `",
        ] {
            assert_eq!(code_spans(line), spans_by_rescanning(line), "{line}");
        }
        for line in lines(b"`` a", 3000, 40) {
            assert_eq!(code_spans(&line), spans_by_rescanning(&line), "{line:?}");
        }
    }

    #[test]
    fn runs_of_every_length_cost_one_pass() {
        // Runs of lengths 1…2000, none closed: rescanning looks at the rest of the line from
        // each, 2000 × 1 MB.
        let line: String = (1..=2000).map(|n| "`".repeat(n) + " x ").collect();
        take_looked();
        let runs = CodeRuns::new(line.as_bytes(), 0, line.len());
        assert!(runs.spans().is_empty());
        assert!(take_looked() <= line.len());
        let closed = format!("{line} {}", "`".repeat(7));
        assert_eq!(code_spans(&closed).len(), 1);
    }

    #[test]
    fn next_byte_searches_each_byte_once() {
        let b = b"..)....)..";
        let mut n = NextByte::new(b')');
        take_looked();
        let got: Vec<_> = (0..=b.len()).map(|i| n.find(b, i)).collect();
        let want: Vec<_> = (0..=b.len())
            .map(|i| b[i..].iter().position(|&c| c == b')').map(|k| i + k))
            .collect();
        assert_eq!(got, want);
        assert!(take_looked() <= b.len());
    }
}
