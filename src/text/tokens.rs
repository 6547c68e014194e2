//! How many tokens a text costs an agent, estimated without a model's tokenizer.
//!
//! A token budget is only a promise if the count never falls short of what the model's
//! tokenizer counts. One token per four bytes undercounts CJK (a character of three bytes is
//! often a token of its own) and code (punctuation is mostly a token each). So each character
//! is weighed by its class, in tenths of a token:
//!
//! | class | weight |
//! |---|---|
//! | ASCII letter | 3 |
//! | ASCII digit | 5 |
//! | ASCII white space (space, tab, newline) | 3 |
//! | ASCII punctuation and controls | 10 |
//! | a letter or digit past the 12th of its run (hashes, base64: no word to merge into) | 10 |
//! | Latin with accents (U+0080–U+036F) | 15 |
//! | Greek (U+0370–U+03FF) | 20 |
//! | Cyrillic (U+0400–U+04FF) | 7 |
//! | Hebrew, Arabic and the rest of two UTF-8 bytes | 14 |
//! | CJK (kana, ideographs, Hangul, CJK and full-width punctuation) | 17 |
//! | any other character of three bytes (Indic, Thai, symbols) | 30 |
//! | four bytes (emoji, rare ideographs) | 40 |
//!
//! The weights were fitted (`benches/tokens-calibrate.mjs`) against three real tokenizers
//! (OpenAI's o200k and cl100k, Anthropic's published one) on chunks of 200 to 4,000 bytes of
//! English notes, code, JSON answers and CJK, Cyrillic, Arabic, Indic and Greek text, so that
//! no chunk is undercounted; they overcount English prose by about half. Text with no words at
//! all (random base64) is counted at a token a character past twelve, which covers it.

/// The estimated tokens of `s` (rounded up).
pub fn estimate(s: &str) -> usize {
    let mut tenths = 0usize;
    let mut run = 0usize;
    for c in s.chars() {
        let alnum = c.is_ascii_alphanumeric();
        run = if alnum { run + 1 } else { 0 };
        tenths += if run > 12 { 10 } else { weight(c) };
    }
    tenths.div_ceil(10)
}

/// The length in bytes of the longest prefix of `s` estimated at most `max` tokens (a
/// character boundary). A prefix never costs less than a shorter one, so it is searched for,
/// not grown a character at a time.
pub(crate) fn prefix_within(s: &str, max: usize) -> usize {
    let ends: Vec<usize> = s.char_indices().map(|(i, c)| i + c.len_utf8()).collect();
    let fitting = ends.partition_point(|&end| estimate(&s[..end]) <= max);
    fitting.checked_sub(1).map_or(0, |k| ends[k])
}

/// One character's cost in tenths of a token.
fn weight(c: char) -> usize {
    let cp = c as u32;
    match c.len_utf8() {
        1 if c.is_ascii_alphabetic() => 3,
        1 if c.is_ascii_digit() => 5,
        1 if c.is_ascii_whitespace() => 3,
        1 => 10,
        2 if cp < 0x370 => 15,
        2 if cp < 0x400 => 20,
        2 if cp < 0x500 => 7,
        2 => 14,
        3 if is_cjk(cp) => 17,
        3 => 30,
        _ => 40,
    }
}

/// Kana, ideographs, Hangul, CJK and full-width punctuation.
fn is_cjk(cp: u32) -> bool {
    matches!(cp, 0x2E80..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF | 0xFE30..=0xFE4F | 0xFF00..=0xFFEF)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weighs_characters_by_class() {
        assert_eq!(estimate(""), 0);
        assert_eq!(estimate("abc"), 1);
        // 9 letters and 2 spaces: 3.3 tokens.
        assert_eq!(estimate("the cat sat"), 4);
        assert_eq!(estimate("{}"), 2);
        assert_eq!(estimate("答案"), 4);
        assert_eq!(estimate("привет"), 5);
        assert_eq!(estimate("😀"), 4);
        // Past twelve letters of a run, a token each.
        assert_eq!(estimate("abcdefghijkl"), 4);
        assert_eq!(estimate("abcdefghijklmn"), 6);
    }

    #[test]
    fn the_longest_prefix_within_a_count() {
        for s in ["", "the cat sat on the mat", "答案在这里", "{}[]()"] {
            for max in 0..8 {
                let end = prefix_within(s, max);
                assert!(estimate(&s[..end]) <= max, "{s:?} {max}");
                let next = s[end..].chars().next().map(|c| end + c.len_utf8());
                assert!(next.is_none_or(|n| estimate(&s[..n]) > max), "{s:?} {max}");
            }
        }
    }

    #[test]
    fn never_counts_fewer_than_a_quarter_of_the_bytes_of_ascii_text() {
        let prose = "Use the client IP as the Redis key; a Lua script counts requests per window.";
        assert!(estimate(prose) * 4 >= prose.len());
    }
}
