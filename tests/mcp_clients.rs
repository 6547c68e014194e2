//! `vault-search mcp` as clients the project did not write speak to it (the MCP Inspector,
//! the TypeScript SDK, fastmcp, raw JSON-RPC): the protocol's exact codes, the tool arguments
//! an agent sends, and a process that stays small whatever the client sends.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::mcp::{is_error, structured, text, vault, Session, DEADLINE};

fn error_code(r: &Value) -> i64 {
    r["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("no error: {r}"))
}

#[test]
fn malformed_requests_get_their_own_codes() {
    let env = vault();
    let mut s = Session::ready(&env, &[]);
    for (id, params) in [
        (101, None),
        (102, Some(json!({"arguments": {}}))),
        (
            103,
            Some(json!({"name": "read_note", "arguments": "Dev/rust.md"})),
        ),
    ] {
        let mut msg = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call"});
        if let Some(p) = params {
            msg["params"] = p;
        }
        s.send_raw(&msg.to_string());
        let r = s.response(id);
        assert_eq!(error_code(&r), -32602, "{r}");
    }
    // Valid JSON syntax, invalid UTF-8 inside a string.
    s.send_bytes(
        b"{\"jsonrpc\":\"2.0\",\"id\":104,\"method\":\"ping\",\"params\":{\"x\":\"\xff\xfe\"}}",
    );
    let r = s.wait_for(|m| m.get("error").is_some() && m["id"].is_null());
    assert_eq!(error_code(&r), -32700, "{r}");
    // Nested 128 deep: past serde's recursion limit, still answered.
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":105,"method":"ping","params":{{"a":{}{}}}}}"#,
        "[".repeat(128),
        "]".repeat(128)
    );
    s.send_raw(&deep);
    let r = s.wait_for(|m| m.get("error").is_some() && m["id"].is_null());
    assert_eq!(error_code(&r), -32700, "{r}");
    // The tool list is one page: a cursor names none of it.
    let r = s.request("tools/list", json!({"cursor": "page-2"}));
    assert_eq!(error_code(&r), -32602, "{r}");
    // A method MCP doesn't have: its own code, and a message that says so.
    let r = s.request("notes/delete", json!({}));
    assert_eq!(error_code(&r), -32601, "{r}");
    let m = r["error"]["message"].as_str().unwrap_or_default();
    assert!(m.contains("not found") && m.contains("notes/delete"), "{r}");
    // Not a message at all.
    s.send_raw("42");
    let r = s.wait_for(|m| m.get("error").is_some() && m["id"].is_null());
    assert_eq!(error_code(&r), -32600, "{r}");
    assert_eq!(s.finish(), Some(0));
}

