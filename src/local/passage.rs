//! Passages: where in a note the query's words stand together, and how to show that spot
//! without reading the whole note.
//!
//! Vaults collect giant notes (web clippings, running logs, exported dumps) that hold nearly
//! every word of the vault, far apart. Counted over the whole note, such a note matches every
//! query "with all its words"; counted within one passage, it matches only where its text
//! really holds the words together. So the re-rank scores the best *window* of
//! [`window_tokens`] body positions (the one holding the most distinct query words, rarer
//! words counting more), taken from the postings' positions it reads anyway.
//!
//! Showing that window needs its byte offset, line and heading. Tantivy keeps token positions,
//! not offsets, so notes of [`CHECKPOINT_MIN_BYTES`] and more carry a small stored table of
//! *checkpoints* (every [`CHECKPOINT_EVERY`] tokens: token position, byte offset, line, the
//! last heading line before it and whether it lies in a code fence). A position is mapped to
//! a byte by tokenizing only from the checkpoint before it to the one after it; a smaller
//! note is tokenized up to the position only. Either way the work per hit is bounded by a
//! constant, not by the note's size; [`work`] counts it so tests can assert that.

use std::cell::Cell;

use tantivy::tokenizer::{TextAnalyzer, TokenStream};

use crate::local::rank::tune;
use crate::text::{excerpt, note};

/// Notes at least this long (bytes) get a checkpoint table; shorter ones are tokenized up to
/// the wanted position at search time, which is bounded by this size.
pub(crate) const CHECKPOINT_MIN_BYTES: usize = 8 * 1024;
/// Tokens between two checkpoints (at most this many are tokenized to locate a position).
pub(crate) const CHECKPOINT_EVERY: usize = 256;
/// Bytes of one checkpoint: position, offset, line, heading offset, fence (u32 LE each).
const CHECKPOINT_BYTES: usize = 20;
/// At most this much of a line is read as a heading (a one-line note of megabytes that starts
/// with `#` is not shown whole as its own heading).
const HEADING_BYTES: usize = 240;
/// A heading offset meaning "no heading before".
const NO_HEADING: u32 = u32::MAX;

/// Body positions per window: a passage of a few sentences.
pub(crate) fn window_tokens() -> u32 {
    tune("passage", 40.0).max(1.0) as u32
}

/// One occurrence of a query term (through one of its variants) in a note's body.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Occ {
    pub pos: u32,
    /// Index of the query term.
    pub term: u16,
    /// Weight of the variant (1 exact, below for inflections, prefixes, typos).
    pub weight: f32,
}

/// The best window of a note.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Window {
    /// First and last position of an occurrence in the window.
    pub first: u32,
    pub last: u32,
    /// Best variant weight of each query term inside the window (0 when absent).
    pub per_term: Vec<f32>,
    /// Weighted occurrences of each term inside the window.
    pub tf: Vec<f32>,
    /// Σ rarity × best weight.
    pub score: f32,
}

/// Finds the window of `width` positions that holds the most of the query: the highest sum of
/// `rarity[t] × best weight of t` over the distinct terms in it; the earliest on ties. Only
/// occurrences at `min_pos` or later are considered. `occs` is sorted here.
pub(crate) fn best_window(
    occs: &mut [Occ],
    rarity: &[f32],
    width: u32,
    min_pos: u32,
) -> Option<Window> {
    occs.sort_by(|a, b| a.pos.cmp(&b.pos).then(a.term.cmp(&b.term)));
    let start = occs.partition_point(|o| o.pos < min_pos);
    let occs = &occs[start..];
    if occs.is_empty() {
        return None;
    }
    let n = rarity.len();
    // Weight levels: the few distinct variant weights, so a term's best weight in the window
    // is kept as counts per level and survives removals.
    let mut levels: Vec<f32> = Vec::new();
    for o in occs {
        if !levels.contains(&o.weight) {
            levels.push(o.weight);
        }
    }
    levels.sort_by(|a, b| b.partial_cmp(a).unwrap_or(std::cmp::Ordering::Equal));
    let level_of = |w: f32| levels.iter().position(|&l| l == w).unwrap_or(0);
    let mut counts = vec![0u32; n * levels.len()];
    let score_of = |counts: &[u32]| -> f32 {
        (0..n)
            .map(|t| {
                let row = &counts[t * levels.len()..(t + 1) * levels.len()];
                row.iter()
                    .position(|&c| c > 0)
                    .map_or(0.0, |l| levels[l] * rarity[t])
            })
            .sum()
    };
    let mut best: Option<(f32, usize, usize)> = None;
    let mut lo = 0usize;
    for hi in 0..occs.len() {
        let o = occs[hi];
        if usize::from(o.term) >= n {
            continue;
        }
        counts[usize::from(o.term) * levels.len() + level_of(o.weight)] += 1;
        while occs[hi].pos - occs[lo].pos >= width {
            let r = occs[lo];
            if usize::from(r.term) < n {
                counts[usize::from(r.term) * levels.len() + level_of(r.weight)] -= 1;
            }
            lo += 1;
        }
        let s = score_of(&counts);
        if best.is_none_or(|(b, _, _)| s > b + 1e-6) {
            best = Some((s, lo, hi));
        }
    }
    let (score, lo, hi) = best?;
    let mut w = Window {
        first: occs[lo].pos,
        last: occs[hi].pos,
        per_term: vec![0.0; n],
        tf: vec![0.0; n],
        score,
    };
    for o in &occs[lo..=hi] {
        let t = usize::from(o.term);
        if t < n {
            w.per_term[t] = w.per_term[t].max(o.weight);
            w.tf[t] += o.weight;
        }
    }
    Some(w)
}

