//! The text analyzer shared by the index and the query: one definition of what a "word" is.
//!
//! - Splits on whitespace and punctuation; `-`, `_`, `.` and apostrophes join a word only
//!   between letters or digits. Letters marked in brackets inside a word, as a mnemonic marks
//!   an option's letter (`E[x]tract`, `[f]ile`), are part of it: `extract`, `file`.
//! - A compound word is kept whole **and** split into its parts (camelCase, snake_case,
//!   kebab-case, dotted): `KotlinCompileDaemon` gives `kotlincompiledaemon` plus `kotlin`,
//!   `compile`, `daemon`. The whole token sits at the position of the first part and the parts
//!   take consecutive positions, so phrases over parts still match.
//! - CJK (Han, kana, Hangul) runs become overlapping character bigrams (a lone character stays a
//!   unigram), so text without spaces is searchable; nothing is dropped, however long.
//! - Tokens are lowercased and accents are folded (`café` = `cafe`), by tantivy's
//!   `AsciiFoldingFilter` run from inside the tokenizer on the tokens it changes (see
//!   [`chars::fold`]).
//! - Tokens longer than [`MAX_TOKEN_CHARS`] are truncated, not dropped, the same way at index
//!   and query time, so a 5,000-character word is still findable by its text. (The cut comes
//!   before accent folding, which can lengthen a few letters: `Þ` → `th`.)

mod chars;

use chars::{ascii_class, fold, Class};

use tantivy::tokenizer::{TextAnalyzer, Token, TokenStream, Tokenizer};

/// Bumped whenever tokenization changes: a stored index of another version is rebuilt.
pub(crate) const ANALYZER_VERSION: u32 = 3;
/// Name under which the analyzer is registered with tantivy.
pub(crate) const NAME: &str = "vault";
/// Longer tokens are cut to this many characters.
pub(crate) const MAX_TOKEN_CHARS: usize = 64;

/// The analyzer: [`VaultTokenizer`], which lowercases and folds accents.
pub(crate) fn text_analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(VaultTokenizer::default()).build()
}

/// Tokenizes `text` into owned tokens (positions, offsets, `position_length` kept).
pub(crate) fn analyze(analyzer: &mut TextAnalyzer, text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut stream = analyzer.token_stream(text);
    while stream.advance() {
        out.push(stream.token().clone());
    }
    out
}

/// The splitting step; see the module documentation.
#[derive(Clone, Default, Debug)]
pub(crate) struct VaultTokenizer {
    buf: TokenBuf,
}

/// Tokens of the last text; their strings are reused from one text to the next (indexing
/// tokenizes millions of words, and an allocation per word showed in profiles).
#[derive(Clone, Default, Debug)]
struct TokenBuf {
    tokens: Vec<Token>,
    len: usize,
    /// Scratch of [`word_parts`], reused from one compound to the next (two allocations per
    /// compound word were 2 % of a full build).
    chars: Vec<(usize, char)>,
    parts: Vec<(usize, usize)>,
}

/// Streams the tokens [`VaultTokenizer`] prepared.
#[derive(Debug)]
pub(crate) struct VaultTokenStream<'a> {
    tokens: &'a mut [Token],
    next: usize,
}

impl Tokenizer for VaultTokenizer {
    type TokenStream<'a> = VaultTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> VaultTokenStream<'a> {
        self.buf.len = 0;
        split(text, &mut self.buf, usize::MAX);
        let len = self.buf.len;
        VaultTokenStream {
            tokens: &mut self.buf.tokens[..len],
            next: 0,
        }
    }
}

impl TokenStream for VaultTokenStream<'_> {
    fn advance(&mut self) -> bool {
        if self.next < self.tokens.len() {
            self.next += 1;
            true
        } else {
            false
        }
    }

    fn token(&self) -> &Token {
        &self.tokens[self.next - 1]
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.tokens[self.next - 1]
    }
}

/// The class of `c`: ASCII by a match, the rest from the table ([`chars`]).
fn class(c: char) -> Class {
    if c.is_ascii() {
        return ascii_class(c);
    }
    chars::traits(c).class()
}

fn is_upper(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_uppercase()
    } else {
        chars::traits(c).is_upper()
    }
}

fn is_lower(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_lowercase()
    } else {
        chars::traits(c).is_lower()
    }
}

