//! Faults and concurrency through the real binary: kill -9 mid-index, searches while indexing.

use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::util::{assert_ok, Env, Start};

/// A vault of `n` notes; note `i` holds the unique word `uniq{i}` and the shared word `common`.
fn generated(env: &Env, n: usize, salt: &str) {
    for i in 0..n {
        let words: String = (0..40)
            .map(|k| format!("w{} ", (i * 7 + k * 13) % 997))
            .collect();
        env.write(
            &format!("d{}/sub{}/note{i}.md", i % 7, i % 3),
            &format!("# Note {i}\n\ncommon uniq{i} {salt} {words}\n"),
        );
    }
}

/// One more `index` brings it up to date (the last kill may have come before the run it
/// stopped was done, on a busy machine); then every note is in the index exactly once, a second
/// run finds nothing to do, and `common` finds them all, without duplicates.
fn assert_converged(env: &Env, n: usize) {
    let r = env.index_json(&[]);
    assert_eq!(r.notes, n as u64, "{r:?}");
    let r = env.index_json(&[]);
    assert_eq!(
        (r.notes, r.added, r.updated, r.removed),
        (n as u64, 0, 0, 0),
        "{r:?}"
    );
    let all = env.search_json(&["--source", "local", "--no-refresh", "-n", "1000", "common"]);
    let mut paths: Vec<_> = all.results.iter().map(|h| h.path.clone()).collect();
    let before = paths.len();
    paths.sort();
    paths.dedup();
    assert_eq!(before, paths.len(), "no duplicate documents");
    assert_eq!(paths.len(), n.min(1000));
    for i in [0, n / 2, n - 1] {
        let q = format!("uniq{i}");
        let hits = env.local_paths(&q);
        assert!(hits[0].ends_with(&format!("/note{i}.md")), "{q}: {hits:?}");
    }
}

fn kill_index_after(env: &Env, delay: Duration, rebuild: bool) {
    let mut cmd = env.cmd();
    cmd.arg("index").stdout(Stdio::null()).stderr(Stdio::null());
    if rebuild {
        cmd.arg("--rebuild");
    }
    let mut child = cmd.spawn_retried();
    std::thread::sleep(delay);
    let _ = child.kill(); // SIGKILL on Unix, TerminateProcess on Windows
    let _ = child.wait();
}

#[test]
fn kill_during_indexing_converges() {
    let env = Env::new();
    let n = 600;
    generated(&env, n, "first");
    // Instants spread over a full build, a rebuild and incremental runs.
    let delays = [5u64, 20, 40, 80, 120, 200, 300, 450, 700, 1000];
    for (k, ms) in delays.iter().enumerate() {
        if k % 3 == 2 {
            // Change a third of the notes so the next run is a real incremental update.
            for i in (k..n).step_by(3) {
                env.write(
                    &format!("d{}/sub{}/note{i}.md", i % 7, i % 3),
                    &format!("# Note {i}\n\ncommon uniq{i} edit{k}\n"),
                );
            }
        }
        kill_index_after(&env, Duration::from_millis(*ms), k % 4 == 1);
        // Whatever instant it died at, a search still answers.
        let out = env.run(&["--json", "--source", "local", "--no-refresh", "common"]);
        assert_ok(&out);
        let _: vault_search::SearchResponse = serde_json::from_slice(&out.stdout).unwrap();
    }
    assert_converged(&env, n);
}

#[test]
fn searches_during_indexing_never_fail() {
    let env = Env::new();
    let n = 400;
    generated(&env, n, "base");
    env.index_json(&[]);
    let stop = Instant::now() + Duration::from_secs(60);
    let vault = env.vault.clone();
    // A writer: rebuilds and incremental runs while notes are edited, created and deleted.
    let writer = {
        let mut cmd = env.cmd();
        cmd.stdout(Stdio::null()).stderr(Stdio::null());
        std::thread::spawn(move || {
            for round in 0..12 {
                for i in (round..n).step_by(11) {
                    let p = vault.join(format!("d{}/sub{}/note{i}.md", i % 7, i % 3));
                    let _ = std::fs::write(&p, format!("common uniq{i} round{round}\n"));
                }
                let extra = vault.join(format!("extra{round}.md"));
                let _ = std::fs::write(&extra, "common extra\n");
                if round > 0 {
                    let _ = std::fs::remove_file(vault.join(format!("extra{}.md", round - 1)));
                }
                let mut c = std::process::Command::new(cmd.get_program());
                c.args(cmd.get_args())
                    .envs(cmd.get_envs().filter_map(|(k, v)| Some((k, v?))));
                c.arg("index").stdout(Stdio::null()).stderr(Stdio::null());
                if round % 4 == 3 {
                    c.arg("--rebuild");
                }
                c.status_retried();
                if Instant::now() > stop {
                    break;
                }
            }
        })
    };
    let mut failures = Vec::new();
    for i in 0..200 {
        let args = if i % 2 == 0 {
            vec!["--json", "--source", "local", "common", "round"]
        } else {
            vec!["--json", "--source", "local", "--no-refresh", "uniq7"]
        };
        let out = env.run(&args);
        if !out.status.success() {
            failures.push(format!(
                "exit {:?}: {}",
                out.status.code(),
                crate::util::stderr(&out)
            ));
            continue;
        }
        if serde_json::from_slice::<vault_search::SearchResponse>(&out.stdout).is_err() {
            failures.push(format!("bad JSON: {}", crate::util::stdout(&out)));
        }
        if writer.is_finished() && i > 50 {
            break;
        }
    }
    writer.join().unwrap();
    assert!(
        failures.is_empty(),
        "{} failures: {:?}",
        failures.len(),
        &failures[..failures.len().min(3)]
    );
}

