//! What `related` asks and answers: the notes to read after one note, each saying why. The
//! JSON of `related --json` is one [`RelatedResponse`]; fields may be added later, existing
//! ones keep their meaning.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::Limits;

/// Hits a `related` call returns unless asked otherwise.
pub const DEFAULT_RELATED_LIMIT: usize = 10;
/// Most hits one `related` call may ask for.
pub const MAX_RELATED_LIMIT: usize = 100;

/// A `related` call: the vault, where its index lives, the note and how many hits.
#[derive(Debug, Clone)]
pub struct RelatedOptions {
    pub vault: PathBuf,
    /// Where the index lives (`None`: no cache directory on this system).
    pub cache_dir: Option<PathBuf>,
    /// The caps and PDF settings the freshness update indexes with.
    pub limits: Limits,
    /// The note: a vault-relative path as search prints it, or a file name only one file has
    /// (`.md` optional), as `links` takes it.
    pub note: String,
    /// Most hits, 1 to [`MAX_RELATED_LIMIT`].
    pub limit: usize,
    /// Bring the index up to date first (as a search does); `false`: answer from the index
    /// as it is.
    pub refresh: bool,
}

/// One note to read next.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RelatedHit {
    /// Vault-relative path.
    pub path: String,
    /// The merged score: a link either way counts 3, co-citation up to 2, linking to the same
    /// notes up to 1, shared words up to 2. Higher is closer; comparable within one answer.
    pub score: f64,
    /// Why, strongest first: `links here`, `linked from here`, `cited with it in X`, `links
    /// to the same notes: X`, `shares: a, b, c`.
    pub reasons: Vec<String>,
}

/// The answer of a `related` call, as printed by `--json`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct RelatedResponse {
    /// Canonical vault directory.
    pub vault: String,
    /// The note asked about, as a vault-relative path.
    pub note: String,
    pub results: Vec<RelatedHit>,
    /// Wall time, in seconds, rounded to milliseconds.
    pub elapsed_seconds: f64,
    /// The index could not be brought up to date (another process was writing it): the
    /// answer comes from its last commit.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stale: bool,
    /// A live `serve` watcher keeps the index current: the answer comes from it, without a
    /// freshness walk.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub watched: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// What an agent reading a note is shown of its links: the notes it links to, the targets it
/// names that no file has, the notes linking to it; each list in path order, distinct.
#[cfg(feature = "mcp")]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct NoteLinks {
    pub(crate) outgoing: Vec<String>,
    pub(crate) unresolved: Vec<String>,
    pub(crate) incoming: Vec<String>,
}

/// How a vault's notes link: links written (to a file, not inside the note), those naming no
/// file, and notes and canvases with no link in or out.
#[cfg(feature = "mcp")]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct LinkCounts {
    pub(crate) links: u64,
    pub(crate) broken: u64,
    pub(crate) orphans: u64,
    /// Notes whose stored links were cut (links past a note's cap, or one too long to keep).
    pub(crate) cut: u64,
}
