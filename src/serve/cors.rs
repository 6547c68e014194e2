//! Which browser pages may read `serve`'s answers, and the CORS headers that tell the browser.
//!
//! The plugin answers every origin (`Access-Control-Allow-Origin: *`), so any web page a user
//! opens could read their vault through it. `serve` answers only the origins named with
//! `--allow-origin` — a userscript's search page, a local tool, a browser extension
//! (`chrome-extension://ID`, `moz-extension://UUID`) — and for those it answers as a browser
//! needs: a preflight that allows the request headers a page's `fetch` sends (`Content-Type`
//! and the like), and the same CORS headers on error replies, so a page sees the error
//! instead of an opaque network failure.

use std::collections::HashSet;
use std::sync::Mutex;

use anyhow::{bail, Result};

use super::http::Response;

/// Schemes an `Origin` header can carry that name one page or one extension.
const SCHEMES: [&str; 5] = [
    "http",
    "https",
    "chrome-extension",
    "moz-extension",
    "safari-web-extension",
];

/// Request headers a preflight always allows (a page may name more; those are echoed).
const ALLOWED_HEADERS: &str = "Content-Type, Accept, Accept-Language, Cache-Control";

/// Refused origins logged at most: a page could otherwise fill the log with made-up ones.
const MAX_LOGGED: usize = 32;

/// The origins `--allow-origin` named, as browsers write them.
#[derive(Debug, Default)]
pub(crate) struct Cors {
    allowed: Vec<String>,
    /// Origins already refused, each logged once.
    logged: Mutex<HashSet<String>>,
}

impl Cors {
    /// Checks and normalises each `--allow-origin` value.
    pub(crate) fn new(origins: &[String]) -> Result<Cors> {
        let allowed = origins
            .iter()
            .map(|o| normalise(o))
            .collect::<Result<Vec<_>>>()?;
        Ok(Cors {
            allowed,
            logged: Mutex::default(),
        })
    }

    /// The answer to an origin not named. Its first refusal is logged on stderr: setting up a
    /// userscript, that line says which origin to name.
    pub(crate) fn refuse(&self, origin: &str) -> Response {
        let first = self
            .logged
            .lock()
            .is_ok_and(|mut seen| seen.len() < MAX_LOGGED && seen.insert(origin.to_string()));
        if first {
            // The header is the requester's text: it must not forge a line of the log or drive
            // the terminal.
            let shown = crate::text::terminal::escape_controls(origin);
            eprintln!(
                "vault-search: refused a browser request from origin \"{shown}\" \
                 (--allow-origin {shown} would answer it)"
            );
        }
        Response::error(
            403,
            &format!("cross-origin requests from {origin} are refused (see --allow-origin)"),
        )
    }

    /// Whether a request with this `Origin` header may be answered (none: not a browser's
    /// cross-origin request).
    pub(crate) fn permits(&self, origin: Option<&str>) -> bool {
        origin.is_none_or(|o| self.is_allowed(o))
    }

    fn is_allowed(&self, origin: &str) -> bool {
        self.allowed.iter().any(|a| a.eq_ignore_ascii_case(origin))
    }

    /// The answer to a preflight (`OPTIONS` with `Origin`) from an allowed origin.
    pub(crate) fn preflight(&self, header: impl Fn(&str) -> Option<String>) -> Response {
        let mut r = Response::json(204, Vec::new());
        r.headers
            .push(("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS".into()));
        let mut allow = ALLOWED_HEADERS.to_string();
        if let Some(asked) = header("access-control-request-headers") {
            // Echoed only when it is a plain list of header names: never a way to inject
            // another response header.
            let names = asked.split(',').map(str::trim).filter(|n| !n.is_empty());
            for name in names {
                if name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
                    allow.push_str(", ");
                    allow.push_str(name);
                }
            }
        }
        r.headers.push(("Access-Control-Allow-Headers", allow));
        r.headers.push(("Access-Control-Max-Age", "600".into()));
        // Chrome's Private Network Access: a public page asking loopback must be let in
        // explicitly; the origin is already one the user named.
        if header("access-control-request-private-network").as_deref() == Some("true") {
            r.headers
                .push(("Access-Control-Allow-Private-Network", "true".into()));
        }
        r
    }

    /// Adds the CORS headers to any answer — errors included — for an allowed origin.
    pub(crate) fn decorate(&self, origin: Option<&str>, r: &mut Response) {
        let Some(origin) = origin.filter(|o| self.is_allowed(o)) else {
            return;
        };
        r.headers
            .push(("Access-Control-Allow-Origin", origin.to_string()));
        r.headers.push(("Vary", "Origin".into()));
    }
}

