//! Proximity and length: the text's signals counted within the best window, and how much a
//! long note's note-wide signals are worth.

use crate::local::search::window::Window;
use crate::local::weights::weights;

/// What the bonus signals count of term `k` in the text: its best variant weight, its
/// heading match and its weighted frequency, all within the best window (the heading text is
/// part of the body, so a heading near the other words is inside the window too).
pub(crate) fn near(
    body: f32,
    head: f32,
    body_tf: f32,
    window: Option<&Window>,
    k: usize,
) -> (f32, f32, f32) {
    if weights().prox == 0.0 {
        return (body, head, body_tf);
    }
    let (w, tf) = window.map_or((0.0, 0.0), |w| {
        (
            w.per_term.get(k).copied().unwrap_or(0.0),
            w.tf.get(k).copied().unwrap_or(0.0),
        )
    });
    let head = if weights().prox_head > 0.0 { head } else { 0.0 };
    let tf = if weights().prox_tf > 0.0 { tf } else { body_tf };
    (w, head, tf)
}

/// How much the note-wide signals (heading matches) say about a note of `body_len` tokens: 1
/// up to a long article, then falling with the length. A heading match in a note of a
/// thousand headings says little about what the note is about.
pub(crate) fn focus(body_len: u32) -> f32 {
    let long = weights().focus_len;
    if weights().prox == 0.0 || body_len as f32 <= long {
        1.0
    } else {
        long / body_len as f32
    }
}

/// Points taken off a note of `body_len` tokens beyond a long article, for a query of
/// `terms` words: `len_prior` × ln(length ÷ article) × (terms − 1) ÷ terms. A giant note offers
/// one candidate window per few dozen tokens, and the best of that many windows scores higher
/// by chance alone — one can pair a neighbouring note's exact word with this note's passage —
/// growing with the log of how many there are. Only a combination of words gains from that
/// choice: one word is in the note or not, so a one-word query costs nothing.
pub(crate) fn length_prior(body_len: u32, terms: usize) -> f32 {
    let long = weights().focus_len;
    if weights().prox == 0.0 || body_len as f32 <= long || terms < 2 {
        0.0
    } else {
        let combined = (terms - 1) as f32 / terms as f32;
        weights().len_prior * (body_len as f32 / long).ln() * combined
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn the_ranking_page_gives_the_length_prior_as_it_is() {
        let page = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/ranking.md"),
        )
        .unwrap();
        // The page wraps its lines anywhere: compare with the white space made one space.
        let page = page.split_whitespace().collect::<Vec<_>>().join(" ");
        let said = format!(
            "(−{:.1} at a million tokens for four words)",
            length_prior(1_000_000, 4)
        );
        assert!(
            page.contains(&said),
            "docs/ranking.md should say {said:?}: the length prior's weights changed"
        );
    }
}