#[test]
fn ping_is_answered_whatever_came_before() {
    let env = vault();
    let mut s = Session::start(&env, &[]);
    assert!(s.request("ping", json!({})).get("result").is_some());
    // A request carrying the inline (2026) protocol metadata, then a plain ping.
    let meta = json!({"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "x", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}}});
    let list = s.request("tools/list", meta);
    assert!(list.get("result").is_some(), "{list}");
    let r = s.request("ping", json!({}));
    assert_eq!(r["result"], json!({}), "{r}");
    let id = 900;
    s.send_raw(&format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#));
    assert!(s.response(id).get("result").is_some());
}

/// The next line that is a JSON array (a batch's answer), or the first error.
fn next_array(s: &mut Session) -> Value {
    let deadline = Instant::now() + DEADLINE;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = s.lines.recv_timeout(left).expect("no answer to the batch");
        let v: Value = serde_json::from_str(&line).unwrap();
        if v.is_array() || v.get("error").is_some() {
            return v;
        }
    }
}

#[test]
fn a_batch_is_answered_member_by_member_only_under_2025_03_26() {
    let env = vault();
    let batch = r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":"two","method":"tools/list"},{"jsonrpc":"2.0","method":"notifications/progress","params":{}}]"#;
    let mut s = Session::ready_at(&env, &[], "2025-03-26");
    s.send_raw(batch);
    let answers = next_array(&mut s);
    let answers = answers.as_array().unwrap_or_else(|| panic!("{answers}"));
    let mut ids: Vec<String> = answers.iter().map(|a| a["id"].to_string()).collect();
    ids.sort();
    assert_eq!(ids, ["\"two\"", "1"], "{answers:?}");
    let list = answers.iter().find(|a| a["id"] == "two").unwrap();
    assert!(list["result"]["tools"].is_array(), "{list}");
    // Still serving one message at a time.
    let r = s.call("read_note", json!({"path": "Dev/rust.md"}));
    assert!(text(&r).contains("Cargo builds crates."));

    let mut s = Session::ready(&env, &[]);
    s.send_raw(batch);
    let r = next_array(&mut s);
    assert_eq!(error_code(&r), -32600, "{r}");
}

fn walk_schema(v: &Value, f: &mut impl FnMut(&serde_json::Map<String, Value>)) {
    match v {
        Value::Object(m) => {
            f(m);
            m.values().for_each(|v| walk_schema(v, f));
        }
        Value::Array(a) => a.iter().for_each(|v| walk_schema(v, f)),
        _ => {}
    }
}

#[test]
fn tool_schemas_suit_strict_validators_and_the_server() {
    let env = vault();
    let mut s = Session::ready(&env, &[]);
    let list = s.request("tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().unwrap();
    for t in tools {
        assert!(t["title"].is_string(), "{t}");
        walk_schema(&t["inputSchema"], &mut |m| {
            assert!(!m.contains_key("format"), "a format in {t}");
        });
    }
    let read = tools.iter().find(|t| t["name"] == "read_note").unwrap();
    for arg in ["line", "from_line", "max_lines"] {
        assert_eq!(
            read["inputSchema"]["properties"][arg]["minimum"], 1,
            "{arg}"
        );
    }
    assert!(read["inputSchema"]["properties"]["include_ignored"].is_object());
    // Arguments of the wrong kind: plain words, no Rust type names.
    let r = s.call("search_notes", json!({"query": "x", "limit": "a"}));
    assert!(is_error(&r));
    let t = text(&r);
    assert!(t.contains("limit must be a whole number"), "{t}");
    assert!(!t.contains("u16") && !t.contains("u64"), "{t}");
    // An argument the tool doesn't have: refused, naming the ones it has.
    let r = s.call("search_notes", json!({"query": "x", "max_results": 3}));
    assert!(is_error(&r), "{r}");
    let t = text(&r);
    assert!(t.contains("max_results") && t.contains("limit"), "{t}");
    let r = s.call("read_note", json!({"note": "Dev/rust.md"}));
    assert!(is_error(&r), "{r}");
    assert!(text(&r).contains("`path`"), "{r}");
    let r = s.call("read_note", json!({"path": "Dev/rust.md", "line": -1}));
    assert!(text(&r).contains("line must be a whole number"), "{r}");
    let r = s.call("read_note", json!({"path": "Dev/rust.md", "line": 999_999}));
    assert!(is_error(&r));
    assert!(text(&r).contains("nothing at line 999999"), "{}", text(&r));
}

#[test]
fn a_huge_query_is_cut_and_answered_at_once() {
    let env = vault();
    let mut s = Session::ready(&env, &[]);
    // One word of a megabyte: not echoed back in full.
    let r = s.request(
        "tools/call",
        json!({"name": "search_notes", "arguments": {"query": "x".repeat(1 << 20), "source": "local"}}),
    );
    let size = r.to_string().len();
    assert!(size < 32 * 1024, "the answer is {size} bytes");
    // Half a million words: only the first few hundred count, and the answer says so.
    let words: Vec<String> = (0..500_000).map(|i| format!("w{}", i % 5000)).collect();
    let started = Instant::now();
    let r = s.call(
        "search_notes",
        json!({"query": format!("gradle {}", words.join(" ")), "source": "local"}),
    );
    assert!(
        started.elapsed() < Duration::from_secs(50),
        "{:?}",
        started.elapsed()
    );
    let answer = structured(&r);
    assert!(
        answer
            .warnings
            .iter()
            .any(|w| w.contains("at most 256 words")),
        "{:?}",
        answer.warnings
    );
    assert!(text(&r).contains("at most 256 words"), "{}", text(&r));
}

#[test]
fn search_notes_lists_without_words_and_names_missing_folders_and_tags() {
    let env = vault();
    env.write(
        "Dev/commented.md",
        "# Notes\n\nthe zeppelin hangar <!-- draft: check the numbers --> opens at nine\n",
    );
    let mut s = Session::ready(&env, &[]);
    for args in [
        json!({"query": "", "sort": "modified", "source": "local"}),
        json!({"sort": "modified"}),
    ] {
        let r = s.call("search_notes", args.clone());
        assert!(!is_error(&r), "{args}: {r}");
        assert_eq!(structured(&r).results.len(), 4, "{args}: {r}");
    }
    let r = s.call("search_notes", json!({"folder": "Meta"}));
    let paths: Vec<String> = structured(&r).results.into_iter().map(|h| h.path).collect();
    assert_eq!(paths, ["Meta/todo.md"]);
    // A folder or tag the vault lacks: an error naming the closest that exist.
    let r = s.call(
        "search_notes",
        json!({"query": "gradle", "folder": "Deev", "source": "local"}),
    );
    assert!(is_error(&r), "{r}");
    assert!(
        text(&r).contains("no folder \"Deev\"") && text(&r).contains("\"Dev\""),
        "{}",
        text(&r)
    );
    let r = s.call(
        "search_notes",
        json!({"query": "gradle", "tags": ["biuld"], "source": "local"}),
    );
    assert!(is_error(&r), "{r}");
    assert!(text(&r).contains("closest: \"build\""), "{}", text(&r));
    // Excerpts leave out what Obsidian does not show.
    let r = s.call(
        "search_notes",
        json!({"query": "zeppelin hangar", "source": "local"}),
    );
    let hit = &structured(&r).results[0];
    assert!(
        !hit.excerpt.contains("<!--") && !hit.excerpt.contains("draft"),
        "{}",
        hit.excerpt
    );
    assert!(!text(&r).contains("draft"), "{}", text(&r));
}

#[test]
fn read_note_shows_only_what_search_shows() {
    let env = vault();
    env.write(".obsidian/workspace.md", "# private\n");
    env.write(".git/notes.md", "# private\n");
    env.write(
        ".obsidian/app.json",
        r#"{"userIgnoreFilters": ["Archive/"]}"#,
    );
    env.write("Archive/old.md", "# Old\n\nan archived note\n");
    let mut s = Session::ready(&env, &[]);
    for path in [
        ".obsidian/workspace.md",
        ".git/notes.md",
        "Dev/../.git/notes.md",
    ] {
        let r = s.call("read_note", json!({"path": path}));
        assert!(is_error(&r), "{path}: {r}");
        assert!(!text(&r).contains("private"), "{path}: {r}");
    }
    let r = s.call("read_note", json!({"path": "Archive/old.md"}));
    assert!(is_error(&r) && text(&r).contains("include_ignored"), "{r}");
    let r = s.call(
        "read_note",
        json!({"path": "Archive/old.md", "include_ignored": true}),
    );
    assert!(text(&r).contains("an archived note"), "{r}");
}

#[cfg(target_os = "linux")]
fn proc_status(pid: u32, key: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

#[cfg(target_os = "linux")]
#[test]
fn a_pipelined_backlog_keeps_threads_and_memory_bounded() {
    let env = vault();
    let mut s = Session::ready(&env, &[]);
    s.call(
        "search_notes",
        json!({"query": "gradle", "source": "local"}),
    );
    let pid = s.child.id();
    let n = 2000;
    let mut batch = String::new();
    for i in 0..n {
        let msg = json!({"jsonrpc": "2.0", "id": 10_000 + i, "method": "tools/call",
                         "params": {"name": "search_notes",
                                    "arguments": {"query": "gradle daemon", "source": "local"}}});
        batch.push_str(&msg.to_string());
        batch.push('\n');
    }
    // Written on a thread: the server reads only as fast as it answers.
    let mut stdin = s.stdin_for_test();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        stdin.write_all(batch.as_bytes()).unwrap();
        stdin
    });
    let (mut threads, mut rss_kb) = (0, 0);
    for i in 0..n {
        let r = s.response(10_000 + i);
        assert!(r.get("result").is_some(), "{r}");
        if i % 100 == 0 {
            threads = threads.max(proc_status(pid, "Threads:"));
            rss_kb = rss_kb.max(proc_status(pid, "VmRSS:"));
        }
    }
    s.give_back_stdin(writer.join().unwrap());
    assert!(threads <= 40, "{threads} threads");
    assert!(rss_kb < 400 * 1024, "{rss_kb} kB resident");
    assert_eq!(s.finish(), Some(0));
}

#[test]
fn vault_overview_lists_the_largest_names_with_totals() {
    let env = vault();
    env.write(
        "Meta/plan.md",
        "---\nstatus: open\ntags: [build, plan]\n---\n# Plan\n",
    );
    let mut s = Session::ready(&env, &[]);
    let r = s.call("vault_overview", json!({}));
    assert!(!is_error(&r), "{r}");
    let o = &r["structuredContent"];
    assert_eq!(o["notes"], 4, "{o}");
    assert!(o["last_change"].is_string(), "{o}");
    assert_eq!(o["folders"]["total"], 2, "{o}");
    assert_eq!(
        o["folders"]["top"][0],
        json!({"name": "Dev", "notes": 2}),
        "{o}"
    );
    assert_eq!(
        o["tags"]["top"][0],
        json!({"name": "build", "notes": 2}),
        "{o}"
    );
    let keys: Vec<&str> = o["frontmatter_keys"]["top"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["name"].as_str().unwrap())
        .collect();
    assert!(keys.contains(&"status"), "{o}");
    let t = text(&r);
    assert!(t.starts_with("4 notes, last change "), "{t}");
    assert!(
        t.contains("folders (2 of 2, notes each): Dev 2, Meta 2"),
        "{t}"
    );
}

#[test]
fn read_note_reads_several_notes_under_one_budget() {
    let env = vault();
    let big: String = (1..=300)
        .map(|i| format!("{i:04} {}\n", "x".repeat(200)))
        .collect();
    env.write("big1.md", &big);
    env.write("big2.md", &big);
    let mut s = Session::ready(&env, &[]);
    let r = s.call(
        "read_note",
        json!({"paths": ["Dev/rust.md", "Meta/missing.md", "Meta/todo.md"]}),
    );
    assert!(!is_error(&r), "{r}");
    let t = text(&r);
    assert!(
        t.contains("Cargo builds crates.") && t.contains("fix the gradle daemon"),
        "{t}"
    );
    assert!(t.contains("Meta/missing.md: no note"), "{t}");
    // Two notes of 60 KB each: together they are cut at 64 KB, the rest is named.
    let r = s.call(
        "read_note",
        json!({"paths": ["big1.md", "big2.md", "Dev/rust.md"]}),
    );
    let t = text(&r);
    assert!(t.len() < 70 * 1024, "{} bytes", t.len());
    assert!(
        t.contains("big2.md") && t.contains("Dev/rust.md: not read"),
        "{t}"
    );
    let r = s.call(
        "read_note",
        json!({"path": "Dev/rust.md", "paths": ["Meta/todo.md"]}),
    );
    assert!(is_error(&r), "{r}");
}

#[test]
fn a_search_waiting_for_the_first_build_reports_progress() {
    let env = vault();
    for i in 0..3000 {
        env.write(
            &format!("bulk/d{}/n{i}.md", i % 10),
            &format!("# Note {i}\n\nfiller words for note {i} about the gradle daemon\n"),
        );
    }
    let mut s = Session::ready(&env, &["--index-wait", "120"]);
    let id = s.send(
        "tools/call",
        json!({"name": "search_notes", "_meta": {"progressToken": "build-1"},
               "arguments": {"query": "stale daemon", "source": "local"}}),
    );
    let r = s.response(id);
    assert!(r.get("result").is_some(), "{r}");
    let progress: Vec<f64> = s
        .backlog
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .map(|m| {
            assert_eq!(m["params"]["progressToken"], "build-1", "{m}");
            m["params"]["progress"].as_f64().unwrap()
        })
        .collect();
    assert!(!progress.is_empty(), "no progress notification");
    assert!(progress.windows(2).all(|w| w[1] > w[0]), "{progress:?}");
}
