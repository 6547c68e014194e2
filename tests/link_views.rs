//! The link views for cleaning a vault, through the binary: broken links by how many notes
//! write them, notes apart from attachments, case variants as one target; `--no-refresh`.

use vault_search::{LinksResponse, RelatedResponse};

use crate::util::{assert_ok, stdout, Env};

fn links(env: &Env, args: &[&str]) -> LinksResponse {
    let out = env.run(&[&["--json", "links"], args].concat());
    assert_ok(&out);
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A vault whose broken links are mostly images, as real vaults' are.
fn broken_vault() -> Env {
    let env = Env::new();
    env.write("A.md", "![[shot.png]] [[Meeting Notes]] ![[shot.png]]\n");
    env.write("B.md", "![[shot.png]] [[meeting notes]] [[Zebra]]\n");
    env.write(
        "C.md",
        "[m](Meeting%20Notes.md) ![[a.pdf]] [[Node.js]] [[v1.2]]\n",
    );
    env.write("D.md", "![[shot.png]]\n");
    env
}

/// (target, kind, notes, links, variants) of each broken target, in order.
type Group = (String, String, usize, usize, Vec<String>);

fn groups(r: &LinksResponse) -> Vec<Group> {
    r.unresolved
        .clone()
        .unwrap()
        .into_iter()
        .map(|g| {
            assert_eq!(g.links, g.sources.len());
            (g.target, g.kind, g.notes, g.links, g.variants)
        })
        .collect()
}

fn g(target: &str, kind: &str, notes: usize, links: usize, variants: &[&str]) -> Group {
    let variants = variants.iter().map(|v| v.to_string()).collect();
    (target.into(), kind.into(), notes, links, variants)
}

#[test]
fn broken_links_by_how_many_notes_write_them_notes_apart() {
    let env = broken_vault();
    let all = groups(&links(&env, &["--unresolved"]));
    assert_eq!(
        all,
        [
            g("shot.png", "attachment", 3, 4, &[]),
            g(
                "Meeting Notes",
                "note",
                3,
                3,
                &["Meeting Notes.md", "meeting notes"]
            ),
            g("a.pdf", "attachment", 1, 1, &[]),
            g("Node.js", "note", 1, 1, &[]),
            g("v1.2", "note", 1, 1, &[]),
            g("Zebra", "note", 1, 1, &[]),
        ]
    );
    let notes = groups(&links(&env, &["--unresolved=notes"]));
    let want: Vec<Group> = all.iter().filter(|g| g.1 == "note").cloned().collect();
    assert_eq!(notes, want);
    let attachments = groups(&links(&env, &["--unresolved=attachments"]));
    let want: Vec<Group> = all
        .iter()
        .filter(|g| g.1 == "attachment")
        .cloned()
        .collect();
    assert_eq!(attachments, want);

    // The text view: notes first, each kind counted, each target with its counts.
    let out = env.run(&["links", "--unresolved"]);
    assert_ok(&out);
    let text = stdout(&out);
    let notes_at = text
        .find("Missing notes (4 targets, 6 links):")
        .expect(&text);
    let att_at = text
        .find("Missing attachments (2 targets, 5 links):")
        .expect(&text);
    assert!(notes_at < att_at, "{text}");
    assert!(
        text.contains(
            "Meeting Notes (3 notes, 3 links; also written Meeting Notes.md, meeting notes)"
        ),
        "{text}"
    );
    assert!(
        text.contains("shot.png (3 notes, 4 links)\n  A.md:1\n  A.md:1\n  B.md:1\n  D.md:1\n"),
        "{text}"
    );
    let out = env.run(&["links", "--unresolved=attachments"]);
    assert!(!stdout(&out).contains("Missing notes"));
    let out = env.run(&["links", "--unresolved=images"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn no_refresh_answers_from_the_index_as_it_is() {
    let env = Env::new();
    env.write("A.md", "[[Zebra]] and a word\n");
    env.write("B.md", "a word\n");
    assert_eq!(groups(&links(&env, &["--unresolved"])).len(), 1);
    env.write("Zebra.md", "now here, linking [[A]], a word\n");
    let stale = groups(&links(&env, &["--unresolved", "--no-refresh"]));
    assert!(stale.iter().any(|g| g.0 == "Zebra"));
    let r = links(&env, &["A", "--no-refresh"]);
    assert!(r.incoming.unwrap().is_empty());
    let out = env.run(&["--json", "related", "A", "--no-refresh"]);
    assert_ok(&out);
    let related: RelatedResponse = serde_json::from_slice(&out.stdout).unwrap();
    assert!(related.results.iter().all(|h| h.path != "Zebra.md"));
    // Refreshed, the new note is seen.
    let fresh = groups(&links(&env, &["--unresolved"]));
    assert!(fresh.iter().all(|g| g.0 != "Zebra"));
    assert_eq!(links(&env, &["A"]).incoming.unwrap().len(), 1);
}

#[test]
fn a_notes_links_grouped_by_linking_note_each_line_once() {
    let env = Env::new();
    env.write("Hub.md", "# Setup\nsee [[#Setup]] and [[Other]]\n");
    env.write("Other.md", "x\n");
    env.write("A.md", "[[Hub]] twice [[Hub#Setup]]\nagain [[Hub]]\n");
    env.write("B.md", "once ![[Hub]]\n");
    let out = env.run(&["links", "Hub"]);
    assert_ok(&out);
    let text = stdout(&out);
    assert!(
        text.contains(
            "Outgoing (1):\n  line 2: Other -> Other.md\nWithin the note (1):\n  line 2: #Setup -> Hub.md\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("Incoming (4 links from 2 notes):\n  A.md (3 links)\n    line 1 "),
        "{text}"
    );
    assert_eq!(text.matches("    line 1 ").count(), 2, "{text}");
    assert!(text.contains("    line 2  again [[Hub]]"), "{text}");
    assert!(
        text.contains("  B.md (1 link)\n    line 1 (embed)  "),
        "{text}"
    );
}
