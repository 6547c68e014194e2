//! `vault-search serve`: a long-running process that keeps one vault's index current and
//! answers searches over HTTP on loopback — Omnisearch's API without Obsidian.
//!
//! - [`watch`] follows the vault's file-system events and updates the index within about a
//!   second of a change; its heartbeat ([`crate::local::liveness`]) lets every other `vault-search`
//!   search of that vault skip the freshness walk while the watcher is healthy.
//! - [`http`] serves `GET /search?q=` in the plugin's exact shape ([`omnishape`]),
//!   `GET /api/search` with the `--json` object, `GET /health`, and `GET /` (200, as the
//!   plugin answers it: health checks probe it).
//!
//! Security: it listens on 127.0.0.1 and [::1] only; a request whose `Host` is not a loopback
//! name or address is refused (DNS rebinding), so is any browser cross-origin request (an
//! `Origin` header) unless `--allow-origin` names that origin ([`cors`]); nothing is written
//! through it; hit paths never leave the vault.
//!
//! Stopping: SIGTERM or SIGINT (Ctrl-C) on Unix commits the last batch and exits 0. On Windows
//! Ctrl-C is caught the same way; a service manager's hard stop kills the process, which is
//! safe too: every update commits atomically and the next start's walk converges.

mod answers;
pub(crate) mod cors;
mod events;
pub(crate) mod http;
mod notes;
pub(crate) mod omniquery;
pub(crate) mod omnishape;
pub(crate) mod percent;
mod request;
pub(crate) mod watch;

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use crate::core::request::Front;
use crate::local::liveness::Beacon;
use crate::local::Store;
use crate::{SearchOptions, Source};
use cors::Cors;
use http::{Refused, Request, Response};
use watch::{WatchConfig, WatchState};

/// The default port of `serve`: next to the plugin's 51361, so both can run at once.
pub(crate) const DEFAULT_SERVE_PORT: u16 = 51362;
/// `/search` answers at most this many results, like the plugin.
const OMNI_LIMIT: usize = 50;
/// `GET /`: the plugin answers 200 there, and health checks probe it.
const INDEX: &str =
    r#"{"name":"vault-search","endpoints":["/search?q=","/api/search?q=","/health"]}"#;

/// Everything `serve` needs, resolved.
#[derive(Debug, Clone)]
pub(crate) struct ServeOptions {
    pub(crate) vault: PathBuf,
    pub(crate) cache_dir: PathBuf,
    /// 0 picks a free port (printed on stderr).
    pub(crate) port: u16,
    /// Origins whose browser requests are answered (exact `scheme://host[:port]`).
    pub(crate) allow_origins: Vec<String>,
    /// Full stat walk this often even without events.
    pub(crate) rescan_every: Duration,
    /// How PDFs are indexed: as the CLI does, or its updates would drop the CLI's PDFs.
    pub(crate) pdf: crate::core::PdfLimits,
}

/// `GET /health`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct Health {
    pub(crate) status: String,
    pub(crate) vault: String,
    pub(crate) pid: u32,
    pub(crate) port: u16,
    /// Every change seen is in the committed index.
    pub(crate) caught_up: bool,
    pub(crate) notes: u64,
    /// Index updates run since start.
    pub(crate) updates: u64,
    pub(crate) last_event_at: Option<String>,
    pub(crate) last_update_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) last_error: Option<String>,
}

/// Runs the server until SIGTERM/SIGINT.
pub(crate) fn run(opts: ServeOptions) -> Result<()> {
    crate::heap::for_long_running();
    let cors = Cors::new(&opts.allow_origins)?;
    let store = Store::new(&opts.cache_dir, &opts.vault);
    store.ensure_root()?;
    let Some(beacon) = Beacon::acquire(&store.root)? else {
        bail!(
            "another `vault-search serve` already watches {} (see `vault-search status`)",
            opts.vault.display()
        );
    };
    let listeners = http::bind(opts.port)?;
    let port = listeners[0].local_addr()?.port();

    let stop = Arc::new(AtomicBool::new(false));
    install_signals(&stop)?;

    let state = Arc::new(Mutex::new(WatchState::default()));
    let index = Arc::new(crate::OpenIndex::new(&opts.vault, &opts.cache_dir));
    let app = Arc::new(App {
        index: Arc::clone(&index),
        notes: notes::Notes::default(),
        answers: answers::Answers::default(),
        vault: opts.vault.clone(),
        cache_dir: opts.cache_dir.clone(),
        port,
        cors,
        pdf: opts.pdf,
        state: Arc::clone(&state),
    });
    let handler: Arc<http::Handler> = Arc::new(move |req| app.answer(req));
    http::spawn(listeners, http::Limits::default(), handler);
    eprintln!(
        "vault-search: serving {} on http://127.0.0.1:{port}/search?q= (and [::1])",
        crate::text::terminal::escape_controls(&opts.vault.display().to_string())
    );

    let cfg = WatchConfig {
        vault: opts.vault.clone(),
        cache_dir: opts.cache_dir.clone(),
        port,
        rescan_every: opts.rescan_every,
        pdf: opts.pdf,
    };
    let warn = |msg: &str| {
        eprintln!(
            "vault-search: {}",
            crate::text::terminal::escape_controls(msg)
        )
    };
    // Searches see each commit as soon as it is made, not when the next request opens it.
    watch::run(&cfg, beacon, &state, &stop, &warn, &|| index.reload())?;
    eprintln!("vault-search: stopped");
    Ok(())
}

