//! Passages and token budgets through the binary and MCP: every passage is the note's own
//! lines at the numbers it names, and no budgeted answer is ever over its budget, whatever the
//! text (English, code, CJK), the note's size or the number of hits.

use crate::mcp::{is_error, structured, text, Session};
use crate::util::{assert_ok, stderr, stdout, Env};
use serde_json::json;
use vault_search::{estimate_tokens, SearchResponse};

const GUIDE: &str = "---\ntags: [ops]\n---\n# Backup guide\n\nWhy we back up.\n\n## Restore\n\
Stop the service first.\nThen run the restore script:\n\n```bash\n# not a heading\nrestore --from tape\n```\n\n\
Check the checksums afterwards.\n\n## Rotation\nTapes rotate weekly.\n";

/// A vault with English prose, code, CJK text, a canvas and a giant note (shown from its
/// file) that all answer `restore`.
fn vault() -> Env {
    let env = Env::new();
    env.write("Ops/backup.md", GUIDE);
    env.write(
        "Ops/script.md",
        "# Script\n\n```rust\nfn restore(from: &str) -> Result<(), Error> {\n    let tape = open(from)?;\n    tape.restore_all()\n}\n```\n",
    );
    env.write(
        "中文/恢复.md",
        "# 恢复数据\n\n先停止服务。然后运行 restore 命令，从磁带恢复全部数据。\n\n## 检查\n恢复后检查校验和。\n",
    );
    env.write(
        "Board.canvas",
        r#"{"nodes":[{"id":"a","type":"text","text":"restore drill on friday\nsecond card line","x":0,"y":0,"width":10,"height":10}],"edges":[]}"#,
    );
    let mut giant = String::from("# Log\n\n");
    let mut k = 0;
    while giant.len() < 300_000 {
        if k % 500 == 0 {
            giant.push_str(&format!("\n## Week {k}\n\n"));
        }
        if k == 3000 {
            giant.push_str("The restore from tape took four hours.\n");
        }
        giant.push_str(&format!("entry {k} routine checks passed without notes\n"));
        k += 1;
    }
    env.write("Logs/giant.md", &giant);
    for i in 0..120 {
        env.write(
            &format!("Many/note {i}.md"),
            &format!("# Note {i}\n\nA restore note number {i} with some words.\n"),
        );
    }
    env
}

/// Each passage's lines are the file's lines at its numbers (trailing white space aside).
fn assert_real_lines(env: &Env, r: &SearchResponse) {
    for h in &r.results {
        if h.kind != vault_search::FileKind::Note {
            for p in &h.passages {
                assert_eq!((p.line, p.end_line), (None, None), "{h:?}");
            }
            continue;
        }
        let file = std::fs::read_to_string(env.vault.join(&h.path)).unwrap();
        let lines: Vec<&str> = file.lines().collect();
        for p in &h.passages {
            let (a, b) = (p.line.unwrap(), p.end_line.unwrap());
            let shown: Vec<&str> = p.text.split('\n').collect();
            assert_eq!(shown.len() as u64, b - a + 1, "{p:?}");
            for (i, l) in shown.iter().enumerate() {
                let real = lines[a as usize - 1 + i].trim_end();
                let l = l.trim_matches('…');
                assert!(
                    real.contains(l),
                    "{}:{} is {real:?}, the passage shows {l:?}",
                    h.path,
                    a as usize + i
                );
            }
        }
    }
}

