//! Links as a search uses them: `--links-to` and `--linked-from` as the set of paths they let
//! through (a clause of the index query, see `crate::local::search::filter`), and how many
//! other notes link to each hit.
//!
//! Both resolve only the links that matter, against only the paths that matter: a link can
//! only name a file of its own name ([`key_of`]), so the candidates are one `link_keys` term
//! and the paths they may resolve to are among the few of one `name_key` term — never a
//! read of every note.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use anyhow::Result;
use tantivy::{DocAddress, Searcher};

use super::resolve::{has_key, key_of, target_key};
use super::vault::{linking, UnknownNote, Vault};
use super::{codec, read};
use crate::core::{Filters, SearchHit};
use crate::local::schema::Fields;

/// The documents the link filters let through (each filter must hold), in index order;
/// `None` without a link filter. A note named by no file or by several is an [`UnknownNote`]
/// naming the flag.
pub(crate) fn allowed_docs(
    searcher: &Searcher,
    fields: &Fields,
    dir: &Path,
    filters: &Filters,
) -> Result<Option<Vec<DocAddress>>> {
    let mut allowed: Option<BTreeSet<DocAddress>> = None;
    // (whether the note must be linked to, its name as given)
    let asked = (filters.links_to.iter().map(|n| (true, n)))
        .chain(filters.linked_from.iter().map(|n| (false, n)));
    for (to, name) in asked {
        let key = key_of(name);
        let mut vault = Vault::keyed(searcher, fields, dir, std::iter::once(key.as_str()))?;
        let path = vault.find_note(name).map_err(|e| {
            let flag = if to { "--links-to" } else { "--linked-from" };
            UnknownNote(format!("{flag} {name}: {e}"))
        })?;
        let these: BTreeSet<DocAddress> = if to {
            linking(searcher, fields, &mut vault, &path)?
                .into_iter()
                .map(|(addr, ..)| addr)
                .collect()
        } else {
            targets_of(searcher, fields, dir, vault.doc_of(&path), &path)?
        };
        allowed = Some(match allowed {
            None => these,
            Some(before) => before.intersection(&these).copied().collect(),
        });
    }
    Ok(allowed.map(|set| set.into_iter().collect()))
}

/// The indexed files other than `path` (the document at `addr`, `None` for a file the index
/// doesn't hold: it links nowhere) that its links resolve to.
fn targets_of(
    searcher: &Searcher,
    fields: &Fields,
    dir: &Path,
    addr: Option<DocAddress>,
    path: &str,
) -> Result<BTreeSet<DocAddress>> {
    let mut out = BTreeSet::new();
    let Some(addr) = addr else {
        return Ok(out);
    };
    let links = read::links_at(searcher, fields, addr)?;
    let keys: BTreeSet<String> = links
        .iter()
        .filter(|l| !l.target.is_empty())
        .map(|l| target_key(&l.target))
        .collect();
    let mut vault = Vault::keyed(searcher, fields, dir, keys.iter().map(String::as_str))?;
    for link in links.iter().filter(|l| !l.target.is_empty()) {
        let to = vault.resolve(link, path);
        if let Some(doc) = to.filter(|to| to != path).and_then(|to| vault.doc_of(&to)) {
            out.insert(doc);
        }
    }
    Ok(out)
}

/// Sets each hit's `links_in`: how many other notes have a resolved link (or embed) to it.
/// All hits at once: one read of the candidates' paths and links, not one per hit.
pub(crate) fn count_incoming(
    searcher: &Searcher,
    fields: &Fields,
    dir: &Path,
    hits: &mut [SearchHit],
) -> Result<()> {
    if hits.is_empty() {
        return Ok(());
    }
    let mut keys: BTreeSet<String> = BTreeSet::new();
    let mut candidates = BTreeSet::new();
    for hit in hits.iter_mut() {
        hit.links_in = Some(0);
        let key = key_of(&hit.path);
        let linking = read::holding(searcher, fields.link_keys, &codec::key_term(&key))?;
        // No note names this file: nothing to resolve (most hits of a sparsely linked vault).
        if !linking.is_empty() {
            candidates.extend(linking);
            keys.insert(key);
        }
    }
    if candidates.is_empty() {
        return Ok(());
    }
    let mut vault = Vault::keyed(searcher, fields, dir, keys.iter().map(String::as_str))?;
    let candidates: Vec<DocAddress> = candidates.into_iter().collect();
    let named = |t: &str| !t.is_empty() && keys.iter().any(|k| has_key(t, k));
    let mut counts: HashMap<String, u32> = HashMap::new();
    for (source, links) in read::paths_and_links(searcher, fields, &candidates, Some(&named))? {
        let targets: BTreeSet<String> = links
            .iter()
            .filter_map(|link| vault.resolve(link, &source))
            .filter(|to| *to != source)
            .collect();
        for to in targets {
            *counts.entry(to).or_default() += 1;
        }
    }
    for hit in hits {
        hit.links_in = Some(counts.get(&hit.path).copied().unwrap_or(0));
    }
    Ok(())
}
