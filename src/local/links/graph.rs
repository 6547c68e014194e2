//! The links between indexed notes as a graph: a note's resolved targets and the notes
//! linking to it, each document's links resolved once per query. `related` and the agents'
//! view of a note's links walk it; links to attachments are left out (no note to read).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::rc::Rc;

use anyhow::Result;
use tantivy::{DocAddress, Searcher};

use super::codec;
use super::read;
use super::resolve::{key_of, target_key};
use super::vault::Vault;
use crate::local::schema::Fields;
use crate::local::stored;
use crate::text::links::Link;

/// The links between indexed notes, resolved once per document.
///
/// Only the paths that the links it will meet can name are loaded: a link names a file by
/// its name (see [`key_of`]), so a note's links, its linkers' and (for coupling) its targets'
/// linkers' give every name to know, and those names' paths are read from their `name_key`
/// terms ([`Vault::keyed`]) rather than a table of every path. Resolution over those paths is the same as
/// over all of them: every rule of [`super::resolve`] compares paths of the link's name only.
pub(super) struct Graph<'a> {
    searcher: &'a Searcher,
    fields: &'a Fields,
    /// The loaded paths, with their documents.
    pub(super) vault: Vault<'a>,
    /// A document's links, kept: they are read once to learn their names, once to resolve.
    links: HashMap<DocAddress, Rc<Vec<Link>>>,
    /// A document's resolved targets, kept: co-citation and coupling meet the same notes.
    targets: HashMap<DocAddress, Rc<BTreeSet<String>>>,
    /// The names of the targets whose linkers were loaded for coupling.
    coupled: HashSet<String>,
}

/// The names a link's target may take a file by: as written, and as resolution reads it.
fn names(link: &Link, into: &mut HashSet<String>) {
    if !link.target.is_empty() {
        into.insert(target_key(&link.target));
        into.insert(target_key(link.target.trim().trim_end_matches('/')));
    }
}

impl<'a> Graph<'a> {
    /// The graph around the note `name` names (see [`Vault::find_note`]) in the index
    /// `searcher` reads (of the vault at `dir`), and its path. `coupling`: (most targets,
    /// most candidate linkers of one): also load the linkers of the note's targets, each
    /// target with no more candidates than that.
    pub(super) fn for_note(
        searcher: &'a Searcher,
        fields: &'a Fields,
        dir: &'a std::path::Path,
        name: &str,
        coupling: Option<(usize, usize)>,
    ) -> Result<(Self, String)> {
        let trimmed = name.trim().trim_start_matches("./").trim_start_matches('/');
        let mut keys = HashSet::from([key_of(trimmed)]);
        let mut vault = Vault::keyed(searcher, fields, dir, keys.iter().map(String::as_str))?
            .listing_attachments();
        let path = vault.find_note(name)?;
        let addr = vault.doc_of(&path);
        let mut graph = Graph {
            searcher,
            fields,
            vault,
            links: HashMap::new(),
            targets: HashMap::new(),
            coupled: HashSet::new(),
        };
        keys.insert(key_of(&path));
        let mut linkers =
            read::holding(searcher, fields.link_keys, &codec::key_term(&key_of(&path)))?;
        if let Some(a) = addr {
            let mut own = HashSet::new();
            for link in graph.links_of(a)?.iter() {
                names(link, &mut own);
            }
            if let Some((most_targets, most_sources)) = coupling {
                let mut sorted: Vec<&String> = own.iter().collect();
                sorted.sort_unstable();
                for k in sorted.into_iter().take(most_targets) {
                    let holding = read::holding(searcher, fields.link_keys, &codec::key_term(k))?;
                    if holding.len() <= most_sources {
                        graph.coupled.insert(k.clone());
                        linkers.extend(holding);
                    }
                }
            }
            keys.extend(own);
        }
        for d in linkers {
            for link in graph.links_of(d)?.iter() {
                names(link, &mut keys);
            }
        }
        graph.vault = Vault::keyed(searcher, fields, dir, keys.iter().map(String::as_str))?
            .listing_attachments();
        Ok((graph, path))
    }

    /// Whether the linkers of targets of this name were loaded for coupling.
    pub(super) fn coupled(&self, target: &str) -> bool {
        self.coupled.contains(&key_of(target))
    }

    /// The links of the document at `addr`.
    pub(super) fn links_of(&mut self, addr: DocAddress) -> Result<Rc<Vec<Link>>> {
        if let Some(l) = self.links.get(&addr) {
            return Ok(Rc::clone(l));
        }
        let links = Rc::new(read::links_at(self.searcher, self.fields, addr)?);
        self.links.insert(addr, Rc::clone(&links));
        Ok(links)
    }

    /// The document of an indexed path.
    pub(super) fn address(&self, path: &str) -> Option<DocAddress> {
        self.vault.doc_of(path)
    }

    /// The indexed notes the document at `addr` (whose path is `source`) links to, itself
    /// left out. Attachments are not notes to read next.
    pub(super) fn targets_of(
        &mut self,
        addr: DocAddress,
        source: &str,
    ) -> Result<Rc<BTreeSet<String>>> {
        if let Some(t) = self.targets.get(&addr) {
            return Ok(Rc::clone(t));
        }
        let mut out = BTreeSet::new();
        for link in self.links_of(addr)?.iter() {
            if link.target.is_empty() {
                continue;
            }
            if let Some(p) = self.vault.paths.resolve(&link.target, source) {
                if p != source && self.vault.doc_of(p).is_some() {
                    out.insert(p.to_string());
                }
            }
        }
        let out = Rc::new(out);
        self.targets.insert(addr, Rc::clone(&out));
        Ok(out)
    }

    /// The notes linking to `path`, each with every note it links to, by path; nothing when
    /// more than `most` documents may link to it (`None`: no bound).
    pub(super) fn linking_to(
        &mut self,
        path: &str,
        most: Option<usize>,
    ) -> Result<Vec<(String, Rc<BTreeSet<String>>)>> {
        let key = codec::key_term(&key_of(path));
        let holding = read::holding(self.searcher, self.fields.link_keys, &key)?;
        let mut out = Vec::new();
        if most.is_some_and(|m| holding.len() > m) {
            return Ok(out);
        }
        for addr in holding {
            let mut source = String::new();
            stored::path_of(self.searcher, self.fields, addr, &mut source)?;
            if source == path || source.is_empty() {
                continue;
            }
            let targets = self.targets_of(addr, &source)?;
            if targets.contains(path) {
                out.push((source, targets));
            }
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(out)
    }
}
