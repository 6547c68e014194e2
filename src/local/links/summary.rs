//! The links in brief, for a reader that can't afford the full `links` answer: a note's
//! neighbours by path (what an agent reading the note is shown, without the sentence around
//! each backlink, which costs a stored note per backlink), and a vault's counts of links,
//! broken links and orphans in one pass over the links column.

use std::collections::{BTreeSet, HashSet};

use anyhow::Result;
use tantivy::Searcher;

use super::graph::Graph;
use super::read;
use super::vault::Vault;
use crate::core::{LinkCounts, NoteLinks};
use crate::local::schema;

/// The note `name` names (a vault-relative path), and its links by path.
pub(crate) fn note_links(
    searcher: &Searcher,
    dir: &std::path::Path,
    name: &str,
) -> Result<(String, NoteLinks)> {
    let fields = schema::fields();
    let (mut graph, path) = Graph::for_note(searcher, fields, dir, name, None)?;
    let mut out = NoteLinks::default();
    let Some(addr) = graph.address(&path) else {
        return Ok((path, out));
    };
    let mut unresolved = BTreeSet::new();
    for link in graph.links_of(addr)?.iter() {
        if !link.target.is_empty() && graph.vault.resolve(link, &path).is_none() {
            unresolved.insert(link.target.clone());
        }
    }
    out.unresolved = unresolved.into_iter().collect();
    out.outgoing = graph.targets_of(addr, &path)?.iter().cloned().collect();
    out.incoming = graph
        .linking_to(&path, None)?
        .into_iter()
        .map(|(source, _)| source)
        .collect();
    Ok((path, out))
}

/// The vault's links, broken links and orphans, as `links --unresolved` and `--orphans`
/// count them.
pub(crate) fn counts(searcher: &Searcher, dir: &std::path::Path) -> Result<LinkCounts> {
    let docs = read::documents(searcher, schema::fields(), true)?;
    let mut vault = Vault::new(dir, docs.iter().map(|(_, p, _)| p.as_str()));
    let mut counts = LinkCounts::default();
    let mut touched: HashSet<String> = HashSet::new();
    for (_, source, links) in &docs {
        for link in links.iter().filter(|l| !l.target.is_empty()) {
            counts.links += 1;
            match vault.resolve(link, source) {
                None => counts.broken += 1,
                Some(to) if to != *source => {
                    touched.insert(source.clone());
                    touched.insert(to);
                }
                Some(_) => {}
            }
        }
    }
    counts.orphans = docs
        .iter()
        .filter(|(_, p, _)| {
            let lower = p.to_lowercase();
            (lower.ends_with(".md") || lower.ends_with(".canvas")) && !touched.contains(p)
        })
        .count() as u64;
    Ok(counts)
}
