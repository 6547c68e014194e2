//! One resolved configuration: flags, environment variables and defaults merged once.
//!
//! The front-end turns [`super::args::Args`] into a [`Config`] here and nothing after looks at
//! raw flags or the environment again, so every default lives in exactly one place: the
//! engines get options and limits, never flags.

use std::env;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::args::{Args, ColorChoice, Command, GlobalArgs, IndexArgs, SearchArgs, SkillArgs};
use super::vaults::check_vault;
use crate::core::request::{Front, Resolved, SearchRequest};
use crate::core::{Limits, PdfLimits, SearchOptions, Vault, DEFAULT_PORT};

/// Everything a run needs, resolved.
#[derive(Debug, Clone)]
pub(crate) struct Config {
    /// Canonical path of the vault directory (the first one's, when several are named).
    pub(crate) vault: PathBuf,
    /// Every vault named, when more than one is (empty for one vault).
    pub(crate) vaults: Vec<Vault>,
    /// The user-level cache directory (`<cache>/vault-search/...` lives below it); `None` when the
    /// platform has none, in which case searches use an in-memory index for the run.
    pub(crate) cache_dir: Option<PathBuf>,
    /// Print JSON instead of text.
    pub(crate) json: bool,
    /// Highlight matched words in text output.
    pub(crate) color: bool,
    /// PDF extraction (`per_run` is a search's budget; `index` lifts it).
    pub(crate) pdf: PdfLimits,
    /// What to do.
    pub(crate) action: Action,
}

/// The subcommand, resolved.
#[derive(Debug, Clone)]
// One per run, so its size does not matter; without the servers' options a search's dwarf the rest.
#[cfg_attr(
    not(any(feature = "mcp", feature = "serve")),
    allow(clippy::large_enum_variant)
)]
pub(crate) enum Action {
    /// A search; the options carry the resolved vault and cache dir too.
    Search(Box<Resolved>),
    Index(IndexConfig),
    Status {
        port: u16,
    },
    Links {
        query: crate::core::LinksQuery,
        refresh: bool,
    },
    /// `related NOTE -n N`.
    Related {
        note: String,
        limit: usize,
        refresh: bool,
    },
    Read(super::args::ReadArgs),
    Skill(SkillArgs),
    Completions(clap_complete::Shell),
    #[cfg(feature = "mcp")]
    Mcp(crate::mcp::McpOptions),
    #[cfg(feature = "serve")]
    Serve(crate::serve::ServeOptions),
}

#[derive(Debug, Clone)]
pub(crate) struct IndexConfig {
    pub(crate) rebuild: bool,
    /// `None`: the cap the index recorded.
    pub(crate) max_note_bytes: Option<u64>,
}

/// Reads an environment variable, treating an empty value as unset.
fn env_nonempty(name: &str) -> Option<std::ffi::OsString> {
    env::var_os(name).filter(|v| !v.is_empty())
}

