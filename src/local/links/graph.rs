//! The links between indexed notes as a graph: a note's resolved targets and the notes
//! linking to it, each document's links resolved once per query. `related` and the agents'
//! view of a note's links walk it; links to attachments are left out (no note to read).

use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;

use anyhow::Result;
use tantivy::{DocAddress, Searcher};

use super::codec;
use super::read;
use super::resolve::key_of;
use super::vault::Vault;
use crate::local::schema::Fields;
use crate::local::stored;

/// The links between indexed notes, resolved once per document.
pub(super) struct Graph<'a> {
    searcher: &'a Searcher,
    fields: &'a Fields,
    pub(super) vault: Vault<'a>,
    /// Every indexed path and its document.
    indexed: HashMap<String, DocAddress>,
    /// A document's resolved targets, kept: co-citation and coupling meet the same notes.
    targets: HashMap<DocAddress, Rc<BTreeSet<String>>>,
}

impl<'a> Graph<'a> {
    /// The graph of the index `searcher` reads (of the vault at `dir`), and the path of the
    /// note `name` names in it (see [`Vault::find_note`]).
    pub(super) fn for_note(
        searcher: &'a Searcher,
        fields: &'a Fields,
        dir: &'a std::path::Path,
        name: &str,
    ) -> Result<(Self, String)> {
        let docs = read::documents(searcher, fields, false)?;
        let mut vault = Vault::new(dir, docs.iter().map(|(_, p, _)| p.as_str()));
        let path = vault.find_note(name)?;
        let graph = Graph {
            searcher,
            fields,
            vault,
            indexed: docs.into_iter().map(|(a, p, _)| (p, a)).collect(),
            targets: HashMap::new(),
        };
        Ok((graph, path))
    }

    /// The document of an indexed path.
    pub(super) fn address(&self, path: &str) -> Option<DocAddress> {
        self.indexed.get(path).copied()
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
        for link in read::links_at(self.searcher, self.fields, addr)? {
            if link.target.is_empty() {
                continue;
            }
            if let Some(p) = self.vault.paths.resolve(&link.target, source) {
                if p != source && self.indexed.contains_key(p) {
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
