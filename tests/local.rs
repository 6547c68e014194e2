//! The local engine through the real binary: indexing, freshness, matching, scoping, safety.

use crate::util::{assert_ok, stderr, stdout, Env, Start};

fn demo_env() -> Env {
    let env = Env::new();
    env.write(
        "Projects/gradle-bootstrap.md",
        "---\ntags: [build, kotlin]\naliases: [Kotlin build fix]\n---\n# Debug bootstrap Gradle Kotlin compilation failure\n\nDelete the stale KotlinCompileDaemon state and rerun.\n",
    );
    env.write(
        "Meta/claude-memory.md",
        "# Memory\n\nSessions are auto-deleted after cleanupPeriodDays (default 30).\n",
    );
    env.write(
        "Metadata/other.md",
        "# Other\n\nNothing about memory here, only metadata.\n",
    );
    env.write("Notes/café.md", "# Café\n\nThe naïve barista's résumé.\n");
    env.write(
        "Notes/snake.md",
        "call snake_case_fn and trace-cmd record\n",
    );
    env.write("Notes/日本.md", "東京都の天気は晴れです。\n");
    env.write(".obsidian/workspace.md", "kotlin hidden config\n");
    env
}

#[test]
fn first_search_builds_the_index_and_finds_notes() {
    let env = demo_env();
    let r = env.search_json(&["--source", "local", "gradle", "kotlin", "bootstrap"]);
    assert_eq!(r.engine, "local");
    assert_eq!(r.results[0].path, "Projects/gradle-bootstrap.md");
    assert_eq!(r.results[0].basename, "gradle-bootstrap");
    assert_eq!(r.results[0].engine, "local");
    assert!(r.results[0].excerpt.contains("bootstrap"));
    assert_eq!(
        r.results[0].line,
        Some(5),
        "the heading line holds the first match"
    );
    assert!(r.results.iter().all(|h| !h.path.starts_with(".obsidian")));
}

#[test]
fn matching_rules() {
    let env = demo_env();
    let first = |q: &str| env.local_paths(q).first().cloned().unwrap_or_default();
    assert_eq!(first("cafe"), "Notes/café.md", "accents fold");
    assert_eq!(first("résumé naive"), "Notes/café.md");
    assert_eq!(
        first("compile daemon"),
        "Projects/gradle-bootstrap.md",
        "camelCase parts"
    );
    assert_eq!(first("kotlin"), "Projects/gradle-bootstrap.md");
    assert_eq!(first("snake"), "Notes/snake.md", "snake_case parts");
    assert_eq!(first("trace-cmd"), "Notes/snake.md", "kebab whole word");
    assert_eq!(first("東京"), "Notes/日本.md", "CJK bigrams");
    assert_eq!(
        first("bootstarp"),
        "Projects/gradle-bootstrap.md",
        "transposition typo"
    );
    assert_eq!(
        first("compilaton"),
        "Projects/gradle-bootstrap.md",
        "one-letter typo"
    );
    assert_eq!(
        first("kotlincomp"),
        "Projects/gradle-bootstrap.md",
        "prefix"
    );
    assert_eq!(
        first("sessions deleting"),
        "Meta/claude-memory.md",
        "inflection"
    );
    assert_eq!(first("cleanupPeriodDays"), "Meta/claude-memory.md");
}

#[test]
fn typo_and_prefix_score_below_exact() {
    let env = Env::new();
    env.write("a.md", "the word bootstrap appears here\n");
    env.write("b.md", "the word bootstrp appears here\n");
    env.write("c.md", "the word bootstrapping appears here\n");
    let paths = env.local_paths("bootstrap");
    assert_eq!(paths[0], "a.md", "the exact match first: {paths:?}");
    let mut rest = paths[1..].to_vec();
    rest.sort();
    assert_eq!(rest, ["b.md", "c.md"], "typo and inflection still found");
}

#[test]
fn one_extra_word_does_not_empty_the_result() {
    let env = demo_env();
    let paths = env.local_paths("gradle kotlin bootstrap zeppelin");
    assert_eq!(
        paths.first().map(String::as_str),
        Some("Projects/gradle-bootstrap.md")
    );
}

