//! The output contract: every type an agent or script parses.
//!
//! JSON (`--json`, the MCP server's structured answer, `serve`'s `/api/search`) is one
//! [`SearchResponse`] object. Fields may be added in later versions; existing fields never
//! change meaning. docs/guide.md ("JSON output") documents the same schema.

#[cfg(feature = "mcp")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use crate::text::passage::Passage;

/// `engine` of a hit or an answer from the Omnisearch plugin.
pub(crate) const ENGINE_OMNISEARCH: &str = "omnisearch";
/// `engine` of an answer when `--source omnisearch` could not reach the plugin.
pub(crate) const ENGINE_OFFLINE: &str = "omnisearch (offline)";
/// `engine` of a hit or an answer from the local index.
pub(crate) const ENGINE_LOCAL: &str = "local";
/// `engine` of a `--source both` answer.
pub(crate) const ENGINE_BOTH: &str = "both";
/// `engine` of an answer over several vaults that different engines answered.
pub(crate) const ENGINE_MIXED: &str = "mixed";

/// One search, as printed by `--json`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "mcp", derive(JsonSchema))]
pub struct SearchResponse {
    /// The query as typed (words joined with single spaces).
    pub query: String,
    /// Which engine answered: `omnisearch`, `local`, or `omnisearch (offline)`; over several
    /// vaults answered by different engines, `mixed` (each vault's is in `vaults`).
    pub engine: String,
    /// Wall time of the search, in seconds, rounded to milliseconds.
    pub elapsed_seconds: f64,
    /// Canonical vault directory; over several vaults, their directories joined by the
    /// system's path-list separator (as `OBSIDIAN_VAULT` takes them).
    pub vault: String,
    /// `results.len()`.
    pub total_results: usize,
    pub results: Vec<SearchHit>,
    /// Why nothing was searched (only with `engine: "omnisearch (offline)"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// True when the local index could not be refreshed (another process holds the writer), so
    /// the answer comes from the last committed index.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stale: bool,
    /// True when the local engine skipped its freshness walk because a live `vault-search
    /// serve` watcher keeps the index current.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub watched: bool,
    /// Why the local engine answered in `auto` mode (Omnisearch failed: the reason).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback_reason: Option<String>,
    /// In `auto` mode, when Omnisearch answered but too little (it requires every word, so
    /// one extra word empties its answer) and the local engine answered instead: how many
    /// hits Omnisearch had in scope.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub omnisearch_hits: Option<usize>,
    /// `--source both`: the two engines side by side.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comparison: Option<Comparison>,
    /// Things the caller should know that did not stop the search, one sentence each: the
    /// index was rebuilt, searched stale, or kept in memory; an exclusion pattern was bad.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// A search over several vaults: what each vault answered, in the order they were named
    /// (absent for one vault).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vaults: Vec<crate::core::VaultAnswer>,
}

/// `--source both`: both engines' answers to the same query.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "mcp", derive(JsonSchema))]
pub struct Comparison {
    /// `omnisearch` or `omnisearch (offline)`.
    pub omnisearch_engine: String,
    /// Why Omnisearch did not answer, when it didn't.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub omnisearch_error: Option<String>,
    pub omnisearch: Vec<SearchHit>,
    pub local: Vec<SearchHit>,
    /// k = the smaller list's length (at most `--limit`).
    pub k: usize,
    /// Paths in both top-k lists, divided by k (0 when k is 0).
    pub overlap_at_k: f64,
}

