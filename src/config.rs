//! One resolved configuration: flags, environment variables and defaults merged once.
//!
//! `main` turns [`crate::cli::Args`] into a [`Config`] here and nothing past `main` looks at raw
//! flags or the environment again, so every default lives in exactly one place.

use std::env;
use std::path::{Component, Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::cli::{Args, ColorChoice, Command, GlobalArgs, IndexArgs, SearchArgs};
use crate::engine::SearchOptions;

/// Default Omnisearch HTTP port (the plugin's own default, `httpApiPort`).
pub const DEFAULT_PORT: u16 = 51361;
/// Notes larger than this are skipped (and counted) by the indexer.
pub const DEFAULT_MAX_NOTE_BYTES: u64 = 10 * 1024 * 1024;

/// Everything a run needs, resolved.
#[derive(Debug, Clone)]
pub struct Config {
    /// Canonical path of the vault directory.
    pub vault: PathBuf,
    /// The user-level cache directory (`<cache>/vault-search/...` lives below it); `None` when the
    /// platform has none, in which case searches use an in-memory index for the run.
    pub cache_dir: Option<PathBuf>,
    /// Print JSON instead of text.
    pub json: bool,
    /// Highlight matched words in text output.
    pub color: bool,
    /// What to do.
    pub action: Action,
}

/// The subcommand, resolved.
#[derive(Debug, Clone)]
pub enum Action {
    /// A search; the options carry the resolved vault and cache dir too.
    Search(SearchOptions),
    Index(IndexConfig),
    Status {
        port: u16,
    },
    Skill(crate::cli::SkillArgs),
    Completions(clap_complete::Shell),
    Serve(crate::serve::ServeOptions),
}

#[derive(Debug, Clone)]
pub struct IndexConfig {
    pub rebuild: bool,
    pub max_note_bytes: u64,
}

/// Which notes a search may return: below `folder` (if any) and below none of `excludes`.
///
/// Folders are stored normalised (no leading/trailing `/`, no `./`, `/` as separator) and
/// compare by whole path segments: `Meta` matches `Meta/x.md`, never `Metadata/x.md`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scope {
    pub folder: Option<String>,
    pub excludes: Vec<String>,
}

impl Scope {
    /// Builds a scope from user text; `..` or an absolute path is an error (it would escape the
    /// vault).
    pub fn new(folder: Option<&str>, excludes: &[String]) -> Result<Scope> {
        let folder = match folder {
            Some(f) => normalize_folder(f).with_context(|| format!("--folder {f:?}"))?,
            None => None,
        };
        let mut ex = Vec::new();
        for e in excludes {
            if let Some(n) = normalize_folder(e).with_context(|| format!("--exclude {e:?}"))? {
                ex.push(n);
            }
        }
        Ok(Scope {
            folder,
            excludes: ex,
        })
    }

    /// True when a vault-relative path (with `/`) is inside this scope.
    pub fn contains(&self, rel_path: &str) -> bool {
        if let Some(f) = &self.folder {
            if !below(rel_path, f) {
                return false;
            }
        }
        !self.excludes.iter().any(|e| below(rel_path, e))
    }

    pub fn is_everything(&self) -> bool {
        self.folder.is_none() && self.excludes.is_empty()
    }
}

/// `path` lies below folder `dir` (whole segments).
fn below(path: &str, dir: &str) -> bool {
    path.strip_prefix(dir)
        .is_some_and(|rest| rest.starts_with('/'))
}

/// Normalises a vault-relative folder; `Ok(None)` means "the whole vault".
pub fn normalize_folder(raw: &str) -> Result<Option<String>> {
    let unified = raw.replace('\\', "/");
    let mut parts = Vec::new();
    for part in unified.split('/') {
        match part {
            "" | "." => {}
            ".." => bail!("a folder must stay inside the vault (no '..')"),
            p => parts.push(p),
        }
    }
    if Path::new(raw).has_root() && !raw.starts_with('/') {
        bail!("a folder must be relative to the vault");
    }
    if parts.is_empty() {
        return Ok(None);
    }
    Ok(Some(parts.join("/")))
}

/// Reads an environment variable, treating an empty value as unset.
fn env_nonempty(name: &str) -> Option<std::ffi::OsString> {
    env::var_os(name).filter(|v| !v.is_empty())
}