/// What the bonus signals count of term `k` in the text: its best variant weight, its
/// heading match and its weighted frequency, all within the best window (the heading text is
/// part of the body, so a heading near the other words is inside the window too).
pub(crate) fn near(
    body: f32,
    head: f32,
    body_tf: f32,
    window: Option<&Window>,
    k: usize,
) -> (f32, f32, f32) {
    if tune("prox", 1.0) == 0.0 {
        return (body, head, body_tf);
    }
    let (w, tf) = window.map_or((0.0, 0.0), |w| {
        (
            w.per_term.get(k).copied().unwrap_or(0.0),
            w.tf.get(k).copied().unwrap_or(0.0),
        )
    });
    let head = if tune("prox_head", 0.0) > 0.0 {
        head
    } else {
        0.0
    };
    let tf = if tune("prox_tf", 1.0) > 0.0 {
        tf
    } else {
        body_tf
    };
    (w, head, tf)
}

/// How much the note-wide signals (heading matches) say about a note of `body_len` tokens: 1
/// up to a long article, then falling with the length. A heading match in a note of a
/// thousand headings says little about what the note is about.
pub(crate) fn focus(body_len: u32) -> f32 {
    let long = tune("focus_len", 2000.0);
    if tune("prox", 1.0) == 0.0 || body_len as f32 <= long {
        1.0
    } else {
        long / body_len as f32
    }
}

/// Points taken off a note of `body_len` tokens beyond a long article, for a query of
/// `terms` words: `len_prior` × ln(length ÷ article) × (terms − 1) ÷ terms. A giant note offers
/// one candidate window per few dozen tokens, and the best of that many windows scores higher
/// by chance alone — one can pair a neighbouring note's exact word with this note's passage —
/// growing with the log of how many there are. Only a combination of words gains from that
/// choice: one word is in the note or not, so a one-word query costs nothing.
pub(crate) fn length_prior(body_len: u32, terms: usize) -> f32 {
    let long = tune("focus_len", 2000.0);
    if tune("prox", 1.0) == 0.0 || body_len as f32 <= long || terms < 2 {
        0.0
    } else {
        let combined = (terms - 1) as f32 / terms as f32;
        tune("len_prior", 5.0) * (body_len as f32 / long).ln() * combined
    }
}

/// Where a body position lies in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Spot {
    /// Byte offset of the token.
    pub offset: usize,
    /// 1-based line.
    pub line: u64,
    /// The nearest heading at or above it.
    pub heading: Option<String>,
}

/// One row of the checkpoint table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Checkpoint {
    pos: u32,
    offset: u32,
    line: u32,
    heading: u32,
    fence: u32,
}