fn char_at(text: &str, i: usize) -> Option<char> {
    match text.as_bytes().get(i) {
        Some(&b) if b < 0x80 => Some(b as char),
        Some(_) => text.get(i..).and_then(|t| t.chars().next()),
        None => None,
    }
}

/// The byte offset of the first token at position `pos` or later in `text` (positions counted
/// from the text's start, as the analyzer numbers them), tokenizing only up to there: a hit's
/// passage is located in its note without tokenizing the rest of the note.
pub(crate) fn offset_at_position(text: &str, pos: usize) -> Option<usize> {
    thread_local! {
        static BUF: std::cell::RefCell<TokenBuf> = std::cell::RefCell::default();
    }
    BUF.with(|buf| {
        let mut buf = buf.borrow_mut();
        buf.len = 0;
        split(text, &mut buf, pos);
        buf.tokens[..buf.len]
            .iter()
            .find(|t| t.position >= pos)
            .map(|t| t.offset_from)
    })
}

/// Tokenizes `text` into `out`, stopping once a token past position `stop` is out (every
/// token at `stop` or before is then out too: positions only grow).
fn split(text: &str, out: &mut TokenBuf, stop: usize) {
    let mut position = 0usize;
    let mut i = 0usize;
    while let Some(c) = char_at(text, i) {
        if position > stop {
            return;
        }
        let starts_marked = c == '['
            && (i == 0 || text.as_bytes()[i - 1] != b'[')
            && marked_letters_end(text, i).is_some();
        match class(c) {
            Class::Word => {
                let mut seen = Seen {
                    ascii: c.is_ascii(),
                    first_upper: c.is_ascii_uppercase(),
                    ..Seen::default()
                };
                let j = word_end(text, i + c.len_utf8(), &mut seen);
                emit_word(text, i, j, seen, &mut position, out);
                i = j;
            }
            Class::Other if starts_marked => {
                let mut seen = Seen {
                    ascii: true,
                    ..Seen::default()
                };
                let j = word_end(text, i, &mut seen);
                emit_word(text, i, j, seen, &mut position, out);
                i = j;
            }
            Class::Cjk => {
                let start = i;
                let mut j = i + c.len_utf8();
                while let Some(d) = char_at(text, j).filter(|d| class(*d) == Class::Cjk) {
                    j += d.len_utf8();
                }
                emit_cjk(text, start, j, &mut position, out);
                i = j;
            }
            Class::Joiner | Class::Other => i += c.len_utf8(),
        }
    }
}

/// What [`word_end`] saw of a word: what [`emit_word`] and [`push`] need to know, found in the
/// one pass that finds its end (three more passes per word were a tenth of a full build).
#[derive(Debug, Default, Clone, Copy)]
struct Seen {
    /// Every character is ASCII.
    ascii: bool,
    /// A joiner (`-`, `_`, `.`, an apostrophe) inside it.
    joiner: bool,
    /// An uppercase letter after its first character (marked letters included).
    upper: bool,
    /// Marked letters (`E[x]tract`): brackets to leave out of its text.
    marked: bool,
    /// Its first character is an ASCII capital: with `upper`, whether lowercasing an ASCII
    /// word changes it.
    first_upper: bool,
}

impl Seen {
    /// A word without joiners or inner capitals is one part: the common case, decided
    /// without [`word_parts`].
    fn single_part(&self) -> bool {
        !self.joiner && !self.upper
    }
}

/// The end of the word whose letters go on at `j`: letters, digits, a joiner between them, and
/// marked letters; what it holds goes into `seen` (set for the characters before `j`).
fn word_end(text: &str, mut j: usize, seen: &mut Seen) -> usize {
    let b = text.as_bytes();
    let word_at = |k: usize| char_at(text, k).is_some_and(|e| class(e) == Class::Word);
    while let Some(&x) = b.get(j) {
        if x < 0x80 {
            match x {
                b'a'..=b'z' | b'0'..=b'9' => j += 1,
                b'A'..=b'Z' => {
                    seen.upper = true;
                    j += 1;
                }
                b'-' | b'_' | b'.' | b'\'' if word_at(j + 1) => {
                    seen.joiner = true;
                    j += 1;
                }
                b'[' => match marked_letters_end(text, j) {
                    Some(end) => {
                        seen.marked = true;
                        seen.upper |= b[j..end].iter().any(u8::is_ascii_uppercase);
                        j = end;
                    }
                    None => break,
                },
                _ => break,
            }
            continue;
        }
        let Some(d) = char_at(text, j) else { break };
        match class(d) {
            Class::Word => {
                seen.ascii = false;
                seen.upper |= is_upper(d);
                j += d.len_utf8();
            }
            Class::Joiner if word_at(j + d.len_utf8()) => {
                seen.ascii = false;
                seen.joiner = true;
                j += d.len_utf8();
            }
            _ => break,
        }
    }
    j
}

