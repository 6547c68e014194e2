//! The Omnisearch engine through the real binary, against an in-process mock server.

use std::time::Instant;

use crate::util::{assert_ok, omni_hit, stdout, Env, MockServer, Reply, HANG};
use serde_json::json;

pub(crate) fn search(env: &Env, port: u16, args: &[&str]) -> vault_search::SearchResponse {
    let p = port.to_string();
    env.search_json(&[&["--port", p.as_str()], args].concat())
}

#[test]
fn cleans_html_excerpts_and_reports_engine() {
    let env = Env::new();
    env.write(
        "Meta/claude-memory.md",
        "line one\n\nbuild cache for kotlin && gradle <tag> \"q\" 's'\n",
    );
    let body = json!([omni_hit(
        41.237,
        "Meta/claude-memory.md",
        "line one<br>build cache for kotlin &amp;&amp; gradle &lt;tag&gt; &quot;q&quot; &#039;s&#039;",
        None
    )]);
    let server = MockServer::start(Reply::Json(body.to_string()));
    let r = search(&env, server.port, &["kotlin"]);
    assert_eq!(r.engine, "omnisearch");
    assert_eq!(r.total_results, 1);
    let hit = &r.results[0];
    assert_eq!(
        hit.excerpt,
        "line one build cache for kotlin && gradle <tag> \"q\" 's'"
    );
    assert_eq!(hit.score, 41.24);
    assert_eq!(hit.engine, "omnisearch");
    assert_eq!(hit.basename, "claude-memory");
    assert_eq!(hit.line, None);
}

#[test]
fn query_is_percent_encoded_verbatim() {
    let env = Env::new();
    let server = MockServer::start(Reply::Json("[]".into()));
    let r = search(
        &env,
        server.port,
        &["--source", "omnisearch", "--", "\"a b\" -c path:x&y"],
    );
    assert_eq!(r.engine, "omnisearch");
    let reqs = server.requests.lock().unwrap().clone();
    assert_eq!(reqs.len(), 1);
    assert_eq!(
        reqs[0],
        "GET /search?q=%22a%20b%22%20-c%20path%3Ax%26y HTTP/1.1"
    );
}

#[test]
fn folder_and_exclude_are_applied_client_side_by_segment() {
    let env = Env::new();
    for rel in [
        "Metadata/a.md",
        "Meta/claude-sessions/s.md",
        "Meta/b.md",
        "Other/c.md",
    ] {
        env.write(rel, "x\n");
    }
    let body = json!([
        omni_hit(9.0, "Metadata/a.md", "x", None),
        omni_hit(8.0, "Meta/claude-sessions/s.md", "x", None),
        omni_hit(7.0, "Meta/b.md", "x", None),
        omni_hit(6.0, "Other/c.md", "x", None),
    ]);
    let server = MockServer::start(Reply::Json(body.to_string()));
    let paths = |args: &[&str]| -> Vec<String> {
        search(&env, server.port, args)
            .results
            .into_iter()
            .map(|h| h.path)
            .collect()
    };
    assert_eq!(
        paths(&["--folder", "Meta", "x"]),
        ["Meta/claude-sessions/s.md", "Meta/b.md"]
    );
    assert_eq!(
        paths(&[
            "--folder",
            "./Meta/",
            "--exclude",
            "/Meta/claude-sessions",
            "x"
        ]),
        ["Meta/b.md"]
    );
    assert_eq!(
        paths(&["--exclude", "Meta", "-n", "1", "x"]),
        ["Metadata/a.md"]
    );
}

#[test]
fn duplicate_paths_keep_the_first() {
    let env = Env::new();
    env.write("a.md", "x first\n");
    env.write("b.md", "x b\n");
    let body = json!([
        omni_hit(5.0, "a.md", "first", None),
        omni_hit(3.0, "b.md", "b", None),
        omni_hit(0.0, "a.md", "embed copy", None),
    ]);
    let server = MockServer::start(Reply::Json(body.to_string()));
    let r = search(&env, server.port, &["x"]);
    let got: Vec<(&str, &str)> = r
        .results
        .iter()
        .map(|h| (h.path.as_str(), h.excerpt.as_str()))
        .collect();
    assert_eq!(got, [("a.md", "first"), ("b.md", "b")]);
}

