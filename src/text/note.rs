//! What a Markdown note holds besides its text: YAML frontmatter aliases and tags, inline
//! `#tags`, and ATX headings outside fenced code.
//!
//! The parser is deliberately forgiving: notes are years of hand-written text, and frontmatter
//! that isn't valid YAML still yields whatever `aliases:`/`tags:` lines it has, never an error.

/// A heading line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Heading {
    /// 1–6.
    pub level: u8,
    pub text: String,
    /// Byte offset of the heading line in the note.
    pub offset: usize,
}

/// Metadata extracted from one note.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct NoteMeta {
    /// Byte offset where the content after the frontmatter starts (0 without frontmatter).
    pub body_start: usize,
    pub aliases: Vec<String>,
    pub tags: Vec<String>,
    pub headings: Vec<Heading>,
    /// Every frontmatter property with its values (see [`super::properties`]).
    pub properties: Vec<(String, Vec<String>)>,
}

/// At most this many headings are kept per note (a generated note may have 100,000).
pub(crate) const MAX_HEADINGS: usize = 10_000;

/// Parses the metadata of a note.
pub(crate) fn parse(text: &str) -> NoteMeta {
    let mut meta = NoteMeta::default();
    let (fm, body_start) = split_frontmatter(text);
    meta.body_start = body_start;
    if let Some(fm) = fm {
        parse_frontmatter(fm, &mut meta);
        meta.properties = super::properties::parse(fm);
    }
    let mut in_fence: Option<&str> = None;
    let mut offset = body_start;
    let bytes = text.as_bytes();
    // Line by line (each with its `\n`), noting on the way whether it holds a `#`: most lines
    // hold none, so they have neither a heading nor a tag to look for. One pass finds both.
    let mut marks = memchr::memchr2_iter(b'\n', b'#', &bytes[offset..]).map(|i| i + body_start);
    while offset < bytes.len() {
        let mut hash = false;
        let mut end = bytes.len();
        for at in marks.by_ref() {
            if bytes[at] == b'\n' {
                end = at + 1;
                break;
            }
            hash = true;
        }
        let raw = &text[offset..end];
        let line = raw.trim_end_matches(['\n', '\r']);
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        if indent <= 3 {
            if let Some(fence) = in_fence {
                if trimmed.starts_with(fence) {
                    in_fence = None;
                }
                offset = end;
                continue;
            }
            if trimmed.starts_with("```") {
                in_fence = Some("```");
            } else if trimmed.starts_with("~~~") {
                in_fence = Some("~~~");
            } else if !hash {
                // No `#`: neither a heading nor a tag.
            } else if let Some(h) = heading(trimmed) {
                // `# Title #tag`: the heading's own `#`s are not a tag, a tag in its text is.
                inline_tags(h.1, &mut meta.tags);
                if meta.headings.len() < MAX_HEADINGS {
                    meta.headings.push(Heading {
                        level: h.0,
                        text: h.1.to_string(),
                        offset,
                    });
                }
            } else {
                inline_tags(line, &mut meta.tags);
            }
        } else if in_fence.is_none() && hash {
            inline_tags(line, &mut meta.tags);
        }
        offset = end;
    }
    let mut seen = std::collections::HashSet::new();
    meta.tags.retain(|t| seen.insert(t.clone()));
    meta
}

/// The text of the nearest heading at or above byte offset `pos`.
pub(crate) fn heading_at(meta: &NoteMeta, pos: usize) -> Option<String> {
    meta.headings
        .iter()
        .take_while(|h| h.offset <= pos)
        .last()
        .map(|h| h.text.clone())
}

/// `(frontmatter text, byte offset after it)`; frontmatter must open on the first line.
fn split_frontmatter(text: &str) -> (Option<&str>, usize) {
    let start = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let rest = &text[start..];
    let first_end = match rest.find('\n') {
        Some(i) => i,
        None => return (None, 0),
    };
    if rest[..first_end].trim_end() != "---" {
        return (None, 0);
    }
    let mut pos = first_end + 1;
    for line in rest[pos..].split_inclusive('\n') {
        let t = line.trim_end();
        if t == "---" || t == "..." {
            let fm = &rest[first_end + 1..pos];
            return (Some(fm), start + pos + line.len());
        }
        pos += line.len();
    }
    (None, 0)
}