/// Letters marked inside a word, as a mnemonic marks a command's option letter (`E[x]tract`,
/// `[f]ile`, `e[X]ecute`): `[`, one to three ASCII letters, `]` and a letter or digit right
/// after; the end of the `]`. The brackets are left out of the word, so `E[x]tract` is
/// `extract`. A link (`[text](url)`), a checkbox (`[x] done`) or a wikilink is no mark.
fn marked_letters_end(text: &str, i: usize) -> Option<usize> {
    let b = text.as_bytes();
    let letters = b[i + 1..]
        .iter()
        .take(4)
        .take_while(|c| c.is_ascii_alphabetic())
        .count();
    let close = i + 1 + letters;
    let after = close + 1;
    ((1..=3).contains(&letters)
        && b.get(close) == Some(&b']')
        && char_at(text, after).is_some_and(|e| class(e) == Class::Word))
    .then_some(after)
}

/// Pushes the token `text[from..to]`; `seen` is what the scan saw of its word (ASCII, marked
/// letters), or the default for text of other kinds.
fn push(
    out: &mut TokenBuf,
    text: &str,
    (from, to): (usize, usize),
    seen: Seen,
    position: usize,
    len: usize,
) {
    let slice = &text[from..to];
    let cut = if slice.len() <= MAX_TOKEN_CHARS {
        slice
    } else {
        slice
            .char_indices()
            .nth(MAX_TOKEN_CHARS)
            .map_or(slice, |(i, _)| &slice[..i])
    };
    if out.len == out.tokens.len() {
        out.tokens.push(Token::default());
    }
    let t = &mut out.tokens[out.len];
    out.len += 1;
    t.offset_from = from;
    t.offset_to = to;
    t.position = position;
    t.position_length = len;
    t.text.clear();
    // Lowercased here rather than by a filter: one pass, no extra allocation.
    // A bracket is in a word only around marked letters (`E[x]tract`): never part of its text.
    if seen.ascii {
        t.text.push_str(cut);
        if seen.marked {
            t.text.retain(|c| c != '[' && c != ']');
        }
        // Most words have no capital: nothing to lowercase.
        if seen.upper || seen.first_upper {
            t.text.make_ascii_lowercase();
        }
    } else {
        // Folded after lowercasing, as the filter folded the lowercased token; only when a
        // character of it folds to something else.
        let mut folds = false;
        for c in cut.chars() {
            match c {
                '[' | ']' => {}
                c if c.is_ascii() => t.text.push(c.to_ascii_lowercase()),
                c => {
                    let traits = chars::traits(c);
                    if traits.lowers_to_self() {
                        t.text.push(c);
                        folds |= !traits.folds_to_self();
                    } else {
                        for l in c.to_lowercase() {
                            t.text.push(l);
                            folds |= !l.is_ascii() && !chars::traits(l).folds_to_self();
                        }
                    }
                }
            }
        }
        if folds {
            fold(&mut t.text);
        }
    }
}

/// Words longer than this many bytes are not split into parts (they are truncated anyway).
const MAX_SPLIT_BYTES: usize = 1024;

/// Emits the word `text[start..end]` (letters, digits and inner joiners) and, for a compound,
/// its parts.
fn emit_word(
    text: &str,
    start: usize,
    end: usize,
    seen: Seen,
    position: &mut usize,
    out: &mut TokenBuf,
) {
    if seen.single_part() {
        push(out, text, (start, end), seen, *position, 1);
        *position += 1;
        return;
    }
    let mut parts = std::mem::take(&mut out.parts);
    parts.clear();
    if end - start <= MAX_SPLIT_BYTES {
        word_parts(text, start, end, &mut out.chars, &mut parts);
    }
    if parts.len() > 1 {
        push(out, text, (start, end), seen, *position, parts.len());
        for (k, &part) in parts.iter().enumerate() {
            push(out, text, part, seen, *position + k, 1);
        }
        *position += parts.len();
    } else {
        push(out, text, (start, end), seen, *position, 1);
        *position += 1;
    }
    out.parts = parts;
}