/// The checkpoint table of `text` (empty below [`CHECKPOINT_MIN_BYTES`]). The first row is a
/// header: `pos` is the position of the first token after the frontmatter (`text_start`), and
/// `fence` is 1 when `exact`: the text is the file's bytes as they are (valid UTF-8, no BOM),
/// so its offsets are offsets in the file ([`disk`]).
pub(crate) fn checkpoints(
    analyzer: &mut TextAnalyzer,
    text: &str,
    text_start: usize,
    exact: bool,
) -> Vec<u8> {
    if text.len() < CHECKPOINT_MIN_BYTES || text.len() > u32::MAX as usize {
        return Vec::new();
    }
    let mut rows: Vec<Checkpoint> = Vec::new();
    let mut header_pos: Option<u32> = None;
    let mut since = CHECKPOINT_EVERY;
    let mut last_offset = usize::MAX;
    let mut scan = LineScan::new(text, text_start);
    let mut stream = analyzer.token_stream(text);
    while stream.advance() {
        let t = stream.token();
        if header_pos.is_none() && t.offset_from >= text_start {
            header_pos = Some(t.position as u32);
        }
        let fresh = t.offset_from != last_offset;
        last_offset = t.offset_from;
        since += 1;
        // A checkpoint sits on the first token of a word that follows whitespace: tokenizing
        // from there yields the same tokens, shifted by its position.
        if since >= CHECKPOINT_EVERY && fresh && follows_space(text, t.offset_from) {
            scan.advance_to(t.offset_from);
            rows.push(Checkpoint {
                pos: t.position as u32,
                offset: t.offset_from as u32,
                line: scan.line as u32,
                heading: scan.heading,
                fence: u32::from(scan.fence.is_some()) + u32::from(scan.fence == Some("~~~")),
            });
            since = 0;
        }
    }
    let header = Checkpoint {
        pos: header_pos.unwrap_or(u32::MAX),
        offset: text_start as u32,
        line: 1,
        heading: NO_HEADING,
        fence: u32::from(exact),
    };
    encode(std::iter::once(header).chain(rows))
}

fn encode(rows: impl Iterator<Item = Checkpoint>) -> Vec<u8> {
    let mut out = Vec::new();
    for r in rows {
        for v in [r.pos, r.offset, r.line, r.heading, r.fence] {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    out
}

/// Is the byte before `offset` one the tokenizer always splits at (ASCII, neither part of a
/// word nor a joiner)? Text without any (a run of CJK, say) gets no checkpoints.
fn follows_space(text: &str, offset: usize) -> bool {
    offset == 0 || {
        let b = text.as_bytes()[offset - 1];
        b.is_ascii() && !b.is_ascii_alphanumeric() && !matches!(b, b'-' | b'_' | b'.' | b'\'')
    }
}

fn rows(table: &[u8]) -> impl Iterator<Item = Checkpoint> + '_ {
    table.chunks_exact(CHECKPOINT_BYTES).map(|c| {
        let v = |k: usize| u32::from_le_bytes([c[4 * k], c[4 * k + 1], c[4 * k + 2], c[4 * k + 3]]);
        Checkpoint {
            pos: v(0),
            offset: v(1),
            line: v(2),
            heading: v(3),
            fence: v(4),
        }
    })
}

/// The end of the frontmatter as the table recorded it (`None` without a table).
pub(crate) fn table_text_start(table: &[u8]) -> Option<usize> {
    rows(table).next().map(|h| h.offset as usize)
}

/// The position of the first token after the frontmatter.
pub(crate) fn text_start_pos(
    analyzer: &mut TextAnalyzer,
    text: &str,
    table: &[u8],
    text_start: usize,
) -> u32 {
    if let Some(h) = rows(table).next() {
        return h.pos;
    }
    if text_start == 0 {
        return 0;
    }
    // A small note: tokenize its frontmatter (bounded by CHECKPOINT_MIN_BYTES).
    let head = &text[..excerpt::floor_char_boundary(text, text_start)];
    add_work(head.len());
    let mut stream = analyzer.token_stream(head);
    let mut next = 0u32;
    while stream.advance() {
        let t = stream.token();
        next = next.max((t.position + t.position_length.max(1)) as u32);
    }
    next
}

/// Byte offset, line and heading of body position `pos`, tokenizing at most one checkpoint's
/// stretch of the text (or, without a table, the text up to the position).
pub(crate) fn locate(
    analyzer: &mut TextAnalyzer,
    text: &str,
    table: &[u8],
    text_start: usize,
    pos: u32,
) -> Spot {
    let (base, next) = around(table, pos);
    let end = next.map_or(text.len(), |r| r.offset as usize);
    let from = excerpt::floor_char_boundary(text, base.offset as usize);
    let end = excerpt::floor_char_boundary(text, end.max(from));
    // Without a table the note is below CHECKPOINT_MIN_BYTES: tokenizing it is bounded too.
    let slice = &text[from..end];
    add_work(slice.len());
    let mut offset = None;
    let mut stream = analyzer.token_stream(slice);
    while stream.advance() {
        let t = stream.token();
        if base.pos + t.position as u32 >= pos {
            offset = Some(from + t.offset_from);
            break;
        }
    }
    let offset = offset.unwrap_or(end);
    let mut scan = LineScan {
        text,
        at: from,
        line: u64::from(base.line),
        heading: base.heading,
        fence: match base.fence {
            1 => Some("```"),
            2 => Some("~~~"),
            _ => None,
        },
        text_start,
        // A checkpoint lies inside a line, which the table already looked at.
        looked: from != 0,
        clear: from,
    };
    scan.advance_to(offset);
    scan.spot(offset)
}

/// The checkpoint at or before body position `pos` (the start of the note when none is) and
/// the one after it: the stretch to tokenize to locate `pos`.
fn around(table: &[u8], pos: u32) -> (Checkpoint, Option<Checkpoint>) {
    let mut base = Checkpoint {
        pos: 0,
        offset: 0,
        line: 1,
        heading: NO_HEADING,
        fence: 0,
    };
    for r in rows(table).skip(1) {
        if r.pos > pos {
            return (base, Some(r));
        }
        base = r;
    }
    (base, None)
}

/// Walks a text line by line, tracking the line number, code fences and the last heading.
struct LineScan<'a> {
    text: &'a str,
    /// Start of the current line (or where the walk started, inside a line).
    at: usize,
    line: u64,
    heading: u32,
    fence: Option<&'static str>,
    text_start: usize,
    /// The current line was looked at (or starts before the walk did).
    looked: bool,
    clear: usize,
}

