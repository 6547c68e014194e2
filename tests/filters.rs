//! Filters through the real binary: tags (nested, every frontmatter and inline form), dates
//! at their boundaries, properties, `--sort`, wordless listings, combinations with scope and
//! query syntax, `path:`/`ext:` on both engines, and bad input.

use std::time::{Duration, SystemTime};

use serde_json::json;
use vault_search::SearchResponse;

use crate::util::{assert_ok, omni_hit, stderr, stdout, Env, MockServer, Reply, Start};

/// Nanoseconds since the epoch of an RFC 3339 instant.
fn ns(rfc3339: &str) -> i64 {
    vault_search::parse_time(rfc3339, 0).unwrap()
}

/// Sets a note's modification time.
fn touch(env: &Env, rel: &str, at_ns: i64) {
    let f = std::fs::File::options()
        .write(true)
        .open(env.vault.join(rel))
        .unwrap();
    let t = SystemTime::UNIX_EPOCH + Duration::from_nanos(u64::try_from(at_ns).unwrap());
    f.set_modified(t).unwrap();
}

/// Local search in the time zone `tz` (a POSIX rule, so no tz database is needed).
fn local_in(env: &Env, tz: &str, args: &[&str]) -> SearchResponse {
    let out = env
        .cmd()
        .env("TZ", tz)
        .args([&["--json", "--source", "local", "-n", "50"], args].concat())
        .output_retried();
    assert_ok(&out);
    serde_json::from_slice(&out.stdout).unwrap()
}

fn local(env: &Env, args: &[&str]) -> SearchResponse {
    local_in(env, "UTC0", args)
}

