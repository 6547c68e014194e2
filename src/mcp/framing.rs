//! The line framing between the client's pipes and rmcp: one JSON-RPC message per line, each
//! line bounded and answered, a bounded number of requests at work.
//!
//! rmcp's stdio transport drops a line that is not JSON, or longer than its own 16 MiB cap,
//! without a word, starts every request it reads at once, and keeps reading however many
//! replies wait for a client that stopped reading. So stdin is read here first: a line longer
//! than [`MAX_LINE`] is discarded as it streams in and answered with `-32600`; every other line
//! is judged by [`super::messages`] (answered here, or passed on); a batch is split up by
//! [`super::batch`]. At most [`MAX_IN_FLIGHT`] requests are with rmcp at a time; while all are
//! taken, input is still read up to [`WAITING_BYTES`] of waiting requests (so a ping or a
//! cancellation gets through), then the backlog stays in the client's pipe. While the writer's
//! queue is full (a client that does not read its replies) nothing more is passed on. rmcp's output and the framing's own answers reach
//! stdout through one writer, a whole line at a time, so they never interleave.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{
    AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, DuplexStream,
};
use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinHandle;

use super::batch::{self, Batches, BATCH_VERSION};
use super::messages::{self, judge_line, Message, Verdict};

/// The longest message accepted. Requests are small (a query, a path); 8 MiB leaves room for
/// any client while bounding what one can make the server hold.
pub(crate) const MAX_LINE: usize = 8 * 1024 * 1024;
/// Requests rmcp works on at once. Each holds a blocking thread and its answer in memory;
/// a client that pipelines thousands of searches gets them answered this many at a time.
pub(crate) const MAX_IN_FLIGHT: usize = 8;
/// Bytes of requests read while all permits are taken (more input waits in the client's
/// pipe): enough to keep reading pings and cancellations behind a burst of searches.
const WAITING_BYTES: usize = 1024 * 1024;
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
    let shared = Arc::new(Shared {
        in_flight: Arc::new(Semaphore::new(MAX_IN_FLIGHT)),
        state: Mutex::new(State::default()),
    });
    let to = ToRmcp {
        pipe: to_rmcp,
        out: out_tx.clone(),
        shared: Arc::clone(&shared),
        waiting: VecDeque::new(),
        waiting_bytes: 0,
    };
    tokio::spawn(read_input(input, to));
    tokio::spawn(relay_output(from_rmcp, out_tx, shared));
    let written = Arc::new(AtomicU64::new(0));
    let task = tokio::spawn(write_output(output, out_rx, Arc::clone(&written)));
    Framed {
        reader,
        writer,
        flushed: Flushed { task, written },
    }
}

/// A JSON-RPC message as one line of output.
fn to_line(v: &Value) -> Vec<u8> {
    let mut line = serde_json::to_vec(v).unwrap_or_default();
    line.push(b'\n');
    line
}

/// What the reading and the relaying side share: requests in flight and the batches.
struct Shared {
    /// One permit per request rmcp has not answered yet.
    in_flight: Arc<Semaphore>,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// A request's id (as JSON text) → its permit, returned with rmcp's answer.
    permits: HashMap<String, OwnedSemaphorePermit>,
    /// The `initialize` request's id, until its answer names the protocol version.
    initialize: Option<String>,
    version: Option<String>,
    batches: Batches,
}

