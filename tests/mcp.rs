//! `vault-search mcp`: the real binary spoken to in JSON-RPC over its stdin/stdout.

use std::io::Write;
use std::process::{ChildStdin, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use crate::util::{read_lines, Env, ServerProcess};
use serde_json::{json, Value};
use vault_search::{RelatedResponse, SearchResponse};

/// Generous: a debug build on a busy machine; nothing here measures speed.
pub(crate) const DEADLINE: Duration = Duration::from_secs(60);

/// A running server and the JSON-RPC messages it wrote, one per stdout line.
pub(crate) struct Session {
    pub(crate) child: ServerProcess,
    stdin: Option<ChildStdin>,
    pub(crate) lines: Receiver<String>,
    /// Messages read while waiting for another id.
    pub(crate) backlog: Vec<Value>,
    next_id: u64,
}

impl Session {
    pub(crate) fn start(env: &Env, extra: &[&str]) -> Session {
        let mut child = ServerProcess::spawn(
            env.cmd()
                .arg("mcp")
                .args(extra)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null()),
        );
        let lines = read_lines(child.stdout.take().unwrap());
        Session {
            stdin: child.stdin.take(),
            child,
            lines,
            backlog: Vec::new(),
            next_id: 1,
        }
    }

    /// Started and through the `initialize` handshake.
    pub(crate) fn ready(env: &Env, extra: &[&str]) -> Session {
        Session::ready_at(env, extra, "2025-06-18")
    }

    /// Through the handshake, at this protocol revision.
    pub(crate) fn ready_at(env: &Env, extra: &[&str], version: &str) -> Session {
        let mut s = Session::start(env, extra);
        let init = s.request(
            "initialize",
            json!({"protocolVersion": version, "capabilities": {},
                   "clientInfo": {"name": "test", "version": "1"}}),
        );
        assert!(init.get("result").is_some(), "{init}");
        s.send_raw(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        s
    }

    pub(crate) fn send_raw(&mut self, line: &str) {
        self.send_bytes(line.as_bytes());
    }

    /// The server's stdin, for a writer on another thread (hand it back before `finish`);
    /// only a Linux test uses it.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    pub(crate) fn stdin_for_test(&mut self) -> ChildStdin {
        self.stdin.take().unwrap()
    }

    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    pub(crate) fn give_back_stdin(&mut self, stdin: ChildStdin) {
        self.stdin = Some(stdin);
    }

    /// One line of any bytes.
    pub(crate) fn send_bytes(&mut self, line: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// Sends a request; returns its id.
    pub(crate) fn send(&mut self, method: &str, params: Value) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send_raw(&msg.to_string());
        id
    }

    /// The next message matching `pred` (others are kept for later).
    pub(crate) fn wait_for(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.backlog.iter().position(&pred) {
            return self.backlog.remove(i);
        }
        let deadline = Instant::now() + DEADLINE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self
                .lines
                .recv_timeout(left)
                .unwrap_or_else(|e| panic!("no answer ({e}); seen: {:?}", self.backlog));
            // stdout carries protocol messages only: anything else fails the test.
            let msg: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("non-JSON on stdout ({e}): {line}"));
            assert_eq!(msg["jsonrpc"], "2.0", "{line}");
            if pred(&msg) {
                return msg;
            }
            self.backlog.push(msg);
        }
    }

    pub(crate) fn response(&mut self, id: u64) -> Value {
        self.wait_for(|m| m["id"] == id)
    }

    pub(crate) fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send(method, params);
        self.response(id)
    }

    /// A `tools/call` result (panics on a JSON-RPC error).
    pub(crate) fn call(&mut self, tool: &str, args: Value) -> Value {
        let r = self.request("tools/call", json!({"name": tool, "arguments": args}));
        r.get("result")
            .unwrap_or_else(|| panic!("JSON-RPC error: {r}"))
            .clone()
    }

    /// Closes stdin and waits for the exit code.
    pub(crate) fn finish(mut self) -> Option<i32> {
        drop(self.stdin.take());
        let deadline = Instant::now() + DEADLINE;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            assert!(Instant::now() < deadline, "the server did not exit on EOF");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

pub(crate) fn text(result: &Value) -> String {
    result["content"][0]["text"].as_str().unwrap().to_string()
}

pub(crate) fn is_error(result: &Value) -> bool {
    result["isError"] == true
}

pub(crate) fn structured(result: &Value) -> SearchResponse {
    serde_json::from_value(result["structuredContent"].clone())
        .unwrap_or_else(|e| panic!("structuredContent is not the --json object ({e}): {result}"))
}

pub(crate) fn vault() -> Env {
    let env = Env::new();
    env.write(
        "Dev/kotlin.md",
        "---\ntags: [build]\n---\n# Kotlin\n\nThe gradle daemon kept a stale lock.\n",
    );
    env.write("Dev/rust.md", "# Rust\n\nCargo builds crates.\n");
    env.write("Meta/todo.md", "# Todo\n\nfix the gradle daemon\n");
    env
}

#[test]
fn initialize_and_a_compact_tool_list() {
    let env = vault();
    let mut s = Session::start(&env, &[]);
    let init = s.request(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "test", "version": "1"}}),
    );
    let result = &init["result"];
    assert_eq!(result["serverInfo"]["name"], "vault-search");
    assert!(result["capabilities"]["tools"].is_object(), "{init}");
    s.send_raw(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);

    let list = s.request("tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    names.sort_unstable();
    // The clients in tests/clients check tools/list against this one list.
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/clients/tools.json");
    let listed: Vec<String> =
        serde_json::from_str(&std::fs::read_to_string(fixture).unwrap()).unwrap();
    assert_eq!(names, listed);
    for t in tools {
        let a = &t["annotations"];
        assert_eq!(a["readOnlyHint"], true, "{t}");
        assert_eq!(a["idempotentHint"], true, "{t}");
        assert_eq!(a["openWorldHint"], false, "{t}");
    }
    let related = tools.iter().find(|t| t["name"] == "related_notes").unwrap();
    assert_eq!(
        related["inputSchema"]["required"],
        json!(["path"]),
        "{related}"
    );
    let search = tools.iter().find(|t| t["name"] == "search_notes").unwrap();
    // No argument is required: without words, a filter or sort lists notes.
    assert!(search["inputSchema"].get("required").is_none(), "{search}");
    let out = &search["outputSchema"]["properties"];
    for field in ["query", "engine", "total_results", "results", "stale"] {
        assert!(out.get(field).is_some(), "outputSchema lacks {field}");
    }
    // Tool definitions are sent to the model in every conversation.
    let size = list["result"].to_string().len();
    assert!(size < 6000, "tools/list is {size} characters");
    assert_eq!(s.finish(), Some(0));
}

