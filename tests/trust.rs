//! Trust boundaries through the real binary: what a note's frontmatter, a path's characters and
//! an unreadable file can make the tool say.

use crate::util::{assert_ok, stderr, Env};
// Its process starts and output checks are all in tests of Unix-only behaviour.
#[cfg(unix)]
use crate::util::{stdout, Start};

#[test]
fn yaml_null_tags_and_aliases_are_none() {
    let env = Env::new();
    env.write("n.md", "---\ntags: null\naliases: ~\n---\nkotlin daemon\n");
    let r = env.search_json(&["--source", "local", "kotlin"]);
    assert_eq!(r.results[0].path, "n.md");
    assert!(r.results[0].tags.is_empty(), "{:?}", r.results[0].tags);
    assert!(
        r.results[0].aliases.is_empty(),
        "{:?}",
        r.results[0].aliases
    );
    let r = env.search_json(&["--source", "local", "--tag", "null"]);
    assert!(r.results.is_empty(), "no tag named null");
}

#[cfg(unix)]
#[test]
fn control_characters_in_paths_never_reach_the_terminal() {
    let root = tempfile::tempdir().unwrap();
    let vault = root.path().join("v\u{1b}]0;owned\u{7}\u{1b}[31mred");
    std::fs::create_dir_all(&vault).unwrap();
    std::fs::write(vault.join("a.md"), "kotlin\n").unwrap();
    let run = |vault: &std::path::Path, args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_vault-search"))
            .env("VAULT_SEARCH_CACHE_DIR", root.path().join("cache"))
            .env("OMNISEARCH_PORT", crate::util::dead_port().to_string())
            .arg("--vault")
            .arg(vault)
            .args(args)
            .output_retried()
    };
    let out = run(&vault, &["status"]);
    assert_ok(&out);
    assert!(!stdout(&out).contains('\u{1b}'), "{:?}", stdout(&out));
    assert!(stdout(&out).contains("red"));
    let out = run(&vault.join("gone\u{1b}[2J"), &["kotlin"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("vault not found"), "{err}");
    assert!(!err.contains('\u{1b}') && !err.contains('\u{7}'), "{err:?}");
}

#[cfg(unix)]
#[test]
fn an_unreadable_note_is_skipped_by_status_as_by_index() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    env.write("ok.md", "kotlin\n");
    let locked = env.write("locked.md", "kotlin\n");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    // Root reads any file: then the binary runs as `nobody`, for whom the note is unreadable.
    let run = |args: &[&str]| match std::fs::read(&locked) {
        Err(_) => env.run(args),
        Ok(_) => as_nobody(&env, args),
    };
    let out = run(&["index", "--json"]);
    assert_ok(&out);
    let r: vault_search::IndexReport = serde_json::from_slice(&out.stdout).unwrap();
    let skipped: Vec<&str> = r.skipped_files.iter().map(|s| s.path.as_str()).collect();
    assert_eq!(skipped, ["locked.md"]);
    let out = run(&["status", "--json"]);
    assert_ok(&out);
    let st: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(st["changed_since"], 0, "{st}");
    assert_eq!(st["skipped_files"][0]["path"], "locked.md", "{st}");
}

/// The binary as user and group 65534 (`nobody`), through util-linux's `setpriv`; the
/// temporary tree is opened to it and the cache handed to it, as its own would be.
#[cfg(unix)]
fn as_nobody(env: &Env, args: &[&str]) -> std::process::Output {
    use std::os::unix::fs::PermissionsExt;
    let open = std::fs::Permissions::from_mode(0o755);
    std::fs::set_permissions(env.root.path(), open.clone()).unwrap();
    std::fs::set_permissions(&env.vault, open).unwrap();
    std::fs::create_dir_all(&env.cache).unwrap();
    std::os::unix::fs::lchown(&env.cache, Some(65534), Some(65534)).unwrap();
    let cmd = env.cmd();
    let mut c = std::process::Command::new("setpriv");
    c.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(cmd.get_program())
        .args(cmd.get_args())
        .args(args);
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => c.env(k, v),
            None => c.env_remove(k),
        };
    }
    c.output()
        .expect("setpriv (util-linux) runs the binary as nobody")
}