impl Shared {
    fn state(&self) -> MutexGuard<'_, State> {
        // Only map updates happen under the lock; what a panic leaves is still usable.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The side that talks to rmcp: where a forwarded message goes and who answers otherwise.
struct ToRmcp {
    pipe: DuplexStream,
    out: mpsc::Sender<Vec<u8>>,
    shared: Arc<Shared>,
    /// Messages behind a request that waits for its permit, in order, each with its line.
    waiting: VecDeque<(Message, Vec<u8>)>,
    waiting_bytes: usize,
}

/// What the reader waits for: more input, or a permit for the first waiting request.
enum Event {
    Read(std::io::Result<usize>),
    Permit(OwnedSemaphorePermit),
}

async fn read_input(mut input: Input, mut to: ToRmcp) {
    let mut chunk = vec![0u8; 64 * 1024];
    let mut line: Vec<u8> = Vec::new();
    let mut too_long = false;
    loop {
        // While requests wait for a permit, input is still read (a ping or a cancellation gets
        // through), up to WAITING_BYTES of waiting requests.
        let room = to.waiting_bytes < WAITING_BYTES;
        let in_flight = Arc::clone(&to.shared.in_flight);
        let event = tokio::select! {
            permit = in_flight.acquire_owned(), if !to.waiting.is_empty() => match permit {
                Ok(p) => Event::Permit(p),
                Err(_) => return,
            },
            n = input.read(&mut chunk), if room || to.waiting.is_empty() => Event::Read(n),
        };
        let n = match event {
            Event::Permit(permit) => {
                if !to.send_waiting(permit).await {
                    return;
                }
                continue;
            }
            Event::Read(Ok(0) | Err(_)) => break,
            Event::Read(Ok(n)) => n,
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
                judge_line(&line)
            };
            too_long = false;
            line.clear();
            if !to.deliver(verdict).await {
                return;
            }
        }
    }
    // The last line may lack its newline.
    if too_long || !line.is_empty() {
        let verdict = if too_long {
            too_long_reply()
        } else {
            judge_line(&line)
        };
        to.deliver(verdict).await;
    }
    // What still waits goes to rmcp as permits free up.
    while !to.waiting.is_empty() {
        let Ok(permit) = Arc::clone(&to.shared.in_flight).acquire_owned().await else {
            return;
        };
        if !to.send_waiting(permit).await {
            return;
        }
    }
    // Dropping the pipe is rmcp's end of input.
    let _ = to.pipe.shutdown().await;
}

fn too_long_reply() -> Verdict {
    Verdict::Reply(messages::error(
        Value::Null,
        -32600,
        &format!("Invalid Request: a message is at most {MAX_LINE} bytes"),
    ))
}

impl ToRmcp {
    /// False when rmcp or stdout has gone away.
    async fn deliver(&mut self, verdict: Verdict) -> bool {
        match verdict {
            Verdict::Skip => true,
            Verdict::Forward(m) => self.forward(m).await,
            Verdict::Reply(reply) => self.out.send(to_line(&reply)).await.is_ok(),
            Verdict::Batch(members) => self.batch(members).await,
        }
    }

    async fn forward(&mut self, mut m: Message) -> bool {
        if let Some(cancelled) = m.cancels.take() {
            // A request still waiting is simply dropped: rmcp never sees it, nor its
            // cancellation, and a cancelled request gets no answer.
            let before = self.waiting.len();
            self.waiting
                .retain(|(w, _)| w.request.as_deref() != Some(cancelled.as_str()));
            if self.waiting.len() < before {
                self.recount_waiting();
                return self.send_unblocked().await;
            }
            if !self.cancel(&cancelled, &mut m).await {
                return false;
            }
            return self.send(m, None).await;
        }
        let line = to_line(&m.value);
        // In order: nothing overtakes a request waiting for its permit.
        if self.waiting.is_empty() {
            match &m.request {
                None => return self.send(m, None).await,
                Some(_) => {
                    if let Ok(permit) = Arc::clone(&self.shared.in_flight).try_acquire_owned() {
                        return self.send(m, Some(permit)).await;
                    }
                }
            }
        }
        self.waiting_bytes += line.len();
        self.waiting.push_back((m, line));
        true
    }

    /// The first waiting request goes to rmcp with `permit`, then whatever follows it up to
    /// the next request.
    async fn send_waiting(&mut self, permit: OwnedSemaphorePermit) -> bool {
        let Some((m, _)) = self.waiting.pop_front() else {
            return true;
        };
        self.recount_waiting();
        if !self.send(m, Some(permit)).await {
            return false;
        }
        self.send_unblocked().await
    }