#[test]
fn search_notes_answers_structured_and_as_text() {
    let env = vault();
    let mut s = Session::ready(&env, &[]);
    let r = s.call(
        "search_notes",
        json!({"query": "stale daemon", "source": "local"}),
    );
    assert!(!is_error(&r), "{r}");
    let answer = structured(&r);
    assert_eq!(answer.engine, "local");
    assert_eq!(answer.query, "stale daemon");
    assert_eq!(answer.results[0].path, "Dev/kotlin.md");
    assert_eq!(answer.results[0].line, Some(6));
    assert_eq!(answer.results[0].heading.as_deref(), Some("Kotlin"));
    assert_eq!(answer.results[0].tags, ["build"]);
    assert_eq!(answer.total_results, answer.results.len());
    let t = text(&r);
    assert!(
        // The passage: the short note whole, its lines indented under its place.
        t.contains(
            "Dev/kotlin.md:4-6 — Kotlin\n  # Kotlin\n\n  The gradle daemon kept a stale lock."
        ),
        "{t}"
    );

    // Scope, limit, and auto falling back to the local engine (Omnisearch is not running).
    let r = s.call(
        "search_notes",
        json!({"query": "gradle", "exclude": ["Dev"], "limit": 1}),
    );
    let answer = structured(&r);
    assert_eq!(answer.engine, "local");
    assert!(answer.fallback_reason.is_some());
    let paths: Vec<&str> = answer.results.iter().map(|h| h.path.as_str()).collect();
    assert_eq!(paths, ["Meta/todo.md"]);
    let r = s.call("search_notes", json!({"query": "gradle", "folder": "Dev"}));
    assert_eq!(structured(&r).results[0].path, "Dev/kotlin.md");
}

