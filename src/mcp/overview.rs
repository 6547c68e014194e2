//! `vault_overview`: what the vault holds (how many notes, the newest change, the largest
//! folders, the commonest tags and frontmatter keys), so a model picks a folder, tag or
//! `where` filter that exists before it searches.
//!
//! Read from the index's term dictionaries, never by walking the vault, and bounded: each
//! list is its top [`TOP`] with the total count, whatever the vault's size.

use std::fmt::Write as _;

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{json, Value};

use super::context::Ctx;
use super::tools::tool_error;
use crate::dispatch;

/// Entries per list.
pub(crate) const TOP: usize = 20;

/// Runs `vault_overview` (blocking: call it on a blocking thread).
pub(crate) fn vault_overview(ctx: &Ctx) -> CallToolResult {
    let cache = ctx.opts.cache_dir.as_deref();
    let mut names = dispatch::folders_and_tags(cache, &ctx.opts.vault);
    if names.is_none() {
        // The first build may be running: wait for it as a search would.
        ctx.indexer.ensure_started(false);
        ctx.indexer.wait(ctx.opts.index_wait);
        names = dispatch::folders_and_tags(cache, &ctx.opts.vault);
    }
    let Some(names) = names else {
        return tool_error(
            "the vault has no index yet (it is being built, or there is no cache directory); \
             try again in a minute",
        );
    };
    let notes = crate::status::status(&ctx.opts.vault, cache, ctx.opts.port)
        .map(|st| st.notes.saturating_sub(names.excluded))
        .unwrap_or(0);
    // Top-level folders: nested ones would repeat their parents' notes.
    let folders: Vec<(String, u64)> = names
        .folders
        .into_iter()
        .filter(|(f, _)| !f.contains('/'))
        .collect();
    let last_change = names.newest_ns.map(crate::status::rfc3339);
    let lists = [
        ("folders", top(folders)),
        ("tags", top(names.tags)),
        ("frontmatter_keys", top(names.keys)),
    ];
    let mut text = format!("{notes} notes");
    if let Some(t) = &last_change {
        let _ = write!(text, ", last change {t}");
    }
    text.push('\n');
    let mut structured = json!({"notes": notes, "last_change": last_change});
    // Every note's links are resolved: milliseconds per thousand notes (see the module doc).
    match crate::dispatch::link_counts(cache, &ctx.opts.vault) {
        Some(c) => {
            let _ = writeln!(
                text,
                "links: {} ({} broken), orphans (no link in or out): {}",
                c.links, c.broken, c.orphans
            );
            structured["links"] =
                json!({"links": c.links, "broken": c.broken, "orphans": c.orphans});
            if c.cut > 0 {
                let _ = writeln!(
                    text,
                    "warning: the links of {} notes are cut (`links --orphans` names them)",
                    c.cut
                );
                structured["links"]["cut_notes"] = json!(c.cut);
            }
        }
        None => {
            text.push_str("links: not counted (the index can't be read)\n");
        }
    }
    for (name, (total, shown)) in lists {
        let _ = write!(
            text,
            "{} ({} of {total}, notes each):",
            name.replace('_', " "),
            shown.len()
        );
        let items: Vec<String> = shown.iter().map(|(n, c)| format!("{n} {c}")).collect();
        let _ = writeln!(text, " {}", items.join(", "));
        let top: Vec<Value> = shown
            .iter()
            .map(|(n, count)| json!({"name": n, "notes": count}))
            .collect();
        structured[name] = json!({"total": total, "top": top});
    }
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(structured);
    result
}

/// How many there are, and the [`TOP`] with the most notes (ties by name).
fn top(mut all: Vec<(String, u64)>) -> (usize, Vec<(String, u64)>) {
    let total = all.len();
    all.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    all.truncate(TOP);
    (total, all)
}
