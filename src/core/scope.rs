//! Which notes a search may return: a folder and folders to leave out, normalised once.

use std::path::Path;

use anyhow::{bail, Context, Result};

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

    /// The same scope with every folder passed through `respell` (which gives a folder's
    /// spelling on disk).
    pub(crate) fn respelled(&self, respell: impl Fn(&str) -> String) -> Scope {
        Scope {
            folder: self.folder.as_deref().map(&respell),
            excludes: self.excludes.iter().map(|e| respell(e)).collect(),
        }
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