#[test]
fn search_notes_with_no_hits_suggests_other_words() {
    let env = vault();
    let mut s = Session::ready(&env, &[]);
    let r = s.call(
        "search_notes",
        json!({"query": "zeppelin", "source": "local"}),
    );
    assert!(!is_error(&r));
    assert_eq!(structured(&r).total_results, 0);
    assert!(text(&r).contains("fewer words"), "{}", text(&r));
}

#[test]
fn search_notes_refuses_bad_arguments() {
    let env = vault();
    let mut s = Session::ready(&env, &[]);
    for (args, why) in [
        (json!({"query": "  "}), "empty"),
        (json!({"query": "x", "limit": 51}), "1-50"),
        (json!({"query": "x", "limit": 0}), "1-50"),
        (json!({"query": "x", "folder": "../up"}), ".."),
    ] {
        let r = s.call("search_notes", args.clone());
        assert!(is_error(&r), "{args}: {r}");
        assert!(text(&r).contains(why), "{args}: {}", text(&r));
    }
    // Arguments that don't fit the schema: a tool error the model can correct from.
    for (args, why) in [
        (json!({}), "query"),
        (json!({"query": 3}), "string"),
        (json!({"query": "x", "source": "web"}), "web"),
    ] {
        let r = s.call("search_notes", args.clone());
        assert!(is_error(&r), "{args}: {r}");
        assert!(text(&r).contains(why), "{args}: {}", text(&r));
    }
    let r = s.request(
        "tools/call",
        json!({"name": "no_such_tool", "arguments": {}}),
    );
    assert_eq!(r["error"]["code"], -32602, "{r}");
    let m = r["error"]["message"].as_str().unwrap_or_default();
    assert!(
        m.contains("no_such_tool") && m.contains("search_notes"),
        "{r}"
    );
}

#[test]
fn the_index_stays_fresh_between_calls() {
    let env = vault();
    let mut s = Session::ready(&env, &[]);
    let q = json!({"query": "zeppelin", "source": "local"});
    assert_eq!(
        structured(&s.call("search_notes", q.clone())).total_results,
        0
    );
    env.write("New/airship.md", "# Airship\n\nA zeppelin over the lake.\n");
    let answer = structured(&s.call("search_notes", q));
    assert_eq!(answer.results[0].path, "New/airship.md");
}

#[test]
fn read_note_returns_numbered_lines() {
    let env = vault();
    let body: String = (1..=1000).map(|i| format!("line {i}\n")).collect();
    env.write("long.md", &body);
    let mut s = Session::ready(&env, &[]);

    let r = s.call(
        "read_note",
        json!({"path": "Dev/kotlin.md", "line": 6, "context": 1}),
    );
    assert!(!is_error(&r), "{r}");
    let t = text(&r);
    assert!(t.starts_with("Dev/kotlin.md (lines 5-6 of 6)\n"), "{t}");
    assert!(
        t.contains("\n6\tThe gradle daemon kept a stale lock.\n"),
        "{t}"
    );

    let t = text(&s.call(
        "read_note",
        json!({"path": "long.md", "from_line": 10, "max_lines": 3}),
    ));
    assert!(
        t.contains("\n10\tline 10\n11\tline 11\n12\tline 12\n"),
        "{t}"
    );
    assert!(!t.contains("line 13"), "{t}");
    assert!(t.contains("from_line=13"), "{t}");

    // The whole note is more than one call returns: cut, and said where.
    let t = text(&s.call("read_note", json!({"path": "long.md"})));
    assert!(t.contains("\n400\tline 400\n"), "{t}");
    assert!(!t.contains("line 401"));
    assert!(
        t.contains("cut after line 400") && t.contains("from_line=401"),
        "{t}"
    );
}

