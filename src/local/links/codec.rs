//! A note's links as the index keeps them: one `links` value per note, one line per link
//! (`l` or `e`, line, target, subpath, text, tab-separated). The indexer writes it with
//! [`encode`], the links queries read it back with [`decode`].

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

/// The value of the `links` field for `links`.
pub(crate) fn encode(links: &[Link]) -> Vec<u8> {
    let mut out = String::with_capacity(links.len() * 32);
    for l in links {
        out.push(if l.embed { 'e' } else { 'l' });
        out.push('\t');
        out.push_str(&l.line.to_string());
        for field in [&l.target, &l.subpath, &l.text] {
            out.push('\t');
            // A tab or a line break can't be told from the separators: a space instead.
            if field.contains(['\t', '\n', '\r']) {
                out.push_str(&field.replace(['\t', '\n', '\r'], " "));
            } else {
                out.push_str(field);
            }
        }
        out.push('\n');
    }
    out.into_bytes()
}

/// The links of a `links` value; a line that isn't one (an index written otherwise) is
/// skipped.
pub(crate) fn decode(bytes: &[u8]) -> Vec<Link> {
    decode_where(bytes, &|_| true)
}

/// The links of a `links` value whose target `keep` keeps: the others are never built.
pub(crate) fn decode_where(bytes: &[u8], keep: &dyn Fn(&str) -> bool) -> Vec<Link> {
    let text = String::from_utf8_lossy(bytes);
    text.lines()
        .filter_map(|line| {
            let mut f = line.splitn(5, '\t');
            let embed = match f.next()? {
                "e" => true,
                "l" => false,
                _ => return None,
            };
            let line = f.next()?;
            let target = f.next()?;
            if !keep(target) {
                return None;
            }
            Some(Link {
                embed,
                line: line.parse().ok()?,
                target: target.to_string(),
                subpath: f.next()?.to_string(),
                text: f.next()?.to_string(),
            })
        })
        .collect()
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
        let back = decode(&encode(&links));
        assert_eq!(back.len(), 2);
        assert_eq!(back[0].text, "shown text");
        assert_eq!(back[1], links[1]);
        assert_eq!(back[0].target, "A b");
        assert!(decode(b"junk\nx\t1\ta\tb\tc\n").is_empty());
        let kept = decode_where(&encode(&links), &|t| t.is_empty());
        assert_eq!(kept, [links[1].clone()]);
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