#[test]
fn passages_are_the_notes_own_lines_under_their_heading_path() {
    let env = vault();
    let r = env.search_json(&["--source", "local", "-n", "200", "--", "restore"]);
    assert!(r.results.len() > 100, "{}", r.results.len());
    assert_real_lines(&env, &r);
    let guide = r
        .results
        .iter()
        .find(|h| h.path == "Ops/backup.md")
        .unwrap();
    let p = &guide.passages[0];
    assert_eq!(p.heading.as_deref(), Some("Backup guide > Restore"));
    assert!(
        p.text.contains("## Restore\nStop the service first."),
        "{p:?}"
    );
    assert!(p.text.contains("restore --from tape"), "{p:?}");
    assert!(!p.text.contains("tags"), "frontmatter is no passage: {p:?}");
    let giant = r
        .results
        .iter()
        .find(|h| h.path == "Logs/giant.md")
        .unwrap();
    assert!(
        giant.passages[0].text.contains("restore from tape"),
        "{giant:?}"
    );
    // A giant note is read around the hit only: the nearest heading.
    assert_eq!(giant.passages[0].heading.as_deref(), Some("Week 3000"));
    let cjk = r.results.iter().find(|h| h.path == "中文/恢复.md").unwrap();
    assert_eq!(cjk.passages[0].heading.as_deref(), Some("恢复数据"));
    let canvas = r.results.iter().find(|h| h.path == "Board.canvas").unwrap();
    assert!(
        canvas.passages[0].text.contains("restore drill"),
        "{canvas:?}"
    );

    // Text for people: the excerpt by default, the numbered passage with --passages.
    let plain = stdout(&env.run(&["--source", "local", "-n", "3", "--", "checksums"]));
    assert!(!plain.contains("| Check the checksums"), "{plain}");
    let out = env.run(&[
        "--source",
        "local",
        "-n",
        "3",
        "--passages",
        "--",
        "checksums",
    ]);
    assert_ok(&out);
    let shown = stdout(&out);
    assert!(shown.contains("[lines "), "{shown}");
    assert!(
        shown.contains("   | Check the checksums afterwards."),
        "{shown}"
    );
}

#[test]
fn no_budgeted_answer_is_over_its_budget() {
    let env = vault();
    let queries = [
        "restore",
        "恢复 数据",
        "tape restore_all Error",
        "routine checks",
    ];
    for q in queries {
        for n in ["1", "100"] {
            for budget in [200, 500, 1000, 5000, 20_000] {
                let b = budget.to_string();
                let args = [
                    "--source", "local", "-n", n, "--json", "--budget", &b, "--", q,
                ];
                let out = env.run(&args);
                assert_ok(&out);
                let (json, err) = (stdout(&out), stderr(&out));
                let used = estimate_tokens(&json) + estimate_tokens(&err);
                assert!(used <= budget, "{q} -n {n}: {used} > {budget}\n{json}");
                let r: SearchResponse = serde_json::from_str(&json).unwrap();
                // The smallest budgets may go to the answer's frame alone (the vault's path is
                // long on Windows, and spelt with escapes): from 500 on, a hit always fits.
                assert!(
                    budget < 500 || !r.results.is_empty(),
                    "{q} -n {n} --budget {budget}: no hits"
                );
                assert_real_lines(&env, &r);
                let args = [
                    "--source",
                    "local",
                    "-n",
                    n,
                    "--passages",
                    "--budget",
                    &b,
                    "--",
                    q,
                ];
                let out = env.run(&args);
                assert_ok(&out);
                let used = estimate_tokens(&stdout(&out)) + estimate_tokens(&stderr(&out));
                assert!(used <= budget, "text, {q} -n {n}: {used} > {budget}");
            }
        }
    }
    // A larger budget shows more: the best hit's passage whole.
    let small = env.search_json(&["--source", "local", "--budget", "200", "--", "restore tape"]);
    let large = env.search_json(&[
        "--source",
        "local",
        "--budget",
        "20000",
        "--",
        "restore tape",
    ]);
    let size = |r: &SearchResponse| -> usize {
        r.results
            .iter()
            .flat_map(|h| &h.passages)
            .map(|p| p.text.len())
            .sum()
    };
    assert!(size(&small) < size(&large), "{small:?}");
    assert!(
        small.warnings.iter().any(|w| w.contains("budget")),
        "{small:?}"
    );
    // Out of range: one line, exit 2.
    for args in [
        &["--budget", "50", "restore"][..],
        &["--budget", "500", "--source", "both", "restore"],
    ] {
        let out = env.run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
    }
}

