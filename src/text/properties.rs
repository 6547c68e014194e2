//! The frontmatter properties of a note (Obsidian's "Properties"), key by key, for `--where`.
//!
//! A forgiving reader of the YAML that people and Obsidian write, not a YAML parser: top-level
//! `key: value` lines, inline lists (`[a, b]`), block lists (`- a` below the key), quoted
//! strings, trailing `# comments`. A nested map or a block scalar (`|`, `>`) makes the key
//! present without values. Nothing here fails: an unreadable line is skipped.

/// At most this many properties are read per note.
const MAX_PROPERTIES: usize = 1_000;

/// `(key as written, values)` in order of appearance; a scalar is one value, a list one value
/// per item, a property without a value (or a map) none.
pub(crate) fn parse(frontmatter: &str) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    // Whether the lines below the last key may be its list items.
    let mut open = false;
    for line in frontmatter.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if let Some(item) = trimmed
            .strip_prefix("- ")
            .or_else(|| (trimmed == "-").then_some(""))
        {
            if open {
                if let Some((_, values)) = out.last_mut() {
                    let v = scalar(item);
                    if !v.is_empty() {
                        values.push(v);
                    }
                }
            }
            continue;
        }
        if line.starts_with([' ', '\t']) {
            // A nested map or the lines of a block scalar: the key stays present, valueless.
            continue;
        }
        let Some((key, value)) = trimmed.split_once(':') else {
            open = false;
            continue;
        };
        let key = key.trim().trim_matches(['"', '\'']).trim();
        if key.is_empty() || out.len() >= MAX_PROPERTIES {
            open = false;
            continue;
        }
        let value = value.trim();
        let mut values = Vec::new();
        open = value.is_empty();
        if let Some(inner) = value.strip_prefix('[').and_then(|v| v.strip_suffix(']')) {
            values.extend(inner.split(',').map(scalar).filter(|v| !v.is_empty()));
        } else if !value.is_empty() && !value.starts_with(['|', '>']) {
            let v = scalar(value);
            if !v.is_empty() {
                values.push(v);
            }
        }
        out.push((key.to_string(), values));
    }
    out
}

/// One scalar: unquoted, or with its unquoted trailing comment cut.
fn scalar(v: &str) -> String {
    let v = v.trim();
    for q in ['"', '\''] {
        if let Some(rest) = v.strip_prefix(q) {
            if let Some(end) = rest.find(q) {
                return rest[..end].to_string();
            }
        }
    }
    let v = match v.find(" #") {
        Some(i) => &v[..i],
        None => v,
    };
    v.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(fm: &str) -> Vec<(String, Vec<String>)> {
        parse(fm)
    }

    fn kv(k: &str, v: &[&str]) -> (String, Vec<String>) {
        (k.to_string(), v.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn scalars_lists_and_presence() {
        let fm = "status: Done # finished\npriority: 2\ndraft: true\nauthors: [Ann, \"Bob B\"]\nrelated:\n  - \"[[Note]]\"\n  - other\nempty:\nmeta:\n  nested: 1\nsummary: |\n  long text\n  - not an item\ntitle: 'a: b'\n";
        assert_eq!(
            p(fm),
            vec![
                kv("status", &["Done"]),
                kv("priority", &["2"]),
                kv("draft", &["true"]),
                kv("authors", &["Ann", "Bob B"]),
                kv("related", &["[[Note]]", "other"]),
                kv("empty", &[]),
                kv("meta", &[]),
                kv("summary", &[]),
                kv("title", &["a: b"]),
            ]
        );
    }

    #[test]
    fn junk_is_skipped() {
        assert_eq!(p(": x\n- stray\nnot a pair\n"), Vec::new());
    }
}
