//! Several vaults in one search: their names, and what each vault's search said.

use std::path::{Path, PathBuf};

#[cfg(feature = "mcp")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One vault of a search over several: its folder and the name hits and answers give it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vault {
    /// The name Obsidian gives it (its folder's name), with the folder above it when two
    /// vaults of the search share a folder name (`work/notes`, `home/notes`).
    pub name: String,
    /// The vault directory.
    pub path: PathBuf,
}

impl Vault {
    /// Names each of `paths` as Obsidian does, by its folder's name; two folders of the same
    /// name are told apart by the folders above them (as many as it takes), and two spellings
    /// of one folder keep one name each (the second with ` (2)`).
    pub fn name_all(paths: &[PathBuf]) -> Vec<Vault> {
        let mut depth = vec![1usize; paths.len()];
        // Each round lengthens the names that still collide; a path has finitely many parts.
        for _ in 0..64 {
            let names: Vec<String> = paths.iter().zip(&depth).map(|(p, &d)| tail(p, d)).collect();
            let mut grew = false;
            for i in 0..paths.len() {
                let clash = (0..paths.len()).any(|j| j != i && names[j] == names[i]);
                if clash && tail(&paths[i], depth[i] + 1) != names[i] {
                    depth[i] += 1;
                    grew = true;
                }
            }
            if !grew {
                break;
            }
        }
        let mut out: Vec<Vault> = Vec::with_capacity(paths.len());
        for (p, &d) in paths.iter().zip(&depth) {
            let base = tail(p, d);
            let mut name = base.clone();
            let mut n = 2;
            while out.iter().any(|v| v.name == name) {
                name = format!("{base} ({n})");
                n += 1;
            }
            out.push(Vault {
                name,
                path: p.clone(),
            });
        }
        out
    }
}

/// The last `parts` names of `path`, joined with `/` (the whole path when it has fewer).
fn tail(path: &Path, parts: usize) -> String {
    let names: Vec<String> = path
        .components()
        .filter_map(|c| match c {
            std::path::Component::Normal(n) => Some(n.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    if names.is_empty() {
        return path.display().to_string();
    }
    names[names.len().saturating_sub(parts)..].join("/")
}

/// What one vault of a search over several answered (`vaults` in the response).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "mcp", derive(JsonSchema))]
pub struct VaultAnswer {
    /// The vault's name, as hits name it in their `vault` field.
    pub name: String,
    /// The vault directory.
    pub path: String,
    /// The engine that answered for this vault (empty when it was not searched).
    pub engine: String,
    /// Hits this vault's own search returned (before the merged list was cut to the limit).
    pub total_results: usize,
    /// Why this vault was not searched (a missing folder, a locked or unreadable index):
    /// the other vaults answered; a warning says it too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Why the local engine answered this vault in `auto` mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback_reason: Option<String>,
    /// This vault's index could not be refreshed: its hits come from its last commit.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stale: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(paths: &[&str]) -> Vec<String> {
        let paths: Vec<PathBuf> = paths.iter().map(PathBuf::from).collect();
        Vault::name_all(&paths)
            .into_iter()
            .map(|v| v.name)
            .collect()
    }

    #[test]
    fn folder_names_and_what_tells_them_apart() {
        assert_eq!(names(&["/a/work", "/b/home"]), ["work", "home"]);
        assert_eq!(
            names(&["/a/work/notes", "/b/home/notes", "/c/tldr"]),
            ["work/notes", "home/notes", "tldr"]
        );
        assert_eq!(
            names(&["/x/a/notes", "/y/a/notes"]),
            ["x/a/notes", "y/a/notes"]
        );
        assert_eq!(names(&["/a/notes", "/a/notes"]), ["a/notes", "a/notes (2)"]);
    }
}
