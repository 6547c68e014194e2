//! `vault-search related` through the real binary: link neighbours both ways, co-citation,
//! shared distinctive words, the reasons each hit gives, the note itself left out, `-n` and
//! its bound, a deleted linking note dropping out, and the one-line errors.

use vault_search::{RelatedHit, RelatedResponse};

use crate::util::{assert_ok, stderr, Env};

fn related(env: &Env, args: &[&str]) -> RelatedResponse {
    let out = env.run(&[&["--json", "related"], args].concat());
    assert_ok(&out);
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("bad JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
}

fn hit<'a>(r: &'a RelatedResponse, path: &str) -> Option<&'a RelatedHit> {
    r.results.iter().find(|h| h.path == path)
}

fn paths(r: &RelatedResponse) -> Vec<&str> {
    r.results.iter().map(|h| h.path.as_str()).collect()
}

/// A vault with a map of content, notes it cites, one linking back, one sharing words only,
/// and filler notes so that common words are common.
fn vault() -> Env {
    let env = Env::new();
    env.write(
        "Maps/Deploy MOC.md",
        "# Deploy\nStart at [[Helm charts]], then [[Canary releases]].\n",
    );
    env.write(
        "Helm charts.md",
        "# Helm charts\nThe helm chart values for each service and the rollout order.\n",
    );
    env.write(
        "Canary releases.md",
        "# Canary\nA canary takes a slice of the traffic before the rollout goes on.\n",
    );
    env.write(
        "Rollback.md",
        "# Rollback\nWhen the canary fails, see [[Helm charts]] to pin the old release.\n",
    );
    env.write(
        "Kubernetes rollout notes.md",
        "# Notes\nkubectl rollout status, helm upgrade, canary weights, rollout history.\n",
    );
    for (i, topic) in [
        "gardening",
        "cooking",
        "travel",
        "reading",
        "music",
        "sports",
    ]
    .iter()
    .enumerate()
    {
        env.write(
            &format!("Other/Note {i}.md"),
            &format!("# {topic}\nSome words about {topic} and the things of the day for it.\n"),
        );
    }
    env
}

#[test]
fn links_cocitation_and_shared_words_each_say_why() {
    let env = vault();
    let r = related(&env, &["Canary releases"]);
    assert_eq!(r.note, "Canary releases.md");
    assert!(hit(&r, "Canary releases.md").is_none(), "the note itself");
    // Linked from the map of content: the strongest reason, first.
    let moc = hit(&r, "Maps/Deploy MOC.md").unwrap();
    assert!(moc.reasons.contains(&"links here".to_string()), "{moc:?}");
    assert_eq!(r.results[0].path, "Maps/Deploy MOC.md");
    // Cited together with it by the map of content.
    let helm = hit(&r, "Helm charts.md").unwrap();
    assert!(
        helm.reasons
            .contains(&"cited with it in Maps/Deploy MOC.md".to_string()),
        "{helm:?}"
    );
    // No link at all: its words.
    let notes = hit(&r, "Kubernetes rollout notes.md").unwrap();
    let shares = notes
        .reasons
        .iter()
        .find_map(|r| r.strip_prefix("shares: "))
        .unwrap_or_else(|| panic!("{notes:?}"));
    assert!(
        shares.split(", ").any(|w| w == "canary" || w == "rollout"),
        "{shares}"
    );
    // Notes on other topics share only common words, if anything: below every neighbour.
    let last_neighbour = r
        .results
        .iter()
        .position(|h| h.path == "Kubernetes rollout notes.md")
        .unwrap();
    for (i, h) in r.results.iter().enumerate() {
        if h.path.starts_with("Other/") {
            assert!(i > last_neighbour, "{:?}", paths(&r));
        }
    }
    // Ranked by score, ties by path, every hit with a reason.
    for w in r.results.windows(2) {
        assert!(
            w[0].score > w[1].score || (w[0].score == w[1].score && w[0].path < w[1].path),
            "{:?}",
            r.results
        );
    }
    assert!(r
        .results
        .iter()
        .all(|h| !h.reasons.is_empty() && h.score > 0.0));
    // The same answer again.
    assert_eq!(paths(&related(&env, &["Canary releases"])), paths(&r));
}

