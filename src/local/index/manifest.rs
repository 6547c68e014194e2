//! What the index holds per note path — `(size, mtime, document address)` — as one compact
//! table, compared against a walk of the vault on every freshness check.
//!
//! The check runs before each search, so this is on the critical path of every query: a
//! `HashMap<String, _>` cost one allocation and one UTF-8 validation per note to build, a
//! byte-at-a-time hash per lookup, and a free per note afterwards — 15 ms of a 50 ms check on
//! 38,000 notes. Here all paths live in one buffer, the table is open addressing over `u32`
//! slots, and the hash reads eight bytes at a time.

use anyhow::Result;
use tantivy::DocAddress;

/// The `stub` value of a placeholder for a file over its size cap (other placeholders: 2).
pub(crate) const STUB_TOO_LARGE: u64 = 1;
/// The `stub` value of a placeholder for a file whose content could not be indexed.
pub(crate) const STUB_FAILED: u64 = 2;

/// What the index holds for one path.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Known {
    pub(crate) size: u64,
    pub(crate) mtime_ns: i64,
    pub(crate) addr: DocAddress,
    /// A placeholder: the file could not be indexed (over its size cap, or its text could not
    /// be extracted); it is not read again until it changes.
    pub(crate) skipped: bool,
    /// That placeholder is for a file over its size cap (which a raised cap may admit), not
    /// one whose content failed.
    pub(crate) too_large: bool,
}

impl Known {
    /// What the fast fields of segment `seg_ord` say of `doc`.
    fn of(
        sizes: &tantivy::columnar::Column<u64>,
        mtimes: &tantivy::columnar::Column<i64>,
        stubs: Option<&tantivy::columnar::Column<u64>>,
        seg_ord: usize,
        doc: u32,
    ) -> Known {
        let stub = stubs.and_then(|c| c.first(doc));
        Known {
            size: sizes.first(doc).unwrap_or(0),
            mtime_ns: mtimes.first(doc).unwrap_or(0),
            addr: DocAddress::new(seg_ord as u32, doc),
            skipped: stub.is_some_and(|v| v != 0),
            too_large: stub == Some(STUB_TOO_LARGE),
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    hash: u64,
    start: usize,
    len: usize,
    known: Known,
    /// Already matched with a note on disk (by [`Manifest::take`]).
    taken: bool,
}

/// Path → [`Known`], for the live documents of one commit.
#[derive(Debug)]
pub(crate) struct Manifest {
    /// Every path, concatenated.
    bytes: Vec<u8>,
    entries: Vec<Entry>,
    /// Open addressing: 0 is empty, otherwise an index into `entries` plus one.
    slots: Vec<u32>,
    /// `64 - log2(slots.len())`: slots are picked by the hash's high bits, the best mixed.
    shift: u32,
    taken: usize,
}

/// A multiplicative hash over 8-byte words (the keys are the user's own paths, so resistance
/// to chosen collisions buys nothing here).
fn hash(key: &[u8]) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut h = (key.len() as u64).wrapping_mul(K);
    let mut words = key.chunks_exact(8);
    for w in &mut words {
        let mut b = [0u8; 8];
        b.copy_from_slice(w);
        h = (h.rotate_left(23) ^ u64::from_le_bytes(b)).wrapping_mul(K);
    }
    let rest = words.remainder();
    let mut b = [0u8; 8];
    b[..rest.len()].copy_from_slice(rest);
    h = (h.rotate_left(23) ^ u64::from_le_bytes(b)).wrapping_mul(K);
    h ^ (h >> 29)
}

impl Default for Manifest {
    fn default() -> Manifest {
        Manifest::with_capacity(0)
    }
}

impl Manifest {
    /// An empty table sized for `n` paths.
    pub(crate) fn with_capacity(n: usize) -> Manifest {
        let slots = (n * 2).next_power_of_two().max(16);
        Manifest {
            bytes: Vec::with_capacity(n * 48),
            entries: Vec::with_capacity(n),
            slots: vec![0; slots],
            shift: 64 - slots.trailing_zeros(),
            taken: 0,
        }
    }

