//! `vault-search links` through the real binary: every link form a note, its frontmatter or a
//! canvas writes, what code and comments hide, resolution by path, folder and name as
//! Obsidian does it, attachments on disk, broken links and orphans, and backlinks that follow
//! new, deleted and renamed notes without the linking notes being touched.

use vault_search::{IncomingLink, LinksResponse, OutgoingLink};

use crate::util::{assert_ok, stderr, Env};

fn links(env: &Env, args: &[&str]) -> LinksResponse {
    let out = env.run(&[&["--json", "links"], args].concat());
    assert_ok(&out);
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("bad JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
}

/// (target, resolved, line, kind, heading, block) of an outgoing link.
type Out = (
    String,
    Option<String>,
    u32,
    String,
    Option<String>,
    Option<String>,
);

/// Each outgoing link as an [`Out`].
fn outgoing(r: &LinksResponse) -> Vec<Out> {
    r.outgoing
        .as_deref()
        .unwrap()
        .iter()
        .map(|l: &OutgoingLink| {
            (
                l.target.clone(),
                l.resolved.clone(),
                l.line,
                l.kind.clone(),
                l.heading.clone(),
                l.block.clone(),
            )
        })
        .collect()
}

/// (source, line) of each incoming link.
fn incoming(r: &LinksResponse) -> Vec<(String, u32)> {
    r.incoming
        .as_deref()
        .unwrap()
        .iter()
        .map(|l: &IncomingLink| (l.source.clone(), l.line))
        .collect()
}

fn s(v: &str) -> String {
    v.to_string()
}

fn some(v: &str) -> Option<String> {
    Some(v.to_string())
}

/// A vault with one note writing every form, the notes and files it names, and a canvas.
fn linked_vault() -> Env {
    let env = Env::new();
    env.write(
        "Hub.md",
        "---\n\
         related: \"[[Beta]]\"\n\
         see:\n  - \"[[Projects/Gamma]]\"\n\
         ---\n\
         # Hub\n\
         Plain [[Alpha]] and [[Beta|shown]] and [[Alpha#Setup]] and [[Beta#^b1]] and [[#Hub]].\n\
         Embeds: ![[diagram.png]] ![[missing.png]] ![[Alpha#Setup]]\n\
         Markdown: [g](Projects/Gamma%20Two.md) [r](<Projects/Gamma Two.md>) [web](https://x.org/Alpha.md)\n\
         `[[InCode]]` %% [[InComment]] %% <!-- [[InHtml]] --> [[Nowhere]]\n\
         ```\n[[Fenced]]\n```\n",
    );
    env.write("Alpha.md", "# Setup\nalpha text\n");
    env.write("Beta.md", "beta text ^b1\n");
    env.write("Projects/Gamma.md", "gamma\n");
    env.write(
        "Projects/Gamma Two.md",
        "gamma two links back: [up](../Hub.md)\n",
    );
    env.write_bytes("assets/diagram.png", b"\x89PNG");
    env.write(
        "Board.canvas",
        r##"{"nodes":[
          {"id":"a","type":"text","text":"card about [[Beta]]","x":0,"y":0,"width":10,"height":10},
          {"id":"b","type":"file","file":"Alpha.md","subpath":"#Setup","x":0,"y":20,"width":10,"height":10},
          {"id":"c","type":"link","url":"https://example.org","x":0,"y":40,"width":10,"height":10}]}"##,
    );
    env.write("Lonely.md", "nobody links here\n");
    env
}