    /// Sends the waiting messages that need no permit, up to the first request.
    async fn send_unblocked(&mut self) -> bool {
        while self
            .waiting
            .front()
            .is_some_and(|(m, _)| m.request.is_none())
        {
            let Some((m, _)) = self.waiting.pop_front() else {
                break;
            };
            self.recount_waiting();
            if !self.send(m, None).await {
                return false;
            }
        }
        true
    }

    fn recount_waiting(&mut self) {
        self.waiting_bytes = self.waiting.iter().map(|(_, l)| l.len()).sum();
    }

    /// Frees what a cancelled request held and points a batch member's cancellation at
    /// rmcp's id for it; false when stdout has gone away.
    async fn cancel(&mut self, cancelled: &str, m: &mut Message) -> bool {
        let done = {
            let mut st = self.shared.state();
            // rmcp sends no answer to a cancelled request: its permit is free now.
            st.permits.remove(cancelled);
            st.batches.cancel(cancelled).and_then(|(ours, done)| {
                st.permits.remove(&ours.to_string());
                m.value["params"]["requestId"] = ours;
                done
            })
        };
        match done {
            Some(all) => self.out.send(to_line(&all)).await.is_ok(),
            None => true,
        }
    }

    /// Passes one message to rmcp; a request with its permit.
    async fn send(&mut self, mut m: Message, permit: Option<OwnedSemaphorePermit>) -> bool {
        // While the replies wait for stdout, no new request: rmcp would start each one and
        // hold every reply in memory, without bound, for a client that stopped reading.
        if self.out.reserve().await.is_err() {
            return false;
        }
        if let (Some(id), Some(permit)) = (m.request.take(), permit) {
            let mut st = self.shared.state();
            if m.initialize {
                st.initialize = Some(id.clone());
            }
            st.permits.insert(id, permit);
        }
        self.pipe.write_all(&to_line(&m.value)).await.is_ok()
    }

    async fn batch(&mut self, members: Vec<Value>) -> bool {
        let version = self.shared.state().version.clone();
        if version.as_deref() != Some(BATCH_VERSION) || members.is_empty() {
            let why = match version {
                _ if members.is_empty() => "Invalid Request: an empty batch".to_string(),
                Some(v) => format!("Invalid Request: protocol version {v} has no batches"),
                None => "Invalid Request: a batch before initialize".to_string(),
            };
            let reply = messages::error(Value::Null, -32600, &why);
            return self.out.send(to_line(&reply)).await.is_ok();
        }
        let batch = self.shared.state().batches.open();
        for member in members {
            match messages::judge(member) {
                Verdict::Forward(mut m) if !m.initialize => {
                    if m.request.is_some() {
                        let client_id = m.value["id"].take();
                        let ours = self.shared.state().batches.member(batch, client_id);
                        m.request = Some(ours.to_string());
                        m.value["id"] = ours;
                    }
                    if !self.forward(m).await {
                        return false;
                    }
                }
                Verdict::Reply(reply) => self.shared.state().batches.reply(batch, reply),
                Verdict::Forward(m) => {
                    let why = "Invalid Request: initialize cannot be part of a batch";
                    let reply = messages::error(m.value["id"].clone(), -32600, why);
                    self.shared.state().batches.reply(batch, reply);
                }
                Verdict::Batch(_) | Verdict::Skip => {
                    let why = "Invalid Request: a batch member is a JSON object";
                    let reply = messages::error(Value::Null, -32600, why);
                    self.shared.state().batches.reply(batch, reply);
                }
            }
        }
        let done = self.shared.state().batches.seal(batch);
        match done {
            Some(all) => self.out.send(to_line(&all)).await.is_ok(),
            None => true,
        }
    }
}

/// The fields of rmcp's output that the framing looks at.
#[derive(serde::Deserialize)]
struct Peek {
    id: Option<Value>,
    method: Option<serde::de::IgnoredAny>,
}