pub(crate) fn heading(line: &str) -> Option<(u8, &str)> {
    let hashes = line.bytes().take_while(|&b| b == b'#').count();
    if hashes == 0 || hashes > 6 {
        return None;
    }
    let rest = &line[hashes..];
    if !rest.is_empty() && !rest.starts_with([' ', '\t']) {
        return None;
    }
    let text = rest.trim().trim_end_matches('#').trim_end();
    Some((hashes as u8, text))
}

/// `#tag` words: after whitespace or at the line start (so not a URL fragment `page#x`, a
/// link `[a](#x)` or an entity `&#123;`), outside inline code, not `#` alone, not `#123` issue
/// numbers; a trailing `/` is not part of the tag.
fn inline_tags(line: &str, tags: &mut Vec<String>) {
    if !line.contains('#') {
        return;
    }
    let bytes = line.as_bytes();
    let code = super::scan::code_spans(line);
    // The first code span not ending before the `#` looked at (they come in order).
    let mut span = 0;
    for (i, _) in line.match_indices('#') {
        if i > 0 && !bytes[i - 1].is_ascii_whitespace() {
            continue;
        }
        while code.get(span).is_some_and(|&(_, to)| to <= i) {
            span += 1;
        }
        if code.get(span).is_some_and(|&(from, _)| from <= i) {
            continue;
        }
        let tag: String = line[i + 1..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '/'))
            .collect();
        let tag = tag.trim_end_matches('/');
        if tag.chars().any(|c| !c.is_ascii_digit()) && tags.len() < MAX_HEADINGS {
            tags.push(tag.to_string());
        }
    }
    super::scan::end_line(line.len());
}

/// Reads `aliases`/`alias` and `tags`/`tag` in their inline (`[a, b]`, `a, b`) and block
/// (`- a`) forms.
fn parse_frontmatter(fm: &str, meta: &mut NoteMeta) {
    let mut current: Option<bool> = None; // Some(true) = aliases, Some(false) = tags
    for line in fm.lines() {
        let trimmed = line.trim();
        if let Some(item) = trimmed
            .strip_prefix("- ")
            .or_else(|| (trimmed == "-").then_some(""))
        {
            if let Some(is_alias) = current {
                push_values(item, is_alias, meta);
            }
            continue;
        }
        if line.starts_with([' ', '\t']) && current.is_some() {
            continue;
        }
        current = None;
        let Some((key, value)) = trimmed.split_once(':') else {
            continue;
        };
        let is_alias = match key.trim().to_ascii_lowercase().as_str() {
            "aliases" | "alias" => true,
            "tags" | "tag" => false,
            _ => continue,
        };
        let value = value.trim();
        if value.is_empty() {
            current = Some(is_alias);
        } else {
            let inner = value
                .strip_prefix('[')
                .and_then(|v| v.strip_suffix(']'))
                .unwrap_or(value);
            for v in inner.split(',') {
                push_values(v, is_alias, meta);
            }
        }
    }
}

