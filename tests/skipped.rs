//! Notes over the size cap: the index keeps a stub (path, size, mtime), so such a note is read
//! neither at every search nor at every `index`, is never a hit, and `status` names it as
//! skipped rather than counting it as changed; once it changes it is looked at again.

use crate::util::{assert_ok, Env};
use vault_search::Status;

fn status(env: &Env) -> Status {
    let out = env.run(&["status", "--json"]);
    assert_ok(&out);
    serde_json::from_slice(&out.stdout).unwrap()
}

fn skipped_paths(files: &[vault_search::SkippedFile]) -> Vec<&str> {
    files.iter().map(|f| f.path.as_str()).collect()
}

#[test]
fn a_note_over_the_cap_is_remembered_and_never_a_hit() {
    let env = Env::new();
    env.write("small.md", "# Small\n\nalpha beta\n");
    // Over the default cap of 10 MiB, so searches (which use the default) skip it too.
    env.write("big.md", &"zyzzyva alpha ".repeat(800_000));
    // A commit of a run's start is not the stub's doing.
    env.backdate(&["small.md", "big.md"]);
    let r = env.index_json(&[]);
    assert_eq!((r.notes, r.added, r.skipped), (1, 1, 1), "{r:?}");
    assert_eq!(skipped_paths(&r.skipped_files), ["big.md"]);
    assert!(r.skipped_files[0].reason.contains("larger than"));

    let st = status(&env);
    assert_eq!(st.changed_since, Some(0), "{st:?}");
    assert_eq!((st.notes, st.skipped), (1, 1), "{st:?}");
    assert_eq!(skipped_paths(&st.skipped_files), ["big.md"]);
    let text = crate::util::stdout(&env.run(&["status"]));
    assert!(text.contains("big.md"), "{text}");

    // Searches neither find the stub nor commit anything on its account.
    let meta = env.live_index_dir().join("meta.json");
    let before = std::fs::read(&meta).unwrap();
    assert!(env.local_paths("zyzzyva").is_empty());
    assert_eq!(env.local_paths("alpha"), ["small.md"]);
    assert_eq!(std::fs::read(&meta).unwrap(), before, "a search committed");

    let r = env.index_json(&[]);
    assert_eq!(
        (
            r.notes,
            r.added,
            r.updated,
            r.removed,
            r.unchanged,
            r.skipped
        ),
        (1, 0, 0, 0, 1, 1),
        "{r:?}"
    );
    assert_eq!(skipped_paths(&r.skipped_files), ["big.md"]);
    assert_eq!(
        std::fs::read(&meta).unwrap(),
        before,
        "an index run committed"
    );
}

#[test]
fn a_note_that_shrinks_below_the_cap_is_indexed_and_one_that_grows_over_it_leaves() {
    let env = Env::new();
    env.write("grow.md", &"quokka ".repeat(50));
    env.write("shrink.md", &"wombat ".repeat(1000));
    let cap = ["--max-note-bytes", "1000"];
    let r = env.index_json(&cap);
    assert_eq!((r.notes, r.added), (1, 1), "{r:?}");
    assert_eq!(skipped_paths(&r.skipped_files), ["shrink.md"]);

    env.write("shrink.md", "wombat shrunk\n");
    env.write("grow.md", &"quokka ".repeat(500));
    let r = env.index_json(&cap);
    assert_eq!(
        (r.notes, r.added, r.updated, r.removed),
        (1, 1, 0, 1),
        "{r:?}"
    );
    assert_eq!(skipped_paths(&r.skipped_files), ["grow.md"]);
    let st = status(&env);
    assert_eq!((st.notes, st.skipped, st.changed_since), (1, 1, Some(0)));
    assert_eq!(skipped_paths(&st.skipped_files), ["grow.md"]);
    let hits = |q: &str| {
        env.search_json(&["--source", "local", "--no-refresh", "--", q])
            .results
            .into_iter()
            .map(|h| h.path)
            .collect::<Vec<_>>()
    };
    assert_eq!(hits("wombat"), ["shrink.md"]);
    assert!(hits("quokka").is_empty());

    // A larger cap takes the remembered note in without it changing.
    let r = env.index_json(&["--max-note-bytes", "100000"]);
    assert_eq!((r.notes, r.added, r.skipped), (2, 1, 0), "{r:?}");
    assert_eq!(hits("quokka"), ["grow.md"]);
    assert_eq!(status(&env).skipped, 0);
}
