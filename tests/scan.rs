//! Lines built to make a scan over a line quadratic — backtick runs of every length, a flood
//! of `[a](` with one `)` far away, code spans between tags — are indexed in a few passes, and
//! what they hold is still found, through the real binary.

use vault_search::LinksResponse;

use crate::util::{assert_ok, Env};

/// A note whose lines each cost a scan that rescans the rest of the line minutes.
fn pathological_env() -> Env {
    let env = Env::new();
    // 1.1 MB: runs of 2…1,500 backticks, none closed, then what counts: a link and a tag.
    let runs: String = (2..=1500).map(|n| "`".repeat(n) + " ").collect();
    let opens = "[a](".repeat(150_000) + ")";
    let spans = "`a` #t ".repeat(50_000);
    env.write(
        "Dump.md",
        &format!(
            "# Dump\n\n{runs} [[Target]] #scantag %%[[Hidden]]%% `[[Code]]`\n\
             {opens} [second](Second.md)\n{spans}\n"
        ),
    );
    env.write("Target.md", "# Target\n\nkotlin\n");
    env.write("Second.md", "# Second\n\nkotlin\n");
    env
}

#[test]
fn pathological_lines_are_scanned_in_a_few_passes() {
    let env = pathological_env();
    vault_search::__scan_work();
    vault_search::index(&vault_search::IndexOptions::new(&env.vault, &env.cache)).unwrap();
    // Rescanning the rest of the line from each run cost ~750 times the line.
    let worst = vault_search::__scan_work();
    assert!(worst <= 16, "a line cost {worst} times its length to scan");

    let out = env.run(&["--json", "links", "Dump.md"]);
    assert_ok(&out);
    let r: LinksResponse = serde_json::from_slice(&out.stdout).unwrap();
    let targets: Vec<(&str, u32)> = r
        .outgoing
        .as_deref()
        .unwrap()
        .iter()
        .map(|l| (l.target.as_str(), l.line))
        .collect();
    assert_eq!(targets, [("Target", 3), ("Second.md", 4)]);

    let out = env.run(&["--json", "--source", "local", "--tag", "scantag", "dump"]);
    assert_ok(&out);
    let r: vault_search::SearchResponse = serde_json::from_slice(&out.stdout).unwrap();
    let paths: Vec<&str> = r.results.iter().map(|h| h.path.as_str()).collect();
    assert_eq!(paths, ["Dump.md"]);
}
