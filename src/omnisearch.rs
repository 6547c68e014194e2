//! The Omnisearch engine: the Obsidian plugin's local HTTP API (`GET /search?q=…`).
//!
//! Facts from the plugin's source (v1.29): one endpoint, `q` the only parameter, a JSON array of
//! at most 50 results sorted by score, each `{score, vault, path, basename, foundWords,
//! matches: [{match, offset}], excerpt}`; the excerpt is HTML-escaped with `<br>` for newlines;
//! `offset` counts UTF-16 code units; a note that embeds a hit is appended with score 0, so a
//! path can repeat. On an internal error the plugin sets status 500 and never finishes the
//! reply, so the whole exchange runs under one deadline, not just the connect.

use std::io::Read;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::path::{Component, Path};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::error::EngineError;
use crate::excerpt;

/// The whole exchange (connect, headers, body) must finish within this.
pub const DEADLINE: Duration = Duration::from_millis(800);
/// Replies larger than this are refused (the real API answers at most 50 small objects).
pub const MAX_BODY_BYTES: u64 = 16 * 1024 * 1024;
/// The plugin answers at most this many results.
pub const MAX_RESULTS: usize = 50;

/// One hit as the plugin reported it, cleaned.
#[derive(Debug, Clone, PartialEq)]
pub struct OmniHit {
    pub path: String,
    pub basename: String,
    pub score: f64,
    /// Plain one-line text.
    pub excerpt: String,
    /// UTF-16 offset of the match the excerpt is built around.
    pub offset_utf16: Option<usize>,
    /// The index words the plugin matched (`foundWords`).
    pub found_words: Vec<String>,
}

/// Asks the plugin on `port` (loopback only: 127.0.0.1, then [::1]) within [`DEADLINE`].
pub fn query(port: u16, q: &str) -> Result<Vec<OmniHit>, EngineError> {
    query_with_deadline(port, q, DEADLINE)
}

pub fn query_with_deadline(
    port: u16,
    q: &str,
    budget: Duration,
) -> Result<Vec<OmniHit>, EngineError> {
    let started = Instant::now();
    let path_and_query = format!("/search?q={}", percent_encode(q));
    let hosts = [
        IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(Ipv6Addr::LOCALHOST),
    ];
    let mut last_err = String::new();
    for ip in hosts {
        let left = budget.saturating_sub(started.elapsed());
        if left.is_zero() {
            break;
        }
        match fetch(SocketAddr::new(ip, port), &path_and_query, left) {
            Ok(body) => return parse_reply(&body),
            Err(Fetch::Refused(e)) => last_err = e,
            Err(Fetch::Failed(e)) => return Err(EngineError::OmnisearchUnavailable(e)),
        }
    }
    if last_err.is_empty() {
        last_err = format!("no answer within {} ms", budget.as_millis());
    }
    Err(EngineError::OmnisearchUnavailable(last_err))
}

enum Fetch {
    /// Nothing listens there: the next loopback address may.
    Refused(String),
    /// Something answered badly: trying the other address would only waste the budget.
    Failed(String),
}

fn fetch(addr: SocketAddr, path_and_query: &str, budget: Duration) -> Result<Vec<u8>, Fetch> {
    let url = match addr {
        SocketAddr::V4(a) => format!("http://{}:{}{}", a.ip(), a.port(), path_and_query),
        SocketAddr::V6(a) => format!("http://[{}]:{}{}", a.ip(), a.port(), path_and_query),
    };
    let agent = ureq::Agent::config_builder()
        .timeout_global(Some(budget))
        .http_status_as_error(false)
        // Never route through a proxy from the environment: only loopback is ever contacted.
        .proxy(None)
        .max_redirects(0)
        .user_agent(concat!("vault-search/", env!("CARGO_PKG_VERSION")))
        .build()
        .new_agent();
    let mut resp = match agent.get(&url).call() {
        Ok(r) => r,
        Err(e) => {
            let msg = describe(&e);
            return Err(if is_refused(&e) {
                Fetch::Refused(msg)
            } else {
                Fetch::Failed(msg)
            });
        }
    };
    let status = resp.status().as_u16();
    if status != 200 {
        return Err(Fetch::Failed(format!("HTTP status {status}")));
    }
    let mut body = Vec::new();
    let reader = resp.body_mut().as_reader();
    // One byte over the cap tells "too large" apart from "exactly at the cap".
    match reader.take(MAX_BODY_BYTES + 1).read_to_end(&mut body) {
        Ok(_) if body.len() as u64 > MAX_BODY_BYTES => Err(Fetch::Failed(format!(
            "reply larger than {} MiB",
            MAX_BODY_BYTES / (1024 * 1024)
        ))),
        Ok(_) => Ok(body),
        Err(e) => Err(Fetch::Failed(format!("reading the reply: {e}"))),
    }
}

