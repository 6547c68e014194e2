//! Which file a link names, as Obsidian decides it (`metadataCache.getFirstLinkpathDest`),
//! over the set of paths the vault holds now.
//!
//! The rule, in order (observed on Obsidian 1.13.7 through `getFirstLinkpathDest` and
//! `resolvedLinks`, reported in github.com/pvliesdonk/markdown-vault-mcp pull request #1380 and
//! issue #1383; the Obsidian Help vault's "Internal links" page):
//!
//! 1. An empty target (`[[#Heading]]`) is the linking note itself. A target's surrounding
//!    whitespace is no part of it (JavaScript's `trim`: Unicode white space and U+FEFF).
//! 2. A target starting `./` or `../` is a path relative to the linking note's folder, and
//!    only that path (no search by name); a `..` at the vault's root stays at the root, as a
//!    path does in a URL (`../../Note` from `a/x.md` is `Note.md`).
//! 3. The target as a vault path (`.md` optional, any case) wins, even over a note of the same
//!    name beside the linking note: `[[Note]]` is `Note.md` at the root when there is one.
//!    Where only case tells two files apart (`Note.md`, `note.md` on Linux) the one spelt as
//!    the target is wins, else the first in byte order.
//! 4. Then the target relative to the linking note's folder (`[[sub/Note]]` from `a/x.md` is
//!    `a/sub/Note.md`).
//! 5. Then every file whose path ends with the target, compared without case (a bare name is
//!    any file of that name, `[[b/Note]]` any `…/b/Note.md`): those under the linking note's
//!    folder (in it or any folder below it) first, and of those the shortest path, else the
//!    shortest path of all (`a/b/Note.md` before `zzzz/Note.md`). Lengths are JavaScript's,
//!    in UTF-16 units (`é` is one, `😀` two), not bytes; ties in byte order.
//!
//! Each step looks a target up with `.md` added first, then as written — but a name with a
//! dot (`[[v1.2]]`, `[[doc.pdf]]`) as written first: a file so named wins over `v1.2.md`.
//!
//! A target is compared as the spelling of a vault path (`crate::paths::namebytes`): a
//! private-use character it writes is itself, never the escape of a byte of a name that is
//! not UTF-8 (no link names such a file).
//!
//! A Markdown link's destination is looked up the same way once percent-decoded (Obsidian
//! finds `[y](My%20Note.md)` written at the root in `Sub/My Note.md`). A target whose name has
//! another extension (`pic.png`, `Board.canvas`) names that file exactly, an attachment
//! included: it resolves when that file exists.

use std::cell::RefCell;
use std::collections::HashMap;

use crate::paths::namebytes::spell_str;

/// The paths of a vault's files, looked up as links look them up.
///
/// Each path is lowercased once, when added. A link's search by name (step 5 of the rule) is
/// answered from a table built once per target and kept ([`Named`]): every link to a name
/// then costs a lookup of its folder, not a walk of every path of that name (a vault of
/// 10,000 `Note.md` files and 20,000 `[[Note]]` links took 25 s a search that way).
#[derive(Debug, Default)]
pub(crate) struct Paths {
    paths: Vec<String>,
    /// Each path lowercased, by index in `paths`.
    lower: Vec<String>,
    /// Lowercased path → indices in `paths`: more than one where only case tells files
    /// apart (`Note.md` and `note.md`, two notes on Linux).
    by_lower: HashMap<String, Vec<usize>>,
    /// [`key_of`] the file name → indices in `paths`.
    by_key: HashMap<String, Vec<usize>>,
    /// Step 5's answers by target form (as written, with or without `.md`), kept until a
    /// path is added.
    named: RefCell<HashMap<String, Named>>,
    /// Paths compared by step 5's walks, for the test that holds them to one walk per target.
    #[cfg(test)]
    walked: std::cell::Cell<usize>,
}

