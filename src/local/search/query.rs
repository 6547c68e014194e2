//! Turns what the user typed into terms, phrases and exclusions — never an error.
//!
//! Raw text is never handed to a query parser that could reject it. The syntax is the
//! Omnisearch subset: `"quoted phrase"` and `-exclusion` (also `-"excluded phrase"`), and the
//! plugin's two keywords, `path:X` / `path:"X Y"` (the vault-relative path contains X, any
//! case; several are alternatives, `path:a,b` too; `-path:X` excludes) and `ext:md` (the
//! extension starts with it); everything else is literal text, including `:`, `(`, `*`, `~2`,
//! `^3`, `AND`, `tag:x`; `-ext:pdf` leaves those files out (the plugin ignores it). An
//! unbalanced quote is literal. Words are analyzed with the index's analyzer, so a query word and the
//! note word it should match always normalise the same way.

use tantivy::tokenizer::TextAnalyzer;

use crate::local::analyzer;

/// At most this many distinct terms are searched (a pasted paragraph stays fast); the rest are
/// ignored.
pub(crate) const MAX_TERMS: usize = 32;

/// One positive term.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct QueryTerm {
    /// Normalised token (a compound word as a whole: `trace-cmd`, `kotlincompiledaemon`).
    pub(crate) text: String,
    /// The parts of a compound word (`trace`, `cmd`); empty for a simple word.
    pub(crate) parts: Vec<String>,
}

/// A parsed query.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ParsedQuery {
    /// Distinct positive terms in order of appearance (phrase words included).
    pub(crate) terms: Vec<QueryTerm>,
    /// Quoted phrases, as part-level token sequences of two or more tokens.
    pub(crate) phrases: Vec<Vec<String>>,
    /// The positive text's tokens in order (part level): the implicit phrase the ranking
    /// rewards when a note has the whole query verbatim.
    pub(crate) sequence: Vec<String>,
    /// Tokens a note must not contain.
    pub(crate) excluded_terms: Vec<String>,
    /// Phrases a note must not contain.
    pub(crate) excluded_phrases: Vec<Vec<String>>,
    /// `path:` values, lowercased: the path must contain one of them.
    pub(crate) paths: Vec<String>,
    /// `-path:` values, lowercased: the path must contain none of them.
    pub(crate) excluded_paths: Vec<String>,
    /// `ext:` values, lowercased, without a leading `.`: the extension starts with one of them.
    pub(crate) exts: Vec<String>,
    /// `-ext:` values: no file whose extension starts with one of them.
    pub(crate) excluded_exts: Vec<String>,
}

impl ParsedQuery {
    /// Nothing to search for.
    pub(crate) fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// `path:`, `-path:` or `ext:` narrow the notes.
    pub(crate) fn has_path_filters(&self) -> bool {
        !self.paths.is_empty()
            || !self.excluded_paths.is_empty()
            || !self.exts.is_empty()
            || !self.excluded_exts.is_empty()
    }
}

/// The plugin's keywords.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Keyword {
    Path,
    Ext,
}

