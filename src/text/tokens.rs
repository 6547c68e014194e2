//! How many tokens a text costs an agent, estimated without a model's tokenizer.
//!
//! A token budget is only a promise if the count never falls short of what the model's
//! tokenizer counts. One token per four bytes undercounts CJK (a character of three bytes is
//! often a token of its own, a rare one two or three) and code (punctuation is mostly a token
//! each). So characters are weighed by class, in sixths of a token:
//!
//! | class | weight | why |
//! |---|---|---|
//! | ASCII letter or digit | 2 (⅓) | a word is a token or a few; digits go three to a token |
//! | a space after a non-space | 0 | it joins the next word's token |
//! | further spaces of a run | ¼ token each | indentation runs are one or a few tokens |
//! | newline, tab, ASCII punctuation, control | 6 (1) | mostly a token each |
//! | a character of 2 UTF-8 bytes (accents, Cyrillic, Greek, Arabic, Hebrew) | 6 (1) | |
//! | 3 bytes (CJK, Indic, most symbols) | 12 (2) | common CJK is one token, rare ones two or three bytes' worth |
//! | 4 bytes (emoji, rare CJK) | 24 (4) | byte-level pieces |
//!
//! The weights were checked against real tokenizers on English prose, Markdown, code, JSON and
//! CJK, Cyrillic and Arabic text: `benches/tokens-calibrate.mjs` and docs/agents.md ("Token
//! budgets") give the figures. They overcount English prose by about a third, which is the
//! price of never undercounting the rest.

/// The estimated tokens of `s` (rounded up).
pub fn estimate(s: &str) -> usize {
    let mut sixths = 0usize;
    let mut spaces = 0usize;
    for c in s.chars() {
        if c == ' ' {
            spaces += 1;
            continue;
        }
        sixths += run_cost(spaces);
        spaces = 0;
        sixths += weight(c);
    }
    sixths += run_cost(spaces);
    sixths.div_ceil(6)
}

/// A run of `n` spaces: the first joins the next word, the others cost a quarter token each
/// (in sixths, rounded up).
fn run_cost(n: usize) -> usize {
    (n.saturating_sub(1) * 6).div_ceil(4)
}

/// One character's cost in sixths of a token.
fn weight(c: char) -> usize {
    match c.len_utf8() {
        1 if c.is_ascii_alphanumeric() => 2,
        1 => 6,
        2 => 6,
        3 => 12,
        _ => 24,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weighs_characters_by_class() {
        assert_eq!(estimate(""), 0);
        assert_eq!(estimate("abc"), 1);
        assert_eq!(estimate("the cat sat"), 3);
        assert_eq!(estimate("{}"), 2);
        assert_eq!(estimate("答案"), 4);
        assert_eq!(estimate("привет"), 6);
        assert_eq!(estimate("😀"), 4);
        // Indentation: the first space is free, the others a quarter each.
        assert_eq!(estimate("     x"), 1 + 1);
    }

    #[test]
    fn never_counts_fewer_than_a_quarter_of_the_bytes_of_ascii_text() {
        let prose = "Use the client IP as the Redis key; a Lua script counts requests per window.";
        assert!(estimate(prose) * 4 >= prose.len());
    }
}