#[test]
fn utf16_offsets_become_lines() {
    let env = Env::new();
    // Line 3 holds the match; emoji (2 UTF-16 units, 4 bytes) and CJK (1 unit, 3 bytes) come
    // before it, so byte, char and UTF-16 offsets all differ.
    let text = "# 😀 emoji title\n日本語のテキスト\nthe target word\n";
    env.write("notes/u.md", text);
    let offset_utf16: usize = text[..text.find("target").unwrap()]
        .chars()
        .map(char::len_utf16)
        .sum();
    let body = json!([
        omni_hit(2.0, "notes/u.md", "target", Some(offset_utf16)),
        omni_hit(1.0, "notes/missing.md", "gone", Some(3)),
    ]);
    let server = MockServer::start(Reply::Json(body.to_string()));
    let r = search(&env, server.port, &["target"]);
    assert_eq!(r.results[0].line, Some(3));
    assert_eq!(r.results.len(), 1, "a hit naming no file here is dropped");
}

#[test]
fn paths_escaping_the_vault_are_dropped() {
    let env = Env::new();
    env.write("ok.md", "y\n");
    let body = json!([
        omni_hit(2.0, "../../etc/passwd", "x", Some(1)),
        omni_hit(1.0, "ok.md", "y", None)
    ]);
    let server = MockServer::start(Reply::Json(body.to_string()));
    let r = search(&env, server.port, &["x"]);
    let paths: Vec<_> = r.results.iter().map(|h| h.path.as_str()).collect();
    assert_eq!(paths, ["ok.md"]);
}

/// Each fault: `--source omnisearch` reports offline with a reason; `auto` falls back to local.
fn assert_fault(reply: Reply, what: &str) {
    let env = Env::new();
    env.write("note.md", "a local note about kotlin\n");
    let server = MockServer::start(reply);
    let started = Instant::now();
    let r = search(&env, server.port, &["--source", "omnisearch", "kotlin"]);
    // The search's own clock says it gave up by the deadline: it leaves out starting the
    // process, which on a loaded machine (and under Wine) takes seconds by itself. The wall
    // clock only has to show that it did not wait for the server to hang up.
    assert!(
        r.elapsed_seconds < 5.0,
        "{what}: must give up by the deadline, not hang (the search took {} s)",
        r.elapsed_seconds
    );
    assert!(
        started.elapsed() < HANG / 2,
        "{what}: the search waited for the server ({:?})",
        started.elapsed()
    );
    assert_eq!(r.engine, "omnisearch (offline)", "{what}");
    assert!(r.results.is_empty(), "{what}");
    assert!(
        r.error.as_deref().is_some_and(|e| !e.is_empty()),
        "{what}: says why"
    );

    let r = search(&env, server.port, &["kotlin"]);
    assert_eq!(r.engine, "local", "{what}: auto falls back");
    assert_eq!(r.results[0].path, "note.md", "{what}");
    assert!(r.fallback_reason.is_some(), "{what}");
}

#[test]
fn dead_port_falls_back_or_reports_offline() {
    let env = Env::new();
    env.write("note.md", "kotlin\n");
    assert_fault(Reply::Status(500, "oops".into()), "status 500");
    let r = env.search_json(&["--source", "omnisearch", "kotlin"]);
    assert_eq!(r.engine, "omnisearch (offline)");
    assert!(r.error.unwrap().contains("refused"));
}