/// What [`Seen::single_part`] decides in the scan, decided from the word alone: the
/// definition the scan is tested against.
#[cfg(test)]
fn is_single_part(word: &str) -> bool {
    if word.is_ascii() {
        let b = word.as_bytes();
        !b.iter().any(|c| matches!(c, b'-' | b'_' | b'.' | b'\''))
            && !b.iter().skip(1).any(u8::is_ascii_uppercase)
    } else {
        word.chars()
            .enumerate()
            .all(|(k, c)| class(c) != Class::Joiner && (k == 0 || !is_upper(c)))
    }
}

/// Byte ranges of a word's parts. Boundaries: joiners, lower→Upper, and the last capital of an
/// acronym before a lowercase letter (`HTTPServer` → `HTTP`, `Server`). Written into `parts`
/// (empty), with `word` as scratch.
fn word_parts(
    text: &str,
    start: usize,
    end: usize,
    word: &mut Vec<(usize, char)>,
    parts: &mut Vec<(usize, usize)>,
) {
    word.clear();
    word.extend(text[start..end].char_indices().map(|(o, c)| (o + start, c)));
    let mut part_start: Option<usize> = None;
    for k in 0..word.len() {
        let (off, c) = word[k];
        if class(c) == Class::Joiner {
            if let Some(s) = part_start.take() {
                parts.push((s, off));
            }
            continue;
        }
        match part_start {
            Some(s) => {
                let prev = word[k - 1].1;
                let next = word.get(k + 1).map(|&(_, c)| c);
                let camel = (is_lower(prev) && is_upper(c))
                    || (is_upper(prev) && is_upper(c) && next.is_some_and(is_lower));
                if camel {
                    parts.push((s, off));
                    part_start = Some(off);
                }
            }
            None => part_start = Some(off),
        }
    }
    if let Some(s) = part_start {
        parts.push((s, end));
    }
}