#[test]
fn read_note_refuses_what_is_not_a_note_in_the_vault() {
    let env = vault();
    env.write("data.txt", "not a note\n");
    let outside = env.root.path().join("secret.md");
    std::fs::write(&outside, "outside the vault\n").unwrap();
    #[cfg_attr(not(unix), allow(unused_mut))] // the symlink cases are Unix only
    let mut cases = vec![
        (outside.display().to_string(), "absolute"),
        ("../secret.md".to_string(), ".."),
        ("Dev/../../secret.md".to_string(), ".."),
        ("data.txt".to_string(), "not a note"),
        ("Dev/missing.md".to_string(), "no note"),
        (String::new(), "empty"),
    ];
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&outside, env.vault.join("link.md")).unwrap();
        std::os::unix::fs::symlink(env.root.path(), env.vault.join("up")).unwrap();
        cases.push(("link.md".into(), "symlink"));
        cases.push(("up/secret.md".into(), "symlink"));
    }
    let mut s = Session::ready(&env, &[]);
    for (path, why) in cases {
        let r = s.call("read_note", json!({"path": path}));
        assert!(is_error(&r), "{path}: {r}");
        let t = text(&r);
        assert!(t.contains(why), "{path}: {t}");
        assert!(!t.contains("outside the vault"), "{path}: leaked {t}");
    }
    for args in [
        json!({"path": "Dev/kotlin.md", "line": 0}),
        json!({"path": "Dev/kotlin.md", "line": 2, "from_line": 1}),
        json!({"path": "Dev/kotlin.md", "from_line": 99}),
    ] {
        assert!(is_error(&s.call("read_note", args.clone())), "{args}");
    }
}

#[test]
fn index_status_reports_the_index() {
    let env = vault();
    let mut s = Session::ready(&env, &[]);
    // A search waits for the background build, so afterwards the index exists.
    s.call("search_notes", json!({"query": "cargo", "source": "local"}));
    let r = s.call("index_status", json!({}));
    assert!(!is_error(&r), "{r}");
    let st: vault_search::Status = serde_json::from_value(r["structuredContent"].clone()).unwrap();
    assert!(st.indexed);
    assert_eq!(st.notes, 3);
    assert!(!st.omnisearch_answers);
    assert!(r["structuredContent"]["background_index"].is_string());
    assert!(text(&r).contains("notes indexed     3"), "{}", text(&r));
}