fn push_values(v: &str, is_alias: bool, meta: &mut NoteMeta) {
    // YAML's unquoted null (`tags: null`, `- ~`) is no value, not a tag named `null`.
    if matches!(v.trim(), "null" | "Null" | "NULL" | "~") {
        return;
    }
    let v = v.trim().trim_matches(['"', '\'']).trim();
    if v.is_empty() {
        return;
    }
    if is_alias {
        meta.aliases.push(v.to_string());
    } else {
        for t in v.split_whitespace() {
            let t = t.trim_start_matches('#');
            if !t.is_empty() {
                meta.tags.push(t.to_string());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_null_is_no_tag_or_alias() {
        for fm in [
            "tags: null\naliases: null",
            "tags: ~\naliases: NULL",
            "tags: [null]\naliases:\n  - null",
        ] {
            let m = parse(&format!("---\n{fm}\n---\nbody\n"));
            assert!(m.tags.is_empty() && m.aliases.is_empty(), "{fm}: {m:?}");
        }
        // Quoted, it is a string.
        assert_eq!(parse("---\ntags: \"null\"\n---\n").tags, ["null"]);
    }

    #[test]
    fn frontmatter_both_forms() {
        let t = "---\ntitle: x\naliases: [One, \"Two\"]\ntags:\n  - a/b\n  - '#c'\n---\n# H1\ntext #inline and #123\n";
        let m = parse(t);
        assert_eq!(m.aliases, ["One", "Two"]);
        assert_eq!(m.tags, ["a/b", "c", "inline"]);
        assert_eq!(m.headings.len(), 1);
        assert_eq!(m.headings[0].text, "H1");
        assert_eq!(&t[m.body_start..m.body_start + 4], "# H1");
    }

    #[test]
    fn headings_skip_code_and_non_headings() {
        let t = "# A\n```\n# not\n```\n#nospace\n## B ##\n####### seven\n";
        let m = parse(t);
        let texts: Vec<_> = m
            .headings
            .iter()
            .map(|h| (h.level, h.text.as_str()))
            .collect();
        assert_eq!(texts, [(1, "A"), (2, "B")]);
    }

    #[test]
    fn invalid_yaml_is_tolerated() {
        let m = parse("---\n: : [\naliases: [unclosed\n---\nbody");
        assert_eq!(m.aliases, ["[unclosed"]);
        let m = parse("---\nno end");
        assert_eq!(m.body_start, 0);
    }

    #[test]
    fn inline_tag_edge_cases() {
        let t = "# Title #heading-tag\n## Notes\nsee `#code` and ``a #b`` but #real/ and \
                 url https://x.org/#frag page#x [l](#anchor) &#123; #123 #a1 #ü/ß\n\
                 ```\n#fenced\n```\nunclosed ` #open\n";
        assert_eq!(parse(t).tags, ["heading-tag", "real", "a1", "ü/ß", "open"]);
    }

    #[test]
    fn tags_between_code_spans_as_before() {
        // As before: each `#` tested against every code span of its line.
        fn tags_by_every_span(line: &str) -> Vec<String> {
            let code = crate::text::scan::code_spans(line);
            let mut tags = Vec::new();
            for (i, _) in line.match_indices('#') {
                if i > 0 && !line.as_bytes()[i - 1].is_ascii_whitespace()
                    || code.iter().any(|&(from, to)| from <= i && i < to)
                {
                    continue;
                }
                let tag: String = line[i + 1..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '/'))
                    .collect();
                let tag = tag.trim_end_matches('/');
                if tag.chars().any(|c| !c.is_ascii_digit()) {
                    tags.push(tag.to_string());
                }
            }
            tags
        }
        for line in crate::text::scan::tests::lines(b"``# ax", 3000, 40) {
            let mut tags = Vec::new();
            inline_tags(&line, &mut tags);
            assert_eq!(tags, tags_by_every_span(&line), "{line:?}");
        }
        // 200,000 spans and as many tags on one line: one pass, not one per pair.
        let line = "`a` #t ".repeat(200_000);
        let mut tags = Vec::new();
        crate::text::scan::take_looked();
        inline_tags(&line, &mut tags);
        assert_eq!(tags.len(), MAX_HEADINGS);
        assert!(crate::text::scan::take_looked() <= line.len());
    }

    #[test]
    fn bom_and_crlf() {
        let m = parse("\u{feff}---\r\ntags: x\r\n---\r\n# T\r\n");
        assert_eq!(m.tags, ["x"]);
        assert_eq!(m.headings[0].text, "T");
    }

    #[test]
    fn crlf_frontmatter_lists_properties_and_offsets() {
        // As a Windows editor saves it: every line ends in CRLF.
        let text = "---\r\naliases:\r\n  - Alt name\r\ntags: [a, b]\r\nstatus: done\r\n...\r\n\
                    intro #inline\r\n## Part two\r\nbody\r\n";
        let m = parse(text);
        assert_eq!(m.aliases, ["Alt name"]);
        assert_eq!(m.tags, ["a", "b", "inline"]);
        let status = m.properties.iter().find(|(k, _)| k == "status");
        assert_eq!(
            status.map(|(_, v)| v.as_slice()),
            Some(&["done".to_string()][..])
        );
        assert_eq!(&text[m.body_start..m.body_start + 5], "intro");
        let h = &m.headings[0];
        assert_eq!((h.level, h.text.as_str()), (2, "Part two"));
        assert_eq!(&text[h.offset..h.offset + 3], "## ");
        assert_eq!(crate::text::excerpt::line_of(text, h.offset), 8);
    }
}
