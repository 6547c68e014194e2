//! What a caller asks for: one search, one index run, and the limits the engines are handed.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Default Omnisearch HTTP port (the plugin's own default, `httpApiPort`).
pub const DEFAULT_PORT: u16 = 51361;
/// The note cap of an index that never recorded one (`--max-note-bytes`).
pub const DEFAULT_MAX_NOTE_BYTES: u64 = 10 * 1024 * 1024;
/// The PDF cap of an index that never recorded one (`--max-pdf-bytes`).
pub const DEFAULT_MAX_PDF_BYTES: u64 = 50 * 1024 * 1024;

/// Which engine answers a search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Source {
    /// Omnisearch when Obsidian answers, else the local index.
    #[default]
    Auto,
    /// Only the Omnisearch plugin's HTTP API.
    Omnisearch,
    /// Only the local index.
    Local,
    /// Both engines side by side, for ranking comparisons.
    Both,
}

/// The resource limits of the local engine, decided once by the front-end and handed down.
///
/// The size caps belong to the index, not to one run: an update given a cap (`Some`) applies
/// it — files now over it become placeholders, placeholders now under it are read — and the
/// commit records it; an update given `None` uses the cap the index recorded (the default for
/// an index that never recorded one). So a later search, watcher or `index` without the flag
/// never undoes the cap a user chose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Limits {
    /// Notes and canvases larger than this many bytes are placeholders (named, never read
    /// whole). `None`: the index's recorded cap, else [`DEFAULT_MAX_NOTE_BYTES`]; `Some`:
    /// applied and recorded.
    pub max_note_bytes: Option<u64>,
    /// How PDFs are extracted, if at all.
    pub pdf: PdfLimits,
}

impl Limits {
    /// The caps an update uses: those given, else those the index recorded.
    pub(crate) fn caps(&self, recorded: Caps) -> Caps {
        Caps {
            max_note_bytes: self.max_note_bytes.unwrap_or(recorded.max_note_bytes),
            max_pdf_bytes: self.pdf.max_bytes.unwrap_or(recorded.max_pdf_bytes),
        }
    }
}

/// The size caps an index is kept under, as its commits record them (an older commit without
/// them has the defaults).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Caps {
    pub(crate) max_note_bytes: u64,
    pub(crate) max_pdf_bytes: u64,
}

impl Default for Caps {
    fn default() -> Caps {
        Caps {
            max_note_bytes: DEFAULT_MAX_NOTE_BYTES,
            max_pdf_bytes: DEFAULT_MAX_PDF_BYTES,
        }
    }
}

impl Caps {
    /// The size cap of a file of this kind.
    pub(crate) fn max_bytes(&self, kind: crate::core::FileKind) -> u64 {
        match kind {
            crate::core::FileKind::Note | crate::core::FileKind::Canvas => self.max_note_bytes,
            crate::core::FileKind::Pdf => self.max_pdf_bytes,
        }
    }
}

/// PDF text extraction: it runs in a child process (a hostile PDF can't crash, hang or
/// exhaust the indexing process), under a time limit and, on Unix, a memory limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PdfLimits {
    /// The program that extracts one PDF: the `vault-search` binary (its hidden
    /// `__extract-pdf` subcommand), or a program that calls [`crate::extract_pdf_main`] when
    /// its first argument is `__extract-pdf`.
    /// `None`: PDFs are not indexed at all.
    pub extractor: Option<&'static std::path::Path>,
    /// PDFs larger than this are placeholders (named, never extracted). `None`: the index's
    /// recorded cap, else [`DEFAULT_MAX_PDF_BYTES`]; `Some`: applied and recorded (see
    /// [`Limits`]).
    pub max_bytes: Option<u64>,
    /// Wall time one extraction may take before its process is killed.
    pub timeout_ms: u64,
    /// Address space of the extracting process (Unix: `RLIMIT_AS`; elsewhere not enforced).
    pub max_memory_bytes: u64,
    /// At most this many PDFs are extracted per run (a search's budget; the rest stay
    /// pending and are said so in the warnings); `None`: all of them (`index`).
    pub per_run: Option<u32>,
}

/// How many new PDFs a search extracts before answering.
pub const DEFAULT_SEARCH_PDF_BUDGET: u32 = 2;

impl Default for PdfLimits {
    fn default() -> PdfLimits {
        PdfLimits {
            extractor: None,
            max_bytes: None,
            timeout_ms: 20_000,
            max_memory_bytes: 2 << 30,
            per_run: Some(DEFAULT_SEARCH_PDF_BUDGET),
        }
    }
}

