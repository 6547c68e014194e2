//! Which vaults a command line names: `--vault` once or more, else `$OBSIDIAN_VAULT` (a path
//! list, as `PATH` is written on this system), else `$OBSIDIAN_VAULT_PATH`, else `~/Vault`.

use std::env;
use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::core::Vault;

/// The vaults asked for and where they came from.
#[derive(Debug)]
pub(crate) struct Asked {
    pub(crate) paths: Vec<PathBuf>,
    pub(crate) origin: &'static str,
}

/// Reads an environment variable, treating an empty value as unset.
fn env_nonempty(name: &str) -> Option<OsString> {
    env::var_os(name).filter(|v| !v.is_empty())
}

/// The vault paths the user asked for (flags, environment, default).
pub(crate) fn asked(flags: Vec<PathBuf>) -> Result<Asked> {
    let (paths, origin) = if !flags.is_empty() {
        (flags, "--vault")
    } else if let Some(p) = env_nonempty("OBSIDIAN_VAULT") {
        (path_list(&p), "$OBSIDIAN_VAULT")
    } else if let Some(p) = env_nonempty("OBSIDIAN_VAULT_PATH") {
        (path_list(&p), "$OBSIDIAN_VAULT_PATH")
    } else {
        let home = directories::BaseDirs::new()
            .map(|b| b.home_dir().to_path_buf())
            .context("no home directory: pass --vault or set OBSIDIAN_VAULT")?;
        (vec![home.join("Vault")], "the default ~/Vault")
    };
    Ok(Asked {
        paths: paths.iter().map(|p| expand_tilde(p)).collect(),
        origin,
    })
}

/// A variable's value as a path list: split at the system's separator (`:`, `;` on Windows),
/// empty entries dropped; a value that names a folder whole is that one folder (a vault
/// whose path holds the separator, set before lists were read).
fn path_list(value: &OsString) -> Vec<PathBuf> {
    let whole = expand_tilde(Path::new(value));
    if whole.is_dir() {
        return vec![PathBuf::from(value)];
    }
    let parts: Vec<PathBuf> = env::split_paths(value)
        .filter(|p| !p.as_os_str().is_empty())
        .collect();
    if parts.is_empty() {
        vec![PathBuf::from(value)]
    } else {
        parts
    }
}

/// The canonical vault directory; an error when it is not a directory.
pub(crate) fn check_vault(path: &Path, origin: &str) -> Result<PathBuf> {
    if !path.is_dir() {
        bail!(
            "vault not found: {} (from {origin}; pass --vault DIR or set OBSIDIAN_VAULT)",
            path.display()
        );
    }
    crate::paths::canonicalize(path)
        .with_context(|| format!("cannot resolve the vault path {}", path.display()))
}

/// Several vaults, named: each canonical when it is a folder, else kept as given (a search
/// then warns of it and the others answer); a folder named twice is searched once.
pub(crate) fn several(asked: &Asked) -> Vec<Vault> {
    let mut paths: Vec<PathBuf> = Vec::new();
    for p in &asked.paths {
        let p = check_vault(p, asked.origin)
            .unwrap_or_else(|_| std::path::absolute(p).unwrap_or_else(|_| p.clone()));
        if !paths.contains(&p) {
            paths.push(p);
        }
    }
    Vault::name_all(&paths)
}

/// The vault a note argument names and the note's path inside it: `NAME:path` (a vault's
/// name as hits give it), else the one vault with a file at that path.
pub(crate) fn note_in(vaults: &[Vault], note: &str) -> Result<(Vault, String)> {
    // The longest name first: `work/notes:x.md` is not the vault `work` (names hold no `:`
    // but a folder's may).
    let mut by_length: Vec<&Vault> = vaults.iter().collect();
    by_length.sort_by_key(|v| std::cmp::Reverse(v.name.len()));
    for v in by_length {
        if let Some(rest) = note
            .strip_prefix(v.name.as_str())
            .and_then(|r| r.strip_prefix(':'))
        {
            return Ok((v.clone(), rest.to_string()));
        }
    }
    let holding: Vec<&Vault> = vaults
        .iter()
        .filter(|v| v.path.join(note).is_file())
        .collect();
    let names = |vs: &[&Vault]| {
        vs.iter()
            .map(|v| v.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match holding.as_slice() {
        [one] => Ok(((*one).clone(), note.to_string())),
        [] => bail!(
            "{note} is in none of the vaults by that path: write it as VAULT:PATH (vaults: {})",
            names(&vaults.iter().collect::<Vec<_>>())
        ),
        many => bail!(
            "{note} is in several vaults ({}): write it as VAULT:PATH",
            names(many)
        ),
    }
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