    /// The live documents of `searcher`'s commit, read from the fast fields.
    pub(crate) fn read(searcher: &tantivy::Searcher) -> Result<Manifest> {
        let fields = crate::local::schema::fields();
        let mut out = Manifest::with_capacity(searcher.num_docs() as usize);
        let name = |f| fields.schema.get_field_name(f).to_string();
        let (path_name, size_name, mtime_name, skipped_name) = (
            name(fields.path),
            name(fields.size),
            name(fields.mtime_ns),
            name(fields.stub),
        );
        let mut by_ord: Vec<(usize, usize)> = Vec::new();
        let mut key_bytes: Vec<u8> = Vec::new();
        for (seg_ord, seg) in searcher.segment_readers().iter().enumerate() {
            let ff = seg.fast_fields();
            let Some(paths) = ff.str(&path_name)? else {
                continue;
            };
            let sizes = ff.u64(&size_name)?;
            let mtimes = ff.i64(&mtime_name)?;
            // Absent from a segment without placeholders.
            let skipped = ff.column_opt::<u64>(&skipped_name)?;
            let alive = seg.alive_bitset();
            // Decode the path dictionary once, in order (`ord_to_str` per document re-reads a
            // block each time).
            by_ord.clear();
            key_bytes.clear();
            let mut stream = paths.dictionary().stream()?;
            while stream.advance() {
                let start = key_bytes.len();
                key_bytes.extend_from_slice(stream.key());
                by_ord.push((start, key_bytes.len()));
            }
            for doc in 0..seg.max_doc() {
                if alive.is_some_and(|a| !a.is_alive(doc)) {
                    continue;
                }
                let Some(&(a, b)) = paths
                    .ords()
                    .first(doc)
                    .and_then(|ord| by_ord.get(ord as usize))
                else {
                    continue;
                };
                let known = Known::of(&sizes, &mtimes, skipped.as_ref(), seg_ord, doc);
                out.insert(&key_bytes[a..b], known);
            }
        }
        Ok(out)
    }

    /// What `searcher`'s commit holds for each of `paths` (those it has), looked up by term:
    /// an update for a few named paths reads a few postings, not the whole table.
    pub(crate) fn read_paths(searcher: &tantivy::Searcher, paths: &[String]) -> Result<Manifest> {
        let fields = crate::local::schema::fields();
        let name = |f| fields.schema.get_field_name(f).to_string();
        let mut out = Manifest::with_capacity(paths.len());
        for (seg_ord, seg) in searcher.segment_readers().iter().enumerate() {
            let postings = seg.inverted_index(fields.path)?;
            let ff = seg.fast_fields();
            let sizes = ff.u64(&name(fields.size))?;
            let mtimes = ff.i64(&name(fields.mtime_ns))?;
            let skipped = ff.column_opt::<u64>(&name(fields.stub))?;
            let alive = seg.alive_bitset();
            for path in paths {
                let term = tantivy::Term::from_field_text(fields.path, path);
                let Some(mut docs) =
                    postings.read_postings(&term, tantivy::schema::IndexRecordOption::Basic)?
                else {
                    continue;
                };
                let mut doc = tantivy::DocSet::doc(&docs);
                while doc != tantivy::TERMINATED {
                    if alive.is_none_or(|a| a.is_alive(doc)) {
                        let known = Known::of(&sizes, &mtimes, skipped.as_ref(), seg_ord, doc);
                        out.insert(path.as_bytes(), known);
                    }
                    doc = tantivy::DocSet::advance(&mut docs);
                }
            }
        }
        Ok(out)
    }

    /// Number of paths.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// No paths at all.
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn key(&self, e: &Entry) -> &[u8] {
        &self.bytes[e.start..e.start + e.len]
    }

    /// The slot holding `key`, or the empty slot where it would go.
    fn find(&self, key: &[u8], h: u64) -> usize {
        let mask = self.slots.len() - 1;
        let mut i = (h >> self.shift) as usize;
        loop {
            match self.slots[i] {
                0 => return i,
                s => {
                    let e = &self.entries[s as usize - 1];
                    if e.hash == h && self.key(e) == key {
                        return i;
                    }
                }
            }
            i = (i + 1) & mask;
        }
    }

