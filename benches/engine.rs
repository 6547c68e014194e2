//! In-process benchmarks of the local engine: full build, no-change refresh, one-note-changed
//! refresh, and queries, on deterministic generated vaults.
//!
//! `cargo bench` (sizes from `VS_BENCH_NOTES`, default `3000,30000`; add `100000` for the
//! large vault). Each size is measured twice, side by side: the plain vault, and the same
//! vault with four giant notes of 1–10 MB (`examples/genvault/giant.rs`); `VS_BENCH_GIANTS=0`
//! measures the plain vault alone. A plain harness rather than criterion: each figure is a median of repeated
//! runs of a whole operation (milliseconds, not nanoseconds), which needs no statistics
//! framework, and the bench builds in seconds instead of pulling criterion's dependency tree.
//! Generated vaults are cached in `target/bench-vaults/`.
// A test/example crate: its `pub` items are for its own modules, not an API.
#![allow(unreachable_pub)]

#[path = "../examples/genvault/gen.rs"]
#[allow(dead_code)]
mod gen;
#[path = "../examples/genvault/giant.rs"]
mod giant;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use vault_search::{IndexOptions, SearchOptions, Source};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> Duration {
    median(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                std::hint::black_box(f());
                t.elapsed()
            })
            .collect(),
    )
}

fn vault(notes: usize, giants: bool) -> (PathBuf, u64) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/bench-vaults")
        .join(format!("{notes}-42{}", if giants { "-giant" } else { "" }));
    let done = dir.join(".complete");
    if let Ok(bytes) = std::fs::read_to_string(&done) {
        return (dir, bytes.trim().parse().unwrap_or(0));
    }
    let _ = std::fs::remove_dir_all(&dir);
    let mut bytes = gen::generate(&dir, notes, 42).expect("generate the vault");
    if giants {
        bytes += giant::add(&dir, 42).expect("add the giant notes");
    }
    std::fs::write(&done, bytes.to_string()).expect("mark the vault complete");
    (dir, bytes)
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