#[test]
fn phrases_and_exclusions() {
    let env = Env::new();
    env.write("a.md", "the quick brown fox\n");
    env.write("b.md", "the brown quick fox\n");
    env.write("c.md", "quick brown stale fox\n");
    assert_eq!(
        env.local_paths("\"quick brown\" fox").first().unwrap(),
        "a.md"
    );
    let paths = env.local_paths("\"quick brown\" -stale");
    assert_eq!(
        paths,
        ["a.md"],
        "a phrase is required; -stale excludes c.md"
    );
    assert!(!env
        .local_paths("fox -\"brown quick\"")
        .contains(&"b.md".to_string()));
}

#[test]
fn folder_and_exclude_filter_inside_the_query() {
    let env = demo_env();
    for i in 0..150 {
        env.write(&format!("Bulk/n{i}.md"), "memory memory memory memory\n");
    }
    let r = env.search_json(&["--source", "local", "--folder", "Meta", "memory"]);
    let paths: Vec<_> = r.results.iter().map(|h| h.path.as_str()).collect();
    assert_eq!(
        paths,
        ["Meta/claude-memory.md"],
        "never Metadata/, and not cut by the top K"
    );
    let r = env.search_json(&[
        "--source",
        "local",
        "--exclude",
        "Bulk",
        "--exclude",
        "Meta/",
        "memory",
    ]);
    let paths: Vec<_> = r.results.iter().map(|h| h.path.as_str()).collect();
    assert_eq!(paths, ["Metadata/other.md"]);
}

