//! A deliberately small HTTP/1.1 server on std sockets: `GET` only, no bodies, one request per
//! connection.
//!
//! Why not a crate: what `serve` needs from HTTP is a few read-only GET endpoints on loopback,
//! with hard bounds — header bytes, connections at once, and the time a client may take to send
//! its request (slowloris). Parsing a request line and headers under those bounds is short
//! code whose every limit is visible here; a general server (hyper on a tokio runtime) would
//! add its runtime and a few hundred kilobytes to the binary for features (keep-alive,
//! chunked bodies, HTTP/2) that these endpoints refuse anyway. Searches are blocking library
//! calls, so each connection gets its own thread, never the accept loop's: at most
//! [`Limits::max_connections`] exist at once, and over that a client gets `503` at once.

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Result};

use super::percent::{percent_decode, query_decode};

/// Bounds on what one client may cost.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// Request line + headers, bytes.
    pub(crate) max_header_bytes: usize,
    /// Connections being served at once.
    pub(crate) max_connections: usize,
    /// The whole request must have arrived within this.
    pub(crate) request_deadline: Duration,
    /// Writing the answer may block this long.
    pub(crate) write_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_header_bytes: 8 * 1024,
            max_connections: 32,
            request_deadline: Duration::from_secs(5),
            write_timeout: Duration::from_secs(10),
        }
    }
}

/// One parsed request.
#[derive(Debug, Clone)]
pub(crate) struct Request {
    pub(crate) method: String,
    /// The path, percent-decoded.
    pub(crate) path: String,
    /// Query parameters in order, percent-decoded (`+` is a space).
    pub(crate) params: Vec<(String, String)>,
    /// Header names lowercased.
    pub(crate) headers: Vec<(String, String)>,
}