impl Config {
    /// Resolves raw flags, the environment and defaults into one configuration.
    pub(crate) fn resolve(args: Args) -> Result<Config> {
        let Args {
            command,
            search,
            global,
        } = args;
        let GlobalArgs {
            vault,
            cache_dir,
            json,
            color,
            no_pdf,
            max_pdf_bytes,
            pdf_timeout,
        } = global;
        if !(pdf_timeout.is_finite() && pdf_timeout > 0.0) {
            bail!("--pdf-timeout must be a positive number of seconds");
        }
        let pdf = PdfLimits {
            extractor: if no_pdf {
                None
            } else {
                super::extract::this_binary()
            },
            max_bytes: max_pdf_bytes,
            timeout_ms: (pdf_timeout * 1000.0).min(86_400_000.0) as u64,
            ..PdfLimits::default()
        };
        let color = match color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                use std::io::IsTerminal;
                env_nonempty("NO_COLOR").is_none() && std::io::stdout().is_terminal()
            }
        };
        let (vault, vaults) = resolve_vaults(vault, &command)?;
        let (vault, vaults, command) = in_the_notes_vault(vault, vaults, command)?;
        let cache_dir = cache_dir
            .or_else(|| env_nonempty("VAULT_SEARCH_CACHE_DIR").map(PathBuf::from))
            .or_else(|| directories::BaseDirs::new().map(|b| b.cache_dir().to_path_buf()));
        let action = match command {
            None => Action::Search(Box::new(resolve_search(search, &vault, &cache_dir, pdf)?)),
            Some(Command::Search(s)) => {
                Action::Search(Box::new(resolve_search(s, &vault, &cache_dir, pdf)?))
            }
            Some(Command::Index(IndexArgs {
                rebuild,
                max_note_bytes,
            })) => Action::Index(IndexConfig {
                rebuild,
                max_note_bytes,
            }),
            Some(Command::Status(s)) => Action::Status {
                port: resolve_port(s.port)?,
            },
            Some(Command::Links(l)) => Action::Links {
                query: if let Some(kinds) = l.unresolved {
                    crate::core::LinksQuery::Unresolved(kinds.into())
                } else if l.orphans {
                    crate::core::LinksQuery::Orphans
                } else {
                    crate::core::LinksQuery::Note(l.note.unwrap_or_default())
                },
                refresh: !l.no_refresh,
            },
            Some(Command::Related(r)) => Action::Related {
                note: r.note,
                limit: usize::from(r.limit),
                refresh: !r.no_refresh,
            },
            Some(Command::Read(r)) => Action::Read(r),
            Some(Command::Skill(s)) => Action::Skill(s),
            Some(Command::Completions(c)) => Action::Completions(c.shell),
            #[cfg(feature = "mcp")]
            Some(Command::Mcp(m)) => Action::Mcp(crate::mcp::McpOptions {
                vault: vault.clone(),
                cache_dir: cache_dir.clone(),
                port: resolve_port(m.port)?,
                index_wait: std::time::Duration::from_secs(m.index_wait),
                print_config: m.print_config,
                pdf,
            }),
            #[cfg(feature = "serve")]
            Some(Command::Serve(s)) => Action::Serve(crate::serve::ServeOptions {
                vault: vault.clone(),
                cache_dir: cache_dir
                    .clone()
                    .context("serve needs a cache directory: pass --cache-dir DIR")?,
                port: s.port,
                allow_origins: s.allow_origin,
                rescan_every: std::time::Duration::from_secs(s.rescan_secs),
                pdf: PdfLimits {
                    per_run: None,
                    ..pdf
                },
            }),
        };
        Ok(Config {
            vault,
            vaults,
            cache_dir,
            json,
            color,
            pdf,
            action,
        })
    }
}

/// The vault (the first, when several are named) and, when several are, all of them.
fn resolve_vaults(flags: Vec<PathBuf>, command: &Option<Command>) -> Result<(PathBuf, Vec<Vault>)> {
    // `skill` needs one too: its command names the vault, and a skill for a folder that
    // isn't there would search nothing.
    let needs_vault = !matches!(command, Some(Command::Completions(_)));
    let asked = super::vaults::asked(flags)?;
    let vaults = match asked.paths.len() {
        1 => Vec::new(),
        _ => super::vaults::several(&asked),
    };
    let vault = match vaults.as_slice() {
        [] => {
            let candidate = asked.paths[0].clone();
            match check_vault(&candidate, asked.origin) {
                Ok(v) => v,
                Err(e) if needs_vault => return Err(e),
                // `completions` doesn't use it.
                Err(_) => candidate,
            }
        }
        // A folder named twice: one vault.
        [one] => check_vault(&one.path, asked.origin)?,
        [first, ..] => first.path.clone(),
    };
    if vaults.len() < 2 {
        return Ok((vault, Vec::new()));
    }
    one_vault_only(command)?;
    Ok((vault, vaults))
}

/// `read`, `links NOTE` and `related` over several vaults answer in the vault their note
/// names (`NAME:path`, or the one vault holding that path): it becomes the run's one vault.
fn in_the_notes_vault(
    vault: PathBuf,
    vaults: Vec<Vault>,
    command: Option<Command>,
) -> Result<(PathBuf, Vec<Vault>, Option<Command>)> {
    let note = match &command {
        _ if vaults.is_empty() => None,
        Some(Command::Read(r)) => Some(r.note.as_str()),
        Some(Command::Related(r)) => Some(r.note.as_str()),
        Some(Command::Links(l)) => l.note.as_deref(),
        _ => None,
    };
    let Some(note) = note else {
        return Ok((vault, vaults, command));
    };
    let (chosen, rest) = super::vaults::note_in(&vaults, note)?;
    let command = command.map(|c| match c {
        Command::Read(mut r) => {
            r.note = rest;
            Command::Read(r)
        }
        Command::Related(mut r) => {
            r.note = rest;
            Command::Related(r)
        }
        Command::Links(mut l) => {
            l.note = Some(rest);
            Command::Links(l)
        }
        other => other,
    });
    Ok((check_vault(&chosen.path, "--vault")?, Vec::new(), command))
}