impl<'a> LineScan<'a> {
    /// The spot at `offset`, once the scan has advanced to it.
    fn spot(&self, offset: usize) -> Spot {
        Spot {
            offset,
            line: self.line,
            heading: (self.heading != NO_HEADING)
                .then(|| heading_text(self.text, self.heading as usize))
                .flatten(),
        }
    }

    fn new(text: &'a str, text_start: usize) -> Self {
        LineScan {
            text,
            at: 0,
            line: 1,
            heading: NO_HEADING,
            fence: None,
            text_start,
            looked: false,
            clear: 0,
        }
    }

    /// Moves to the line holding byte `to`, looking at every line that starts at or before it.
    /// Nothing past `to` (plus a heading's worth of bytes) is read, so a note written as one
    /// line of megabytes costs no more than a short one.
    fn advance_to(&mut self, to: usize) {
        let b = self.text.as_bytes();
        loop {
            let limit = excerpt::floor_char_boundary(self.text, to.max(self.at + HEADING_BYTES));
            // Bytes before `clear` on this line are known to hold no line break: a long line is
            // searched once, not once per call.
            let from = self.clear.clamp(self.at, limit);
            let eol = self.text[from..limit].find(['\n', '\r']).map(|i| from + i);
            self.clear = eol.unwrap_or(limit);
            if !self.looked {
                self.looked = true;
                if self.at >= self.text_start {
                    let cap = excerpt::floor_char_boundary(self.text, self.at + HEADING_BYTES);
                    let line = &self.text[self.at..eol.unwrap_or(limit).min(cap.max(self.at))];
                    self.look_at(line);
                }
            }
            let Some(eol) = eol.filter(|&e| e < to) else {
                break;
            };
            self.at = eol
                + if b[eol] == b'\r' && b.get(eol + 1) == Some(&b'\n') {
                    2
                } else {
                    1
                };
            self.line += 1;
            self.looked = false;
        }
    }

    fn look_at(&mut self, line: &str) {
        let trimmed = line.trim_start();
        if line.len() - trimmed.len() > 3 {
            return;
        }
        if let Some(f) = self.fence {
            if trimmed.starts_with(f) {
                self.fence = None;
            }
        } else if trimmed.starts_with("```") {
            self.fence = Some("```");
        } else if trimmed.starts_with("~~~") {
            self.fence = Some("~~~");
        } else if note::heading(trimmed).is_some() {
            self.heading = self.at as u32;
        }
    }
}

