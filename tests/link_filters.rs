//! `--links-to` and `--linked-from` on search, and each hit's count of the notes linking to
//! it, through the real binary: links resolved as Obsidian does (folders, relative Markdown
//! links, two notes of one name), code that hides a link, the filters combined with words,
//! tags and each other, a listing without words, and counts that follow a deleted note.

use serde_json::json;
use vault_search::SearchResponse;

use crate::util::{assert_ok, omni_hit, stderr, Env, MockServer, Reply};

/// Two notes named `Deploy`; links to the one in `Ops` by folder, by a relative Markdown
/// link, as an embed, and one hidden in code; a note beside `Archive/Deploy.md` whose
/// `[[Deploy]]` is that one.
fn vault() -> Env {
    let env = Env::new();
    env.write(
        "Ops/Deploy.md",
        "# Deploy\nkubernetes rollout steps. Itself: [[Ops/Deploy#Steps]] [[#Deploy]]\n",
    );
    env.write("Archive/Deploy.md", "# Old deploy\nthe old rollout\n");
    env.write(
        "Hub.md",
        "---\ntags: [moc]\n---\nkubernetes map: see [[Deploy]], again [[Ops/Deploy|here]], \
         and [[Guides/Howto]] and [[Missing]]\n",
    );
    env.write(
        "Guides/Howto.md",
        "kubernetes howto, the [steps](../Ops/Deploy.md)\n",
    );
    env.write("Folder.md", "kubernetes by folder [[Ops/Deploy#Steps]]\n");
    env.write("Embed.md", "cluster notes\n![[Deploy]]\n");
    env.write(
        "Code.md",
        "kubernetes kubernetes in code `[[Deploy]]`\n```\n[[Deploy]]\n```\n",
    );
    env.write("Archive/Note.md", "kubernetes archived [[Deploy]]\n");
    env.write(
        "Other.md",
        "kubernetes kubernetes kubernetes kubernetes, no link at all\n",
    );
    env
}

fn search(env: &Env, args: &[&str]) -> SearchResponse {
    env.search_json(&[&["--source", "local", "-n", "50"], args].concat())
}

/// The hits' paths, sorted.
fn paths(env: &Env, args: &[&str]) -> Vec<String> {
    let mut p: Vec<String> = search(env, args)
        .results
        .into_iter()
        .map(|h| h.path)
        .collect();
    p.sort();
    p
}

/// The one-line error of a search that must fail.
fn refused(env: &Env, args: &[&str]) -> String {
    let out = env.run(&[&["--source", "local"], args].concat());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    err
}

#[test]
fn links_to_selects_the_notes_whose_links_resolve_to_the_note() {
    let env = vault();
    // Words alone find the code and the other Deploy's linker too.
    let all = paths(&env, &["kubernetes"]);
    assert!(all.contains(&"Code.md".to_string()) && all.contains(&"Other.md".to_string()));
    // By folder, by a relative Markdown link, by name; not in code, not the other Deploy.
    assert_eq!(
        paths(&env, &["--links-to", "Ops/Deploy", "kubernetes"]),
        ["Folder.md", "Guides/Howto.md", "Hub.md"]
    );
    // With a tag; `.md` and case as the user writes them.
    assert_eq!(
        paths(
            &env,
            &["--links-to", "ops/deploy.MD", "--tag", "moc", "kubernetes"]
        ),
        ["Hub.md"]
    );
    // Without words: every linking note, the embed too, listed with score 0.
    let listed = search(&env, &["--links-to", "Ops/Deploy.md"]);
    let mut got: Vec<&str> = listed.results.iter().map(|h| h.path.as_str()).collect();
    got.sort_unstable();
    assert_eq!(got, ["Embed.md", "Folder.md", "Guides/Howto.md", "Hub.md"]);
    assert!(listed.results.iter().all(|h| h.score == 0.0));
    assert_eq!(
        paths(&env, &["--links-to", "Ops/Deploy", "--tag", "moc"]),
        ["Hub.md"]
    );
    // The other note named Deploy: only the link written beside it.
    assert_eq!(
        paths(&env, &["--links-to", "Archive/Deploy"]),
        ["Archive/Note.md"]
    );
}

