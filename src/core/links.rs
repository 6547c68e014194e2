//! What `links` asks and answers: a note's outgoing and incoming links, the vault's broken
//! links, its orphans. The JSON of `links --json` is one [`LinksResponse`]; fields may be
//! added later, existing ones keep their meaning.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::Limits;

/// Which links a `links` call asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinksQuery {
    /// One note's links and backlinks: a vault-relative path as search prints it, or a file
    /// name that only one file has (`.md` optional).
    Note(String),
    /// Every link that names no file, grouped by target: all of them, or only those to
    /// notes or to attachments.
    Unresolved(TargetKinds),
    /// Every note (Markdown or canvas) that no link leads to or from.
    Orphans,
}

/// Which missing targets `links --unresolved` lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TargetKinds {
    #[default]
    All,
    /// Targets that would be notes (no extension, `.md`, `.canvas`).
    Notes,
    /// Targets that would be attachments (an image, audio, video, PDF or office file).
    Attachments,
}

/// A `links` call: the vault, where its index lives, and the question.
#[derive(Debug, Clone)]
pub struct LinksOptions {
    pub vault: PathBuf,
    /// Where the index lives (`None`: no cache directory on this system).
    pub cache_dir: Option<PathBuf>,
    /// The caps and PDF settings the freshness update indexes with.
    pub limits: Limits,
    pub query: LinksQuery,
    /// Bring the index up to date first (as a search does); `false`: answer from the index
    /// as it is.
    pub refresh: bool,
}

/// A link as one note wrote it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct OutgoingLink {
    /// The target as written (a Markdown destination percent-decoded), without its heading or
    /// block; empty for a link inside the note (`[[#Heading]]`).
    pub target: String,
    /// The vault-relative path it names now; `None`: unresolved.
    pub resolved: Option<String>,
    /// 1-based line.
    pub line: u32,
    /// `link` or `embed` (`![[…]]`, `![…](…)`, a canvas's file card).
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heading: Option<String>,
    /// The block id, without `^`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block: Option<String>,
    /// The text shown instead of the target (`[[t|text]]`, `[text](t)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// A link to the note from another file.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct IncomingLink {
    /// The linking file's vault-relative path.
    pub source: String,
    pub line: u32,
    /// `link` or `embed`.
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heading: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block: Option<String>,
    /// The sentence around the link, on one line.
    pub context: String,
}

/// Where a broken link is written.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct LinkSource {
    pub source: String,
    pub line: u32,
}

/// The links that name one missing file.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct UnresolvedTarget {
    /// The target as first written (the links are grouped without case or `.md`).
    pub target: String,
    /// `note` or `attachment`, by the target's extension.
    pub kind: String,
    /// How many notes write it.
    pub notes: usize,
    /// How many links name it (`sources.len()`).
    pub links: usize,
    /// The other spellings written for it (`Meeting notes` beside `meeting notes.md`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<String>,
    pub sources: Vec<LinkSource>,
}

/// The answer of a `links` call, as printed by `--json`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct LinksResponse {
    /// Canonical vault directory.
    pub vault: String,
    /// The note asked about, as a vault-relative path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outgoing: Option<Vec<OutgoingLink>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incoming: Option<Vec<IncomingLink>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unresolved: Option<Vec<UnresolvedTarget>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub orphans: Option<Vec<String>>,
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
