//! `vault-search serve` through the real binary: a server on a temp vault and a free port,
//! changes seen through `/search`, our own Omnisearch client against it, the refusals, and the
//! CLI's switch between "the watcher keeps the index current" and its own walk.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use crate::util::{assert_ok, serve_port, spawn_serve, Env, ServerProcess};
use serde::Deserialize;

/// Generous: CI machines are slow and shared; the poll returns as soon as it holds.
const DEADLINE: Duration = Duration::from_secs(30);

/// One `/search` result in the plugin's shape.
#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct OmniItem {
    score: f64,
    vault: String,
    path: String,
    basename: String,
    #[serde(rename = "foundWords")]
    found_words: Vec<String>,
    matches: Vec<OmniMatch>,
    excerpt: String,
}

#[derive(Debug, Deserialize)]
struct OmniMatch {
    #[serde(rename = "match")]
    text: String,
    offset: usize,
}

#[derive(Debug, Deserialize)]
struct Health {
    caught_up: bool,
    pid: u32,
    notes: u64,
    updates: u64,
}

struct Server {
    child: ServerProcess,
    port: u16,
}

impl Server {
    fn start(env: &Env, extra: &[&str]) -> Server {
        let (child, rx) = spawn_serve(env, extra);
        let port = serve_port(&rx, DEADLINE);
        let server = Server { child, port };
        server.poll("the first index", || {
            server.health().is_some_and(|h| h.caught_up)
        });
        server
    }

    fn get(&self, path: &str, headers: &[(&str, &str)]) -> (u16, String, String) {
        request(self.port, &format!("GET {path} HTTP/1.1"), headers)
    }

    fn health(&self) -> Option<Health> {
        let (status, _, body) = self.get("/health", &[]);
        (status == 200).then(|| serde_json::from_str(&body).unwrap())
    }

    fn search(&self, q: &str) -> Vec<OmniItem> {
        let (status, _, body) = self.get(&format!("/search?q={}", encode(q)), &[]);
        assert_eq!(status, 200, "{body}");
        serde_json::from_str(&body).unwrap()
    }

    fn paths(&self, q: &str) -> Vec<String> {
        let mut p: Vec<String> = self.search(q).into_iter().map(|h| h.path).collect();
        p.sort();
        p
    }

    /// Polls until `cond` holds; panics after [`DEADLINE`].
    fn poll(&self, what: &str, cond: impl Fn() -> bool) {
        let started = Instant::now();
        while !cond() {
            assert!(
                started.elapsed() < DEADLINE,
                "not within {DEADLINE:?}: {what}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn wait_for(&self, q: &str, want: &[&str]) {
        self.poll(&format!("/search?q={q} == {want:?}"), || {
            self.paths(q) == want
        });
    }
}

/// One raw HTTP exchange: (status, head, body).
pub(crate) fn request(port: u16, line: &str, headers: &[(&str, &str)]) -> (u16, String, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(DEADLINE)).unwrap();
    let mut req = format!("{line}\r\n");
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        req.push_str(&format!("Host: 127.0.0.1:{port}\r\n"));
    }
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).unwrap();
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let text = String::from_utf8(raw).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, head.to_string(), body.to_string())
}

