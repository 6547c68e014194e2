//! Names, replies and protocol edges: another vault of the same name behind Omnisearch, control
//! characters in what is printed or returned, names that are not UTF-8, big MCP arguments, the
//! words of an argument error, and global flags given before a subcommand.

use crate::omnisearch::search;
use crate::util::{omni_hit, Env, MockServer, Reply};
use serde_json::json;

/// Two vaults named `vault`: Obsidian answers for the other one. Its hits name a note this
/// vault also has (with other text) and notes this vault lacks: the reply is refused and this
/// vault's own note is found locally.
#[test]
fn another_vault_of_the_same_name_is_not_taken_for_this_one() {
    let env = Env::new();
    env.write("Daily/2024-01-01.md", "Standup: the design review moved.\n");
    env.write("design.md", "# Design system\nTokens and spacing.\n");
    let body = json!([
        omni_hit(
            9.0,
            "Daily/2024-01-01.md",
            "Dentist at three, then the design of the garden",
            None
        ),
        omni_hit(
            8.0,
            "Home/garden design.md",
            "Raised beds: a design in cedar",
            None
        ),
        omni_hit(7.0, "Home/kitchen.md", "A design for the shelves", None),
    ]);
    let server = MockServer::start(Reply::Json(body.to_string()));
    let r = search(&env, server.port, &["design"]);
    assert_eq!(r.engine, "local", "{:?}", r.results);
    let why = r.fallback_reason.unwrap_or_default();
    assert!(why.contains("another vault named vault"), "{why}");
    assert!(r.results.iter().any(|h| h.path == "design.md"));
    assert!(
        r.results.iter().all(|h| !h.excerpt.contains("Dentist")),
        "no excerpt of the other vault is shown"
    );
    let r = search(&env, server.port, &["--source", "omnisearch", "design"]);
    assert_eq!(r.engine, "omnisearch (offline)");
    assert!(r.results.is_empty());
    assert!(r.error.unwrap_or_default().contains("another vault"));
}

/// An honest reply whose top note was edited after the plugin indexed it (its excerpt no
/// longer in the file) is still taken: the other hits check out, also with `-n 1`, where only
/// the first is shown.
#[test]
fn a_note_edited_since_the_plugin_indexed_it_does_not_refuse_the_reply() {
    let env = Env::new();
    env.write("a.md", "Rewritten since: design tokens.\n");
    env.write("b.md", "line one\n\nThe design &amp; <b>spacing</b> café\n");
    env.write("c.md", "Design reviews happen on Fridays.\n");
    let body = json!([
        omni_hit(9.0, "a.md", "The old text about design", None),
        omni_hit(
            8.0,
            "b.md",
            "…line one<br>The design &amp;amp; &lt;b&gt;spacing&lt;/b&gt; cafe\u{301}",
            None
        ),
        omni_hit(7.0, "c.md", "Design reviews happen on Fridays.", None),
    ]);
    let server = MockServer::start(Reply::Json(body.to_string()));
    for n in ["1", "10"] {
        let r = search(&env, server.port, &["-n", n, "design"]);
        assert_eq!(r.engine, "omnisearch", "-n {n}: {:?}", r.fallback_reason);
        assert_eq!(r.results[0].path, "a.md");
    }
}

/// An argument that doesn't fit the schema: the error says what is wrong in serde's words,
/// without rmcp's "failed to deserialize parameters:" before them.
#[test]
fn a_malformed_argument_is_said_in_plain_words() {
    let env = crate::mcp::vault();
    let mut s = crate::mcp::Session::ready(&env, &[]);
    for (tool, args, why) in [
        ("search_notes", json!({"query": 3}), "expected a string"),
        (
            "search_notes",
            json!({"query": "x", "source": "web"}),
            "`web`",
        ),
        (
            "search_notes",
            json!({"query": "x", "limit": "many"}),
            "many",
        ),
        ("read_note", json!({"path": ["a.md"]}), "expected a string"),
    ] {
        let r = s.call(tool, args.clone());
        assert!(crate::mcp::is_error(&r), "{args}: {r}");
        let text = crate::mcp::text(&r);
        assert!(text.contains(why), "{args}: {text}");
        assert!(!text.contains("deserialize"), "{args}: {text}");
    }
}