#[test]
fn a_filter_selects_before_the_cut() {
    let env = vault();
    // `Other.md` and `Code.md` outrank every linking note on the word: the filter still fills
    // the one place with a linking note.
    let top = |extra: &[&str]| {
        env.search_json(&[&["--source", "local", "-n", "1"], extra, &["kubernetes"]].concat())
    };
    let first = top(&[]).results[0].path.clone();
    assert!(["Code.md", "Other.md"].contains(&first.as_str()), "{first}");
    let r = top(&["--links-to", "Ops/Deploy"]);
    assert_eq!(r.results.len(), 1);
    assert!(
        ["Folder.md", "Guides/Howto.md", "Hub.md"].contains(&r.results[0].path.as_str()),
        "{:?}",
        r.results[0].path
    );
}

#[test]
fn a_note_named_by_two_files_or_none_is_a_one_line_error() {
    let env = vault();
    env.index_json(&[]);
    let files = |env: &Env| {
        let dir = env.live_index_dir();
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        (dir, names)
    };
    let before = files(&env);
    let err = refused(&env, &["--links-to", "Deploy", "kubernetes"]);
    assert!(
        err.starts_with("vault-search: --links-to Deploy: `Deploy` names 2 files: Archive/Deploy.md, Ops/Deploy.md"),
        "{err}"
    );
    let err = refused(&env, &["--linked-from", "Nowhere"]);
    assert!(
        err.starts_with("vault-search: --linked-from Nowhere: no file `Nowhere`"),
        "{err}"
    );
    let err = refused(&env, &["--links-to", " "]);
    assert!(err.contains("--links-to"), "{err}");
    // The asker's mistake: the index is not rebuilt over it.
    assert_eq!(files(&env), before);
}

#[test]
fn linked_from_selects_the_files_the_note_links_to() {
    let env = vault();
    assert_eq!(
        paths(&env, &["--linked-from", "Hub"]),
        ["Guides/Howto.md", "Ops/Deploy.md"]
    );
    assert_eq!(
        paths(&env, &["--linked-from", "Hub.md", "rollout"]),
        ["Ops/Deploy.md"]
    );
    // Filters AND together: what Hub links to that itself links to Ops/Deploy.
    assert_eq!(
        paths(&env, &["--linked-from", "Hub", "--links-to", "Ops/Deploy"]),
        ["Guides/Howto.md"]
    );
    // A note linking only to itself links to nothing.
    assert!(paths(&env, &["--linked-from", "Ops/Deploy"]).is_empty());
}

#[test]
fn each_hit_counts_the_other_notes_linking_to_it() {
    let env = vault();
    let count = |env: &Env, path: &str| {
        search(env, &["rollout"])
            .results
            .into_iter()
            .find(|h| h.path == path)
            .unwrap_or_else(|| panic!("{path} is no hit"))
            .links_in
    };
    // Hub (twice, counted once), Howto, Folder, Embed; not Code, not itself.
    assert_eq!(count(&env, "Ops/Deploy.md"), Some(4));
    assert_eq!(count(&env, "Archive/Deploy.md"), Some(1));
    env.remove("Hub.md");
    assert_eq!(count(&env, "Ops/Deploy.md"), Some(3));
    // A listing's hits are counted too.
    let listed = search(&env, &["--linked-from", "Folder"]);
    assert_eq!(listed.results[0].links_in, Some(3));
    // In the JSON as a number.
    let out = env.run(&["--json", "--source", "local", "howto"]);
    assert_ok(&out);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["results"][0]["links_in"], json!(0));
}

#[test]
fn omnisearch_never_answers_a_link_filter() {
    let env = vault();
    let body = json!([omni_hit(3.0, "Hub.md", "kubernetes map", Some(8))]);
    let server = MockServer::start(Reply::Json(body.to_string()));
    let port = server.port.to_string();
    // `auto` goes to the local index without asking the plugin.
    let r = env.search_json(&["--port", &port, "--links-to", "Ops/Deploy", "kubernetes"]);
    assert_eq!(r.engine, "local");
    assert_eq!(r.fallback_reason, None);
    assert!(server.requests.lock().unwrap().is_empty());
    // Without the filter the plugin answers, and its hits carry no count.
    let r = env.search_json(&["--port", &port, "kubernetes"]);
    assert_eq!(r.engine, "omnisearch");
    assert_eq!(r.results[0].links_in, None);
    for source in ["omnisearch", "both"] {
        let out = env.run(&[
            "--port",
            &port,
            "--source",
            source,
            "--linked-from",
            "Hub",
            "x",
        ]);
        assert_eq!(out.status.code(), Some(2));
        let err = stderr(&out);
        assert!(
            err.starts_with("vault-search: --links-to and --linked-from need the local engine"),
            "{err}"
        );
    }
}
