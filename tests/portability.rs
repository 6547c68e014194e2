//! File names and paths that mean something else on another platform, through the real
//! binary. They run everywhere (on Linux they are ordinary names) and under Wine in CI, where
//! the Windows rules apply: reserved device names, names ending in a dot or a space, a vault
//! given in the verbatim `\\?\` form, a rename that changes only the case.

use std::path::PathBuf;

use crate::util::Env;
#[cfg(windows)]
use crate::util::{assert_ok, stdout, Start};

/// Where `rel` is on disk, as this platform must spell it to reach the file as named: on
/// Windows the verbatim form, since a plain `…\aux.md` names the AUX device and a plain
/// `…\Drafts.\x.md` names `…\Drafts\x.md`.
fn on_disk(env: &Env, rel: &str) -> PathBuf {
    let p = env.vault.join(rel);
    if cfg!(windows) {
        PathBuf::from(format!(r"\\?\{}", p.display()))
    } else {
        p
    }
}

#[test]
#[cfg_attr(
    windows,
    ignore = "Wine only: a Windows program can't create these names under Wine (ERROR_INVALID_NAME, \
              even verbatim); .ci/wine_smoke.py makes them from the Linux side and checks the same \
              under Wine. On Windows run it with --ignored"
)]
fn reserved_names_and_trailing_dots_are_indexed_read_and_searched_as_spelt() {
    let env = Env::new();
    let notes = [
        ("aux.md", "zeppelin one\n"),
        ("Con.md", "zeppelin two\n"),
        ("com1.md", "zeppelin three\n"),
        ("Drafts./plan.md", "zeppelin four\n"),
        ("Ideas /list.md", "zeppelin five\n"),
        ("console.md", "zeppelin six\n"),
    ];
    for (rel, body) in notes {
        let p = on_disk(&env, rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, body).unwrap();
    }
    let report = env.index_json(&[]);
    assert_eq!(report.notes, notes.len() as u64, "{report:?}");
    assert_eq!(report.skipped, 0, "{report:?}");
    let mut found = env.local_paths("zeppelin");
    found.sort();
    let mut expected: Vec<String> = notes.iter().map(|(r, _)| r.to_string()).collect();
    expected.sort();
    assert_eq!(found, expected);
    // The excerpt comes from the note's own text, not from a device or another folder.
    let r = env.search_json(&["--source", "local", "--", "zeppelin four"]);
    assert_eq!(r.results[0].path, "Drafts./plan.md");
    assert!(r.results[0].excerpt.contains("four"), "{:?}", r.results[0]);
}

#[test]
#[cfg_attr(
    windows,
    ignore = "Wine only: a rename that changes only the case leaves the old name on disk (Wine's \
              MoveFileEx sees the same file and does nothing), so there is no new spelling to see. \
              On Windows run it with --ignored"
)]
fn a_rename_that_changes_only_the_case_is_a_rename() {
    let env = Env::new();
    env.write("Notes/Airship.md", "zeppelin\n");
    assert_eq!(env.local_paths("zeppelin"), ["Notes/Airship.md"]);
    // On a case-insensitive disk (Windows, macOS) both names are the same file: the index must
    // drop the old spelling, not keep it beside the new one or miss the change.
    std::fs::rename(
        env.vault.join("Notes/Airship.md"),
        env.vault.join("Notes/airship.md"),
    )
    .unwrap();
    assert_eq!(env.local_paths("zeppelin"), ["Notes/airship.md"]);
    let report = env.index_json(&[]);
    assert_eq!(report.notes, 1, "{report:?}");
    // And a folder's.
    std::fs::rename(env.vault.join("Notes"), env.vault.join("NOTES")).unwrap();
    assert_eq!(env.local_paths("zeppelin"), ["NOTES/airship.md"]);
}

#[cfg(windows)]
#[test]
fn a_vault_given_verbatim_is_the_same_vault() {
    let env = Env::new();
    env.write("n.md", "zeppelin\n");
    assert_eq!(env.index_json(&[]).added, 1);
    let verbatim = format!(r"\\?\{}", env.vault.display());
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_vault-search"))
            .env_remove("OBSIDIAN_VAULT")
            .env_remove("OBSIDIAN_VAULT_PATH")
            .env("VAULT_SEARCH_CACHE_DIR", &env.cache)
            .env("OMNISEARCH_PORT", env.dead_port.to_string())
            .args(["--vault", &verbatim])
            .args(args)
            .output_retried();
        assert_ok(&out);
        stdout(&out)
    };
    // Resolved to the plain spelling: the index `--vault C:\…` built, nothing to add.
    let report: vault_search::IndexReport =
        serde_json::from_str(&run(&["index", "--json"])).unwrap();
    assert_eq!((report.added, report.unchanged), (0, 1), "{report:?}");
    let r: vault_search::SearchResponse =
        serde_json::from_str(&run(&["--json", "--source", "local", "zeppelin"])).unwrap();
    assert_eq!(r.results[0].path, "n.md");
}
