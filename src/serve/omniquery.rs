//! What the plugin reads from `q` besides the words it searches: the exact phrases and the
//! `#tags`, which it reports in `foundWords` and marks in `matches`, and the whole query, which
//! it puts first in `matches` when the note holds it verbatim.
//!
//! The plugin lowercases the query and parses it with `search-query-parser`: words split on
//! spaces outside double quotes; `-word`, `ext:`/`path:` and `.ext` are filters, not words; a
//! quoted part or a word holding a space is an exact phrase; a word starting with `#` a tag.
//! Accents are not folded here (the plugin strips them first), so an accented phrase is
//! reported as typed, lowercased.

/// The parts of a plugin query that shape its reply.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct OmniQuery {
    /// Exact phrases, lowercased, each once, in the order typed.
    pub(crate) phrases: Vec<String>,
    /// `#tag` words, lowercased, as typed.
    pub(crate) tags: Vec<String>,
    /// What the plugin looks for verbatim to put first: the longest quoted part as typed, else
    /// the words joined by spaces; `None` for a one-word query without quotes.
    pub(crate) whole: Option<String>,
}

impl OmniQuery {
    pub(crate) fn parse(q: &str) -> OmniQuery {
        let (words, quoted) = split(q);
        let lower: Vec<String> = words.iter().map(|w| w.to_lowercase()).collect();
        let text: Vec<&String> = lower
            .iter()
            .filter(|w| {
                !(w.starts_with('-')
                    || w.starts_with('.')
                    || w.starts_with("ext:")
                    || w.starts_with("path:"))
            })
            .collect();
        let mut phrases: Vec<String> = Vec::new();
        let spaced = text
            .iter()
            .filter(|w| w.contains(' '))
            .map(|w| w.to_string());
        for p in spaced.chain(quoted.iter().map(|p| p.to_lowercase())) {
            if !p.is_empty() && !phrases.contains(&p) {
                phrases.push(p);
            }
        }
        let tags = text
            .iter()
            .filter(|w| w.starts_with('#') && w.len() > 1)
            .map(|w| w.to_string())
            .collect();
        let whole = if let Some(longest) = quoted.iter().max_by_key(|p| p.chars().count()) {
            Some(longest.clone())
        } else if text.len() > 1 {
            Some(
                text.iter()
                    .map(|w| w.as_str())
                    .collect::<Vec<_>>()
                    .join(" "),
            )
        } else {
            None
        };
        OmniQuery {
            phrases,
            tags,
            whole: whole.filter(|w| !w.is_empty()),
        }
    }
}

/// The words (a quoted part is one word, without its quotes) and the quoted parts as typed.
fn split(q: &str) -> (Vec<String>, Vec<String>) {
    let (mut words, mut quoted) = (Vec::new(), Vec::new());
    let mut word = String::new();
    let mut in_quotes = false;
    let mut part = String::new();
    for c in q.chars() {
        match c {
            '"' if in_quotes => {
                in_quotes = false;
                quoted.push(std::mem::take(&mut part).trim().to_string());
            }
            '"' => in_quotes = true,
            c if in_quotes => {
                part.push(c);
                word.push(c);
            }
            c if c.is_whitespace() => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    if in_quotes {
        // An unclosed quote is no phrase; its words are words.
        words.extend(part.split_whitespace().map(str::to_string));
        word.clear();
    }
    if !word.is_empty() {
        words.push(word);
    }
    quoted.retain(|p| !p.is_empty());
    (words, quoted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phrases_tags_and_the_whole_query() {
        let q = OmniQuery::parse(r#"Climbing "Old Roses" #Garden -aphids ext:md path:x .pdf"#);
        assert_eq!(q.phrases, ["old roses"]);
        assert_eq!(q.tags, ["#garden"]);
        assert_eq!(q.whole.as_deref(), Some("Old Roses"));

        let q = OmniQuery::parse("climbing roses");
        assert!(q.phrases.is_empty() && q.tags.is_empty());
        assert_eq!(q.whole.as_deref(), Some("climbing roses"));

        assert_eq!(OmniQuery::parse("roses"), OmniQuery::default());
        let q = OmniQuery::parse(r#""roses" "a"  "roses""#);
        assert_eq!(q.phrases, ["roses", "a"]);
        let q = OmniQuery::parse(r#"open "quote never closed"#);
        assert!(q.phrases.is_empty());
        assert_eq!(q.whole.as_deref(), Some("open quote never closed"));
    }
}