#[test]
fn folder_cannot_escape_the_vault() {
    let env = demo_env();
    let out = env.run(&["--source", "local", "--folder", "../..", "x"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.starts_with("vault-search: ") && err.trim().lines().count() == 1,
        "{err}"
    );
}

#[test]
fn edits_are_found_without_running_index() {
    let env = demo_env();
    env.index_json(&[]);
    assert!(env.local_paths("zeppelin").is_empty());
    env.write("Notes/new.md", "a zeppelin appeared\n");
    assert_eq!(env.local_paths("zeppelin"), ["Notes/new.md"], "created");
    env.write("Notes/new.md", "now it is an airship\n");
    assert!(
        env.local_paths("zeppelin").is_empty(),
        "edited (even within the same second)"
    );
    assert_eq!(env.local_paths("airship"), ["Notes/new.md"]);
    std::fs::rename(
        env.vault.join("Notes/new.md"),
        env.vault.join("Notes/renamed.md"),
    )
    .unwrap();
    assert_eq!(env.local_paths("airship"), ["Notes/renamed.md"], "renamed");
    env.remove("Notes/renamed.md");
    assert!(env.local_paths("airship").is_empty(), "deleted");
}

#[test]
fn no_refresh_searches_the_index_as_it_is() {
    let env = demo_env();
    env.index_json(&[]);
    env.write("Notes/new.md", "zeppelin\n");
    let r = env.search_json(&["--source", "local", "--no-refresh", "zeppelin"]);
    assert!(r.results.is_empty());
    assert_eq!(env.local_paths("zeppelin"), ["Notes/new.md"]);
}

#[test]
fn index_reports_counts() {
    let env = demo_env();
    let r = env.index_json(&[]);
    assert_eq!((r.notes, r.added, r.rebuilt), (6, 6, true));
    let r = env.index_json(&[]);
    assert_eq!((r.notes, r.added, r.unchanged, r.rebuilt), (6, 0, 6, false));
    env.write("Notes/snake.md", "changed\n");
    env.write("Notes/extra.md", "new\n");
    env.remove("Notes/café.md");
    let r = env.index_json(&[]);
    assert_eq!((r.notes, r.added, r.updated, r.removed), (6, 1, 1, 1));
    let out = env.run(&["index"]);
    assert_ok(&out);
    let line = stdout(&out);
    assert!(
        line.starts_with(
            "indexed 6 notes: 0 added, 0 updated, 0 removed, 6 unchanged, 0 skipped in "
        ),
        "{line}"
    );
    let r = env.index_json(&["--rebuild"]);
    assert_eq!((r.notes, r.added, r.rebuilt), (6, 6, true));
}

#[test]
fn oversized_notes_are_skipped_and_named() {
    let env = demo_env();
    env.write("big.md", &"word ".repeat(1000));
    let r = env.index_json(&["--max-note-bytes", "1000"]);
    assert_eq!(r.skipped, 1);
    assert_eq!(r.skipped_files[0].path, "big.md");
    assert!(r.skipped_files[0].reason.contains("larger than"));
}

#[test]
fn a_second_indexer_exits_at_once() {
    let env = demo_env();
    env.index_json(&[]);
    let lock = std::fs::OpenOptions::new()
        .write(true)
        .open(env.store_dir().join("lock"))
        .unwrap();
    lock.try_lock().unwrap();
    let out = env.run(&["index"]);
    assert_ok(&out);
    assert!(stdout(&out).contains("another vault-search process is indexing"));
    let r = env.index_json(&[]);
    assert!(r.busy);
    // Searches don't wait for the writer: they answer from the last commit, marked stale.
    env.write("Notes/new.md", "zeppelin\n");
    let r = env.search_json(&["--source", "local", "gradle"]);
    assert!(r.stale);
    assert_eq!(r.results[0].path, "Projects/gradle-bootstrap.md");
    let out = env.run(&["--source", "local", "gradle"]);
    assert!(stderr(&out).contains("stale"));
    drop(lock);
    // A process that another test spawns at this moment holds a copy of our descriptor, and
    // with it the lock, until its exec: on a loaded machine that can take a while.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let r = env.search_json(&["--source", "local", "zeppelin"]);
        if !r.stale {
            assert_eq!(r.results[0].path, "Notes/new.md");
            break;
        }
        assert!(std::time::Instant::now() < deadline, "still stale");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// A search says it rebuilds the index (one line on stderr) and still answers.
fn assert_rebuilt_and_answers(env: &Env) {
    let out = env.run(&["--json", "--source", "local", "gradle"]);
    assert_ok(&out);
    assert!(
        stderr(&out).contains("rebuilding the index"),
        "{}",
        stderr(&out)
    );
    let r: vault_search::SearchResponse = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r.results[0].path, "Projects/gradle-bootstrap.md");
}

#[test]
fn incompatible_index_is_rebuilt() {
    let env = demo_env();
    env.index_json(&[]);
    let meta_path = env.live_index_dir().join("meta.json");
    let meta = std::fs::read_to_string(&meta_path).unwrap();
    let old = meta.replace("schema-", "schema-0-old-");
    assert_ne!(meta, old);
    std::fs::write(&meta_path, old).unwrap();
    assert_rebuilt_and_answers(&env);
    let again = env.run(&["--source", "local", "gradle"]);
    assert!(!stderr(&again).contains("rebuilding"), "rebuilt once");
}

#[test]
fn unreadable_index_is_rebuilt() {
    let env = demo_env();
    env.index_json(&[]);
    std::fs::write(env.live_index_dir().join("meta.json"), "{ truncated").unwrap();
    let r = env.search_json(&["--source", "local", "gradle"]);
    assert_eq!(r.results[0].path, "Projects/gradle-bootstrap.md");
}

#[cfg(unix)]
#[test]
fn index_files_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let env = demo_env();
    env.index_json(&[]);
    let store = env.store_dir();
    assert!(!store.starts_with(&env.vault));
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&store), 0o700);
    let dir = env.live_index_dir();
    assert_eq!(mode(&dir), 0o700);
    let mut files = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_file() {
            files += 1;
            assert_eq!(mode(&p), 0o600, "{}", p.display());
        }
    }
    assert!(files > 3);
}

#[test]
fn unusable_cache_dir_still_answers() {
    let env = demo_env();
    let blocker = env.root.path().join("not-a-dir");
    std::fs::write(&blocker, "file").unwrap();
    let out = env
        .cmd()
        .env("VAULT_SEARCH_CACHE_DIR", &blocker)
        .args(["--json", "--source", "local", "gradle"])
        .output_retried();
    assert_ok(&out);
    assert!(stderr(&out).contains("in memory"), "{}", stderr(&out));
    let r: vault_search::SearchResponse = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r.results[0].path, "Projects/gradle-bootstrap.md");
    let out = env
        .cmd()
        .env("VAULT_SEARCH_CACHE_DIR", &blocker)
        .arg("index")
        .output_retried();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).starts_with("vault-search: "));
}

#[test]
fn missing_vault_is_a_usage_error() {
    let env = Env::new();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_vault-search"))
        .env_remove("OBSIDIAN_VAULT")
        .arg("--vault")
        .arg(env.root.path().join("nope"))
        .arg("x")
        .output_retried();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.starts_with("vault-search: vault not found"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1);
}