/// Unix: SIGTERM and SIGINT. Windows: signal-hook registers them with the C runtime, where
/// SIGINT is Ctrl-C (and Ctrl-Break is not caught) and SIGTERM is never sent by the system: a
/// closed console window or `taskkill /F` ends the process without the final commit, which
/// the next run's walk makes up for.
fn install_signals(stop: &Arc<AtomicBool>) -> Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    for sig in [SIGTERM, SIGINT] {
        signal_hook::flag::register(sig, Arc::clone(stop))
            .context("cannot install the signal handler")?;
    }
    Ok(())
}

struct App {
    /// Opened once per commit, not per request.
    index: Arc<crate::OpenIndex>,
    /// The hit notes of recent answers, read once per file state.
    notes: notes::Notes,
    /// Recent `/search` answers, until the next commit.
    answers: answers::Answers,
    vault: PathBuf,
    cache_dir: PathBuf,
    port: u16,
    cors: Cors,
    state: Arc<Mutex<WatchState>>,
    pdf: crate::core::PdfLimits,
}

impl App {
    /// Every answer, refusals included, carries the CORS headers an allowed origin needs.
    fn answer(&self, req: Result<&Request, Refused>) -> Response {
        let (origin, mut resp) = match req {
            Ok(req) => (req.header("origin").map(str::to_string), self.route(req)),
            Err(Refused { response, headers }) => {
                let origin = headers.into_iter().find(|(k, _)| k == "origin");
                (origin.map(|(_, v)| v), response)
            }
        };
        self.cors.decorate(origin.as_deref(), &mut resp);
        resp
    }

    fn route(&self, req: &Request) -> Response {
        if !host_is_loopback(req.header("host")) {
            return Response::error(403, "the Host header must name a loopback address");
        }
        let origin = req.header("origin");
        if let Some(o) = origin {
            if !self.cors.permits(Some(o)) {
                return self.cors.refuse(o);
            }
        }
        match (req.method.as_str(), req.path.as_str()) {
            ("OPTIONS", _) if origin.is_some() => self
                .cors
                .preflight(|name| req.header(name).map(str::to_string)),
            ("GET" | "HEAD", "/") => Response::json(200, INDEX.as_bytes().to_vec()),
            ("GET" | "HEAD", "/search") => self.omni_search(req),
            ("GET" | "HEAD", "/api/search") => self.api_search(req),
            ("GET" | "HEAD", "/health") => self.health(),
            ("GET" | "HEAD", _) => Response::error(404, "no such endpoint (try /search?q=)"),
            _ => {
                let mut r = Response::error(405, "read-only: GET only");
                r.headers.push(("Allow", "GET, HEAD".into()));
                r
            }
        }
    }

    /// What every search of `serve` has: its index, kept current by the watcher.
    fn base(&self) -> SearchOptions {
        let mut o = SearchOptions::new(&self.vault, "");
        o.cache_dir = Some(self.cache_dir.clone());
        o.source = Source::Local;
        // The watcher keeps the index current: a walk per request would only repeat its work.
        o.refresh = false;
        o.limits.pdf = self.pdf;
        o
    }

