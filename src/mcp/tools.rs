//! `search_notes` and `index_status`: the library's answers, shaped for an MCP client.
//!
//! Each tool returns two views of one answer: `structuredContent` (the `--json` object, which
//! the declared output schema describes) for clients that parse it, and a compact text for
//! the many that only show text to the model: one line per hit, so a result list costs a few
//! hundred tokens rather than the JSON's thousands.

use std::fmt::Write as _;
use std::time::Duration;

use rmcp::model::{CallToolResult, ContentBlock};
use schemars::JsonSchema;
use serde::Deserialize;

use super::args;
use super::background::{Outcome, Phase};
use super::context::Ctx;
use crate::core::request::table::{self, DEFAULT_MCP_BUDGET};
use crate::core::request::{Front, SearchRequest};
use crate::dispatch::{self, Asked, OmnisearchFirst};
use crate::{SearchOptions, SearchResponse, Sort, Source};

/// How long a search waits for a background refresh of an existing index before it reads
/// the last commit instead.
const REFRESH_WAIT: Duration = Duration::from_secs(1);
/// How often a search waiting for the first build reports its progress, when asked to.
const PROGRESS_EVERY: Duration = Duration::from_millis(500);

args::whole_arg!(limit_arg, "limit");
args::whole_arg!(budget_arg, "budget");

/// `search_notes` arguments: the request table's rows MCP spells (their descriptions and
/// bounds are put in the input schema from the table; `request_check` holds the names
/// together). An argument not named here is refused, naming the ones there are: a model that
/// writes `max_results` or `q` is told so and retries, rather than getting ten hits of
/// something it did not ask for.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(transform = args::no_formats)]
#[serde(deny_unknown_fields)]
pub(crate) struct SearchParams {
    #[serde(default)]
    pub(crate) query: String,
    #[serde(default, deserialize_with = "limit_arg")]
    #[schemars(with = "Option<u64>")]
    pub(crate) limit: Option<u64>,
    pub(crate) folder: Option<String>,
    #[serde(default)]
    pub(crate) exclude: Vec<String>,
    pub(crate) source: Option<SourceParam>,
    #[serde(default)]
    pub(crate) tags: Vec<String>,
    pub(crate) since: Option<String>,
    pub(crate) until: Option<String>,
    #[serde(default, rename = "where")]
    pub(crate) where_: Vec<String>,
    pub(crate) sort: Option<SortParam>,
    #[serde(default)]
    pub(crate) links_to: String,
    #[serde(default)]
    pub(crate) linked_from: String,
    #[serde(default)]
    pub(crate) include_ignored: bool,
    #[serde(default, deserialize_with = "budget_arg")]
    #[schemars(with = "Option<u64>")]
    pub(crate) budget: Option<u64>,
}

/// `search_notes`' input schema: the arguments and their types from [`SearchParams`], their
/// descriptions, bounds and defaults from the request table.
pub(crate) fn search_schema() -> std::sync::Arc<rmcp::model::JsonObject> {
    let mut schema = (*args::input_schema::<SearchParams>()).clone();
    if let Some(serde_json::Value::Object(props)) = schema.get_mut("properties") {
        for (name, prop) in props.iter_mut() {
            let (Some(o), serde_json::Value::Object(prop)) =
                (table::spelled(Front::Mcp, name), prop)
            else {
                continue;
            };
            let mut about = o.mcp_help.to_string();
            if let (Some(b), Some(max)) = (o.bounds, o.max(Front::Mcp)) {
                prop.insert("minimum".into(), b.min.into());
                prop.insert("maximum".into(), max.into());
                about = match o.default_on(Front::Mcp) {
                    "" => format!("{about} ({}-{max})", b.min),
                    d => format!("{about} ({}-{max}, default {d})", b.min),
                };
            }
            prop.insert("description".into(), about.into());
        }
    }
    std::sync::Arc::new(schema)
}

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum SortParam {
    Relevance,
    Modified,
}

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum SourceParam {
    Auto,
    Omnisearch,
    Local,
}

