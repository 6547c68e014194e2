//! The checkpoint table: where a body position lies in a note's text (byte offset, line,
//! heading) without tokenizing the whole note. Written with a note's document when it is
//! indexed, read to show a hit; its bytes are a stored (and fast) field of the index.
//!
//! Tantivy keeps token positions, not offsets, so notes of [`CHECKPOINT_MIN_BYTES`] and more
//! carry a small stored table of *checkpoints* (every [`CHECKPOINT_EVERY`] tokens: token
//! position, byte offset, line, the last heading line before it and whether it lies in a code
//! fence). A position is mapped to a byte by tokenizing only from the checkpoint before it to
//! the one after it; a smaller note is tokenized up to the position only. A table longer than
//! a field's value holds is stored as several ([`parts`], [`join`]). Either way the work
//! per hit is bounded by a constant, not by the note's size; [`work`] counts it so tests can
//! assert that.

use std::cell::Cell;

use tantivy::tokenizer::{TextAnalyzer, TokenStream};

use crate::local::analyzer;
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
pub(in crate::local) const HEADING_BYTES: usize = 240;
/// A heading offset meaning "no heading before".
pub(in crate::local) const NO_HEADING: u32 = u32::MAX;

/// Where a body position lies in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Spot {
    /// Byte offset of the token.
    pub(crate) offset: usize,
    /// 1-based line.
    pub(crate) line: u64,
    /// The nearest heading at or above it.
    pub(crate) heading: Option<String>,
}

/// One row of the checkpoint table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::local) struct Checkpoint {
    pub(in crate::local) pos: u32,
    pub(in crate::local) offset: u32,
    pub(in crate::local) line: u32,
    pub(in crate::local) heading: u32,
    pub(in crate::local) fence: u32,
}

/// The checkpoint table of `text` (empty below [`CHECKPOINT_MIN_BYTES`]). The first row is a
/// header: `pos` is the position of the first token after the frontmatter (`text_start`), and
/// `fence` is 1 when `exact`: the text is the file's bytes as they are (valid UTF-8, no BOM),
/// so its offsets are offsets in the file (`search::show::disk`).
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

/// The most bytes of one value of the table's field: tantivy keeps at most 65,535 bytes of a
/// fast field's value, silently, and a 10 MB note's table takes hundreds of KB. A whole number
/// of rows.
const PART_BYTES: usize = u16::MAX as usize / CHECKPOINT_BYTES * CHECKPOINT_BYTES;

/// The values a table is stored as: itself while it fits a value (most tables), else parts of
/// [`PART_BYTES`], in order.
pub(crate) fn parts(table: Vec<u8>) -> Vec<Vec<u8>> {
    if table.len() <= PART_BYTES {
        return vec![table];
    }
    table.chunks(PART_BYTES).map(<[u8]>::to_vec).collect()
}

/// The table of a note from its values, in any order. Every row after the header lies further
/// in the text than the one before, so the parts are put in order by their last rows' offsets.
pub(crate) fn join(mut values: Vec<Vec<u8>>) -> Vec<u8> {
    if values.len() == 1 {
        return values.pop().unwrap_or_default();
    }
    values.sort_by_key(|v| rows(v).last().map(|r| r.offset));
    values.concat()
}

