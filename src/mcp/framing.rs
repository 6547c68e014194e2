//! The line framing between the client's pipes and rmcp: one JSON-RPC message per line, each
//! line bounded, a line that is not JSON answered with a parse error.
//!
//! rmcp's stdio transport drops a line that is not JSON, or longer than its own 16 MiB cap,
//! without a word, and keeps reading requests however many replies wait for a client that
//! stopped reading. So stdin is read here first: a line longer than [`MAX_LINE`] is discarded as it streams in and
//! answered with `-32600`; a line that is not JSON gets JSON-RPC's `-32700` with a null id; every
//! other line goes on to rmcp unchanged. rmcp's output and those errors reach stdout through one
//! writer, a whole line at a time, so they never interleave. While that writer's queue is full
//! (a client that does not read its replies), no further request is passed on.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{
    AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, DuplexStream,
};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// The longest message accepted. Requests are small (a query, a path); 8 MiB leaves room for
/// any client while bounding what one can make the server hold.
pub(crate) const MAX_LINE: usize = 8 * 1024 * 1024;
/// Lines in flight towards stdout; when they are all waiting, input waits too.
const OUT_QUEUE: usize = 64;
/// Pipe buffers between this layer and rmcp.
const PIPE: usize = 64 * 1024;

/// The pipes rmcp serves on, and the task that writes stdout (finish it after the service
/// ends: it is done once rmcp's last line is written).
pub(crate) struct Framed {
    pub(crate) reader: DuplexStream,
    pub(crate) writer: DuplexStream,
    pub(crate) flushed: Flushed,
}

/// The task writing stdout, and how many bytes it has written.
pub(crate) struct Flushed {
    task: JoinHandle<()>,
    written: Arc<AtomicU64>,
}

impl Flushed {
    /// Waits until every line is written, or until stdout has taken nothing for `idle`: a
    /// client reading slowly still gets every reply, one that stopped reading does not keep
    /// the process alive.
    pub(crate) async fn finish(mut self, idle: Duration) {
        let mut seen = self.written.load(Ordering::Relaxed);
        while tokio::time::timeout(idle, &mut self.task).await.is_err() {
            let now = self.written.load(Ordering::Relaxed);
            if now == seen {
                return;
            }
            seen = now;
        }
    }
}

/// Boxed: one copy of each task's code, whatever the pipes are (stdio, or a test's).
pub(crate) type Input = Box<dyn AsyncRead + Unpin + Send>;
pub(crate) type Output = Box<dyn AsyncWrite + Unpin + Send>;

/// Starts the framing tasks on the current runtime.
pub(crate) fn start(input: Input, output: Output) -> Framed {
    let (to_rmcp, reader) = tokio::io::duplex(PIPE);
    let (writer, from_rmcp) = tokio::io::duplex(PIPE);
    let (out_tx, out_rx) = mpsc::channel::<Vec<u8>>(OUT_QUEUE);
    tokio::spawn(read_input(input, to_rmcp, out_tx.clone()));
    tokio::spawn(relay_output(from_rmcp, out_tx));
    let written = Arc::new(AtomicU64::new(0));
    let task = tokio::spawn(write_output(output, out_rx, Arc::clone(&written)));
    Framed {
        reader,
        writer,
        flushed: Flushed { task, written },
    }
}

/// What to do with one complete line of input.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    /// Blank: nothing to say.
    Skip,
    /// A JSON value: rmcp's to judge.
    Forward,
    /// The error reply to send back.
    Reply(Vec<u8>),
}

fn judge(line: &[u8]) -> Verdict {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let body = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if body.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Skip;
    }
    match serde_json::from_slice::<serde::de::IgnoredAny>(body) {
        Ok(_) => Verdict::Forward,
        Err(e) => Verdict::Reply(error_line(-32700, &format!("Parse error: {e}"))),
    }
}