#[test]
fn both_directions_of_a_link() {
    let env = vault();
    let r = related(&env, &["Helm charts.md"]);
    for (path, why) in [
        ("Maps/Deploy MOC.md", "links here"),
        ("Rollback.md", "links here"),
    ] {
        let h = hit(&r, path).unwrap_or_else(|| panic!("{path}: {:?}", paths(&r)));
        assert!(h.reasons.contains(&why.to_string()), "{h:?}");
    }
    let r = related(&env, &["Maps/Deploy MOC"]);
    for path in ["Helm charts.md", "Canary releases.md"] {
        let h = hit(&r, path).unwrap();
        assert!(h.reasons.contains(&"linked from here".to_string()), "{h:?}");
    }
    // Rollback links to a note the map of content links to too.
    let h = hit(&r, "Rollback.md").unwrap();
    assert!(
        h.reasons
            .contains(&"also links to Helm charts.md".to_string()),
        "{h:?}"
    );
}

#[test]
fn the_limit_and_its_bound() {
    let env = vault();
    let all = related(&env, &["Helm charts"]);
    assert!(all.results.len() > 2, "{:?}", paths(&all));
    let two = related(&env, &["Helm charts", "-n", "2"]);
    assert_eq!(paths(&two), paths(&all)[..2]);
    for bad in ["0", "101", "x"] {
        let out = env.run(&["related", "Helm charts", "-n", bad]);
        assert_eq!(out.status.code(), Some(2), "-n {bad}");
        assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
    }
}

#[test]
fn a_deleted_linking_note_drops_out() {
    let env = vault();
    let r = related(&env, &["Helm charts"]);
    assert!(hit(&r, "Rollback.md").is_some());
    env.remove("Rollback.md");
    let r = related(&env, &["Helm charts"]);
    assert!(hit(&r, "Rollback.md").is_none(), "{:?}", paths(&r));
    // The map of content still links here.
    assert!(hit(&r, "Maps/Deploy MOC.md").is_some());
}

#[test]
fn unknown_and_ambiguous_notes_are_one_line_errors() {
    let env = vault();
    env.write("a/Same.md", "one\n");
    env.write("b/Same.md", "two\n");
    for (name, says) in [("Nowhere", "no file `Nowhere`"), ("Same", "names 2 files")] {
        let out = env.run(&["related", name]);
        assert_eq!(out.status.code(), Some(2), "{name}");
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.starts_with("vault-search: ") && err.contains(says),
            "{err}"
        );
    }
    let r = related(&env, &["a/Same.md"]);
    assert_eq!(r.note, "a/Same.md");
    // A note without links or shared words: an empty list, not an error.
    env.write("Lonely.md", "zzyzx qwxv\n");
    assert!(related(&env, &["Lonely"]).results.is_empty());
}

#[test]
fn text_output_and_the_word_related_as_a_query() {
    let env = vault();
    env.write("Page.md", "a page about related work\n");
    let out = env.run(&["related", "Helm charts"]);
    assert_ok(&out);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Related to Helm charts.md"), "{text}");
    assert!(
        text.contains("Rollback.md") && text.contains("links here"),
        "{text}"
    );
    let r = env.search_json(&["search", "--source", "local", "related"]);
    assert_eq!(r.results[0].path, "Page.md");
}

#[test]
fn text_without_spaces_shares_its_words_too() {
    let env = vault();
    env.write("東京.md", "東京タワーの夜景がきれいだった\n");
    env.write("夜景.md", "東京タワーの夜景を見に行った\n");
    env.write("大阪.md", "大阪城の桜が満開\n");
    let r = related(&env, &["東京"]);
    assert_eq!(r.results[0].path, "夜景.md", "{:?}", r.results);
    assert!(
        r.results[0].reasons[0].starts_with("shares: "),
        "{:?}",
        r.results
    );
}