#[test]
fn hostile_queries_never_fail() {
    let env = demo_env();
    let long = "word ".repeat(20_000);
    let many: String = (0..10_000).map(|i| format!("t{i} ")).collect();
    let queries = [
        "!!!",
        "\"unbalanced",
        "-",
        "a:b",
        "(x",
        "*",
        "~2",
        "^3",
        "AND OR NOT",
        "\u{1}\u{1b}[31m",
        "😀🎉",
        "مرحبا بالعالم",
        "東京",
        "\"\"",
        "--",
        "-\"\"",
        long.as_str(),
        many.as_str(),
    ];
    for q in queries {
        let out = env.run(&["--json", "--source", "local", "--", q]);
        assert_ok(&out);
        let _: vault_search::SearchResponse = serde_json::from_slice(&out.stdout).unwrap();
    }
    for q in ["", "   "] {
        let out = env.run(&["--source", "local", "--", q]);
        assert_eq!(out.status.code(), Some(2), "empty query is a usage error");
        assert!(stderr(&out).starts_with("vault-search: the query is empty"));
    }
}

#[test]
fn hits_carry_heading_tags_aliases_and_matched_terms() {
    let env = demo_env();
    let r = env.search_json(&["--source", "local", "stale", "daemon", "zeppelin"]);
    let h = &r.results[0];
    assert_eq!(h.path, "Projects/gradle-bootstrap.md");
    assert_eq!(
        h.heading.as_deref(),
        Some("Debug bootstrap Gradle Kotlin compilation failure")
    );
    assert_eq!(h.tags, ["build", "kotlin"]);
    assert_eq!(h.aliases, ["Kotlin build fix"]);
    assert_eq!(h.matched, ["stale", "daemon"]);
}

#[test]
fn color_highlights_only_when_asked() {
    let env = demo_env();
    let out = env.run(&["--source", "local", "--color", "always", "stale"]);
    assert!(
        stdout(&out).contains("\u{1b}[1;31mstale\u{1b}[0m"),
        "{}",
        stdout(&out)
    );
    let out = env.run(&["--source", "local", "stale"]);
    assert!(!stdout(&out).contains('\u{1b}'), "not a terminal: no color");
    let out = env.run(&["--source", "local", "--color", "never", "stale"]);
    assert!(!stdout(&out).contains('\u{1b}'));
}

#[test]
fn obsidian_excluded_files_are_honoured() {
    let env = demo_env();
    env.write("Archive/old.md", "zeppelin archived\n");
    env.write("Drafts/draft-12.md", "zeppelin draft\n");
    env.write("Keep/keep.md", "zeppelin kept\n");
    env.write(
        ".obsidian/app.json",
        r#"{"userIgnoreFilters": ["Archive/", "/draft-\\d+/", "/[unclosed/"]}"#,
    );
    assert_eq!(env.local_paths("zeppelin"), ["Keep/keep.md"]);
    let r = env.search_json(&["--source", "local", "--include-ignored", "zeppelin"]);
    assert_eq!(r.results.len(), 3);
}

#[test]
fn damaged_segment_files_are_rebuilt() {
    let env = demo_env();
    env.index_json(&[]);
    let dir = env.live_index_dir();
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "store" || x == "idx") {
            std::fs::write(&p, b"").unwrap();
        }
    }
    assert_rebuilt_and_answers(&env);
    assert_eq!(
        env.index_json(&[]).added,
        0,
        "the rebuilt index is complete"
    );
}

/// What a power loss can leave of files written without fsync: `meta.json` naming segment
/// files that are gone, and `.managed.json` lost.
#[test]
fn an_index_missing_its_segment_files_is_rebuilt() {
    let env = demo_env();
    env.index_json(&[]);
    let dir = env.live_index_dir();
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "term" || x == "pos") {
            std::fs::remove_file(&p).unwrap();
        }
    }
    std::fs::remove_file(dir.join(".managed.json")).unwrap();
    assert_rebuilt_and_answers(&env);
    assert_eq!(
        env.index_json(&[]).added,
        0,
        "the rebuilt index is complete"
    );
}