/// A JSON-RPC error response with a null id (the id of a message that could not be read).
fn error_line(code: i64, message: &str) -> Vec<u8> {
    let message = serde_json::to_string(message).unwrap_or_else(|_| "\"\"".into());
    format!(r#"{{"jsonrpc":"2.0","id":null,"error":{{"code":{code},"message":{message}}}}}"#)
        .into_bytes()
        .into_iter()
        .chain(std::iter::once(b'\n'))
        .collect()
}

async fn read_input(mut input: Input, mut to_rmcp: DuplexStream, out: mpsc::Sender<Vec<u8>>) {
    let mut chunk = vec![0u8; 64 * 1024];
    let mut line: Vec<u8> = Vec::new();
    let mut too_long = false;
    loop {
        let n = match input.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let mut rest = &chunk[..n];
        while !rest.is_empty() {
            let (part, ended) = match rest.iter().position(|&b| b == b'\n') {
                Some(i) => (&rest[..i], true),
                None => (rest, false),
            };
            rest = if ended { &rest[part.len() + 1..] } else { &[] };
            if !too_long && line.len() + part.len() > MAX_LINE {
                too_long = true;
                line = Vec::new();
            }
            if !too_long {
                line.extend_from_slice(part);
            }
            if !ended {
                continue;
            }
            let verdict = if too_long {
                too_long_reply()
            } else {
                judge(&line)
            };
            too_long = false;
            if !deliver(verdict, &mut line, &mut to_rmcp, &out).await {
                return;
            }
            line.clear();
        }
    }
    // The last line may lack its newline.
    if too_long || !line.is_empty() {
        let verdict = if too_long {
            too_long_reply()
        } else {
            judge(&line)
        };
        deliver(verdict, &mut line, &mut to_rmcp, &out).await;
    }
    // Dropping the pipe is rmcp's end of input.
    let _ = to_rmcp.shutdown().await;
}

fn too_long_reply() -> Verdict {
    Verdict::Reply(error_line(
        -32600,
        &format!("Invalid Request: a message is at most {MAX_LINE} bytes"),
    ))
}

/// False when rmcp or stdout has gone away.
async fn deliver(
    verdict: Verdict,
    line: &mut Vec<u8>,
    to_rmcp: &mut DuplexStream,
    out: &mpsc::Sender<Vec<u8>>,
) -> bool {
    match verdict {
        Verdict::Skip => true,
        Verdict::Forward => {
            // While the replies wait for stdout, no new request: rmcp would start each one and
            // hold every reply in memory, without bound, for a client that stopped reading.
            if out.reserve().await.is_err() {
                return false;
            }
            line.push(b'\n');
            to_rmcp.write_all(line).await.is_ok()
        }
        Verdict::Reply(reply) => out.send(reply).await.is_ok(),
    }
}

/// rmcp's output, a whole line at a time (rmcp writes one message per line).
async fn relay_output(from_rmcp: DuplexStream, out: mpsc::Sender<Vec<u8>>) {
    let mut lines = tokio::io::BufReader::new(from_rmcp);
    loop {
        let mut line = Vec::new();
        match lines.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                if !line.ends_with(b"\n") {
                    line.push(b'\n');
                }
                if out.send(line).await.is_err() {
                    break;
                }
            }
        }
    }
}

