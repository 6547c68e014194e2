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

/// A private-use character a note writes in a link is that character: the link names the
/// file literally so named (listed with its escapes), never the file whose name is the byte
/// those characters stand for in a listed path.
#[cfg(target_os = "linux")]
#[test]
fn a_private_use_character_in_a_link_is_no_escaped_byte() {
    use std::os::unix::ffi::OsStrExt;
    let env = Env::new();
    let byte_file = env.vault.join(std::ffi::OsStr::from_bytes(b"\x80.md"));
    std::fs::write(byte_file, "a name that is no UTF-8\n").unwrap();
    env.write("\u{ef80}.md", "a name with a private-use character\n");
    env.write("a.md", "[[\u{ef80}]]\n");
    let literal = "\u{efee}\u{efbe}\u{ef80}.md";
    assert_eq!(
        resolved(&links(&env, &["a.md"])),
        [Some(literal.to_string())]
    );
    assert_eq!(sources(&links(&env, &[literal])), ["a.md"]);
    assert_eq!(
        sources(&links(&env, &["\u{ef80}.md"])),
        Vec::<String>::new()
    );
    let orphans = links(&env, &["--orphans"]).orphans.unwrap_or_default();
    assert_eq!(orphans, ["\u{ef80}.md"]);
}

/// A vault whose `app.json` excludes `Ärchiv/`, with notes linking to and from it.
fn excluding_vault() -> Env {
    let env = Env::new();
    env.write(
        ".obsidian/app.json",
        r#"{"userIgnoreFilters": ["Ärchiv/"]}"#,
    );
    env.write(
        "Ärchiv/old.md",
        "---\nsecretkey: 1\ntags: [hiddentag]\n---\n# Old\n\nquokka marmot wombat, see [[Hub]]\n",
    );
    env.write(
        "Hub.md",
        "# Hub\n\nquokka marmot wombat: [[Ärchiv/old]] and [[Live]]\n",
    );
    env.write("Live.md", "# Live\n\nback to [[Hub]], quokka\n");
    assert_ok(&env.run(&["index"]));
    env
}

/// Obsidian's Excluded files stay out of `read_note`'s links, `related_notes` (as an answer,
/// a reason, or the note asked about), `vault_overview`'s notes, folders, tags and keys, and
/// `read_note` itself, through any spelling of the path.
#[test]
fn excluded_files_stay_out_of_every_mcp_tool() {
    use crate::mcp::{is_error, text, Session};
    use serde_json::json;
    let env = excluding_vault();
    let mut s = Session::ready(&env, &[]);
    let t = text(&s.call("read_note", json!({"path": "Hub.md"})));
    assert!(
        t.contains("links out (1): Live.md\nlinks in (1): Live.md\n"),
        "{t}"
    );
    let r = s.call("related_notes", json!({"path": "Hub.md"}));
    assert!(!is_error(&r) && !r.to_string().contains("rchiv"), "{r}");
    let r = s.call("related_notes", json!({"path": "Live.md"}));
    assert!(!is_error(&r) && !r.to_string().contains("rchiv"), "{r}");
    let r = s.call("related_notes", json!({"path": "Ärchiv/old.md"}));
    assert!(is_error(&r) && text(&r).contains("Excluded files"), "{r}");
    let mut spellings = vec!["Ärchiv/old.md".to_string()];
    if cfg!(unix) {
        // `Ä` as the escapes of its two UTF-8 bytes: read back, the same file.
        spellings.push("\u{efc3}\u{ef84}rchiv/old.md".to_string());
    }
    for path in spellings {
        let r = s.call("read_note", json!({"path": path}));
        assert!(is_error(&r) && !text(&r).contains("wombat"), "{path}: {r}");
    }
    // The overview counts what search can show.
    let r = s.call("vault_overview", json!({}));
    let t = text(&r);
    assert!(t.starts_with("2 notes"), "{t}");
    // The excluded note's own link is not counted; Hub's link to it resolves.
    assert!(t.contains("links: 3 (0 broken)"), "{t}");
    for hidden in ["rchiv", "hiddentag", "secretkey"] {
        assert!(!r.to_string().contains(hidden), "{hidden}: {r}");
    }
    assert_eq!(s.finish(), Some(0));
}

/// A name 30 files share is an error of one short line: the first paths and a count.
#[test]
fn a_name_many_files_share_is_an_error_of_bounded_length() {
    let env = Env::new();
    for i in 0..30 {
        env.write(&format!("f{i:02}/Note.md"), "same name\n");
    }
    let out = env.run(&["links", "Note"]);
    assert_eq!(out.status.code(), Some(2));
    let err = crate::util::stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("names 30 files: f00/Note.md, ") && err.contains(" and 10 more;"),
        "{err}"
    );
    assert!(!err.contains("f29/Note.md"), "{err}");
}

/// `read_note`'s links section stays small when one line writes many long links.
#[test]
fn read_note_link_lists_are_held_to_their_budget() {
    use crate::mcp::{text, Session};
    use serde_json::json;
    let env = Env::new();
    let line: String = (0..60)
        .map(|i| format!("[[{i:02} {}]] ", "long target ".repeat(70)))
        .collect();
    env.write("Long.md", &format!("{line}\n"));
    assert_ok(&env.run(&["index"]));
    let mut s = Session::ready(&env, &[]);
    let t = text(&s.call("read_note", json!({"path": "Long.md"})));
    let section = &t[t.find("\nlinks out (60): -; unresolved: ").expect(&t)..];
    assert!(section.len() < 10_000, "{}", section.len());
    assert!(section.contains(" more\nlinks in (0): -"), "{section}");
    assert_eq!(s.finish(), Some(0));
}
