//! The size caps belong to the index: `index --max-note-bytes N` / `--max-pdf-bytes N` set them,
//! the commit records them, and every later update not given a cap (a search's refresh,
//! `index` without the flag, a rebuild) keeps to the recorded ones instead of the defaults.

use crate::util::{assert_ok, stdout, Env};
use vault_search::{IndexReport, Status, DEFAULT_MAX_NOTE_BYTES, DEFAULT_MAX_PDF_BYTES};

fn status(env: &Env) -> Status {
    let out = env.run(&["status", "--json"]);
    assert_ok(&out);
    serde_json::from_slice(&out.stdout).unwrap()
}

fn skipped(st: &Status) -> Vec<&str> {
    st.skipped_files.iter().map(|f| f.path.as_str()).collect()
}

fn report_skipped(r: &IndexReport) -> Vec<&str> {
    r.skipped_files.iter().map(|f| f.path.as_str()).collect()
}

/// A refreshing local search (no `--no-refresh`), the paths of its hits.
fn search(env: &Env, extra: &[&str], query: &str) -> Vec<String> {
    let args = [&["--source", "local"], extra, &["--", query]].concat();
    env.search_json(&args)
        .results
        .into_iter()
        .map(|h| h.path)
        .collect()
}

#[test]
fn a_lowered_note_cap_survives_searches_and_changes() {
    let env = Env::new();
    env.write("small.md", "# Small\n\nalpha\n");
    env.write("mid.md", &"numbat ".repeat(1000));
    let r = env.index_json(&["--max-note-bytes", "1000"]);
    assert_eq!((r.notes, r.skipped), (1, 1), "{r:?}");
    let st = status(&env);
    assert_eq!(
        (st.max_note_bytes, st.max_pdf_bytes),
        (1000, DEFAULT_MAX_PDF_BYTES)
    );
    assert!(stdout(&env.run(&["status"])).contains("notes 1000 bytes,"));

    // Under the default cap, but not under the index's: a search leaves it a placeholder.
    assert!(search(&env, &[], "numbat").is_empty());
    assert_eq!(skipped(&status(&env)), ["mid.md"]);
    // Changed, it is looked at again, under the same cap.
    env.write("mid.md", &"numbat wombat ".repeat(1000));
    assert!(search(&env, &[], "wombat").is_empty());
    let st = status(&env);
    assert_eq!((st.notes, st.skipped, st.changed_since), (1, 1, Some(0)));
    assert_eq!(st.max_note_bytes, 1000);
    assert_eq!(search(&env, &[], "alpha"), ["small.md"]);
}

#[test]
fn a_raised_note_cap_survives_a_change_to_the_big_note() {
    let env = Env::new();
    env.write("small.md", "alpha\n");
    // Just over the default cap.
    let big = "quokka ".repeat(DEFAULT_MAX_NOTE_BYTES as usize / 7 + 1000);
    env.write("big.md", &big);
    let raised = (DEFAULT_MAX_NOTE_BYTES * 2).to_string();
    let r = env.index_json(&["--max-note-bytes", &raised]);
    assert_eq!((r.notes, r.skipped), (2, 0), "{r:?}");

    env.write("big.md", &format!("{big}\nbilby at the end\n"));
    assert_eq!(search(&env, &[], "bilby"), ["big.md"]);
    let st = status(&env);
    assert_eq!((st.notes, st.skipped), (2, 0), "{st:?}");
    assert_eq!(st.max_note_bytes, DEFAULT_MAX_NOTE_BYTES * 2);
}

#[test]
fn index_keeps_the_recorded_cap_until_given_a_new_one() {
    let env = Env::new();
    env.write("small.md", "alpha\n");
    env.write("mid.md", &"numbat ".repeat(100)); // 700 bytes
    let r = env.index_json(&[]);
    assert_eq!((r.notes, r.skipped), (2, 0), "{r:?}");
    assert_eq!(status(&env).max_note_bytes, DEFAULT_MAX_NOTE_BYTES);

    // A lowered cap applies to an indexed note that did not change: it leaves the notes.
    let r = env.index_json(&["--max-note-bytes", "500"]);
    assert_eq!((r.notes, r.removed, r.unchanged), (1, 1, 1), "{r:?}");
    assert_eq!(report_skipped(&r), ["mid.md"]);
    let st = status(&env);
    assert_eq!((st.notes, st.skipped, st.max_note_bytes), (1, 1, 500));

    // Without the flag, `index` and a rebuild keep the recorded cap; the placeholder is named.
    let r = env.index_json(&[]);
    assert_eq!((r.notes, r.added, r.skipped), (1, 0, 1), "{r:?}");
    let r = env.index_json(&["--rebuild"]);
    assert!(r.rebuilt);
    assert_eq!((r.notes, r.skipped), (1, 1), "{r:?}");
    assert_eq!(status(&env).max_note_bytes, 500);

    // A new value replaces it, and is recorded even when no file is affected by it.
    let r = env.index_json(&["--max-note-bytes", "10000"]);
    assert_eq!((r.notes, r.added, r.skipped), (2, 1, 0), "{r:?}");
    let r = env.index_json(&["--max-note-bytes", "2000"]);
    assert_eq!((r.notes, r.unchanged, r.skipped), (2, 2, 0), "{r:?}");
    assert_eq!(status(&env).max_note_bytes, 2000);
    env.write("new.md", &"dingo ".repeat(1000)); // 6000 bytes
    assert!(search(&env, &[], "dingo").is_empty());
    let st = status(&env);
    assert_eq!((st.notes, skipped(&st)), (2, vec!["new.md"]));
}

