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
mod pass;
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
use std::collections::{BTreeSet, HashMap};
use tantivy::{DocAddress, Searcher};

use crate::core::{
    IncomingLink, LinkSource, LinksQuery, LinksResponse, OutgoingLink, TargetKinds,
    UnresolvedTarget,
};
use crate::local::schema::{self, Fields};
use crate::local::stored::Stored;
use crate::text::links::Link;
use pass::{each_resolved, orphans, touched};
use vault::{linking, Vault};

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
        let (links, cut) = match vault.doc_of(&path) {
            Some(addr) => read::links_and_cut(searcher, fields, addr)?,
            None => Default::default(),
        };
        if cut.any() {
            response.warnings.push(cut.warning(&path));
        }
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
    let docs = read::paths(searcher, fields)?;
    let mut vault = Vault::new(dir, docs.iter().map(|(_, p)| p.as_str()));
    let mut cut = Vec::new();
    match query {
        LinksQuery::Note(_) => {}
        LinksQuery::Unresolved(kinds) => {
            let groups = unresolved(searcher, fields, &mut vault, &docs, *kinds, &mut cut)?;
            response.unresolved = Some(groups);
        }
        LinksQuery::Orphans => {
            let touched = touched(searcher, fields, &mut vault, &docs, &mut cut)?;
            response.orphans = Some(orphans(&docs, &touched).map(str::to_string).collect());
        }
    }
    response.warnings.extend(cut_warnings(cut));
    Ok(())
}

/// The warnings about the notes whose links were cut: a few named, the rest counted.
fn cut_warnings(mut cut: Vec<String>) -> Vec<String> {
    const NAMED: usize = 5;
    cut.sort_unstable();
    let more = cut.len().saturating_sub(NAMED);
    cut.truncate(NAMED);
    if more > 0 {
        cut.push(format!("and {more} more notes whose links are cut"));
    }
    cut
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

/// A broken link while they are gathered: its source's rank among the paths, its line, and
/// which spelling of its group's target it writes.
type Broken = (u32, u32, u32);

/// The links that name no file (of `kinds`), grouped by target (without case or `.md`): the
/// targets most notes write first, then most links, then by target. A group is named as its
/// first source (by path, then line) writes the target, lists its other spellings, and its
/// sources in that order: the same answer whatever order the index holds the notes in. Only
/// the groups are kept while the links are read (a target's spellings, 12 bytes a link).
fn unresolved(
    searcher: &Searcher,
    fields: &Fields,
    vault: &mut Vault<'_>,
    docs: &[(DocAddress, String)],
    kinds: TargetKinds,
    cut: &mut Vec<String>,
) -> Result<Vec<UnresolvedTarget>> {
    let mut by_path: Vec<u32> = (0..docs.len() as u32).collect();
    by_path.sort_unstable_by(|&a, &b| docs[a as usize].1.cmp(&docs[b as usize].1));
    let mut rank = vec![0u32; docs.len()];
    for (r, &i) in by_path.iter().enumerate() {
        rank[i as usize] = r as u32;
    }
    let mut groups: HashMap<String, (Vec<String>, Vec<Broken>)> = HashMap::new();
    each_resolved(searcher, fields, vault, docs, cut, |i, link, to| {
        if to.is_some() {
            return;
        }
        let attachment = files::is_attachment(link.target);
        match kinds {
            TargetKinds::Notes if attachment => return,
            TargetKinds::Attachments if !attachment => return,
            _ => {}
        }
        // `[[Note]]` and `[n](Note.md)` name the same missing note.
        let lower = link.target.to_lowercase();
        let key = lower.strip_suffix(".md").unwrap_or(&lower);
        let (spellings, sources) = match groups.get_mut(key) {
            Some(g) => g,
            None => groups.entry(key.to_string()).or_default(),
        };
        let spelling = match spellings.iter().position(|s| s == link.target) {
            Some(p) => p,
            None => {
                spellings.push(link.target.to_string());
                spellings.len() - 1
            }
        };
        sources.push((rank[i], link.line, spelling as u32));
    })?;
    let mut keys: Vec<String> = groups.keys().cloned().collect();
    keys.sort_unstable();
    let mut out = Vec::with_capacity(keys.len());
    for key in keys {
        let Some((spellings, mut sources)) = groups.remove(&key) else {
            continue;
        };
        sources.sort_unstable_by(|a, b| {
            (a.0, a.1, &spellings[a.2 as usize]).cmp(&(b.0, b.1, &spellings[b.2 as usize]))
        });
        let first = sources.first().map_or(0, |s| s.2 as usize);
        let target = spellings.get(first).cloned().unwrap_or_default();
        let mut variants: Vec<String> = spellings
            .into_iter()
            .enumerate()
            .filter(|&(i, _)| i != first)
            .map(|(_, s)| s)
            .collect();
        variants.sort_unstable();
        let mut notes = 0;
        let mut last = None;
        for s in &sources {
            notes += usize::from(last != Some(s.0));
            last = Some(s.0);
        }
        let sources: Vec<LinkSource> = sources
            .into_iter()
            .map(|(r, line, _)| LinkSource {
                source: docs[by_path[r as usize] as usize].1.clone(),
                line,
            })
            .collect();
        out.push(UnresolvedTarget {
            kind: if files::is_attachment(&target) {
                "attachment"
            } else {
                "note"
            }
            .to_string(),
            notes,
            links: sources.len(),
            target,
            variants,
            sources,
        });
    }
    // `keys` was in order: a stable sort keeps it among equal counts.
    out.sort_by_key(|g| std::cmp::Reverse((g.notes, g.links)));
    Ok(out)
}
