//! Shared helpers for the integration tests: a temp vault + cache dir, a command runner for the
//! real binary, a spawned server process with its output read line by line (`mcp`, `serve`),
//! and an in-process mock Omnisearch server.
#![allow(missing_debug_implementations, clippy::new_without_default)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::ops::{Deref, DerefMut};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use vault_search::{IndexReport, SearchResponse};

/// A temporary vault and cache directory, isolated from the user's environment.
pub struct Env {
    pub root: tempfile::TempDir,
    pub vault: PathBuf,
    pub cache: PathBuf,
    /// A port nothing listens on, so `auto` never reaches a real Obsidian.
    pub dead_port: u16,
}

impl Env {
    pub fn new() -> Env {
        let root = tempfile::tempdir().unwrap();
        let vault = root.path().join("vault");
        let cache = root.path().join("cache");
        std::fs::create_dir_all(&vault).unwrap();
        // As a Windows user types it (`C:\…`, not `canonicalize`'s verbatim `\\?\C:\…`): the
        // binary resolves the vault to that spelling, and the index store is named after it.
        let vault = PathBuf::from(
            vault
                .canonicalize()
                .unwrap()
                .to_str()
                .unwrap()
                .trim_start_matches(r"\\?\"),
        );
        Env {
            root,
            vault,
            cache,
            dead_port: dead_port(),
        }
    }

    /// Writes a note (creating folders).
    pub fn write(&self, rel: &str, content: &str) -> PathBuf {
        self.write_bytes(rel, content.as_bytes())
    }

    /// Sets the mtime of each of `rels` a minute back: older than the racy window, so no
    /// later run re-reads them and commits its own start (on a slow machine, as under Wine, a
    /// test would otherwise see a commit it did not cause).
    pub fn backdate(&self, rels: &[&str]) {
        for rel in rels {
            let f = std::fs::File::options()
                .write(true)
                .open(self.vault.join(rel))
                .unwrap();
            f.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(60))
                .unwrap();
        }
    }

    pub fn write_bytes(&self, rel: &str, content: &[u8]) -> PathBuf {
        let p = self.vault.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, content).unwrap();
        p
    }

    pub fn remove(&self, rel: &str) {
        std::fs::remove_file(self.vault.join(rel)).unwrap();
    }

    /// The binary with `--vault` and a private cache dir, and no inherited configuration.
    pub fn cmd(&self) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_vault-search"));
        c.env_remove("OBSIDIAN_VAULT")
            .env_remove("OBSIDIAN_VAULT_PATH")
            .env_remove("NO_COLOR")
            .env("VAULT_SEARCH_CACHE_DIR", &self.cache)
            .env("OMNISEARCH_PORT", self.dead_port.to_string())
            .arg("--vault")
            .arg(&self.vault);
        c
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.cmd().args(args).output_retried()
    }

    /// Runs a search with `--json` and parses the response; panics unless exit 0.
    pub fn search_json(&self, args: &[&str]) -> SearchResponse {
        let out = self.run(&[&["--json"], args].concat());
        assert_ok(&out);
        serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("bad JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
    }

    /// Local search, JSON, paths of the hits in order.
    pub fn local_paths(&self, query: &str) -> Vec<String> {
        self.search_json(&["--source", "local", "-n", "20", "--", query])
            .results
            .into_iter()
            .map(|h| h.path)
            .collect()
    }

    pub fn index_json(&self, extra: &[&str]) -> IndexReport {
        let out = self.run(&[&["index", "--json"], extra].concat());
        assert_ok(&out);
        serde_json::from_slice(&out.stdout).unwrap()
    }

    /// The live Tantivy directory (the one `CURRENT` names).
    pub fn live_index_dir(&self) -> PathBuf {
        let store = self.store_dir();
        let current = std::fs::read_to_string(store.join("CURRENT")).unwrap();
        store.join(current.trim())
    }

    /// The per-vault index directory (`<cache>/vault-search/<id>`).
    pub fn store_dir(&self) -> PathBuf {
        let base = self.cache.join("vault-search");
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(&base)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert_eq!(dirs.len(), 1, "one vault, one store: {dirs:?}");
        dirs.pop().unwrap()
    }
}