#[derive(Debug, PartialEq, Eq)]
enum Piece<'a> {
    Word(&'a str),
    Phrase(&'a str),
    NotWord(&'a str),
    NotPhrase(&'a str),
    Key(Keyword, bool, &'a str),
}

/// `path:value`, `path:"a b"` or `ext:md` at the start of `rest`: the keyword, its value and
/// the bytes it takes.
fn keyword(rest: &str) -> Option<(Keyword, &str, usize)> {
    let starts =
        |k: &[u8]| rest.len() >= k.len() && rest.as_bytes()[..k.len()].eq_ignore_ascii_case(k);
    let (kw, skip) = if starts(b"path:") {
        (Keyword::Path, 5)
    } else if starts(b"ext:") {
        (Keyword::Ext, 4)
    } else {
        return None;
    };
    let after = &rest[skip..];
    if let Some(quoted) = after.strip_prefix('"') {
        if let Some(close) = quoted.find('"') {
            return Some((kw, &quoted[..close], skip + close + 2));
        }
    }
    let end = after.find(char::is_whitespace).unwrap_or(after.len());
    if end == 0 {
        return None;
    }
    Some((kw, &after[..end], skip + end))
}

fn pieces(text: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut i = 0;
    let bytes = text.as_bytes();
    while i < text.len() {
        let rest = &text[i..];
        let c = rest.chars().next().unwrap_or(' ');
        if c.is_whitespace() {
            i += c.len_utf8();
            continue;
        }
        let negated = c == '-' && rest.len() > 1 && !rest[1..].starts_with(char::is_whitespace);
        let start = if negated { i + 1 } else { i };
        if let Some((kw, value, len)) = keyword(&text[start..]) {
            out.push(Piece::Key(kw, negated, value));
            i = start + len;
            continue;
        }
        if bytes.get(start) == Some(&b'"') {
            if let Some(close) = text[start + 1..].find('"') {
                let inner = &text[start + 1..start + 1 + close];
                out.push(if negated {
                    Piece::NotPhrase(inner)
                } else {
                    Piece::Phrase(inner)
                });
                i = start + 1 + close + 1;
                continue;
            }
        }
        // A word runs to the next whitespace or quote; an unbalanced quote is skipped.
        let word_start = if bytes.get(start) == Some(&b'"') {
            start + 1
        } else {
            start
        };
        let end = text[word_start..]
            .find(|ch: char| ch.is_whitespace() || ch == '"')
            .map_or(text.len(), |e| word_start + e);
        let word = &text[word_start..end];
        if !word.is_empty() {
            out.push(if negated && word_start == start {
                Piece::NotWord(word)
            } else {
                Piece::Word(word)
            });
        }
        i = end.max(i + 1);
        while i < text.len() && !text.is_char_boundary(i) {
            i += 1;
        }
    }
    out
}

/// Parses user text.
pub(crate) fn parse(analyzer: &mut TextAnalyzer, text: &str) -> ParsedQuery {
    let mut q = ParsedQuery::default();
    for piece in pieces(text) {
        match piece {
            Piece::Word(w) => {
                let (terms, seq) = terms_of(analyzer, w);
                q.sequence.extend(seq);
                for t in terms {
                    push_term(&mut q.terms, t);
                }
            }
            Piece::Phrase(p) => {
                let (terms, seq) = terms_of(analyzer, p);
                q.sequence.extend(seq.iter().cloned());
                for t in terms {
                    push_term(&mut q.terms, t);
                }
                if seq.len() >= 2 {
                    q.phrases.push(seq);
                }
            }
            Piece::NotWord(w) => {
                let (terms, _) = terms_of(analyzer, w);
                q.excluded_terms.extend(terms.into_iter().map(|t| t.text));
            }
            Piece::Key(kw, negated, value) => {
                for v in value.split(',').map(str::trim).filter(|v| !v.is_empty()) {
                    let v = v.to_lowercase();
                    match (kw, negated) {
                        (Keyword::Path, false) => q.paths.push(v),
                        (Keyword::Path, true) => q.excluded_paths.push(v),
                        (Keyword::Ext, false) => q.exts.push(v.trim_start_matches('.').into()),
                        // The plugin ignores `-ext:`; here it leaves those files out.
                        (Keyword::Ext, true) => {
                            q.excluded_exts.push(v.trim_start_matches('.').into())
                        }
                    }
                }
            }
            Piece::NotPhrase(p) => {
                let (terms, seq) = terms_of(analyzer, p);
                if seq.len() >= 2 {
                    q.excluded_phrases.push(seq);
                } else {
                    q.excluded_terms.extend(terms.into_iter().map(|t| t.text));
                }
            }
        }
    }
    q.terms.truncate(MAX_TERMS);
    q.sequence.truncate(MAX_TERMS * 4);
    q
}

fn push_term(terms: &mut Vec<QueryTerm>, t: QueryTerm) {
    if !terms.iter().any(|x| x.text == t.text) {
        terms.push(t);
    }
}

/// The terms of a piece of text and its part-level token sequence.
fn terms_of(analyzer: &mut TextAnalyzer, text: &str) -> (Vec<QueryTerm>, Vec<String>) {
    let tokens = analyzer::analyze(analyzer, text);
    let mut terms = Vec::new();
    let mut seq = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let t = &tokens[i];
        if t.position_length > 1 {
            let n = t.position_length;
            let parts: Vec<String> = tokens[i + 1..(i + 1 + n).min(tokens.len())]
                .iter()
                .map(|p| p.text.clone())
                .collect();
            seq.extend(parts.iter().cloned());
            terms.push(QueryTerm {
                text: t.text.clone(),
                parts,
            });
            i += 1 + n;
        } else {
            seq.push(t.text.clone());
            terms.push(QueryTerm {
                text: t.text.clone(),
                parts: Vec::new(),
            });
            i += 1;
        }
    }
    (terms, seq)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> ParsedQuery {
        parse(&mut analyzer::text_analyzer(), s)
    }

    fn texts(q: &ParsedQuery) -> Vec<&str> {
        q.terms.iter().map(|t| t.text.as_str()).collect()
    }

    #[test]
    fn words_phrases_exclusions() {
        let q = p(r#"gradle "Kotlin bootstrap" -stale -"old build""#);
        assert_eq!(texts(&q), ["gradle", "kotlin", "bootstrap"]);
        assert_eq!(q.phrases, [vec!["kotlin".to_string(), "bootstrap".into()]]);
        assert_eq!(q.excluded_terms, ["stale"]);
        assert_eq!(
            q.excluded_phrases,
            [vec!["old".to_string(), "build".into()]]
        );
        assert_eq!(q.sequence, ["gradle", "kotlin", "bootstrap"]);
    }

    #[test]
    fn hostile_syntax_is_literal() {
        assert_eq!(
            texts(&p("a:b (x * ~2 ^3 AND OR NOT")),
            ["a", "b", "x", "2", "3", "and", "or", "not"]
        );
        assert_eq!(
            texts(&p(r#"unbalanced "quote here"#)),
            ["unbalanced", "quote", "here"]
        );
        assert!(p("-").is_empty());
        assert!(p("  \t ").is_empty());
        assert!(p("!!! ??? ...").is_empty());
        assert!(p("\"\"").is_empty());
        assert_eq!(p("- word").terms.len(), 1);
    }

    #[test]
    fn path_and_ext_keywords() {
        let q = p(
            r#"kotlin path:Projects PATH:"My Notes" -path:archive ext:.MD path:a,b -ext:pdf tag:x"#,
        );
        assert_eq!(texts(&q), ["kotlin", "tag", "x"]);
        assert_eq!(q.paths, ["projects", "my notes", "a", "b"]);
        assert_eq!(q.excluded_paths, ["archive"]);
        assert_eq!(q.exts, ["md"]);
        let only = p("path:x");
        assert!(only.is_empty() && only.has_path_filters());
        // No value: literal text.
        assert_eq!(texts(&p("path: x")), ["path", "x"]);
    }

    #[test]
    fn compounds_keep_parts() {
        let q = p("trace-cmd");
        assert_eq!(q.terms[0].text, "trace-cmd");
        assert_eq!(q.terms[0].parts, ["trace", "cmd"]);
        assert_eq!(q.sequence, ["trace", "cmd"]);
    }

    #[test]
    fn huge_queries_are_capped() {
        let many: String = (0..10_000).map(|i| format!("w{i} ")).collect();
        assert_eq!(p(&many).terms.len(), MAX_TERMS);
        let big = "x".repeat(100_000);
        assert_eq!(p(&big).terms.len(), 1);
        let ctrl = "a\u{0}b\u{1b}[31m c\u{7f}";
        assert!(!p(ctrl).is_empty());
    }
}
