use super::*;
use crate::local::analyzer;

fn occ(pos: u32, term: u16, weight: f32) -> Occ {
    Occ { pos, term, weight }
}

#[test]
fn the_best_window_holds_the_most_distinct_terms() {
    // Term 0 everywhere, terms 0+1+2 together only at 1000..1010.
    let mut occs = vec![occ(0, 0, 1.0), occ(3, 1, 1.0), occ(500, 2, 1.0)];
    occs.extend([occ(1000, 2, 1.0), occ(1004, 0, 1.0), occ(1010, 1, 1.0)]);
    let w = best_window(&mut occs, &[1.0, 1.0, 1.0], 40, 0).expect("a window");
    assert_eq!((w.first, w.last), (1000, 1010));
    assert_eq!(w.per_term, vec![1.0, 1.0, 1.0]);
    assert!((w.score - 3.0).abs() < 1e-6);
    // Too narrow a window for all three: the best pair, the earliest on ties.
    let w = best_window(&mut occs, &[1.0, 1.0, 1.0], 5, 0).expect("a window");
    assert_eq!((w.first, w.last), (0, 3));
}

#[test]
fn rarer_terms_and_better_variants_win() {
    let mut occs = vec![occ(0, 0, 1.0), occ(100, 1, 1.0), occ(200, 1, 0.5)];
    let w = best_window(&mut occs, &[1.0, 3.0], 10, 0).expect("a window");
    assert_eq!(w.first, 100);
    assert_eq!(w.per_term, vec![0.0, 1.0]);
    // Occurrences before `min_pos` (the frontmatter) are left out.
    let w = best_window(&mut occs, &[1.0, 3.0], 10, 150).expect("a window");
    assert_eq!(w.first, 200);
    assert_eq!(w.per_term, vec![0.0, 0.5]);
    assert!(best_window(&mut occs, &[1.0, 3.0], 10, 999).is_none());
}

/// Every token's position maps back to its own offset, line and heading, through the table
/// (large note) and without it (small note), the same as a full tokenization says.
#[test]
fn located_spots_match_a_full_tokenization() {
    let mut note = String::from("---\ntags: [x]\n---\n# Top\n\nintro words here\n");
    let mut k = 0;
    while note.len() < 3 * CHECKPOINT_MIN_BYTES {
        note.push_str(&format!(
            "\n## Part {k}\n\nSome text-with joiners and CamelCase{k} words\r\n```\n# not a heading {k}\n```\nmore filler text line {k}.\n"
        ));
        k += 1;
    }
    let mut a = analyzer::text_analyzer();
    let meta = crate::text::note::parse(&note);
    let table = checkpoints(&mut a, &note, meta.body_start, false);
    assert!(
        table.len() > 2 * CHECKPOINT_BYTES,
        "a big note gets a table"
    );
    let small = &note[..2000];
    let small_meta = crate::text::note::parse(small);
    assert!(checkpoints(&mut a, small, small_meta.body_start, false).is_empty());
    for (text, table, meta) in [
        (&note[..], &table[..], &meta),
        (small, &[][..], &small_meta),
    ] {
        let toks = analyzer::analyze(&mut a, text);
        let first_body = toks
            .iter()
            .find(|t| t.offset_from >= meta.body_start)
            .expect("body");
        assert_eq!(
            text_start_pos(&mut a, text, table, meta.body_start),
            first_body.position as u32
        );
        let mut last_pos = usize::MAX;
        for t in toks.iter().step_by(7) {
            if t.position == last_pos {
                continue;
            }
            last_pos = t.position;
            let spot = locate(&mut a, text, table, meta.body_start, t.position as u32);
            let want = toks
                .iter()
                .find(|u| u.position == t.position)
                .expect("token");
            assert_eq!(
                spot.offset, want.offset_from,
                "offset of position {}",
                t.position
            );
            assert_eq!(spot.line, excerpt::line_of(text, spot.offset));
            assert_eq!(
                spot.heading,
                crate::text::note::heading_at(meta, spot.offset)
            );
        }
    }
}

#[test]
fn work_per_lookup_is_bounded_by_the_table() {
    let mut note = String::new();
    let mut starts = Vec::new();
    for i in 0..200_000 {
        starts.push(note.len());
        note.push_str(&format!("w{} ", i % 977));
    }
    let mut a = analyzer::text_analyzer();
    let table = checkpoints(&mut a, &note, 0, false);
    work();
    for pos in [0u32, 1, 50_000, 199_999] {
        let spot = locate(&mut a, &note, &table, 0, pos);
        assert_eq!(spot.offset, starts[pos as usize]);
    }
    let (total, max) = work();
    assert!(total > 0);
    // 256 tokens of at most 6 bytes each, against a note of 1.3 MB.
    assert!(
        max <= 6 * CHECKPOINT_EVERY as u64,
        "one lookup tokenized {max} bytes"
    );
}

#[test]
fn the_length_prior_starts_beyond_an_article_and_grows_with_the_log() {
    assert_eq!(length_prior(0, 2), 0.0);
    assert_eq!(length_prior(2000, 2), 0.0);
    let twice = length_prior(4000, 2);
    assert!((twice - 2.5 * 2f32.ln()).abs() < 1e-4, "{twice}");
    // Each doubling costs the same; more words, more of it.
    assert!((length_prior(8000, 2) - 2.0 * twice).abs() < 1e-3);
    assert!((length_prior(4000, 4) - 1.5 * twice).abs() < 1e-3);
    // One word gains nothing from the choice of window.
    assert_eq!(length_prior(1_000_000, 1), 0.0);
}