/// How every test starts a process: [`Command`]'s `output`, `spawn` and `status`, started
/// again when Wine fails the start. Under Wine on a loaded machine starting a process now and
/// then fails with ERROR_INTERNAL_ERROR (1359) before it runs (a Wine quirk: Windows has no
/// such failure); starting it again works.
pub trait Start {
    fn output_retried(&mut self) -> Output;
    fn spawn_retried(&mut self) -> Child;
    fn status_retried(&mut self) -> ExitStatus;
}

impl Start for Command {
    fn output_retried(&mut self) -> Output {
        retry_start(|| self.output())
    }
    fn spawn_retried(&mut self) -> Child {
        retry_start(|| self.spawn())
    }
    fn status_retried(&mut self) -> ExitStatus {
        retry_start(|| self.status())
    }
}

fn retry_start<T>(mut start: impl FnMut() -> std::io::Result<T>) -> T {
    let mut pause = Duration::from_millis(200);
    for _ in 0..5 {
        match start() {
            Err(e) if cfg!(windows) && e.raw_os_error() == Some(1359) => {
                thread::sleep(pause);
                pause *= 2;
            }
            other => return other.unwrap(),
        }
    }
    start().unwrap()
}

pub fn assert_ok(out: &Output) {
    assert!(
        out.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A spawned server (`mcp`, `serve`), killed and reaped when dropped so that a failing test
/// leaves no process behind. Derefs to its [`Child`].
pub struct ServerProcess(Child);

impl ServerProcess {
    /// Spawns `cmd`, whose stdio the caller has set.
    pub fn spawn(cmd: &mut Command) -> ServerProcess {
        ServerProcess(cmd.spawn_retried())
    }
}

impl Deref for ServerProcess {
    type Target = Child;
    fn deref(&self) -> &Child {
        &self.0
    }
}

impl DerefMut for ServerProcess {
    fn deref_mut(&mut self) -> &mut Child {
        &mut self.0
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The lines of `pipe` (a child's stdout or stderr), read on a thread of their own so that a
/// test can wait for one with a deadline. The channel disconnects at the end of the stream. The
/// thread reads on after the receiver is gone, so the child never blocks on a full pipe.
pub fn read_lines(pipe: impl Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        for line in BufReader::new(pipe).lines() {
            let Ok(line) = line else { break };
            let _ = tx.send(line);
        }
    });
    rx
}

/// `vault-search serve --port 0` (and `extra`) on `env`'s vault, with its stderr read line by
/// line ([`read_lines`]).
pub fn spawn_serve(env: &Env, extra: &[&str]) -> (ServerProcess, Receiver<String>) {
    let mut child = ServerProcess::spawn(
        env.cmd()
            .args(["serve", "--port", "0"])
            .args(extra)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped()),
    );
    let rx = read_lines(child.stderr.take().unwrap());
    (child, rx)
}

/// The port of `serve`'s listening line; panics when none comes within `within`.
pub fn serve_port(rx: &Receiver<String>, within: Duration) -> u16 {
    loop {
        let line = rx
            .recv_timeout(within)
            .expect("serve printed no listening line");
        if let Some(rest) = line.split("http://127.0.0.1:").nth(1) {
            return rest.split('/').next().unwrap().parse::<u16>().unwrap();
        }
    }
}

/// A loopback port with nothing listening.
pub fn dead_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    DEAD_PORTS.lock().unwrap().push(port);
    port
}

/// The ports [`dead_port`] handed out: the system may give a freed port to the next listener
/// that asks, and a mock server on a test's dead port would make "Omnisearch is down" answer.
static DEAD_PORTS: Mutex<Vec<u16>> = Mutex::new(Vec::new());

/// How the mock server answers.
#[derive(Clone)]
pub enum Reply {
    /// 200 with this JSON body.
    Json(String),
    /// This status and body.
    Status(u16, String),
    /// Accept and never send anything.
    Hang,
    /// Send headers and part of the body, then stall.
    StallMidBody,
    /// Exactly these bytes, then close.
    Raw(Vec<u8>),
    /// 200, `Content-Length` of this many bytes of `[`...: a huge body.
    Huge(usize),
}

/// How long [`Reply::Hang`] and [`Reply::StallMidBody`] hold a connection before closing it:
/// far longer than a search may take even on a loaded machine, so a client that waits for
/// the server instead of its own deadline is told apart.
pub const HANG: Duration = Duration::from_secs(120);

/// An Omnisearch stand-in on 127.0.0.1, serving one [`Reply`] to every request.
pub struct MockServer {
    pub port: u16,
    pub requests: Arc<Mutex<Vec<String>>>,
}

impl MockServer {
    pub fn start(reply: Reply) -> MockServer {
        // Never on a port a test counts as dead: the refused listeners are held until one is
        // given a port of its own.
        let mut refused = Vec::new();
        let (listener, port) = loop {
            let l = TcpListener::bind("127.0.0.1:0").unwrap();
            let port = l.local_addr().unwrap().port();
            if !DEAD_PORTS.lock().unwrap().contains(&port) {
                break (l, port);
            }
            refused.push(l);
        };
        drop(refused);
        let requests = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&requests);
        thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let reply = reply.clone();
                let seen = Arc::clone(&seen);
                thread::spawn(move || serve(stream, &reply, &seen));
            }
        });
        MockServer { port, requests }
    }
}