/// Writes the lines, counting the bytes stdout takes (progress, for [`Flushed::finish`]).
async fn write_output(
    mut output: Output,
    mut lines: mpsc::Receiver<Vec<u8>>,
    written: Arc<AtomicU64>,
) {
    while let Some(line) = lines.recv().await {
        let mut rest = &line[..];
        while !rest.is_empty() {
            match output.write(rest).await {
                Ok(0) | Err(_) => return,
                Ok(n) => {
                    rest = &rest[n..];
                    written.fetch_add(n as u64, Ordering::Relaxed);
                }
            }
        }
        if output.flush().await.is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_forwarded_answered_or_skipped() {
        assert_eq!(
            judge(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
            Verdict::Forward
        );
        assert_eq!(judge(b"\xEF\xBB\xBF{}\r"), Verdict::Forward);
        assert_eq!(judge(b"  \r"), Verdict::Skip);
        let Verdict::Reply(r) = judge(b"this is not json") else {
            panic!("not answered")
        };
        let v: serde_json::Value = serde_json::from_slice(&r).unwrap();
        assert_eq!(v["error"]["code"], -32700);
        assert!(v["id"].is_null());
        assert!(r.ends_with(b"\n"));
    }

    #[test]
    fn a_slow_reader_gets_every_reply_after_eof() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let (client, server_in) = tokio::io::duplex(1024);
            let (server_out, mut client_out) = tokio::io::duplex(1024);
            let framed = start(Box::new(server_in), Box::new(server_out));
            drop(client);
            // rmcp's last replies, 100 KiB in all, then its end.
            let mut rmcp_out = framed.writer;
            let line = format!("{}\n", "x".repeat(1023));
            for _ in 0..100 {
                rmcp_out.write_all(line.as_bytes()).await.unwrap();
            }
            drop(rmcp_out);
            // The client reads a little at a time, for longer than `idle` in all.
            let got = Arc::new(AtomicU64::new(0));
            let count = Arc::clone(&got);
            let reader = tokio::spawn(async move {
                let mut buf = [0u8; 1024];
                loop {
                    tokio::time::sleep(Duration::from_millis(30)).await;
                    match client_out.read(&mut buf).await.unwrap() {
                        0 => return,
                        n => count.fetch_add(n as u64, Ordering::Relaxed),
                    };
                }
            });
            framed.flushed.finish(Duration::from_secs(2)).await;
            // When it returns (and the process would exit) all but the pipe's last KiB is read.
            assert!(got.load(Ordering::Relaxed) >= 99 * 1024, "{got:?}");
            reader.await.unwrap();
            assert_eq!(got.load(Ordering::Relaxed), 100 * 1024);
        });
    }

    #[test]
    fn requests_wait_while_replies_are_not_read() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let (mut client, server_in) = tokio::io::duplex(1024);
            let (server_out, mut client_out) = tokio::io::duplex(1024);
            let framed = start(Box::new(server_in), Box::new(server_out));
            // rmcp has answered more than stdout has taken, and the client reads none of it.
            let mut rmcp_out = framed.writer;
            let reply = format!("{{\"reply\":\"{}\"}}\n", "x".repeat(90));
            for _ in 0..200 {
                rmcp_out.write_all(reply.as_bytes()).await.unwrap();
            }
            let forwarded = Arc::new(AtomicU64::new(0));
            let count = Arc::clone(&forwarded);
            let rmcp_in = tokio::spawn(async move {
                let mut lines = tokio::io::BufReader::new(framed.reader).lines();
                while lines.next_line().await.unwrap().is_some() {
                    count.fetch_add(1, Ordering::Relaxed);
                }
            });
            let feed = tokio::spawn(async move {
                for i in 0..10_000 {
                    let request = format!("{{\"id\":{i},\"method\":\"ping\"}}\n");
                    client.write_all(request.as_bytes()).await.unwrap();
                }
                client.shutdown().await.unwrap();
            });
            tokio::time::sleep(Duration::from_millis(500)).await;
            let held = forwarded.load(Ordering::Relaxed);
            assert!(held < 1000, "{held} requests passed on to rmcp");
            // Once the client reads, the requests flow again.
            let mut replies = Vec::new();
            let drain = tokio::spawn(async move {
                client_out.read_to_end(&mut replies).await.unwrap();
                replies
            });
            feed.await.unwrap();
            rmcp_in.await.unwrap();
            assert_eq!(forwarded.load(Ordering::Relaxed), 10_000);
            drop(rmcp_out);
            framed.flushed.finish(Duration::from_secs(30)).await;
            assert_eq!(drain.await.unwrap().len(), 200 * reply.len());
        });
    }

    #[test]
    fn an_endless_line_is_dropped_as_it_streams_in() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let (mut client, server_in) = tokio::io::duplex(1 << 20);
            let (server_out, mut client_out) = tokio::io::duplex(1 << 20);
            let framed = start(Box::new(server_in), Box::new(server_out));
            let mut rmcp_side = framed.reader;
            let feed = tokio::spawn(async move {
                let junk = vec![b'x'; 1 << 20];
                for _ in 0..(MAX_LINE / junk.len() + 2) {
                    client.write_all(&junk).await.unwrap();
                }
                client.write_all(b"\n{\"ok\":1}\n").await.unwrap();
                // And one more without its newline before EOF.
                for _ in 0..(MAX_LINE / junk.len() + 2) {
                    client.write_all(&junk).await.unwrap();
                }
                client.shutdown().await.unwrap();
            });
            let mut got = Vec::new();
            rmcp_side.read_to_end(&mut got).await.unwrap();
            feed.await.unwrap();
            // Only the message after the long line reached rmcp.
            assert_eq!(got, b"{\"ok\":1}\n");
            drop(framed.writer);
            framed.flushed.finish(Duration::from_secs(30)).await;
            let mut reply = Vec::new();
            client_out.read_to_end(&mut reply).await.unwrap();
            let replies: Vec<serde_json::Value> = reply
                .split(|&b| b == b'\n')
                .filter(|l| !l.is_empty())
                .map(|l| serde_json::from_slice(l).unwrap())
                .collect();
            assert_eq!(replies.len(), 2, "{replies:?}");
            assert!(replies.iter().all(|v| v["error"]["code"] == -32600));
        });
    }
}
