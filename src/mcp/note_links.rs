//! A note's links and backlinks as `read_note` shows them after the note's text: two lines of
//! paths, each list capped at [`MAX_SHOWN`] with its total.
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

/// The lines to put after the text of the note at the vault-relative `path`; empty when the
/// index can't tell (no index, a note not indexed yet).
pub(crate) fn section(cache_dir: Option<&Path>, vault: &Path, path: &str) -> String {
    let rel = path.replace('\\', "/");
    let Ok(Some((_, links))) = crate::dispatch::note_links(cache_dir, vault, &rel) else {
        return String::new();
    };
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

/// `a, b, c`, the first [`MAX_SHOWN`] and how many more; `-` for none.
fn list(items: &[String]) -> String {
    if items.is_empty() {
        return "-".to_string();
    }
    let shown: Vec<String> = items
        .iter()
        .take(MAX_SHOWN)
        .map(|p| escape_controls(p).into_owned())
        .collect();
    let mut s = shown.join(", ");
    if items.len() > MAX_SHOWN {
        let _ = write!(s, " and {} more", items.len() - MAX_SHOWN);
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
    }
}