/// Refuses several vaults to a subcommand that answers for one.
fn one_vault_only(command: &Option<Command>) -> Result<()> {
    let name = match command {
        None
        | Some(Command::Search(_) | Command::Completions(_) | Command::Index(_))
        | Some(Command::Status(_) | Command::Read(_) | Command::Related(_)) => return Ok(()),
        Some(Command::Links(l)) if l.note.is_some() => return Ok(()),
        #[cfg(feature = "serve")]
        Some(Command::Serve(_)) => bail!(
            "serve answers for one vault (the Omnisearch API it stands in for is one vault's): \
             run one serve per vault, each on its own --port"
        ),
        Some(Command::Skill(_)) => return Ok(()),
        Some(Command::Links(_)) => "links --unresolved and --orphans",
        #[cfg(feature = "mcp")]
        Some(Command::Mcp(_)) => "mcp",
    };
    bail!("{name} takes one vault for now: name one --vault")
}

/// `--port`, else `$OMNISEARCH_PORT`, else the plugin's default.
fn resolve_port(flag: Option<u16>) -> Result<u16> {
    Ok(match flag {
        Some(p) => p,
        None => match env_nonempty("OMNISEARCH_PORT") {
            Some(v) => {
                let text = v.to_string_lossy();
                match text.trim().parse::<u16>() {
                    Ok(p) if p > 0 => p,
                    _ => bail!("$OMNISEARCH_PORT must be a port number 1-65535, not {text:?}"),
                }
            }
            None => DEFAULT_PORT,
        },
    })
}

fn resolve_search(
    s: SearchArgs,
    vault: &Path,
    cache_dir: &Option<PathBuf>,
    pdf: PdfLimits,
) -> Result<Resolved> {
    let base = SearchOptions {
        cache_dir: cache_dir.clone(),
        port: resolve_port(s.port)?,
        limits: Limits {
            pdf,
            ..Limits::default()
        },
        ..SearchOptions::new(vault, "")
    };
    s.request().resolve(Front::Cli, &base)
}

impl SearchArgs {
    /// The request these flags make (the port resolved by the caller, with the environment).
    fn request(self) -> SearchRequest {
        SearchRequest {
            query: self.query.join(" "),
            limit: Some(u64::from(self.limit)),
            folder: self.folder,
            exclude: self.exclude,
            tags: self.tag,
            since: self.since,
            until: self.until,
            where_: self.where_,
            links_to: self.links_to,
            linked_from: self.linked_from,
            sort: self.sort.map(Into::into),
            source: Some(self.source.into()),
            port: self.port,
            no_refresh: self.no_refresh,
            include_ignored: self.include_ignored,
            budget: self.budget.map(u64::from),
            passages: self.passages,
        }
    }
}

// The flags' values as the library sees them.

impl From<super::args::SortArg> for crate::core::Sort {
    fn from(s: super::args::SortArg) -> crate::core::Sort {
        match s {
            super::args::SortArg::Relevance => crate::core::Sort::Relevance,
            super::args::SortArg::Modified => crate::core::Sort::Modified,
        }
    }
}

impl From<super::args::SourceArg> for crate::core::Source {
    fn from(s: super::args::SourceArg) -> crate::core::Source {
        use crate::core::Source;
        match s {
            super::args::SourceArg::Auto => Source::Auto,
            super::args::SourceArg::Omnisearch => Source::Omnisearch,
            super::args::SourceArg::Local => Source::Local,
            super::args::SourceArg::Both => Source::Both,
        }
    }
}

impl From<super::args::UnresolvedArg> for crate::core::TargetKinds {
    fn from(a: super::args::UnresolvedArg) -> Self {
        match a {
            super::args::UnresolvedArg::All => Self::All,
            super::args::UnresolvedArg::Notes => Self::Notes,
            super::args::UnresolvedArg::Attachments => Self::Attachments,
        }
    }
}
