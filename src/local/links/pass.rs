//! Whole-vault passes over the links: every note's links resolved, one note's decoded at a
//! time (never the vault's at once), keeping only what the caller counts — for `--orphans`,
//! `--unresolved` and the overview's counts alike.

use std::collections::HashMap;

use anyhow::Result;
use tantivy::{DocAddress, Searcher};

use super::vault::Vault;
use super::{codec, read};
use crate::local::schema::Fields;
use crate::text::links::Link;

/// Calls `found(i, link, resolved)` for every link with a target of every document `docs[i]`,
/// with the path it resolves to now: one note's links decoded at a time, never the vault's
/// at once. A note whose stored links were cut adds its warning to `cut`.
pub(super) fn each_resolved(
    searcher: &Searcher,
    fields: &Fields,
    vault: &mut Vault<'_>,
    docs: &[(DocAddress, String)],
    cut: &mut Vec<String>,
    mut found: impl FnMut(usize, codec::LinkRef<'_>, Option<String>),
) -> Result<()> {
    read::each_links_value(searcher, fields, docs, |i, bytes| {
        let c = codec::cut_of([bytes]);
        if c.any() {
            cut.push(c.warning(&docs[i].1));
        }
        codec::each(bytes, |l| {
            if l.target.is_empty() {
                return;
            }
            // Resolution reads the target only.
            let link = Link {
                target: l.target.to_string(),
                subpath: String::new(),
                text: String::new(),
                line: l.line,
                embed: l.embed,
            };
            let to = vault.resolve(&link, &docs[i].1);
            found(i, l, to);
        });
    })
}

/// Which of `docs` a resolved link joins to another file, as a link from or to it.
pub(super) fn touched(
    searcher: &Searcher,
    fields: &Fields,
    vault: &mut Vault<'_>,
    docs: &[(DocAddress, String)],
    cut: &mut Vec<String>,
) -> Result<Vec<bool>> {
    touched_counting(searcher, fields, vault, docs, cut, |_| {})
}

/// [`touched`], calling `each` with what every link resolves to.
pub(super) fn touched_counting(
    searcher: &Searcher,
    fields: &Fields,
    vault: &mut Vault<'_>,
    docs: &[(DocAddress, String)],
    cut: &mut Vec<String>,
    mut each: impl FnMut(Option<&str>),
) -> Result<Vec<bool>> {
    let index: HashMap<&str, usize> = docs
        .iter()
        .enumerate()
        .map(|(i, (_, p))| (p.as_str(), i))
        .collect();
    let mut touched = vec![false; docs.len()];
    each_resolved(searcher, fields, vault, docs, cut, |i, _, to| {
        each(to.as_deref());
        if let Some(to) = to.filter(|to| *to != docs[i].1) {
            touched[i] = true;
            if let Some(&j) = index.get(to.as_str()) {
                touched[j] = true;
            }
        }
    })?;
    Ok(touched)
}

/// The notes and canvases of `docs` with no resolved link to or from another file, by path.
pub(super) fn orphans<'d>(
    docs: &'d [(DocAddress, String)],
    touched: &'d [bool],
) -> impl Iterator<Item = &'d str> + 'd {
    let mut notes: Vec<&str> = docs
        .iter()
        .zip(touched)
        .filter(|(_, &t)| !t)
        .map(|((_, p), _)| p.as_str())
        .filter(|p| {
            let lower = p.to_lowercase();
            lower.ends_with(".md") || lower.ends_with(".canvas")
        })
        .collect();
    notes.sort_unstable();
    notes.into_iter()
}