/// `scheme://host[:port]` as a browser serialises an origin: lowercase, no path, no trailing
/// slash. `*` is refused: it is what makes the plugin readable by every web page.
fn normalise(origin: &str) -> Result<String> {
    let o = origin.trim().trim_end_matches('/').to_ascii_lowercase();
    if o == "*" {
        bail!(
            "--allow-origin '*' would let every web page read the vault: name each origin, \
             e.g. --allow-origin https://www.google.com"
        );
    }
    let Some((scheme, rest)) = o.split_once("://") else {
        bail!(
            "--allow-origin {origin:?}: expected scheme://host[:port], e.g. https://www.google.com"
        );
    };
    if !SCHEMES.contains(&scheme) {
        bail!(
            "--allow-origin {origin:?}: the scheme must be one of {}",
            SCHEMES.join(", ")
        );
    }
    let valid = |c: char| c.is_ascii_alphanumeric() || "-.:[]_".contains(c);
    if rest.is_empty() || !rest.chars().all(valid) {
        bail!("--allow-origin {origin:?}: an origin has no path, query or user part, only scheme://host[:port]");
    }
    Ok(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_as_browsers_send_them() {
        let cors = Cors::new(&[
            "https://www.Google.com/".into(),
            "chrome-extension://abcdefghijklmnopabcdefghijklmnop".into(),
            "moz-extension://0b6e2b1c-8c5a-4f0e-9d7e-2f1f2c3d4e5f".into(),
            "http://localhost:3000".into(),
        ])
        .unwrap();
        for ok in [
            "https://www.google.com",
            "chrome-extension://abcdefghijklmnopabcdefghijklmnop",
            "moz-extension://0b6e2b1c-8c5a-4f0e-9d7e-2f1f2c3d4e5f",
            "http://localhost:3000",
        ] {
            assert!(cors.permits(Some(ok)), "{ok}");
        }
        for bad in [
            "https://www.google.com.evil.example",
            "http://www.google.com",
            "http://localhost:3001",
            "null",
        ] {
            assert!(!cors.permits(Some(bad)), "{bad}");
        }
        assert!(cors.permits(None));
    }

    #[test]
    fn refuses_wildcards_and_paths() {
        for bad in [
            "*",
            "google.com",
            "ftp://x",
            "https://x/search",
            "https://u@x",
            "https://",
        ] {
            assert!(Cors::new(&[bad.into()]).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_preflight_allows_content_type_and_echoes_only_header_names() {
        let asked = |name: &str| match name {
            "access-control-request-headers" => Some("x-client-id, bad\r\nSet-Cookie: a".into()),
            "access-control-request-private-network" => Some("true".into()),
            _ => None,
        };
        let r = Cors::default().preflight(asked);
        let get = |k: &str| {
            r.headers
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.clone())
        };
        let allow = get("Access-Control-Allow-Headers").unwrap_or_default();
        assert!(
            allow.contains("Content-Type") && allow.contains("x-client-id"),
            "{allow}"
        );
        assert!(
            !allow.contains('\n') && !allow.contains("Set-Cookie"),
            "{allow}"
        );
        assert_eq!(
            get("Access-Control-Allow-Private-Network").as_deref(),
            Some("true")
        );
    }
}