#[test]
fn malformed_input_gets_an_error_and_the_server_keeps_serving() {
    let env = vault();
    let mut s = Session::ready(&env, &[]);
    // Not JSON at all: a Parse error, with a null id (there is none to read).
    s.send_raw("this is not json");
    let err = s.wait_for(|m| m.get("error").is_some() && m["id"].is_null());
    assert_eq!(err["error"]["code"], -32700, "{err}");
    // JSON, but not a JSON-RPC message: an Invalid Request error.
    s.send_raw(r#"{"hello": "world"}"#);
    let err = s.wait_for(|m| m.get("error").is_some() && m["id"].is_null());
    assert_eq!(err["error"]["code"], -32600, "{err}");
    // A message over the size limit is dropped as it arrives, and said so.
    s.send_raw(&"x".repeat(9 * 1024 * 1024));
    let err = s.wait_for(|m| m.get("error").is_some() && m["id"].is_null());
    assert_eq!(err["error"]["code"], -32600, "{err}");
    assert!(
        err["error"]["message"]
            .as_str()
            .unwrap()
            .contains("at most"),
        "{err}"
    );
    let r = s.request("no/such/method", json!({}));
    assert_eq!(r["error"]["code"], -32601, "{r}");
    // Still serving.
    let r = s.call("read_note", json!({"path": "Dev/rust.md"}));
    assert!(text(&r).contains("Cargo builds crates."));
    assert_eq!(s.finish(), Some(0));
}

#[test]
fn eof_ends_the_server_with_exit_0() {
    let env = vault();
    assert_eq!(Session::start(&env, &[]).finish(), Some(0));
    let s = Session::ready(&env, &[]);
    assert_eq!(s.finish(), Some(0));
}

/// Holds the vault's writer lock, as another `vault-search index` would.
fn hold_writer_lock(env: &Env) -> Box<dyn std::any::Any> {
    vault_search::__hold_writer_lock(&env.cache, &env.vault).unwrap()
}

#[test]
fn a_search_waiting_for_the_index_does_not_block_read_note() {
    let env = vault();
    let lock = hold_writer_lock(&env);
    let mut s = Session::ready(&env, &["--index-wait", "120"]);
    // No index and the writer lock taken: the search waits for a build it can't start yet.
    let search = s.send(
        "tools/call",
        json!({"name": "search_notes", "arguments": {"query": "stale", "source": "local"}}),
    );
    let read = s.send(
        "tools/call",
        json!({"name": "read_note", "arguments": {"path": "Dev/rust.md"}}),
    );
    let r = s.response(read);
    assert!(text(&r["result"]).contains("Cargo builds"), "{r}");
    assert!(
        !s.backlog.iter().any(|m| m["id"] == search),
        "the search answered before the lock was released"
    );
    drop(lock);
    let r = s.response(search);
    let answer = structured(&r["result"]);
    assert_eq!(answer.results[0].path, "Dev/kotlin.md");
}

#[test]
fn a_search_says_when_the_first_index_is_not_ready() {
    let env = vault();
    let _lock = hold_writer_lock(&env);
    let mut s = Session::ready(&env, &["--index-wait", "1"]);
    let r = s.call("search_notes", json!({"query": "stale", "source": "local"}));
    assert!(is_error(&r), "{r}");
    assert!(text(&r).contains("still being built"), "{}", text(&r));
}

#[test]
fn a_search_while_another_process_writes_says_it_may_be_stale() {
    let env = vault();
    crate::util::assert_ok(&env.run(&["index"]));
    let _lock = hold_writer_lock(&env);
    env.write(
        "Dev/rust.md",
        "# Rust\n\nCargo builds crates, and a stale one.\n",
    );
    let mut s = Session::ready(&env, &[]);
    let r = s.call("search_notes", json!({"query": "stale", "source": "local"}));
    let answer = structured(&r);
    assert!(answer.stale, "{r}");
    assert!(text(&r).contains("may be stale"), "{}", text(&r));
    assert_eq!(answer.results[0].path, "Dev/kotlin.md");
}

#[test]
fn print_config_names_this_binary() {
    let env = vault();
    let bin = std::fs::canonicalize(env!("CARGO_BIN_EXE_vault-search")).unwrap();
    // On Windows the plain spelling (`C:\…`), as the binary names itself.
    let bin = bin.display().to_string().replacen(r"\\?\", "", 1);
    for client in ["claude-desktop", "cursor"] {
        let out = env.run(&["mcp", "--print-config", client]);
        crate::util::assert_ok(&out);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let server = &v["mcpServers"]["vault-search"];
        assert_eq!(server["command"], bin.as_str());
        assert_eq!(server["args"][0], "mcp");
        assert_eq!(server["args"][2], env.vault.display().to_string());
    }
    let codex = crate::util::stdout(&env.run(&["mcp", "--print-config", "codex"]));
    assert!(codex.starts_with("[mcp_servers.vault-search]\n"), "{codex}");
    // A TOML string: `\` escaped, as on Windows.
    let toml_bin = Value::from(bin.as_str()).to_string();
    assert!(codex.contains(&format!("command = {toml_bin}")), "{codex}");
    let claude = crate::util::stdout(&env.run(&["mcp", "--print-config", "claude-code"]));
    assert!(claude.starts_with("claude mcp add"), "{claude}");
    // A shell command line: `/` separators on Windows too.
    assert!(claude.contains(&bin.replace('\\', "/")), "{claude}");
    let bad = env.run(&["mcp", "--print-config", "vim"]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn search_notes_takes_the_filters() {
    let env = vault();
    let mut s = Session::ready(&env, &[]);
    let r = s.call(
        "search_notes",
        json!({"query": "gradle daemon", "source": "local", "tags": ["#build"]}),
    );
    let answer = structured(&r);
    let paths: Vec<&str> = answer.results.iter().map(|h| h.path.as_str()).collect();
    assert_eq!(paths, vec!["Dev/kotlin.md"], "{r}");
    // No words, a filter: the matching notes, newest first.
    let r = s.call(
        "search_notes",
        json!({"query": "", "source": "local", "since": "7d"}),
    );
    assert_eq!(structured(&r).results.len(), 3, "{r}");
    let r = s.call(
        "search_notes",
        json!({"query": "gradle", "source": "local", "where": ["tags=build"], "sort": "modified"}),
    );
    assert_eq!(structured(&r).results.len(), 1, "{r}");
    let r = s.call(
        "search_notes",
        json!({"query": "gradle", "source": "local", "since": "last tuesday"}),
    );
    assert_eq!(r["isError"], true, "{r}");
    assert_eq!(s.finish(), Some(0));
}

#[test]
fn read_note_shows_the_links_and_related_notes_ranks_them() {
    let env = vault();
    env.write(
        "Meta/todo.md",
        "# Todo\n\nfix the gradle daemon, see [[kotlin]] and [[Missing]]\n",
    );
    let mut s = Session::ready(&env, &[]);
    // The links come from the index, which the first search waits for.
    assert!(!is_error(
        &s.call("search_notes", json!({"query": "gradle"}))
    ));

    // After the note's lines: where it links and what links to it.
    let t = text(&s.call("read_note", json!({"path": "Dev/kotlin.md"})));
    assert!(
        t.contains("\nlinks out (0): -\nlinks in (1): Meta/todo.md\n"),
        "{t}"
    );
    let t = text(&s.call("read_note", json!({"path": "Meta/todo.md", "line": 3})));
    assert!(
        t.contains("links out (2): Dev/kotlin.md; unresolved: Missing\nlinks in (0): -"),
        "{t}"
    );
    let t = text(&s.call("read_note", json!({"path": "Meta/todo.md", "links": false})));
    assert!(
        !t.contains("links out") && t.contains("fix the gradle"),
        "{t}"
    );

    let r = s.call(
        "related_notes",
        json!({"path": "Dev/kotlin.md", "limit": 5}),
    );
    assert!(!is_error(&r), "{r}");
    let rel: RelatedResponse = serde_json::from_value(r["structuredContent"].clone()).unwrap();
    assert_eq!(rel.note, "Dev/kotlin.md");
    assert_eq!(rel.results[0].path, "Meta/todo.md");
    assert!(
        rel.results[0].reasons.contains(&"links here".to_string()),
        "{rel:?}"
    );
    assert!(rel.results.iter().all(|h| h.path != "Dev/kotlin.md"));
    assert!(rel.results.len() <= 5);
    assert!(text(&r).contains("Meta/todo.md — links here"), "{r}");

    for (args, says) in [
        (
            json!({"path": "Dev/kotlin.md", "limit": 0}),
            "limit must be 1-50",
        ),
        (
            json!({"path": "Dev/kotlin.md", "limit": 51}),
            "limit must be 1-50",
        ),
        (json!({"path": "Nowhere.md"}), "no file `Nowhere.md`"),
        (json!({"path": "Dev/kotlin.md", "n": 3}), "`n`"),
        (
            json!({"path": "x".repeat(5000)}),
            "path is at most 4096 bytes",
        ),
    ] {
        let r = s.call("related_notes", args.clone());
        assert!(is_error(&r) && text(&r).contains(says), "{args}: {r}");
    }

    // The overview counts the links, the broken ones and the notes no link touches.
    let r = s.call("vault_overview", json!({}));
    let links = &r["structuredContent"]["links"];
    assert_eq!(
        *links,
        json!({"links": 2, "broken": 1, "orphans": 1}),
        "{r}"
    );
    assert!(text(&r).contains("links: 2 (1 broken), orphans (no link in or out): 1"));
    assert_eq!(s.finish(), Some(0));
}

#[test]
fn search_notes_takes_the_link_filters_and_counts_links() {
    let env = vault();
    env.write(
        "Meta/index.md",
        "# Index\n\n[[kotlin]] and [[Dev/rust|Rust]]\n",
    );
    let mut s = Session::ready(&env, &[]);
    let paths = |r: &Value| -> Vec<String> {
        let mut p: Vec<String> = structured(r).results.into_iter().map(|h| h.path).collect();
        p.sort();
        p
    };
    let r = s.call("search_notes", json!({"links_to": "Dev/kotlin.md"}));
    assert!(!is_error(&r), "{r}");
    assert_eq!(paths(&r), ["Meta/index.md"], "{r}");
    assert_eq!(structured(&r).results[0].links_in, Some(0));
    let r = s.call(
        "search_notes",
        json!({"query": "gradle", "linked_from": "index", "source": "local"}),
    );
    assert_eq!(paths(&r), ["Dev/kotlin.md"], "{r}");
    assert_eq!(structured(&r).results[0].links_in, Some(1));
    let r = s.call("search_notes", json!({"links_to": "nowhere"}));
    assert!(is_error(&r), "{r}");
    assert!(text(&r).contains("no file `nowhere`"), "{r}");
    assert_eq!(s.finish(), Some(0));
}