/// A prepared symlink or file is renamed over `race.md` again and again until dropped, so a
/// reader that checks the name and then opens it can be handed the file outside the vault.
#[cfg(unix)]
struct Swapper {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

#[cfg(unix)]
impl Swapper {
    fn start(env: &Env, outside: &std::path::Path, inside_text: &'static str) -> Swapper {
        use std::sync::atomic::{AtomicBool, Ordering};
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let (vault, outside) = (env.vault.clone(), outside.to_path_buf());
        let flag = std::sync::Arc::clone(&stop);
        let tmp = env.root.path().join("swap");
        std::fs::create_dir_all(&tmp).unwrap();
        let thread = std::thread::spawn(move || {
            let (link, file) = (tmp.join("link"), tmp.join("file"));
            let mut i = 0u64;
            while !flag.load(Ordering::Relaxed) {
                let _ = std::fs::remove_file(&link);
                std::os::unix::fs::symlink(&outside, &link).unwrap();
                std::fs::rename(&link, vault.join("race.md")).unwrap();
                i += 1;
                // A new size each time: an update reads it again.
                let text = format!("{inside_text} {}\n", "x".repeat((i % 50) as usize));
                std::fs::write(&file, text).unwrap();
                std::fs::rename(&file, vault.join("race.md")).unwrap();
            }
        });
        Swapper {
            stop,
            thread: Some(thread),
        }
    }
}

#[cfg(unix)]
impl Drop for Swapper {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(unix)]
#[test]
fn a_note_swapped_for_a_symlink_never_leaks_the_target() {
    use crate::util::{omni_hit, MockServer, Reply};
    let env = Env::new();
    let outside = env.root.path().join("secret.md");
    std::fs::write(&outside, "---\ntags: [secret]\n---\nsecretmarker kotlin\n").unwrap();
    env.write("race.md", "---\ntags: [inside]\n---\nkotlin\n");
    env.write("other.md", "kotlin\n");
    let body = serde_json::json!([omni_hit(1.0, "race.md", "kotlin", None)]);
    let server = MockServer::start(Reply::Json(body.to_string()));
    let port = server.port.to_string();
    let swapper = Swapper::start(&env, &outside, "---\ntags: [inside]\n---\nkotlin");
    for _ in 0..60 {
        let r = env.search_json(&["--port", &port, "--source", "omnisearch", "kotlin"]);
        for h in &r.results {
            assert!(!h.tags.contains(&"secret".to_string()), "{h:?}");
        }
        let out = env.run(&["index", "--json"]);
        assert_ok(&out);
    }
    drop(swapper);
    std::fs::remove_file(env.vault.join("race.md")).unwrap();
    env.write("race.md", "kotlin\n");
    env.index_json(&[]);
    assert!(
        env.local_paths("secretmarker").is_empty(),
        "the outside file's text was never indexed"
    );
}

#[cfg(unix)]
#[test]
fn omnisearch_hits_naming_a_fifo_or_a_huge_file_are_not_read() {
    use crate::util::{omni_hit, MockServer, Reply};
    let env = Env::new();
    crate::trust_files::mkfifo(&env.vault.join("fifo.md"));
    // Sparse: 11 MiB on paper, over the 10 MiB note cap, its frontmatter at the start.
    let big = env.write("big.md", "---\ntags: [big]\n---\nkotlin\n");
    std::fs::File::options()
        .write(true)
        .open(&big)
        .unwrap()
        .set_len(11 * 1024 * 1024)
        .unwrap();
    let body = serde_json::json!([
        omni_hit(2.0, "fifo.md", "kotlin", None),
        omni_hit(1.0, "big.md", "kotlin", None)
    ]);
    let server = MockServer::start(Reply::Json(body.to_string()));
    let port = server.port.to_string();
    let mut child = env
        .cmd()
        .args([
            "--json",
            "--port",
            &port,
            "--source",
            "omnisearch",
            "kotlin",
        ])
        .stdout(std::process::Stdio::piped())
        .spawn_retried();
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > std::time::Duration::from_secs(20) {
            let _ = child.kill();
            panic!("a FIFO named by a hit hangs the search");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    assert_ok(&out);
    let r: vault_search::SearchResponse = serde_json::from_slice(&out.stdout).unwrap();
    let big = r.results.iter().find(|h| h.path == "big.md").unwrap();
    assert!(big.tags.is_empty(), "a note over the cap is not read");
}

/// XORs 256 bytes in the middle of every `*.<ext>` file of the live index.
fn damage(env: &Env, ext: &str) -> usize {
    let mut n = 0;
    for e in std::fs::read_dir(env.live_index_dir()).unwrap().flatten() {
        let p = e.path();
        if p.extension().and_then(|x| x.to_str()) != Some(ext) {
            continue;
        }
        damage_file(&p);
        n += 1;
    }
    n
}

/// XORs 256 bytes in the middle of the file.
fn damage_file(p: &std::path::Path) {
    let mut bytes = std::fs::read(p).unwrap();
    let from = (bytes.len() / 2).saturating_sub(128);
    let to = (from + 256).min(bytes.len());
    for b in &mut bytes[from..to] {
        *b ^= 0x5a;
    }
    std::fs::write(p, bytes).unwrap();
}

#[test]
fn a_damaged_index_is_rebuilt_before_it_answers() {
    for ext in ["fast", "pos", "idx", "term", "store", "fieldnorm"] {
        let env = Env::new();
        for i in 0..150 {
            env.write(
                &format!("d{}/n{i}.md", i % 5),
                &format!(
                    "# Note {i}\n\ncommon uniq{i} kotlin w{} w{}\n",
                    i % 7,
                    i % 11
                ),
            );
        }
        env.index_json(&[]);
        assert!(damage(&env, ext) > 0, "{ext}: no such file");
        let out = env.run(&["--json", "--source", "local", "--no-refresh", "uniq42"]);
        assert_ok(&out);
        let err = stderr(&out);
        assert!(err.contains("rebuilding the index"), "{ext}: {err}");
        assert_eq!(err.lines().count(), 1, "{ext}: one line: {err}");
        assert!(!err.contains("panicked"), "{ext}: {err}");
        let r: vault_search::SearchResponse = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(r.results[0].path, "d2/n42.md", "{ext}");
        let all = env.search_json(&["--source", "local", "-n", "1000", "common"]);
        assert_eq!(all.results.len(), 150, "{ext}: no duplicates, none lost");
        let out = env.run(&["index", "--json"]);
        assert_ok(&out);
        assert!(!stderr(&out).contains("panicked"), "{ext}");
    }
}

/// An environment whose cache directory is shared and world-writable, as `/tmp` is.
#[cfg(unix)]
fn shared_cache_env() -> Env {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    std::fs::create_dir_all(&env.cache).unwrap();
    std::fs::set_permissions(&env.cache, std::fs::Permissions::from_mode(0o1777)).unwrap();
    env.write("a.md", "kotlin daemon\n");
    env
}

#[cfg(unix)]
fn mode_of(p: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::symlink_metadata(p).unwrap().permissions().mode() & 0o7777
}

/// `index` refuses with one line naming why; a search answers from memory and says so.
#[cfg(unix)]
fn assert_refused(env: &Env, why: &str) {
    let out = env.run(&["index"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("refusing") && err.contains(why), "{err}");
    let out = env.run(&["--json", "--source", "local", "kotlin"]);
    assert_ok(&out);
    let r: vault_search::SearchResponse = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r.results[0].path, "a.md");
    let err = stderr(&out);
    assert!(err.contains(why) && err.contains("in memory"), "{err}");
}

#[cfg(unix)]
#[test]
fn a_planted_symlink_in_a_shared_cache_dir_is_refused() {
    use std::os::unix::fs::{symlink, PermissionsExt};
    let env = shared_cache_env();
    env.index_json(&[]);
    let store = env.store_dir();
    std::fs::remove_dir_all(&store).unwrap();
    // The index folder as a symlink to someone else's folder.
    let theirs = env.root.path().join("theirs");
    std::fs::create_dir(&theirs).unwrap();
    std::fs::set_permissions(&theirs, std::fs::Permissions::from_mode(0o755)).unwrap();
    symlink(&theirs, &store).unwrap();
    assert_refused(&env, "symlink");
    assert_eq!(mode_of(&theirs), 0o755, "not chmod-ed");
    assert_eq!(
        std::fs::read_dir(&theirs).unwrap().count(),
        0,
        "nothing written"
    );
    // The lock as a symlink to someone else's file.
    std::fs::remove_file(&store).unwrap();
    std::fs::create_dir(&store).unwrap();
    std::fs::set_permissions(&store, std::fs::Permissions::from_mode(0o700)).unwrap();
    let target = env.root.path().join("their-file");
    std::fs::write(&target, "data").unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o644)).unwrap();
    symlink(&target, store.join("lock")).unwrap();
    let out = env.run(&["index"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
    assert_eq!(
        mode_of(&target),
        0o644,
        "the lock's target was not chmod-ed"
    );
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "data");
}

#[cfg(unix)]
#[test]
fn index_folders_open_to_others_or_owned_by_another_user_are_refused() {
    use std::os::unix::fs::PermissionsExt;
    let env = shared_cache_env();
    env.index_json(&[]);
    let store = env.store_dir();
    std::fs::set_permissions(&store, std::fs::Permissions::from_mode(0o777)).unwrap();
    assert_refused(&env, "others may write it");
    assert_eq!(
        mode_of(&store),
        0o777,
        "refused, not repaired behind the user's back"
    );
    std::fs::set_permissions(&store, std::fs::Permissions::from_mode(0o700)).unwrap();
    env.index_json(&[]);
    // Another user's folder (only root can make one here).
    let nobody = rustix::process::Uid::from_raw(65534);
    if rustix::fs::chown(&store, Some(nobody), None).is_ok() {
        assert_refused(&env, "owned by another user");
    }
}

#[test]
fn damage_that_keeps_size_and_mtime_is_rebuilt_by_the_next_update() {
    let env = Env::new();
    for i in 0..150 {
        env.write(
            &format!("n{i}.md"),
            &format!("# Note {i}\n\ncommon uniq{i}\n"),
        );
    }
    env.index_json(&[]);
    for e in std::fs::read_dir(env.live_index_dir()).unwrap().flatten() {
        let p = e.path();
        if p.extension().and_then(|x| x.to_str()) != Some("fast") {
            continue;
        }
        let mtime = std::fs::metadata(&p).unwrap().modified().unwrap();
        damage_file(&p);
        let f = std::fs::File::options().write(true).open(&p).unwrap();
        f.set_modified(mtime).unwrap();
    }
    for i in 0..100 {
        env.write(
            &format!("n{i}.md"),
            &format!("# Note {i}\n\ncommon uniq{i} edited\n"),
        );
    }
    let out = env.run(&["index", "--json"]);
    assert_ok(&out);
    let err = stderr(&out);
    assert!(!err.contains("panicked"), "{err}");
    // Whether the update reads the damaged stretch depends on where it fell (the segments'
    // layout varies with the indexing threads): when it does, one line and a rebuild; the
    // checksums themselves are not read again for an unchanged size and mtime.
    if err.is_empty() {
        return;
    }
    assert!(err.contains("rebuilding the index"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    let r = env.index_json(&[]);
    assert_eq!((r.notes, r.added, r.updated), (150, 0, 0), "{r:?}");
    let all = env.search_json(&["--source", "local", "-n", "1000", "common"]);
    assert_eq!(all.results.len(), 150);
}

/// Calls `read_note` on `path` while a swapper runs, asserting that the outside note never
/// shows; returns how many calls read the note itself. 600 calls at least, more (up to 5,000)
/// until one caught the note between swaps: under load the swapper can hold the symlink
/// state through a whole run of calls.
#[cfg(unix)]
fn read_while_swapped(s: &mut crate::mcp::Session, path: &str) -> usize {
    let mut answered = 0;
    for n in 0..5000 {
        let r = s.call("read_note", serde_json::json!({ "path": path }));
        let t = crate::mcp::text(&r);
        assert!(!t.contains("secretmarker"), "leaked: {t}");
        answered += usize::from(t.contains("inside"));
        if n >= 600 && answered > 0 {
            break;
        }
    }
    answered
}

#[cfg(unix)]
#[test]
fn read_note_never_reads_through_a_note_swapped_for_a_symlink() {
    use crate::mcp::Session;
    let env = Env::new();
    let outside = env.root.path().join("secret.md");
    std::fs::write(&outside, "secretmarker\n").unwrap();
    env.write("race.md", "inside\n");
    let mut s = Session::ready(&env, &[]);
    let swapper = Swapper::start(&env, &outside, "inside");
    let answered = read_while_swapped(&mut s, "race.md");
    drop(swapper);
    assert!(answered > 0, "the note itself was never read");
}

/// A folder on the note's way swapped, again and again, with a symlink to a folder outside
/// the vault holding a note of the same name: `read_note` opens each folder from the vault's
/// handle without following a symlink, so the outside note is never read.
#[cfg(target_os = "linux")]
#[test]
fn read_note_never_reads_through_a_folder_swapped_for_a_symlink() {
    use crate::mcp::Session;
    let env = Env::new();
    let outside = env.root.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("race.md"), "secretmarker\n").unwrap();
    env.write("sub/race.md", "inside\n");
    let link = env.root.path().join("link");
    std::os::unix::fs::symlink(&outside, &link).unwrap();
    let mut s = Session::ready(&env, &[]);
    let (stop, swapper) = crate::trust_files::exchange_loop(link, env.vault.join("sub"));
    let answered = read_while_swapped(&mut s, "sub/race.md");
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    swapper.join().unwrap();
    assert!(answered > 0, "the note itself was never read");
}

/// Notes with the same text tie; whatever segment each landed in, and in whatever order the
/// runs wrote them, equal scores are listed by path — in a rebuilt index as in an updated one.
#[test]
fn equal_scores_are_listed_by_path() {
    let env = Env::new();
    for (i, name) in ["z", "m", "q", "b", "k"].iter().enumerate() {
        env.write(&format!("{name}.md"), "kotlin daemon notes\n");
        env.write(
            &format!("other{i}.md"),
            &format!("kotlin {}\n", "word ".repeat(i + 3)),
        );
        env.index_json(&[]);
    }
    env.write("m.md", "kotlin daemon notes\n\n");
    env.index_json(&[]);
    let ordered = |r: &vault_search::SearchResponse| {
        let tied: Vec<&str> = r
            .results
            .iter()
            .filter(|h| h.score == r.results[0].score)
            .map(|h| h.path.as_str())
            .collect();
        assert_eq!(
            tied,
            ["b.md", "k.md", "m.md", "q.md", "z.md"],
            "{:?}",
            r.results
        );
        for w in r.results.windows(2) {
            assert!(w[0].score > w[1].score || w[0].path < w[1].path, "{w:?}");
        }
    };
    ordered(&env.search_json(&["--source", "local", "kotlin", "daemon"]));
    env.index_json(&["--rebuild"]);
    ordered(&env.search_json(&["--source", "local", "kotlin", "daemon"]));
}
