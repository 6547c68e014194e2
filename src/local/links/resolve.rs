//! Which file a link names, as Obsidian decides it (`metadataCache.getFirstLinkpathDest`),
//! over the set of paths the vault holds now.
//!
//! The rule, in order (observed on Obsidian 1.13.7 through `getFirstLinkpathDest` and
//! `resolvedLinks`, reported in github.com/pvliesdonk/markdown-vault-mcp pull request #1380 and
//! issue #1383):
//!
//! 1. An empty target (`[[#Heading]]`) is the linking note itself.
//! 2. A target starting `./` or `../` is a path relative to the linking note's folder, and
//!    only that path (no search by name).
//! 3. The target as a vault path (`.md` optional, any case) wins, even over a note of the same
//!    name beside the linking note: `[[Note]]` is `Note.md` at the root when there is one.
//! 4. Then the target relative to the linking note's folder (`[[sub/Note]]` from `a/x.md` is
//!    `a/sub/Note.md`).
//! 5. Then every file whose path ends with the target, compared without case (a bare name is
//!    any file of that name, `[[b/Note]]` any `…/b/Note.md`): one in the linking note's own
//!    folder first (an ancestor folder counts for nothing), else the shortest path string
//!    (`a/b/Note.md` before `zzzz/Note.md`), ties in byte order.
//!
//! A Markdown link's destination is looked up the same way once percent-decoded (Obsidian
//! finds `[y](My%20Note.md)` written at the root in `Sub/My Note.md`). A target whose name has
//! another extension (`pic.png`, `Board.canvas`) names that file exactly, an attachment
//! included: it resolves when that file exists.

use std::collections::HashMap;

/// The paths of a vault's files, looked up as links look them up.
#[derive(Debug, Default)]
pub(crate) struct Paths {
    paths: Vec<String>,
    /// Lowercased path → index in `paths`.
    by_lower: HashMap<String, usize>,
    /// [`key_of`] the file name → indices in `paths`.
    by_key: HashMap<String, Vec<usize>>,
}

/// What a link and the file it may name have in common: the file name lowercased, without a
/// `.md` extension (`Note.md` and `[[note]]` → `note`, `Pic.PNG` → `pic.png`). The index keeps
/// it for every link, so the notes linking to a file are found by one term.
pub(crate) fn key_of(name_or_path: &str) -> String {
    let mut key = String::new();
    key_into(name_or_path, &mut key);
    key
}

/// [`key_of`] into `out` (cleared first): no allocation once `out` has grown, for a caller
/// that keys every path of a vault.
pub(super) fn key_into(name_or_path: &str, out: &mut String) {
    out.clear();
    let name = name_or_path.rsplit('/').next().unwrap_or(name_or_path);
    if name.is_ascii() {
        out.extend(name.chars().map(|c| c.to_ascii_lowercase()));
    } else {
        // `str::to_lowercase` itself: the index's `link_keys` were made with it (a final
        // sigma, for one, lowercases otherwise than char by char).
        out.push_str(&name.to_lowercase());
    }
    if out.len() > 3 && out.ends_with(".md") {
        out.truncate(out.len() - 3);
    }
}

/// `key_of(target) == key`, for a `key` [`key_of`] gave, without allocating when the file
/// name is ASCII (the test a note's every link takes when its backlinks are looked for).
pub(crate) fn has_key(target: &str, key: &str) -> bool {
    let name = target.rsplit('/').next().unwrap_or(target);
    if !name.is_ascii() {
        return key_of(target) == key;
    }
    let stem = match name.len().checked_sub(3) {
        Some(at) if at > 0 && name[at..].eq_ignore_ascii_case(".md") => &name[..at],
        _ => name,
    };
    stem.eq_ignore_ascii_case(key)
}

impl Paths {
    /// Adds a vault-relative path (a second add of the same path does nothing).
    pub(crate) fn add(&mut self, path: &str) {
        let lower = path.to_lowercase();
        if self.by_lower.contains_key(&lower) {
            return;
        }
        let i = self.paths.len();
        self.paths.push(path.to_string());
        self.by_lower.insert(lower, i);
        self.by_key.entry(key_of(path)).or_default().push(i);
    }

    /// The path of `path` as the vault spells it, compared without case.
    pub(crate) fn find(&self, path: &str) -> Option<&str> {
        self.by_lower
            .get(&path.to_lowercase())
            .map(|&i| self.paths[i].as_str())
    }

    /// The paths whose file name has this [`key_of`].
    pub(crate) fn named(&self, key: &str) -> impl Iterator<Item = &str> {
        self.by_key
            .get(key)
            .into_iter()
            .flatten()
            .map(|&i| self.paths[i].as_str())
    }