impl Request {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    pub(crate) fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    pub(crate) fn params_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.params
            .iter()
            .filter(move |(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// One answer.
#[derive(Debug, Clone)]
pub(crate) struct Response {
    pub(crate) status: u16,
    pub(crate) content_type: &'static str,
    pub(crate) headers: Vec<(&'static str, String)>,
    pub(crate) body: Vec<u8>,
}

impl Response {
    pub(crate) fn json(status: u16, body: Vec<u8>) -> Response {
        Response {
            status,
            content_type: "application/json",
            headers: Vec::new(),
            // A name or an excerpt with a C1 or bidi control stays harmless on the wire.
            body: crate::core::escape_json_controls(body),
        }
    }

    /// `{"error": why}` with this status.
    pub(crate) fn error(status: u16, why: &str) -> Response {
        let body = serde_json::to_vec(&serde_json::json!({ "error": why })).unwrap_or_default();
        Response::json(status, body)
    }
}

/// A request refused before it reached a route: the answer to send, and the request's headers
/// when they could be read, so the routes' policy (CORS) still applies to the refusal.
#[derive(Debug)]
pub(crate) struct Refused {
    pub(crate) response: Response,
    /// Header names lowercased; empty when the head never arrived whole.
    pub(crate) headers: Vec<(String, String)>,
}

impl Refused {
    fn bare(response: Response) -> Refused {
        Refused {
            response,
            headers: Vec::new(),
        }
    }
}

/// Answers a request, or decorates the answer to one refused while it was read.
pub(crate) type Handler = dyn Fn(Result<&Request, Refused>) -> Response + Send + Sync;

/// Binds `port` on 127.0.0.1 and, where the system has IPv6, on [::1].
pub(crate) fn bind(port: u16) -> Result<Vec<TcpListener>> {
    let v4 = SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port);
    let first = match TcpListener::bind(v4) {
        Ok(l) => l,
        Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => {
            bail!("port {port} is already in use on 127.0.0.1 (pass --port with a free port)")
        }
        Err(e) => bail!("cannot listen on 127.0.0.1:{port}: {e}"),
    };
    // Port 0 asks for any free port: [::1] then takes the same one.
    let port = first.local_addr()?.port();
    let mut out = vec![first];
    let v6 = SocketAddr::new(IpAddr::V6(Ipv6Addr::LOCALHOST), port);
    match TcpListener::bind(v6) {
        Ok(l) => out.push(l),
        Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => {
            bail!("port {port} is already in use on [::1] (pass --port with a free port)")
        }
        // No IPv6 on this system: 127.0.0.1 alone.
        Err(_) => {}
    }
    Ok(out)
}

/// Serves every listener on its own accept thread; returns at once.
pub(crate) fn spawn(listeners: Vec<TcpListener>, limits: Limits, handler: Arc<Handler>) {
    let active = Arc::new(AtomicUsize::new(0));
    for listener in listeners {
        let handler = Arc::clone(&handler);
        let active = Arc::clone(&active);
        std::thread::spawn(move || accept_loop(&listener, limits, &handler, &active));
    }
}

fn accept_loop(
    listener: &TcpListener,
    limits: Limits,
    handler: &Arc<Handler>,
    active: &Arc<AtomicUsize>,
) {
    for stream in listener.incoming() {
        let Ok(mut stream) = stream else {
            // Out of file descriptors and the like: don't spin.
            std::thread::sleep(Duration::from_millis(10));
            continue;
        };
        if active.fetch_add(1, Ordering::SeqCst) >= limits.max_connections {
            active.fetch_sub(1, Ordering::SeqCst);
            let _ = stream.set_write_timeout(Some(Duration::from_millis(100)));
            let _ = write_response(
                &mut stream,
                &Response::error(503, "too many connections; try again"),
                false,
                Duration::from_millis(100),
            );
            continue;
        }
        let handler = Arc::clone(handler);
        let guard = Active(Arc::clone(active));
        let spawned = std::thread::Builder::new()
            .name("vault-search-http".into())
            .spawn(move || {
                let _guard = guard;
                handle(stream, limits, &handler);
            });
        if spawned.is_err() {
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// Counts a connection until its thread ends, however it ends.
struct Active(Arc<AtomicUsize>);

impl Drop for Active {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

fn handle(mut stream: TcpStream, limits: Limits, handler: &Arc<Handler>) {
    let _ = stream.set_write_timeout(Some(limits.write_timeout));
    let read = read_request(&mut stream, limits);
    let head_only = read.as_ref().is_ok_and(|req| req.method == "HEAD");
    let resp = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match read {
        Ok(req) => handler(Ok(&req)),
        Err(refused) => handler(Err(refused)),
    }))
    .unwrap_or_else(|_| Response::error(500, "internal error"));
    let _ = write_response(&mut stream, &resp, head_only, limits.write_timeout);
}

/// Reads and parses the request head within the limits; a refusal is the answer to send.
fn read_request(stream: &mut TcpStream, limits: Limits) -> Result<Request, Refused> {
    let bare = |status, why| Err(Refused::bare(Response::error(status, why)));
    let started = Instant::now();
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 2048];
    let end = loop {
        if let Some(i) = find_head_end(&buf) {
            break i;
        }
        if buf.len() > limits.max_header_bytes {
            return bare(431, "request headers too large");
        }
        let left = limits.request_deadline.saturating_sub(started.elapsed());
        if left.is_zero() {
            return bare(408, "request not received in time");
        }
        let _ = stream.set_read_timeout(Some(left.max(Duration::from_millis(1))));
        match stream.read(&mut chunk) {
            Ok(0) => return bare(400, "connection closed mid-request"),
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return bare(408, "request not received in time")
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return bare(400, "cannot read the request"),
        }
    };
    if end > limits.max_header_bytes {
        return bare(431, "request headers too large");
    }
    parse_head(&buf[..end])
}

fn find_head_end(buf: &[u8]) -> Option<usize> {
    buf.windows(4).position(|w| w == b"\r\n\r\n")
}

/// Parses the request line and headers (the bytes before the blank line). A refusal once
/// the headers are read carries them.
fn parse_head(head: &[u8]) -> Result<Request, Refused> {
    let bad = |why: &str| Refused::bare(Response::error(400, why));
    let text = std::str::from_utf8(head).map_err(|_| bad("request head is not UTF-8"))?;
    let mut lines = text.split("\r\n");
    let line = lines.next().unwrap_or_default();
    let mut headers = Vec::new();
    for h in lines {
        let (k, v) = h.split_once(':').ok_or_else(|| bad("malformed header"))?;
        if k.is_empty() || k.contains(char::is_whitespace) {
            return Err(bad("malformed header"));
        }
        headers.push((k.to_ascii_lowercase(), v.trim().to_string()));
    }
    match parse_target(line, &headers) {
        Ok((method, path, params)) => Ok(Request {
            method,
            path,
            params,
            headers,
        }),
        Err(response) => Err(Refused { response, headers }),
    }
}

type Target = (String, String, Vec<(String, String)>);

/// The request line's method, decoded path and query parameters.
fn parse_target(line: &str, headers: &[(String, String)]) -> Result<Target, Response> {
    let bad = |why: &str| Response::error(400, why);
    let mut parts = line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(bad("malformed request line"));
    };
    if !version.starts_with("HTTP/1.") {
        return Err(Response::error(505, "HTTP/1.x only"));
    }
    // No endpoint takes a body: refusing any keeps request smuggling and body limits moot.
    let has_body = headers
        .iter()
        .any(|(k, v)| k == "transfer-encoding" || (k == "content-length" && v.trim() != "0"));
    if has_body {
        return Err(Response::error(413, "request bodies are not accepted"));
    }
    let (raw_path, raw_query) = target.split_once('?').unwrap_or((target, ""));
    if !raw_path.starts_with('/') {
        return Err(bad("the request target must be a path"));
    }
    let path = percent_decode(raw_path).ok_or_else(|| bad("bad percent-encoding"))?;
    let params = raw_query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (query_decode(k), query_decode(v))
        })
        .collect();
    Ok((method.to_string(), path, params))
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        204 => "No Content",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        413 => "Payload Too Large",
        431 => "Request Header Fields Too Large",
        503 => "Service Unavailable",
        505 => "HTTP Version Not Supported",
        _ => "Internal Server Error",
    }
}