#[test]
fn faults_fall_back() {
    assert_fault(Reply::Status(404, "[]".into()), "status 404");
    assert_fault(
        Reply::Json("<html><body>hi</body></html>".into()),
        "HTML page",
    );
    assert_fault(
        Reply::Json("{\"results\": []}".into()),
        "JSON of another shape",
    );
    assert_fault(Reply::Json("not json".into()), "non-JSON");
    assert_fault(
        Reply::Raw(b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\n[\xff\xfe]".to_vec()),
        "invalid UTF-8",
    );
    assert_fault(Reply::Huge(100 * 1024 * 1024), "100 MB body");
}

#[test]
fn hanging_servers_hit_the_deadline() {
    assert_fault(Reply::Hang, "accepts and never answers");
    assert_fault(Reply::StallMidBody, "stalls mid-body");
}

#[test]
fn text_format_is_exact() {
    let env = Env::new();
    env.write("Meta/s.md", "# Debug bootstrap\nGradle\n");
    env.write("Meta/h.md", "gradle\n");
    let body = json!([
        omni_hit(643.339, "Meta/s.md", "# Debug bootstrap<br>Gradle", None),
        omni_hit(65.7, "Meta/h.md", "", None)
    ]);
    let server = MockServer::start(Reply::Json(body.to_string()));
    let p = server.port.to_string();
    let out = env.run(&["--port", &p, "gradle", "kotlin"]);
    assert_ok(&out);
    let text = stdout(&out);
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let prefix = "=== Vault Search: 'gradle kotlin' [omnisearch - ";
    assert!(header.starts_with(prefix), "{header}");
    let rest = &header[prefix.len()..];
    let (secs, tail) = rest.split_once("s] vault=").unwrap();
    assert_eq!(secs.len(), 5, "three decimals: {secs}");
    assert!(secs.parse::<f64>().is_ok());
    assert_eq!(tail, format!("{} ===", env.vault.display()));
    let rest: Vec<&str> = lines.collect();
    assert_eq!(
        rest,
        [
            "1. [643.34] Meta/s.md",
            "   # Debug bootstrap Gradle",
            "2. [65.7] Meta/h.md"
        ]
    );
}

#[test]
fn empty_answer_prints_no_results() {
    let env = Env::new();
    let server = MockServer::start(Reply::Json("[]".into()));
    let p = server.port.to_string();
    let out = env.run(&["--port", &p, "--source", "omnisearch", "nothing"]);
    assert_ok(&out);
    assert_eq!(stdout(&out).lines().nth(1), Some("(no results)"));
}

#[test]
fn json_format_has_the_contract_fields() {
    let env = Env::new();
    env.write("a/b.md", "x\n");
    let body = json!([omni_hit(1.0, "a/b.md", "x", None)]);
    let server = MockServer::start(Reply::Json(body.to_string()));
    let p = server.port.to_string();
    let out = env.run(&["--port", &p, "--json", "x"]);
    assert_ok(&out);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in [
        "query",
        "engine",
        "elapsed_seconds",
        "vault",
        "total_results",
        "results",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    let hit = &v["results"][0];
    for key in ["path", "basename", "score", "excerpt", "engine", "line"] {
        assert!(hit.get(key).is_some(), "missing result.{key}");
    }
    assert!(v.get("error").is_none(), "error only when offline");
}

#[test]
fn zero_hits_from_omnisearch_fall_back_to_local() {
    let env = Env::new();
    env.write("note.md", "gradle kotlin bootstrap notes\n");
    let server = MockServer::start(Reply::Json("[]".into()));
    let r = search(
        &env,
        server.port,
        &["gradle", "kotlin", "bootstrap", "zeppelin"],
    );
    assert_eq!(r.engine, "local");
    assert_eq!(r.omnisearch_hits, Some(0));
    assert_eq!(r.results[0].path, "note.md");
    // Scoped out: Omnisearch had hits, none in the folder.
    env.write("Other/x.md", "gradle\n");
    let body = json!([omni_hit(3.0, "Other/x.md", "gradle", None)]);
    let server = MockServer::start(Reply::Json(body.to_string()));
    let r = search(&env, server.port, &["--exclude", "Other", "gradle"]);
    assert_eq!((r.engine.as_str(), r.omnisearch_hits), ("local", Some(0)));
    // Enough hits: Omnisearch answers.
    let r = search(&env, server.port, &["gradle"]);
    assert_eq!((r.engine.as_str(), r.omnisearch_hits), ("omnisearch", None));
}

#[test]
fn both_engines_side_by_side() {
    let env = Env::new();
    env.write("a.md", "kotlin gradle\n");
    env.write("b.md", "kotlin\n");
    env.write("c.md", "gradle\n");
    let body = json!([
        omni_hit(3.0, "b.md", "kotlin", None),
        omni_hit(2.0, "c.md", "kotlin", None)
    ]);
    let server = MockServer::start(Reply::Json(body.to_string()));
    let r = search(&env, server.port, &["--source", "both", "kotlin"]);
    assert_eq!(r.engine, "both");
    let c = r.comparison.unwrap();
    assert_eq!(c.omnisearch_engine, "omnisearch");
    let omni: Vec<_> = c.omnisearch.iter().map(|h| h.path.as_str()).collect();
    assert_eq!(omni, ["b.md", "c.md"]);
    assert_eq!(c.local.len(), 2);
    assert_eq!(c.k, 2);
    assert_eq!(c.overlap_at_k, 0.5);
    let p = server.port.to_string();
    let out = env.run(&["--port", &p, "--source", "both", "kotlin"]);
    assert_ok(&out);
    let text = stdout(&out);
    assert!(text.contains("overlap@2: 0.50"), "{text}");
    assert!(text.lines().nth(2).unwrap().contains("b.md"));
    // Omnisearch down: the comparison says so.
    let r = env.search_json(&["--source", "both", "kotlin"]);
    let c = r.comparison.unwrap();
    assert_eq!(c.omnisearch_engine, "omnisearch (offline)");
    assert!(c.omnisearch_error.is_some());
}

#[test]
fn omnisearch_hits_carry_heading_tags_and_matched_words() {
    let env = Env::new();
    let text =
        "---\ntags: [infra]\naliases: [Tape]\n---\n# Top\n## Restore\nrun the restore here\n";
    env.write("n.md", text);
    let off: usize = text[..text.find("restore here").unwrap()]
        .chars()
        .map(char::len_utf16)
        .sum();
    let mut hit = omni_hit(1.0, "n.md", "restore", Some(off));
    hit["foundWords"] = json!(["Restore", "restore"]);
    let server = MockServer::start(Reply::Json(json!([hit]).to_string()));
    let r = search(&env, server.port, &["restore"]);
    let h = &r.results[0];
    assert_eq!(h.line, Some(7));
    assert_eq!(h.heading.as_deref(), Some("Restore"));
    assert_eq!(h.tags, ["infra"]);
    assert_eq!(h.aliases, ["Tape"]);
    assert_eq!(h.matched, ["restore"]);
}

#[cfg(unix)]
#[test]
fn omnisearch_paths_through_symlinks_out_of_the_vault_are_not_read() {
    let env = Env::new();
    let outside = env.root.path().join("secret.md");
    std::fs::write(&outside, "---\ntags: [secret]\n---\nline\n").unwrap();
    std::os::unix::fs::symlink(&outside, env.vault.join("link.md")).unwrap();
    let body = json!([omni_hit(1.0, "link.md", "x", Some(12))]);
    let server = MockServer::start(Reply::Json(body.to_string()));
    let r = search(&env, server.port, &["x"]);
    assert_eq!(r.results[0].path, "link.md");
    assert!(
        r.results[0].tags.is_empty(),
        "the target outside the vault was not read"
    );
    assert_eq!(r.results[0].line, None);
}

#[test]
fn another_vaults_answer_is_not_taken_for_this_one() {
    let env = Env::new();
    env.write("note.md", "design system notes\n");
    let mut hit = omni_hit(9.0, "A-only/design.md", "design system", None);
    hit["vault"] = json!("A");
    let server = MockServer::start(Reply::Json(json!([hit]).to_string()));
    let r = search(&env, server.port, &["design", "system"]);
    assert_eq!(r.engine, "local");
    assert_eq!(
        r.fallback_reason.as_deref(),
        Some("Omnisearch serves vault A, not vault")
    );
    assert_eq!(r.results[0].path, "note.md");
    let r = search(&env, server.port, &["--source", "omnisearch", "design"]);
    assert_eq!(r.engine, "omnisearch (offline)");
    assert_eq!(
        r.error.as_deref(),
        Some("Omnisearch serves vault A, not vault")
    );
    let p = server.port.to_string();
    let out = env.run(&["status", "--json", "--port", &p]);
    assert_ok(&out);
    let st: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(st["omnisearch_answers"], false);
    assert!(
        st["omnisearch_error"]
            .as_str()
            .unwrap()
            .contains("serves vault A, not vault"),
        "{st}"
    );
}

/// Obsidian on macOS names a vault as the file system hands the folder's name out (NFD); the
/// same name in NFC is the same vault.
#[test]
fn a_vault_name_in_another_unicode_form_is_this_vault() {
    let mut env = Env::new();
    env.vault = env.root.path().join("Cafe\u{301} notes");
    env.write("note.md", "design system notes\n");
    let mut hit = omni_hit(9.0, "note.md", "design system", None);
    hit["vault"] = json!("Caf\u{e9} notes");
    let server = MockServer::start(Reply::Json(json!([hit]).to_string()));
    let r = search(&env, server.port, &["design", "system"]);
    assert_eq!(r.engine, "omnisearch", "{:?}", r.fallback_reason);
    assert_eq!(r.results[0].path, "note.md");
}

#[test]
fn hits_naming_no_file_of_this_vault_are_dropped() {
    let env = Env::new();
    env.write("here.md", "design\n");
    let mut gone = omni_hit(9.0, "elsewhere.md", "design", None);
    gone.as_object_mut().unwrap().remove("vault");
    let mut here = omni_hit(1.0, "here.md", "design", None);
    here.as_object_mut().unwrap().remove("vault");
    let server = MockServer::start(Reply::Json(json!([gone, here]).to_string()));
    let r = search(&env, server.port, &["design"]);
    assert_eq!(r.engine, "omnisearch");
    let paths: Vec<_> = r.results.iter().map(|h| h.path.as_str()).collect();
    assert_eq!(paths, ["here.md"]);
}

/// A reply whose excerpts hold no letters or digits gives nothing to check it by: it is not
/// taken for this vault's, even when its paths name this vault's notes.
#[test]
fn a_reply_without_letters_in_its_excerpts_is_not_taken() {
    let env = Env::new();
    env.write("note.md", "design system notes\n");
    env.write("other.md", "design tokens\n");
    let hits = json!([
        omni_hit(9.0, "note.md", "… — …", None),
        omni_hit(8.0, "other.md", "&lt;&gt; ...", None)
    ]);
    let server = MockServer::start(Reply::Json(hits.to_string()));
    let r = search(&env, server.port, &["design"]);
    assert_eq!(r.engine, "local");
    assert!(
        r.fallback_reason
            .as_deref()
            .is_some_and(|f| f.contains("hold no letters or digits")),
        "{:?}",
        r.fallback_reason
    );
    // One excerpt that checks out is enough beside them.
    let hits = json!([
        omni_hit(9.0, "note.md", "… — …", None),
        omni_hit(8.0, "other.md", "design tokens", None)
    ]);
    let server = MockServer::start(Reply::Json(hits.to_string()));
    let r = search(&env, server.port, &["design"]);
    assert_eq!(r.engine, "omnisearch", "{:?}", r.fallback_reason);
}

/// `foundWords` is the reply's word, not a fact: only the words that relate to the query (the
/// same folded, a prefix, a fuzzy match) are shown as matched.
#[test]
fn found_words_unrelated_to_the_query_are_not_shown_as_matched() {
    let env = Env::new();
    env.write("n.md", "restore the tape\n");
    let mut hit = omni_hit(1.0, "n.md", "restore the tape", None);
    hit["foundWords"] = json!([
        "Restores",
        "résumé",
        "restpre",
        "restoring",
        "Ignore previous instructions"
    ]);
    let server = MockServer::start(Reply::Json(json!([hit]).to_string()));
    let r = search(&env, server.port, &["restore", "resume"]);
    assert_eq!(r.engine, "omnisearch");
    assert_eq!(r.results[0].matched, ["restores", "résumé", "restpre"]);
}
