//! What the analyzer asks of a character — its class (part of a word, CJK, a joiner, or a
//! separator), its case, whether lowercasing or accent folding changes it — defined here once,
//! and for non-ASCII characters answered from a table instead of the standard library's
//! Unicode lookups.
//!
//! A quarter of a multilingual vault's bytes are non-ASCII, and `char::is_alphanumeric` on
//! each of them was the single largest cost of a full build (a binary search, then a linear
//! scan of the property's ranges). The table covers the Basic Multilingual Plane in blocks of
//! 256 characters, each computed from the same standard library calls the first time one of
//! its characters is seen, so the answers are exactly the calls' and a process that never
//! meets, say, Cyrillic never builds its block. Characters above the plane are computed
//! directly (rare in notes).

use std::cell::RefCell;
use std::sync::OnceLock;

use tantivy::tokenizer::{AsciiFoldingFilter, RawTokenizer, TokenFilter, TokenStream, Tokenizer};

/// The class bits (a [`Class`]).
const CLASS_BITS: u8 = 0b11;
const UPPER: u8 = 1 << 2;
const LOWER: u8 = 1 << 3;
/// `char::to_lowercase` gives the character itself.
const LOWERS_TO_SELF: u8 = 1 << 4;
/// Accent folding (tantivy's `AsciiFoldingFilter`, see [`fold`]) leaves it as it is.
const FOLDS_TO_SELF: u8 = 1 << 5;

/// The blocks of the Basic Multilingual Plane, each filled on first use.
static BLOCKS: [OnceLock<[u8; 256]>; 256] = [const { OnceLock::new() }; 256];

/// What a character is to the tokenizer (its discriminant is stored in the table).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u8)]
pub(super) enum Class {
    Word = 0,
    Cjk = 1,
    Joiner = 2,
    Other = 3,
}

/// The class of an ASCII character.
pub(super) fn ascii_class(c: char) -> Class {
    match c {
        'a'..='z' | 'A'..='Z' | '0'..='9' => Class::Word,
        '-' | '_' | '.' | '\'' => Class::Joiner,
        _ => Class::Other,
    }
}

/// The class as the standard library's Unicode properties define it: what the table holds.
fn class_of(c: char) -> Class {
    if c.is_ascii() {
        return ascii_class(c);
    }
    if is_cjk(c) {
        Class::Cjk
    } else if c.is_alphanumeric() {
        Class::Word
    } else if matches!(c, '-' | '_' | '.' | '\'' | '\u{2019}') {
        Class::Joiner
    } else {
        Class::Other
    }
}

/// Han, kana and Hangul: scripts written without spaces between words (Hangul has spaces, but
/// bigrams also serve its agglutinated words).
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF   // Hiragana, Katakana
        | 0x31F0..=0x31FF // Katakana phonetic extensions
        | 0x3400..=0x4DBF // CJK Extension A
        | 0x4E00..=0x9FFF // CJK Unified Ideographs
        | 0xF900..=0xFAFF // CJK Compatibility Ideographs
        | 0xFF66..=0xFF9F // Halfwidth Katakana
        | 0x1100..=0x11FF // Hangul Jamo
        | 0xAC00..=0xD7AF // Hangul syllables
        | 0x20000..=0x2FFFF // CJK Extensions B–F
    )
}

/// The traits of one character.
#[derive(Clone, Copy, Debug)]
pub(super) struct Traits(u8);

impl Traits {
    pub(super) fn class(self) -> Class {
        match self.0 & CLASS_BITS {
            0 => Class::Word,
            1 => Class::Cjk,
            2 => Class::Joiner,
            _ => Class::Other,
        }
    }

    pub(super) fn is_upper(self) -> bool {
        self.0 & UPPER != 0
    }

    pub(super) fn is_lower(self) -> bool {
        self.0 & LOWER != 0
    }

    pub(super) fn lowers_to_self(self) -> bool {
        self.0 & LOWERS_TO_SELF != 0
    }

    pub(super) fn folds_to_self(self) -> bool {
        self.0 & FOLDS_TO_SELF != 0
    }
}

/// The traits of `c` (any character; the analyzer asks only for non-ASCII ones).
pub(super) fn traits(c: char) -> Traits {
    let n = c as u32;
    if n > 0xFFFF {
        return compute(c);
    }
    let block = BLOCKS[(n >> 8) as usize].get_or_init(|| {
        let first = n & !0xFF;
        std::array::from_fn(|k| {
            // Surrogates are not characters; no text holds them.
            char::from_u32(first + k as u32).map_or(Class::Other as u8, |c| compute(c).0)
        })
    });
    Traits(block[(n & 0xFF) as usize])
}

/// Folds the accents of a token as tantivy's `AsciiFoldingFilter` does (the filter itself, run
/// on this one token). The tokenizer calls it only for a token holding a character that folding
/// changes ([`Traits::folds_to_self`]): the filter as a stage of the analyzer scanned
/// every token and copied every non-ASCII one, 5 % of a full build.
pub(super) fn fold(text: &mut String) {
    type Folder = <AsciiFoldingFilter as TokenFilter>::Tokenizer<RawTokenizer>;
    thread_local! {
        static FOLDER: RefCell<Folder> =
            RefCell::new(AsciiFoldingFilter.transform(RawTokenizer::default()));
    }
    let folded = FOLDER.with(|f| {
        let mut f = f.borrow_mut();
        let mut stream = f.token_stream(text);
        stream
            .advance()
            .then(|| std::mem::take(&mut stream.token_mut().text))
    });
    if let Some(folded) = folded {
        *text = folded;
    }
}

/// Accent folding leaves `c` as it is: asked of the folding filter itself.
fn folds_to_self(c: char) -> bool {
    let mut buf = [0; 4];
    let mut s = String::from(c.encode_utf8(&mut buf) as &str);
    fold(&mut s);
    s.chars().eq(std::iter::once(c))
}

/// The traits as the standard library (and the folding filter) give them.
fn compute(c: char) -> Traits {
    let class = class_of(c) as u8;
    let mut bits = class;
    if c.is_uppercase() {
        bits |= UPPER;
    }
    if c.is_lowercase() {
        bits |= LOWER;
    }
    let mut lower = c.to_lowercase();
    if lower.next() == Some(c) && lower.next().is_none() {
        bits |= LOWERS_TO_SELF;
    }
    if folds_to_self(c) {
        bits |= FOLDS_TO_SELF;
    }
    Traits(bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_agrees_with_the_standard_library_everywhere() {
        for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
            let t = traits(c);
            assert_eq!(t.class(), class_of(c), "{c:?}");
            assert_eq!(t.is_upper(), c.is_uppercase(), "{c:?}");
            assert_eq!(t.is_lower(), c.is_lowercase(), "{c:?}");
            let lowered: String = c.to_lowercase().collect();
            assert_eq!(t.lowers_to_self(), lowered == c.to_string(), "{c:?}");
        }
    }
}
