//! What a caller asks for: one search, one index run, and the limits the engines are handed.

use std::path::PathBuf;

/// Default Omnisearch HTTP port (the plugin's own default, `httpApiPort`).
pub const DEFAULT_PORT: u16 = 51361;
/// Notes larger than this are skipped (and counted) by the indexer.
pub const DEFAULT_MAX_NOTE_BYTES: u64 = 10 * 1024 * 1024;
/// PDFs larger than this are skipped (and named) by the indexer (`--max-pdf-bytes`).
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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Notes larger than this many bytes are skipped (and reported), never read whole.
    pub max_note_bytes: u64,
    /// How PDFs are extracted, if at all.
    pub pdf: PdfLimits,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_note_bytes: DEFAULT_MAX_NOTE_BYTES,
            pdf: PdfLimits::default(),
        }
    }
}

impl Limits {
    /// The size cap of a file of this kind.
    pub(crate) fn max_bytes(&self, kind: crate::core::FileKind) -> u64 {
        match kind {
            crate::core::FileKind::Pdf => self.pdf.max_bytes,
            _ => self.max_note_bytes,
        }
    }
}

/// PDF text extraction: it runs in a child process (a hostile PDF can't crash, hang or
/// exhaust the indexing process), under a time limit and, on Unix, a memory limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PdfLimits {
    /// The program that extracts one PDF: the `vault-search` binary (its hidden
    /// `__extract-pdf` subcommand), or a program that calls `vault_search::cli::extract_pdf_main` when its first
    /// argument is `__extract-pdf`.
    /// `None`: PDFs are not indexed at all.
    pub extractor: Option<&'static std::path::Path>,
    /// PDFs larger than this are skipped (and named).
    pub max_bytes: u64,
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
            max_bytes: DEFAULT_MAX_PDF_BYTES,
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
}

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
    /// Skip notes larger than this.
    pub max_note_bytes: u64,
    /// PDF extraction (its `per_run` is ignored: `index` extracts every PDF).
    pub pdf: PdfLimits,
}

impl IndexOptions {
    /// Incremental update with the default size cap.
    pub fn new(vault: impl Into<PathBuf>, cache_dir: impl Into<PathBuf>) -> Self {
        IndexOptions {
            vault: vault.into(),
            cache_dir: cache_dir.into(),
            rebuild: false,
            max_note_bytes: DEFAULT_MAX_NOTE_BYTES,
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
