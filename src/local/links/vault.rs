//! The paths a link is resolved against ([`Vault`]): all the index holds (the `links`
//! queries) or only those of the file names asked about (a search's filters and counts), the
//! disk's files when a link names an attachment, and the notes a link names
//! ([`Vault::find_note`]). [`linking`] confirms the candidates of a file's backlinks.

use std::collections::HashMap;

use anyhow::Result;
use tantivy::{DocAddress, Searcher};

use super::codec;
use super::files;
use super::read;
use super::resolve::{has_key, key_of, Paths};
use crate::local::schema::Fields;
use crate::text::links::Link;

/// Most paths an error about a name several files share lists.
const MAX_NAMED: usize = 20;

/// A name that names no file, or several: the asker's mistake, not the index's (a search
/// answers it as an error rather than rebuilding its index over it).
#[derive(Debug)]
pub(crate) struct UnknownNote(pub(super) String);

impl std::fmt::Display for UnknownNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UnknownNote {}

/// The paths links resolve against: the index's, and (once a link names a file the index
/// can't hold, such as an image) every file of the vault.
pub(super) struct Vault<'a> {
    dir: &'a std::path::Path,
    pub(super) paths: Paths,
    listed: bool,
    /// Whether a link naming an attachment the paths lack may list the disk: not where only
    /// the files the index holds can answer (a search's filters and counts).
    may_list: bool,
    /// [`Vault::keyed`]: the document of each path read.
    docs: HashMap<String, DocAddress>,
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
            may_list: true,
            docs: HashMap::new(),
        }
    }

    /// The indexed paths whose file name has one of `keys` ([`key_of`]): all a link with one
    /// of those keys can resolve to, found by their `name_key` term instead of reading every path.
    pub(super) fn keyed<'k>(
        searcher: &Searcher,
        fields: &Fields,
        dir: &'a std::path::Path,
        keys: impl Iterator<Item = &'k str>,
    ) -> Result<Self> {
        let mut vault = Vault {
            dir,
            paths: Paths::default(),
            listed: false,
            may_list: false,
            docs: HashMap::new(),
        };
        vault.add_keys(searcher, fields, keys)?;
        Ok(vault)
    }

    /// Adds the indexed paths whose file name has one of `keys`, as [`Vault::keyed`] reads them.
    pub(super) fn add_keys<'k>(
        &mut self,
        searcher: &Searcher,
        fields: &Fields,
        keys: impl Iterator<Item = &'k str>,
    ) -> Result<()> {
        let mut wanted = std::collections::HashSet::new();
        // Keys share the 512 `name_key` buckets: each bucket is read once, however many of
        // the keys (a hub's 150,000 linkers name thousands) fall in it.
        let mut buckets = std::collections::BTreeSet::new();
        for key in keys {
            buckets.insert(codec::name_term(key));
            wanted.insert(key);
        }
        let mut named = std::collections::BTreeSet::new();
        for bucket in &buckets {
            named.extend(read::holding(searcher, fields.name_key, bucket)?);
        }
        let named: Vec<DocAddress> = named.into_iter().collect();
        let read = read::paths_and_links(searcher, fields, &named, None)?;
        for (addr, (path, _)) in named.into_iter().zip(read) {
            // The bucket holds other names too.
            if !path.is_empty() && wanted.contains(key_of(&path).as_str()) {
                self.paths.add(&path);
                self.docs.insert(path, addr);
            }
        }
        Ok(())
    }

    /// Lets a link naming an attachment the paths lack list the disk's files (once), as the
    /// `links` queries resolve them.
    pub(super) fn listing_attachments(mut self) -> Self {
        self.may_list = true;
        self
    }

    /// The document of `path`, when [`Vault::keyed`] read it.
    pub(super) fn doc_of(&self, path: &str) -> Option<DocAddress> {
        self.docs.get(path).copied()
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
        if self.listed || !self.may_list || !names_attachment(&link.target) {
            return None;
        }
        self.list();
        self.paths.resolve(&link.target, source).map(str::to_string)
    }

    /// The file `name` means: a vault-relative path (`.md` optional, any case) or a file name
    /// only one file has. Only paths of `name`'s [`key_of`] can match, so a [`Vault::keyed`]
    /// by that key answers as one holding every path would; when none matches, the disk's
    /// files are tried (an attachment).
    pub(super) fn find_note(&mut self, name: &str) -> Result<String, UnknownNote> {
        let name = name.trim().trim_start_matches("./").trim_start_matches('/');
        if name.is_empty() {
            return Err(UnknownNote(
                "name a note: its vault-relative path, or a file name only one note has".into(),
            ));
        }
        for attempt in 0..2 {
            let mut named = self.paths.spellings(name);
            if named.is_empty() {
                named = self.paths.spellings(&format!("{name}.md"));
            }
            if named.is_empty() && !name.contains('/') {
                let lower = name.to_lowercase();
                let with_md = format!("{lower}.md");
                named = self
                    .paths
                    .named(&key_of(name))
                    .filter(|(_, low)| {
                        let file = low.rsplit('/').next().unwrap_or(low);
                        file == lower || file == with_md
                    })
                    .map(|(p, _)| p)
                    .collect();
                named.sort_unstable();
            }
            match named.as_slice() {
                [one] => return Ok(one.to_string()),
                [] => {}
                many => {
                    // One line, within an MCP reply's budget however many files share it.
                    let shown = many.len().min(MAX_NAMED);
                    let more = match many.len() - shown {
                        0 => String::new(),
                        n => format!(" and {n} more"),
                    };
                    return Err(UnknownNote(format!(
                        "`{name}` names {} files: {}{more}; give the path",
                        many.len(),
                        many[..shown].join(", ")
                    )));
                }
            }
            if attempt == 0 && !self.listed {
                self.list();
            } else {
                break;
            }
        }
        Err(UnknownNote(format!(
            "no file `{name}` in the vault (give a vault-relative path as search prints it)"
        )))
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

/// The documents other than `path` with a link that resolves to `path`, each with those
/// links, in index order: the candidates holding `path`'s `link_keys` term, confirmed by
/// resolving their links against `vault` (which must hold the paths of `path`'s key).
pub(super) fn linking(
    searcher: &Searcher,
    fields: &Fields,
    vault: &mut Vault<'_>,
    path: &str,
) -> Result<Vec<(DocAddress, String, Vec<Link>)>> {
    let key = key_of(path);
    let candidates = read::holding(searcher, fields.link_keys, &codec::key_term(&key))?;
    let named = |target: &str| !target.is_empty() && has_key(target, &key);
    let read = read::paths_and_links(searcher, fields, &candidates, Some(&named))?;
    let mut out = Vec::new();
    for (addr, (source, links)) in candidates.into_iter().zip(read) {
        if source == path {
            continue;
        }
        let links: Vec<Link> = links
            .into_iter()
            .filter(|link| vault.resolve(link, &source).as_deref() == Some(path))
            .collect();
        if !links.is_empty() {
            out.push((addr, source, links));
        }
    }
    Ok(out)
}