/// What to do with a line rmcp wrote: a response frees its request's permit; an answer to
/// `initialize` names the protocol version; a batch member's answer waits for its batch.
fn relay_one(shared: &Shared, line: Vec<u8>) -> Option<Vec<u8>> {
    let Ok(Peek {
        id: Some(id),
        method: None,
    }) = serde_json::from_slice::<Peek>(&line)
    else {
        return Some(line);
    };
    let key = id.to_string();
    let mut st = shared.state();
    st.permits.remove(&key);
    if st.initialize.as_deref() == Some(key.as_str()) {
        st.initialize = None;
        let v: Value = serde_json::from_slice(&line).unwrap_or_default();
        st.version = v["result"]["protocolVersion"].as_str().map(str::to_string);
    }
    if id.as_str().is_some_and(|s| s.starts_with(batch::PREFIX)) {
        let reply: Value = serde_json::from_slice(&line).unwrap_or_default();
        return match st.batches.answered(&id, reply) {
            Some(done) => done.map(|all| to_line(&all)),
            None => Some(line),
        };
    }
    Some(line)
}

/// rmcp's output, a whole line at a time (rmcp writes one message per line).
async fn relay_output(from_rmcp: DuplexStream, out: mpsc::Sender<Vec<u8>>, shared: Arc<Shared>) {
    let mut lines = tokio::io::BufReader::new(from_rmcp);
    loop {
        let mut line = Vec::new();
        match lines.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                if !line.ends_with(b"\n") {
                    line.push(b'\n');
                }
                let Some(line) = relay_one(&shared, line) else {
                    continue;
                };
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
        // A note's name or text with a C1 or bidi control stays harmless on the wire.
        let line = crate::core::escape_json_controls(line);
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
                for _ in 0..10_000 {
                    let request = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"}\n";
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
    fn requests_beyond_the_cap_wait_while_pings_and_cancellations_pass() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let (mut client, server_in) = tokio::io::duplex(1 << 16);
            let (server_out, client_out) = tokio::io::duplex(1 << 16);
            let framed = start(Box::new(server_in), Box::new(server_out));
            let mut input = String::new();
            for i in 0..20 {
                input.push_str(&format!(
                    "{{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"tools/list\"}}\n"
                ));
            }
            input.push_str(
                r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":15}}"#,
            );
            input.push_str("\n{\"jsonrpc\":\"2.0\",\"id\":99,\"method\":\"ping\"}\n");
            client.write_all(input.as_bytes()).await.unwrap();
            // rmcp (never answering) has the first MAX_IN_FLIGHT; the ping is answered anyway.
            let mut replies = tokio::io::BufReader::new(client_out).lines();
            let pong = replies.next_line().await.unwrap().unwrap();
            assert!(pong.contains("\"id\":99"), "{pong}");
            let mut rmcp_in = tokio::io::BufReader::new(framed.reader).lines();
            let mut got = Vec::new();
            for _ in 0..MAX_IN_FLIGHT {
                got.push(rmcp_in.next_line().await.unwrap().unwrap());
            }
            // Each answer frees a permit: the waiting requests follow, in order, without the
            // cancelled one.
            let mut rmcp_out = framed.writer;
            client.shutdown().await.unwrap();
            let mut answered = 0;
            loop {
                while answered < got.len() {
                    let id = serde_json::from_str::<Value>(&got[answered]).unwrap()["id"].clone();
                    let answer = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{}}}}\n");
                    rmcp_out.write_all(answer.as_bytes()).await.unwrap();
                    answered += 1;
                }
                match rmcp_in.next_line().await.unwrap() {
                    Some(l) => got.push(l),
                    None => break,
                }
            }
            let ids: Vec<i64> = got
                .iter()
                .filter_map(|l| serde_json::from_str::<Value>(l).ok()?["id"].as_i64())
                .collect();
            let expected: Vec<i64> = (0..20).filter(|&i| i != 15).collect();
            assert_eq!(ids, expected);
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
                client
                    .write_all(b"\n{\"jsonrpc\":\"2.0\",\"method\":\"n\"}\n")
                    .await
                    .unwrap();
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
            assert_eq!(got, b"{\"jsonrpc\":\"2.0\",\"method\":\"n\"}\n");
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
