//! Links under odd names, through the real binary: files only case tells apart, private-use
//! characters in names, many files of one name; and Obsidian's Excluded files kept out of
//! every MCP tool, whatever the spelling of their path.

use vault_search::LinksResponse;

use crate::util::{assert_ok, Env};

fn links(env: &Env, args: &[&str]) -> LinksResponse {
    let out = env.run(&[&["--json", "links"], args].concat());
    assert_ok(&out);
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("bad JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
}

fn sources(r: &LinksResponse) -> Vec<String> {
    r.incoming
        .as_deref()
        .unwrap_or_default()
        .iter()
        .map(|l| l.source.clone())
        .collect()
}

fn resolved(r: &LinksResponse) -> Vec<Option<String>> {
    r.outgoing
        .as_deref()
        .unwrap_or_default()
        .iter()
        .map(|l| l.resolved.clone())
        .collect()
}

/// `Note.md` and `note.md` are two notes where the disk tells them apart: each has its own
/// backlinks, a link spelt as one of them names that one, and neither is an orphan.
#[cfg(target_os = "linux")]
#[test]
fn files_only_case_tells_apart_are_two_notes() {
    let env = Env::new();
    env.write("Note.md", "upper\n");
    env.write("note.md", "lower\n");
    env.write("a.md", "[[Note]]\n");
    env.write("b.md", "[[note]]\n");
    let r = links(&env, &["Note.md"]);
    assert_eq!(r.note.as_deref(), Some("Note.md"));
    assert_eq!(sources(&r), ["a.md"]);
    let r = links(&env, &["note.md"]);
    assert_eq!(r.note.as_deref(), Some("note.md"));
    assert_eq!(sources(&r), ["b.md"]);
    assert_eq!(resolved(&links(&env, &["b.md"])), [Some("note.md".into())]);
    assert_eq!(
        links(&env, &["--orphans"]).orphans.unwrap_or_default(),
        Vec::<String>::new()
    );
    // A spelling that is neither names both: the asker must choose.
    let out = env.run(&["links", "NOTE.md"]);
    assert_eq!(out.status.code(), Some(2));
    let err = crate::util::stderr(&out);
    assert!(err.contains("Note.md") && err.contains("note.md"), "{err}");
}
