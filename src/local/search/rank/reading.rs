//! How a query is read: which of its words carry it.
//!
//! Agents and people often send the question itself ("how do I find out which program is
//! already using port 3000?") instead of keywords. Ranked word by word, every note holding
//! "how", "do", "which" or "already" gains coverage and all-words points, and `how` even
//! matches `however` by prefix: a query of eleven words with three that matter is ranked as a
//! query of eleven. So before the ranking, each word of the query is read as **content** or as
//! **filler**:
//!
//! - filler is a word of a general stop list — question words, auxiliaries, pronouns,
//!   articles, prepositions, conjunctions and conversational fillers — for the languages the
//!   analyzer knows (English words; Chinese, Japanese and Korean question words as the
//!   character bigrams the analyzer makes of them), plus the pieces a contraction splits into
//!   (`what's` → `what`, `s`);
//! - a query reads as a sentence only when it holds two stop words or more: one (`brains try
//!   circuits`, `Introduction to CRDT`) is a keyword query, read exactly as before, as is a
//!   query of stop words only (`who`, `how to`); a word inside a quoted phrase and a compound
//!   word (`why-we-chose-our-tech-stack`) are always content.
//!
//! A filler word is looked up exactly (no prefix, inflection or typo variants), takes no part
//! in the candidate query, the coverage and all-words signals or the choice of a note's
//! passage; it still counts for the query as a phrase and as a file name.

use crate::local::search::query::ParsedQuery;

/// English question words, auxiliaries, pronouns, articles, prepositions, conjunctions and
/// fillers, lowercased and accent-folded as the analyzer leaves them.
#[rustfmt::skip]
const ENGLISH: &[&str] = &[
    // question words
    "how", "what", "whats", "why", "which", "who", "whom", "whose", "when", "where", "whether",
    "whatever", "whichever", "however",
    // auxiliaries and modals
    "am", "is", "are", "was", "were", "be", "been", "being", "do", "does", "did", "doing", "done",
    "have", "has", "had", "having", "can", "could", "will", "would", "shall", "should", "may",
    "might", "must", "ought", "cannot",
    // pronouns and determiners
    "i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "ourselves", "you", "your",
    "yours", "yourself", "yourselves", "he", "him", "his", "himself", "she", "her", "hers",
    "herself", "it", "its", "itself", "they", "them", "their", "theirs", "themselves", "this",
    "that", "these", "those", "a", "an", "the", "some", "any", "each", "every", "either",
    "neither", "another", "other", "others", "such", "own", "same", "someone", "somebody",
    "something", "anyone", "anybody", "anything", "everyone", "everything",
    // prepositions and conjunctions
    "of", "to", "in", "on", "at", "by", "for", "with", "from", "into", "onto", "upon", "about",
    "as", "than", "then", "and", "or", "nor", "but", "if", "so", "because", "while", "since",
    "until", "via", "per", "there", "here", "out", "up", "off",
    // fillers
    "just", "really", "actually", "already", "still", "also", "even", "very", "quite", "please",
    "maybe", "perhaps", "anyway", "basically", "simply", "somehow", "too", "yet", "ever", "again",
    "now", "currently", "possible", "possibly", "way", "ways", "thing", "things", "kind", "sort",
    "lot", "lots", "much", "many", "more", "most", "not", "no", "yes", "okay", "ok", "hey", "hi",
    "thanks",
    // what a contraction leaves (`what's`, `don't`, `we're`, `i'm`, `you've`, `it'll`, `i'd`)
    "s", "t", "re", "m", "ve", "ll", "d", "don", "doesn", "didn", "isn", "aren", "wasn", "weren",
    "haven", "hasn", "hadn", "won", "wouldn", "couldn", "shouldn",
];

/// Chinese, Japanese and Korean question words and particles, as the analyzer's bigrams
/// (or the lone character it keeps).
#[rustfmt::skip]
const CJK: &[&str] = &[
    // Chinese: how, what, why (为什么 → 为什, 什么), which, where, whether, can, ?-particle
    "怎么", "怎样", "如何", "什么", "为什", "哪个", "哪些", "哪里", "是否", "可以", "吗", "呢",
    "我的", "我们",
    // Japanese: how, what, why, which, polite endings
    "どう", "なに", "なぜ", "どの", "どれ", "です", "すか", "ます",
    // Korean: how (어떻게 → 어떻, 떻게), what, why
    "어떻", "떻게", "무엇", "무슨", "왜",
];