#[test]
fn a_placeholder_whose_file_is_deleted_is_not_a_removed_note() {
    let env = Env::new();
    env.write("small.md", "alpha\n");
    env.write("mid.md", &"numbat ".repeat(1000));
    env.write("other.md", "beta\n");
    let r = env.index_json(&["--max-note-bytes", "1000"]);
    assert_eq!((r.notes, r.skipped), (2, 1), "{r:?}");

    env.remove("mid.md");
    let r = env.index_json(&[]);
    assert_eq!((r.notes, r.removed, r.skipped), (2, 0, 0), "{r:?}");
    env.remove("other.md");
    let r = env.index_json(&[]);
    assert_eq!((r.notes, r.removed, r.unchanged), (1, 1, 1), "{r:?}");
    let st = status(&env);
    assert_eq!((st.notes, st.skipped), (r.notes, r.skipped), "{st:?}");
}

#[test]
fn the_pdf_cap_is_the_index_s_too() {
    let env = Env::new();
    env.write("note.md", "a plain note\n");
    env.write_bytes(
        "manual.pdf",
        &crate::extract::pdf(&["the platypus chapter"]),
    );
    let out = env.run(&["--max-pdf-bytes", "100", "index", "--json"]);
    assert_ok(&out);
    let r: IndexReport = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report_skipped(&r), ["manual.pdf"]);

    // A search and `index` without the flag keep the PDF a placeholder.
    assert!(search(&env, &[], "platypus").is_empty());
    let r = env.index_json(&[]);
    assert_eq!(report_skipped(&r), ["manual.pdf"]);
    let st = status(&env);
    assert_eq!(
        (st.max_note_bytes, st.max_pdf_bytes),
        (DEFAULT_MAX_NOTE_BYTES, 100)
    );

    // A cap given to a search is applied and recorded like one given to `index`.
    assert_eq!(
        search(&env, &["--max-pdf-bytes", "1000000"], "platypus"),
        ["manual.pdf"]
    );
    let st = status(&env);
    assert_eq!((st.skipped, st.max_pdf_bytes), (0, 1_000_000), "{st:?}");
    assert_eq!(search(&env, &[], "platypus"), ["manual.pdf"]);
}

#[test]
fn a_search_indexing_in_memory_keeps_the_recorded_cap() {
    let env = Env::new();
    env.write("small.md", "alpha\n");
    env.write("mid.md", &"numbat ".repeat(1000));
    let r = env.index_json(&["--max-note-bytes", "1000"]);
    assert_eq!((r.notes, r.skipped), (1, 1), "{r:?}");
    // An index of another format (as after an upgrade) that another process is rebuilding:
    // this search indexes in memory, still under the cap the old index recorded.
    let meta_path = env.live_index_dir().join("meta.json");
    let meta = std::fs::read_to_string(&meta_path).unwrap();
    let old = meta.replace("schema-", "schema-0-old-");
    assert_ne!(meta, old);
    std::fs::write(&meta_path, old).unwrap();
    let _lock = vault_search::__hold_writer_lock(&env.cache, &env.vault).unwrap();
    let out = env.run(&["--json", "--source", "local", "numbat"]);
    assert_ok(&out);
    assert!(
        crate::util::stderr(&out).contains("in memory"),
        "{}",
        crate::util::stderr(&out)
    );
    let r: vault_search::SearchResponse = serde_json::from_slice(&out.stdout).unwrap();
    let paths: Vec<&str> = r.results.iter().map(|h| h.path.as_str()).collect();
    assert!(paths.is_empty(), "{paths:?}");
    assert_eq!(search(&env, &[], "alpha"), ["small.md"]);
}

#[test]
fn status_names_a_placeholder_under_the_cap_in_effect() {
    let env = Env::new();
    env.write("small.md", "alpha\n");
    env.write("mid.md", &"numbat ".repeat(1000)); // 7000 bytes
    env.index_json(&["--max-note-bytes", "1000"]);
    // Over the new cap as well: still a placeholder, now for being over 5000 bytes.
    let r = env.index_json(&["--max-note-bytes", "5000"]);
    assert!(r.skipped_files[0].reason.contains("5000"), "{r:?}");
    let st = status(&env);
    assert_eq!(st.max_note_bytes, 5000);
    assert_eq!(skipped(&st), ["mid.md"]);
    assert_eq!(
        st.skipped_files[0].reason, r.skipped_files[0].reason,
        "{st:?}"
    );
}