pub(in crate::local) fn encode(rows: impl Iterator<Item = Checkpoint>) -> Vec<u8> {
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

pub(in crate::local) fn rows(table: &[u8]) -> impl Iterator<Item = Checkpoint> + '_ {
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
pub(crate) fn locate(text: &str, table: &[u8], text_start: usize, pos: u32) -> Spot {
    let (base, next) = around(table, pos);
    let end = next.map_or(text.len(), |r| r.offset as usize);
    let from = excerpt::floor_char_boundary(text, base.offset as usize);
    let end = excerpt::floor_char_boundary(text, end.max(from));
    // Without a table the note is below CHECKPOINT_MIN_BYTES: tokenizing it is bounded too.
    let slice = &text[from..end];
    add_work(slice.len());
    let offset =
        analyzer::offset_at_position(slice, (pos - base.pos) as usize).map_or(end, |o| from + o);
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
pub(in crate::local) fn around(table: &[u8], pos: u32) -> (Checkpoint, Option<Checkpoint>) {
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

pub(in crate::local) fn heading_text(text: &str, at: usize) -> Option<String> {
    let end = excerpt::floor_char_boundary(text, at.saturating_add(HEADING_BYTES));
    let rest = text.get(at..end)?;
    let line = &rest[..rest.find(['\n', '\r']).unwrap_or(rest.len())];
    note::heading(line.trim_start()).map(|(_, t)| t.to_string())
}

/// The spot at byte `offset` of `text`, scanning its lines from the start (a note without a
/// passage: `offset` is near its frontmatter's end).
pub(crate) fn spot_from_start(text: &str, text_start: usize, offset: usize) -> Spot {
    let mut scan = LineScan::new(text, text_start);
    scan.advance_to(offset);
    scan.spot(offset)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::local::analyzer;

    /// Every token's position maps back to its own offset, line and heading, through the table
    /// (large note) and without it (small note), the same as a full tokenization says.
    #[test]
    fn located_spots_match_a_full_tokenization() {
        let mut note = String::from("---\ntags: [x]\n---\n# Top\n\nintro words here\n");
        let mut k = 0;
        while note.len() < 3 * CHECKPOINT_MIN_BYTES {
            note.push_str(&format!(
                "\n## Part {k}\n\nSome text-with joiners and CamelCase{k} words\r\n```\n# not a heading {k}\n```\nmore filler text line {k}.\n"
            ));
            k += 1;
        }
        let mut a = analyzer::text_analyzer();
        let meta = crate::text::note::parse(&note);
        let table = checkpoints(&mut a, &note, meta.body_start, false);
        assert!(
            table.len() > 2 * CHECKPOINT_BYTES,
            "a big note gets a table"
        );
        let small = &note[..2000];
        let small_meta = crate::text::note::parse(small);
        assert!(checkpoints(&mut a, small, small_meta.body_start, false).is_empty());
        for (text, table, meta) in [
            (&note[..], &table[..], &meta),
            (small, &[][..], &small_meta),
        ] {
            let toks = analyzer::analyze(&mut a, text);
            let first_body = toks
                .iter()
                .find(|t| t.offset_from >= meta.body_start)
                .expect("body");
            assert_eq!(
                text_start_pos(&mut a, text, table, meta.body_start),
                first_body.position as u32
            );
            let mut last_pos = usize::MAX;
            for t in toks.iter().step_by(7) {
                if t.position == last_pos {
                    continue;
                }
                last_pos = t.position;
                let spot = locate(text, table, meta.body_start, t.position as u32);
                let want = toks
                    .iter()
                    .find(|u| u.position == t.position)
                    .expect("token");
                assert_eq!(
                    spot.offset, want.offset_from,
                    "offset of position {}",
                    t.position
                );
                assert_eq!(spot.line, excerpt::line_of(text, spot.offset));
                assert_eq!(
                    spot.heading,
                    crate::text::note::heading_at(meta, spot.offset)
                );
            }
        }
    }

    #[test]
    fn a_long_table_is_split_and_joined_back() {
        let table = encode((0..10_000u32).map(|i| Checkpoint {
            pos: i * 256,
            offset: i * 1000 + 7,
            line: i,
            heading: NO_HEADING,
            fence: 0,
        }));
        let mut parts = parts(table.clone());
        assert!(parts.len() > 1 && parts.iter().all(|p| p.len() <= u16::MAX as usize));
        parts.reverse();
        assert_eq!(join(parts), table);
        assert_eq!(join(vec![table.clone()]), table);
    }

    #[test]
    fn work_per_lookup_is_bounded_by_the_table() {
        let mut note = String::new();
        let mut starts = Vec::new();
        for i in 0..200_000 {
            starts.push(note.len());
            note.push_str(&format!("w{} ", i % 977));
        }
        let mut a = analyzer::text_analyzer();
        let table = checkpoints(&mut a, &note, 0, false);
        work();
        for pos in [0u32, 1, 50_000, 199_999] {
            let spot = locate(&note, &table, 0, pos);
            assert_eq!(spot.offset, starts[pos as usize]);
        }
        let (total, max) = work();
        assert!(total > 0);
        // 256 tokens of at most 6 bytes each, against a note of 1.3 MB.
        assert!(
            max <= 6 * CHECKPOINT_EVERY as u64,
            "one lookup tokenized {max} bytes"
        );
    }
}