    /// The file `target` names when written in the note at `source` (see the module's rule);
    /// `None`: unresolved.
    pub(crate) fn resolve<'a>(&'a self, target: &str, source: &'a str) -> Option<&'a str> {
        let target = target.trim();
        if target.is_empty() {
            return Some(source);
        }
        let dir = source.rsplit_once('/').map_or("", |(d, _)| d);
        if target.starts_with("./") || target.starts_with("../") {
            let joined = normalize(&join(dir, target))?;
            return forms(&joined).find_map(|f| self.find(&f));
        }
        let target = normalize(target.trim_start_matches('/'))?;
        if target.is_empty() {
            return None;
        }
        if let Some(p) = forms(&target).find_map(|f| self.find(&f)) {
            return Some(p);
        }
        if !dir.is_empty() {
            if let Some(p) = forms(&join(dir, &target)).find_map(|f| self.find(&f)) {
                return Some(p);
            }
        }
        for form in forms(&target) {
            let lower = form.to_lowercase();
            let tail = format!("/{lower}");
            let best = self
                .named(&key_of(&form))
                .filter(|p| {
                    let p = p.to_lowercase();
                    p == lower || p.ends_with(&tail)
                })
                .min_by(|a, b| {
                    let own = |p: &str| p.rsplit_once('/').map_or("", |(d, _)| d) != dir;
                    (own(a), a.len(), *a).cmp(&(own(b), b.len(), *b))
                });
            if best.is_some() {
                return best;
            }
        }
        None
    }
}

/// The paths a target may name: with `.md` first unless it already ends so, then as written.
fn forms(target: &str) -> impl Iterator<Item = String> + '_ {
    let has_md = target.to_lowercase().ends_with(".md");
    let with_md = (!has_md).then(|| format!("{target}.md"));
    with_md
        .into_iter()
        .chain(std::iter::once(target.to_string()))
}

fn join(dir: &str, rel: &str) -> String {
    if dir.is_empty() {
        rel.to_string()
    } else {
        format!("{dir}/{rel}")
    }
}

/// `a/./b/../c` → `a/c`; `None` when `..` climbs out of the vault.
fn normalize(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vault(paths: &[&str]) -> Paths {
        let mut p = Paths::default();
        for path in paths {
            p.add(path);
        }
        p
    }

    #[test]
    fn exact_path_then_own_folder_then_shortest() {
        let v = vault(&["a/b/Note.md", "zzzz/Note.md", "b/Note.md", "zzzz/deep/x.md"]);
        // No note at the root or beside the source: the shortest path string.
        assert_eq!(v.resolve("Note", "zzzz/deep/x.md"), Some("b/Note.md"));
        // Beside the source wins over shorter paths.
        assert_eq!(v.resolve("note", "zzzz/y.md"), Some("zzzz/Note.md"));
        assert_eq!(v.resolve("Note", "a/b/z.md"), Some("a/b/Note.md"));
        // A folder in the target: every path ending so, the shortest first.
        assert_eq!(v.resolve("b/Note", "zzzz/y.md"), Some("b/Note.md"));
        assert_eq!(v.resolve("a/b/Note.md", "x.md"), Some("a/b/Note.md"));
        // An exact vault path wins over the note beside the source.
        let v = vault(&["Note.md", "sub/Note.md"]);
        assert_eq!(v.resolve("Note", "sub/x.md"), Some("Note.md"));
        // Equal lengths: byte order.
        let v = vault(&["q/N.md", "p/N.md"]);
        assert_eq!(v.resolve("N", "x.md"), Some("p/N.md"));
    }

    #[test]
    fn relative_paths_and_the_source_folder() {
        let v = vault(&["a/sub/Note.md", "z/sub/Note.md", "up.md", "a/Self.md"]);
        assert_eq!(v.resolve("sub/Note", "a/x.md"), Some("a/sub/Note.md"));
        assert_eq!(v.resolve("../up", "a/x.md"), Some("up.md"));
        assert_eq!(v.resolve("./sub/Note.md", "z/x.md"), Some("z/sub/Note.md"));
        // `./` is that path only, never a search by name; `..` out of the vault is nothing.
        assert_eq!(v.resolve("./Note", "a/x.md"), None);
        assert_eq!(v.resolve("../../up", "a/x.md"), None);
        assert_eq!(v.resolve("", "a/Self.md"), Some("a/Self.md"));
        assert_eq!(v.resolve("/up", "a/x.md"), Some("up.md"));
    }

    #[test]
    fn attachments_and_other_extensions() {
        let v = vault(&["img/Pic.png", "Board.canvas", "v1.2.md", "doc.pdf.md"]);
        assert_eq!(v.resolve("pic.png", "n.md"), Some("img/Pic.png"));
        assert_eq!(v.resolve("Board.canvas", "n.md"), Some("Board.canvas"));
        assert_eq!(v.resolve("Board", "n.md"), None);
        assert_eq!(v.resolve("v1.2", "n.md"), Some("v1.2.md"));
        assert_eq!(v.resolve("doc.pdf", "n.md"), Some("doc.pdf.md"));
        assert_eq!(v.resolve("missing.png", "n.md"), None);
    }

    #[test]
    fn keys_and_case() {
        assert_eq!(key_of("A/Deploy Checklist.md"), "deploy checklist");
        assert_eq!(key_of("Pic.PNG"), "pic.png");
        assert_eq!(key_of(".md"), ".md");
        for (target, key) in [
            ("A/Deploy Checklist.MD", "deploy checklist"),
            ("Pic.PNG", "pic.png"),
            (".md", ".md"),
            ("x.md", "x"),
            ("Straße", "straße"),
            ("ÜBER.md", "über"),
        ] {
            assert!(has_key(target, key), "{target}");
            assert_eq!(has_key(target, key), key_of(target) == key);
        }
        assert!(!has_key("x.md", "x.md") && !has_key("a/b", "a/b") && !has_key("xmd", "x"));
        let v = vault(&["Über/Straße.md"]);
        assert_eq!(v.resolve("über/straße", "x.md"), Some("Über/Straße.md"));
        assert_eq!(v.resolve("STRASSE", "x.md"), None);
    }
}