/// Emits overlapping bigrams of the CJK run `text[start..end]` (one character stays a unigram).
fn emit_cjk(text: &str, start: usize, end: usize, position: &mut usize, out: &mut TokenBuf) {
    let mut offs = text[start..end].char_indices().map(|(o, _)| o + start);
    let Some(mut a) = offs.next() else { return };
    let Some(mut b) = offs.next() else {
        push(out, text, (start, end), Seen::default(), *position, 1);
        *position += 1;
        return;
    };
    loop {
        let next = offs.next();
        let to = next.unwrap_or(end);
        push(out, text, (a, to), Seen::default(), *position, 1);
        *position += 1;
        match next {
            Some(n) => {
                a = b;
                b = n;
            }
            None => break,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tantivy::tokenizer::AsciiFoldingFilter;

    fn texts(s: &str) -> Vec<String> {
        analyze(&mut text_analyzer(), s)
            .into_iter()
            .map(|t| t.text)
            .collect()
    }

    #[test]
    fn the_single_part_shortcut_agrees_with_the_splitter() {
        const WORDS: &[&str] = &[
            "plain",
            "Title",
            "abc123",
            "HTTPServer",
            "camelCase",
            "snake_case",
            "a.b",
            "don't",
            "Straße",
            "Éclair",
            "éCLAIR",
            "naïveTé",
            "x",
            "ÀB",
            "l’été",
            "日本",
            "E[x]tract",
            "e[X]ecute",
            "ab[c]",
            "c++",
            "v1.2.3",
            "ÿA",
        ];
        for w in WORDS {
            if is_single_part(w) {
                let mut parts = Vec::new();
                word_parts(w, 0, w.len(), &mut Vec::new(), &mut parts);
                assert!(parts.len() <= 1, "{w}");
            }
        }
        // The scan's flags say what the definition says, and its ASCII flag what the text is.
        for w in WORDS {
            let first = w.chars().next().unwrap();
            if class(first) != Class::Word {
                continue;
            }
            let mut seen = Seen {
                ascii: first.is_ascii(),
                ..Seen::default()
            };
            let end = word_end(w, first.len_utf8(), &mut seen);
            let word = &w[..end];
            assert_eq!(seen.single_part(), is_single_part(word), "{w}");
            assert_eq!(seen.ascii, word.is_ascii(), "{w}");
            assert_eq!(seen.marked, word.contains('['), "{w}");
        }
        assert!(is_single_part("plain") && is_single_part("Straße"));
        assert!(!is_single_part("camelCase") && !is_single_part("l’été"));
    }

    #[test]
    fn the_offset_at_a_position_is_the_full_tokenization_s() {
        let text =
            "Run trace-cmd now: E[x]tract KotlinCompileDaemon 日本語の本 and café-au-lait. end";
        let toks = analyze(&mut text_analyzer(), text);
        let last = toks.iter().map(|t| t.position).max().unwrap();
        for pos in 0..=last + 2 {
            let want = toks
                .iter()
                .find(|t| t.position >= pos)
                .map(|t| t.offset_from);
            assert_eq!(offset_at_position(text, pos), want, "{pos}");
        }
    }

    #[test]
    fn lowercases_and_folds() {
        assert_eq!(texts("Café  NAÏVE"), ["cafe", "naive"]);
    }

    /// Folding inside the tokenizer leaves nothing for tantivy's filter to fold, for every
    /// character (alone, inside a word, capitalised): the tokens are the filter's.
    #[test]
    fn the_filter_finds_nothing_left_to_fold() {
        let mut text = String::new();
        for c in (0x80..=0x10FFFFu32).filter_map(char::from_u32) {
            text.push_str(&format!("{c} a{c}b {c}X É{c} "));
        }
        let ours = analyze(&mut text_analyzer(), &text);
        let mut filtered = TextAnalyzer::builder(VaultTokenizer::default())
            .filter(AsciiFoldingFilter)
            .build();
        let theirs = analyze(&mut filtered, &text);
        assert_eq!(ours.len(), theirs.len());
        for (a, b) in ours.iter().zip(&theirs) {
            assert_eq!(a.text, b.text);
        }
    }

    #[test]
    fn compounds_keep_whole_and_parts() {
        assert_eq!(
            texts("KotlinCompileDaemon"),
            ["kotlincompiledaemon", "kotlin", "compile", "daemon"]
        );
        assert_eq!(
            texts("snake_case_fn"),
            ["snake_case_fn", "snake", "case", "fn"]
        );
        assert_eq!(texts("trace-cmd"), ["trace-cmd", "trace", "cmd"]);
        assert_eq!(texts("HTTPServer"), ["httpserver", "http", "server"]);
        assert_eq!(texts("-leading trailing-"), ["leading", "trailing"]);
    }

    #[test]
    fn compound_positions_are_consecutive() {
        let toks = analyze(&mut text_analyzer(), "run trace-cmd now");
        let pos: Vec<(String, usize)> = toks.into_iter().map(|t| (t.text, t.position)).collect();
        assert_eq!(
            pos,
            [
                ("run".into(), 0),
                ("trace-cmd".into(), 1),
                ("trace".into(), 1),
                ("cmd".into(), 2),
                ("now".into(), 3)
            ]
        );
    }

    #[test]
    fn cjk_bigrams_never_dropped() {
        assert_eq!(texts("東京都"), ["東京", "京都"]);
        assert_eq!(texts("日"), ["日"]);
        let long = "漢".repeat(5000);
        assert_eq!(texts(&long).len(), 4999);
    }

    #[test]
    fn punctuation_only_gives_nothing() {
        assert!(texts("!!! ... --- ***").is_empty());
    }

    #[test]
    fn marked_letters_stay_in_their_word() {
        assert_eq!(texts("E[x]tract a [f]ile"), ["extract", "a", "file"]);
        assert_eq!(texts("e[X]ecute g[z]ipped"), ["execute", "gzipped"]);
        // Not marks: a link, a checkbox, a wikilink, a footnote, a longer bracket.
        assert_eq!(texts("[see](url) [x] done"), ["see", "url", "x", "done"]);
        assert_eq!(
            texts("[[note]]s [^1]a [abcd]e"),
            ["note", "s", "1", "a", "abcd", "e"]
        );
        // The word's offsets cover the brackets.
        let mut a = text_analyzer();
        let t = analyze(&mut a, "to E[x]tract");
        assert_eq!((t[1].offset_from, t[1].offset_to), (3, 12));
    }

    #[test]
    fn long_words_are_truncated_not_dropped() {
        let w = "x".repeat(5000);
        let t = texts(&w);
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].chars().count(), MAX_TOKEN_CHARS);
    }
}
