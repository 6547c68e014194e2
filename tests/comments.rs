//! Excerpts leave out the comments Obsidian hides (`<!-- … -->`, `%% … %%`) for every
//! front-end — the CLI's text and `--json` included, whichever engine answered — while the
//! lines they report are the file's own.

use crate::util::{assert_ok, omni_hit, stdout, Env, MockServer, Reply};
use serde_json::json;

const NOTE: &str = "# Plan\nintro line\n<!-- a private\nreminder about the quokka -->\n\
the quokka %% draft: quokka stash %% migration starts `%%kept%%` here\n%%\nblock of notes\n%%\n\
after the block\n";

fn local(env: &Env, query: &str) -> vault_search::SearchResponse {
    env.search_json(&["--source", "local", "--", query])
}

#[test]
fn json_excerpts_leave_out_comments_and_keep_the_files_lines() {
    let env = Env::new();
    env.write("Notes/plan.md", NOTE);
    let r = local(&env, "migration");
    assert_eq!(r.results.len(), 1, "{r:?}");
    let hit = &r.results[0];
    for hidden in [
        "<!--",
        "-->",
        "private",
        "reminder",
        "draft",
        "stash",
        "block of notes",
    ] {
        assert!(!hit.excerpt.contains(hidden), "{hidden}: {}", hit.excerpt);
    }
    // What the note shows is all there, in order, code spans as they are.
    let words = [
        "Plan",
        "intro line",
        "the quokka",
        "migration starts `%%kept%%` here",
    ];
    let mut at = 0;
    for w in words.iter().chain(&["after the block"]) {
        let k = hit.excerpt[at..].find(w).map(|k| at + k);
        assert!(k.is_some(), "{w} after {at}: {}", hit.excerpt);
        at = k.unwrap();
    }
    let line = NOTE.lines().position(|l| l.contains("migration")).unwrap() as u64 + 1;
    assert_eq!(hit.line, Some(line));

    // A listing's excerpt, and the text output, the same.
    let listed = env.search_json(&["--source", "local", "--since", "7d"]);
    assert!(!listed.results[0].excerpt.contains("private"), "{listed:?}");
    let out = env.run(&["--source", "local", "--", "migration"]);
    assert_ok(&out);
    assert!(
        stdout(&out).contains("migration starts"),
        "{}",
        stdout(&out)
    );
    assert!(!stdout(&out).contains("draft"), "{}", stdout(&out));
}

#[test]
fn a_canvas_cards_comments_are_left_out() {
    let env = Env::new();
    let card = "wombat burrow %% not for the board %% plans <!-- nor this -->";
    let canvas = json!({"nodes": [{"id": "a", "type": "text", "text": card,
        "x": 0, "y": 0, "width": 10, "height": 10}], "edges": []});
    env.write("board.canvas", &canvas.to_string());
    let r = local(&env, "wombat");
    assert_eq!(r.results.len(), 1, "{r:?}");
    let e = &r.results[0].excerpt;
    assert!(e.contains("wombat burrow") && e.contains("plans"), "{e}");
    assert!(
        !e.contains("not for the board") && !e.contains("nor this"),
        "{e}"
    );
}

#[test]
fn omnisearch_excerpts_leave_out_comments_of_notes_only() {
    let env = Env::new();
    // The note holds what the plugin cut its excerpt from (the reply is checked against it).
    env.write("a.md", "kiwi <!-- hush --> fruit %% aside %%\nmore\n");
    env.write("b.pdf", "not read\n");
    let body = json!([
        omni_hit(
            2.0,
            "a.md",
            "kiwi &lt;!-- hush --&gt; fruit %% aside %%<br>more",
            None
        ),
        omni_hit(1.0, "b.pdf", "kiwi at 50%% off %% today", None),
    ]);
    let server = MockServer::start(Reply::Json(body.to_string()));
    let port = server.port.to_string();
    let r = env.search_json(&["--port", port.as_str(), "--", "kiwi"]);
    assert_eq!(r.engine, "omnisearch");
    let excerpts: Vec<&str> = r.results.iter().map(|h| h.excerpt.as_str()).collect();
    // A PDF's text is not Markdown: its `%%` is text.
    assert_eq!(excerpts, ["kiwi fruit more", "kiwi at 50%% off %% today"]);
}
