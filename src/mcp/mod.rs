//! `vault-search mcp`: the search as a Model Context Protocol server on stdin/stdout.
//!
//! Agents that speak MCP (Claude Code and Desktop, Codex, Cursor) get five read-only tools —
//! `search_notes`, `read_note` (with the note's links), `related_notes`, `index_status`,
//! `vault_overview` — over the same library calls the command line makes, without a shell. Built on the official Rust SDK (`rmcp`).
//!
//! The async runtime exists only inside [`run`]: a plain search never starts it. The library
//! is blocking, so every tool call runs on tokio's blocking pool and a slow search never holds
//! up a `read_note`. The index is built in the background ([`background`]) so `initialize` is
//! answered at once even for a vault never indexed. stdout carries protocol messages only;
//! diagnostics go to stderr. EOF on stdin ends the server with exit 0.

mod args;
mod background;
mod batch;
mod caps;
mod clean;
mod config_snippets;
mod context;
mod framing;
mod hints;
mod messages;
mod note_links;
mod overview;
mod read_note;
mod related;
#[cfg(test)]
mod request_check;
mod search_text;
mod tools;

use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use rmcp::handler::server::common::schema_for_output;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ErrorData, ProgressNotificationParam};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_handler, tool_router, RoleServer, ServerHandler, ServiceExt};

use background::Indexer;
pub(crate) use config_snippets::Client;
use context::Ctx;
pub(crate) use context::McpOptions;

/// The schema of `search_notes`' structured answer: the output contract's own types, without
/// their field documentation, number formats, defaults and lists of required fields, and with
/// a file kind as a string (docs/guide.md has them all; tool definitions cost tokens in every
/// conversation, and a looser schema still holds every answer).
fn output_schema() -> Arc<rmcp::model::JsonObject> {
    fn strip(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(m) => {
                for k in [
                    "description",
                    "format",
                    "minimum",
                    "default",
                    "$schema",
                    "required",
                ] {
                    m.remove(k);
                }
                if m.contains_key("oneOf") {
                    m.clear();
                    m.insert("type".into(), "string".into());
                }
                m.values_mut().for_each(strip);
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut v = serde_json::Value::Object((*schema_for_output::<crate::SearchResponse>()).clone());
    strip(&mut v);
    // `comparison` belongs to `--source both`, which the tool does not offer; `vaults` and a
    // hit's `vault` to a search over several vaults (the schema, open to more fields, still
    // holds its answer; docs/guide.md has them).
    if let Some(m) = v.as_object_mut() {
        if let Some(p) = m.get_mut("properties").and_then(|p| p.as_object_mut()) {
            p.remove("comparison");
            p.remove("vaults");
        }
        if let Some(d) = m.get_mut("$defs").and_then(|d| d.as_object_mut()) {
            d.remove("Comparison");
            d.remove("VaultAnswer");
            if let Some(hit) = d
                .get_mut("SearchHit")
                .and_then(|h| h.get_mut("properties"))
                .and_then(|p| p.as_object_mut())
            {
                hit.remove("vault");
            }
        }
    }
    match v {
        serde_json::Value::Object(m) => Arc::new(m),
        _ => schema_for_output::<crate::SearchResponse>(),
    }
}

/// Serves MCP on stdin/stdout until EOF (or prints a setup snippet).
pub(crate) fn run(opts: McpOptions) -> Result<()> {
    if let Some(client) = opts.print_config {
        let bin = crate::paths::binary_path()?;
        print!("{}", config_snippets::snippet(client, &bin, &opts.vault));
        return Ok(());
    }
    crate::heap::for_long_running();
    // One thread drives the protocol; tool calls run on the blocking pool.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        // The requests in flight, plus stdin's and stdout's blocking reads and writes.
        .max_blocking_threads(framing::MAX_IN_FLIGHT + 4)
        .build()
        .context("cannot start the async runtime")?;
    let served = rt.block_on(serve(opts));
    // A blocking read of stdin or a search still running would keep a normal shutdown
    // waiting: the answer is sent, the process is leaving.
    rt.shutdown_background();
    served
}

async fn serve(opts: McpOptions) -> Result<()> {
    let indexer = Arc::new(Indexer::new(
        opts.vault.clone(),
        opts.cache_dir.clone(),
        opts.pdf,
    ));
    let server = Server {
        ctx: Arc::new(Ctx { opts, indexer }),
        tool_router: Server::tool_router(),
    };
    let framed = framing::start(Box::new(tokio::io::stdin()), Box::new(tokio::io::stdout()));
    let served = match server.serve((framed.reader, framed.writer)).await {
        Ok(running) => running
            .waiting()
            .await
            .map(drop)
            .context("the MCP server stopped"),
        // EOF before `initialize`: the client went away; nothing to report.
        Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => Ok(()),
        Err(e) => Err(e).context("MCP handshake failed"),
    };
    // The last replies are still on their way to stdout: as long as the client reads them,
    // or for as long as rmcp gives its handlers after EOF.
    framed.flushed.finish(Duration::from_secs(5)).await;
    served
}

#[derive(Debug, Clone)]
struct Server {
    ctx: Arc<Ctx>,
    tool_router: ToolRouter<Server>,
}

/// rmcp's error for arguments that don't fit the schema, without its prefix.
fn plain_argument_error(text: &str) -> String {
    match text.strip_prefix("failed to deserialize parameters:") {
        Some(rest) => rest.trim_start().to_string(),
        None => text.to_string(),
    }
}

/// A tool call on the blocking pool: the library does blocking I/O.
async fn blocking(
    f: impl FnOnce() -> CallToolResult + Send + 'static,
) -> Result<CallToolResult, ErrorData> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ErrorData::internal_error(format!("the tool failed: {e}"), None))
}

