//! The ranking weights, in one table: every constant the ranking reads, with its default and
//! what it does. Built with `--features tuning`, `VS_TUNE="name=value,..."` overrides any of
//! them by its field name (filled once per process), so the weights can be re-fitted against
//! query sets without recompiling; other builds read the defaults, which the compiler folds in.

/// Declares the table once: the struct, its defaults, the by-name setter and the rows of the
/// ranking page's table (`docs/ranking.md`, checked by a test) stay in step.
macro_rules! weights {
    ($( $title:literal : $about:literal {
        $( $(#[doc = $doc:expr])+ $name:ident = $default:expr; )+
    } )+) => {
        /// The ranking weights; see [`weights()`].
        #[derive(Debug, Clone, Copy, PartialEq)]
        pub(crate) struct Weights {
            $( $( $(#[doc = $doc])+ pub(crate) $name: f32, )+ )+
        }

        impl Weights {
            pub(crate) const DEFAULT: Weights = Weights { $( $( $name: $default, )+ )+ };

            /// Sets the weight called `name`; `false` when there is none.
            #[cfg_attr(not(any(test, feature = "tuning")), allow(dead_code))]
            fn set(&mut self, name: &str, value: f32) -> bool {
                match name {
                    $( $( stringify!($name) => self.$name = value, )+ )+
                    _ => return false,
                }
                true
            }
        }

        /// The table as the ranking page shows it: each stage, then each of its weights with
        /// its default and its doc comment.
        #[cfg(test)]
        const SECTIONS: &[Section] = &[ $( Section {
            title: $title,
            about: $about,
            rows: &[ $( Row {
                name: stringify!($name),
                default: $default,
                doc: concat!($($doc),+),
            }, )+ ],
        }, )+ ];
    };
}

/// One stage of the ranking in the table: the weights it reads.
#[cfg(test)]
struct Section {
    title: &'static str,
    about: &'static str,
    rows: &'static [Row],
}

/// One weight in the table.
#[cfg(test)]
struct Row {
    name: &'static str,
    default: f32,
    /// Its doc comment, its lines joined.
    doc: &'static str,
}

weights! {
    "Expansion": "What a variant of a query word counts, relative to the word as typed (1)." {
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
    }
    "Candidates": "The BM25 query that picks the notes to re-rank (the text's boost is 1)." {
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
    }
    "Re-rank": "The signals' points; a word's match weight is 1 as typed, below 1 through a variant." {
        /// Per matched query word, × its match weight.
        s_term = 20.0;
        /// Per query word in the file name or an alias, × its match weight.
        s_title = 8.0;
        /// Per heading occurrence of a query word (at most 3), × the length factor
        /// (`focus_len`).
        s_head = 2.0;
        /// Every query word matches: × the weakest match's weight.
        s_all = 80.0;
        /// Not every word matches: × (the share of the words matched, each weighted by its
        /// rarity) ^ `cov_pow`.
        s_part = 40.0;
        /// Exponent of the share matched, for `s_part`.
        cov_pow = 2.0;
        /// Cap on the points of the query words' weighted frequency in the best passage.
        s_tf = 5.0;
        /// The query is the file name or an alias: × (the share of the query in the name) ^
        /// `qc_pow` × (the share of the name in the query).
        s_ptitle = 80.0;
        /// The query and the name are the same words (on top of `s_ptitle`).
        s_exact_title = 40.0;
        /// The query as a phrase in the body (when it is not the name).
        s_pbody = 30.0;
        /// Per quoted phrase of the query present in the note.
        s_qphrase = 60.0;
        /// Exponent of the query's cover of the name in the name match.
        qc_pow = 3.0;
        /// Above 0: per-word bonuses are scaled by the word's rarity.
        rar_term = 0.0;
        /// A sentence: per content word in the note's lead, × its match weight and rarity.
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
    }
    "Proximity and length": "Where the words stand and how long the note is." {
        /// Body positions per window: a passage of a few sentences.
        passage = 40.0;
        /// 0 turns off the window (words anywhere in the body count) and the length signals.
        prox = 1.0;
        /// Above 0: a word in a heading counts as matched wherever the heading is (else only
        /// where the window holds it: the headings are part of the body).
        prox_head = 0.0;
        /// Above 0: the term frequency counts inside the window (else in the whole body).
        prox_tf = 1.0;
        /// Body tokens beyond which a note counts as long: its note-wide signals (headings,
        /// BM25) are × `focus_len` ÷ its length, the length factor.
        focus_len = 2000.0;
        /// Exponent of the length factor applied to BM25.
        focus_bm25 = 1.0;
        /// The length prior: a long note loses this × ln(length ÷ `focus_len`) × (words − 1) ÷
        /// words, for a query of that many content words.
        len_prior = 5.0;
    }
    "The score": "Every signal's points + the BM25 part − the length prior (+ the feedback)." {
        /// BM25 scaled to this × BM25 ÷ the best candidate's, × the length factor ^
        /// `focus_bm25`; 0: use `bm25` instead.
        bm25norm = 20.0;
        /// BM25's factor when it is not normalised (`bm25norm = 0`, a tuning build only).
        bm25 = 2.0;
    }
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

/// The ranking page, whose table of the weights is generated from [`SECTIONS`].
#[cfg(test)]
const PAGE: &str = "docs/ranking.md";
#[cfg(test)]
const BEGIN: &str =
    "<!-- signals:begin (generated from src/local/weights.rs; VS_BLESS=1 cargo test regenerates) -->";
#[cfg(test)]
const END: &str = "<!-- signals:end -->";

/// The table in Markdown: per stage, a line saying what it is, then its weights.
#[cfg(test)]
fn table() -> String {
    let mut out = String::from("\n");
    for s in SECTIONS {
        out += &format!("\n**{}.** {}\n\n", s.title, s.about);
        out += "| weight | default | what it does |\n| --- | ---: | --- |\n";
        for r in s.rows {
            let doc = r.doc.trim().replace('|', "\\|");
            out += &format!("| `{}` | {} | {doc} |\n", r.name, r.default);
        }
    }
    out + "\n"
}

/// `page` with the lines between its markers replaced by `table`.
#[cfg(test)]
fn splice(page: &str, table: &str) -> Result<String, String> {
    let begin = page
        .find(BEGIN)
        .ok_or_else(|| format!("no line `{BEGIN}`"))?;
    let from = begin + BEGIN.len();
    let to = from
        + page[from..]
            .find(END)
            .ok_or_else(|| format!("no line `{END}` after the first marker"))?;
    Ok(format!("{}{table}{}", &page[..from], &page[to..]))
}

/// The lines of `old` and `new` that differ, `-` and `+` with their line numbers (a longest
/// common subsequence of lines: the page is short).
#[cfg(test)]
fn diff(old: &str, new: &str) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    // common[i][j]: how many lines `a[i..]` and `b[j..]` have in common, in order.
    let mut common = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            common[i][j] = if a[i] == b[j] {
                common[i + 1][j + 1] + 1
            } else {
                common[i + 1][j].max(common[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, String::new());
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            (i, j) = (i + 1, j + 1);
        } else if i < a.len() && (j == b.len() || common[i + 1][j] >= common[i][j + 1]) {
            out += &format!("-{:>4} {}\n", i + 1, a[i]);
            i += 1;
        } else {
            out += &format!("+{:>4} {}\n", j + 1, b[j]);
            j += 1;
        }
    }
    out
}

/// `Ok` when the page's table is the weights' table, else what differs.
#[cfg(test)]
fn check(page: &str) -> Result<(), String> {
    let want = splice(page, &table())?;
    if want == page {
        return Ok(());
    }
    Err(format!(
        "the table in {PAGE} is not the one of src/local/weights.rs \
         (`VS_BLESS=1 cargo test` rewrites it); - the page, + the weights:\n{}",
        diff(page, &want)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ranking_page_lists_the_weights_as_they_are() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(PAGE);
        let page = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{PAGE}: {e}"));
        if std::env::var_os("VS_BLESS").is_some_and(|v| v == "1") {
            let blessed = splice(&page, &table()).unwrap_or_else(|e| panic!("{PAGE}: {e}"));
            if blessed != page {
                std::fs::write(&path, blessed).unwrap_or_else(|e| panic!("{PAGE}: {e}"));
            }
            return;
        }
        if let Err(e) = check(&page) {
            panic!("{e}");
        }
    }

    #[test]
    fn a_page_that_differs_from_the_weights_fails_with_the_rows_that_do() {
        let page = format!(
            "# Ranking\n\nProse.\n\n{BEGIN}{}{END}\n\nMore prose.\n",
            table()
        );
        assert_eq!(check(&page), Ok(()));
        // Another default for one weight: the page's row and the weights' row, nothing else.
        let row = format!("| `s_term` | {} |", Weights::DEFAULT.s_term);
        assert!(page.contains(&row), "{row}");
        let stale = page.replace(&row, "| `s_term` | 21 |");
        let err = check(&stale).unwrap_err();
        let changed: Vec<&str> = err.lines().skip(1).collect();
        assert_eq!(changed.len(), 2, "{err}");
        assert!(changed[0].starts_with('-') && changed[0].contains("| `s_term` | 21 |"));
        assert!(changed[1].starts_with('+') && changed[1].contains(&row));
        // A weight missing from the page, and a page without the markers.
        let missing = page.replace(&row, "");
        assert!(check(&missing).unwrap_err().contains("s_term"));
        assert!(check("# Ranking\n").unwrap_err().contains("signals:begin"));
        // The prose around the markers is the page's own.
        assert!(splice(&stale, &table()).unwrap().ends_with("More prose.\n"));
    }

    #[test]
    fn every_weight_has_a_row_with_its_default() {
        let rows: Vec<&Row> = SECTIONS.iter().flat_map(|s| s.rows).collect();
        let mut w = Weights::DEFAULT;
        for r in &rows {
            assert!(!r.doc.trim().is_empty(), "{} has no doc line", r.name);
            // Setting each by its row's name to its row's default changes nothing...
            assert!(w.set(r.name, r.default), "{}", r.name);
        }
        assert_eq!(w, Weights::DEFAULT);
        // ...and each row names a weight of its own.
        let mut names: Vec<&str> = rows.iter().map(|r| r.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), rows.len());
    }

    #[test]
    fn overrides_take_field_names_and_skip_the_rest() {
        let w = tuned("s_term=10, w_infl = 0.5,nosuch=3,s_all=x");
        assert_eq!(w.s_term, 10.0);
        assert_eq!(w.w_infl, 0.5);
        assert_eq!(w.s_all, Weights::DEFAULT.s_all);
        assert_eq!(tuned(""), Weights::DEFAULT);
    }
}