#[test]
fn every_link_form_resolved_and_code_and_comments_ignored() {
    let env = linked_vault();
    let r = links(&env, &["Hub"]);
    assert_eq!(r.note.as_deref(), Some("Hub.md"));
    let link = |t: &str, to: Option<&str>, line, kind: &str, h: Option<&str>, b: Option<&str>| {
        (s(t), to.map(s), line, s(kind), h.map(s), b.map(s))
    };
    assert_eq!(
        outgoing(&r),
        [
            link("Beta", Some("Beta.md"), 2, "link", None, None),
            link(
                "Projects/Gamma",
                Some("Projects/Gamma.md"),
                4,
                "link",
                None,
                None
            ),
            link("Alpha", Some("Alpha.md"), 7, "link", None, None),
            link("Beta", Some("Beta.md"), 7, "link", None, None),
            link("Alpha", Some("Alpha.md"), 7, "link", Some("Setup"), None),
            link("Beta", Some("Beta.md"), 7, "link", None, Some("b1")),
            link("", Some("Hub.md"), 7, "link", Some("Hub"), None),
            link(
                "diagram.png",
                Some("assets/diagram.png"),
                8,
                "embed",
                None,
                None
            ),
            link("missing.png", None, 8, "embed", None, None),
            link("Alpha", Some("Alpha.md"), 8, "embed", Some("Setup"), None),
            link(
                "Projects/Gamma Two.md",
                Some("Projects/Gamma Two.md"),
                9,
                "link",
                None,
                None
            ),
            link(
                "Projects/Gamma Two.md",
                Some("Projects/Gamma Two.md"),
                9,
                "link",
                None,
                None
            ),
            link("Nowhere", None, 10, "link", None, None),
        ]
    );
    let shown = r.outgoing.as_deref().unwrap()[3].text.clone();
    assert_eq!(shown.as_deref(), Some("shown"));

    // Backlinks: from the note, its frontmatter, a relative Markdown link and a canvas.
    let alpha = links(&env, &["Alpha.md"]);
    assert_eq!(
        incoming(&alpha),
        [
            (s("Board.canvas"), 3),
            (s("Hub.md"), 7),
            (s("Hub.md"), 7),
            (s("Hub.md"), 8)
        ]
    );
    let canvas = &alpha.incoming.as_deref().unwrap()[0];
    assert_eq!(
        (canvas.kind.as_str(), canvas.heading.as_deref()),
        ("embed", Some("Setup"))
    );
    let hub_in = links(&env, &["Hub.md"]);
    assert_eq!(incoming(&hub_in), [(s("Projects/Gamma Two.md"), 1)]);
    assert_eq!(
        hub_in.incoming.as_deref().unwrap()[0].context,
        "gamma two links back: [up](../Hub.md)"
    );
    let beta = links(&env, &["beta"]);
    assert_eq!(
        incoming(&beta),
        [
            (s("Board.canvas"), 1),
            (s("Hub.md"), 2),
            (s("Hub.md"), 7),
            (s("Hub.md"), 7)
        ]
    );
    let board = links(&env, &["Board.canvas"]);
    assert_eq!(
        outgoing(&board)
            .into_iter()
            .map(|l| (l.0, l.1))
            .collect::<Vec<_>>(),
        [
            (s("Beta"), some("Beta.md")),
            (s("Alpha.md"), some("Alpha.md"))
        ]
    );
    // An attachment has backlinks too.
    let png = links(&env, &["assets/diagram.png"]);
    assert_eq!(incoming(&png), [(s("Hub.md"), 8)]);
}

#[test]
fn broken_links_and_orphans() {
    let env = linked_vault();
    let r = links(&env, &["--unresolved"]);
    let groups: Vec<(String, Vec<(String, u32)>)> = r
        .unresolved
        .unwrap()
        .into_iter()
        .map(|g| {
            (
                g.target,
                g.sources.into_iter().map(|s| (s.source, s.line)).collect(),
            )
        })
        .collect();
    assert_eq!(
        groups,
        [
            (s("missing.png"), vec![(s("Hub.md"), 8)]),
            (s("Nowhere"), vec![(s("Hub.md"), 10)]),
        ]
    );
    let r = links(&env, &["--orphans"]);
    assert_eq!(r.orphans.unwrap(), [s("Lonely.md")]);
}