fn is_refused(e: &ureq::Error) -> bool {
    match e {
        ureq::Error::Io(io) => matches!(
            io.kind(),
            std::io::ErrorKind::ConnectionRefused
                | std::io::ErrorKind::AddrNotAvailable
                | std::io::ErrorKind::NetworkUnreachable
                | std::io::ErrorKind::HostUnreachable
        ),
        ureq::Error::ConnectionFailed => true,
        _ => false,
    }
}

fn describe(e: &ureq::Error) -> String {
    match e {
        ureq::Error::Timeout(_) => "no answer within the deadline".to_string(),
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
            "connection refused (is Obsidian running with Omnisearch's HTTP server on?)".to_string()
        }
        other => other.to_string(),
    }
}

/// Parses and cleans the reply; any other shape than the documented one is an error.
pub fn parse_reply(body: &[u8]) -> Result<Vec<OmniHit>, EngineError> {
    let bad = |why: String| EngineError::OmnisearchUnavailable(why);
    let text = std::str::from_utf8(body).map_err(|_| bad("reply is not UTF-8".into()))?;
    let value: Value =
        serde_json::from_str(text).map_err(|e| bad(format!("reply is not JSON: {e}")))?;
    let items = value
        .as_array()
        .ok_or_else(|| bad("reply is not a JSON array of results".into()))?;
    let mut seen = std::collections::HashSet::new();
    let mut hits = Vec::with_capacity(items.len());
    for item in items {
        let obj = item
            .as_object()
            .ok_or_else(|| bad("a result is not a JSON object".into()))?;
        let path = obj
            .get("path")
            .and_then(Value::as_str)
            .ok_or_else(|| bad("a result has no \"path\"".into()))?;
        if !is_safe_relative(path) {
            continue; // a path that would leave the vault is never reported or read
        }
        if !seen.insert(path.to_string()) {
            continue; // embeds are appended with score 0 after their target: keep the first
        }
        let basename = obj
            .get("basename")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| stem_of(path));
        let score = obj.get("score").and_then(Value::as_f64).unwrap_or(0.0);
        let excerpt = obj
            .get("excerpt")
            .and_then(Value::as_str)
            .map(excerpt::clean_html_excerpt)
            .unwrap_or_default();
        let offset_utf16 = obj
            .get("matches")
            .and_then(Value::as_array)
            .and_then(|m| m.first())
            .and_then(|m| m.get("offset"))
            .and_then(Value::as_u64)
            .and_then(|o| usize::try_from(o).ok());
        let mut found_words: Vec<String> = Vec::new();
        for w in obj
            .get("foundWords")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            let w = w.to_lowercase();
            if !found_words.contains(&w) {
                found_words.push(w);
            }
        }
        hits.push(OmniHit {
            path: path.to_string(),
            basename,
            score,
            excerpt,
            offset_utf16,
            found_words,
        });
    }
    Ok(hits)
}

/// A vault-relative path that stays inside the vault.
pub fn is_safe_relative(path: &str) -> bool {
    !path.is_empty()
        && !path.contains('\0')
        && Path::new(path)
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
        && !path.split(['/', '\\']).any(|seg| seg == "..")
}

/// File name without its extension, from a `/`-separated path.
pub fn stem_of(path: &str) -> String {
    let name = path.rsplit('/').next().unwrap_or(path);
    match name.rfind('.') {
        Some(i) if i > 0 => name[..i].to_string(),
        _ => name.to_string(),
    }
}

/// Percent-encodes a query component (RFC 3986 unreserved characters stay).
pub fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len() * 3);
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes() {
        assert_eq!(percent_encode("a b&c=ü"), "a%20b%26c%3D%C3%BC");
    }

    #[test]
    fn parses_and_dedups() {
        let body = br#"[{"score":2.5,"path":"a/b.md","basename":"b","excerpt":"x &amp; y<br>z","matches":[{"match":"x","offset":3}]},
                        {"score":0,"path":"a/b.md","basename":"b","excerpt":""},
                        {"score":1,"path":"../etc/passwd","excerpt":""},
                        {"score":1,"path":"c.md"}]"#;
        let hits = parse_reply(body).unwrap();
        assert_eq!(hits.len(), 2);
        assert_eq!(hits[0].excerpt, "x & y z");
        assert_eq!(hits[0].offset_utf16, Some(3));
        assert_eq!(hits[1].basename, "c");
    }

    #[test]
    fn rejects_other_shapes() {
        assert!(parse_reply(b"{}").is_err());
        assert!(parse_reply(b"<html>").is_err());
        assert!(parse_reply(b"[1,2]").is_err());
        assert!(parse_reply(b"[{\"score\":1}]").is_err());
        assert!(parse_reply(&[0xff, 0xfe]).is_err());
    }
}
