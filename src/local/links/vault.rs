//! The paths a query resolves links against: the index's, and (once a link names a file the
//! index can't hold, such as an image) every file of the vault; and the note a user names.

use anyhow::{bail, Result};

use super::files;
use super::resolve::{key_of, Paths};
use crate::text::links::Link;

/// The paths links resolve against: the index's, and (once a link names a file the index
/// can't hold, such as an image) every file of the vault.
pub(super) struct Vault<'a> {
    dir: &'a std::path::Path,
    pub(super) paths: Paths,
    listed: bool,
}

impl<'a> Vault<'a> {
    pub(super) fn new<'p>(
        dir: &'a std::path::Path,
        indexed: impl Iterator<Item = &'p str>,
    ) -> Self {
        let mut paths = Paths::default();
        for p in indexed {
            paths.add(p);
        }
        Vault {
            dir,
            paths,
            listed: false,
        }
    }

    /// Adds every file on disk (once).
    fn list(&mut self) {
        if !self.listed {
            self.listed = true;
            for p in files::list(self.dir) {
                self.paths.add(&p);
            }
        }
    }

    /// The path `link`, written in `source`, names now.
    pub(super) fn resolve(&mut self, link: &Link, source: &str) -> Option<String> {
        if let Some(p) = self.paths.resolve(&link.target, source) {
            return Some(p.to_string());
        }
        if self.listed || !names_attachment(&link.target) {
            return None;
        }
        self.list();
        self.paths.resolve(&link.target, source).map(str::to_string)
    }

    /// The file `name` means: a vault-relative path (`.md` optional, any case) or a file name
    /// only one file has.
    pub(super) fn find_note(&mut self, name: &str) -> Result<String> {
        let name = name.trim().trim_start_matches("./").trim_start_matches('/');
        if name.is_empty() {
            bail!("name a note: its vault-relative path, or a file name only one note has");
        }
        for attempt in 0..2 {
            if let Some(p) = self
                .paths
                .find(name)
                .or_else(|| self.paths.find(&format!("{name}.md")))
            {
                return Ok(p.to_string());
            }
            if !name.contains('/') {
                let lower = name.to_lowercase();
                let with_md = format!("{lower}.md");
                let mut named: Vec<&str> = self
                    .paths
                    .named(&key_of(name))
                    .filter(|p| {
                        let file = p.rsplit('/').next().unwrap_or(p).to_lowercase();
                        file == lower || file == with_md
                    })
                    .collect();
                named.sort_unstable();
                match named.as_slice() {
                    [one] => return Ok(one.to_string()),
                    [] => {}
                    many => bail!(
                        "`{name}` names {} files: {}; give the path",
                        many.len(),
                        many.join(", ")
                    ),
                }
            }
            if attempt == 0 && !self.listed {
                self.list();
            } else {
                break;
            }
        }
        bail!("no file `{name}` in the vault (give a vault-relative path as search prints it)")
    }
}

/// A target whose file name has an extension other than `.md`: a file the index may not
/// hold.
fn names_attachment(target: &str) -> bool {
    let name = target.rsplit('/').next().unwrap_or(target);
    match name.rsplit_once('.') {
        Some((stem, ext)) => !stem.is_empty() && !ext.eq_ignore_ascii_case("md"),
        None => false,
    }
}