/// With a `progressToken` in the request: a reporter that sends `notifications/progress` for
/// the first index build (from the blocking thread the search runs on).
fn progress_reporter(request: &RequestContext<RoleServer>) -> Option<Box<tools::Progress>> {
    let token = request.meta.get_progress_token()?;
    let peer = request.peer.clone();
    let runtime = tokio::runtime::Handle::current();
    Some(Box::new(move |done, total| {
        let message = if total == 0 {
            "building the index of this vault for the first time".to_string()
        } else {
            format!("building the index of this vault for the first time: {done} of {total} notes")
        };
        let mut param =
            ProgressNotificationParam::new(token.clone(), done as f64).with_message(message);
        if total > 0 {
            param = param.with_total(total as f64);
        }
        // A client gone away is noticed by the protocol task; the search goes on.
        let _ = runtime.block_on(peer.notify_progress(param));
    }))
}

#[tool_router]
impl Server {
    #[tool(
        title = "Search notes",
        description = "Ranked full-text search of the user's Obsidian vault (notes, not code). \
            Each hit's passage: answer from it citing path:line-end, else read_note its heading.",
        annotations(read_only_hint = true, idempotent_hint = true, open_world_hint = false),
        input_schema = tools::search_schema(),
        output_schema = output_schema()
    )]
    async fn search_notes(
        &self,
        Parameters(p): Parameters<tools::SearchParams>,
        request: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let ctx = Arc::clone(&self.ctx);
        let progress = progress_reporter(&request);
        blocking(move || {
            let result = tools::search_notes(&ctx, p, progress.as_deref());
            // A search may have updated the index on worker threads; keep memory flat.
            crate::heap::release_free_memory();
            result
        })
        .await
    }

    #[tool(
        title = "Read a note",
        description = "Numbered lines of a vault note (around line, from from_line, or a \
            heading's section; or its outline), then its links. Max 400 lines / 64 KB.",
        annotations(read_only_hint = true, idempotent_hint = true, open_world_hint = false),
        input_schema = args::input_schema::<read_note::ReadParams>()
    )]
    async fn read_note(
        &self,
        Parameters(p): Parameters<read_note::ReadParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let ctx = Arc::clone(&self.ctx);
        blocking(move || read_note::read_note(&ctx.opts.vault, ctx.opts.cache_dir.as_deref(), &p))
            .await
    }

    #[tool(
        title = "Related notes",
        description = "What to read after a note: notes linking to or from it, cited with it, \
            or sharing its distinctive words, each saying why.",
        annotations(read_only_hint = true, idempotent_hint = true, open_world_hint = false),
        input_schema = args::input_schema::<related::RelatedParams>()
    )]
    async fn related_notes(
        &self,
        Parameters(p): Parameters<related::RelatedParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let ctx = Arc::clone(&self.ctx);
        blocking(move || related::related_notes(&ctx, &p)).await
    }

    #[tool(
        title = "Index status",
        description = "Index and Omnisearch status of the vault: notes indexed, last update, \
            notes changed since, background indexing.",
        annotations(read_only_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    async fn index_status(&self) -> Result<CallToolResult, ErrorData> {
        let ctx = Arc::clone(&self.ctx);
        blocking(move || tools::index_status(&ctx)).await
    }

    #[tool(
        title = "Vault overview",
        description = "What the vault holds: notes, last change, links, broken links, orphans, \
            top 20 folders, tags and frontmatter keys. Use before filtering.",
        annotations(read_only_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    async fn vault_overview(&self) -> Result<CallToolResult, ErrorData> {
        let ctx = Arc::clone(&self.ctx);
        blocking(move || overview::vault_overview(&ctx)).await
    }
}

#[tool_handler(
    router = self.tool_router,
    name = "vault-search",
    instructions = "Search the user's Obsidian vault (their notes) with search_notes, then \
        read_note on a hit's path and line."
)]
impl ServerHandler for Server {
    /// The router's call, with an argument that doesn't fit the schema said in plain words:
    /// rmcp starts that error with "failed to deserialize parameters:", which tells the model
    /// nothing it can act on; serde's own words after it name the argument's fault.
    async fn call_tool(
        &self,
        request: rmcp::model::CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, ErrorData> {
        let call = rmcp::handler::server::tool::ToolCallContext::new(self, request, context);
        let mut response = self.tool_router.call(call).await?;
        if let rmcp::model::CallToolResponse::Complete(result) = &mut response {
            if result.is_error == Some(true) {
                for block in &mut result.content {
                    if let rmcp::model::ContentBlock::Text(t) = block {
                        t.text = plain_argument_error(&t.text);
                    }
                }
            }
        }
        Ok(response)
    }

    async fn on_initialized(&self, _context: rmcp::service::NotificationContext<rmcp::RoleServer>) {
        // After the handshake, so the build never competes with the `initialize` answer.
        self.ctx.indexer.ensure_started(false);
    }

    /// A method MCP doesn't define. rmcp's answer carries the bare method name as its message;
    /// this one says what it is.
    async fn on_custom_request(
        &self,
        request: rmcp::model::CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CustomResult, ErrorData> {
        Err(ErrorData::new(
            rmcp::model::ErrorCode::METHOD_NOT_FOUND,
            format!("Method not found: {}", request.method),
            None,
        ))
    }
}