/// The files a target form names by the end of their paths, ready for any linking folder:
/// the best of all, and the best under each folder asked about so far.
#[derive(Debug)]
struct Named {
    /// The shortest path ([`rank`]).
    best: Option<usize>,
    /// The matches in byte order of their paths: those under a folder are a run.
    sorted: Vec<usize>,
    /// Folder → the best match under it, once asked.
    under: HashMap<String, Option<usize>>,
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

/// The [`key_of`] a link's target names files by: the key of its spelling as a vault path
/// (see `crate::paths::namebytes`), so a private-use character a note writes is that
/// character, never the escape of a byte (`[[\u{ef80}]]` names a file literally so named,
/// never one whose name is the byte 0x80).
pub(crate) fn target_key(target: &str) -> String {
    key_of(&spell_str(target))
}

/// `target_key(target) == key`, for a `key` [`key_of`] gave, without allocating when the
/// file name is ASCII (the test a note's every link takes when its backlinks are looked for).
pub(crate) fn has_key(target: &str, key: &str) -> bool {
    let name = target.rsplit('/').next().unwrap_or(target);
    if !name.is_ascii() {
        return target_key(target) == key;
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
        let spellings = self.by_lower.entry(lower.clone()).or_default();
        if spellings.iter().any(|&i| self.paths[i] == path) {
            return;
        }
        let i = self.paths.len();
        spellings.push(i);
        self.paths.push(path.to_string());
        self.lower.push(lower);
        self.by_key.entry(key_of(path)).or_default().push(i);
        // A new path may be a better answer for any target.
        self.named.get_mut().clear();
    }

    /// The path of `path` as the vault spells it, compared without case: the one spelt
    /// exactly so, else the first in byte order of those differing only in case.
    pub(crate) fn find(&self, path: &str) -> Option<&str> {
        self.spellings(path).into_iter().next()
    }

    /// The paths equal to `path` without case: only the one spelt exactly so when there is
    /// one, else all of them in byte order (several where only case tells files apart).
    pub(crate) fn spellings(&self, path: &str) -> Vec<&str> {
        let Some(found) = self.by_lower.get(&path.to_lowercase()) else {
            return Vec::new();
        };
        if let Some(&i) = found.iter().find(|&&i| self.paths[i] == path) {
            return vec![self.paths[i].as_str()];
        }
        let mut all: Vec<&str> = found.iter().map(|&i| self.paths[i].as_str()).collect();
        all.sort_unstable();
        all
    }

    /// The paths whose file name has this [`key_of`], each with its lowercased form.
    pub(crate) fn named(&self, key: &str) -> impl Iterator<Item = (&str, &str)> {
        self.by_key
            .get(key)
            .into_iter()
            .flatten()
            .map(|&i| (self.paths[i].as_str(), self.lower[i].as_str()))
    }

    /// The file `target` names when written in the note at `source` (see the module's rule);
    /// `None`: unresolved.
    pub(crate) fn resolve<'a>(&'a self, target: &str, source: &'a str) -> Option<&'a str> {
        // Paths are spellings: the target is compared as one (see [`target_key`]).
        let target = spell_str(js_trim(target));
        let target = target.as_ref();
        if target.is_empty() {
            return Some(source);
        }
        let dir = folder(source);
        if target.starts_with("./") || target.starts_with("../") {
            let joined = normalize(&join(dir, target));
            return forms(&joined).find_map(|f| self.find(&f));
        }
        let target = normalize(target.trim_start_matches('/'));
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
        let found = forms(&target).find_map(|form| self.by_name(&form, dir));
        found.map(|i| self.paths[i].as_str())
    }

    /// Step 5 of the rule for one form of a target, written in a note of the folder `dir`:
    /// the best path ending with it under `dir`, else the best of all.
    fn by_name(&self, form: &str, dir: &str) -> Option<usize> {
        let mut cache = self.named.borrow_mut();
        if !cache.contains_key(form) {
            let named = self.named_by(form);
            cache.insert(form.to_string(), named);
        }
        let named = cache.get_mut(form)?;
        if dir.is_empty() || named.sorted.len() < 2 {
            return named.best;
        }
        if let Some(&found) = named.under.get(dir) {
            return found.or(named.best);
        }
        let prefix = format!("{dir}/");
        let at = named
            .sorted
            .partition_point(|&i| self.paths[i].as_str() < prefix.as_str());
        let found = named.sorted[at..]
            .iter()
            .copied()
            .take_while(|&i| self.paths[i].starts_with(&prefix))
            .min_by_key(|&i| rank(&self.paths[i]));
        named.under.insert(dir.to_string(), found);
        found.or(named.best)
    }

    /// The paths ending with `form` (without case), ordered for [`Paths::by_name`]: one walk
    /// of the paths of its name, over their lowercased forms.
    fn named_by(&self, form: &str) -> Named {
        let lower = form.to_lowercase();
        let tail = format!("/{lower}");
        let mut found: Vec<usize> = self
            .by_key
            .get(&key_of(form))
            .into_iter()
            .flatten()
            .copied()
            .filter(|&i| self.lower[i] == lower || self.lower[i].ends_with(&tail))
            .collect();
        #[cfg(test)]
        self.walked
            .set(self.walked.get() + self.by_key.get(&key_of(form)).map_or(0, Vec::len));
        let best = found.iter().copied().min_by_key(|&i| rank(&self.paths[i]));
        found.sort_unstable_by_key(|&i| self.paths[i].as_str());
        Named {
            best,
            sorted: found,
            under: HashMap::new(),
        }
    }
}

/// How step 5 orders paths: by length as JavaScript measures it (UTF-16 units), then bytes.
fn rank(path: &str) -> (usize, &str) {
    let units = if path.is_ascii() {
        path.len()
    } else {
        path.encode_utf16().count()
    };
    (units, path)
}

/// `s` without the white space JavaScript's `String.prototype.trim` removes (Unicode's
/// `White_Space`, which Rust's `trim` removes too, and U+FEFF, which it keeps).
fn js_trim(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}')
}