/// `--port P status`: the port before the subcommand is the one `status` asks; a search flag
/// that means nothing to the subcommand is refused with where it goes, never ignored.
#[test]
fn a_search_flag_before_a_subcommand_is_honoured_or_refused() {
    let env = Env::new();
    env.write("note.md", "x\n");
    let server = MockServer::start(Reply::Json("[]".into()));
    let p = server.port.to_string();
    for args in [
        vec!["--port", p.as_str(), "status", "--json"],
        vec![
            "--port",
            p.as_str(),
            "status",
            "--json",
            "--port",
            p.as_str(),
        ],
    ] {
        let out = env.run(&args);
        crate::util::assert_ok(&out);
        let st: vault_search::Status = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(st.omnisearch_port, server.port, "{args:?}");
        assert!(st.omnisearch_answers, "{args:?}: {:?}", st.omnisearch_error);
    }
    for (args, why) in [
        (
            vec!["--port", "1", "status", "--port", "2"],
            "--port 1 before `status`",
        ),
        (vec!["--port", "1", "index"], "--port"),
        (vec!["-n", "3", "index"], "-n/--limit"),
        (
            vec!["--folder", "a", "search", "x"],
            "--folder goes after `search`",
        ),
        (vec!["--source", "local", "status"], "--source"),
    ] {
        let out = env.run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = crate::util::stderr(&out);
        assert!(
            err.starts_with("vault-search: ") && err.contains(why),
            "{args:?}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}

/// One HTTP GET: (status, body).
#[cfg(unix)]
fn get(port: u16, path: &str, headers: &[(&str, &str)]) -> (u16, String) {
    let (status, _, body) = crate::serve::request(port, &format!("GET {path} HTTP/1.1"), headers);
    (status, body)
}

/// No raw control, C1 or bidi character in text that is shown or sent as JSON.
#[cfg(unix)]
fn assert_no_raw_controls(what: &str, text: &str) {
    let bad = |c: char| {
        (c.is_control() && c != '\n')
            || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    assert!(!text.chars().any(bad), "{what}: {text:?}");
}

/// A vault and a note whose names hold a newline, a C1 CSI (U+009B) and a right-to-left
/// override, and a browser's `Origin` forging a log line: printed as text they are escaped
/// (one line per hit, one line per log entry), in JSON they are `\u` escapes whose value is
/// the name itself.
#[cfg(unix)]
#[test]
fn controls_in_names_origins_and_paths_are_escaped() {
    use crate::util::{assert_ok, stdout};
    let mut env = Env::new();
    env.vault = env.root.path().join("va\nult\u{202e}");
    let odd = "a\nb\u{9b}31m\u{202e}.md";
    env.write(odd, "kotlin daemon notes\n");
    env.write("plain.md", "kotlin daemon\n");

    // --json: the bytes are safe, the value is the name.
    let out = env.run(&["--json", "--source", "local", "kotlin"]);
    assert_ok(&out);
    let raw = stdout(&out);
    assert_no_raw_controls("--json", &raw);
    let r: vault_search::SearchResponse = serde_json::from_str(&raw).unwrap();
    assert!(r.results.iter().any(|h| h.path == odd), "{raw}");

    // Text: one line per hit, the name escaped.
    let out = env.run(&["--source", "local", "kotlin"]);
    assert_ok(&out);
    let text = stdout(&out);
    assert_no_raw_controls("text", &text);
    assert_eq!(
        text.lines().filter(|l| l.contains(". [")).count(),
        2,
        "{text}"
    );
    assert!(text.contains(r"a\nb\u{9b}31m\u{202e}.md"), "{text}");
    assert!(
        text.lines().next().unwrap().contains(r"va\nult\u{202e}"),
        "{text}"
    );

    // MCP: the text has one line per hit (and its passage, indented); the structured content
    // has the name.
    let mut s = crate::mcp::Session::ready(&env, &[]);
    let id = s.send(
        "tools/call",
        json!({"name": "search_notes", "arguments": {"query": "kotlin", "source": "local"}}),
    );
    let line = loop {
        let line = s
            .lines
            .recv_timeout(crate::mcp::DEADLINE)
            .expect("an answer");
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        if v["id"] == id {
            break line;
        }
    };
    assert_no_raw_controls("MCP line", &line);
    let v: serde_json::Value = serde_json::from_str(&line).unwrap();
    let text = crate::mcp::text(&v["result"]);
    assert_no_raw_controls("MCP text", &text);
    // A hit's passage lines are indented under its line.
    assert_eq!(
        text.lines().filter(|l| !l.starts_with("  ")).count(),
        3,
        "a header and one line per hit: {text}"
    );
    let r = crate::mcp::structured(&v["result"]);
    assert!(r.results.iter().any(|h| h.path == odd));
    drop(s);

    // serve: the start line and a refused Origin's log line are escaped, its JSON is safe.
    let (_child, rx) = crate::util::spawn_serve(&env, &[]);
    let next = || {
        rx.recv_timeout(std::time::Duration::from_secs(30))
            .expect("a line from serve")
    };
    let start = loop {
        let line = next();
        if line.contains("http://127.0.0.1:") {
            break line;
        }
    };
    assert_no_raw_controls("start line", &start);
    assert!(start.contains(r"va\nult\u{202e}"), "{start}");
    let port: u16 = start
        .split("http://127.0.0.1:")
        .nth(1)
        .unwrap()
        .split('/')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let origin = "https://a.example\nvault-search: stopped\u{1b}]0;owned\u{7}\u{9b}2J";
    let (status, body) = get(port, "/search?q=kotlin", &[("Origin", origin)]);
    assert_eq!(status, 403);
    assert_no_raw_controls("403 body", &body);
    let logged = loop {
        let line = next();
        assert_ne!(line, "vault-search: stopped", "a forged log line");
        if line.contains("refused a browser request") {
            break line;
        }
    };
    assert_no_raw_controls("log line", &logged);
    assert!(
        logged.contains(r"https://a.example\nvault-search: stopped\u{1b}"),
        "{logged}"
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let body = loop {
        let (status, body) = get(port, "/api/search?q=kotlin", &[]);
        assert_eq!(status, 200);
        let r: vault_search::SearchResponse = serde_json::from_str(&body).unwrap();
        if r.results.len() == 2 || std::time::Instant::now() > deadline {
            break body;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert_no_raw_controls("/api/search", &body);
    let r: vault_search::SearchResponse = serde_json::from_str(&body).unwrap();
    assert!(r.results.iter().any(|h| h.path == odd), "{body}");
}

/// Every list and text argument of the MCP tools has a cap: a call over it is refused in plain
/// words before its arguments are parsed into a tree (its memory stays flat; measured by hand),
/// and the server goes on serving.
#[test]
fn mcp_arguments_over_their_caps_are_refused() {
    let env = crate::mcp::vault();
    let mut s = crate::mcp::Session::ready(&env, &[]);
    let many = |n: usize| vec!["a"; n];
    for (tool, args, why) in [
        // A big message, judged before it is parsed.
        (
            "search_notes",
            json!({"query": "x", "exclude": many(200_000)}),
            "exclude takes at most 64 items, not 200000",
        ),
        (
            "read_note",
            json!({"paths": many(100_000)}),
            "paths takes at most 20 items, not 100000",
        ),
        // Small ones.
        (
            "search_notes",
            json!({"query": "x", "tags": many(65)}),
            "tags takes at most 64 items, not 65",
        ),
        (
            "search_notes",
            json!({"query": "x", "where": many(65)}),
            "where takes at most 64 items",
        ),
        (
            "search_notes",
            json!({"query": "x", "folder": "f".repeat(5000)}),
            "folder is at most 4096 bytes, not 5000",
        ),
        (
            "search_notes",
            json!({"query": "x", "since": "7".repeat(100)}),
            "since is at most 64 bytes",
        ),
        (
            "read_note",
            json!({"path": format!("{}.md", "p".repeat(5000))}),
            "path is at most 4096 bytes",
        ),
    ] {
        let r = s.call(tool, args);
        assert!(crate::mcp::is_error(&r), "{why}: {r}");
        let text = crate::mcp::text(&r);
        assert!(text.contains(why), "{text}");
    }
    let r = s.call(
        "search_notes",
        json!({"query": "kotlin", "exclude": many(64)}),
    );
    assert!(!crate::mcp::is_error(&r), "{r}");
}

/// Writes `content` to the vault file whose path is `name`'s bytes (creating folders).
#[cfg(target_os = "linux")]
fn write_raw(env: &Env, name: &[u8], content: &str) -> std::path::PathBuf {
    use std::os::unix::ffi::OsStrExt;
    let p = env.vault.join(std::ffi::OsStr::from_bytes(name));
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, content).unwrap();
    p
}

/// Names that are not UTF-8 (a Latin-1 note, a Latin-1 folder, a lone byte 0x80) and a name
/// holding U+EF80 itself: each is listed under a spelling of its own (a bad byte `b` as
/// U+EF00+`b`, the three bytes of a literal U+EF80 likewise), which `--json` writes as the
/// characters themselves, and `read_note` opens exactly that note by the path search gave.
#[cfg(target_os = "linux")]
#[test]
fn names_that_are_not_utf8_are_listed_in_a_spelling_read_note_opens() {
    use crate::util::{assert_ok, stdout};
    let env = crate::mcp::vault();
    let notes: [(&[u8], &str, &str); 4] = [
        (b"caf\xe9 kotlin.md", "caf\u{efe9} kotlin.md", "latin one"),
        (b"d\xfcr/inner.md", "d\u{effc}r/inner.md", "latin folder"),
        (b"\x80.md", "\u{ef80}.md", "lone byte"),
        (
            "\u{ef80}.md".as_bytes(),
            "\u{efee}\u{efbe}\u{ef80}.md",
            "literal escape",
        ),
    ];
    for (name, _, words) in notes {
        write_raw(&env, name, &format!("zephyr {words}\n"));
    }
    let mut want: Vec<&str> = notes.iter().map(|n| n.1).collect();
    want.sort_unstable();

    let out = env.run(&["--json", "--source", "local", "-n", "20", "zephyr"]);
    assert_ok(&out);
    let raw = stdout(&out);
    let r: vault_search::SearchResponse = serde_json::from_str(&raw).unwrap();
    let mut got: Vec<&str> = r.results.iter().map(|h| h.path.as_str()).collect();
    got.sort_unstable();
    assert_eq!(got, want, "{raw}");
    // The escapes are characters like any other, not controls: written as they are.
    for spelt in &want {
        assert!(raw.contains(&format!("\"{spelt}\"")), "{spelt:?}: {raw}");
    }

    let mut s = crate::mcp::Session::ready(&env, &[]);
    let r = s.call(
        "search_notes",
        json!({"query": "zephyr", "source": "local", "limit": 20}),
    );
    let mut listed: Vec<String> = crate::mcp::structured(&r)
        .results
        .into_iter()
        .map(|h| h.path)
        .collect();
    listed.sort_unstable();
    assert_eq!(listed, want);
    for (_, spelt, words) in notes {
        let r = s.call("read_note", json!({ "path": spelt }));
        assert!(!crate::mcp::is_error(&r), "{spelt:?}: {r}");
        let text = crate::mcp::text(&r);
        assert!(
            text.contains(&format!("1\tzephyr {words}")),
            "{spelt:?}: {text}"
        );
    }
    let r = s.call("read_note", json!({ "paths": want }));
    assert!(!crate::mcp::is_error(&r), "{r}");
    let text = crate::mcp::text(&r);
    for (_, spelt, words) in notes {
        assert!(
            text.contains(&format!("zephyr {words}")),
            "{spelt:?}: {text}"
        );
    }
    assert!(!text.contains("no note"), "{text}");
}

/// A note whose name is not UTF-8, changed and then deleted: `index` updates it under its
/// spelling and then removes it, leaving no second copy and no ghost.
#[cfg(target_os = "linux")]
#[test]
fn a_changed_then_deleted_note_whose_name_is_not_utf8_is_updated_then_removed() {
    let env = Env::new();
    env.write("plain.md", "zephyr plain\n");
    let p = write_raw(&env, b"caf\xe9.md", "zephyr old words\n");
    assert_eq!(env.index_json(&[]).notes, 2);
    assert_eq!(env.local_paths("old"), ["caf\u{efe9}.md"]);
    std::fs::write(&p, "zephyr new words, a longer note\n").unwrap();
    assert_eq!(env.index_json(&[]).notes, 2);
    assert_eq!(env.local_paths("new"), ["caf\u{efe9}.md"]);
    assert!(env.local_paths("old").is_empty());
    std::fs::remove_file(&p).unwrap();
    let r = env.index_json(&[]);
    assert_eq!((r.notes, r.removed), (1, 1));
    assert_eq!(env.local_paths("zephyr"), ["plain.md"]);
}

/// `serve` lists a note whose name is not UTF-8 in its spelling, reads it back for the
/// plugin's matches, and follows its change and deletion through the watcher.
#[cfg(target_os = "linux")]
#[test]
fn serve_reads_back_and_follows_a_note_whose_name_is_not_utf8() {
    #[derive(serde::Deserialize)]
    struct Item {
        path: String,
        matches: Vec<serde_json::Value>,
    }
    let env = Env::new();
    env.write("plain.md", "nothing here\n");
    let p = write_raw(&env, b"caf\xe9.md", "zephyr in latin one\n");
    let (_child, rx) = crate::util::spawn_serve(&env, &[]);
    let port: u16 = loop {
        let line = rx
            .recv_timeout(std::time::Duration::from_secs(30))
            .expect("a line from serve");
        if let Some(rest) = line.split("http://127.0.0.1:").nth(1) {
            break rest.split('/').next().unwrap().parse().unwrap();
        }
    };
    let search = |q: &str| -> Vec<Item> {
        let (status, body) = get(port, &format!("/search?q={q}"), &[]);
        if status != 200 {
            return Vec::new();
        }
        serde_json::from_str(&body).unwrap()
    };
    let until = |what: &str, cond: &dyn Fn() -> bool| {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while !cond() {
            assert!(std::time::Instant::now() < deadline, "never {what}");
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    };
    let only = |q: &str| -> Option<Item> {
        let mut hits = search(q);
        (hits.len() == 1).then(|| hits.remove(0))
    };
    until("listed and read back", &|| {
        only("zephyr").is_some_and(|h| h.path == "caf\u{efe9}.md" && !h.matches.is_empty())
    });
    std::fs::write(&p, "quasar now, a longer note\n").unwrap();
    until("changed", &|| {
        only("quasar").is_some_and(|h| h.path == "caf\u{efe9}.md") && search("zephyr").is_empty()
    });
    std::fs::remove_file(&p).unwrap();
    until("removed", &|| search("quasar").is_empty());
}

/// Omnisearch names a note by its name itself: a name holding U+EF80 (one of the escapes) is
/// read from disk in the index's spelling, and shown in it, so `read_note` opens that hit too.
#[cfg(unix)]
#[test]
fn an_omnisearch_hit_is_shown_in_the_index_spelling() {
    let env = Env::new();
    env.write("\u{ef80} icon.md", "zephyr with an icon\n");
    env.write("plain.md", "zephyr plain\n");
    let body = json!([
        omni_hit(9.0, "\u{ef80} icon.md", "zephyr with an icon", None),
        omni_hit(8.0, "plain.md", "zephyr plain", None),
    ]);
    let server = MockServer::start(Reply::Json(body.to_string()));
    let r = search(&env, server.port, &["zephyr"]);
    assert_eq!(r.engine, "omnisearch", "{:?}", r.fallback_reason);
    let paths: Vec<&str> = r.results.iter().map(|h| h.path.as_str()).collect();
    assert_eq!(paths, ["\u{efee}\u{efbe}\u{ef80} icon.md", "plain.md"]);
    // Read from disk: the time comes from the file.
    assert!(r.results.iter().all(|h| h.modified.is_some()), "{r:?}");
    let mut s = crate::mcp::Session::ready(&env, &[]);
    let r = s.call("read_note", json!({ "path": paths[0] }));
    assert!(!crate::mcp::is_error(&r), "{r}");
    assert!(crate::mcp::text(&r).contains("zephyr with an icon"));
}
