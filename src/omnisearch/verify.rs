//! Whether a reply is this vault's: Obsidian names a vault by its folder's name alone, so two
//! vaults called `Vault` (a work one and a personal one) look the same in a reply. What the
//! reply can't fake is its excerpts: each is text cut from the note at the hit's path, so it
//! must be found in this vault's file at that path.
//!
//! The rule: a hit *checks out* when its excerpt, folded (below), is found in the note at its
//! path; it *fails* when no file is at its path or the note doesn't hold the excerpt; a hit that
//! can't be checked (not a Markdown note, unreadable) counts for neither, and neither does one
//! whose excerpt holds no letter or digit — but a reply needs letters to pass: one whose notes
//! gave only such excerpts, none checking out, is refused too (anything would pass otherwise).
//! The reply is refused when more of its hits fail than check out. So a
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

/// What a note says of a hit's excerpt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Verdict {
    /// The note holds the excerpt.
    Holds,
    /// The note doesn't (or no file is at the hit's path).
    Lacks,
    /// The excerpt has nothing to compare: no letter or digit.
    Blank,
}

/// The tally of a reply's hits checked against this vault's files.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Tally {
    pub(super) checked_out: usize,
    pub(super) failed: usize,
    /// Hits whose note was read but whose excerpt holds no letter or digit.
    pub(super) blank: usize,
}

impl Tally {
    /// Counts one hit; `None`: not checkable (not a note, unreadable).
    pub(super) fn count(&mut self, verdict: Option<Verdict>) {
        match verdict {
            Some(Verdict::Holds) => self.checked_out += 1,
            Some(Verdict::Lacks) => self.failed += 1,
            Some(Verdict::Blank) => self.blank += 1,
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

    /// The reply gave nothing to check it by: its notes' excerpts hold no letters, and no
    /// other hit checks out.
    pub(super) fn unproven(&self) -> bool {
        self.blank > 0 && self.checked_out == 0
    }
}

/// Whether the plugin's cleaned excerpt is text of `note`; [`Verdict::Blank`] when the excerpt
/// has nothing to compare (no letter or digit).
///
/// The plugin cuts the excerpt from the note's raw text, drops empty lines, adds `…` at cut
/// ends, HTML-escapes it and turns newlines into `<br>`; our cleaning turns those back and
/// flattens whitespace. Both sides are compared folded to their letters and digits, without
/// diacritics, lowercased: what survives every one of those steps in the same order.
///
/// Our cleaning also leaves out the comments Obsidian hides (`<!-- … -->`, `%% … %%`), which the
/// plugin's excerpt keeps: an excerpt that is not in the note as written is looked for in the
/// note without its comments too, so a comment beside the match never refuses an honest reply.
pub(super) fn excerpt_in(note: &str, excerpt: &str) -> Verdict {
    let want = fold(excerpt);
    if want.is_empty() {
        return Verdict::Blank;
    }
    let found = fold(note).contains(&want)
        || ((note.contains("%%") || note.contains("<!--"))
            && fold(&comments::strip(note, false)).contains(&want));
    if found {
        Verdict::Holds
    } else {
        Verdict::Lacks
    }
}

pub(super) fn fold(s: &str) -> String {
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
            Verdict::Lacks
        );
        assert_eq!(
            excerpt_in(note, "…the café & the <b>bar</b> next"),
            Verdict::Holds
        );
        assert_eq!(excerpt_in(note, "Title The CAFÉ"), Verdict::Holds);
        assert_eq!(excerpt_in(note, "another vault's text"), Verdict::Lacks);
        assert_eq!(excerpt_in(note, "… <> …"), Verdict::Blank);
    }

    #[test]
    fn an_excerpt_without_the_notes_comments_checks_out() {
        let note = "kiwi <!-- hush --> fruit %% aside\nstill aside %%\nmore\n";
        assert_eq!(excerpt_in(note, "kiwi fruit more"), Verdict::Holds);
        assert_eq!(excerpt_in(note, "kiwi hush fruit"), Verdict::Holds);
        assert_eq!(excerpt_in(note, "kiwi more"), Verdict::Lacks);
    }

    #[test]
    fn more_failures_than_confirmations_refuse() {
        let mut t = Tally::default();
        t.count(Some(Verdict::Lacks));
        assert!(t.refuses());
        t.count(Some(Verdict::Holds));
        t.count(None);
        assert!(!t.refuses(), "one edited note among others that check out");
        t.count(Some(Verdict::Lacks));
        assert!(t.refuses());
    }

    #[test]
    fn excerpts_without_letters_prove_nothing() {
        let mut t = Tally::default();
        t.count(None);
        assert!(
            !t.unproven(),
            "a hit that can't be read proves nothing either way"
        );
        t.count(Some(Verdict::Blank));
        assert!(t.unproven() && !t.refuses());
        t.count(Some(Verdict::Holds));
        assert!(!t.unproven());
    }
}