/// Everything one search needs; the library entry point [`crate::search`] takes this.
#[derive(Debug, Clone)]
pub struct SearchOptions {
    /// The vault directory (canonicalised by the caller or not: it is used as given).
    pub vault: PathBuf,
    /// User cache directory; the index lives in `<cache_dir>/vault-search/<vault id>/`.
    /// `None` keeps the index in memory for this call only.
    pub cache_dir: Option<PathBuf>,
    /// Query text: words, `"quoted phrases"`, `-excluded` words.
    pub query: String,
    /// At most this many results.
    pub limit: usize,
    /// Folder filter.
    pub scope: crate::core::Scope,
    /// Tags, modification time and properties a note must have; with any of them the query
    /// may be empty (the matching notes are listed, newest first).
    pub filters: crate::core::Filters,
    /// How results are ordered.
    pub sort: crate::core::Sort,
    /// Which engine answers.
    pub source: Source,
    /// Omnisearch HTTP port.
    pub port: u16,
    /// Refresh the local index (stat walk) before searching.
    pub refresh: bool,
    /// Also return notes hidden by Obsidian's "Excluded files" (local engine).
    pub include_ignored: bool,
    /// Limits of the local engine when a search refreshes or builds the index.
    pub limits: Limits,
    /// Most bytes of note text in one hit's passage (0: no passages). A token budget is
    /// applied to the whole response afterwards, by the front-end that renders it
    /// ([`crate::fit_to_budget`]).
    pub passage_bytes: usize,
}

/// The passage cap of a search whose answer is fitted to `budget` tokens: twice the budget in
/// bytes, at least [`DEFAULT_PASSAGE_BYTES`], at most 16 KiB (measured: a budget of 1,500 shows
/// the answer more often with 3,000-byte passages than with 1,500, at the same cost; see
/// BENCHMARKS.md).
pub fn passage_bytes_within(budget: usize) -> usize {
    budget
        .saturating_mul(2)
        .clamp(DEFAULT_PASSAGE_BYTES, 16 * 1024)
}

/// The passage cap of a search that names none: a section of a few paragraphs (about 400
/// tokens of English), chosen by measurement (docs/agents.md, "Passages").
pub const DEFAULT_PASSAGE_BYTES: usize = 1500;

impl SearchOptions {
    /// Options for a search of `vault` with the defaults of the command line.
    pub fn new(vault: impl Into<PathBuf>, query: impl Into<String>) -> SearchOptions {
        SearchOptions {
            vault: vault.into(),
            cache_dir: None,
            query: query.into(),
            limit: 10,
            scope: crate::core::Scope::default(),
            filters: crate::core::Filters::default(),
            sort: crate::core::Sort::default(),
            source: Source::Auto,
            port: DEFAULT_PORT,
            refresh: true,
            include_ignored: false,
            limits: Limits::default(),
            passage_bytes: DEFAULT_PASSAGE_BYTES,
        }
    }
}

/// Options for [`crate::index()`].
#[derive(Debug, Clone)]
pub struct IndexOptions {
    /// The vault directory.
    pub vault: PathBuf,
    /// The user cache directory (the index goes to `<cache_dir>/vault-search/<vault id>/`).
    pub cache_dir: PathBuf,
    /// Rebuild from scratch.
    pub rebuild: bool,
    /// Notes larger than this are placeholders. `None`: the cap the index recorded, else
    /// [`DEFAULT_MAX_NOTE_BYTES`]; `Some`: applied and recorded for later updates (see
    /// [`Limits`]).
    pub max_note_bytes: Option<u64>,
    /// PDF extraction and its cap `max_bytes` (its `per_run` is ignored: `index` extracts
    /// every PDF).
    pub pdf: PdfLimits,
}

impl IndexOptions {
    /// Incremental update under the caps the index recorded (the defaults for a new one).
    pub fn new(vault: impl Into<PathBuf>, cache_dir: impl Into<PathBuf>) -> Self {
        IndexOptions {
            vault: vault.into(),
            cache_dir: cache_dir.into(),
            rebuild: false,
            max_note_bytes: None,
            pdf: PdfLimits::default(),
        }
    }

    pub(crate) fn limits(&self) -> Limits {
        Limits {
            max_note_bytes: self.max_note_bytes,
            pdf: PdfLimits {
                per_run: None,
                ..self.pdf
            },
        }
    }
}

/// Progress of an index run, reported to whoever drew a bar for it (a front-end). Called from
/// the indexing threads, hence `Sync`.
pub trait IndexProgress: Sync {
    /// The run is about to write `total` notes.
    fn start(&self, total: u64);
    /// One more note was written.
    fn inc(&self);
    /// All notes are written; the commit (and maybe a merge) follows.
    fn committing(&self);
}

/// Reports nothing.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct NoProgress;

impl IndexProgress for NoProgress {
    fn start(&self, _total: u64) {}
    fn inc(&self) {}
    fn committing(&self) {}
}