/// A query with fewer stop words is a query of keywords.
const SENTENCE_STOP_WORDS: usize = 2;

/// Whether `word` (a token as the analyzer makes it) is a stop word of a language the analyzer
/// knows.
pub(crate) fn is_filler_word(word: &str) -> bool {
    ENGLISH.contains(&word) || CJK.contains(&word)
}

/// For each word of `words` — the query's terms as searched, each with its parts when it is
/// a compound — whether it is filler in this query: a stop word (a compound: a contraction
/// whose parts all are, `what's`), not in a quoted phrase, in a query that also has content
/// and at least [`SENTENCE_STOP_WORDS`] stop words.
pub(crate) fn fillers(q: &ParsedQuery, words: &[(&str, &[String])]) -> Vec<bool> {
    let quoted = |w: &str| q.phrases.iter().flatten().any(|p| p == w);
    let stop = |w: &str, parts: &[String]| {
        if parts.is_empty() {
            is_filler_word(w) && !quoted(w)
        } else {
            parts.iter().all(|p| is_filler_word(p) && !quoted(p))
        }
    };
    let mut out: Vec<bool> = words.iter().map(|(w, parts)| stop(w, parts)).collect();
    let stops = out.iter().filter(|&&f| f).count();
    if stops < SENTENCE_STOP_WORDS || stops == out.len() {
        out.iter_mut().for_each(|f| *f = false);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::local::analyzer;
    use crate::local::search::query;

    /// The content words of a query, as the ranking reads it.
    fn content(text: &str) -> Vec<String> {
        let q = query::parse(&mut analyzer::text_analyzer(), text);
        let words: Vec<(&str, &[String])> = q
            .terms
            .iter()
            .map(|t| (t.text.as_str(), t.parts.as_slice()))
            .collect();
        let f = fillers(&q, &words);
        words
            .iter()
            .zip(f)
            .filter(|(_, f)| !f)
            .map(|((w, _), _)| w.to_string())
            .collect()
    }

    #[test]
    fn a_question_is_read_by_its_content_words() {
        assert_eq!(
            content("how do I find out which program is already using port 3000?"),
            ["find", "program", "using", "port", "3000"]
        );
        assert_eq!(content("why did we pick pnpm?"), ["pick", "pnpm"]);
        assert_eq!(
            content("can I get my salary early?"),
            ["get", "salary", "early"]
        );
    }

    #[test]
    fn keywords_read_as_they_are() {
        // One stop word does not make a sentence.
        assert_eq!(
            content("Introduction to CRDT"),
            ["introduction", "to", "crdt"]
        );
        assert_eq!(
            content("kotlin gradle bootstrap"),
            ["kotlin", "gradle", "bootstrap"]
        );
        assert_eq!(
            content("tape restore backup"),
            ["tape", "restore", "backup"]
        );
    }

    #[test]
    fn a_query_of_stop_words_only_keeps_them_all() {
        assert_eq!(content("who"), ["who"]);
        assert_eq!(content("how to"), ["how", "to"]);
    }

    #[test]
    fn contractions_are_filler() {
        assert_eq!(content("what's eating my cpu"), ["eating", "cpu"]);
        assert_eq!(content("why doesn't it build"), ["build"]);
    }

    #[test]
    fn quoted_and_compound_words_are_content() {
        assert_eq!(
            content(r#""name of your test" go"#),
            ["name", "of", "your", "test", "go"]
        );
        // A compound is a name (`why-we-chose-our-tech-stack`), never filler.
        assert_eq!(
            content("why-we-chose-our-tech-stack"),
            ["why-we-chose-our-tech-stack"]
        );
    }

    #[test]
    fn other_languages_the_analyzer_knows() {
        // 如何 (how) and 什么 (what) are question words; 备份 (backup) carries the query.
        assert_eq!(content("如何 备份 什么"), ["备份"]);
        assert!(is_filler_word("什么") && !is_filler_word("数据"));
    }
}
