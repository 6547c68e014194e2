//! vault-search: ranked full-text search over an Obsidian vault, for people and AI agents.
//!
//! Two engines answer the same query: the Obsidian Omnisearch plugin's local HTTP API when
//! Obsidian runs ([`omnisearch`]), and a persistent Tantivy index in the user's cache dir
//! otherwise ([`local`]). The binary is a thin shell over [`run`]; other Rust tools (a memory
//! CLI, an MCP server) embed the search with [`search()`] and [`index()`]:
//!
//! ```
//! use vault_search::{IndexOptions, SearchOptions, Source};
//!
//! let dir = tempfile::tempdir()?;
//! let vault = dir.path().join("vault");
//! std::fs::create_dir(&vault)?;
//! std::fs::write(vault.join("kotlin.md"), "# Kotlin\nThe daemon kept a stale lock.\n")?;
//! let cache = dir.path().join("cache");
//!
//! // Optional: searches build and refresh the index themselves.
//! let report = vault_search::index(&IndexOptions::new(&vault, &cache))?;
//! assert_eq!(report.notes, 1);
//!
//! let mut opts = SearchOptions::new(&vault, "stale daemon");
//! opts.source = Source::Local; // don't ask Obsidian
//! opts.cache_dir = Some(cache);
//! let answer = vault_search::search(&opts)?;
//! assert_eq!(answer.results[0].path, "kotlin.md");
//! assert_eq!(answer.results[0].line, Some(2));
//! # Ok::<(), anyhow::Error>(())
//! ```

pub mod analyzer;
pub mod cli;
pub mod config;
pub mod coordination;
pub mod engine;
pub mod error;
pub mod excerpt;
pub mod ignore;
pub mod index;
pub mod liveness;
pub mod local;
pub mod manifest;
pub mod note;
pub mod omnisearch;
pub mod output;
pub mod progress;
pub mod query;
pub mod rank;
pub mod schema;
pub mod serve;
pub mod skill;
pub mod status;
pub mod store;
pub mod walk;

use std::io::{self, Write};

use anyhow::Result;

pub use cli::Source;
pub use config::Scope;
pub use engine::{search, SearchOptions};
pub use output::{IndexReport, SearchHit, SearchResponse};

use config::{Action, Config, IndexConfig};

/// Options for [`index()`].
#[derive(Debug, Clone)]
pub struct IndexOptions {
    /// The vault directory.
    pub vault: std::path::PathBuf,
    /// The user cache directory (the index goes to `<cache_dir>/vault-search/<vault id>/`).
    pub cache_dir: std::path::PathBuf,
    /// Rebuild from scratch.
    pub rebuild: bool,
    /// Skip notes larger than this.
    pub max_note_bytes: u64,
}

impl IndexOptions {
    /// Incremental update with the default size cap.
    pub fn new(
        vault: impl Into<std::path::PathBuf>,
        cache_dir: impl Into<std::path::PathBuf>,
    ) -> Self {
        IndexOptions {
            vault: vault.into(),
            cache_dir: cache_dir.into(),
            rebuild: false,
            max_note_bytes: config::DEFAULT_MAX_NOTE_BYTES,
        }
    }
}

/// Builds or updates the local index of a vault (what `vault-search index` does). When another
/// process is indexing, returns at once with `busy: true`.
pub fn index(opts: &IndexOptions) -> Result<IndexReport> {
    index::run(
        &opts.vault,
        Some(&opts.cache_dir),
        &IndexConfig {
            rebuild: opts.rebuild,
            max_note_bytes: opts.max_note_bytes,
        },
    )
}

/// Runs one resolved command line: prints its output to stdout.
pub fn run(config: &Config) -> Result<()> {
    // One write at the end instead of one per line (stdout is line-buffered, and an agent
    // reading a pipe is woken for each).
    let mut out = io::BufWriter::with_capacity(64 * 1024, io::stdout().lock());
    let written = match &config.action {
        Action::Search(opts) => {
            let response = search(opts)?;
            if response.stale && !config.json {
                eprintln!(
                    "vault-search: another process is updating the index; results may be stale"
                );
            }
            if config.json {
                output::write_json(&mut out, &response)
            } else {
                output::write_text(&mut out, &response, config.color)
            }
        }
        Action::Status { port } => {
            let st = status::status(&config.vault, config.cache_dir.as_deref(), *port)?;
            if config.json {
                output::write_json(&mut out, &st)
            } else {
                write!(out, "{}", status::to_text(&st))
            }
        }
        Action::Skill(s) => {
            let bin = skill::binary_path()?;
            if s.agents_md {
                write!(out, "{}", skill::agents_md(&bin))
            } else if s.install {
                let path = skill::install_path(s.dir.as_deref())?;
                skill::install(&path, &skill::skill_md(&bin, &config.vault), s.force)?;
                writeln!(out, "installed {}", path.display())
            } else {
                write!(out, "{}", skill::skill_md(&bin, &config.vault))
            }
        }
        Action::Completions(shell) => {
            use clap::CommandFactory;
            let mut cmd = cli::Args::command();
            clap_complete::generate(*shell, &mut cmd, "vault-search", &mut out);
            Ok(())
        }
        Action::Serve(opts) => {
            out.flush()?;
            serve::run(opts.clone())?;
            Ok(())
        }
        Action::Index(i) => {
            let report = index::run(&config.vault, config.cache_dir.as_deref(), i)?;
            if config.json {
                output::write_json(&mut out, &report)
            } else {
                writeln!(out, "{}", output::index_summary(&report))
            }
        }
    };
    match written.and_then(|()| out.flush()) {
        // A reader that stopped reading (`| head`) is not an error worth a message.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}
