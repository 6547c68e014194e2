//! Whether a reply is this vault's: Obsidian names a vault by its folder's name alone, so two
//! vaults called `Vault` (a work one and a personal one) look the same in a reply. What the
//! reply can't fake is its excerpts: each is text cut from the note at the hit's path, so it
//! must be found in this vault's file at that path.
//!
//! The rule: a hit *checks out* when its excerpt, folded (below), is found in the note at its
//! path; it *fails* when no file is at its path or the note doesn't hold the excerpt; a hit that
//! can't be checked (not a Markdown note, unreadable, an excerpt with no letters or digits)
//! counts for neither. The reply is refused when more of its hits fail than check out. So a
//! note edited after Omnisearch indexed it (its excerpt gone from the file) is outweighed by
//! any other hit that checks out, while another vault's reply, whose paths are missing here or
//! hold other text, is refused. A reply refused wrongly (every checked hit edited or deleted
//! since the plugin indexed it) costs only a fallback to the local engine, which answers from
//! the files as they are now.

use crate::text::comments;
use unicode_normalization::UnicodeNormalization;

/// At least this many notes are read to check a reply, even when fewer are shown: one note
/// edited since the plugin indexed it must not decide alone.
pub(super) const MIN_CHECKED: usize = 3;

/// The tally of a reply's hits checked against this vault's files.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Tally {
    pub(super) checked_out: usize,
    pub(super) failed: usize,
}

impl Tally {
    /// Counts one hit: `Some(true)` checked out, `Some(false)` failed, `None` not checkable.
    pub(super) fn count(&mut self, verdict: Option<bool>) {
        match verdict {
            Some(true) => self.checked_out += 1,
            Some(false) => self.failed += 1,
            None => {}
        }
    }

    /// How many hits were decided either way.
    pub(super) fn decided(&self) -> usize {
        self.checked_out + self.failed
    }

    /// The reply is another vault's: more of its hits fail than check out.
    pub(super) fn refuses(&self) -> bool {
        self.failed > self.checked_out
    }
}

/// Whether the plugin's cleaned excerpt is text of `note`; `None` when the excerpt has nothing
/// to compare (no letter or digit).
///
/// The plugin cuts the excerpt from the note's raw text, drops empty lines, adds `…` at cut
/// ends, HTML-escapes it and turns newlines into `<br>`; our cleaning turns those back and
/// flattens whitespace. Both sides are compared folded to their letters and digits, without
/// diacritics, lowercased: what survives every one of those steps in the same order.
///
/// Our cleaning also leaves out the comments Obsidian hides (`<!-- … -->`, `%% … %%`), which the
/// plugin's excerpt keeps: an excerpt that is not in the note as written is looked for in the
/// note without its comments too, so a comment beside the match never refuses an honest reply.
pub(super) fn excerpt_in(note: &str, excerpt: &str) -> Option<bool> {
    let want = fold(excerpt);
    if want.is_empty() {
        return None;
    }
    let found = fold(note).contains(&want)
        || ((note.contains("%%") || note.contains("<!--"))
            && fold(&comments::strip(note, false)).contains(&want));
    Some(found)
}

fn fold(s: &str) -> String {
    // NFD splits a letter from its accents, which are marks and not alphanumeric: dropped.
    s.nfd()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_are_compared_on_their_letters_and_digits() {
        let note = "# Title\n\nThe café & the <b>bar</b>\n\n\nnext line";
        assert_eq!(
            excerpt_in(note, "…The cafe & the <bar> next line"),
            Some(false)
        );
        assert_eq!(
            excerpt_in(note, "…the café & the <b>bar</b> next"),
            Some(true)
        );
        assert_eq!(excerpt_in(note, "Title The CAFÉ"), Some(true));
        assert_eq!(excerpt_in(note, "another vault's text"), Some(false));
        assert_eq!(excerpt_in(note, "… <> …"), None);
    }

    #[test]
    fn an_excerpt_without_the_notes_comments_checks_out() {
        let note = "kiwi <!-- hush --> fruit %% aside\nstill aside %%\nmore\n";
        assert_eq!(excerpt_in(note, "kiwi fruit more"), Some(true));
        assert_eq!(excerpt_in(note, "kiwi hush fruit"), Some(true));
        assert_eq!(excerpt_in(note, "kiwi more"), Some(false));
    }

    #[test]
    fn more_failures_than_confirmations_refuse() {
        let mut t = Tally::default();
        t.count(Some(false));
        assert!(t.refuses());
        t.count(Some(true));
        t.count(None);
        assert!(!t.refuses(), "one edited note among others that check out");
        t.count(Some(false));
        assert!(t.refuses());
    }
}