/// One ranked note.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "mcp", derive(JsonSchema))]
pub struct SearchHit {
    /// The vault of the hit, by the name `vaults` gives it: only in a search over several
    /// vaults.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vault: Option<String>,
    /// Vault-relative path with `/` separators.
    pub path: String,
    /// File name without its extension.
    pub basename: String,
    /// `note`, `canvas` or `pdf` (always present; absent in older output means `note`).
    #[serde(default)]
    pub kind: crate::core::FileKind,
    /// PDFs: the 1-based page the excerpt comes from; absent for notes and canvases.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<u64>,
    /// Engine score, rounded to 2 decimals; comparable only within one response (and, over
    /// several vaults, one vault).
    pub score: f64,
    /// One line of plain text around the first match (`...` where cut); a note's or a canvas's
    /// without the comments Obsidian hides (`<!-- … -->`, `%% … %%`).
    pub excerpt: String,
    /// The engine that produced this hit.
    pub engine: String,
    /// 1-based line of the note where the excerpt's match is; `null` when unknown (and for
    /// PDFs, whose position is `page`).
    pub line: Option<u64>,
    /// The nearest heading above the match (the section to read); absent when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heading: Option<String>,
    /// The passages of the note that best answer the query, best first: whole lines of the
    /// note, cut at section and paragraph boundaries (see [`Passage`]). Absent when the engine
    /// had none to show or a token budget left them out.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub passages: Vec<Passage>,
    /// Frontmatter and inline tags of the note (absent when none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// Frontmatter aliases of the note (absent when none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    /// When the note was last modified, RFC 3339 in local time (`2026-11-30T14:00:00+01:00`);
    /// absent when unknown (and under a token budget that had to cut).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modified: Option<String>,
    /// The same instant in nanoseconds since the Unix epoch (for sorting; not in the JSON).
    #[serde(skip)]
    pub modified_ns: Option<i64>,
    /// The query words this note matched (normalised: lowercase, accents folded; absent when
    /// none are known).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub matched: Vec<String>,
    /// Normalised word forms to highlight in the excerpt (text output on a terminal).
    #[serde(skip)]
    pub highlight: Vec<String>,
    /// How many other notes link to this one (resolved links and embeds, each linking note
    /// once); absent where the engine doesn't know (Omnisearch's hits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub links_in: Option<u32>,
}

/// The summary of one `vault-search index` run, as printed by `--json`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct IndexReport {
    /// Notes in the index after the run.
    pub notes: u64,
    pub added: u64,
    pub updated: u64,
    pub removed: u64,
    pub unchanged: u64,
    /// Files that were not indexed (too large, unreadable, vanished), counted in `skipped`.
    pub skipped: u64,
    pub skipped_files: Vec<SkippedFile>,
    /// PDFs not extracted yet: a search extracts only a few before answering; the next
    /// `index` (or later searches) extract the rest.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub pending: u64,
    pub elapsed_seconds: f64,
    /// Where the index lives.
    pub index_dir: String,
    /// True when the whole index was (re)built from scratch.
    pub rebuilt: bool,
    /// True when another process was indexing, so this run did nothing.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub busy: bool,
    /// Things that did not stop the run, one sentence each (e.g. why the index was rebuilt).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// The one-line summary of an index run, as the command line and the MCP server show it.
impl std::fmt::Display for IndexReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.busy {
            return f
                .write_str("another vault-search process is indexing this vault; nothing to do");
        }
        write!(
            f,
            "indexed {} notes: {} added, {} updated, {} removed, {} unchanged, {} skipped in {:.3}s",
            self.notes,
            self.added,
            self.updated,
            self.removed,
            self.unchanged,
            self.skipped,
            self.elapsed_seconds
        )
    }
}

/// A file the indexer skipped, and why.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct SkippedFile {
    pub path: String,
    pub reason: String,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Rounds to `places` decimals, the way the JSON contract promises.
pub(crate) fn round_to(x: f64, places: i32) -> f64 {
    if !x.is_finite() {
        return 0.0;
    }
    let f = 10f64.powi(places);
    (x * f).round() / f
}