#[test]
fn bad_vault_content_is_indexed_or_skipped_and_counted() {
    let env = Env::new();
    env.write_bytes("invalid-utf8.md", b"caf\xe9 \xff\xfe broken marker1\n");
    env.write_bytes("nul-byte.md", b"before\0after marker2\n");
    env.write_bytes("bom.md", "\u{feff}# BOM title\nmarker3\n".as_bytes());
    env.write("crlf.md", "# CRLF\r\nline two marker4\r\n");
    env.write("one.md", "x");
    env.write("empty.md", "");
    let headings: String = (0..100_000).map(|i| format!("# h{i}\n")).collect();
    env.write("headings.md", &format!("{headings}marker5\n"));
    env.write("longword.md", &format!("{} marker6\n", "a".repeat(5000)));
    env.write("with space #hash %pct ünï.md", "marker7\n");
    env.write("UPPER.MD", "marker8\n");
    let deep: String = (0..20).map(|i| format!("l{i}/")).collect();
    env.write(&format!("{deep}deep.md"), "marker9\n");
    env.write(
        "badyaml.md",
        "---\n: [ {\naliases: [unclosed\n---\nmarker10\n",
    );
    env.write_bytes("big.md", &vec![b'a'; 11 * 1024 * 1024]);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{symlink, PermissionsExt};
        env.write("newline\nname.md", "marker11\n");
        let outside = env.root.path().join("outside.md");
        std::fs::write(&outside, "secretmarker outside the vault\n").unwrap();
        symlink(&outside, env.vault.join("link-out.md")).unwrap();
        std::fs::create_dir_all(env.vault.join("loop")).unwrap();
        symlink(env.vault.join("loop"), env.vault.join("loop/again")).unwrap();
        let locked = env.write("locked.md", "marker12\n");
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    }
    let r = env.index_json(&[]);
    let skipped: Vec<&str> = r.skipped_files.iter().map(|s| s.path.as_str()).collect();
    assert!(skipped.contains(&"big.md"), "{skipped:?}");
    assert_eq!(r.skipped, r.skipped_files.len() as u64);
    for (q, path) in [
        ("marker1", "invalid-utf8.md"),
        ("marker2", "nul-byte.md"),
        ("marker3", "bom.md"),
        ("marker4", "crlf.md"),
        ("marker5", "headings.md"),
        ("marker6", "longword.md"),
        ("marker7", "with space #hash %pct ünï.md"),
        ("marker8", "UPPER.MD"),
        ("marker10", "badyaml.md"),
    ] {
        assert_eq!(
            env.local_paths(q).first().map(String::as_str),
            Some(path),
            "{q}"
        );
    }
    assert!(env.local_paths("marker9")[0].ends_with("/deep.md"));
    assert_eq!(env.local_paths("\"BOM title\"")[0], "bom.md");
    let crlf = env.search_json(&["--source", "local", "marker4"]);
    assert_eq!(crlf.results[0].line, Some(2));
    #[cfg(unix)]
    {
        assert_eq!(env.local_paths("marker11")[0], "newline\nname.md");
        assert!(
            env.local_paths("secretmarker").is_empty(),
            "symlinks are never followed"
        );
        let running_as_root = std::fs::read(env.vault.join("locked.md")).is_ok();
        if !running_as_root {
            assert!(skipped.contains(&"locked.md"), "{skipped:?}");
        }
        let out = env.run(&["--source", "local", "marker11"]);
        assert!(
            !crate::util::stdout(&out).contains("newline\nname"),
            "text output flattens control characters"
        );
    }
}

#[test]
fn files_vanishing_between_walk_and_read_are_fine() {
    let env = Env::new();
    for i in 0..300 {
        env.write(&format!("n{i}.md"), &format!("common {i}\n"));
    }
    let vault = env.vault.clone();
    let churn = std::thread::spawn(move || {
        for round in 0..30 {
            for i in (0..300).step_by(7) {
                let p = vault.join(format!("n{i}.md"));
                if round % 2 == 0 {
                    let _ = std::fs::remove_file(&p);
                } else {
                    let _ = std::fs::write(&p, "");
                }
            }
        }
    });
    for _ in 0..5 {
        let out = env.run(&["index", "--json"]);
        assert_ok(&out);
    }
    churn.join().unwrap();
    // The churn may outlast the runs above on a loaded machine: one run takes in its last
    // changes, and then the index has converged.
    assert_ok(&env.run(&["index", "--json"]));
    let r = env.index_json(&[]);
    assert_eq!((r.added, r.updated, r.removed), (0, 0, 0));
}
