//! What the index keeps of a note's links and of a giant note's checkpoint table, through the
//! binary: tantivy keeps at most 65,535 bytes of a fast value, so a map of content naming
//! thousands of notes, or the table of a note of megabytes, is stored in parts; what is still
//! cut is said in the answer's warnings.

use std::time::{Duration, SystemTime};

use vault_search::LinksResponse;

use serde_json::json;

use crate::mcp::{text, Session};
use crate::util::{assert_ok, Env};

fn links(env: &Env, args: &[&str]) -> LinksResponse {
    let out = env.run(&[&["--json", "links"], args].concat());
    assert_ok(&out);
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("bad JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
}

fn project(i: usize) -> String {
    format!("Project note number {i:04} about the quarterly roadmap and its owners")
}

/// A map of content linking 3,000 notes: about 300 KB of links, far past one value.
#[test]
fn a_map_of_content_keeps_every_link() {
    let env = Env::new();
    let mut moc = String::from("# Projects\n\n");
    for i in 0..3000 {
        let name = project(i);
        env.write(
            &format!("Projects/{name}.md"),
            &format!("# {i}\nbody {i}\n"),
        );
        moc.push_str(&format!("- [[{name}|Project {i}]]\n"));
    }
    env.write("Index.md", &moc);
    let r = links(&env, &["Index"]);
    let out = r.outgoing.unwrap();
    assert_eq!(out.len(), 3000);
    assert!(out.iter().all(|l| l.resolved.is_some()), "all resolve");
    assert_eq!(out[2999].target, project(2999));
    assert_eq!(out[2999].line, 3002);
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    let orphans = links(&env, &["--orphans"]);
    assert_eq!(orphans.orphans.unwrap(), Vec::<String>::new());
    assert!(orphans.warnings.is_empty(), "{:?}", orphans.warnings);
    // The backlinks of a late note, and the filter on them.
    let late = links(&env, &[&format!("Projects/{}", project(2950))]);
    let incoming = late.incoming.unwrap();
    assert_eq!(incoming.len(), 1);
    assert_eq!(
        (incoming[0].source.as_str(), incoming[0].line),
        ("Index.md", 2953)
    );
    let hits = env.search_json(&[
        "--source",
        "local",
        "--links-to",
        &project(2950),
        "projects",
    ]);
    let paths: Vec<&str> = hits.results.iter().map(|h| h.path.as_str()).collect();
    assert_eq!(paths, ["Index.md"]);
}

/// Links past a note's cap, and one link longer than a value: kept as far as they go, and
/// said so by `links NOTE` and by the whole-vault queries.
#[test]
fn links_still_cut_are_warned_about() {
    let env = Env::new();
    env.write("Target.md", "# Target\n");
    env.write("Many.md", &"[[Target]] ".repeat(20_100));
    let long = format!("[[Target|{}]]\n[[Target]] after\n", "x".repeat(70_000));
    env.write("Long.md", &long);
    env.write("Fine.md", "[[Target]]\n");
    let many = links(&env, &["Many"]);
    assert_eq!(many.outgoing.unwrap().len(), 20_000);
    assert!(
        many.warnings
            .iter()
            .any(|w| w.starts_with("Many.md: only its first 20000 links")),
        "{:?}",
        many.warnings
    );
    let long = links(&env, &["Long"]);
    let out = long.outgoing.unwrap();
    assert_eq!(out.len(), 2);
    assert!(out[0].text.as_ref().unwrap().len() < 65_535);
    assert_eq!(out[0].resolved.as_deref(), Some("Target.md"));
    assert_eq!(out[1].line, 2);
    assert!(
        long.warnings
            .iter()
            .any(|w| w.contains("1 link(s) longer than 65535 bytes")),
        "{:?}",
        long.warnings
    );
    assert!(links(&env, &["Fine"]).warnings.is_empty());
    for query in ["--orphans", "--unresolved"] {
        let w = links(&env, &[query]).warnings;
        assert!(
            w.iter().any(|w| w.starts_with("Long.md: ")),
            "{query}: {w:?}"
        );
        assert!(
            w.iter().any(|w| w.starts_with("Many.md: ")),
            "{query}: {w:?}"
        );
        assert_eq!(w.len(), 2, "{w:?}");
    }
    // The overview counts them.
    let mut s = Session::ready(&env, &[]);
    let r = s.call("vault_overview", json!({}));
    assert_eq!(r["structuredContent"]["links"]["cut_notes"], 2, "{r}");
    assert!(text(&r).contains("the links of 2 notes are cut"), "{r}");
    assert_eq!(s.finish(), Some(0));
}

fn set_mtime(path: &std::path::Path, t: SystemTime) {
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(t)
        .unwrap();
}

/// A note of 3.5 MB: about 1.2 million tokens, a checkpoint table of about 90 KB. A hit near
/// its end is shown from the file (same size and mtime, other bytes: the file's text shows),
/// which takes the checkpoints around it — past the first 65,535 bytes of the table.
#[test]
fn a_giant_notes_checkpoints_reach_its_end() {
    let env = Env::new();
    let mut text = String::from("# Log\n\n");
    let mut k = 0;
    while text.len() < 3_500_000 {
        text.push_str(&format!("ab cd ef gh ij kl mn op {k}\n"));
        k += 1;
    }
    text.push_str("## Last\n\nA lone zebra quagga sighting.\n");
    let path = env.write("big.md", &text);
    env.index_json(&[]);
    let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
    std::fs::write(&path, text.replace("lone zebra", "LONE zebra")).unwrap();
    set_mtime(&path, mtime);
    let hit = |q: &str| {
        env.search_json(&["--source", "local", "--no-refresh", "--", q])
            .results
            .into_iter()
            .find(|h| h.path == "big.md")
            .unwrap()
    };
    let shown = hit("zebra quagga");
    assert!(shown.excerpt.contains("LONE zebra"), "{shown:?}");
    assert_eq!(shown.heading.as_deref(), Some("Last"));
    // Changed since: the stored note, at the same line.
    set_mtime(&path, mtime + Duration::from_secs(5));
    let stored = hit("zebra quagga");
    assert!(stored.excerpt.contains("lone zebra"), "{stored:?}");
    assert_eq!(stored.line, shown.line);
}
