//! A note's links as the index keeps them: one `links` value per note, one line per link
//! (`l` or `e`, line, target, subpath, text, tab-separated). The indexer writes it with
//! [`encode`], the links queries read it back with [`decode`] or [`each`].
//!
//! Tantivy keeps at most 65,535 bytes of a fast field's value, silently: a note whose links
//! take more (a map of content naming 3,000 notes) is stored as several values of the field,
//! each under the cap and headed by its number, and what could still not be kept (a single
//! link longer than a value, links past the parser's cap) is said by a `c` line, so the
//! answers that read it warn instead of going quiet.

use crate::text::links::Link;

/// The characters the hashes are written with.
const DIGITS: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// The `link_keys` term of a [`super::key_of`] key: its [`key_bits`], 8 characters. A file
/// name in full (often 40 bytes and more, hashes in attachment names) costs the term
/// dictionary's FST a node per byte in every full build; a collision only adds a candidate,
/// which resolving its links then turns away.
pub(crate) fn key_term(key: &str) -> String {
    let bits = key_bits(key);
    (0..8)
        .map(|i| DIGITS[((bits >> (6 * i)) & 63) as usize] as char)
        .collect()
}

/// 48 bits of the hash of a [`super::key_of`] key.
fn key_bits(key: &str) -> u64 {
    let hash = blake3::hash(key.as_bytes());
    hash.as_bytes()[..6]
        .iter()
        .fold(0u64, |acc, &b| (acc << 8) | u64::from(b))
}

/// How many `name_key` buckets there are.
const NAME_BUCKETS: u64 = 512;

/// The `name_key` term of a file whose name has this [`super::key_of`] key: one of
/// [`NAME_BUCKETS`] buckets, 2 characters. A bucket, not a name: the term dictionary holds 512
/// terms at most however many files the vault has (a term per file cost a full build 4 % more
/// instructions), and a lookup reads the paths of one bucket — a 512th of the vault — keeping
/// those of the name.
pub(crate) fn name_term(key: &str) -> String {
    let bucket = key_bits(key) % NAME_BUCKETS;
    [
        DIGITS[(bucket % 64) as usize],
        DIGITS[(bucket / 64) as usize],
    ]
    .iter()
    .map(|&b| b as char)
    .collect()
}

/// The most bytes of one `links` value: tantivy cuts a fast field's bytes value at 65,535
/// (the key of its indexing hash table), so a longer value is split.
pub(crate) const VALUE_CAP: usize = u16::MAX as usize;
/// The line that starts each part of a split value: `#` and the part's number in
/// [`PART_DIGITS`] digits, so the index's dictionary (ordered by bytes) holds a note's parts
/// in order.
const PART_DIGITS: usize = 5;
const PART_HEADER: usize = 1 + PART_DIGITS + 1;
/// The first field of the line that says what was cut.
const CUT_TAG: &str = "c";

/// What of a note's links its stored form lacks.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cut {
    /// Links longer than a value holds, kept shortened (text, then subpath, then target).
    pub(crate) shortened: u32,
    /// The note had at least [`crate::text::links::MAX_LINKS`] links: the rest are not kept.
    pub(crate) at_most: bool,
}

impl Cut {
    pub(crate) fn any(self) -> bool {
        self.shortened > 0 || self.at_most
    }

    /// The sentence a response warns with about `path`'s links.
    pub(crate) fn warning(self, path: &str) -> String {
        let mut parts = Vec::new();
        if self.at_most {
            parts.push(format!(
                "only its first {} links are kept (the most a note keeps)",
                crate::text::links::MAX_LINKS
            ));
        }
        if self.shortened > 0 {
            parts.push(format!(
                "{} link(s) longer than {} bytes are kept shortened",
                self.shortened, VALUE_CAP
            ));
        }
        format!("{path}: {}", parts.join("; "))
    }
}

