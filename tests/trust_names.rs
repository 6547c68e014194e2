//! Names, replies and protocol edges: another vault of the same name behind Omnisearch, control
//! characters in what is printed or returned, names that are not UTF-8, big MCP arguments, the
//! words of an argument error, and global flags given before a subcommand.

use crate::util::{omni_hit, Env, MockServer, Reply};
use serde_json::json;

fn search(env: &Env, port: u16, args: &[&str]) -> vault_search::SearchResponse {
    let p = port.to_string();
    env.search_json(&[&["--port", p.as_str()], args].concat())
}

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