fn paths(r: &SearchResponse) -> Vec<String> {
    r.results.iter().map(|h| h.path.clone()).collect()
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

fn tag_vault() -> Env {
    let env = Env::new();
    env.write("fm-list.md", "---\ntags: [project, Meeting]\n---\nkotlin\n");
    env.write(
        "fm-block.md",
        "---\ntags:\n  - project/alpha\n  - '#idea'\n---\nkotlin\n",
    );
    env.write("fm-string.md", "---\ntag: projects\n---\nkotlin\n");
    env.write(
        "fm-comma.md",
        "---\ntags: meeting, project/beta\n---\nkotlin\n",
    );
    env.write("fm-space.md", "---\ntags: \"#idea meeting\"\n---\nkotlin\n");
    env.write(
        "inline.md",
        "kotlin notes #project/alpha/deep and #Meeting.\n",
    );
    env.write(
        "not-tags.md",
        "# project\nkotlin `#meeting` issue #123 https://x.org/page#idea a#project\n```\n#project\n```\n",
    );
    env.write("heading.md", "## Minutes #meeting\nkotlin\n");
    env
}

#[test]
fn tags_in_every_form_and_nested() {
    let env = tag_vault();
    let tagged = |t: &str| sorted(paths(&local(&env, &["--tag", t, "kotlin"])));
    assert_eq!(
        tagged("project"),
        ["fm-block.md", "fm-comma.md", "fm-list.md", "inline.md"],
        "nested tags match, `projects` does not, nor a heading, code, #123 or a fragment"
    );
    assert_eq!(tagged("#project/alpha"), ["fm-block.md", "inline.md"]);
    assert_eq!(tagged("project/alpha/deep"), ["inline.md"]);
    assert_eq!(tagged("projects"), ["fm-string.md"]);
    assert_eq!(
        tagged("MEETING"),
        [
            "fm-comma.md",
            "fm-list.md",
            "fm-space.md",
            "heading.md",
            "inline.md"
        ],
        "any case; inline code is no tag, a tag in a heading's text is"
    );
    assert_eq!(tagged("idea"), ["fm-block.md", "fm-space.md"]);
    assert!(tagged("123").is_empty());
    // All must hold.
    let both = local(&env, &["--tag", "project", "--tag", "meeting", "kotlin"]);
    assert_eq!(
        sorted(paths(&both)),
        ["fm-comma.md", "fm-list.md", "inline.md"]
    );
}

#[test]
fn tag_filters_never_shorten_the_list() {
    let env = Env::new();
    // Many notes rank above the tagged ones; the filter is inside the query, so the tagged
    // ones still fill the answer.
    for i in 0..150 {
        env.write(
            &format!("plain/kotlin-{i:03}.md"),
            "# Kotlin\nkotlin kotlin gradle\n",
        );
    }
    for i in 0..3 {
        env.write(
            &format!("t{i}.md"),
            "---\ntags: keep\n---\na long note that mentions kotlin once among many words\n",
        );
    }
    let unfiltered = env.search_json(&["--source", "local", "-n", "100", "kotlin"]);
    assert_eq!(unfiltered.results.len(), 100);
    assert!(
        paths(&unfiltered).iter().all(|p| !p.starts_with('t')),
        "without the filter the tagged notes rank below the first 100"
    );
    let r = local(&env, &["--tag", "keep", "kotlin"]);
    assert_eq!(sorted(paths(&r)), ["t0.md", "t1.md", "t2.md"]);
}

#[test]
fn dates_at_their_boundaries() {
    let env = Env::new();
    for (rel, at) in [
        ("before.md", "2026-11-30T13:59:59.999999999Z"),
        ("exact.md", "2026-11-30T14:00:00Z"),
        // Windows keeps file times in 100 ns ticks: 1 ns later would be the same time there.
        (
            "after.md",
            if cfg!(windows) {
                "2026-11-30T14:00:00.0000001Z"
            } else {
                "2026-11-30T14:00:00.000000001Z"
            },
        ),
        ("evening.md", "2026-11-30T22:00:00Z"),
        ("next-day.md", "2026-12-01T00:00:00Z"),
    ] {
        env.write(rel, "kotlin\n");
        touch(&env, rel, ns(at));
    }
    let q = |args: &[&str]| sorted(paths(&local(&env, &[args, &["kotlin"]].concat())));
    assert_eq!(
        q(&["--since", "2026-11-30T14:00"]),
        ["after.md", "evening.md", "exact.md", "next-day.md"],
        "a note modified exactly at --since is in"
    );
    assert_eq!(
        q(&["--until", "2026-11-30T14:00"]),
        ["before.md", "exact.md"],
        "and exactly at --until too"
    );
    assert_eq!(
        q(&["--since", "2026-11-30T14:00", "--until", "2026-11-30T14:00"]),
        ["exact.md"]
    );
    assert_eq!(
        q(&["--since", "2026-12-01"]),
        ["next-day.md"],
        "a date is midnight"
    );
    // Local time: at UTC+3, 17:00 local is 14:00Z.
    let east = local_in(&env, "XST-3", &["--since", "2026-11-30T17:00", "kotlin"]);
    assert_eq!(
        sorted(paths(&east)),
        ["after.md", "evening.md", "exact.md", "next-day.md"]
    );
    let east = local_in(&env, "XST-3", &["--since", "2026-12-01", "kotlin"]);
    assert_eq!(
        sorted(paths(&east)),
        ["evening.md", "next-day.md"],
        "local midnight of Dec 1 at UTC+3 is 21:00Z on Nov 30"
    );
    // `modified` is RFC 3339 in local time, to the second.
    let r = local_in(&env, "XST-3", &["--since", "2026-12-01T03:00", "kotlin"]);
    assert_eq!(
        r.results[0].modified.as_deref(),
        Some("2026-12-01T03:00:00+03:00")
    );
}

#[test]
fn relative_dates_today_and_yesterday() {
    let env = Env::new();
    let now = i64::try_from(
        SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap()
            .as_nanos(),
    )
    .unwrap();
    let day = 86_400_000_000_000i64;
    for (rel, age) in [
        ("now.md", 0),
        ("two-hours.md", 2),
        ("three-days.md", 72),
        ("old.md", 24 * 30),
    ] {
        env.write(rel, "kotlin\n");
        touch(&env, rel, now - age * day / 24);
    }
    let q = |since: &str| sorted(paths(&local(&env, &["--since", since, "kotlin"])));
    assert_eq!(q("30m"), ["now.md"]);
    assert_eq!(q("3h"), ["now.md", "two-hours.md"]);
    assert_eq!(q("7d"), ["now.md", "three-days.md", "two-hours.md"]);
    assert!(q("today").contains(&"now.md".to_string()));
    assert!(!q("yesterday").contains(&"three-days.md".to_string()));
    assert!(q("yesterday").contains(&"now.md".to_string()));
}

#[test]
fn properties_by_value_list_item_and_presence() {
    let env = Env::new();
    env.write(
        "a.md",
        "---\nstatus: Done\npriority: 2\ndraft: True\nauthors: [Ann, \"Bob\"]\nreviewed:\n---\nkotlin\n",
    );
    env.write(
        "b.md",
        "---\nstatus: \"in progress\"\npriority: 2.5\ndraft: false\nauthors:\n  - Bob\n  - Cy\n---\nkotlin\n",
    );
    env.write("c.md", "kotlin, no frontmatter; status=done\n");
    let q = |w: &[&str]| {
        let mut args = Vec::new();
        for x in w {
            args.push("--where");
            args.push(*x);
        }
        args.push("kotlin");
        sorted(paths(&local(&env, &args)))
    };
    assert_eq!(q(&["status=done"]), ["a.md"], "any case; not the body text");
    assert_eq!(q(&["STATUS=In Progress"]), ["b.md"]);
    assert_eq!(q(&["priority=2.0"]), ["a.md"], "numbers compare as numbers");
    assert_eq!(q(&["priority=2.50"]), ["b.md"]);
    assert_eq!(q(&["draft=true"]), ["a.md"]);
    assert_eq!(q(&["draft=false"]), ["b.md"]);
    assert_eq!(q(&["authors=bob"]), ["a.md", "b.md"], "list membership");
    assert_eq!(q(&["authors=cy"]), ["b.md"]);
    assert_eq!(q(&["reviewed"]), ["a.md"], "presence, even without a value");
    assert_eq!(q(&["status"]), ["a.md", "b.md"]);
    assert_eq!(
        q(&["authors=bob", "draft=false"]),
        ["b.md"],
        "all must hold"
    );
    assert!(q(&["status=do"]).is_empty(), "whole values only");
}

#[test]
fn wordless_listings_newest_first_with_scope_and_exclusions() {
    let env = Env::new();
    let base = ns("2026-11-01T00:00:00Z");
    let hour = 3_600_000_000_000i64;
    for (i, (rel, text)) in [
        (
            "Meet/a.md",
            "---\ntags: meeting\n---\nstandup about kotlin\n",
        ),
        ("Meet/b.md", "---\ntags: meeting\n---\nretro, draft\n"),
        (
            "Meet/old/c.md",
            "---\ntags: meeting\n---\nplanning the old build\n",
        ),
        ("Other/d.md", "---\ntags: meeting\n---\nbudget\n"),
        ("Other/e.md", "no tags\n"),
    ]
    .iter()
    .enumerate()
    {
        env.write(rel, text);
        touch(&env, rel, base + i as i64 * hour);
    }
    let r = local(&env, &["--tag", "meeting"]);
    assert_eq!(
        paths(&r),
        ["Other/d.md", "Meet/old/c.md", "Meet/b.md", "Meet/a.md"],
        "newest first"
    );
    assert!(r.results.iter().all(|h| h.modified.is_some()));
    assert!(
        !r.results[0].excerpt.contains("tags"),
        "the excerpt skips frontmatter"
    );
    assert_eq!(
        paths(&local(
            &env,
            &[
                "--tag",
                "meeting",
                "--folder",
                "Meet",
                "--exclude",
                "Meet/old"
            ]
        )),
        ["Meet/b.md", "Meet/a.md"]
    );
    // A folder, an exclusion or an order alone lists too, as over MCP and `serve`.
    assert_eq!(
        paths(&local(&env, &["--folder", "Meet", "--exclude", "Meet/old"])),
        ["Meet/b.md", "Meet/a.md"]
    );
    assert_eq!(
        paths(&local(&env, &["--sort", "modified"]))[..2],
        ["Other/e.md", "Other/d.md"]
    );
    assert_eq!(
        paths(&local(&env, &["--tag", "meeting", "--", "-draft"])),
        ["Other/d.md", "Meet/old/c.md", "Meet/a.md"],
        "an excluded word applies to a listing"
    );
    assert_eq!(
        paths(&local(&env, &["--tag", "meeting", "--", "-\"old build\""])),
        ["Other/d.md", "Meet/b.md", "Meet/a.md"],
        "so does an excluded phrase"
    );
    assert_eq!(
        paths(&local(
            &env,
            &["--since", "2026-11-01T03:00", "--until", "2026-11-01T04:00"]
        )),
        ["Other/e.md", "Other/d.md"]
    );
    // A query with a phrase and a filter: the phrase is still required.
    env.write(
        "Meet/f.md",
        "---\ntags: meeting\n---\nthe old build again, old and build\n",
    );
    let r = local(&env, &["--tag", "meeting", "--", "\"old build\""]);
    assert_eq!(sorted(paths(&r)), ["Meet/f.md", "Meet/old/c.md"]);
    // The text form shows dates when sorted by date.
    let out = env
        .cmd()
        .env("TZ", "UTC0")
        .args([
            "--source", "local", "--tag", "meeting", "--folder", "Meet/old",
        ])
        .output_retried();
    assert_ok(&out);
    assert_eq!(
        stdout(&out).lines().nth(1),
        Some("1. [2026-11-01 02:00] Meet/old/c.md")
    );
}

#[test]
fn sort_by_modified_orders_the_best_matches() {
    let env = Env::new();
    let base = ns("2026-01-01T00:00:00Z");
    env.write("best.md", "# Kotlin\nkotlin kotlin gradle\n");
    env.write("newer.md", "a note that mentions kotlin once\n");
    env.write("unrelated.md", "nothing here\n");
    touch(&env, "best.md", base);
    touch(&env, "newer.md", base + 1_000_000_000);
    touch(&env, "unrelated.md", base + 2_000_000_000);
    assert_eq!(paths(&local(&env, &["kotlin"])), ["best.md", "newer.md"]);
    let r = local(&env, &["--sort", "modified", "kotlin"]);
    assert_eq!(paths(&r), ["newer.md", "best.md"]);
    // The newest of the matches, not the newest of the best `-n`.
    let one = env.search_json(&[
        "--source", "local", "--sort", "modified", "-n", "1", "kotlin",
    ]);
    assert_eq!(paths(&one), ["newer.md"]);
    assert_eq!(
        r.results[0].modified.as_deref(),
        Some("2026-01-01T00:00:01+00:00")
    );
}

#[test]
fn path_and_ext_mean_the_same_on_both_engines() {
    let env = Env::new();
    env.write("Projects/My Work/kotlin.md", "kotlin build\n");
    // Not `projects/`: beside `Projects/` it is the same folder on Windows and macOS.
    env.write("side-projects/other.md", "kotlin again\n");
    env.write("Archive/Projects-old.md", "kotlin old\n");
    env.write("Notes/kotlin.md", "kotlin notes\n");
    let local_set = |q: &str| sorted(paths(&local(&env, &["--", q])));
    // What the plugin answers to these queries (it filters on its side): the notes whose
    // lowercased path contains the value.
    let cases: [(&str, Vec<&str>); 4] = [
        (
            "path:projects kotlin",
            vec![
                "Archive/Projects-old.md",
                "Projects/My Work/kotlin.md",
                "side-projects/other.md",
            ],
        ),
        (
            "path:\"my work\" kotlin",
            vec!["Projects/My Work/kotlin.md"],
        ),
        (
            "path:projects -path:archive kotlin",
            vec!["Projects/My Work/kotlin.md", "side-projects/other.md"],
        ),
        ("ext:md path:notes kotlin", vec!["Notes/kotlin.md"]),
    ];
    for (q, expected) in cases {
        let body: Vec<_> = expected
            .iter()
            .map(|p| omni_hit(1.0, p, "kotlin", None))
            .collect();
        let server = MockServer::start(Reply::Json(json!(body).to_string()));
        let port = server.port.to_string();
        let omni: SearchResponse =
            env.search_json(&["--port", &port, "--source", "omnisearch", "--", q]);
        assert_eq!(omni.engine, "omnisearch");
        assert_eq!(sorted(paths(&omni)), expected, "{q}");
        assert_eq!(local_set(q), expected, "{q}: local agrees");
    }
    assert!(local_set("ext:pdf kotlin").is_empty());
    assert_eq!(
        local_set("ext:m path:notes kotlin"),
        ["Notes/kotlin.md"],
        "a prefix of the extension"
    );
    // Alone, path: lists the notes below it.
    assert_eq!(local_set("path:notes"), ["Notes/kotlin.md"]);
}

#[test]
fn omnisearch_hits_are_filtered_on_our_side() {
    let env = Env::new();
    env.write("a.md", "---\ntags: project/x\nstatus: done\n---\nkotlin\n");
    env.write("b.md", "---\ntags: other\n---\nkotlin\n");
    touch(&env, "a.md", ns("2026-05-01T00:00:00Z"));
    touch(&env, "b.md", ns("2026-06-01T00:00:00Z"));
    let body = json!([
        omni_hit(3.0, "b.md", "kotlin", None),
        omni_hit(2.0, "a.md", "kotlin", None),
        omni_hit(1.0, "gone.md", "kotlin", None)
    ]);
    let server = MockServer::start(Reply::Json(body.to_string()));
    let port = server.port.to_string();
    let ask = |args: &[&str]| -> SearchResponse {
        let out = env
            .cmd()
            .env("TZ", "UTC0")
            .args([&["--json", "--port", port.as_str()], args, &["kotlin"]].concat())
            .output_retried();
        assert_ok(&out);
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let r = ask(&["--tag", "project"]);
    assert_eq!(
        (r.engine.as_str(), paths(&r)),
        ("omnisearch", vec!["a.md".to_string()])
    );
    assert_eq!(
        r.results[0].modified.as_deref(),
        Some("2026-05-01T00:00:00+00:00")
    );
    assert_eq!(paths(&ask(&["--where", "status=done"])), ["a.md"]);
    assert_eq!(paths(&ask(&["--since", "2026-05-15"])), ["b.md"]);
    assert_eq!(paths(&ask(&["--sort", "modified"])), ["b.md", "a.md"]);
    // Nothing passes: the local engine answers.
    let r = ask(&["--tag", "nowhere"]);
    assert_eq!((r.engine.as_str(), r.omnisearch_hits), ("local", Some(0)));
}

#[test]
fn a_full_plugin_answer_starved_by_a_filter_goes_local() {
    let env = Env::new();
    let mut body = Vec::new();
    for i in 0..50 {
        let rel = format!("n{i:02}.md");
        let tags = if i < 2 { "keep" } else { "other" };
        env.write(&rel, &format!("---\ntags: {tags}\n---\nkotlin\n"));
        body.push(omni_hit(50.0 - i as f64, &rel, "kotlin", None));
    }
    for i in 0..5 {
        env.write(&format!("extra{i}.md"), "---\ntags: keep\n---\nkotlin\n");
    }
    let server = MockServer::start(Reply::Json(json!(body).to_string()));
    let port = server.port.to_string();
    let r = env.search_json(&["--port", &port, "--tag", "keep", "kotlin"]);
    assert_eq!(r.engine, "local");
    assert_eq!(r.omnisearch_hits, Some(2));
    assert_eq!(r.results.len(), 7);
    // A filter that leaves enough: the plugin's answer stands.
    let r = env.search_json(&["--port", &port, "--tag", "other", "-n", "5", "kotlin"]);
    assert_eq!((r.engine.as_str(), r.results.len()), ("omnisearch", 5));
    // No words: straight to the local engine (the plugin can't list).
    let r = env.search_json(&["--port", &port, "--tag", "keep"]);
    assert_eq!((r.engine.as_str(), r.results.len()), ("local", 7));
    let before = server.requests.lock().unwrap().len();
    assert_eq!(before, 2, "the wordless search did not ask the plugin");
}

#[test]
fn bad_filters_are_one_line_usage_errors() {
    let env = Env::new();
    env.write("a.md", "kotlin\n");
    for (args, says) in [
        (vec!["--since", "someday", "kotlin"], "unknown date"),
        (vec!["--until", "2026-02-30", "kotlin"], "unknown date"),
        (vec!["--tag", "#", "kotlin"], "the tag is empty"),
        (vec!["--tag", "", "kotlin"], "the tag is empty"),
        (
            vec!["--where", "=x", "kotlin"],
            "the property name is empty",
        ),
        (
            vec!["--since", "1d", "--until", "2d", "kotlin"],
            "--since is after --until",
        ),
        (vec!["--sort", "date", "kotlin"], "invalid value"),
        (vec!["--source", "omnisearch", "--tag", "x"], "needs words"),
        (vec!["--source", "local"], "the query is empty"),
    ] {
        let out = env.run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("vault-search: "), "{err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(out.stdout.is_empty());
    }
}