/// Percent-encodes a query component (RFC 3986 unreserved characters stay).
fn encode(q: &str) -> String {
    q.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

#[test]
fn changes_show_in_search_within_the_debounce() {
    let env = Env::new();
    env.write("start.md", "placeholder\n");
    let server = Server::start(&env, &[]);

    env.write("a/first.md", "# First\nquokka sighting\n");
    server.wait_for("quokka", &["a/first.md"]);

    env.write("a/first.md", "# First\nwombat sighting\n");
    server.wait_for("wombat", &["a/first.md"]);
    server.wait_for("quokka", &[]);

    std::fs::rename(env.vault.join("a/first.md"), env.vault.join("a/renamed.md")).unwrap();
    server.wait_for("wombat", &["a/renamed.md"]);

    std::fs::create_dir_all(env.vault.join("b")).unwrap();
    std::fs::rename(env.vault.join("a"), env.vault.join("b/moved")).unwrap();
    server.wait_for("wombat", &["b/moved/renamed.md"]);

    env.write("b/moved/deep/new.md", "wombat burrow\n");
    server.wait_for("wombat", &["b/moved/deep/new.md", "b/moved/renamed.md"]);

    env.write(
        ".obsidian/app.json",
        r#"{"userIgnoreFilters": ["b/moved/deep/"]}"#,
    );
    server.wait_for("wombat", &["b/moved/renamed.md"]);

    env.remove("b/moved/renamed.md");
    server.wait_for("wombat", &[]);

    std::fs::remove_dir_all(env.vault.join("b")).unwrap();
    server.poll("the folder's notes are gone", || {
        server.health().is_some_and(|h| h.caught_up && h.notes == 1)
    });
}

#[test]
fn the_reply_has_the_plugins_shape() {
    let env = Env::new();
    env.write(
        "Notes/pick.md",
        "---\ntags: [x]\n---\n# 𝄞 Heading\nfirst line\nthe <daemon> & \"co\" stalled\n",
    );
    let server = Server::start(&env, &[]);
    let hits = server.search("daemon");
    assert_eq!(hits.len(), 1);
    let h = &hits[0];
    assert_eq!(h.path, "Notes/pick.md");
    assert_eq!(h.basename, "pick");
    assert_eq!(h.vault, env.vault.file_name().unwrap().to_string_lossy());
    assert!(h.score > 0.0);
    assert_eq!(h.found_words, ["daemon"]);
    assert!(
        h.excerpt.contains("&lt;daemon&gt; &amp; &quot;co&quot;"),
        "{}",
        h.excerpt
    );
    let text = std::fs::read_to_string(env.vault.join(&h.path)).unwrap();
    let utf16: Vec<u16> = text.encode_utf16().collect();
    let m = &h.matches[0];
    assert_eq!(m.text, "daemon");
    assert_eq!(
        String::from_utf16(&utf16[m.offset..m.offset + 6]).unwrap(),
        "daemon"
    );
    // Line breaks as `<br>`, from the match's line on, as the plugin cuts excerpts.
    assert!(h.excerpt.starts_with("the &lt;daemon&gt;"), "{}", h.excerpt);
    // Any other path, and a query without `q`, answer like the plugin: no results.
    assert!(server.search("").is_empty());
}

/// What the issue found unlike the plugin, checked against its answers for the same notes.
#[test]
fn excerpts_matches_and_found_words_as_the_plugin_sends_them() {
    let env = Env::new();
    let long = "filler words ".repeat(20);
    env.write(
        "garden.md",
        &format!("# Roses\n\n{long}\nprune old roses in March\n\nfeed Old Roses #garden\n{long}\n"),
    );
    let server = Server::start(&env, &[]);
    let hits = server.search(r#""old roses" #garden"#);
    assert_eq!(hits.len(), 1, "{hits:?}");
    let h = &hits[0];
    assert!(h.excerpt.contains("March<br>feed"), "{}", h.excerpt);
    assert!(
        h.excerpt.ends_with('…') && !h.excerpt.contains("..."),
        "{}",
        h.excerpt
    );
    for w in ["old roses", "#garden"] {
        assert!(h.found_words.iter().any(|f| f == w), "{:?}", h.found_words);
    }
    let texts: Vec<&str> = h.matches.iter().map(|m| m.text.as_str()).collect();
    // The phrase found verbatim first (as the plugin does), then every match in text order.
    assert_eq!(texts[0], "old roses", "{texts:?}");
    assert!(
        texts.contains(&"Old Roses") && texts.contains(&"#garden"),
        "{texts:?}"
    );
    let offsets: Vec<usize> = h.matches[1..].iter().map(|m| m.offset).collect();
    assert!(offsets.windows(2).all(|w| w[0] < w[1]), "{offsets:?}");
    assert!(
        h.matches[1..]
            .iter()
            .any(|m| m.offset == h.matches[0].offset),
        "{:?}",
        h.matches
    );

    let hits = server.search("roses");
    let offsets: Vec<usize> = hits[0].matches.iter().map(|m| m.offset).collect();
    assert!(
        offsets.len() >= 3 && offsets.windows(2).all(|w| w[0] < w[1]),
        "{offsets:?}"
    );
}

#[test]
fn reading_the_vault_is_no_change() {
    // Opening a folder or a note is a file-system event on Linux. Every walk opens each
    // folder: with more folders than the event queue holds, a walk must not set off the next.
    let env = Env::new();
    for i in 0..2500 {
        env.write(&format!("f{i}/n{i}.md"), "heron pond\n");
    }
    let server = Server::start(&env, &[]);
    server.poll("an idle watcher", || {
        server
            .health()
            .is_some_and(|h| h.caught_up && h.notes == 2500)
    });
    let before = server.health().unwrap().updates;
    // Another process walks the vault and reads every note; the server reads its hits.
    assert_ok(&env.run(&["index", "--rebuild"]));
    assert_eq!(server.search("heron").len(), 50);
    // Long enough for the debounce to have fired, had any of it counted as a change.
    std::thread::sleep(Duration::from_millis(1500));
    let after = server.health().unwrap();
    assert!(after.caught_up);
    assert_eq!(after.updates, before, "reads started index updates");
}

#[test]
fn our_omnisearch_client_reads_our_server() {
    let env = Env::new();
    env.write(
        "Meta/lock.md",
        "# Locks\nintro\n\nthe daemon kept a stale lock\n",
    );
    env.write("Other/gradle.md", "gradle daemon notes\n");
    let server = Server::start(&env, &[]);
    let port = server.port.to_string();
    let omni = env.search_json(&["--source", "omnisearch", "--port", &port, "daemon"]);
    assert_eq!(omni.engine, "omnisearch", "{:?}", omni.error);
    let local = env.search_json(&["--source", "local", "daemon"]);
    let view = |r: &vault_search::SearchResponse| -> Vec<(String, Option<u64>)> {
        r.results.iter().map(|h| (h.path.clone(), h.line)).collect()
    };
    assert_eq!(view(&omni), view(&local));
    let lock = omni
        .results
        .iter()
        .find(|h| h.path == "Meta/lock.md")
        .unwrap();
    assert_eq!(
        lock.line,
        Some(4),
        "the line our server's first match points at"
    );
    // And `auto` finds it the way it finds Obsidian.
    let auto = env.search_json(&["--port", &port, "--folder", "Meta", "daemon"]);
    assert_eq!(auto.engine, "omnisearch");
    assert_eq!(auto.results.len(), 1);
}

#[test]
fn api_search_answers_the_json_object() {
    let env = Env::new();
    env.write("A/one.md", "lantern festival\n");
    env.write(
        "B/two.md",
        "---\ntags: [fix]\nstatus: done\n---\nlantern repair\n",
    );
    let server = Server::start(&env, &[]);
    let (status, _, body) = server.get("/api/search?q=lantern&folder=A&limit=5", &[]);
    assert_eq!(status, 200, "{body}");
    let r: vault_search::SearchResponse = serde_json::from_str(&body).unwrap();
    assert_eq!(r.engine, "local");
    let paths: Vec<&str> = r.results.iter().map(|h| h.path.as_str()).collect();
    assert_eq!(paths, ["A/one.md"]);
    let (status, _, _) = server.get("/api/search?q=lantern&exclude=A&exclude=B", &[]);
    assert_eq!(status, 200);
    // The command line's options, by the same rules: a filter without words lists notes.
    let paths_of = |url: &str| -> Vec<String> {
        let (status, _, body) = server.get(url, &[]);
        assert_eq!(status, 200, "{url}: {body}");
        let r: vault_search::SearchResponse = serde_json::from_str(&body).unwrap();
        r.results.into_iter().map(|h| h.path).collect()
    };
    assert_eq!(paths_of("/api/search?folder=B"), ["B/two.md"]);
    assert_eq!(paths_of("/api/search?tag=fix&sort=modified"), ["B/two.md"]);
    assert_eq!(paths_of("/api/search?q=lantern&tag=fix"), ["B/two.md"]);
    assert_eq!(
        paths_of("/api/search?q=lantern&where=status%3Ddone"),
        ["B/two.md"]
    );
    // A budget fits the whole answer.
    let (status, _, body) = server.get("/api/search?q=lantern&budget=150", &[]);
    assert_eq!(status, 200, "{body}");
    assert!(vault_search::estimate_tokens(&body) <= 150, "{body}");
    for bad in [
        "/api/search",
        "/api/search?q=x&limit=0",
        "/api/search?q=x&folder=..%2Fup",
        "/api/search?q=x&tags=fix",
        "/api/search?q=x&budget=99",
        "/api/search?q=x&sort=newest",
        "/api/search?q=x&since=someday",
    ] {
        let (status, _, body) = server.get(bad, &[]);
        assert_eq!(status, 400, "{bad}: {body}");
    }
    let (_, _, body) = server.get("/api/search?q=x&tags=fix", &[]);
    assert!(body.contains("unknown parameter"), "{body}");
    assert_eq!(server.get("/nothing", &[]).0, 404);
}

#[test]
fn refuses_foreign_hosts_origins_writes_and_big_requests() {
    let env = Env::new();
    env.write("n.md", "secret words\n");
    let allowed = "http://localhost:3000";
    let server = Server::start(&env, &["--allow-origin", allowed]);
    let port = server.port;
    let status = |line: &str, headers: &[(&str, &str)]| request(port, line, headers).0;

    for host in [
        "evil.example",
        "evil.example:80",
        "localhost.evil.example",
        "10.1.2.3",
    ] {
        assert_eq!(
            status("GET /search?q=secret HTTP/1.1", &[("Host", host)]),
            403,
            "{host}"
        );
    }
    for host in ["localhost", "[::1]:1", "127.0.0.1"] {
        assert_eq!(
            status("GET /health HTTP/1.1", &[("Host", host)]),
            200,
            "{host}"
        );
    }
    assert_eq!(
        status(
            "GET /search?q=secret HTTP/1.1",
            &[("Origin", "http://evil.example")]
        ),
        403
    );
    let (code, head, _) = request(
        port,
        "GET /search?q=secret HTTP/1.1",
        &[("Origin", allowed)],
    );
    assert_eq!(code, 200);
    assert!(
        head.contains(&format!("Access-Control-Allow-Origin: {allowed}")),
        "{head}"
    );

    assert_eq!(status("POST /search?q=x HTTP/1.1", &[]), 405);
    assert_eq!(status("DELETE /health HTTP/1.1", &[]), 405);
    assert_eq!(
        status("GET /search?q=x HTTP/1.1", &[("Content-Length", "3")]),
        413
    );
    let big = "a".repeat(20_000);
    assert_eq!(status("GET /search?q=x HTTP/1.1", &[("X-Big", &big)]), 431);
    // Still serving after all that.
    assert_eq!(server.paths("secret"), ["n.md"]);
}

/// What a userscript or an extension on an allowed origin meets: a preflight that allows its
/// request headers, CORS headers on errors too, a typed `%` searched as the plugin does.
#[test]
fn a_browser_page_on_an_allowed_origin_reads_every_answer() {
    let env = Env::new();
    env.write("n.md", "a 100% cotton shirt\n");
    let page = "https://www.google.com";
    let ext = "moz-extension://0b6e2b1c-8c5a-4f0e-9d7e-2f1f2c3d4e5f";
    let server = Server::start(
        &env,
        &[
            "--allow-origin",
            "https://www.google.com/",
            "--allow-origin",
            ext,
        ],
    );
    let port = server.port;
    let allows = |head: &str, origin: &str| {
        head.contains(&format!("Access-Control-Allow-Origin: {origin}\r\n"))
    };

    let (code, head, _) = request(
        port,
        "OPTIONS /search?q=x HTTP/1.1",
        &[
            ("Origin", page),
            ("Access-Control-Request-Method", "GET"),
            (
                "Access-Control-Request-Headers",
                "content-type, x-client-id",
            ),
        ],
    );
    assert_eq!(code, 204, "{head}");
    assert!(allows(&head, page), "{head}");
    let allowed_headers = head
        .lines()
        .find_map(|l| l.strip_prefix("Access-Control-Allow-Headers: "))
        .unwrap_or_default()
        .to_ascii_lowercase();
    for h in ["content-type", "x-client-id"] {
        assert!(allowed_headers.contains(h), "{head}");
    }

    // Errors, those of the routes and those refused while reading, carry the headers too.
    for (line, extra, want) in [
        ("GET /nothing HTTP/1.1", None, 404),
        ("GET /api/search HTTP/1.1", None, 400),
        ("POST /search?q=x HTTP/1.1", None, 405),
        (
            "GET /search?q=x HTTP/1.1",
            Some(("Content-Length", "3")),
            413,
        ),
        (
            "GET /search?q=x HTTP/1.1",
            Some(("Host", "evil.example")),
            403,
        ),
    ] {
        let mut headers = vec![("Origin", page)];
        headers.extend(extra);
        let (code, head, _) = request(port, line, &headers);
        assert_eq!(code, want, "{line}");
        assert!(allows(&head, page), "{line}: {head}");
    }
    // An origin not named gets no CORS header on any answer.
    let (code, head, body) = request(
        port,
        "GET /nothing HTTP/1.1",
        &[("Origin", "https://evil.example")],
    );
    assert_eq!(code, 403);
    assert!(!head.contains("Access-Control-Allow-Origin"), "{head}");
    // The refusal names the origin to pass to --allow-origin.
    assert!(body.contains("from https://evil.example"), "{body}");

    // A browser extension's origin.
    let (code, head, body) = request(port, "GET /search?q=cotton HTTP/1.1", &[("Origin", ext)]);
    assert_eq!(code, 200, "{body}");
    assert!(allows(&head, ext), "{head}");

    // A typed `%`, sent as it is: the plugin searches it; so does `serve`.
    for q in ["100%", "100%25", "100%+cotton", "%zz"] {
        let (code, _, body) = server.get(&format!("/search?q={q}"), &[("Origin", page)]);
        assert_eq!(code, 200, "{q}: {body}");
    }
    let (_, _, body) = server.get("/search?q=100%+cotton", &[]);
    assert!(body.contains("\"path\":\"n.md\""), "{body}");

    // `GET /` answers, as the plugin's does: health checks probe it.
    let (code, _, body) = server.get("/", &[("Origin", page)]);
    assert_eq!(code, 200, "{body}");
    assert_eq!(request(port, "HEAD / HTTP/1.1", &[]).0, 200);
}

#[test]
fn allow_origin_refuses_wildcards_and_paths() {
    let env = Env::new();
    for bad in ["*", "https://www.google.com/search", "www.google.com"] {
        let out = env.run(&["serve", "--port", "0", "--allow-origin", bad]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let err = crate::util::stderr(&out);
        assert!(err.contains("--allow-origin"), "{bad}: {err}");
    }
}

#[test]
fn the_cli_skips_the_walk_only_while_the_server_lives() {
    let env = Env::new();
    env.write("n.md", "heron pond\n");
    let mut server = Server::start(&env, &[]);

    let r = env.search_json(&["--source", "local", "heron"]);
    assert!(r.watched, "a live watcher: no walk");
    let st = status(&env);
    let s = st.server.expect("status shows the server");
    assert!(s.live);
    assert_eq!(s.pid, Some(server.child.id()));
    assert_eq!(s.port, Some(server.port));

    // Freshness through the watcher: a note saved now is found by a search that didn't walk.
    env.write("m.md", "heron nest\n");
    server.poll("the new note through the watcher", || {
        let r = env.search_json(&["--source", "local", "heron"]);
        r.watched && r.results.len() == 2
    });

    server.child.kill().unwrap(); // SIGKILL: no chance to clean up
    server.child.wait().unwrap();
    assert!(status(&env).server.is_none());
    env.write("late.md", "heron egg\n");
    let r = env.search_json(&["--source", "local", "heron"]);
    assert!(!r.watched, "no server: the search walks");
    assert_eq!(
        r.results.len(),
        3,
        "the walk found the note written after the kill"
    );

    // The next start converges.
    let server = Server::start(&env, &[]);
    env.write("later.md", "heron flight\n");
    server.poll("four herons", || server.paths("heron").len() == 4);
}

fn status(env: &Env) -> vault_search::Status {
    let out = env.run(&["status", "--json"]);
    assert_ok(&out);
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_taken_port_is_a_clear_error() {
    let env = Env::new();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let out = env.run(&["serve", "--port", &port]);
    assert_eq!(out.status.code(), Some(2));
    let err = crate::util::stderr(&out);
    assert!(err.contains("already in use"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn one_server_per_vault() {
    let env = Env::new();
    let _server = Server::start(&env, &[]);
    let out = env.run(&["serve", "--port", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(crate::util::stderr(&out).contains("already watches"));
}

#[test]
#[cfg_attr(
    windows,
    ignore = "Windows refuses to delete the cache while serve has the index open: there is no deleted cache to survive"
)]
fn survives_a_deleted_cache_and_a_vault_moved_away_and_back() {
    let env = Env::new();
    env.write("n.md", "otter\n");
    let server = Server::start(&env, &[]);

    std::fs::remove_dir_all(&env.cache).unwrap();
    env.write("m.md", "otter holt\n");
    server.wait_for("otter", &["m.md", "n.md"]);
    server.poll("live again after the rebuild", || {
        status(&env).server.is_some_and(|s| s.live)
    });

    let away = env.root.path().join("elsewhere");
    std::fs::rename(&env.vault, &away).unwrap();
    server.poll("not trusted while the vault is away", || {
        !status_quiet(&env)
    });
    std::fs::rename(&away, &env.vault).unwrap();
    env.write("k.md", "otter cub\n");
    server.wait_for("otter", &["k.md", "m.md", "n.md"]);
    assert!(server.health().unwrap().pid > 0);
}

/// Whether searches would trust the watcher; the vault may be missing (no `status` then).
fn status_quiet(env: &Env) -> bool {
    vault_search::__watcher_is_live(&env.cache, &env.vault)
}

#[cfg(unix)]
#[test]
fn sigterm_commits_and_exits_0() {
    let env = Env::new();
    env.write("n.md", "badger\n");
    let mut server = Server::start(&env, &[]);
    env.write("m.md", "badger sett\n");
    let pid = server.child.id().to_string();
    assert_ok(
        &std::process::Command::new("kill")
            .args(["-TERM", &pid])
            .output()
            .unwrap(),
    );
    let started = Instant::now();
    let code = loop {
        if let Some(code) = server.child.try_wait().unwrap() {
            break code;
        }
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "still running 5 s after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(code.success(), "{code:?}");
    assert!(status(&env).server.is_none());
    // The note saved just before the stop is in the committed index.
    let r = env.search_json(&["--source", "local", "--no-refresh", "badger"]);
    assert_eq!(r.results.len(), 2);
}

/// The watcher indexes PDFs as `index` does: its updates never drop what the CLI indexed.
#[test]
fn serve_keeps_the_pdfs_the_cli_indexed() {
    let env = Env::new();
    env.write("note.md", "a plain note\n");
    std::fs::write(
        env.vault.join("manual.pdf"),
        crate::extract::pdf(&["the narwhal chapter"]),
    )
    .unwrap();
    assert_ok(&env.run(&["index"]));
    let server = Server::start(&env, &[]);
    server.wait_for("narwhal", &["manual.pdf"]);
    // An event makes the watcher update; the PDF stays.
    env.write("other.md", "another plain note\n");
    server.wait_for("another", &["other.md"]);
    server.wait_for("narwhal", &["manual.pdf"]);
}

/// The watcher's updates keep to the size cap the index recorded, not the default one.
#[test]
fn the_watcher_keeps_the_recorded_note_cap() {
    let env = Env::new();
    env.write("small.md", "alpha\n");
    env.write("mid.md", &"numbat ".repeat(1000));
    let r = env.index_json(&["--max-note-bytes", "1000"]);
    assert_eq!(r.skipped, 1, "{r:?}");
    let server = Server::start(&env, &[]);
    // Changed, the placeholder is looked at again under the recorded cap, and stays one; the
    // update that finds the later marker has seen that change.
    env.write("mid.md", &"numbat wombat ".repeat(1000));
    env.write("marker.md", "wombat marker\n");
    server.wait_for("wombat", &["marker.md"]);
    let out = env.run(&["status", "--json"]);
    assert_ok(&out);
    let st: vault_search::Status = serde_json::from_slice(&out.stdout).unwrap();
    let skipped: Vec<&str> = st.skipped_files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        (skipped, st.max_note_bytes),
        (vec!["mid.md"], 1000),
        "{st:?}"
    );
}

/// The plugin cuts its excerpt from the note's text as the file holds it, comments included,
/// so the server's Omnisearch-shaped excerpt keeps them too (the CLI and MCP leave them out of
/// theirs); its offsets count the note's text, comments and all.
#[test]
fn excerpts_keep_comments_as_the_plugin_does() {
    let env = Env::new();
    let text = "intro\nthe lynx <!-- aside --> waits %% later %% here\n";
    env.write("c.md", text);
    let server = Server::start(&env, &[]);
    let hits = server.search("waits");
    assert_eq!(hits.len(), 1, "{hits:?}");
    let h = &hits[0];
    assert!(
        h.excerpt
            .contains("the lynx &lt;!-- aside --&gt; waits %% later %% here"),
        "{}",
        h.excerpt
    );
    let utf16: Vec<u16> = text.encode_utf16().collect();
    let m = &h.matches[0];
    assert_eq!(
        String::from_utf16(&utf16[m.offset..m.offset + 5]).unwrap(),
        "waits"
    );
}

/// `links` while `serve` watches: its answers come from the watcher's index (no walk), and a
/// save, a deletion and a rename reach a note's backlinks and the broken links through it.
#[test]
fn links_follow_saves_through_the_watcher() {
    use vault_search::LinksResponse;
    let env = Env::new();
    env.write("Target.md", "the target\n");
    env.write("a.md", "see [[Target]]\n");
    let server = Server::start(&env, &[]);
    let links = |args: &[&str]| -> Option<LinksResponse> {
        let mut all = vec!["links", "--json"];
        all.extend_from_slice(args);
        let out = env.run(&all);
        out.status
            .success()
            .then(|| serde_json::from_slice(&out.stdout).unwrap())
    };
    let sources = |r: &LinksResponse| -> Vec<String> {
        let mut s: Vec<String> = r
            .incoming
            .iter()
            .flatten()
            .map(|l| l.source.clone())
            .collect();
        s.sort();
        s
    };
    let r = links(&["Target"]).expect("links Target");
    assert!(r.watched, "a live watcher: no walk");
    assert_eq!(sources(&r), ["a.md"]);

    env.write("b.md", "also [[target|the one]]\n");
    server.poll("a saved note's backlink", || {
        links(&["Target"]).is_some_and(|r| r.watched && sources(&r) == ["a.md", "b.md"])
    });
    env.remove("a.md");
    server.poll("a deleted note's backlink gone", || {
        links(&["Target"]).is_some_and(|r| sources(&r) == ["b.md"])
    });
    std::fs::rename(env.vault.join("Target.md"), env.vault.join("Moved.md")).unwrap();
    server.poll("a renamed target's links unresolved", || {
        links(&["--unresolved"]).is_some_and(|r| {
            r.watched
                && r.unresolved
                    .iter()
                    .flatten()
                    .any(|g| g.target == "target" && g.sources[0].source == "b.md")
        })
    });
    assert!(links(&["Target"]).is_none(), "the old name names no file");
    env.write("c.md", "now [[Moved]]\n");
    server.poll("the new name's backlink", || {
        links(&["Moved"]).is_some_and(|r| sources(&r) == ["c.md"])
    });
}