#[test]
fn mcp_answers_within_the_budget_in_both_views_and_reads_a_section() {
    let env = vault();
    let mut s = Session::ready(&env, &[]);
    for budget in [200, 1000, 20_000] {
        for limit in [1, 50] {
            let r = s.call(
                "search_notes",
                json!({"query": "restore", "source": "local", "limit": limit, "budget": budget}),
            );
            assert!(!is_error(&r), "{r}");
            let t = text(&r);
            assert!(estimate_tokens(&t) <= budget, "text over {budget}: {t}");
            let json = serde_json::to_string(&r["structuredContent"]).unwrap();
            assert!(estimate_tokens(&json) <= budget, "structured over {budget}");
            let answer = structured(&r);
            assert!(
                budget < 500 || !answer.results.is_empty(),
                "{budget}: no hits"
            );
            assert_real_lines(&env, &answer);
        }
    }
    let r = s.call(
        "search_notes",
        json!({"query": "checksums", "source": "local"}),
    );
    let t = text(&r);
    assert!(
        t.contains("Ops/backup.md:4-20 — Backup guide > Restore"),
        "{t}"
    );
    assert!(t.contains("\n  Check the checksums afterwards."), "{t}");
    let r = s.call("search_notes", json!({"query": "restore", "budget": 10}));
    assert!(is_error(&r), "{r}");

    // The outline, then one section by its heading.
    let r = s.call(
        "read_note",
        json!({"path": "Ops/backup.md", "outline": true}),
    );
    let t = text(&r);
    assert!(t.contains("8-18 ## Restore"), "{t}");
    assert!(t.contains("4-20 # Backup guide"), "{t}");
    let r = s.call(
        "read_note",
        json!({"path": "Ops/backup.md", "heading": "restore"}),
    );
    let t = text(&r);
    assert!(
        t.contains("section Backup guide > Restore (lines 8-18)"),
        "{t}"
    );
    assert!(t.contains("Check the checksums afterwards."), "{t}");
    assert!(!t.contains("Tapes rotate weekly"), "{t}");
    let r = s.call(
        "read_note",
        json!({"path": "Ops/backup.md", "heading": "nothing"}),
    );
    assert!(is_error(&r), "{r}");
    assert!(text(&r).contains("\"Restore\" (line 8)"), "{r}");
}

#[test]
fn read_shows_a_notes_outline_a_section_or_lines() {
    let env = vault();
    let out = env.run(&["read", "Ops/backup.md", "--outline"]);
    assert_ok(&out);
    let t = stdout(&out);
    assert!(t.contains("8-18 ## Restore"), "{t}");
    let out = env.run(&["read", "Ops/backup.md", "--heading", "restore"]);
    assert_ok(&out);
    let t = stdout(&out);
    assert!(
        t.starts_with("Ops/backup.md, lines 8-18 of 20, under Backup guide > Restore\n"),
        "{t}"
    );
    assert!(
        t.contains("\n    17  Check the checksums afterwards.\n"),
        "{t}"
    );
    assert!(!t.contains("Tapes rotate"), "{t}");
    // A passage's range, as JSON: the note's own lines.
    let out = env.run(&["read", "Ops/backup.md", "--lines", "9:10", "--json"]);
    assert_ok(&out);
    let p: vault_search::Passage = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!((p.line, p.end_line), (Some(9), Some(10)));
    assert_eq!(
        p.text,
        "Stop the service first.\nThen run the restore script:"
    );
    // Bad input: one line, exit 2.
    for args in [
        &["read", "Ops/backup.md", "--heading", "nothing"][..],
        &["read", "Ops/backup.md", "--lines", "9"],
        &["read", "Ops/backup.md", "--lines", "30:40"],
        &["read", "../outside.md"],
        &["read", "Ops/none.md"],
    ] {
        let out = env.run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(
            stderr(&out).lines().count(),
            1,
            "{args:?}: {}",
            stderr(&out)
        );
    }
}
