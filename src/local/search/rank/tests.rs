//! Unit tests of the ranking on tiny in-memory indexes: expansion (exact, inflection, prefix,
//! typo), the candidate query (filters inside it, required phrases), and the order the re-rank
//! signals give.
#![allow(clippy::unwrap_used)]

use std::collections::HashMap;

use tantivy::collector::TopDocs;
use tantivy::{Index, Searcher};

use super::expand::{expand, stemmer};
use super::terms::MatchKind;
use super::{candidate_query, expand_query, rerank, set_rarity, RankContext, CANDIDATES};
use crate::core::{Filters, Limits, Scope, SearchHit};
use crate::local::index::refresh;
use crate::local::search::filter::Narrowing;
use crate::local::search::query::{self, ParsedQuery};
use crate::local::weights::weights;
use crate::local::{analyzer, schema};

struct Tiny {
    _dir: tempfile::TempDir,
    _index: Index,
    searcher: Searcher,
}

fn tiny(notes: &[(&str, &str)]) -> Tiny {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in notes {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let index = refresh::build_in_memory(dir.path(), Limits::default()).unwrap();
    let searcher = index.reader().unwrap().searcher();
    Tiny {
        _dir: dir,
        _index: index,
        searcher,
    }
}

fn parse(q: &str) -> ParsedQuery {
    query::parse(&mut analyzer::text_analyzer(), q)
}

fn variants(t: &Tiny, word: &str) -> HashMap<String, f32> {
    expand(&t.searcher, schema::fields(), word, &mut stemmer())
        .unwrap()
        .all
}

/// Candidate paths for a query in a scope, best BM25 first, phrases required or not.
fn candidates(t: &Tiny, q: &str, scope: &Scope, require: bool) -> Vec<String> {
    let fields = schema::fields();
    let parsed = parse(q);
    let terms = expand_query(&t.searcher, fields, &parsed).unwrap();
    let query = candidate_query(
        fields,
        &parsed,
        &terms,
        require,
        Narrowing {
            scope,
            filters: &Filters::default(),
            linked: None,
        },
        Vec::new(),
    );
    let top = t
        .searcher
        .search(&query, &TopDocs::with_limit(10).order_by_score())
        .unwrap();
    top.into_iter()
        .map(|(_, addr)| {
            let doc: tantivy::TantivyDocument = t.searcher.doc(addr).unwrap();
            use tantivy::schema::Value;
            doc.get_first(fields.path)
                .and_then(|v| v.as_str())
                .unwrap()
                .to_string()
        })
        .collect()
}

/// The whole ranking, as `search::run` does it.
fn ranked(t: &Tiny, q: &str) -> Vec<SearchHit> {
    let fields = schema::fields();
    let parsed = parse(q);
    let mut terms = expand_query(&t.searcher, fields, &parsed).unwrap();
    set_rarity(&t.searcher, fields, &mut terms).unwrap();
    let query = candidate_query(
        fields,
        &parsed,
        &terms,
        false,
        Narrowing {
            scope: &Scope::default(),
            filters: &Filters::default(),
            linked: None,
        },
        Vec::new(),
    );
    let top = t
        .searcher
        .search(&query, &TopDocs::with_limit(CANDIDATES).order_by_score())
        .unwrap();
    // Notes in memory only: every hit is shown from its stored document.
    let vault = std::path::Path::new("");
    let cx = RankContext::new(&t.searcher, fields, &parsed, &terms, &top, vault);
    rerank(&cx, 10, crate::core::Sort::Relevance, &mut Vec::new()).unwrap()
}

fn first(t: &Tiny, q: &str) -> String {
    ranked(t, q)[0].path.clone()
}

#[test]
fn expansion_finds_exact_inflection_prefix_and_typo_variants() {
    let t = tiny(&[(
        "a.md",
        "rebuild rebuilding kotlincompiledaemon daemon configuration\n",
    )]);
    let v = variants(&t, "daemon");
    assert_eq!(v.get("daemon"), Some(&MatchKind::Exact.weight()));
    let v = variants(&t, "rebuilds");
    assert_eq!(v.get("rebuild"), Some(&MatchKind::Inflection.weight()));
    assert_eq!(v.get("rebuilding"), Some(&MatchKind::Inflection.weight()));
    let v = variants(&t, "kotlin");
    assert_eq!(
        v.get("kotlincompiledaemon"),
        Some(&MatchKind::Prefix.weight())
    );
    // A transposition is one typo from five characters on.
    let v = variants(&t, "deamon");
    assert_eq!(v.get("daemon"), Some(&MatchKind::Typo1.weight()));
    // Two typos only from nine characters on.
    let v = variants(&t, "configuraton");
    assert!(v.contains_key("configuration"));
    let v = variants(&t, "daemn");
    assert!(v.contains_key("daemon"), "{v:?}");
    let v = variants(&t, "dxemn");
    assert!(
        !v.contains_key("daemon"),
        "two typos in a short word: {v:?}"
    );
}

#[test]
fn every_variant_weighs_less_than_an_exact_match() {
    for kind in [
        MatchKind::Inflection,
        MatchKind::Typo1,
        MatchKind::Prefix,
        MatchKind::Typo2,
    ] {
        assert!(kind.weight() < MatchKind::Exact.weight(), "{kind:?}");
        assert!(kind.weight() > 0.0, "{kind:?}");
    }
}

#[test]
fn short_words_get_no_typo_variants() {
    let t = tiny(&[("a.md", "cat car cart\n")]);
    let v = variants(&t, "cat");
    assert_eq!(v.get("cat"), Some(&1.0));
    assert!(!v.contains_key("car"), "{v:?}");
    // ...but prefixes from three characters.
    let v = variants(&t, "car");
    assert_eq!(v.get("cart"), Some(&MatchKind::Prefix.weight()));
}

#[test]
fn a_four_letter_word_no_note_holds_gets_one_edit_variants() {
    let t = tiny(&[("a.md", "linux lynx video view vie dare\n")]);
    let typo1 = Some(&MatchKind::Typo1.weight());
    // A dropped letter, a changed letter, two letters swapped: one edit each.
    let v = variants(&t, "linx");
    assert_eq!(v.get("linux"), typo1, "{v:?}");
    assert_eq!(v.get("lynx"), typo1, "{v:?}");
    let v = variants(&t, "vieo");
    assert_eq!(v.get("video"), typo1, "{v:?}");
    assert_eq!(v.get("view"), typo1, "{v:?}");
    // The candidate still needs four letters.
    assert!(!v.contains_key("vie"), "{v:?}");
    let v = variants(&t, "drae");
    assert_eq!(v.get("dare"), typo1, "{v:?}");
    // Never two edits.
    let v = variants(&t, "lnxu");
    assert!(!v.contains_key("linux"), "{v:?}");
}

#[test]
fn a_four_letter_word_some_note_holds_gets_no_typo_variants() {
    let t = tiny(&[("a.md", "cart\n"), ("b.md", "card care\n")]);
    let v = variants(&t, "cart");
    assert_eq!(v.get("cart"), Some(&1.0));
    assert!(!v.contains_key("card"), "{v:?}");
    assert!(!v.contains_key("care"), "{v:?}");
}

#[test]
fn a_misspelt_four_letter_word_finds_its_note() {
    let t = tiny(&[
        ("dvdmaker.md", "Create and burn video DVDs.\n"),
        (
            "cdrecord.md",
            "Burn DVDs. Burn discs, burn DVDs, burn data.\n",
        ),
    ]);
    assert_eq!(first(&t, "burn vieo dvds"), "dvdmaker.md");
    let hits = ranked(&t, "vieo");
    let paths: Vec<&str> = hits.iter().map(|h| h.path.as_str()).collect();
    assert_eq!(paths, vec!["dvdmaker.md"]);
}

#[test]
fn a_word_of_the_query_is_no_prefix_variant_of_another() {
    let t = tiny(&[("a.md", "tech technique users\n")]);
    let terms = |q: &str| expand_query(&t.searcher, schema::fields(), &parse(q)).unwrap();
    let alone = terms("tech");
    assert_eq!(
        alone[0].variants.all.get("technique"),
        Some(&MatchKind::Prefix.weight())
    );
    let both = terms("tech technique");
    assert!(
        !both[0].variants.all.contains_key("technique"),
        "{:?}",
        both[0].variants
    );
    assert_eq!(both[1].variants.all.get("technique"), Some(&1.0));
    // Only prefixes: an inflection that is another word of the query stays.
    let infl = terms("user users");
    assert_eq!(
        infl[0].variants.all.get("users"),
        Some(&MatchKind::Inflection.weight())
    );
}

#[test]
fn a_note_with_both_words_beats_one_whose_name_holds_the_longer() {
    // Counting `technique` as a prefix of `tech` too, the note named for it would win.
    let t = tiny(&[
        (
            "Pomodoro Technique.md",
            "# Technique\n## Technique steps\n## Technique notes\nthe technique, a technique\n",
        ),
        (
            "catchup.md",
            "our fourth catchup: new tech and a technique\n",
        ),
    ]);
    assert_eq!(first(&t, "tech technique"), "catchup.md");
}

#[test]
fn candidate_query_applies_scope_and_exclusions_inside_the_query() {
    let t = tiny(&[
        ("A/x.md", "kotlin daemon\n"),
        ("Ab/x.md", "kotlin daemon\n"),
        ("B/x.md", "kotlin daemon gradle\n"),
    ]);
    let all = candidates(&t, "kotlin", &Scope::default(), false);
    assert_eq!(all.len(), 3);
    let scoped = candidates(&t, "kotlin", &Scope::new(Some("A"), &[]).unwrap(), false);
    assert_eq!(scoped, vec!["A/x.md"]);
    let excluded = candidates(
        &t,
        "kotlin",
        &Scope::new(None, &["A".into()]).unwrap(),
        false,
    );
    assert_eq!(excluded.len(), 2);
    assert!(!excluded.contains(&"A/x.md".to_string()));
    let without = candidates(&t, "kotlin -gradle", &Scope::default(), false);
    assert!(!without.contains(&"B/x.md".to_string()), "{without:?}");
    assert_eq!(without.len(), 2);
}

#[test]
fn candidate_query_needs_no_word_but_may_require_phrases() {
    let t = tiny(&[
        ("one.md", "the stale lock stayed\n"),
        ("two.md", "lock the stale door\n"),
        ("three.md", "nothing relevant\n"),
    ]);
    // One word that no note has does not empty the candidates.
    let loose = candidates(&t, "stale lock zebra", &Scope::default(), false);
    assert_eq!(loose.len(), 2);
    let required = candidates(&t, "\"stale lock\"", &Scope::default(), true);
    assert_eq!(required, vec!["one.md"]);
}

#[test]
fn all_words_beat_more_occurrences_of_one() {
    let t = tiny(&[
        ("both.md", "gradle once, and kotlin once\n"),
        ("one.md", "gradle gradle gradle gradle gradle gradle\n"),
    ]);
    assert_eq!(first(&t, "gradle kotlin"), "both.md");
}

#[test]
fn the_query_as_the_file_name_wins() {
    let t = tiny(&[
        ("Reverse proxy.md", "# Setup\nnginx in front of the apps\n"),
        (
            "notes.md",
            "a reverse proxy, another reverse proxy, proxy reverse\n",
        ),
    ]);
    assert_eq!(first(&t, "reverse proxy"), "Reverse proxy.md");
}

#[test]
fn an_alias_counts_as_a_name() {
    let t = tiny(&[
        (
            "k8s.md",
            "---\naliases: [Container orchestration]\n---\nclusters\n",
        ),
        ("other.md", "container orchestration appears in this text\n"),
    ]);
    assert_eq!(first(&t, "container orchestration"), "k8s.md");
}

#[test]
fn the_query_as_a_phrase_beats_scattered_words() {
    let t = tiny(&[
        ("scattered.md", "lock here. later a word: stale\n"),
        ("phrase.md", "it was a stale lock\n"),
    ]);
    assert_eq!(first(&t, "stale lock"), "phrase.md");
}

#[test]
fn headings_beat_the_body() {
    let t = tiny(&[
        ("body.md", "# Intro\nsomething about backups here\n"),
        ("head.md", "# Backups\nsomething about it here\n"),
    ]);
    assert_eq!(first(&t, "backups"), "head.md");
}

#[test]
fn excluded_phrases_drop_notes() {
    let t = tiny(&[
        ("a.md", "the stale lock\n"),
        ("b.md", "the lock was stale\n"),
    ]);
    let hits = ranked(&t, "lock -\"stale lock\"");
    let paths: Vec<&str> = hits.iter().map(|h| h.path.as_str()).collect();
    assert_eq!(paths, vec!["b.md"]);
}

#[test]
fn hits_carry_line_heading_matched_words_and_excerpt() {
    let t = tiny(&[(
        "n.md",
        "---\ntags: [ops]\n---\n# Top\ntext\n## Fix\nrestart the daemon\n",
    )]);
    let h = &ranked(&t, "daemon")[0];
    assert_eq!(h.line, Some(7));
    assert_eq!(h.heading.as_deref(), Some("Fix"));
    assert_eq!(h.matched, vec!["daemon"]);
    assert_eq!(h.tags, vec!["ops"]);
    assert!(h.excerpt.contains("restart the daemon"), "{}", h.excerpt);
    assert_eq!(h.basename, "n");
}

#[test]
fn a_question_is_ranked_by_its_content_words() {
    let t = tiny(&[
        (
            "lsof.md",
            "# lsof\n\n> List open files.\n\n- Find the process that opened a port:\n",
        ),
        // Holds every filler word of the question, and `however` (which `how` would reach by
        // prefix), but no content word.
        (
            "chatter.md",
            "How do I know which of them is already there? However you do it, it is mine.\n",
        ),
    ]);
    let hits = ranked(&t, "how do I find which process is already using a port?");
    assert_eq!(hits[0].path, "lsof.md");
    // Filler words are not named as matches.
    assert_eq!(hits[0].matched, ["find", "process", "port"]);
    let fields = schema::fields();
    let terms = expand_query(&t.searcher, fields, &parse("how do I find a port")).unwrap();
    let how = terms.iter().find(|e| e.text == "how").unwrap();
    assert!(how.filler && !how.variants.all.contains_key("however"));
    // A keyword query keeps its prefix variants.
    let terms = expand_query(&t.searcher, fields, &parse("how port")).unwrap();
    assert!(terms[0].variants.all.contains_key("however") && !terms[0].filler);
}

#[test]
fn a_question_is_answered_where_its_words_stand_in_one_line() {
    let spread = format!(
        "# extract\n\nExtract it. {} The archive. {} A directory.\n",
        "Some other words here. ".repeat(3),
        "Some other words here. ".repeat(3)
    );
    let t = tiny(&[
        (
            "a.md",
            "# a\n\nSee the manual.\n\n- Extract an archive into a directory:\n",
        ),
        ("extract.md", &spread),
    ]);
    // Both hold every word within a passage of keywords (40 positions), and the name of
    // `extract.md` holds one; only `a.md` holds them in one line, where a question is answered.
    let question = "how do I extract an archive into a directory?";
    assert_eq!(first(&t, question), "a.md");
    assert_eq!(first(&t, "extract archive directory"), "extract.md");
}

#[test]
fn a_compound_in_a_question_also_matches_by_its_parts() {
    let t = tiny(&[
        ("tar.md", "# tar\n\nCreate `target.tar.gz` from files.\n"),
        ("gz.md", "# formats\n\nA tar.gz is common.\n"),
    ]);
    let fields = schema::fields();
    let sentence = expand_query(&t.searcher, fields, &parse("how do I unpack a tar.gz")).unwrap();
    let whole = sentence.iter().find(|e| e.text == "tar.gz").unwrap();
    assert_eq!(whole.variants.weight("tar.gz"), 1.0);
    assert!((whole.variants.weight("tar") - 0.8).abs() < 1e-6);
    // Keywords: the whole only, as typed.
    let keywords = expand_query(&t.searcher, fields, &parse("tar.gz unpack")).unwrap();
    assert_eq!(keywords[0].variants.weight("tar"), 0.0);
}

#[test]
fn a_question_word_also_matches_by_its_thesaurus_stand_ins() {
    let t = tiny(&[
        ("useradd.md", "# useradd\n\n> Create new users.\n"),
        ("ledger.md", "# ledger\n\nAdd a line to the books.\n"),
    ]);
    let question = "how do I add an account for a new colleague?";
    // `account` is written `user` in the note, by inflection `users`; below an exact match.
    let terms = expand_query(&t.searcher, schema::fields(), &parse(question)).unwrap();
    let account = terms.iter().find(|e| e.text == "account").unwrap();
    let users = account.variants.weight("users");
    assert!(users > 0.0 && users < weights().w_infl, "{users}");
    assert_eq!(first(&t, question), "useradd.md");
    // Keywords are read as typed.
    let keywords = expand_query(&t.searcher, schema::fields(), &parse("account add")).unwrap();
    assert_eq!(keywords[0].variants.weight("users"), 0.0);
}

#[test]
fn a_tie_across_the_feedback_cut_is_found_whole() {
    use super::tie_across;
    let best = [(9.0, 0), (7.0, 1), (7.0, 2), (7.0, 3), (5.0, 4)];
    let tie = |k| tie_across(&best, k, |b: &(f64, usize)| b.0);
    assert_eq!(tie(2), Some(1..4));
    assert_eq!(tie(3), Some(1..4));
    // A cut between different scores, or past the end, splits nothing.
    assert_eq!(tie(1), None);
    assert_eq!(tie(4), None);
    assert_eq!(tie(5), None);
    assert_eq!(tie(0), None);
}
