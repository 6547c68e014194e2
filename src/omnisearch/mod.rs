//! The Omnisearch engine: the Obsidian plugin's local HTTP API (`GET /search?q=…`).
//!
//! Facts from the plugin's source (v1.29): one endpoint, `q` the only parameter, a JSON array of
//! at most 50 results sorted by score, each `{score, vault, path, basename, foundWords,
//! matches: [{match, offset}], excerpt}`; the excerpt is HTML-escaped with `<br>` for newlines;
//! `offset` counts UTF-16 code units; a note that embeds a hit is appended with score 0, so a
//! path can repeat. On an internal error the plugin sets status 500 and never finishes the
//! reply, so the whole exchange runs under one deadline, not just the connect.

mod client;
mod enrich;
mod reply;
mod verify;
pub(crate) mod wire;

use crate::core::{EngineError, SearchHit, SearchOptions};

pub(crate) use client::{query, MAX_RESULTS};
#[cfg(any(test, feature = "serve"))]
pub(crate) use reply::is_safe_relative;
#[cfg(test)]
pub(crate) use reply::parse_reply;

/// What the plugin answered, shaped into the output contract.
#[derive(Debug, Clone, Default)]
pub(crate) struct OmniAnswer {
    /// The hits in scope, cut to the limit, enriched from the notes.
    pub hits: Vec<SearchHit>,
    /// How many hits the plugin sent (it sends at most [`MAX_RESULTS`]).
    pub raw: usize,
    /// How many of them were in scope and passed the filters, before the cut.
    pub in_scope: usize,
}

/// Asks the plugin for `opts.query` and shapes the answer: scoped and filtered client-side
/// (the API has no parameter for either), cut to the limit, each hit enriched from its note.
///
/// `--links-to` and `--linked-from` are not checked here: a link's file depends on every
/// path of the vault (Obsidian's resolution), which only the local index holds without a walk
/// of the disk, and at most 50 hits filtered afterwards would starve the list. A search with
/// them is answered by the local engine (`auto` goes there without asking the plugin;
/// `omnisearch` and `both` refuse it, see `crate::dispatch`); asked anyway, the plugin is
/// reported unavailable, never filtered wrongly.
pub(crate) fn search(opts: &SearchOptions) -> Result<OmniAnswer, EngineError> {
    if opts.filters.follows_links() {
        return Err(EngineError::OmnisearchUnavailable(
            "the plugin can't follow links: --links-to and --linked-from need the local engine"
                .into(),
        ));
    }
    let hits = query(opts.port, &opts.query, &opts.vault)?;
    let raw = hits.len();
    let name = hits
        .iter()
        .find(|h| !h.vault.is_empty())
        .map(|h| h.vault.clone());
    let how = enrich::Shaping {
        scope: &opts.scope,
        filters: &opts.filters,
        sort: opts.sort,
        limit: opts.limit,
        passage_bytes: opts.passage_bytes,
    };
    let (hits, in_scope, tally) = enrich::results(&opts.vault, hits, how);
    if tally.refuses() {
        // The name matched (or the reply gave none), the notes did not: another vault of the
        // same name, or another server.
        return Err(EngineError::OmnisearchUnavailable(format!(
            "Omnisearch answers for another vault{}: {} of its {} hits checked are not in this \
             vault's notes",
            name.map(|n| format!(" named {n}")).unwrap_or_default(),
            tally.failed,
            tally.decided()
        )));
    }
    if tally.unproven() {
        return Err(EngineError::OmnisearchUnavailable(format!(
            "Omnisearch's reply can't be checked against this vault's notes: the excerpts of \
             its {} hits read hold no letters or digits",
            tally.blank
        )));
    }
    Ok(OmniAnswer {
        hits,
        raw,
        in_scope,
    })
}