fn main() {
    let sizes: Vec<usize> = std::env::var("VS_BENCH_NOTES")
        .unwrap_or_else(|_| "3000,30000".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    // `cargo test --benches` runs this with `--bench` absent: keep that quick.
    let quick = !std::env::args().any(|a| a == "--bench");
    let sizes = if quick { vec![300] } else { sizes };
    let giants = !quick && std::env::var("VS_BENCH_GIANTS").map_or(true, |v| v != "0");
    for notes in sizes {
        let kinds: &[bool] = if giants { &[false, true] } else { &[false] };
        let setups: Vec<Setup> = kinds.iter().map(|&g| Setup::build(notes, g)).collect();
        let mut rng = gen::Rng::new(42);
        let vocab = gen::Vocab::new(50_000, &mut rng);
        let w = |i: usize| vocab.words[i].clone();
        let typo = {
            let mut c: Vec<char> = w(3000).chars().collect();
            let n = c.len();
            c.swap(n / 2 - 1, n / 2);
            c.into_iter().collect::<String>()
        };
        let folder = first_folder(&setups[0].dir);
        let two = format!("{} {}", w(40), w(700));
        let tag = first_tag(&first_note(&setups[0].dir));
        // Every note passes: the worst case for the range and for a listing's sort.
        let since = "3650d".to_string();
        let f = |flag: &str, v: &str| vec![flag.to_string(), v.to_string()];
        let queries: Vec<(&str, String, Option<String>, Vec<String>)> = vec![
            ("1 term", w(200), None, Vec::new()),
            (
                "3 terms",
                format!("{} {} {}", w(40), w(700), w(9000)),
                None,
                Vec::new(),
            ),
            ("typo", typo, None, Vec::new()),
            (
                "phrase",
                format!("\"{} {}\"", w(3), w(10)),
                None,
                Vec::new(),
            ),
            ("--folder", two.clone(), Some(folder), Vec::new()),
            // The same two words, unfiltered and filtered, side by side.
            ("2 terms", two.clone(), None, Vec::new()),
            ("2 terms --tag", two.clone(), None, f("--tag", &tag)),
            ("2 terms --since", two.clone(), None, f("--since", &since)),
            ("2 terms --where", two, None, f("--where", "tags")),
            // No words: the notes that pass, newest first.
            ("no query, --tag", String::new(), None, f("--tag", &tag)),
            (
                "no query, --since",
                String::new(),
                None,
                f("--since", &since),
            ),
        ];
        let names: Vec<String> = setups
            .iter()
            .map(|s| {
                format!(
                    "{}{notes} notes, {:.1} MB",
                    if s.giants { "giant: " } else { "plain: " },
                    s.bytes as f64 / 1_000_000.0
                )
            })
            .collect();
        println!("\n## {notes} notes");
        println!(
            "| operation | {} |\n| --- |{}",
            names.join(" | "),
            " --- |".repeat(setups.len())
        );
        let row = |what: &str, cells: Vec<String>| println!("| {what} | {} |", cells.join(" | "));
        row(
            "full build",
            setups
                .iter()
                .map(|s| {
                    format!(
                        "{} ({:.1} MB/s)",
                        ms(s.full),
                        s.bytes as f64 / 1e6 / s.full.as_secs_f64()
                    )
                })
                .collect(),
        );
        row(
            "refresh, nothing changed",
            setups.iter().map(|s| ms(s.nochange)).collect(),
        );
        row(
            "refresh, one note changed",
            setups.iter().map(|s| ms(s.one)).collect(),
        );
        for (name, q, folder, flags) in queries {
            // The vaults take turns per query, so both see the same phases of a noisy machine.
            let cells = setups
                .iter()
                .map(|s| {
                    let (d, fresh, process) = s.query(&q, folder.as_deref(), &flags);
                    format!("{} / {} / {}", ms(d), ms(fresh), ms(process))
                })
                .collect();
            row(
                &format!("query: {name} (no refresh / with refresh / whole process, no refresh)"),
                cells,
            );
        }
    }
}

/// One vault, indexed, with its build figures.
struct Setup {
    giants: bool,
    dir: PathBuf,
    bytes: u64,
    cache: tempfile::TempDir,
    full: Duration,
    nochange: Duration,
    one: Duration,
}

impl Setup {
    fn build(notes: usize, giants: bool) -> Setup {
        let (dir, bytes) = vault(notes, giants);
        let cache = tempfile::tempdir().expect("temp cache");
        let opts = IndexOptions::new(&dir, cache.path());
        let full_runs = if notes <= 5000 { 3 } else { 1 };
        let full = time(full_runs, || {
            vault_search::index(&IndexOptions {
                rebuild: true,
                ..opts.clone()
            })
            .expect("index")
        });
        let nochange = time(10, || vault_search::index(&opts).expect("index"));
        let victim = first_note(&dir);
        let original = std::fs::read_to_string(&victim).expect("read a note");
        let mut flip = false;
        let one = time(10, || {
            flip = !flip;
            let text = if flip {
                format!("{original}\nedited\n")
            } else {
                original.clone()
            };
            std::fs::write(&victim, text).expect("edit a note");
            vault_search::index(&opts).expect("index")
        });
        std::fs::write(&victim, &original).expect("restore the note");
        vault_search::index(&opts).expect("index");
        Setup {
            giants,
            dir,
            bytes,
            cache,
            full,
            nochange,
            one,
        }
    }

    /// Medians of one query: in process without and with the refresh, and as a whole process.
    fn query(
        &self,
        q: &str,
        folder: Option<&str>,
        flags: &[String],
    ) -> (Duration, Duration, Duration) {
        let mut s = SearchOptions::new(&self.dir, q);
        s.source = Source::Local;
        s.cache_dir = Some(self.cache.path().to_path_buf());
        s.refresh = false;
        if let Some(f) = folder {
            s.scope = vault_search::Scope::new(Some(f), &[]).expect("scope");
        }
        s.filters = filters_of(flags);
        if q.is_empty() {
            s.sort = vault_search::Sort::Modified;
        }
        let d = time(20, || vault_search::search(&s).expect("search"));
        s.refresh = true;
        let fresh = time(10, || vault_search::search(&s).expect("search"));
        // The same search as an agent runs it: a whole process, start-up and output included.
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_vault-search"));
        cmd.arg("--vault")
            .arg(&self.dir)
            .arg("--cache-dir")
            .arg(self.cache.path())
            .args(["--source", "local", "--no-refresh", "--json"]);
        if let Some(f) = folder {
            cmd.args(["--folder", f]);
        }
        cmd.args(flags);
        if !q.is_empty() {
            cmd.arg("--").arg(q);
        }
        cmd.stdout(std::process::Stdio::null());
        let process = time(20, || cmd.status().expect("run vault-search"));
        (d, fresh, process)
    }
}

/// A tag of a generated note (its first frontmatter tag).
fn first_tag(note: &Path) -> String {
    let text = std::fs::read_to_string(note).expect("read a note");
    text.lines()
        .find_map(|l| l.strip_prefix("tags: ["))
        .and_then(|rest| rest.split([',', ']']).next())
        .unwrap_or("missing")
        .trim()
        .to_string()
}

/// The filters of a case, as the CLI would build them.
fn filters_of(flags: &[String]) -> vault_search::Filters {
    let mut tags = Vec::new();
    let mut since = None;
    let mut wheres = Vec::new();
    for pair in flags.chunks(2) {
        match pair[0].as_str() {
            "--tag" => tags.push(pair[1].clone()),
            "--since" => since = Some(pair[1].as_str()),
            "--where" => wheres.push(pair[1].clone()),
            _ => {}
        }
    }
    vault_search::Filters::parse(&tags, since, None, &wheres).expect("filters")
}

/// The first ordinary note (never a giant one, so both vaults edit the same note).
fn first_note(dir: &Path) -> PathBuf {
    let ordinary = |p: &Path| {
        p.extension().is_some_and(|e| e == "md")
            && !giant::GIANTS.iter().any(|(g, _)| p.ends_with(g))
    };
    walk_first(dir, &ordinary).expect("a note")
}

fn first_folder(dir: &Path) -> String {
    let note = first_note(dir);
    let rel = note.strip_prefix(dir).expect("inside the vault");
    rel.parent()
        .and_then(|p| p.components().next())
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn walk_first(dir: &Path, want: &dyn Fn(&Path) -> bool) -> Option<PathBuf> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in &entries {
        if p.is_file() && want(p) {
            return Some(p.clone());
        }
    }
    for p in entries {
        let hidden = p
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'));
        if p.is_dir() && !hidden {
            if let Some(found) = walk_first(&p, want) {
                return Some(found);
            }
        }
    }
    None
}
