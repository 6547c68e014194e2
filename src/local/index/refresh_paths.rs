//! The update for a few named paths: what a file watcher saw change, brought into the index
//! without walking the vault.
//!
//! A walk costs a stat per note (≈150 ms at 100,000 notes) while a save names one file. Each
//! named path is stat'ed as the walk would reach it ([`super::at_path::stat_path`]: the same skip
//! rules) and compared with what the index holds for it ([`Manifest::read_paths`]), then
//! planned by the walk's own [`plan_with`], so the size caps, the racy window and the hashes
//! decide exactly as a walk would, and written by the same [`write`]. What can't be told from
//! the paths is left to the walk: no usable index, new caps, a folder (created, renamed or
//! removed: what it holds is not named), a path that can't be stat'ed.
//!
//! The commit keeps the last walk's `run_started_ns`: the notes a walk did not compare stay
//! in the racy window they were in, so the next walk re-reads whatever that window holds and
//! records its own start. Racily clean notes found unchanged here commit nothing.

use std::path::{Path, PathBuf};

use anyhow::Result;
use tantivy::collector::Count;
use tantivy::query::TermQuery;
use tantivy::schema::IndexRecordOption;
use tantivy::Term;

use super::at_path::{stat_path, AtPath};
use super::manifest::{any_below, Manifest};
use super::plan::plan_with;
use super::store::{Store, WriterLock};
use super::write::{write, Target};
use crate::core::{IndexReport, Limits, NoProgress};
use crate::local::{schema, stored};

/// Why the named paths are not enough: the walk has to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NeedsWalk(pub(crate) &'static str);

/// Brings the index up to date for the vault-relative `paths`, holding the writer lock; the
/// report is a walk's (its `notes` and `unchanged` count the whole index; `skipped_files`
/// names only what these paths skipped).
pub(crate) fn update(
    store: &Store,
    _lock: &WriterLock,
    vault: &Path,
    limits: Limits,
    paths: &[PathBuf],
) -> Result<Result<IndexReport, NeedsWalk>> {
    let Ok(Some((index, payload, reader))) = store.open_current_reader() else {
        return Ok(Err(NeedsWalk("no usable index")));
    };
    let Some(dir) = store.current_dir() else {
        return Ok(Err(NeedsWalk("no usable index")));
    };
    let caps = limits.caps(payload.caps);
    if caps != payload.caps {
        return Ok(Err(NeedsWalk("the size caps changed")));
    }
    let searcher = reader.searcher();
    let pdf = limits.pdf.extractor.is_some();
    let mut keys: Vec<String> = Vec::with_capacity(paths.len());
    let mut disk = Vec::new();
    for rel in paths {
        let key = rel_key(rel);
        if keys.contains(&key) {
            continue;
        }
        match stat_path(vault, rel, pdf) {
            AtPath::Listed(batch) => disk.push(batch),
            AtPath::Nothing if any_below(&searcher, &key)? => {
                return Ok(Err(NeedsWalk("a folder is gone")));
            }
            AtPath::Nothing => {}
            AtPath::Folder => return Ok(Err(NeedsWalk("a folder changed"))),
            AtPath::NoFolder => return Ok(Err(NeedsWalk("a folder above it is not there"))),
            AtPath::Unreadable => return Ok(Err(NeedsWalk("a path could not be stat'ed"))),
        }
        keys.push(key);
    }
    let known = Manifest::read_paths(&searcher, &keys)?;
    let (named_notes, _) = known.counts();
    let mut plan = plan_with(
        &searcher,
        known,
        Some(&payload),
        vault,
        &mut disk.into_iter(),
        caps,
    )?;
    // Unchanged after all: the walk that records a new run start spares them a re-read.
    plan.rechecked = 0;
    // The notes not named are unchanged, as a walk would count them.
    plan.unchanged += indexed_notes(&searcher)?.saturating_sub(named_notes);
    let text_cache = store.text_cache_dir();
    let target = Target {
        index: &index,
        fresh: false,
        dir: &dir,
        vault,
        run_started_ns: payload.run_started_ns,
        limits,
        text_cache: Some(&text_cache),
    };
    let report = write(target, plan, &NoProgress)?;
    super::intact::trust_committed(&index, &dir);
    Ok(Ok(report))
}

/// The vault-relative path as the index keys it (`/` separators, each name spelt as
/// `paths::namebytes` says, as the walk spells it).
fn rel_key(rel: &Path) -> String {
    let parts: Vec<_> = rel.iter().map(crate::paths::namebytes::spell).collect();
    parts.join("/")
}