/// Writes all of `bytes` within `budget` in all: the socket's write timeout bounds each call
/// only, so a client that reads a byte every few seconds would otherwise hold its connection
/// slot for as long as it likes. Each write gets what is left of the budget.
fn write_within(stream: &mut TcpStream, mut bytes: &[u8], budget: Duration) -> std::io::Result<()> {
    let deadline = Instant::now() + budget;
    while !bytes.is_empty() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(std::io::ErrorKind::TimedOut.into());
        }
        stream.set_write_timeout(Some(left))?;
        // Small steps, so a slow reader meets the deadline between them.
        let n = stream.write(&bytes[..bytes.len().min(16 * 1024)])?;
        if n == 0 {
            return Err(std::io::ErrorKind::WriteZero.into());
        }
        bytes = &bytes[n..];
    }
    Ok(())
}

fn write_response(
    stream: &mut TcpStream,
    r: &Response,
    head_only: bool,
    budget: Duration,
) -> std::io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n",
        r.status,
        reason(r.status),
        r.content_type,
        r.body.len()
    );
    for (k, v) in &r.headers {
        head.push_str(k);
        head.push_str(": ");
        head.push_str(v);
        head.push_str("\r\n");
    }
    head.push_str("\r\n");
    let mut out = head.into_bytes();
    if !head_only {
        out.extend_from_slice(&r.body);
    }
    write_within(stream, &out, budget)?;
    stream.flush()?;
    // The whole head was read and bodies are refused, so nothing unread is left that would
    // turn the close into a reset.
    let _ = stream.shutdown(std::net::Shutdown::Write);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_request() {
        let r = parse_head(b"GET /search?q=a%20b+c&x HTTP/1.1\r\nHost: localhost:1\r\nOrigin: x")
            .unwrap();
        assert_eq!(r.method, "GET");
        assert_eq!(r.path, "/search");
        assert_eq!(r.param("q"), Some("a b c"));
        assert_eq!(r.param("x"), Some(""));
        assert_eq!(r.header("host"), Some("localhost:1"));
    }

    #[test]
    fn a_stray_percent_in_the_query_is_no_refusal() {
        let r = parse_head(b"GET /search?q=100%+sure HTTP/1.1\r\nHost: localhost").unwrap();
        assert_eq!(r.param("q"), Some("100% sure"));
    }

    #[test]
    fn refuses_bodies_and_bad_heads() {
        let status = |h: &[u8]| parse_head(h).err().map(|r| r.response.status);
        assert_eq!(status(b"GET / HTTP/1.1\r\nContent-Length: 5"), Some(413));
        assert_eq!(
            status(b"GET / HTTP/1.1\r\nTransfer-Encoding: chunked"),
            Some(413)
        );
        assert_eq!(status(b"GET / HTTP/2.0"), Some(505));
        assert_eq!(status(b"GET /"), Some(400));
        assert_eq!(status(b"GET /%zz HTTP/1.1"), Some(400));
        assert_eq!(status(b"GET http://evil/ HTTP/1.1"), Some(400));
    }
}
