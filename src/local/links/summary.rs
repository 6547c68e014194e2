//! The links in brief, for a reader that can't afford the full `links` answer: a note's
//! neighbours by path (what an agent reading the note is shown, without the sentence around
//! each backlink, which costs a stored note per backlink), and a vault's counts of links,
//! broken links and orphans in one pass over the links column.

use std::collections::BTreeSet;

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
/// count them, and the notes whose stored links were cut; one note's links read at a time.
/// The notes `hidden` names (Obsidian's Excluded files) are left out of the counts: their
/// links are not counted, and they are no orphans; a link to one still resolves.
pub(crate) fn counts(
    searcher: &Searcher,
    dir: &std::path::Path,
    hidden: &dyn Fn(&str) -> bool,
) -> Result<LinkCounts> {
    let fields = schema::fields();
    let all = read::paths(searcher, fields)?;
    let mut vault = Vault::new(dir, all.iter().map(|(_, p)| p.as_str()));
    let docs: Vec<_> = all.iter().filter(|(_, p)| !hidden(p)).cloned().collect();
    let mut counts = LinkCounts::default();
    let mut cut = Vec::new();
    let touched = super::pass::touched_counting(
        searcher,
        fields,
        &mut vault,
        &docs,
        &mut cut,
        |to: Option<&str>| {
            counts.links += 1;
            counts.broken += u64::from(to.is_none());
        },
    )?;
    counts.orphans = super::pass::orphans(&docs, &touched).count() as u64;
    counts.cut = cut.len() as u64;
    Ok(counts)
}