impl SearchParams {
    /// The request these arguments make (an empty note name is no link filter, as an empty
    /// `query` is no words).
    pub(crate) fn request(self) -> SearchRequest {
        let named = |n: String| -> Vec<String> {
            Some(n)
                .filter(|n| !n.trim().is_empty())
                .into_iter()
                .collect()
        };
        SearchRequest {
            query: self.query,
            limit: self.limit,
            folder: self.folder,
            exclude: self.exclude,
            tags: self.tags,
            since: self.since,
            until: self.until,
            where_: self.where_,
            links_to: named(self.links_to),
            linked_from: named(self.linked_from),
            sort: self.sort.map(|s| match s {
                SortParam::Relevance => Sort::Relevance,
                SortParam::Modified => Sort::Modified,
            }),
            source: self.source.map(|s| match s {
                SourceParam::Auto => Source::Auto,
                SourceParam::Omnisearch => Source::Omnisearch,
                SourceParam::Local => Source::Local,
            }),
            include_ignored: self.include_ignored,
            budget: self.budget,
            ..SearchRequest::default()
        }
    }
}

/// The structured answer is the `--json` object itself; how the index state shaped it (a
/// background build) is one more of its `warnings`.
fn with_notice(mut r: SearchResponse, notice: Option<String>) -> SearchResponse {
    if let Some(n) = notice {
        r.warnings.insert(0, n);
    }
    r
}

pub(crate) fn tool_error(msg: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(msg)])
}

/// Told how far the first index build is while a search waits for it: notes written, and
/// notes to write (0 while the build is still counting them).
pub(crate) type Progress = dyn Fn(u64, u64) + Send + Sync;

/// Runs `search_notes` (blocking: call it on a blocking thread).
pub(crate) fn search_notes(
    ctx: &Ctx,
    p: SearchParams,
    progress: Option<&Progress>,
) -> CallToolResult {
    let base = SearchOptions {
        cache_dir: ctx.opts.cache_dir.clone(),
        port: ctx.opts.port,
        limits: crate::core::Limits {
            pdf: ctx.opts.pdf,
            ..crate::core::Limits::default()
        },
        ..SearchOptions::new(&ctx.opts.vault, "")
    };
    let (folder, tags) = (p.folder.clone(), p.tags.clone());
    let asked = match p.request().resolve(Front::Mcp, &base) {
        Ok(asked) => asked,
        Err(e) => return tool_error(format!("{e:#}")),
    };
    let budget = asked.budget.unwrap_or(DEFAULT_MCP_BUDGET as usize);
    let cut = asked.warnings.into_iter().next();
    let mut opts = asked.options;
    let source = opts.source;
    let (mut notice, mut asked) = (None, None);
    if source != Source::Omnisearch {
        match prepare_local(ctx, &mut opts, progress, budget) {
            Prepared::Search {
                notice: n,
                asked: a,
            } => (notice, asked) = (n, a),
            Prepared::Answered(answer) => return answer,
        }
    }
    let searched = match asked {
        Some(asked) => dispatch::auto_after(&opts, asked),
        None => crate::search(&opts),
    };
    match searched {
        Ok(r) if r.results.is_empty() && (folder.is_some() || !tags.is_empty()) => {
            // Nothing in a folder or with a tag that does not exist: say which names do.
            let unknown = dispatch::folders_and_tags(opts.cache_dir.as_deref(), &opts.vault)
                .and_then(|names| super::hints::unknown_names(folder.as_deref(), &tags, &names));
            match unknown {
                Some(why) => tool_error(why),
                None => answer(budget, with_notice(with_notice(r, notice), cut)),
            }
        }
        Ok(r) => answer(budget, with_notice(with_notice(r, notice), cut)),
        Err(e) => tool_error(format!("search failed: {e:#}")),
    }
}

enum Prepared {
    /// Search with the (possibly changed) options; the notice says how the index state shaped
    /// the answer; `asked` is what Omnisearch already said, so it is not asked twice.
    Search {
        notice: Option<String>,
        asked: Option<Asked>,
    },
    /// Already answered (Omnisearch alone, or an error).
    Answered(CallToolResult),
}

/// Makes sure a search that may reach the local engine finds an index to read, without
/// indexing the vault a second time next to the background build.
fn prepare_local(
    ctx: &Ctx,
    opts: &mut SearchOptions,
    progress: Option<&Progress>,
    budget: usize,
) -> Prepared {
    ctx.indexer.ensure_started(false);
    if dispatch::has_index(opts) {
        return Prepared::Search {
            notice: while_refreshing(ctx, opts),
            asked: None,
        };
    }
    // No index yet. Omnisearch needs none: when Obsidian answers, that is the answer.
    let mut asked = None;
    if opts.source == Source::Auto {
        match dispatch::omnisearch_first(opts) {
            OmnisearchFirst::Answered(r) => {
                let note = "the local index is still being built; Omnisearch answered".to_string();
                return Prepared::Answered(answer(budget, with_notice(*r, Some(note))));
            }
            OmnisearchFirst::Declined(a) => asked = Some(a),
        }
    }
    match wait_for_first_build(ctx, opts, progress) {
        Ok(notice) => Prepared::Search { notice, asked },
        Err(refusal) => Prepared::Answered(refusal),
    }
}