    /// Adds or replaces `key`'s entry (a later segment's document wins, as the newer write).
    pub(crate) fn insert(&mut self, key: &[u8], known: Known) {
        if (self.entries.len() + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let h = hash(key);
        let i = self.find(key, h);
        match self.slots[i] {
            0 => {
                let start = self.bytes.len();
                self.bytes.extend_from_slice(key);
                self.entries.push(Entry {
                    hash: h,
                    start,
                    len: key.len(),
                    known,
                    taken: false,
                });
                self.slots[i] = self.entries.len() as u32;
            }
            s => self.entries[s as usize - 1].known = known,
        }
    }

    fn grow(&mut self) {
        let slots = (self.slots.len() * 2).max(16);
        self.slots = vec![0; slots];
        self.shift = 64 - slots.trailing_zeros();
        let mask = slots - 1;
        for (n, e) in self.entries.iter().enumerate() {
            let mut i = (e.hash >> self.shift) as usize;
            while self.slots[i] != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = n as u32 + 1;
        }
    }

    /// What the index holds for `path`, once: a second call for the same path gives `None`,
    /// so what is never taken is what the vault no longer has.
    pub(crate) fn take(&mut self, path: &str) -> Option<Known> {
        let key = path.as_bytes();
        let i = self.find(key, hash(key));
        let s = self.slots[i];
        if s == 0 {
            return None;
        }
        let e = &mut self.entries[s as usize - 1];
        if e.taken {
            return None;
        }
        e.taken = true;
        self.taken += 1;
        Some(e.known)
    }

    /// How many paths were never taken.
    pub(crate) fn untaken_len(&self) -> usize {
        self.entries.len() - self.taken
    }

    /// How many paths are notes and how many placeholders.
    pub(crate) fn counts(&self) -> (u64, u64) {
        let stubs = self.entries.iter().filter(|e| e.known.skipped).count() as u64;
        (self.entries.len() as u64 - stubs, stubs)
    }

    /// How many paths never taken are placeholders.
    pub(crate) fn untaken_placeholders(&self) -> usize {
        self.entries
            .iter()
            .filter(|e| !e.taken && e.known.skipped)
            .count()
    }

    /// The paths never taken.
    pub(crate) fn untaken(&self) -> Vec<String> {
        self.entries
            .iter()
            .filter(|e| !e.taken)
            .map(|e| String::from_utf8_lossy(self.key(e)).into_owned())
            .collect()
    }
}

/// Whether `searcher`'s commit holds a file below the folder `folder` (vault-relative): a path
/// that is gone and was such a folder takes its notes with it.
pub(crate) fn any_below(searcher: &tantivy::Searcher, folder: &str) -> Result<bool> {
    let field = crate::local::schema::fields().path;
    let lo = format!("{folder}/");
    // `0` follows `/` in byte order: every path below the folder sorts before it.
    let hi = format!("{folder}0");
    for seg in searcher.segment_readers() {
        let postings = seg.inverted_index(field)?;
        let mut terms = postings
            .terms()
            .range()
            .ge(lo.as_bytes())
            .lt(hi.as_bytes())
            .into_stream()?;
        while terms.advance() {
            let info = terms.value();
            let mut docs = postings
                .read_postings_from_terminfo(info, tantivy::schema::IndexRecordOption::Basic)?;
            let alive = seg.alive_bitset();
            let mut doc = tantivy::DocSet::doc(&docs);
            while doc != tantivy::TERMINATED {
                if alive.is_none_or(|a| a.is_alive(doc)) {
                    return Ok(true);
                }
                doc = tantivy::DocSet::advance(&mut docs);
            }
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn known(n: u64) -> Known {
        Known {
            size: n,
            mtime_ns: n as i64,
            addr: DocAddress::new(0, n as u32),
            skipped: false,
            too_large: false,
        }
    }

    #[test]
    fn behaves_like_a_map() {
        let mut m = Manifest::with_capacity(0);
        let mut reference = HashMap::new();
        // Keys of every length around the 8-byte words, shared prefixes, non-ASCII, and
        // repeats (replacing the earlier entry).
        for i in 0..5000u64 {
            let key = format!(
                "{}/é{}{}",
                "dir".repeat((i % 7) as usize),
                i % 3001,
                "x".repeat((i % 17) as usize)
            );
            m.insert(key.as_bytes(), known(i));
            reference.insert(key, i);
        }
        assert_eq!(m.len(), reference.len());
        let mut keys: Vec<_> = reference.keys().cloned().collect();
        keys.sort();
        for (n, k) in keys.iter().enumerate() {
            if n % 3 == 0 {
                continue;
            }
            assert_eq!(m.take(k).map(|k| k.size), Some(reference[k]));
            assert!(m.take(k).is_none(), "taken twice");
        }
        assert!(m.take("missing").is_none());
        assert!(m.take("").is_none());
        let mut left = m.untaken();
        left.sort();
        let expected: Vec<_> = keys.iter().step_by(3).cloned().collect();
        assert_eq!(left, expected);
        assert_eq!(m.untaken_len(), expected.len());
    }

    #[test]
    fn empty_key_and_empty_table() {
        let mut m = Manifest::default();
        assert!(m.is_empty());
        assert!(m.take("a").is_none());
        m.insert(b"", known(1));
        assert_eq!(m.take("").map(|k| k.size), Some(1));
    }
}