fn serve(mut s: TcpStream, reply: &Reply, seen: &Mutex<Vec<String>>) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 1024];
    s.set_read_timeout(Some(Duration::from_secs(5))).ok();
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
        match s.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
    let head = String::from_utf8_lossy(&buf);
    let line = head.lines().next().unwrap_or_default().to_string();
    seen.lock().unwrap().push(line);
    let respond = |s: &mut TcpStream, status: u16, body: &[u8]| {
        let head = format!(
            "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        let _ = s.write_all(head.as_bytes());
        let _ = s.write_all(body);
    };
    match reply {
        Reply::Json(b) => respond(&mut s, 200, b.as_bytes()),
        Reply::Status(code, b) => respond(&mut s, *code, b.as_bytes()),
        Reply::Hang => thread::sleep(HANG),
        Reply::StallMidBody => {
            let _ = s.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n[{\"score\":1,");
            thread::sleep(HANG);
        }
        Reply::Raw(bytes) => {
            let _ = s.write_all(bytes);
        }
        Reply::Huge(n) => {
            let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {n}\r\n\r\n");
            let _ = s.write_all(head.as_bytes());
            let chunk = vec![b' '; 64 * 1024];
            let mut sent = 0;
            while sent < *n {
                let k = chunk.len().min(n - sent);
                if s.write_all(&chunk[..k]).is_err() {
                    return;
                }
                sent += k;
            }
        }
    }
}

/// One Omnisearch result object as the plugin sends it.
pub fn omni_hit(score: f64, path: &str, excerpt: &str, offset: Option<usize>) -> serde_json::Value {
    let basename = Path::new(path)
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .to_string();
    let matches = match offset {
        Some(o) => serde_json::json!([{"match": "x", "offset": o}]),
        None => serde_json::json!([]),
    };
    serde_json::json!({
        "score": score, "vault": "vault", "path": path, "basename": basename,
        "foundWords": ["x"], "matches": matches, "excerpt": excerpt
    })
}

/// A command line split as a POSIX shell splits it: single and double quotes, backslashes;
/// an unquoted `#` starting a word begins a comment, and an unquoted `>`, `<` or `|` ends the
/// command (what follows is the shell's, not the binary's).
pub fn shell_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => words.extend(word.take()),
            '#' if word.is_none() => break,
            '>' | '<' | '|' => break,
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => w.push(c),
                        None => return Err(format!("an unclosed ' in {line}")),
                    }
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => w.push(c),
                            Some(c) => {
                                w.push('\\');
                                w.push(c);
                            }
                            None => return Err(format!("an unclosed \" in {line}")),
                        },
                        Some('$' | '`') => return Err(format!("a shell expansion in {line}")),
                        Some(c) => w.push(c),
                        None => return Err(format!("an unclosed \" in {line}")),
                    }
                }
            }
            '\\' => {
                if let Some(c) = chars.next() {
                    word.get_or_insert_with(String::new).push(c);
                }
            }
            '$' | '`' | ';' | '&' | '(' | ')' | '*' | '?' => {
                return Err(format!(
                    "{c:?} would be the shell's, not the binary's: {line}"
                ))
            }
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    Ok(words)
}
