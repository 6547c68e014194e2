//! A note's links and backlinks as `read_note` shows them after the note's text: two lines of
//! paths, each list capped at [`MAX_SHOWN`] paths and [`MAX_LIST_BYTES`] with its total.
//! Obsidian's "Excluded files" are left out, as search leaves them out.
//!
//! Why in `read_note` and not a tool of its own: a tool's definition is sent in every
//! conversation (a `note_links` tool would cost some 300 characters of `tools/list` each
//! time, and a round trip when used), while two lines after a note cost only when a note is
//! read — which is when its neighbours are worth knowing. `links: false` leaves them out.
//! They come from the last committed index, without a walk of the vault: the server's
//! searches keep it fresh.

use std::fmt::Write as _;
use std::path::Path;

use crate::text::terminal::escape_controls;

/// Most paths of each list shown.
pub(crate) const MAX_SHOWN: usize = 50;
/// Most bytes of each list shown: a path (or a broken link's target) may be long, and the
/// lines follow a note's text of up to 64 KB.
pub(crate) const MAX_LIST_BYTES: usize = 4 * 1024;

/// The lines to put after the text of the note at the vault-relative `path`; empty when the
/// index can't tell (no index, a note not indexed yet).
pub(crate) fn section(cache_dir: Option<&Path>, vault: &Path, path: &str) -> String {
    let rel = path.replace('\\', "/");
    let Ok(Some((_, mut links))) = crate::dispatch::note_links(cache_dir, vault, &rel) else {
        return String::new();
    };
    let excluded = crate::dispatch::obsidian_exclusions(vault);
    if !excluded.is_empty() {
        links.outgoing.retain(|p| !excluded.hides(p));
        links.incoming.retain(|p| !excluded.hides(p));
    }
    let mut out = String::new();
    let mut outgoing = list(&links.outgoing);
    if !links.unresolved.is_empty() {
        let _ = write!(outgoing, "; unresolved: {}", list(&links.unresolved));
    }
    let _ = writeln!(
        out,
        "links out ({}): {outgoing}",
        links.outgoing.len() + links.unresolved.len()
    );
    let _ = writeln!(
        out,
        "links in ({}): {}",
        links.incoming.len(),
        list(&links.incoming)
    );
    out
}

/// `a, b, c`, the first [`MAX_SHOWN`] (within [`MAX_LIST_BYTES`], the first always shown,
/// cut if it must be) and how many more; `-` for none.
fn list(items: &[String]) -> String {
    if items.is_empty() {
        return "-".to_string();
    }
    let mut s = String::new();
    let mut shown = 0;
    for item in items.iter().take(MAX_SHOWN) {
        let item = escape_controls(item);
        let sep = if shown == 0 { "" } else { ", " };
        if s.len() + sep.len() + item.len() > MAX_LIST_BYTES {
            if shown == 0 {
                let end = crate::text::excerpt::floor_char_boundary(&item, MAX_LIST_BYTES);
                let _ = write!(s, "{}[…]", &item[..end]);
                shown = 1;
            }
            break;
        }
        s.push_str(sep);
        s.push_str(&item);
        shown += 1;
    }
    if items.len() > shown {
        let _ = write!(s, " and {} more", items.len() - shown);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_capped_with_their_totals() {
        assert_eq!(list(&[]), "-");
        let many: Vec<String> = (0..MAX_SHOWN + 3).map(|i| format!("n{i}.md")).collect();
        let s = list(&many);
        assert!(
            s.starts_with("n0.md, n1.md") && s.ends_with(" and 3 more"),
            "{s}"
        );
        assert_eq!(s.matches(".md").count(), MAX_SHOWN);
        assert_eq!(list(&["a\nb.md".to_string()]), "a\\nb.md");
        // Long paths: cut by bytes, with the count.
        let long: Vec<String> = (0..20)
            .map(|i| format!("{i}{}.md", "x".repeat(1000)))
            .collect();
        let s = list(&long);
        assert!(
            s.len() < MAX_LIST_BYTES + 20 && s.ends_with(" and 16 more"),
            "{s}"
        );
        let s = list(&["y".repeat(50_000)]);
        assert!(
            s.len() < MAX_LIST_BYTES + 10 && s.ends_with("[…]"),
            "{}",
            s.len()
        );
    }
}
