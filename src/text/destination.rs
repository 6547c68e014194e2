//! The destination of a Markdown link, `[text](dest "title")`, found at most once per byte of
//! a line (see [`super::links`], which asks for it at each `](`).
//!
//! A destination is `<any text>`, or a run without spaces and with balanced parentheses, then
//! an optional title; with its title it ends within [`MAX_DESTINATION`] bytes. Read from each
//! `](` on its own, a line of `[a](` followed by one `)` far away costs that window per `[`.
//! So the first few of a stretch are read directly (a line holds few links), and after that
//! the end of every destination in the stretch comes from one pass from the stretch's end:
//! the first space, or `)` at the depth the destination starts at, after each `](`. The
//! searches for `>`, a title's closing mark and spaces are remembered from one `](` to the
//! next ([`NextByte`]), as the `](`s come in order.

use std::collections::HashMap;

use super::scan::{look, NextByte};

/// A destination and its title end within this many bytes (a path is far shorter); a `(`
/// that opens none costs at most this much of the line.
const MAX_DESTINATION: usize = 2048;

/// Destinations read directly in a stretch before the rest come from the table.
const DIRECT: usize = 8;

/// The destinations of one stretch of a line, asked for at rising offsets.
pub(super) struct Destinations<'a> {
    seg: &'a str,
    asked: usize,
    /// How many are read directly: [`DIRECT`] (tests try the table alone).
    direct: usize,
    /// `(offset after a "](", where its destination stops)`, in order, once built.
    stops: Option<Vec<(u32, u32)>>,
    angle_close: NextByte,
    angle_paren: NextByte,
    title: [NextByte; 3],
    /// The last title read: the offset of the space it follows and the offset after its `)`.
    last_title: Option<(usize, Option<usize>)>,
}

