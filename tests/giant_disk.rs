//! A giant note's hit is shown from its file (only the passage's stretch is read) while the
//! file has the size and mtime it was indexed with, and from the stored note otherwise; both
//! show the same thing.

use std::time::{Duration, SystemTime};

use crate::util::Env;
use vault_search::SearchHit;

/// A note of about 1 MB: frontmatter with tags and aliases, sections, a fence, long lines, and
/// rare words in the middle and near the end.
fn giant(env: &Env) -> std::path::PathBuf {
    let mut text =
        String::from("---\ntags: [log, dump]\naliases: [Big Log, Everything]\n---\n# Log\n\n");
    let mut k = 0;
    while text.len() < 1_000_000 {
        if k % 400 == 0 {
            text.push_str(&format!("\n## Section {k}\n\n"));
        }
        if k == 2000 {
            text.push_str("```\nfenced okapi sample\n```\n");
        }
        if k == 6000 {
            text.push_str("The okapi grazed near the narwhal pier.\n");
        }
        text.push_str(&format!(
            "entry {k} café ünïcode {}\n",
            "filler ".repeat(k % 30)
        ));
        k += 1;
    }
    text.push_str("## Last\n\nA lone zebra quagga sighting.");
    env.write("Logs/big.md", &text)
}

fn hit(env: &Env, query: &str) -> SearchHit {
    env.search_json(&["--source", "local", "--no-refresh", "--", query])
        .results
        .into_iter()
        .find(|h| h.path == "Logs/big.md")
        .unwrap_or_else(|| panic!("{query}: the giant note is a hit"))
}

fn set_mtime(path: &std::path::Path, t: SystemTime) {
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(t)
        .unwrap();
}

#[test]
fn from_the_file_and_from_the_index_a_hit_looks_the_same() {
    let env = Env::new();
    let path = giant(&env);
    env.index_json(&[]);
    let queries = [
        "zebra quagga",
        "okapi narwhal",
        "\"fenced okapi\"",
        "entry 3217",
    ];
    let on_disk: Vec<SearchHit> = queries.iter().map(|q| hit(&env, q)).collect();
    // A new mtime: the file no longer matches the index, so the stored note is shown.
    let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
    set_mtime(&path, mtime + Duration::from_secs(5));
    for (q, d) in queries.iter().zip(&on_disk) {
        let stored = hit(&env, q);
        assert_eq!(
            (&d.excerpt, d.line, &d.heading, &d.tags, &d.aliases),
            (
                &stored.excerpt,
                stored.line,
                &stored.heading,
                &stored.tags,
                &stored.aliases
            ),
            "{q}"
        );
    }
    assert!(
        on_disk[0].excerpt.contains("zebra quagga"),
        "{:?}",
        on_disk[0]
    );
    assert_eq!(on_disk[0].heading.as_deref(), Some("Last"));
    assert_eq!(on_disk[0].tags, ["log", "dump"]);
    assert_eq!(on_disk[0].aliases, ["Big Log", "Everything"]);
    assert!(
        on_disk[1].excerpt.contains("okapi grazed"),
        "{:?}",
        on_disk[1]
    );
    assert_eq!(on_disk[1].heading.as_deref(), Some("Section 6000"));
    let text = std::fs::read_to_string(&path).unwrap();
    let line = text
        .lines()
        .position(|l| l.contains("okapi grazed"))
        .unwrap() as u64
        + 1;
    assert_eq!(on_disk[1].line, Some(line));
}

#[test]
fn the_passage_is_read_from_the_file_while_it_matches_the_index() {
    let env = Env::new();
    let path = giant(&env);
    env.index_json(&[]);
    let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
    // Same size and mtime, other bytes: what the freshness check trusts, the excerpt trusts.
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("lone zebra", "LONE zebra")).unwrap();
    set_mtime(&path, mtime);
    assert!(hit(&env, "zebra quagga").excerpt.contains("LONE zebra"));
    // Changed (a new mtime): the stored note.
    set_mtime(&path, mtime + Duration::from_secs(5));
    assert!(hit(&env, "zebra quagga").excerpt.contains("lone zebra"));
}

/// A note replaced by a symlink is not read through it, even when the target looks the same.
#[cfg(unix)]
#[test]
fn a_symlink_is_never_followed_to_show_a_hit() {
    let env = Env::new();
    let path = giant(&env);
    env.index_json(&[]);
    let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let outside = env.root.path().join("outside.md");
    std::fs::write(&outside, text.replace("lone zebra", "LONE zebra")).unwrap();
    set_mtime(&outside, mtime);
    std::fs::remove_file(&path).unwrap();
    std::os::unix::fs::symlink(&outside, &path).unwrap();
    let excerpt = hit(&env, "zebra quagga").excerpt;
    assert!(excerpt.contains("lone zebra"), "{excerpt}");
}