fn heading_text(text: &str, at: usize) -> Option<String> {
    let end = excerpt::floor_char_boundary(text, at.saturating_add(HEADING_BYTES));
    let rest = text.get(at..end)?;
    let line = &rest[..rest.find(['\n', '\r']).unwrap_or(rest.len())];
    note::heading(line.trim_start()).map(|(_, t)| t.to_string())
}

/// Appends the positions of the term the postings are on (in their current document).
pub(crate) fn collect(
    postings: &mut tantivy::postings::SegmentPostings,
    term: usize,
    weight: f32,
    out: &mut Vec<Occ>,
) {
    let mut pos = Vec::new();
    tantivy::postings::Postings::positions(postings, &mut pos);
    let term = u16::try_from(term).unwrap_or(u16::MAX);
    out.extend(pos.into_iter().map(|pos| Occ { pos, term, weight }));
}

/// The first position at `min_pos` or later where `phrase` starts (consecutive positions).
fn phrase_at(
    positions: &std::collections::HashMap<String, Vec<u32>>,
    phrase: &[String],
    min_pos: u32,
) -> Option<u32> {
    let first = positions.get(phrase.first()?)?;
    first.iter().copied().filter(|&p| p >= min_pos).find(|&p| {
        phrase[1..].iter().enumerate().all(|(k, t)| {
            positions
                .get(t)
                .is_some_and(|v| v.binary_search(&(p + k as u32 + 1)).is_ok())
        })
    })
}

/// Where a passage starts: a quoted phrase in the body, else its best window, else any.
pub(crate) fn passage_pos(
    phrases: &[&[String]],
    positions: &std::collections::HashMap<String, Vec<u32>>,
    occs: &mut [Occ],
    rarity: &[f32],
    min_pos: u32,
) -> Option<u32> {
    let width = window_tokens();
    phrases
        .iter()
        .filter(|p| p.len() >= 2)
        .find_map(|p| phrase_at(positions, p, min_pos))
        .or_else(|| best_window(occs, rarity, width, min_pos).map(|w| w.first))
        .or_else(|| best_window(occs, rarity, width, 0).map(|w| w.first))
}

/// What a hit shows: where its excerpt starts, and the end of its frontmatter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Shown {
    pub spot: Spot,
    pub text_start: usize,
}

/// The spot a hit shows: the first quoted phrase (or the query as a phrase), else the best
/// window of the text after the frontmatter, else the best window of the frontmatter, else
/// the start of the text.
#[allow(clippy::too_many_arguments)]
pub(crate) fn show(
    analyzer: &mut TextAnalyzer,
    text: &str,
    table: &[u8],
    phrases: &[&[String]],
    positions: &std::collections::HashMap<String, Vec<u32>>,
    occs: &mut [Occ],
    rarity: &[f32],
) -> Shown {
    let text_start = match table_text_start(table) {
        Some(s) if s <= text.len() => s,
        // A small note (or an index without a table): parsing it is bounded by its size.
        _ => note::parse(text).body_start,
    };
    let min_pos = text_start_pos(analyzer, text, table, text_start);
    let pos = passage_pos(phrases, positions, occs, rarity, min_pos);
    let spot = match pos {
        Some(pos) => locate(analyzer, text, table, text_start, pos),
        None => {
            let offset = text[text_start..]
                .find(|c: char| !c.is_whitespace())
                .map_or(text_start, |i| text_start + i);
            let mut scan = LineScan::new(text, text_start);
            scan.advance_to(offset);
            scan.spot(offset)
        }
    };
    Shown { spot, text_start }
}

thread_local! {
    static WORK: Cell<(u64, u64)> = const { Cell::new((0, 0)) };
}

fn add_work(bytes: usize) {
    WORK.with(|w| {
        let (total, max) = w.get();
        w.set((total + bytes as u64, max.max(bytes as u64)));
    });
}

/// Bytes of note text tokenized on this thread by passage lookups since the last call: the
/// total and the largest single lookup. Resets both. A test hook: it lets tests assert that
/// the work per hit does not grow with the note.
pub(crate) fn work() -> (u64, u64) {
    WORK.with(|w| w.replace((0, 0)))
}

pub(crate) mod disk;
#[cfg(test)]
mod tests;