#[test]
fn a_big_folder_is_walked_whole_and_its_changes_are_found() {
    // More notes in one folder than one stat batch, so several threads share it.
    let env = Env::new();
    for i in 0..700 {
        env.write(&format!("big/n{i}.md"), &format!("bulk uniq{i}\n"));
    }
    for i in 0..50 {
        env.write(
            &format!("big/sub{}/m{i}.md", i % 5),
            &format!("bulk deep{i}\n"),
        );
    }
    env.write("big/n650.md", "bulk gondola\n");
    let r = env.index_json(&[]);
    assert_eq!((r.notes, r.added, r.skipped), (750, 750, 0), "{r:?}");
    assert_eq!(env.local_paths("gondola"), ["big/n650.md"]);
    env.write("big/n399.md", "bulk changed zeppelin\n");
    env.remove("big/n650.md");
    env.write("big/sub3/new.md", "bulk blimp\n");
    assert_eq!(env.local_paths("zeppelin"), ["big/n399.md"]);
    assert_eq!(env.local_paths("blimp"), ["big/sub3/new.md"]);
    assert!(env.local_paths("gondola").is_empty(), "deleted");
    assert_eq!(env.local_paths("deep33")[0], "big/sub3/m33.md");
    let r = env.index_json(&[]);
    assert_eq!(
        (r.notes, r.added, r.updated, r.removed),
        (750, 0, 0, 0),
        "the searches brought the index up to date: {r:?}"
    );
}

#[test]
fn an_update_clears_index_directories_a_rebuild_left_behind() {
    // A rebuild removes the old directory, unless a reader still has it mapped (Windows
    // refuses then): a later update retries.
    let env = demo_env();
    env.index_json(&[]);
    let stale = env.store_dir().join("idx-left-behind");
    std::fs::create_dir_all(stale.join("segment")).unwrap();
    std::fs::write(stale.join("segment/data"), b"old").unwrap();
    env.write("Notes/new.md", "zeppelin\n");
    let r = env.index_json(&[]);
    assert_eq!(r.added, 1);
    assert!(!stale.exists(), "the update left the old directory");
    assert_eq!(env.local_paths("zeppelin"), ["Notes/new.md"]);
}

#[test]
fn a_folder_given_in_another_case_is_the_folder_on_disk() {
    let env = demo_env();
    let r = env.search_json(&["--source", "local", "--folder", "projects", "gradle"]);
    assert_eq!(r.results[0].path, "Projects/gradle-bootstrap.md");
    let r = env.search_json(&["--source", "local", "--exclude", "PROJECTS", "gradle"]);
    assert!(r.results.iter().all(|h| !h.path.starts_with("Projects/")));
}

/// A full build lists names only and takes each note's size and mtime from the opened file:
/// they must be the ones the next walk's stat finds, or the next run re-reads every note. A
/// change that keeps size and mtime is invisible by design, so it shows which stat was kept.
#[test]
fn a_full_build_keeps_the_stat_the_next_walk_compares() {
    let env = Env::new();
    let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_577_836_800);
    let set = |rel: &str, text: &str| {
        let path = env.write(rel, text);
        let f = std::fs::File::options().write(true).open(&path).unwrap();
        f.set_modified(old).unwrap();
    };
    for (args, word) in [(&[][..], "first"), (&["--rebuild"][..], "again")] {
        set("a/deep/note.md", &format!("{word} words\n"));
        set("top.md", "top words\n");
        let r = env.index_json(args);
        assert_eq!((r.notes, r.added), (2, 2), "{args:?}");
        set(
            "a/deep/note.md",
            &format!("{} words\n", "x".repeat(word.len())),
        );
        let r = env.index_json(&[]);
        assert_eq!((r.added, r.updated, r.unchanged), (0, 0, 2), "{args:?}");
        assert_eq!(env.local_paths(word), ["a/deep/note.md"], "{args:?}");
    }
}

/// Notes of equal score across the cut of the candidates are taken by path, not by where they
/// sit in the index (a rebuild deals them out anew): the same vault gives the same answer.
#[test]
fn equal_scores_across_the_candidate_cut_go_by_path() {
    let env = Env::new();
    for i in 0..110 {
        env.write(&format!("n{i:03}.md"), "zebra crossing\n");
    }
    let r = env.search_json(&["zebra", "-n", "100"]);
    let paths: Vec<&str> = r.results.iter().map(|h| h.path.as_str()).collect();
    let expected: Vec<String> = (0..100).map(|i| format!("n{i:03}.md")).collect();
    assert_eq!(paths, expected);
}
