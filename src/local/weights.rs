//! The ranking weights, in one table: every constant the ranking reads, with its default and
//! what it does. Built with `--features tuning`, `VS_TUNE="name=value,..."` overrides any of
//! them by its field name (filled once per process), so the weights can be re-fitted against
//! query sets without recompiling; other builds read the defaults, which the compiler folds in.

/// Declares the table once: the struct, its defaults and the by-name setter stay in step.
macro_rules! weights {
    ($( $(#[doc = $doc:expr])+ $name:ident = $default:expr; )+) => {
        /// The ranking weights; see [`weights()`].
        #[derive(Debug, Clone, Copy, PartialEq)]
        pub(crate) struct Weights {
            $( $(#[doc = $doc])+ pub(crate) $name: f32, )+
        }

        impl Weights {
            pub(crate) const DEFAULT: Weights = Weights { $( $name: $default, )+ };

            /// Sets the weight called `name`; `false` when there is none.
            #[cfg_attr(not(any(test, feature = "tuning")), allow(dead_code))]
            fn set(&mut self, name: &str, value: f32) -> bool {
                match name {
                    $( stringify!($name) => self.$name = value, )+
                    _ => return false,
                }
                true
            }
        }
    };
}

weights! {
    // Expansion: what a variant of a query word counts, relative to the word as typed (1).
    /// An inflection (same English stem): `rebuilds` for `rebuild`.
    w_infl = 0.7;
    /// One typo (Damerau–Levenshtein 1).
    w_typo1 = 0.75;
    /// A longer word the query word begins.
    w_prefix = 0.5;
    /// Two typos.
    w_typo2 = 0.6;
    /// A word held by more notes than this is taken as meant: no typo walk for it.
    typo_known_df = 2.0;
    /// Exponent of the rarity (IDF) that sets how much each query word counts; 0: all equal.
    idf_pow = 1.0;

    // Candidates: the BM25 query that picks what gets re-ranked.
    /// Boost of the file name and of the aliases.
    b_title = 4.0;
    /// Boost of the headings.
    b_head = 2.0;
    /// Boost of the tags.
    b_tags = 1.5;
    /// Coordination: factor for a candidate holding every query word.
    c_all = 3.0;
    /// Coordination: factor for a candidate missing one word (leave one out).
    c_loo = 1.5;

    // Re-rank: the bonus signals.
    /// Per matched query word (× its match weight).
    s_term = 20.0;
    /// Per query word in the file name or an alias.
    s_title = 8.0;
    /// Per heading occurrence of a query word (at most 3).
    s_head = 2.0;
    /// Every query word matches: × the weakest match.
    s_all = 80.0;
    /// Not every word matches: × (the rarity-weighted share matched) ^ `cov_pow`.
    s_part = 40.0;
    /// Exponent of the share matched, for `s_part`.
    cov_pow = 2.0;
    /// Cap on the query words' weighted frequency in the best window.
    s_tf = 5.0;
    /// The query is the name: × how well query and name cover each other.
    s_ptitle = 80.0;
    /// The query and the name are the same words.
    s_exact_title = 40.0;
    /// The query as a phrase in the body (when it is not the name).
    s_pbody = 30.0;
    /// Per quoted phrase of the query present in the note.
    s_qphrase = 60.0;
    /// Exponent of the query's cover of the name in the name match.
    qc_pow = 3.0;
    /// Above 0: per-word bonuses are scaled by the word's rarity.
    rar_term = 0.0;
    /// A sentence: per content word in the note's lead (× its match weight and rarity).
    s_lead = 20.0;
    /// Body positions from the start that make a note's lead (frontmatter, H1, first lines).
    lead_tok = 200.0;
    /// A sentence: body positions per window (0: `passage`). A question asks for one thing,
    /// and the note that answers it says that thing in one sentence or line.
    sent_passage = 20.0;
    /// A sentence: a compound word the notes hold whole (`tar.gz`) also matches by each of its
    /// parts (`tar`, `gz`), × this weight; 0: by the whole only.
    w_part = 0.8;
    /// A sentence: a content word also matches by the other words of its thesaurus groups
    /// (`account` → `user`), × this weight; 0: by its own words only.
    w_syn = 0.3;
    /// A sentence: points × the weighted share of the feedback words a note holds (the words
    /// the best-ranked notes share); 0 turns the feedback off.
    s_fb = 15.0;
    /// How many of the best-ranked notes give the feedback words.
    fb_docs = 8.0;
    /// How many feedback words are kept (the rarest among the most shared).
    fb_words = 10.0;
    /// A feedback word is held by this many of those notes at least.
    fb_min_docs = 3.0;

    // Proximity and length: where the words stand and how long the note is.
    /// Body positions per window: a passage of a few sentences.
    passage = 40.0;
    /// 0 turns off the window (words anywhere in the body count) and the length signals.
    prox = 1.0;
    /// Above 0: heading matches count only inside the window too.
    prox_head = 0.0;
    /// Above 0: the term frequency counts inside the window (else not at all).
    prox_tf = 1.0;
    /// Body tokens beyond which a note counts as long: note-wide signals weaken.
    focus_len = 2000.0;
    /// Exponent of that weakening applied to BM25.
    focus_bm25 = 1.0;
    /// The length prior: taken off × ln(length ÷ `focus_len`) for long notes.
    len_prior = 5.0;

    // The final score: bonus + the BM25 part − the length prior.
    /// BM25 scaled to this × BM25 ÷ the best candidate's; 0: use `bm25` instead.
    bm25norm = 20.0;
    /// BM25's factor when it is not normalised (`bm25norm = 0`, a tuning build only).
    bm25 = 2.0;
}

/// The weights in effect: the defaults, or (tuning builds) the defaults with `VS_TUNE`'s
/// overrides, read once.
pub(crate) fn weights() -> &'static Weights {
    #[cfg(feature = "tuning")]
    {
        static TUNED: std::sync::OnceLock<Weights> = std::sync::OnceLock::new();
        TUNED.get_or_init(|| tuned(&std::env::var("VS_TUNE").unwrap_or_default()))
    }
    #[cfg(not(feature = "tuning"))]
    {
        &Weights::DEFAULT
    }
}

/// The defaults with `name=value,...` applied; unknown names and bad numbers are ignored.
#[cfg_attr(not(any(test, feature = "tuning")), allow(dead_code))]
fn tuned(spec: &str) -> Weights {
    let mut w = Weights::DEFAULT;
    for (k, v) in spec.split(',').filter_map(|kv| kv.split_once('=')) {
        if let Ok(v) = v.trim().parse() {
            w.set(k.trim(), v);
        }
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_take_field_names_and_skip_the_rest() {
        let w = tuned("s_term=10, w_infl = 0.5,nosuch=3,s_all=x");
        assert_eq!(w.s_term, 10.0);
        assert_eq!(w.w_infl, 0.5);
        assert_eq!(w.s_all, Weights::DEFAULT.s_all);
        assert_eq!(tuned(""), Weights::DEFAULT);
    }
}