/// With an index there: a background refresh that is still running after a moment is not
/// waited for; the search reads the last commit and the notice says so.
fn while_refreshing(ctx: &Ctx, opts: &mut SearchOptions) -> Option<String> {
    if !matches!(ctx.indexer.phase(), Phase::Running { .. }) {
        return None;
    }
    let Phase::Running { since } = ctx.indexer.wait(REFRESH_WAIT.min(ctx.opts.index_wait)) else {
        return None;
    };
    opts.refresh = false;
    Some(format!(
        "the index is being updated in the background ({}s so far): answered from the last \
         committed index",
        since.elapsed().as_secs()
    ))
}

/// Waits up to `index_wait` for the first build of the vault's index: the notice when the
/// wait was noticeable, or the tool's refusal when the build is still running.
fn wait_for_first_build(
    ctx: &Ctx,
    opts: &SearchOptions,
    progress: Option<&Progress>,
) -> Result<Option<String>, CallToolResult> {
    let started = std::time::Instant::now();
    let deadline = started + ctx.opts.index_wait;
    let mut reported = None;
    loop {
        // A build that found another process's writer lock is retried: that process may have
        // died before committing.
        ctx.indexer.ensure_started(true);
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        let phase = match progress {
            Some(report) => {
                // Progress must grow from one notification to the next: only news is sent.
                let now = ctx.indexer.progress();
                if reported.is_none_or(|(done, _)| now.0 > done) {
                    report(now.0, now.1);
                    reported = Some(now);
                }
                ctx.indexer.wait(left.min(PROGRESS_EVERY))
            }
            None => ctx.indexer.wait(left),
        };
        if dispatch::has_index(opts) {
            let waited = started.elapsed().as_secs_f64();
            return Ok((waited >= 0.5)
                .then(|| format!("waited {waited:.1}s for the first index build of this vault")));
        }
        match phase {
            // No cache dir or a failed build: the engine indexes in memory for this search,
            // which is slow but answers.
            Phase::Finished(Outcome::Failed(_) | Outcome::Indexed(_)) => return Ok(None),
            _ if left.is_zero() => {
                return Err(tool_error(format!(
                    "the local index of this vault is still being built (waited {}s); try again \
                     in a minute, or use source=omnisearch while Obsidian runs",
                    ctx.opts.index_wait.as_secs()
                )))
            }
            // Another process is building it: look again shortly.
            Phase::Finished(Outcome::Busy) => {
                std::thread::sleep(Duration::from_millis(200).min(left))
            }
            _ => {}
        }
    }
}

pub(crate) use super::search_text::to_text;

/// The structured answer plus its text, each within `budget` tokens (a client shows the model
/// one or the other).
fn answer(budget: usize, mut a: SearchResponse) -> CallToolResult {
    let cost = |r: &SearchResponse| {
        let json = serde_json::to_string(r).unwrap_or_default();
        crate::estimate_tokens(&json).max(crate::estimate_tokens(&to_text(r)))
    };
    crate::fit_to_budget(&mut a, budget, &cost);
    // The excerpts come without comments from where they are made (`text::comments`).
    let text = to_text(&a);
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = serde_json::to_value(&a).ok();
    result
}

/// `index_status`: [`crate::status::status`] plus what the background build is doing.
pub(crate) fn index_status(ctx: &Ctx) -> CallToolResult {
    let st = match crate::status::status(
        &ctx.opts.vault,
        ctx.opts.cache_dir.as_deref(),
        ctx.opts.port,
    ) {
        Ok(st) => st,
        Err(e) => return tool_error(format!("status failed: {e:#}")),
    };
    let background = match ctx.indexer.phase() {
        Phase::NotStarted => "not started".to_string(),
        Phase::Running { since } => format!("running for {}s", since.elapsed().as_secs()),
        Phase::Finished(Outcome::Indexed(r)) => r.to_string(),
        Phase::Finished(Outcome::Busy) => "another process was indexing".to_string(),
        Phase::Finished(Outcome::Failed(why)) => format!("failed: {why}"),
    };
    let mut text = st.to_string();
    let _ = writeln!(text, "{:<18}{background}", "background index");
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    if let Ok(serde_json::Value::Object(mut map)) = serde_json::to_value(&st) {
        map.insert("background_index".into(), background.into());
        result.structured_content = Some(serde_json::Value::Object(map));
    }
    result
}