/// The folder of a vault path (`""` at the root).
fn folder(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// The paths a target may name: with `.md` first unless it already ends so, then as written
/// — as written first when its name holds a dot (`v1.2`, `doc.pdf`).
fn forms(target: &str) -> impl Iterator<Item = String> + '_ {
    let has_md = target.to_lowercase().ends_with(".md");
    let with_md = (!has_md).then(|| format!("{target}.md"));
    let name = target.rsplit('/').next().unwrap_or(target);
    let dotted = name.contains('.');
    let as_written = std::iter::once(target.to_string());
    let (first, last) = if dotted {
        (None, with_md)
    } else {
        (with_md, None)
    };
    first.into_iter().chain(as_written).chain(last)
}

fn join(dir: &str, rel: &str) -> String {
    if dir.is_empty() {
        rel.to_string()
    } else {
        format!("{dir}/{rel}")
    }
}

/// `a/./b/../c` → `a/c`; a `..` at the root stays there (`../x` → `x`).
fn normalize(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    parts.join("/")
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
    fn under_the_source_folder_then_shortest_in_utf16_units() {
        let v = vault(&["a/b/c/Note.md", "z/Note.md", "a/y/Note.md", "ab/Note.md"]);
        // Sub-folders of the linking note's folder count, the shortest of them first.
        assert_eq!(v.resolve("Note", "a/x.md"), Some("a/y/Note.md"));
        assert_eq!(v.resolve("Note", "a/b/x.md"), Some("a/b/c/Note.md"));
        // `a/` is no prefix of `ab/`; nothing under `q/`: the shortest of all.
        assert_eq!(v.resolve("Note", "q/x.md"), Some("z/Note.md"));
        // `é` is two bytes and one UTF-16 unit; `😀` four bytes, two units, one char.
        let v = vault(&["ab/N.md", "é/N.md"]);
        assert_eq!(v.resolve("N", "x.md"), Some("é/N.md"));
        let v = vault(&["abc/N.md", "😀😀/N.md"]);
        assert_eq!(v.resolve("N", "x.md"), Some("abc/N.md"));
        assert_eq!(v.resolve("\u{feff} N \t", "x.md"), Some("abc/N.md"));
    }

    #[test]
    fn relative_paths_and_the_source_folder() {
        let v = vault(&["a/sub/Note.md", "z/sub/Note.md", "up.md", "a/Self.md"]);
        assert_eq!(v.resolve("sub/Note", "a/x.md"), Some("a/sub/Note.md"));
        assert_eq!(v.resolve("../up", "a/x.md"), Some("up.md"));
        assert_eq!(v.resolve("./sub/Note.md", "z/x.md"), Some("z/sub/Note.md"));
        // `./` is that path only, never a search by name; `..` out of the vault is nothing.
        assert_eq!(v.resolve("./Note", "a/x.md"), None);
        // `..` past the root stays at the root.
        assert_eq!(v.resolve("../../up", "a/x.md"), Some("up.md"));
        assert_eq!(v.resolve("../../../a/Self", "a/x.md"), Some("a/Self.md"));
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
        // A name with a dot is looked up as written first.
        let v = vault(&["v1.2.md", "v1.2", "doc.pdf", "doc.pdf.md", "x.md"]);
        assert_eq!(v.resolve("v1.2", "n.md"), Some("v1.2"));
        assert_eq!(v.resolve("v1.2.md", "n.md"), Some("v1.2.md"));
        assert_eq!(v.resolve("doc.pdf", "n.md"), Some("doc.pdf"));
        assert_eq!(v.resolve("x", "n.md"), Some("x.md"));
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

    /// The rule as it reads, walking every path at step 5: what the kept tables must answer.
    fn by_rule<'a>(v: &'a Paths, target: &str, source: &str) -> Option<&'a str> {
        let dir = folder(source);
        let by_path = forms(target)
            .chain(forms(&join(dir, target)))
            .find_map(|f| v.find(&f));
        if by_path.is_some() {
            return by_path;
        }
        forms(target).find_map(|form| {
            let lower = form.to_lowercase();
            v.paths
                .iter()
                .filter(|p| {
                    let p = p.to_lowercase();
                    p == lower || p.ends_with(&format!("/{lower}"))
                })
                .min_by_key(|p| (!p.starts_with(&format!("{dir}/")), rank(p)))
                .map(String::as_str)
        })
    }

    #[test]
    fn many_files_of_one_name_are_walked_once_per_target() {
        let mut v = Paths::default();
        let n = 2_000;
        for i in 0..n {
            v.add(&format!("f{:04}/{}Note.md", i % 700, "x/".repeat(i % 3)));
        }
        v.add("hubs/a.md");
        // 20,000 links from 1,000 folders: the answers the rule gives (checked for a sample:
        // the rule's walk is the slow part), and the paths of the name walked once per form
        // of the target, not once per link.
        for i in 0..20_000 {
            let source = format!("f{:04}/s{i}.md", i % 1_000);
            for target in ["Note", "x/note.md"] {
                let got = v.resolve(target, &source);
                assert!(got.is_some());
                if i % 7 == 0 && i < 1_000 {
                    assert_eq!(got, by_rule(&v, target, &source), "{target} in {source}");
                }
            }
        }
        assert!(v.walked.get() <= 2 * n, "{} paths walked", v.walked.get());
        // A new path is seen at once.
        v.add("Note.md");
        assert_eq!(v.resolve("Note", "f0001/s.md"), Some("Note.md"));
    }

    #[test]
    fn paths_differing_only_in_case_are_two_files() {
        let v = vault(&["Note.md", "note.md", "a/Deep.md", "b/deep.md", "Note.md"]);
        assert_eq!(v.paths.len(), 4);
        assert_eq!(v.resolve("Note", "x.md"), Some("Note.md"));
        assert_eq!(v.resolve("note", "x.md"), Some("note.md"));
        assert_eq!(v.find("NOTE.md"), Some("Note.md"));
        assert_eq!(v.spellings("NOTE.md"), ["Note.md", "note.md"]);
        // By name: the linking note's folder, then byte order.
        assert_eq!(v.resolve("deep", "b/x.md"), Some("b/deep.md"));
        assert_eq!(v.resolve("deep", "x.md"), Some("a/Deep.md"));
    }
}