/// The values of the `links` field for `links` (none for none): one value while the links fit
/// in [`VALUE_CAP`] bytes (most notes), else parts under it, each headed by its number. A
/// single link longer than a value is shortened, and a `c` line records what was cut.
pub(crate) fn encode(links: &[Link], at_most: bool) -> Vec<Vec<u8>> {
    let mut lines: Vec<String> = Vec::with_capacity(links.len());
    let mut cut = Cut {
        shortened: 0,
        at_most,
    };
    let mut total = 0;
    for l in links {
        let line = line_of(l, &mut cut);
        total += line.len();
        lines.push(line);
    }
    let mut first = String::new();
    if cut.any() {
        first = format!("{CUT_TAG}\t{}\t{}\n", cut.shortened, u8::from(cut.at_most));
        total += first.len();
    }
    if total <= VALUE_CAP {
        let mut out = String::with_capacity(total);
        out.push_str(&first);
        lines.iter().for_each(|l| out.push_str(l));
        return if out.is_empty() {
            Vec::new()
        } else {
            vec![out.into_bytes()]
        };
    }
    let mut parts: Vec<Vec<u8>> = Vec::new();
    let mut part = String::new();
    for line in std::iter::once(first).chain(lines) {
        if part.len() + line.len() > VALUE_CAP {
            parts.push(std::mem::take(&mut part).into_bytes());
        }
        if part.is_empty() {
            part = format!("#{:0width$}\n", parts.len(), width = PART_DIGITS);
        }
        part.push_str(&line);
    }
    parts.push(part.into_bytes());
    parts
}

/// One link's line, shortened to fit a part (counted in `cut`).
fn line_of(l: &Link, cut: &mut Cut) -> String {
    let mut fields = [l.target.clone(), l.subpath.clone(), l.text.clone()];
    for field in &mut fields {
        // A tab or a line break can't be told from the separators: a space instead.
        if field.contains(['\t', '\n', '\r']) {
            *field = field.replace(['\t', '\n', '\r'], " ");
        }
    }
    let line_no = l.line.to_string();
    let fixed = 2 + line_no.len() + 3 + 1;
    let room = VALUE_CAP - PART_HEADER - fixed;
    let mut len: usize = fields.iter().map(String::len).sum();
    if len > room {
        cut.shortened += 1;
        // The shown text goes first, the target last: it is what the link means.
        for field in fields.iter_mut().rev() {
            if len <= room {
                break;
            }
            let keep = field.len().saturating_sub(len - room);
            let mut at = keep;
            while !field.is_char_boundary(at) {
                at -= 1;
            }
            len -= field.len() - at;
            field.truncate(at);
        }
    }
    let kind = if l.embed { 'e' } else { 'l' };
    let [target, subpath, text] = fields;
    format!("{kind}\t{line_no}\t{target}\t{subpath}\t{text}\n")
}

/// What a note's `links` values (in any order) say was cut.
pub(crate) fn cut_of<'v>(values: impl IntoIterator<Item = &'v [u8]>) -> Cut {
    for v in values {
        let body = strip_part(v);
        if let Some(rest) = body.strip_prefix(b"c\t") {
            let line = rest.split(|&b| b == b'\n').next().unwrap_or_default();
            let text = String::from_utf8_lossy(line);
            let mut f = text.split('\t');
            return Cut {
                shortened: f.next().and_then(|n| n.parse().ok()).unwrap_or(0),
                at_most: f.next() == Some("1"),
            };
        }
    }
    Cut::default()
}

/// A value without its part header.
fn strip_part(v: &[u8]) -> &[u8] {
    match v.first() {
        Some(b'#') if v.len() >= PART_HEADER => &v[PART_HEADER..],
        _ => v,
    }
}

/// The links of a `links` value; a line that isn't one (an index written otherwise, a part's
/// header, the `c` line) is skipped.
pub(crate) fn decode(bytes: &[u8]) -> Vec<Link> {
    decode_where(bytes, &|_| true)
}

/// The links of a `links` value whose target `keep` keeps: the others are never built.
pub(crate) fn decode_where(bytes: &[u8], keep: &dyn Fn(&str) -> bool) -> Vec<Link> {
    let mut out = Vec::new();
    each(bytes, |l| {
        if keep(l.target) {
            out.push(l.to_link());
        }
    });
    out
}

