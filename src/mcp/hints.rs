//! When a search's folder or tag matches nothing: the closest names the vault has, so the
//! model corrects the argument instead of trying other words.

use crate::dispatch::Names;

/// How many names a hint offers.
const CLOSEST: usize = 5;

/// The refusal for a folder or tags that no note has, or `None` when they all exist.
pub(crate) fn unknown_names(
    folder: Option<&str>,
    tags: &[String],
    names: &Names,
) -> Option<String> {
    let (folders, known_tags) = (&names.folders, &names.tags);
    let mut out = Vec::new();
    if let Some(f) = folder
        .map(|f| f.trim_matches('/'))
        .filter(|f| !f.is_empty())
    {
        if !folders.iter().any(|(k, _)| k.eq_ignore_ascii_case(f)) {
            out.push(format!(
                "no folder \"{f}\" in the vault{}",
                closest(f, folders)
            ));
        }
    }
    for t in tags {
        let key = t.trim().trim_start_matches('#').to_lowercase();
        if !key.is_empty() && !known_tags.iter().any(|(k, _)| *k == key) {
            out.push(format!(
                "no note has the tag \"{key}\"{}",
                closest(&key, known_tags)
            ));
        }
    }
    (!out.is_empty()).then(|| out.join("; "))
}

/// "; closest: A (3 notes), …" — the nearest names by edit distance, ties by note count.
fn closest(wanted: &str, names: &[(String, u64)]) -> String {
    let w = wanted.to_lowercase();
    let mut scored: Vec<(usize, u64, &str)> = names
        .iter()
        .map(|(n, count)| {
            let l = n.to_lowercase();
            let last = l.rsplit('/').next().unwrap_or(&l);
            let d = distance(&w, &l).min(distance(&w, last));
            // A name holding the wanted word, or held by it, is close whatever its length.
            let d = if l.contains(&w) || w.contains(last) {
                d.min(1)
            } else {
                d
            };
            (d, *count, n.as_str())
        })
        .collect();
    scored.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)).then(a.2.cmp(b.2)));
    let list: Vec<String> = scored
        .iter()
        .take(CLOSEST)
        .map(|(_, count, n)| format!("\"{n}\" ({count} notes)"))
        .collect();
    if list.is_empty() {
        String::new()
    } else {
        format!("; closest: {}", list.join(", "))
    }
}

/// Levenshtein distance over characters.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_closest() {
        let names = Names {
            folders: vec![("Dev".into(), 2), ("Meta".into(), 1), ("Dev/old".into(), 1)],
            tags: vec![("build".into(), 1), ("project".into(), 4)],
            ..Names::default()
        };
        assert_eq!(unknown_names(Some("dev"), &["#build".into()], &names), None);
        let why = unknown_names(Some("Deev"), &["projct".into()], &names).unwrap();
        assert!(
            why.starts_with("no folder \"Deev\" in the vault; closest: \"Dev\" (2 notes)"),
            "{why}"
        );
        assert!(
            why.contains("no note has the tag \"projct\"; closest: \"project\""),
            "{why}"
        );
    }
}