/// JSON text with every C1 control, DEL, bidi control and line or paragraph separator inside
/// its strings written as a `\uXXXX` escape; serde escapes the C0 controls itself. The value
/// is the same for a JSON parser; only the bytes on the wire change, so a name or an excerpt
/// can't drive a terminal (U+009B is a one-byte CSI on some) or reorder what is shown when the
/// JSON is looked at rather than parsed.
///
/// Works on any JSON a serializer wrote: outside strings it holds only ASCII, and inside one no
/// escape sequence holds a byte of these characters.
// Only the front-ends write JSON.
#[cfg(any(test, feature = "cli"))]
pub(crate) fn escape_json_controls(json: Vec<u8>) -> Vec<u8> {
    let Some(mut at) = next_control(&json, 0) else {
        return json;
    };
    let mut out = Vec::with_capacity(json.len() + 16);
    let mut from = 0;
    loop {
        let (i, code, len) = at;
        out.extend_from_slice(&json[from..i]);
        out.extend_from_slice(format!("\\u{code:04x}").as_bytes());
        from = i + len;
        match next_control(&json, from) {
            Some(next) => at = next,
            None => break,
        }
    }
    out.extend_from_slice(&json[from..]);
    out
}

/// The next character at or after `from` that [`escape_json_controls`] escapes: its offset, code
/// point and length in bytes. The lead bytes are looked for first, so text without them (most
/// of it: `…` and `—` share only the `0xe2` lead) costs one scan.
#[cfg(any(test, feature = "cli"))]
fn next_control(json: &[u8], mut from: usize) -> Option<(usize, u32, usize)> {
    // serde never escapes DEL: looked for on its own, both scans in SIMD.
    let del = memchr::memchr(0x7f, &json[from..]).map(|off| from + off);
    loop {
        let lead = memchr::memchr3(0xc2, 0xd8, 0xe2, &json[from..]).map(|off| from + off);
        let i = match (lead, del) {
            (Some(l), Some(d)) => l.min(d),
            (l, d) => l.or(d)?,
        };
        let escaped = match json[i..] {
            [0x7f, ..] => Some((0x7f, 1)),
            [0xc2, b @ 0x80..=0x9f, ..] => Some((u32::from(b), 2)),
            // U+200E/F marks, U+2028/9 separators, U+202A–E embeddings and overrides.
            [0xe2, 0x80, b @ (0x8e | 0x8f | 0xa8..=0xae), ..] => {
                Some((0x2000 + u32::from(b) - 0x80, 3))
            }
            // U+061C, the Arabic letter mark.
            [0xd8, 0x9c, ..] => Some((0x61c, 2)),
            // U+2066–9 isolates.
            [0xe2, 0x81, b @ 0xa6..=0xa9, ..] => Some((0x2040 + u32::from(b) - 0x80, 3)),
            _ => None,
        };
        if let Some((code, len)) = escaped {
            return Some((i, code, len));
        }
        from = i + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds() {
        assert_eq!(round_to(41.237, 2), 41.24);
        assert_eq!(round_to(f64::NAN, 2), 0.0);
    }

    #[test]
    fn text_beside_the_controls_is_copied_as_it_is() {
        let plain = serde_json::to_vec(&["a … b — c ’ d"]).unwrap();
        assert_eq!(escape_json_controls(plain.clone()), plain);
        let mixed = serde_json::to_vec(&["… x\u{202e}y … \u{9b}"]).unwrap();
        let out = String::from_utf8(escape_json_controls(mixed)).unwrap();
        assert_eq!(out, r#"["… x\u202ey … \u009b"]"#);
        let back: Vec<String> = serde_json::from_str(&out).unwrap();
        assert_eq!(back, ["… x\u{202e}y … \u{9b}"]);
    }

    #[test]
    fn controls_in_json_strings_are_escaped_and_keep_their_value() {
        let s = "a\u{7f}b\u{9b}31mc\u{202e}d\u{2066}e\u{200f}f\u{2028}g\u{85}é€\u{1b}";
        let json = escape_json_controls(serde_json::to_vec(&[s]).unwrap());
        let text = String::from_utf8(json.clone()).unwrap();
        assert!(!text
            .chars()
            .any(|c| c.is_control() || ('\u{2000}'..'\u{2070}').contains(&c)));
        assert!(text.contains(r"\u009b") && text.contains(r"\u202e") && text.contains(r"\u2066"));
        let back: Vec<String> = serde_json::from_slice(&json).unwrap();
        assert_eq!(back, [s]);
    }
}
