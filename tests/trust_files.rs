//! Files the tool reads as a trust boundary, through the real binary: Obsidian's `app.json`
//! (a FIFO, a symlink to a device, a huge sparse file), the index's lock (a FIFO), serve's
//! read-back and the index's read of a non-UTF-8 name while a folder is swapped for a symlink,
//! `read_note` of a huge note, dot files, and the index's file modes.

#[cfg(unix)]
use std::time::{Duration, Instant};

use crate::util::Env;
#[cfg(unix)]
use crate::util::{assert_ok, stderr, Start};

/// How long a run may take before it counts as hung; a debug build on a busy machine answers
/// these in well under a second, so this only tells a hang from a slow run.
#[cfg(unix)]
const HUNG: Duration = Duration::from_secs(20);

/// Runs the binary with `args`, killing it (and failing) when it has not exited within
/// [`HUNG`].
#[cfg(unix)]
fn run_bounded(env: &Env, args: &[&str]) -> std::process::Output {
    let mut child = env
        .cmd()
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn_retried();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > HUNG {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{args:?} hangs");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

#[cfg(unix)]
pub(crate) fn mkfifo(path: &std::path::Path) {
    rustix::fs::mknodat(
        rustix::fs::CWD,
        path,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
}

/// A vault whose `app.json` excludes `Archive/`, indexed.
#[cfg(unix)]
fn vault_with_exclusions() -> Env {
    let env = Env::new();
    env.write("Dev/kotlin.md", "kotlin daemon\n");
    env.write("Archive/old.md", "kotlin archived\n");
    env.write(
        ".obsidian/app.json",
        r#"{"userIgnoreFilters": ["Archive/"]}"#,
    );
    env.index_json(&[]);
    env
}

/// `app.json` replaced by something that is no settings file: a FIFO (opening or reading it
/// waits for a writer forever), a symlink to `/dev/zero` (endless bytes) and a 1 GiB sparse
/// file. Each search answers, without the exclusions, and says why in its warnings.
#[cfg(unix)]
#[test]
fn an_app_json_that_is_no_settings_file_is_a_warning_not_a_hang() {
    let env = vault_with_exclusions();
    let app = env.vault.join(".obsidian/app.json");
    let r = env.search_json(&["--source", "local", "kotlin"]);
    assert_eq!(r.results.len(), 1, "the filter applies: {r:?}");
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    type Plant = fn(&std::path::Path);
    let plants: [(&str, Plant); 3] = [
        ("a FIFO", |p| mkfifo(p)),
        ("a symlink to /dev/zero", |p| {
            std::os::unix::fs::symlink("/dev/zero", p).unwrap()
        }),
        ("a 1 GiB sparse file", |p| {
            let f = std::fs::File::create(p).unwrap();
            f.set_len(1 << 30).unwrap();
        }),
    ];
    for (what, plant) in plants {
        std::fs::remove_file(&app).unwrap();
        plant(&app);
        let out = run_bounded(&env, &["--json", "--source", "local", "kotlin"]);
        assert_ok(&out);
        let r: vault_search::SearchResponse = serde_json::from_slice(&out.stdout).unwrap();
        let mut paths: Vec<&str> = r.results.iter().map(|h| h.path.as_str()).collect();
        paths.sort();
        assert_eq!(paths, ["Archive/old.md", "Dev/kotlin.md"], "{what}");
        assert!(
            r.warnings.iter().any(|w| w.contains("app.json")),
            "{what}: {:?}",
            r.warnings
        );
    }
}

/// The same FIFO through MCP: `search_notes` and `read_note` answer (the first with the
/// warning), one after the other on the same server.
#[cfg(unix)]
#[test]
fn mcp_answers_with_a_fifo_for_app_json() {
    use crate::mcp::{is_error, structured, text, Session};
    let env = vault_with_exclusions();
    let app = env.vault.join(".obsidian/app.json");
    std::fs::remove_file(&app).unwrap();
    mkfifo(&app);
    let mut s = Session::ready(&env, &[]);
    for _ in 0..3 {
        let r = s.call(
            "search_notes",
            serde_json::json!({"query": "kotlin", "source": "local"}),
        );
        assert!(!is_error(&r), "{r}");
        let answer = structured(&r);
        assert_eq!(answer.results.len(), 2, "{answer:?}");
        assert!(answer.warnings.iter().any(|w| w.contains("app.json")));
        let r = s.call("read_note", serde_json::json!({"path": "Dev/kotlin.md"}));
        assert!(!is_error(&r), "{r}");
        assert!(text(&r).contains("kotlin daemon"), "{r}");
    }
}

/// A `serve` on a free port, caught up with its first index.
#[cfg(unix)]
struct Serve {
    _child: crate::util::ServerProcess,
    port: u16,
}

#[cfg(unix)]
impl Serve {
    fn start(env: &Env) -> Serve {
        let (child, rx) = crate::util::spawn_serve(env, &[]);
        let port = crate::util::serve_port(&rx, HUNG);
        let s = Serve {
            _child: child,
            port,
        };
        let started = Instant::now();
        while s.get("/health").0 != 200 {
            assert!(started.elapsed() < HUNG, "serve never became healthy");
            std::thread::sleep(Duration::from_millis(50));
        }
        s
    }

    /// (status, body) of a GET; fails when no answer comes within [`HUNG`].
    fn get(&self, path: &str) -> (u16, String) {
        use std::io::{Read, Write};
        let mut s = std::net::TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        s.set_read_timeout(Some(HUNG)).unwrap();
        let req = format!(
            "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\r\n",
            self.port
        );
        s.write_all(req.as_bytes()).unwrap();
        let mut raw = Vec::new();
        s.read_to_end(&mut raw)
            .unwrap_or_else(|e| panic!("no answer to {path}: {e}"));
        let text = String::from_utf8(raw).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        let status = head.split(' ').nth(1).unwrap().parse().unwrap();
        (status, body.to_string())
    }
}

/// One `/search` hit in the Omnisearch plugin's shape (the fields these tests read).
#[cfg(unix)]
#[derive(Debug, serde::Deserialize)]
struct OmniHit {
    path: String,
    excerpt: String,
}

/// With a FIFO for `app.json`, `serve` answers every `/search` (more than its 32 request
/// slots) and `/health` after them.
#[cfg(unix)]
#[test]
fn serve_answers_every_search_with_a_fifo_for_app_json() {
    let env = vault_with_exclusions();
    let server = Serve::start(&env);
    let app = env.vault.join(".obsidian/app.json");
    std::fs::remove_file(&app).unwrap();
    mkfifo(&app);
    for i in 0..40 {
        // A new query each time: no answer is served from the answer cache.
        let (status, body) = server.get(&format!("/search?q=kotlin%20{i}"));
        assert_eq!(status, 200, "{body}");
        let _: Vec<OmniHit> = serde_json::from_str(&body).unwrap();
    }
    let (status, body) = server.get("/search?q=kotlin");
    assert_eq!(status, 200, "{body}");
    let hits: Vec<OmniHit> = serde_json::from_str(&body).unwrap();
    assert_eq!(hits.len(), 2, "no exclusions: {hits:?}");
    assert_eq!(server.get("/health").0, 200);
}

/// Exchanges `a` and `b` (two folders, or a folder and a symlink) again and again until the
/// returned flag is set; the thread is joined by the caller.
#[cfg(target_os = "linux")]
pub(crate) fn exchange_loop(
    a: std::path::PathBuf,
    b: std::path::PathBuf,
) -> (
    std::sync::Arc<std::sync::atomic::AtomicBool>,
    std::thread::JoinHandle<()>,
) {
    use std::sync::atomic::{AtomicBool, Ordering};
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let flag = std::sync::Arc::clone(&stop);
    let thread = std::thread::spawn(move || {
        while !flag.load(Ordering::Relaxed) {
            rustix::fs::renameat_with(
                rustix::fs::CWD,
                &a,
                rustix::fs::CWD,
                &b,
                rustix::fs::RenameFlags::EXCHANGE,
            )
            .unwrap();
        }
    });
    (stop, thread)
}

/// A hit's folder exchanged, again and again, with a symlink to a folder outside the vault
/// holding a note of the same name: `/search` reads each hit back for its excerpt, folder by
/// folder from the vault's handle, so no answer ever carries the outside note's text.
#[cfg(target_os = "linux")]
#[test]
fn serve_never_reads_a_hit_back_through_a_folder_swapped_for_a_symlink() {
    let env = Env::new();
    let outside = env.root.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("race.md"), "kotlin secretmarker\n").unwrap();
    env.write("sub/race.md", "kotlin inside\n");
    let link = env.root.path().join("link");
    std::os::unix::fs::symlink(&outside, &link).unwrap();
    let server = Serve::start(&env);
    let (stop, swapper) = exchange_loop(link, env.vault.join("sub"));
    let (mut answered, mut leaked, mut i) = (0u32, 0u32, 0u32);
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(15) && answered < 2_000 {
        // Letter case varies the query, so few answers come from the answer cache.
        let q: String = "kotlin"
            .chars()
            .enumerate()
            .map(|(b, c)| {
                if i >> b & 1 == 1 {
                    c.to_ascii_uppercase()
                } else {
                    c
                }
            })
            .collect();
        i = i.wrapping_add(1);
        let (status, body) = server.get(&format!("/search?q={q}"));
        assert_eq!(status, 200, "{body}");
        let hits: Vec<OmniHit> = serde_json::from_str(&body).unwrap();
        for h in &hits {
            assert_eq!(h.path, "sub/race.md");
            answered += u32::from(h.excerpt.contains("inside"));
            leaked += u32::from(h.excerpt.contains("secretmarker"));
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    swapper.join().unwrap();
    assert_eq!(leaked, 0, "answers with the outside note's text");
    assert!(answered > 0, "the note itself was never answered");
}

/// A note whose name is not UTF-8, in a folder exchanged again and again with a symlink to a
/// folder outside holding a file of the same name: the index opens it folder by folder too,
/// so the outside file's text is never indexed.
#[cfg(target_os = "linux")]
#[test]
fn a_non_utf8_name_is_never_indexed_through_a_folder_swapped_for_a_symlink() {
    use std::os::unix::ffi::OsStrExt;
    let env = Env::new();
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.md");
    let outside = env.root.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join(name), "kotlin secretmarker\n").unwrap();
    std::fs::create_dir_all(env.vault.join("sub")).unwrap();
    std::fs::write(env.vault.join("sub").join(name), "kotlin inside\n").unwrap();
    env.write("other.md", "kotlin\n");
    let link = env.root.path().join("link");
    std::os::unix::fs::symlink(&outside, &link).unwrap();
    let (stop, swapper) = exchange_loop(link, env.vault.join("sub"));
    let (mut runs, mut leaked) = (0, 0);
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(15) && runs < 300 {
        let out = env.run(&["index", "--json"]);
        assert_ok(&out);
        runs += 1;
        let r = env.search_json(&["--source", "local", "--no-refresh", "secretmarker"]);
        leaked += usize::from(!r.results.is_empty());
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    swapper.join().unwrap();
    assert_eq!(
        leaked, 0,
        "{leaked} of {runs} runs indexed the outside file"
    );
}

/// An index lock that is a FIFO: `index` stops at once with one line naming it, and a search
/// still answers, from the last commit, saying why it did not update it.
#[cfg(unix)]
#[test]
fn a_fifo_for_the_index_lock_is_refused_at_once() {
    let env = Env::new();
    env.write("a.md", "kotlin daemon\n");
    env.index_json(&[]);
    let lock = env.store_dir().join("lock");
    std::fs::remove_file(&lock).unwrap();
    mkfifo(&lock);
    env.write("b.md", "kotlin again\n");
    let out = run_bounded(&env, &["index", "--json"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("vault-search: ") && err.contains("lock"),
        "{err}"
    );
    let out = run_bounded(&env, &["--json", "--source", "local", "kotlin"]);
    assert_ok(&out);
    let r: vault_search::SearchResponse = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r.results.len(), 1, "{r:?}");
    assert!(r.stale, "{r:?}");
    assert!(r.warnings.iter().any(|w| w.contains("lock")), "{r:?}");
}

/// Obsidian hides files whose name starts with `.`, as it hides such folders: search never
/// shows one, and `read_note` refuses it, so the two agree.
#[test]
fn dot_files_are_hidden_from_search_and_read_note_alike() {
    use crate::mcp::{is_error, structured, Session};
    let env = Env::new();
    env.write(".draft.md", "zebrafinch at the root\n");
    env.write("sub/.draft.md", "zebrafinch in a folder\n");
    env.write("seen.md", "zebrafinch shown\n");
    assert_eq!(env.local_paths("zebrafinch"), ["seen.md"]);
    let r = env.index_json(&[]);
    assert_eq!(r.notes, 1, "{r:?}");
    let mut s = Session::ready(&env, &[]);
    let r = s.call(
        "search_notes",
        serde_json::json!({"query": "zebrafinch", "source": "local"}),
    );
    let paths: Vec<String> = structured(&r).results.into_iter().map(|h| h.path).collect();
    assert_eq!(paths, ["seen.md"]);
    for hidden in [".draft.md", "sub/.draft.md"] {
        let r = s.call("read_note", serde_json::json!({ "path": hidden }));
        assert!(is_error(&r), "{hidden}: {r}");
    }
    let r = s.call("read_note", serde_json::json!({"path": "seen.md"}));
    assert!(!is_error(&r), "{r}");
}

/// `read_note` of a 3 GiB sparse note is refused with its size; a long note read one line at
/// a time is counted only a little past the window ("of at least N"), a short one to its end.
#[test]
fn read_note_caps_the_file_and_counts_only_near_its_window() {
    use crate::mcp::{is_error, text, Session};
    let env = Env::new();
    let lines = 400_000;
    let long: String = (1..=lines).map(|i| format!("line {i}\n")).collect();
    env.write("long.md", &long);
    env.write("short.md", "one\ntwo\nthree\n");
    // Sparse where the file system allows (on Windows the space would be allocated).
    #[cfg(unix)]
    {
        let huge = env.write("huge.md", "first line\n");
        std::fs::File::options()
            .write(true)
            .open(&huge)
            .unwrap()
            .set_len(3 << 30)
            .unwrap();
    }
    let mut s = Session::ready(&env, &[]);
    #[cfg(unix)]
    {
        let r = s.call(
            "read_note",
            serde_json::json!({"path": "huge.md", "max_lines": 1}),
        );
        assert!(is_error(&r), "{r}");
        assert!(text(&r).contains("MB"), "{r}");
    }
    let r = s.call(
        "read_note",
        serde_json::json!({"path": "long.md", "max_lines": 1}),
    );
    assert!(!is_error(&r), "{r}");
    let t = text(&r);
    let header = t.lines().next().unwrap();
    let counted: u64 = header
        .strip_prefix("long.md (lines 1-1 of at least ")
        .and_then(|h| h.strip_suffix(')'))
        .unwrap_or_else(|| panic!("{t}"))
        .parse()
        .unwrap();
    assert!(counted > 1 && counted < lines, "{t}");
    assert!(t.contains("from_line=2"), "{t}");
    let r = s.call(
        "read_note",
        serde_json::json!({"path": "short.md", "max_lines": 1}),
    );
    let t = text(&r);
    assert!(t.starts_with("short.md (lines 1-1 of 3)\n"), "{t}");
    assert!(t.contains("[2 more lines; from_line=2 reads on]"), "{t}");
}

/// Every file of the index directory is private (0600), `.managed.json` included, after each
/// of a run of updates: those that merge segments collect the old files, which rewrites
/// `.managed.json` after the commit.
#[cfg(unix)]
#[test]
fn every_file_of_the_index_is_private() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    env.write("a.md", "kotlin\n");
    env.index_json(&[]);
    for i in 0..12 {
        env.write("a.md", &format!("kotlin edited {i}\n"));
        env.write(&format!("n{i}.md"), "kotlin too\n");
        let r = env.index_json(&[]);
        assert_eq!((r.added, r.updated), (1, 1), "{r:?}");
        let mut seen = Vec::new();
        for e in std::fs::read_dir(env.live_index_dir()).unwrap().flatten() {
            let md = e.metadata().unwrap();
            if md.is_file() {
                let name = e.file_name().to_string_lossy().into_owned();
                assert_eq!(md.permissions().mode() & 0o777, 0o600, "{name} after {i}");
                seen.push(name);
            }
        }
        assert!(seen.iter().any(|n| n == ".managed.json"), "{seen:?}");
    }
}

/// One byte flipped in the middle of every `.fieldnorm` (reranks silently when read) or
/// `.fast` file (panics a merge) of the live index, each file's size and mtime kept: the next
/// search sees the change (its ctime), checks the file, and rebuilds before it answers.
#[cfg(unix)]
#[test]
fn a_flipped_byte_that_keeps_size_and_mtime_is_rebuilt_before_the_next_answer() {
    for ext in ["fieldnorm", "fast"] {
        let env = Env::new();
        for i in 0..120 {
            env.write(
                &format!("n{i}.md"),
                &format!("# Note {i}\n\ncommon uniq{i} w{} w{}\n", i % 7, i % 11),
            );
        }
        env.index_json(&[]);
        let mut flipped = 0;
        for e in std::fs::read_dir(env.live_index_dir()).unwrap().flatten() {
            let p = e.path();
            if p.extension().and_then(|x| x.to_str()) != Some(ext) {
                continue;
            }
            let mtime = std::fs::metadata(&p).unwrap().modified().unwrap();
            let mut bytes = std::fs::read(&p).unwrap();
            let mid = bytes.len() / 2;
            bytes[mid] ^= 0x01;
            std::fs::write(&p, &bytes).unwrap();
            let f = std::fs::File::options().write(true).open(&p).unwrap();
            f.set_modified(mtime).unwrap();
            flipped += 1;
        }
        assert!(flipped > 0, "{ext}: no such file");
        let out = env.run(&["--json", "--source", "local", "--no-refresh", "uniq42"]);
        assert_ok(&out);
        let err = stderr(&out);
        assert!(err.contains("rebuilding the index"), "{ext}: {err}");
        assert!(!err.contains("panicked"), "{ext}: {err}");
        let r: vault_search::SearchResponse = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(r.results[0].path, "n42.md", "{ext}");
        let all = env.search_json(&["--source", "local", "-n", "1000", "common"]);
        assert_eq!(all.results.len(), 120, "{ext}");
    }
}
