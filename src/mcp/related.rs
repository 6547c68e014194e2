//! `related_notes`: what to read after a note, as `vault-search related --json` answers it,
//! plus one line per note for clients that show the model text only. A note Obsidian's
//! "Excluded files" hide is refused, as `read_note` refuses it (and none is ever an answer).

use std::fmt::Write as _;

use rmcp::model::{CallToolResult, ContentBlock};
use schemars::JsonSchema;
use serde::Deserialize;

use super::args;
use super::context::Ctx;
use super::tools::tool_error;
use crate::text::terminal::escape_controls;

/// Most notes one call may ask for: more would flood the conversation.
pub(crate) const MAX_LIMIT: u64 = 50;
const DEFAULT_LIMIT: u64 = 10;

args::whole_arg!(limit_arg, "limit");

/// `related_notes` arguments; an unknown one is refused, as the other tools do.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(transform = args::no_formats)]
#[serde(deny_unknown_fields)]
pub(crate) struct RelatedParams {
    /// A note's vault-relative path
    pub(crate) path: String,
    /// Max notes (1-50, default 10)
    #[serde(default, deserialize_with = "limit_arg")]
    #[schemars(range(min = 1, max = 50), with = "Option<u64>")]
    pub(crate) limit: Option<u64>,
}

/// Runs `related_notes` (blocking: call it on a blocking thread).
pub(crate) fn related_notes(ctx: &Ctx, p: &RelatedParams) -> CallToolResult {
    let limit = p.limit.unwrap_or(DEFAULT_LIMIT);
    if !(1..=MAX_LIMIT).contains(&limit) {
        return tool_error(format!("limit must be 1-{MAX_LIMIT}, not {limit}"));
    }
    if !crate::dispatch::has_local_index(ctx.opts.cache_dir.as_deref(), &ctx.opts.vault) {
        // The first build may be running: wait for it as a search would.
        ctx.indexer.ensure_started(false);
        ctx.indexer.wait(ctx.opts.index_wait);
    }
    let opts = crate::RelatedOptions {
        vault: ctx.opts.vault.clone(),
        cache_dir: ctx.opts.cache_dir.clone(),
        limits: crate::Limits {
            pdf: ctx.opts.pdf,
            ..crate::Limits::default()
        },
        note: p.path.replace('\\', "/"),
        limit: limit as usize,
        refresh: true,
    };
    match crate::related(&opts) {
        // The note a name or a path means, once found: whatever spelled it.
        Ok(r) if crate::dispatch::excluded_by_obsidian(&ctx.opts.vault, &r.note) => {
            tool_error(format!(
                "{:?} is in Obsidian's Excluded files, which search leaves out",
                r.note
            ))
        }
        Ok(r) => {
            let mut result = CallToolResult::success(vec![ContentBlock::text(to_text(&r))]);
            result.structured_content = serde_json::to_value(&r).ok();
            result
        }
        Err(e) => tool_error(format!("{e:#}")),
    }
}

/// `path — reasons`, one line per note, after a header naming the note.
fn to_text(r: &crate::RelatedResponse) -> String {
    let mut out = String::new();
    for w in &r.warnings {
        let _ = writeln!(out, "note: {}", escape_controls(w));
    }
    let note = escape_controls(&r.note);
    if r.results.is_empty() {
        let _ = writeln!(
            out,
            "Nothing related to {note}: no links to or from it, no distinctive words shared."
        );
        return out;
    }
    let _ = writeln!(out, "{} notes related to {note}:", r.results.len());
    for h in &r.results {
        let _ = writeln!(
            out,
            "{} — {}",
            escape_controls(&h.path),
            escape_controls(&h.reasons.join("; "))
        );
    }
    out
}