    /// The plugin's endpoint: `q` is the only parameter; no query, no results.
    fn omni_search(&self, req: &Request) -> Response {
        let q = req.param("q").unwrap_or_default();
        if q.trim().is_empty() {
            return Response::json(200, b"[]".to_vec());
        }
        // Read before the search: an answer ranked on a later commit than its key is dropped
        // with that key, never kept under the wrong one.
        let version = self.index.generation().map(|commit| answers::Version {
            commit,
            exclusions: crate::fileid::file_state(&self.vault.join(".obsidian/app.json")),
        });
        if let Some(body) = version.and_then(|v| self.answers.get(v, q)) {
            return Response::json(200, body.to_vec());
        }
        let opts = SearchOptions {
            query: q.to_string(),
            limit: OMNI_LIMIT,
            // The plugin's reply has no passages: none are cut (`/api/search` has them).
            passage_bytes: 0,
            ..self.base()
        };
        match self.index.search(&opts) {
            Ok(r) => {
                // A search that warned (an index rebuilt or built in memory, a bad exclusion
                // pattern) is answered but not kept: only the plain answer of the commit is.
                let warned = !r.warnings.is_empty();
                let (out, whole) = omnishape::convert(&self.vault, q, r.results, &self.notes);
                match serde_json::to_vec(&out) {
                    Ok(body) => {
                        if let (Some(v), false, true) = (version, warned, whole) {
                            self.answers.put(v, q, Arc::from(body.as_slice()));
                        }
                        Response::json(200, body)
                    }
                    Err(e) => Response::error(500, &format!("{e:#}")),
                }
            }
            Err(e) => Response::error(500, &format!("{e:#}")),
        }
    }

    /// The `--json` object, with the command line's search options as parameters (the
    /// request table's), fitted to `budget` tokens when one is given.
    fn api_search(&self, req: &Request) -> Response {
        let asked = request::read(req).and_then(|r| {
            r.resolve(Front::Serve, &self.base())
                .map_err(|e| format!("{e:#}"))
        });
        let asked = match asked {
            Ok(a) => a,
            Err(why) => return Response::error(400, &why),
        };
        match self.index.search(&asked.options) {
            Ok(mut r) => {
                r.results
                    .retain(|h| crate::omnisearch::is_safe_relative(&h.path));
                r.total_results = r.results.len();
                r.warnings.splice(0..0, asked.warnings);
                if let Some(budget) = asked.budget {
                    let cost = |r: &crate::SearchResponse| {
                        crate::estimate_tokens(&serde_json::to_string(r).unwrap_or_default())
                    };
                    crate::fit_to_budget(&mut r, budget, &cost);
                }
                Response::json(200, serde_json::to_vec(&r).unwrap_or_default())
            }
            Err(e) => Response::error(500, &format!("{e:#}")),
        }
    }

    fn health(&self) -> Response {
        let st = watch::lock(&self.state).clone();
        let h = Health {
            status: if st.caught_up { "ok" } else { "updating" }.into(),
            vault: self.vault.display().to_string(),
            pid: std::process::id(),
            port: self.port,
            caught_up: st.caught_up,
            notes: st.notes,
            updates: st.updates,
            last_event_at: st.last_event_ns.map(crate::status::rfc3339),
            last_update_at: st.last_update_ns.map(crate::status::rfc3339),
            last_error: st.last_error,
        };
        Response::json(200, serde_json::to_vec(&h).unwrap_or_default())
    }
}

/// `localhost`, `*.localhost`, 127.x.x.x or [::1], with or without a port. A missing `Host`
/// is refused too: every browser sends one, and HTTP/1.1 requires it.
fn host_is_loopback(host: Option<&str>) -> bool {
    let Some(host) = host else {
        return false;
    };
    let name = if let Some(rest) = host.strip_prefix('[') {
        match rest.split_once(']') {
            Some((ip, tail)) if tail.is_empty() || tail.starts_with(':') => ip,
            _ => return false,
        }
    } else {
        host.rsplit_once(':').map_or(host, |(h, _)| h)
    };
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    if name == "localhost" || name.ends_with(".localhost") {
        return true;
    }
    name.parse::<std::net::IpAddr>()
        .is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_hosts() {
        for ok in [
            "localhost",
            "localhost:51362",
            "127.0.0.1:1",
            "[::1]:5",
            "[::1]",
            "a.localhost",
        ] {
            assert!(host_is_loopback(Some(ok)), "{ok}");
        }
        for bad in [
            "evil.com",
            "evil.com:51362",
            "10.0.0.1",
            "[::2]:1",
            "localhost.evil.com",
            "127.0.0.1.evil.com",
            "",
        ] {
            assert!(!host_is_loopback(Some(bad)), "{bad}");
        }
        assert!(!host_is_loopback(None));
    }
}
