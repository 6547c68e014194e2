//! The command-line front-end: flags ([`args`]) become one resolved [`config::Config`], the
//! library does the work, and only this module (with `main`) prints — results to stdout,
//! warnings and errors to stderr, one line each.

mod args;
mod config;
mod each;
mod extract;
mod links;
mod print;
mod progress;
mod read;
mod related;
#[cfg(test)]
mod request_check;
mod skill;
mod vaults;

use std::io::{self, Write};
use std::process::ExitCode;

use anyhow::{Context, Result};

use crate::core::request::Resolved;
use config::{Action, Config};

/// The whole program: parse, resolve, run, and map errors to one line and exit 2.
pub fn main() -> ExitCode {
    if extract::is_extractor_call() {
        return crate::extract_pdf_main();
    }
    let args = match args::parse_args() {
        Ok(args) => args,
        Err(code) => return code,
    };
    match Config::resolve(args).and_then(|config| run(&config)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("vault-search: {}", one_line(&format!("{err:#}")));
            ExitCode::from(2)
        }
    }
}

/// Errors are promised to fit on one line, and a path in one (a vault's, a note's) must not
/// drive the terminal.
fn one_line(s: &str) -> String {
    crate::text::terminal::sanitize_for_terminal(s)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn warn_all(warnings: &[String]) {
    for w in warnings {
        eprintln!("vault-search: {}", one_line(w));
    }
}

/// Fits a search's answer to `budget` tokens of what will be printed: the JSON on one line, or
/// the text (without color: the escapes are for a terminal, not an agent's context).
fn fit(response: &mut crate::SearchResponse, budget: usize, json: bool, style: print::TextStyle) {
    let cost = |r: &crate::SearchResponse| -> usize {
        let bytes = if json {
            print::json_bytes(r, false).unwrap_or_default()
        } else {
            let mut b = Vec::new();
            let plain = print::TextStyle {
                color: false,
                ..style
            };
            let _ = print::write_text(&mut b, r, plain);
            b
        };
        // Text's warnings go to stderr, which an agent's shell tool reads too (and the note
        // that the index was stale).
        let stderr: usize = if json {
            0
        } else {
            r.warnings
                .iter()
                .map(|w| crate::estimate_tokens(&format!("vault-search: {}\n", one_line(w))))
                .sum::<usize>()
                + if r.stale { 24 } else { 0 }
        };
        crate::estimate_tokens(&String::from_utf8_lossy(&bytes)) + 1 + stderr
    };
    crate::fit_to_budget(response, budget, &cost);
}

/// A search, printed: its warnings to stderr, the answer to `out` (what writing it said).
fn search(config: &Config, asked: &Resolved, out: &mut dyn Write) -> Result<io::Result<()>> {
    let opts = &asked.options;
    let mut response = if config.vaults.is_empty() {
        crate::search(opts)?
    } else {
        crate::search_vaults(&config.vaults, opts)?
    };
    response
        .warnings
        .splice(0..0, asked.warnings.iter().cloned());
    let style = print::TextStyle {
        color: config.color,
        dated: opts.sort == crate::core::Sort::Modified,
        passages: asked.passages,
    };
    if let Some(budget) = asked.budget {
        fit(&mut response, budget, config.json, style);
    }
    // A budgeted JSON answer carries its warnings; saying them twice costs tokens.
    if !(config.json && asked.budget.is_some()) {
        warn_all(&response.warnings);
    }
    if response.stale && !config.json {
        eprintln!("vault-search: another process is updating the index; results may be stale");
    }
    Ok(match (config.json, asked.budget) {
        (true, None) => print::write_json(out, &response),
        (true, Some(_)) => print::json_bytes(&response, false)
            .and_then(|b| out.write_all(&b))
            .and_then(|()| writeln!(out)),
        (false, _) => print::write_text(out, &response, style),
    })
}

/// One vault's `index` run, its warnings said (`vault NAME: ` before each, over several).
fn index_one(
    config: &Config,
    i: &config::IndexConfig,
    vault: &std::path::Path,
    name: Option<&str>,
) -> Result<crate::IndexReport> {
    let cache_dir = config.cache_dir.clone().context(
        "no cache directory on this system: pass --cache-dir DIR or set VAULT_SEARCH_CACHE_DIR",
    )?;
    let mut opts = crate::IndexOptions::new(vault, cache_dir);
    opts.rebuild = i.rebuild;
    opts.max_note_bytes = i.max_note_bytes;
    opts.pdf = config.pdf;
    let report = {
        let progress = progress::TerminalProgress::default();
        crate::index_with_progress(&opts, &progress)?
    };
    match name {
        Some(n) => warn_all(
            &report
                .warnings
                .iter()
                .map(|w| format!("vault {n}: {w}"))
                .collect::<Vec<_>>(),
        ),
        None => warn_all(&report.warnings),
    }
    Ok(report)
}

/// Runs one resolved command line: prints its output to stdout.
fn run(config: &Config) -> Result<()> {
    #[cfg(feature = "mcp")]
    if let Action::Mcp(opts) = &config.action {
        // Before stdout is locked below: the server writes to it from another thread.
        return crate::mcp::run(opts.clone());
    }
    // One write at the end instead of one per line (stdout is line-buffered, and an agent
    // reading a pipe is woken for each).
    let mut out = io::BufWriter::with_capacity(64 * 1024, io::stdout().lock());
    let written = match &config.action {
        Action::Search(opts) => search(config, opts, &mut out)?,
        Action::Status { port } if !config.vaults.is_empty() => {
            each::run(&config.vaults, config.json, &mut out, &|v| {
                crate::status(&v.path, config.cache_dir.as_deref(), *port)
            })?
        }
        Action::Status { port } => {
            let st = crate::status(&config.vault, config.cache_dir.as_deref(), *port)?;
            if config.json {
                print::write_json(&mut out, &st)
            } else {
                write!(out, "{st}")
            }
        }
        Action::Links { query, refresh } => links::run(config, query, *refresh, &mut out)?,
        Action::Related {
            note,
            limit,
            refresh,
        } => related::run(config, note, *limit, *refresh, &mut out)?,
        Action::Read(r) => read::run(config, r, &mut out)?,
        Action::Skill(s) => {
            let bin = crate::paths::binary_path()?;
            let vaults: Vec<std::path::PathBuf> = match config.vaults.as_slice() {
                [] => vec![config.vault.clone()],
                // A skill for a folder that isn't there would search nothing.
                several => several
                    .iter()
                    .map(|v| vaults::check_vault(&v.path, "--vault"))
                    .collect::<Result<_>>()?,
            };
            if s.agents_md {
                write!(out, "{}", skill::agents_md(&bin, &vaults)?)
            } else if s.install {
                let path = skill::install_path(s.dir.as_deref())?;
                skill::install(&path, &skill::skill_md(&bin, &vaults)?, s.force)?;
                writeln!(out, "installed {}", path.display())
            } else {
                write!(out, "{}", skill::skill_md(&bin, &vaults)?)
            }
        }
        Action::Completions(shell) => {
            use clap::CommandFactory;
            let mut cmd = args::Args::command();
            clap_complete::generate(*shell, &mut cmd, "vault-search", &mut out);
            Ok(())
        }
        #[cfg(feature = "mcp")]
        Action::Mcp(_) => Ok(()), // served above
        #[cfg(feature = "serve")]
        Action::Serve(opts) => {
            out.flush()?;
            crate::serve::run(opts.clone())?;
            Ok(())
        }
        Action::Index(i) if !config.vaults.is_empty() => {
            each::run(&config.vaults, config.json, &mut out, &|v| {
                index_one(config, i, &v.path, Some(&v.name))
            })?
        }
        Action::Index(i) => {
            let report = index_one(config, i, &config.vault, None)?;
            if config.json {
                print::write_json(&mut out, &report)
            } else {
                writeln!(out, "{report}")
            }
        }
    };
    match written.and_then(|()| out.flush()) {
        // A reader that stopped reading (`| head`) is not an error worth a message.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}
