//! Which kind of file a hit is: a Markdown note, a JSON Canvas board or a PDF. Decided by the
//! file name alone, so both engines (and a filter) agree without reading the file.
//!
//! What differs from kind to kind — the size cap and its flag, what bounds an excerpt, whether
//! a hit has a line, a heading or a page, whether its text hides comments — is asked of the
//! kind here, each answer an exhaustive `match`: a new kind does not compile until every one
//! of them says what it does (`tests/layout.rs` refuses a wildcard arm over the kind).

#[cfg(feature = "mcp")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::text::{excerpt, parts};

/// The kind of an indexed file (`"kind"` in JSON, always present).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "mcp", derive(JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum FileKind {
    /// A Markdown note (`.md`).
    #[default]
    Note,
    /// A JSON Canvas board (`.canvas`).
    Canvas,
    /// A PDF (`.pdf`).
    Pdf,
}

impl FileKind {
    /// The kind of a file by its name (any case), `None` for files the engines don't index.
    pub fn of_name(name: &str) -> Option<FileKind> {
        Self::of_bytes(name.as_bytes())
    }

    /// [`FileKind::of_name`] on raw bytes (a file name that may not be UTF-8).
    pub(crate) fn of_bytes(b: &[u8]) -> Option<FileKind> {
        let ends =
            |ext: &[u8]| b.len() > ext.len() && b[b.len() - ext.len()..].eq_ignore_ascii_case(ext);
        if ends(b".md") {
            Some(FileKind::Note)
        } else if ends(b".canvas") {
            Some(FileKind::Canvas)
        } else if ends(b".pdf") {
            Some(FileKind::Pdf)
        } else {
            None
        }
    }

    /// The extension as Omnisearch's `ext:` filter names it.
    pub fn ext(self) -> &'static str {
        match self {
            FileKind::Note => "md",
            FileKind::Canvas => "canvas",
            FileKind::Pdf => "pdf",
        }
    }

    /// Whether files of this kind are indexed; `pdf`: unless PDFs are left out (`--no-pdf`).
    pub(crate) fn indexed(self, pdf: bool) -> bool {
        match self {
            FileKind::Note | FileKind::Canvas => true,
            FileKind::Pdf => pdf,
        }
    }

    /// The flag that sets the size cap of files of this kind.
    pub(crate) fn cap_flag(self) -> &'static str {
        match self {
            FileKind::Note | FileKind::Canvas => "--max-note-bytes",
            FileKind::Pdf => "--max-pdf-bytes",
        }
    }

    /// Whether the indexed text is the file's own text, so a line of it is a line of the file
    /// (a canvas's and a PDF's text are made from the file: a line points nowhere in it).
    pub(crate) fn text_is_file(self) -> bool {
        match self {
            FileKind::Note => true,
            FileKind::Canvas | FileKind::Pdf => false,
        }
    }

    /// Whether the text is Markdown, with the comments (`<!-- … -->`, `%% … %%`) Obsidian hides:
    /// a note's and a canvas card's are, a PDF's extracted text is not.
    pub(crate) fn is_markdown(self) -> bool {
        match self {
            FileKind::Note | FileKind::Canvas => true,
            FileKind::Pdf => false,
        }
    }

    /// Whether a hit names the heading above its passage (a PDF's text has none of its own).
    pub(crate) fn has_headings(self) -> bool {
        match self {
            FileKind::Note | FileKind::Canvas => true,
            FileKind::Pdf => false,
        }
    }

    /// The byte range of `body` (the indexed text) an excerpt around byte `pos` may show: a
    /// note's text from `floor` (the end of its frontmatter) on, the one canvas card or PDF
    /// page holding `pos`, so an excerpt never mixes two of them.
    pub(crate) fn excerpt_bounds(self, body: &str, pos: usize, floor: usize) -> (usize, usize) {
        match self {
            FileKind::Note => (floor, body.len()),
            FileKind::Canvas | FileKind::Pdf => parts::bounds(body, pos),
        }
    }

    /// The excerpt of a hit at byte `pos` of `body`, within [`FileKind::excerpt_bounds`].
    pub(crate) fn excerpt(self, body: &str, pos: usize, floor: usize) -> String {
        let (from, to) = self.excerpt_bounds(body, pos, floor);
        excerpt::make_excerpt_from(&body[..to], pos, from, self.is_markdown())
    }

    /// The 1-based page of byte `pos` of `body`, for a kind that has pages.
    pub(crate) fn page_at(self, body: &str, pos: usize) -> Option<u64> {
        match self {
            FileKind::Pdf => Some(parts::number_at(body, pos)),
            FileKind::Note | FileKind::Canvas => None,
        }
    }

    /// The file name without its extension.
    pub(crate) fn strip(self, file_name: &str) -> &str {
        let n = self.ext().len() + 1;
        file_name
            .get(..file_name.len().saturating_sub(n))
            .unwrap_or(file_name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_by_name() {
        assert_eq!(FileKind::of_name("a.md"), Some(FileKind::Note));
        assert_eq!(FileKind::of_name("A.MD"), Some(FileKind::Note));
        assert_eq!(FileKind::of_name("b.Canvas"), Some(FileKind::Canvas));
        assert_eq!(FileKind::of_name("c.PDF"), Some(FileKind::Pdf));
        assert_eq!(FileKind::of_name(".md"), None);
        assert_eq!(FileKind::of_name(".pdf"), None);
        assert_eq!(FileKind::of_name("a.mdx"), None);
        assert_eq!(FileKind::Canvas.strip("board.canvas"), "board");
        assert_eq!(FileKind::Pdf.strip("x.pdf"), "x");
    }

    #[test]
    fn what_each_kind_does() {
        let body = format!("one card{}two card", crate::text::parts::SEPARATOR);
        let at = body.find("two").unwrap();
        // A card or page bounds the excerpt; a note's runs on.
        assert_eq!(FileKind::Canvas.excerpt(&body, at, 0), "two card");
        assert_eq!(FileKind::Note.excerpt(&body, at, 0), "one card two card");
        assert_eq!(FileKind::Pdf.page_at(&body, at), Some(2));
        assert_eq!(FileKind::Canvas.page_at(&body, at), None);
        // A PDF's text is not Markdown: `%%` is text there.
        assert_eq!(FileKind::Pdf.excerpt("50 %% off %%", 0, 0), "50 %% off %%");
        assert_eq!(FileKind::Note.excerpt("50 %% off %%", 0, 0), "50");
        assert!(FileKind::Canvas.indexed(false) && !FileKind::Pdf.indexed(false));
        assert_eq!(FileKind::Canvas.cap_flag(), "--max-note-bytes");
    }
}