/// A link as a value holds it, borrowed: what a pass over every link reads without building
/// each one.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LinkRef<'a> {
    pub(crate) embed: bool,
    pub(crate) line: u32,
    pub(crate) target: &'a str,
    pub(crate) subpath: &'a str,
    pub(crate) text: &'a str,
}

impl LinkRef<'_> {
    pub(crate) fn to_link(self) -> Link {
        Link {
            embed: self.embed,
            line: self.line,
            target: self.target.to_string(),
            subpath: self.subpath.to_string(),
            text: self.text.to_string(),
        }
    }
}

/// Calls `f` with each link of a `links` value, in order.
pub(crate) fn each(bytes: &[u8], mut f: impl FnMut(LinkRef<'_>)) {
    let text = String::from_utf8_lossy(bytes);
    for line in text.lines() {
        let mut fields = line.splitn(5, '\t');
        let embed = match fields.next() {
            Some("e") => true,
            Some("l") => false,
            _ => continue,
        };
        let (Some(no), Some(target), Some(subpath), Some(text)) =
            (fields.next(), fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        let Ok(line) = no.parse() else {
            continue;
        };
        f(LinkRef {
            embed,
            line,
            target,
            subpath,
            text,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let links = vec![
            Link {
                target: "A b".into(),
                subpath: "^x".into(),
                text: "shown\ttext".into(),
                line: 7,
                embed: true,
            },
            Link {
                target: String::new(),
                subpath: "Head".into(),
                text: String::new(),
                line: 1,
                embed: false,
            },
        ];
        let values = encode(&links, false);
        assert_eq!(values.len(), 1);
        let back = decode(&values[0]);
        assert_eq!(back.len(), 2);
        assert_eq!(back[0].text, "shown text");
        assert_eq!(back[1], links[1]);
        assert_eq!(back[0].target, "A b");
        assert!(decode(b"junk\nx\t1\ta\tb\tc\n").is_empty());
        let kept = decode_where(&values[0], &|t| t.is_empty());
        assert!(!cut_of([values[0].as_slice()]).any());
        assert_eq!(kept, [links[1].clone()]);
    }

    #[test]
    fn long_links_are_split_in_order_under_the_cap() {
        let links: Vec<Link> = (0..3000)
            .map(|i| Link {
                target: format!("Project note number {i:04} about the roadmap"),
                subpath: String::new(),
                text: format!("Project {i}"),
                line: i + 1,
                embed: false,
            })
            .collect();
        let mut values = encode(&links, false);
        assert!(values.len() > 1);
        assert!(values.iter().all(|v| v.len() <= VALUE_CAP));
        // The index hands them back in its dictionary's order: by bytes.
        values.reverse();
        values.sort();
        let back: Vec<Link> = values.iter().flat_map(|v| decode(v)).collect();
        assert_eq!(back, links);
        assert!(!cut_of(values.iter().map(Vec::as_slice)).any());
        let huge = Link {
            text: "é".repeat(40_000),
            ..links[0].clone()
        };
        let values = encode(&[huge.clone(), links[1].clone()], true);
        assert!(values.iter().all(|v| v.len() <= VALUE_CAP));
        let back: Vec<Link> = values.iter().flat_map(|v| decode(v)).collect();
        assert_eq!(back.len(), 2);
        assert_eq!(back[0].target, huge.target);
        assert!(back[0].text.len() < huge.text.len());
        let cut = cut_of(values.iter().map(Vec::as_slice));
        assert_eq!((cut.shortened, cut.at_most), (1, true));
    }

    #[test]
    fn name_terms_are_few() {
        let terms: std::collections::HashSet<String> =
            (0..5000).map(|i| name_term(&format!("note {i}"))).collect();
        assert!(terms.iter().all(|t| t.len() == 2));
        assert!(
            terms.len() <= NAME_BUCKETS as usize && terms.len() > 400,
            "{}",
            terms.len()
        );
        assert_eq!(name_term("deploy checklist"), name_term("deploy checklist"));
    }

    #[test]
    fn key_terms_are_short_and_stable() {
        let a = key_term("deploy checklist");
        assert_eq!(a.len(), 8);
        assert_eq!(a, key_term("deploy checklist"));
        assert_ne!(a, key_term("deploy checklists"));
    }
}
