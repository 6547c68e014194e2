//! Which kind of file a hit is: a Markdown note, a JSON Canvas board or a PDF. Decided by the
//! file name alone, so both engines (and a filter) agree without reading the file.

#[cfg(feature = "mcp")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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
}
