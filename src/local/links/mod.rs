//! Links between the files of a vault, as Obsidian sees them: a note's outgoing links and
//! backlinks, the links that name no file, the notes no link touches.
//!
//! The indexer keeps each note's links as written (see [`codec`]) with one `link_keys` term
//! per file name they name. Nothing is resolved at index time: a query resolves links against
//! the paths the index holds at that moment ([`resolve`]), so a new, renamed or deleted note
//! changes its backlinks and the broken links at once, without re-reading the notes that link
//! to it. Backlinks are found without reading every note: the documents holding the file's
//! key, whose links are then resolved to confirm.
//!
//! The caller (`crate::local::vault_links`) first brings the index up to date as
//! `vault-search index` does (the walk, then only the changed files are read).

pub(crate) mod codec;
mod context;
mod files;
mod graph;
mod read;
pub(crate) mod related;
mod resolve;
mod select;
#[cfg(feature = "mcp")]
pub(crate) mod summary;
mod vault;

pub(crate) use resolve::{key_of, target_key};
pub(crate) use select::{allowed_docs, count_incoming};
pub(crate) use vault::UnknownNote;

use anyhow::{Context, Result};
use std::collections::{BTreeSet, HashSet};
use tantivy::{DocAddress, Searcher};

use crate::core::{
    IncomingLink, LinkSource, LinksQuery, LinksResponse, OutgoingLink, UnresolvedTarget,
};
use crate::local::schema::{self, Fields};
use crate::local::stored::Stored;
use crate::text::links::Link;
use vault::{linking, Vault};

/// A document: its address, path and links.
type Doc = (DocAddress, String, Vec<Link>);

/// Answers `query` from `searcher`, the index of the vault at `dir`, into `response`.
pub(crate) fn answer(
    searcher: &Searcher,
    dir: &std::path::Path,
    query: &LinksQuery,
    response: &mut LinksResponse,
) -> Result<()> {
    let fields = schema::fields();
    if let LinksQuery::Note(name) = query {
        // A note's links can only name the paths of their file names: those are read, not
        // every path of the vault.
        let key = key_of(name.trim());
        let mut vault = Vault::keyed(searcher, fields, dir, std::iter::once(key.as_str()))?
            .listing_attachments();
        let path = vault.find_note(name)?;
        let links = match vault.doc_of(&path) {
            Some(addr) => read::links_at(searcher, fields, addr)?,
            None => Vec::new(),
        };
        let keys: BTreeSet<String> = links
            .iter()
            .filter(|l| !l.target.is_empty())
            .map(|l| target_key(&l.target))
            .collect();
        vault.add_keys(searcher, fields, keys.iter().map(String::as_str))?;
        let outgoing = links
            .iter()
            .map(|l| outgoing(l, vault.resolve(l, &path)))
            .collect();
        response.incoming = Some(incoming(searcher, fields, &mut vault, &path)?);
        response.outgoing = Some(outgoing);
        response.note = Some(path);
        return Ok(());
    }
    let docs = read::documents(searcher, fields, true)?;
    let mut vault = Vault::new(dir, docs.iter().map(|(_, p, _)| p.as_str()));
    match query {
        LinksQuery::Note(_) => {}
        LinksQuery::Unresolved => response.unresolved = Some(unresolved(&mut vault, &docs)),
        LinksQuery::Orphans => response.orphans = Some(orphans(&mut vault, &docs)),
    }
    Ok(())
}

fn kind(link: &Link) -> String {
    if link.embed { "embed" } else { "link" }.to_string()
}

/// (heading, block) of a link's subpath.
fn subpath(link: &Link) -> (Option<String>, Option<String>) {
    if link.subpath.is_empty() {
        (None, None)
    } else if let Some(block) = link.subpath.strip_prefix('^') {
        (None, Some(block.to_string()))
    } else {
        (Some(link.subpath.clone()), None)
    }
}

fn outgoing(link: &Link, resolved: Option<String>) -> OutgoingLink {
    let (heading, block) = subpath(link);
    OutgoingLink {
        target: link.target.clone(),
        resolved,
        line: link.line,
        kind: kind(link),
        heading,
        block,
        text: (!link.text.is_empty()).then(|| link.text.clone()),
    }
}

/// The links from other files that resolve to `path`, by source and line.
fn incoming(
    searcher: &Searcher,
    fields: &Fields,
    vault: &mut Vault<'_>,
    path: &str,
) -> Result<Vec<IncomingLink>> {
    let mut out = Vec::new();
    for (addr, source, links) in linking(searcher, fields, vault, path)? {
        let body = Stored::read(searcher, addr).context("reading a linking note")?;
        for link in links {
            let (heading, block) = subpath(&link);
            out.push(IncomingLink {
                source: source.clone(),
                line: link.line,
                kind: kind(&link),
                heading,
                block,
                context: context::sentence(body.body(), link.line, &link.target),
            });
        }
    }
    out.sort_by(|a, b| (&a.source, a.line).cmp(&(&b.source, b.line)));
    Ok(out)
}

/// The links that name no file, grouped by target (without case or `.md`), targets in order.
/// A group is named as its first source (by path, then line) writes the target, and lists its
/// sources in that order: the same answer whatever order the index holds the notes in.
fn unresolved(vault: &mut Vault<'_>, docs: &[Doc]) -> Vec<UnresolvedTarget> {
    let mut broken: Vec<(String, &String, u32, &String)> = Vec::new();
    for (_, source, links) in docs {
        for link in links {
            if link.target.is_empty() || vault.resolve(link, source).is_some() {
                continue;
            }
            // `[[Note]]` and `[n](Note.md)` name the same missing note.
            let lower = link.target.to_lowercase();
            let key = lower.strip_suffix(".md").unwrap_or(&lower).to_string();
            broken.push((key, source, link.line, &link.target));
        }
    }
    broken.sort_unstable();
    let mut groups: Vec<(String, UnresolvedTarget)> = Vec::new();
    for (key, source, line, target) in broken {
        if groups.last().is_none_or(|(k, _)| *k != key) {
            let group = UnresolvedTarget {
                target: target.clone(),
                sources: Vec::new(),
            };
            groups.push((key, group));
        }
        if let Some((_, group)) = groups.last_mut() {
            group.sources.push(LinkSource {
                source: source.clone(),
                line,
            });
        }
    }
    groups.into_iter().map(|(_, g)| g).collect()
}

/// The notes and canvases with no resolved link to or from another file.
fn orphans(vault: &mut Vault<'_>, docs: &[Doc]) -> Vec<String> {
    let mut touched: HashSet<String> = HashSet::new();
    for (_, source, links) in docs {
        for link in links {
            match vault.resolve(link, source) {
                Some(to) if to != *source => {
                    touched.insert(source.clone());
                    touched.insert(to);
                }
                _ => {}
            }
        }
    }
    let notes: BTreeSet<&str> = docs
        .iter()
        .map(|(_, p, _)| p.as_str())
        .filter(|p| {
            let lower = p.to_lowercase();
            (lower.ends_with(".md") || lower.ends_with(".canvas")) && !touched.contains(*p)
        })
        .collect();
    notes.into_iter().map(str::to_string).collect()
}