impl<'a> Destinations<'a> {
    pub(super) fn new(seg: &'a str) -> Destinations<'a> {
        Destinations {
            seg,
            asked: 0,
            direct: DIRECT,
            stops: None,
            angle_close: NextByte::new(b'>'),
            angle_paren: NextByte::new(b')'),
            title: [b'"', b'\'', b')'].map(NextByte::new),
            last_title: None,
        }
    }

    /// The destination starting at `from` (just after `(`) and the offset after its `)`:
    /// `<any text>` or a run without spaces and with balanced parentheses, then an optional
    /// title, all within [`MAX_DESTINATION`] bytes.
    pub(super) fn at(&mut self, from: usize) -> Option<(&'a str, usize)> {
        let seg = self.seg;
        let b = seg.as_bytes();
        // Every search below looks past the window and keeps what it finds for the next
        // `](`; a link whose `)` lies beyond the window is none, as if it had looked within.
        let window = (from + MAX_DESTINATION).min(b.len());
        if b.get(from) == Some(&b'<') {
            let close = self.angle_close.find(b, from + 1)?;
            let end = self.angle_paren.find(b, close + 1)?;
            return (end < window).then(|| (&seg[from + 1..close], end + 1));
        }
        let stop = self.stop(from).filter(|&s| s < window)?;
        if b[stop] == b')' {
            return Some((&seg[from..stop], stop + 1));
        }
        let end = match self.last_title {
            Some((at, end)) if at == stop => end,
            _ => {
                let end = self.after_title(stop);
                self.last_title = Some((stop, end));
                end
            }
        }?;
        (end <= window).then(|| (&seg[from..stop], end))
    }

    /// The first space, tab, or `)` closing the depth of `from` at or after `from`.
    fn stop(&mut self, from: usize) -> Option<usize> {
        self.asked += 1;
        if self.asked <= self.direct || self.seg.len() >= u32::MAX as usize {
            return direct_stop(self.seg.as_bytes(), from);
        }
        let stops = self
            .stops
            .get_or_insert_with(|| stop_table(self.seg.as_bytes()));
        let k = stops.partition_point(|s| (s.0 as usize) < from);
        match stops.get(k) {
            Some(&(at, stop)) if at as usize == from => (stop != u32::MAX).then_some(stop as usize),
            // Not after a `](`: read directly.
            _ => direct_stop(self.seg.as_bytes(), from),
        }
    }

    /// After a destination that ends at the space at `i`, as CommonMark reads it: spaces, an
    /// optional title (`"…"`, `'…'`, `(…)`), spaces, then `)`; the offset after that `)`.
    /// Anything else and the brackets were no link (`[a](b c)`).
    fn after_title(&mut self, i: usize) -> Option<usize> {
        let b = self.seg.as_bytes();
        let mut i = skip_blanks(b, i);
        let which = match b.get(i)? {
            b'"' => 0,
            b'\'' => 1,
            b'(' => 2,
            b')' => return Some(i + 1),
            _ => return None,
        };
        i = self.title[which].find(b, i + 1)? + 1;
        i = skip_blanks(b, i);
        (b.get(i) == Some(&b')')).then_some(i + 1)
    }
}

fn skip_blanks(b: &[u8], i: usize) -> usize {
    let n = b[i.min(b.len())..]
        .iter()
        .take_while(|c| matches!(c, b' ' | b'\t'))
        .count();
    look(n);
    i + n
}

/// [`Destinations::stop`] read from `from` on, within [`MAX_DESTINATION`].
fn direct_stop(b: &[u8], from: usize) -> Option<usize> {
    let b = &b[..(from + MAX_DESTINATION).min(b.len())];
    let mut depth = 0usize;
    for (i, &c) in b.iter().enumerate().skip(from) {
        match c {
            b'(' => depth += 1,
            b')' if depth == 0 => {
                look(i + 1 - from);
                return Some(i);
            }
            b')' => depth -= 1,
            b' ' | b'\t' => {
                look(i + 1 - from);
                return Some(i);
            }
            _ => {}
        }
    }
    look(b.len().saturating_sub(from));
    None
}

/// [`Destinations::stop`] of every offset after a `](`, in one pass from the end: a `)`
/// closes the depth a destination starts at when the parentheses before it, counted from
/// the line's start, are as deep there as at the destination's start.
fn stop_table(b: &[u8]) -> Vec<(u32, u32)> {
    look(b.len());
    let mut out = Vec::new();
    // Depth before offset `p`, counted from the end (the same up to a constant).
    let mut depth: i64 = 0;
    let mut space = u32::MAX;
    let mut closers: HashMap<i64, u32> = HashMap::new();
    for p in (0..=b.len()).rev() {
        match b.get(p) {
            Some(b'(') => depth -= 1,
            Some(b')') => {
                depth += 1;
                closers.insert(depth, p as u32);
            }
            Some(b' ' | b'\t') => space = p as u32,
            _ => {}
        }
        if p >= 2 && b[p - 2] == b']' && b[p - 1] == b'(' {
            let closer = closers.get(&depth).copied().unwrap_or(u32::MAX);
            out.push((p as u32, space.min(closer)));
        }
    }
    out.reverse();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The destination as read before [`Destinations`]: a scan of the window from `from`.
    fn destination_by_window(seg: &str, from: usize) -> Option<(&str, usize)> {
        let b = &seg.as_bytes()[..(from + MAX_DESTINATION).min(seg.len())];
        if b.get(from) == Some(&b'<') {
            let close = from + 1 + memchr::memchr(b'>', &b[from + 1..])?;
            let end = close + 1 + memchr::memchr(b')', &b[close + 1..])?;
            return Some((&seg[from + 1..close], end + 1));
        }
        let mut depth = 0usize;
        let mut i = from;
        while i < b.len() {
            match b[i] {
                b'(' => depth += 1,
                b')' if depth == 0 => return Some((&seg[from..i], i + 1)),
                b')' => depth -= 1,
                b' ' | b'\t' => return Some((&seg[from..i], title_by_window(b, i)?)),
                _ => {}
            }
            i += 1;
        }
        None
    }

    fn title_by_window(b: &[u8], mut i: usize) -> Option<usize> {
        let skip = |b: &[u8], mut i: usize| {
            while b.get(i).is_some_and(|c| matches!(c, b' ' | b'\t')) {
                i += 1;
            }
            i
        };
        i = skip(b, i);
        let close = match b.get(i)? {
            b'"' => b'"',
            b'\'' => b'\'',
            b'(' => b')',
            b')' => return Some(i + 1),
            _ => return None,
        };
        i += 1 + memchr::memchr(close, &b[i + 1..])? + 1;
        i = skip(b, i);
        (b.get(i) == Some(&b')')).then_some(i + 1)
    }

    /// Every `](` of `seg` asked in order: the same answers as the window scan.
    /// Read directly at first, and from the table alone.
    fn check(seg: &str) {
        for direct in [DIRECT, 0] {
            let mut d = Destinations::new(seg);
            d.direct = direct;
            let b = seg.as_bytes();
            for p in 2..=b.len() {
                if b[p - 2] == b']' && b[p - 1] == b'(' {
                    assert_eq!(d.at(p), destination_by_window(seg, p), "{seg:?} at {p}");
                }
            }
        }
    }

    #[test]
    fn the_same_destinations_as_the_window_scan() {
        for seg in [
            "[a](b) [c](d e) [f](g \"t\") [h](<i j>) [k](l(m)n) [o](p 'q' ) [r](s (t))",
            "[a](b(c d)) [e](f)) [g]((h)) [i]() [j]( ) [k](<l) [m](n \"o)",
        ] {
            check(&seg.repeat(DIRECT + 3));
        }
        for seg in super::super::scan::tests::lines(b"[]()<>\"' \tx", 2000, 120) {
            check(&seg);
            check(&seg.repeat(3));
        }
        // A destination that ends past the window is none, from the table too.
        let far = format!(
            "{}[a](b{})",
            "[x](y) ".repeat(DIRECT),
            "c".repeat(MAX_DESTINATION)
        );
        check(&far);
    }

    #[test]
    fn a_line_of_open_destinations_costs_one_pass() {
        let seg = format!("{})", "[a](".repeat(250_000));
        let mut d = Destinations::new(&seg);
        super::super::scan::take_looked();
        let found = (4..seg.len()).step_by(4).filter_map(|p| d.at(p)).count();
        // Only the last `(` holds a destination: an empty one.
        assert_eq!(found, 1);
        let looked = super::super::scan::take_looked();
        assert!(looked <= 3 * seg.len(), "{looked} bytes looked at");
    }
}