/// Documents of `searcher`'s commit that are notes, not placeholders.
fn indexed_notes(searcher: &tantivy::Searcher) -> Result<u64> {
    let f = schema::fields();
    let placeholders = TermQuery::new(
        Term::from_field_text(f.skipped, stored::PLACEHOLDER),
        IndexRecordOption::Basic,
    );
    let placeholders = searcher.search(&placeholders, &Count)? as u64;
    Ok(searcher.num_docs().saturating_sub(placeholders))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::IndexOptions;
    use std::fs;

    struct Env {
        _dir: tempfile::TempDir,
        vault: PathBuf,
        opts: IndexOptions,
        store: Store,
    }

    fn env() -> Env {
        let dir = tempfile::tempdir().unwrap();
        let vault = dir.path().join("vault");
        fs::create_dir_all(vault.join("a/b")).unwrap();
        fs::create_dir_all(vault.join(".hidden")).unwrap();
        for (p, text) in [
            ("one.md", "# One\nalpha\n"),
            ("a/two.md", "# Two\nbravo\n"),
            ("a/b/three.md", "charlie\n"),
            ("a/b/four.md", "delta\n"),
            ("big.md", &"x".repeat(300)),
        ] {
            fs::write(vault.join(p), text).unwrap();
        }
        let mut opts = IndexOptions::new(&vault, dir.path().join("cache"));
        opts.max_note_bytes = Some(200);
        crate::local::index(&opts, &NoProgress).unwrap();
        let store = Store::new(&opts.cache_dir, &vault);
        Env {
            _dir: dir,
            vault,
            opts,
            store,
        }
    }

    fn update_paths(env: &Env, paths: &[&str]) -> Result<IndexReport, NeedsWalk> {
        let lock = env.store.try_lock().unwrap().unwrap();
        let paths: Vec<PathBuf> = paths.iter().map(PathBuf::from).collect();
        update(&env.store, &lock, &env.vault, env.opts.limits(), &paths).unwrap()
    }

    /// Whether a walk would find nothing to add, update or remove. It may still want an empty
    /// commit of its own start: once the notes re-read as racily clean are older than the racy
    /// window (this test ran slower than [`super::super::plan::RACY_WINDOW_NS`], as under Wine
    /// on a loaded machine), which is no change the paths left.
    fn walk_finds_no_change(env: &Env) -> bool {
        let mut warnings = Vec::new();
        let checked = super::super::refresh::check(
            &env.store,
            &env.vault,
            env.opts.limits(),
            false,
            &mut warnings,
            |_| Ok(()),
        )
        .unwrap();
        checked.is_current() || checked.only_wants_bump()
    }

    #[test]
    fn the_named_paths_leave_nothing_for_a_walk() {
        let env = env();
        let v = &env.vault;
        fs::write(v.join("one.md"), "# One\nalpha edited, longer\n").unwrap();
        fs::write(v.join("a/new.md"), "echo\n").unwrap();
        fs::rename(v.join("a/two.md"), v.join("a/b/two.md")).unwrap();
        fs::remove_file(v.join("a/b/four.md")).unwrap();
        fs::write(v.join("a/b/grown.md"), "y".repeat(500)).unwrap();
        fs::write(v.join(".dot.md"), "foxtrot\n").unwrap();
        fs::write(v.join(".hidden/no.md"), "hidden\n").unwrap();
        fs::write(v.join("a/notes.txt"), "not a note\n").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(v.join("one.md"), v.join("link.md")).unwrap();
        let named = [
            "one.md",
            "a/new.md",
            "a/two.md",
            "a/b/two.md",
            "a/b/four.md",
            "a/b/grown.md",
            ".dot.md",
            ".hidden/no.md",
            "a/notes.txt",
            "link.md",
            "never-there.md",
        ];
        let report = update_paths(&env, &named).unwrap();
        assert!(walk_finds_no_change(&env), "a walk still finds changes");
        // The report counts the whole index, as a walk's does.
        let walked = crate::local::index(&env.opts, &NoProgress).unwrap();
        assert_eq!(report.notes, walked.notes);
        assert_eq!(
            (report.added, report.updated, report.removed),
            // Added: a/new.md and a/b/two.md; `.dot.md`, a dot file, is hidden as Obsidian
            // hides it.
            (2, 1, 2),
            "{report:?}"
        );
        assert_eq!(walked.added + walked.updated + walked.removed, 0);
    }

    #[test]
    fn folders_and_their_removal_need_the_walk() {
        let env = env();
        fs::create_dir(env.vault.join("c")).unwrap();
        assert_eq!(
            update_paths(&env, &["c"]),
            Err(NeedsWalk("a folder changed"))
        );
        fs::rename(env.vault.join("a/b"), env.vault.join("c/b")).unwrap();
        assert_eq!(
            update_paths(&env, &["a/b"]),
            Err(NeedsWalk("a folder is gone"))
        );
        // A path that was never a folder of the index is no reason to walk.
        assert!(update_paths(&env, &["a/gone"]).is_ok());
        // One below a folder that is not there may name a place that moved.
        assert_eq!(
            update_paths(&env, &["x/y.md"]),
            Err(NeedsWalk("a folder above it is not there"))
        );
        assert!(update_paths(&env, &["../outside.md"]).is_err());
    }

    #[test]
    fn nothing_changed_commits_nothing() {
        let env = env();
        let before = env.store.current_dir();
        let meta =
            |env: &Env| fs::read(env.store.current_dir().unwrap().join("meta.json")).unwrap();
        let m = meta(&env);
        let report = update_paths(&env, &["one.md", "a/two.md"]).unwrap();
        assert_eq!(report.notes, 4);
        assert_eq!(env.store.current_dir(), before);
        assert_eq!(meta(&env), m, "an update that changed nothing committed");
    }
}
