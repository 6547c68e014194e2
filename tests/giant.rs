//! Giant notes (clippings, logs, dumps of megabytes holding nearly every word of the vault)
//! must neither win every query nor make a search's work grow with their size.

use crate::util::Env;
use vault_search::{SearchOptions, Source};

/// Short notes on distinct topics, and a 3 MB note that holds all of them (and more) many
/// times over, far apart, plus one passage holding a rare pair near its end.
fn giant_env() -> Env {
    let env = Env::new();
    let topics = [
        (
            "kiln.md",
            "# Kiln\n\nFiring the glaze needs a slow cooling ramp.\n",
        ),
        (
            "tides.md",
            "# Tides\n\nThe harbour pilot reads the spring tide table.\n",
        ),
        (
            "bees.md",
            "# Bees\n\nThe hive swarmed after the queen cell hatched.\n",
        ),
        (
            "chess.md",
            "# Chess\n\nA rook endgame rewards an active king.\n",
        ),
    ];
    for (name, text) in topics {
        env.write(name, text);
    }
    let mut giant = String::from("---\ntags: [dump]\n---\n# Everything\n\n");
    let words: Vec<&str> = topics
        .iter()
        .flat_map(|(_, t)| t.split_whitespace())
        .filter(|w| !w.starts_with('#'))
        .collect();
    let mut k = 0usize;
    while giant.len() < 3_000_000 {
        // Every word of the vault, each far from its neighbours of the same note.
        giant.push_str(words[k % words.len()]);
        giant.push_str(&" filler".repeat(60));
        giant.push('\n');
        k += 7;
    }
    giant.push_str("\n## Late section\n\nA lone zebra quagga sighting.\n");
    env.write("Dumps/everything.md", &giant);
    env
}

#[test]
fn a_giant_note_does_not_win_over_the_short_note_it_copies() {
    let env = giant_env();
    for (query, want) in [
        ("glaze cooling ramp", "kiln.md"),
        ("spring tide pilot", "tides.md"),
        ("queen cell hive", "bees.md"),
        ("rook endgame king", "chess.md"),
    ] {
        let paths = env.local_paths(query);
        assert_eq!(
            paths.first().map(String::as_str),
            Some(want),
            "{query}: {paths:?}"
        );
    }
}

#[test]
fn a_giant_note_whose_passage_holds_the_words_ranks_and_points_there() {
    let env = giant_env();
    let r = env.search_json(&["--source", "local", "--", "zebra quagga"]);
    let hit = r
        .results
        .iter()
        .find(|h| h.path == "Dumps/everything.md")
        .expect("the giant note is a hit");
    assert!(hit.excerpt.contains("zebra quagga"), "{}", hit.excerpt);
    assert_eq!(hit.heading.as_deref(), Some("Late section"));
    let text = std::fs::read_to_string(env.vault.join("Dumps/everything.md")).unwrap();
    let want = text.lines().position(|l| l.contains("zebra")).unwrap() as u64 + 1;
    assert_eq!(hit.line, Some(want));
    assert_eq!(hit.tags, vec!["dump".to_string()]);
}

#[test]
fn the_excerpt_prefers_the_text_over_the_frontmatter() {
    let env = Env::new();
    env.write(
        "spell.md",
        "---\ncasting: command word\ncomponents: verbal\n---\n# Spell\n\nSpeak the command word to end it.\n",
    );
    let r = env.search_json(&["--source", "local", "--", "command"]);
    let hit = &r.results[0];
    assert!(hit.excerpt.starts_with("# Spell"), "{}", hit.excerpt);
    assert_eq!(hit.line, Some(7));
}

/// The text tokenized to show a hit stays bounded by the passage machinery, however large
/// the note: no more than a few checkpoints' worth per hit against a 3 MB note.
#[test]
fn the_work_per_hit_does_not_grow_with_the_note() {
    let env = giant_env();
    vault_search::index(&vault_search::IndexOptions::new(&env.vault, &env.cache)).unwrap();
    for query in ["zebra quagga", "glaze cooling ramp", "filler"] {
        let mut opts = SearchOptions::new(&env.vault, query);
        opts.source = Source::Local;
        opts.cache_dir = Some(env.cache.clone());
        opts.refresh = false;
        vault_search::__passage_work();
        let answer = vault_search::search(&opts).unwrap();
        assert!(
            answer
                .results
                .iter()
                .any(|h| h.path == "Dumps/everything.md"),
            "{query}: the giant note is among the hits"
        );
        let (total, max) = vault_search::__passage_work();
        assert!(
            total > 0,
            "{query}: the hits were located through the passage code"
        );
        assert!(
            max <= 64 * 1024,
            "{query}: one hit tokenized {max} bytes of a 3 MB note"
        );
    }
}

/// A giant note that copies a short note next to another one can pair the neighbour's exact
/// word with the copied passage; the short note, matched through an inflection, still wins.
#[test]
fn a_neighbouring_exact_word_does_not_lift_a_giant_copy_over_its_source() {
    let env = Env::new();
    let bird = "# bird\n\n> This supports the syncing of iCloud and iCloud Drive.\n";
    env.write("osx/bird.md", bird);
    env.write(
        "osx/biometrickitd.md",
        "# biometrickitd\n\n> Get support for biometric operations.\n",
    );
    let mut giant = String::from("# Export\n\n");
    let mut k = 0;
    while giant.len() < 400_000 {
        giant.push_str(&format!("# page{k}\n\n> Tool number {k} prints lines.\n\n"));
        if k == 3000 {
            giant.push_str("# biometrickitd\n\n> Get support for biometric operations.\n\n");
            giant.push_str(bird);
        }
        k += 1;
    }
    env.write("Dumps/export.md", &giant);
    let paths = env.local_paths("support syncing iCloud drive");
    assert_eq!(
        paths.first().map(String::as_str),
        Some("osx/bird.md"),
        "{paths:?}"
    );
}
