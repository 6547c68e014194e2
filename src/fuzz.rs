//! Property-based fuzzing of everything that takes untrusted text: the query parser, the
//! analyzer, excerpts, Omnisearch reply parsing and folder normalisation. None may panic, and
//! offsets must stay on character boundaries.
//!
//! `cargo test fuzz` runs 256 cases per property; for a longer hunt:
//! `PROPTEST_CASES=100000 cargo test --release --lib fuzz`. They are unit tests (not in
//! `tests/`) because the code under test is internal to the crate.
#![allow(clippy::unwrap_used)]

use proptest::prelude::*;

use crate::core as config;
use crate::local::{analyzer, query};
use crate::omnisearch;
use crate::text::excerpt;
use crate::text::terminal as output;

/// Text that mixes the hard cases: ASCII syntax, quotes, dashes, controls, CJK, RTL, emoji,
/// combining marks.
fn nasty() -> impl Strategy<Value = String> {
    let pieces = prop_oneof![
        "[ -~]{0,12}",
        Just("\"".to_string()),
        Just("-".to_string()),
        Just("\u{1b}[31m".to_string()),
        Just("東京都".to_string()),
        Just("مرحبا".to_string()),
        Just("😀".to_string()),
        Just("e\u{301}".to_string()),
        Just("KotlinCompileDaemon".to_string()),
        Just("snake_case-kebab.dot".to_string()),
        Just("\0\r\n\t".to_string()),
        any::<String>(),
    ];
    proptest::collection::vec(pieces, 0..12).prop_map(|v| v.concat())
}

proptest! {
    #[test]
    fn query_parser_never_panics(text in nasty()) {
        let q = query::parse(&mut analyzer::text_analyzer(), &text);
        prop_assert!(q.terms.len() <= query::MAX_TERMS);
        for t in &q.terms {
            prop_assert!(!t.text.is_empty());
        }
    }

    #[test]
    fn analyzer_offsets_are_char_boundaries(text in nasty()) {
        let toks = analyzer::analyze(&mut analyzer::text_analyzer(), &text);
        let mut last_pos = 0;
        for t in toks {
            prop_assert!(t.offset_from < t.offset_to && t.offset_to <= text.len());
            prop_assert!(text.is_char_boundary(t.offset_from) && text.is_char_boundary(t.offset_to));
            prop_assert!(t.position >= last_pos);
            // Truncation happens before accent folding, which can lengthen a letter (Þ → th,
            // ⑽ → (10)); never by more than 4×.
            prop_assert!(t.text.chars().count() <= 4 * analyzer::MAX_TOKEN_CHARS);
            last_pos = t.position;
        }
    }

    #[test]
    fn excerpts_never_panic(text in nasty(), pos in 0usize..400, floor in 0usize..400) {
        let e = excerpt::make_excerpt_from(&text, pos, floor, true);
        prop_assert!(!e.contains('\n'));
        let _ = excerpt::line_of(&text, pos);
        let _ = excerpt::utf16_to_byte_offset(&text, pos);
        let cleaned = excerpt::clean_html_excerpt(&text, true);
        prop_assert!(!cleaned.contains('\n'));
    }

    #[test]
    fn terminal_output_has_no_escapes(text in nasty()) {
        let s = output::sanitize_for_terminal(&text);
        prop_assert!(!s.chars().any(|c| c.is_control()));
    }

    #[test]
    fn folders_never_escape(text in nasty()) {
        if let Ok(Some(f)) = config::normalize_folder(&text) {
            prop_assert!(!f.split('/').any(|seg| seg == ".." || seg.is_empty()));
        }
    }

    #[test]
    fn omnisearch_replies_never_panic(text in nasty()) {
        let _ = omnisearch::parse_reply(text.as_bytes());
        let wrapped = format!("[{{\"path\":{},\"excerpt\":{},\"score\":1}}]",
            serde_json::to_string(&text).unwrap(), serde_json::to_string(&text).unwrap());
        if let Ok(hits) = omnisearch::parse_reply(wrapped.as_bytes()) {
            for h in hits {
                prop_assert!(omnisearch::is_safe_relative(&h.path));
            }
        }
    }
}