impl Config {
    /// Resolves raw flags, the environment and defaults into one configuration.
    pub fn resolve(args: Args) -> Result<Config> {
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
        } = global;
        let color = match color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                use std::io::IsTerminal;
                env_nonempty("NO_COLOR").is_none() && std::io::stdout().is_terminal()
            }
        };
        let needs_vault = !matches!(
            command,
            Some(Command::Skill(_)) | Some(Command::Completions(_))
        );
        let (candidate, origin) = vault_candidate(vault)?;
        let vault = match check_vault(&candidate, origin) {
            Ok(v) => v,
            Err(e) if needs_vault => return Err(e),
            // `skill` only names the vault in its text; `completions` doesn't use it.
            Err(_) => candidate,
        };
        let cache_dir = cache_dir
            .or_else(|| env_nonempty("VAULT_SEARCH_CACHE_DIR").map(PathBuf::from))
            .or_else(|| directories::BaseDirs::new().map(|b| b.cache_dir().to_path_buf()));
        let action = match command {
            None => Action::Search(resolve_search(search, &vault, &cache_dir)?),
            Some(Command::Search(s)) => Action::Search(resolve_search(s, &vault, &cache_dir)?),
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
            Some(Command::Skill(s)) => Action::Skill(s),
            Some(Command::Completions(c)) => Action::Completions(c.shell),
            Some(Command::Serve(s)) => Action::Serve(crate::serve::ServeOptions {
                vault: vault.clone(),
                cache_dir: cache_dir
                    .clone()
                    .context("serve needs a cache directory: pass --cache-dir DIR")?,
                port: s.port,
                allow_origins: s.allow_origin,
                rescan_every: std::time::Duration::from_secs(s.rescan_secs),
            }),
        };
        Ok(Config {
            vault,
            cache_dir,
            json,
            color,
            action,
        })
    }
}

/// The vault path the user asked for (flag, environment, default) and where it came from.
fn vault_candidate(flag: Option<PathBuf>) -> Result<(PathBuf, &'static str)> {
    let (path, origin) = if let Some(p) = flag {
        (p, "--vault")
    } else if let Some(p) = env_nonempty("OBSIDIAN_VAULT") {
        (PathBuf::from(p), "$OBSIDIAN_VAULT")
    } else if let Some(p) = env_nonempty("OBSIDIAN_VAULT_PATH") {
        (PathBuf::from(p), "$OBSIDIAN_VAULT_PATH")
    } else {
        let home = directories::BaseDirs::new()
            .map(|b| b.home_dir().to_path_buf())
            .context("no home directory: pass --vault or set OBSIDIAN_VAULT")?;
        (home.join("Vault"), "the default ~/Vault")
    };
    Ok((expand_tilde(&path), origin))
}

/// The canonical vault directory; an error when it is not a directory.
fn check_vault(path: &Path, origin: &str) -> Result<PathBuf> {
    if !path.is_dir() {
        bail!(
            "vault not found: {} (from {origin}; pass --vault DIR or set OBSIDIAN_VAULT)",
            path.display()
        );
    }
    path.canonicalize()
        .with_context(|| format!("cannot resolve the vault path {}", path.display()))
}

/// `~/x` as typed in an environment variable (shells expand it only on the command line).
fn expand_tilde(p: &Path) -> PathBuf {
    let mut comps = p.components();
    if let Some(Component::Normal(first)) = comps.next() {
        if first == "~" {
            if let Some(b) = directories::BaseDirs::new() {
                return b.home_dir().join(comps.as_path());
            }
        }
    }
    p.to_path_buf()
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
) -> Result<SearchOptions> {
    let query = s.query.join(" ");
    if query.trim().is_empty() {
        bail!("the query is empty: give at least one word to search for");
    }
    let port = resolve_port(s.port)?;
    Ok(SearchOptions {
        vault: vault.to_path_buf(),
        cache_dir: cache_dir.clone(),
        query,
        limit: usize::from(s.limit),
        scope: Scope::new(s.folder.as_deref(), &s.exclude)?,
        source: s.source,
        port,
        refresh: !s.no_refresh,
        include_ignored: s.include_ignored,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_compare_by_segments() {
        let s = Scope::new(Some("./Meta/"), &[]).unwrap();
        assert!(s.contains("Meta/x.md"));
        assert!(s.contains("Meta/a/b.md"));
        assert!(!s.contains("Metadata/x.md"));
        assert!(!s.contains("Meta.md"));
    }

    #[test]
    fn excludes_compare_by_segments() {
        let s = Scope::new(None, &["/Meta/claude-sessions/".into()]).unwrap();
        assert!(!s.contains("Meta/claude-sessions/2026/x.md"));
        assert!(s.contains("Meta/claude-sessions-old/x.md"));
        assert!(s.contains("Meta/x.md"));
    }

    #[test]
    fn folders_cannot_escape() {
        assert!(normalize_folder("../..").is_err());
        assert!(normalize_folder("a/../../b").is_err());
        assert_eq!(normalize_folder("/").unwrap(), None);
        assert_eq!(normalize_folder("./a//b/").unwrap(), Some("a/b".into()));
    }
}
