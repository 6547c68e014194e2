//! Trust boundaries through the real binary: what a note's frontmatter, a path's characters and
//! an unreadable file can make the tool say.

use crate::util::{assert_ok, stderr, stdout, Env};

#[test]
fn yaml_null_tags_and_aliases_are_none() {
    let env = Env::new();
    env.write("n.md", "---\ntags: null\naliases: ~\n---\nkotlin daemon\n");
    let r = env.search_json(&["--source", "local", "kotlin"]);
    assert_eq!(r.results[0].path, "n.md");
    assert!(r.results[0].tags.is_empty(), "{:?}", r.results[0].tags);
    assert!(
        r.results[0].aliases.is_empty(),
        "{:?}",
        r.results[0].aliases
    );
    let r = env.search_json(&["--source", "local", "--tag", "null"]);
    assert!(r.results.is_empty(), "no tag named null");
}

#[cfg(unix)]
#[test]
fn control_characters_in_paths_never_reach_the_terminal() {
    let root = tempfile::tempdir().unwrap();
    let vault = root.path().join("v\u{1b}]0;owned\u{7}\u{1b}[31mred");
    std::fs::create_dir_all(&vault).unwrap();
    std::fs::write(vault.join("a.md"), "kotlin\n").unwrap();
    let run = |vault: &std::path::Path, args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_vault-search"))
            .env("VAULT_SEARCH_CACHE_DIR", root.path().join("cache"))
            .env("OMNISEARCH_PORT", crate::util::dead_port().to_string())
            .arg("--vault")
            .arg(vault)
            .args(args)
            .output()
            .unwrap()
    };
    let out = run(&vault, &["status"]);
    assert_ok(&out);
    assert!(!stdout(&out).contains('\u{1b}'), "{:?}", stdout(&out));
    assert!(stdout(&out).contains("red"));
    let out = run(&vault.join("gone\u{1b}[2J"), &["kotlin"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("vault not found"), "{err}");
    assert!(!err.contains('\u{1b}') && !err.contains('\u{7}'), "{err:?}");
}

#[cfg(unix)]
#[test]
fn an_unreadable_note_is_skipped_by_status_as_by_index() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    env.write("ok.md", "kotlin\n");
    let locked = env.write("locked.md", "kotlin\n");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    if std::fs::read(&locked).is_ok() {
        return; // running as root: nothing is unreadable
    }
    let r = env.index_json(&[]);
    let skipped: Vec<&str> = r.skipped_files.iter().map(|s| s.path.as_str()).collect();
    assert_eq!(skipped, ["locked.md"]);
    let out = env.run(&["status", "--json"]);
    assert_ok(&out);
    let st: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(st["changed_since"], 0, "{st}");
    assert_eq!(st["skipped_files"][0]["path"], "locked.md", "{st}");
}
