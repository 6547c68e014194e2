//! The HTTP exchange with the plugin: loopback only, one deadline for the whole exchange, a
//! bounded body.

use std::io::Read;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::path::Path;
use std::time::{Duration, Instant};

use crate::core::EngineError;

use super::reply::{check_vault, keep_related_words, parse_reply, OmniHit};

/// The whole exchange (connect, headers, body) must finish within this.
pub(crate) const DEADLINE: Duration = Duration::from_millis(800);
/// Replies larger than this are refused (the real API answers at most 50 small objects).
pub(crate) const MAX_BODY_BYTES: u64 = 16 * 1024 * 1024;
/// The plugin answers at most this many results.
pub(crate) const MAX_RESULTS: usize = 50;

/// Asks the plugin on `port` (loopback only: 127.0.0.1, then [::1]) within [`DEADLINE`]; an
/// answer for another vault than `vault` is an error. Each hit keeps only the found words that
/// relate to the query.
pub(crate) fn query(port: u16, q: &str, vault: &Path) -> Result<Vec<OmniHit>, EngineError> {
    let mut hits = query_with_deadline(port, q, DEADLINE)?;
    check_vault(&hits, vault)?;
    keep_related_words(&mut hits, q);
    Ok(hits)
}

fn query_with_deadline(port: u16, q: &str, budget: Duration) -> Result<Vec<OmniHit>, EngineError> {
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

/// Percent-encodes a query component (RFC 3986 unreserved characters stay).
pub(crate) fn percent_encode(s: &str) -> String {
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
}