#[test]
fn same_names_resolve_as_obsidian_does_and_ambiguous_names_are_an_error() {
    let env = Env::new();
    env.write("a/b/Note.md", "deep\n");
    env.write("zzzz/Note.md", "z\n");
    env.write("b/Note.md", "short\n");
    env.write("zzzz/deep/From.md", "[[Note]]\n");
    env.write("zzzz/Beside.md", "[[note]]\n");
    env.write("x/From folder.md", "[[b/Note]] [[sub/Here]]\n");
    env.write("x/sub/Here.md", "here\n");
    let r = links(&env, &["zzzz/deep/From.md"]);
    assert_eq!(outgoing(&r)[0].1, some("b/Note.md"));
    let r = links(&env, &["zzzz/Beside.md"]);
    assert_eq!(outgoing(&r)[0].1, some("zzzz/Note.md"));
    let r = links(&env, &["From folder"]);
    let to: Vec<_> = outgoing(&r).into_iter().map(|l| l.1).collect();
    assert_eq!(to, [some("b/Note.md"), some("x/sub/Here.md")]);
    let r = links(&env, &["b/Note.md"]);
    assert_eq!(
        incoming(&r),
        [(s("x/From folder.md"), 1), (s("zzzz/deep/From.md"), 1)]
    );

    // A name three notes share: one line naming them, exit 2.
    let out = env.run(&["links", "Note"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    for p in ["a/b/Note.md", "b/Note.md", "zzzz/Note.md"] {
        assert!(err.contains(p), "{err}");
    }
    let out = env.run(&["links", "No such note"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).starts_with("vault-search: no file"));
}

#[test]
fn backlinks_follow_new_deleted_and_renamed_notes() {
    let env = Env::new();
    env.write("One.md", "see [[Later]]\n");
    env.write("Two.md", "also [Later](Later.md)\n");
    env.backdate(&["One.md", "Two.md"]);
    let r = links(&env, &["--unresolved"]);
    assert_eq!(r.unresolved.unwrap()[0].sources.len(), 2);

    // A new note takes the links that named it; the notes linking to it are not read again.
    env.write("Folder/Later.md", "here now\n");
    let report = env.index_json(&[]);
    assert_eq!((report.added, report.updated), (1, 0));
    let r = links(&env, &["Later"]);
    assert_eq!(r.note.as_deref(), Some("Folder/Later.md"));
    assert_eq!(incoming(&r), [(s("One.md"), 1), (s("Two.md"), 1)]);
    assert!(links(&env, &["--unresolved"])
        .unresolved
        .unwrap()
        .is_empty());

    // Renamed, the links follow the name: Obsidian would rewrite them, here they break.
    std::fs::rename(
        env.vault.join("Folder/Later.md"),
        env.vault.join("Folder/Renamed.md"),
    )
    .unwrap();
    let r = links(&env, &["Renamed"]);
    assert!(incoming(&r).is_empty());
    env.write("Three.md", "now [[Renamed]]\n");
    let r = links(&env, &["Renamed"]);
    assert_eq!(incoming(&r), [(s("Three.md"), 1)]);
    let broken = links(&env, &["--unresolved"]).unresolved.unwrap();
    assert_eq!(broken.len(), 1);
    assert_eq!(broken[0].target, "Later");

    // Deleted, its incoming links turn unresolved.
    env.remove("Folder/Renamed.md");
    let broken = links(&env, &["--unresolved"]).unresolved.unwrap();
    let targets: Vec<&str> = broken.iter().map(|g| g.target.as_str()).collect();
    assert_eq!(targets, ["Later", "Renamed"]);
    // The one that pointed at it keeps its text: the note was never re-read.
    let r = links(&env, &["One.md"]);
    assert_eq!(outgoing(&r)[0].1, None);
}

#[test]
fn a_query_that_is_the_word_links_searches_with_the_search_form() {
    let env = Env::new();
    env.write("Page.md", "a page about links\n");
    let r = env.search_json(&["search", "--source", "local", "links"]);
    assert_eq!(r.results[0].path, "Page.md");
    let out = env.run(&["links"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stderr(&out).lines().count(), 1);
    let out = env.run(&["links", "Page", "--orphans"]);
    assert_eq!(out.status.code(), Some(2));
    // Text output names the note and both lists.
    let out = env.run(&["links", "Page"]);
    assert_ok(&out);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Page.md")
            && text.contains("Outgoing (0)")
            && text.contains("Incoming (0 links from 0 notes)")
    );
}
