//! vault-search: ranked full-text search over an Obsidian vault, for people and AI agents.
//!
//! Two engines answer the same query: the Obsidian Omnisearch plugin's local HTTP API when
//! Obsidian runs ([`omnisearch`]), and a persistent Tantivy index in the user's cache dir
//! otherwise ([`local`]). The binary is a thin shell over [`run`]; other Rust tools can call
//! [`search()`] directly.

pub mod analyzer;
pub mod cli;
pub mod config;
pub mod engine;
pub mod error;
pub mod excerpt;
pub mod index;
pub mod local;
pub mod note;
pub mod omnisearch;
pub mod output;
pub mod query;
pub mod rank;
pub mod schema;
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

use config::{Action, Config};

/// Runs one resolved command line: prints its output to stdout.
pub fn run(config: &Config) -> Result<()> {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let written = match &config.action {
        Action::Search(s) => {
            let opts = SearchOptions {
                vault: config.vault.clone(),
                cache_dir: config.cache_dir.clone(),
                query: s.query.clone(),
                limit: s.limit,
                scope: s.scope.clone(),
                source: s.source,
                port: s.port,
                refresh: s.refresh,
            };
            let response = search(&opts)?;
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
