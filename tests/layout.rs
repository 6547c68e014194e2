//! The design of `src/` as tests: the layers import only downwards, no two modules import each
//! other (directly or round a circle), no module reaches back up into the facade above it, and
//! files and functions stay short enough to read. A change that breaks the layering fails here
//! with the file and the import that did it, instead of being found in review.
//!
//! The check reads the source, not the compiler's view: `use` trees and `crate::`/`super::`/
//! `self::` paths in code (comments and strings are blanked first), resolved to the deepest
//! module they name. Test-only code (`#[cfg(test)]` modules and the files they load) is left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The crate's top-level modules by layer; each may import its own layer (see the same-layer
/// rules below) and the ones under it. A new top-level module must be placed here.
const LAYERS: &[(&str, u8)] = &[
    ("core", 0),
    ("text", 0),
    ("paths", 0),
    ("heap", 0),
    ("fsread", 0),
    ("fileid", 0),
    ("local", 1),
    ("omnisearch", 1),
    ("", 2), // lib.rs: the public API
    ("dispatch", 2),
    ("status", 2),
    ("pdf_child", 2),
    ("read", 2),
    ("vaults", 2),
    ("cli", 3),
    ("mcp", 3),
    ("serve", 3),
];

/// Same-layer imports that are refused: the engines don't know each other, and the servers
/// neither import the command line nor each other (`cli` starts them: it owns the command line).
const FORBIDDEN: &[(&str, &str)] = &[
    ("local", "omnisearch"),
    ("omnisearch", "local"),
    ("mcp", "cli"),
    ("mcp", "serve"),
    ("serve", "cli"),
    ("serve", "mcp"),
];

/// The engines' folders are facades over their parts: a part never reaches back up into the
/// `mod.rs` above it (what parts share lives in a part of its own).
const ENGINES: &[&str] = &["local", "omnisearch"];

const MAX_FILE_LINES: usize = 500;
const MAX_FN_LINES: usize = 120;

type Module = Vec<String>;

struct SourceFile {
    module: Module,
    rel: String,
    /// The code with comments, strings and test-only blocks blanked (lines kept).
    code: String,
    /// Lines of the file, test-only blocks aside.
    lines: usize,
}

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn module_of(rel: &Path) -> Module {
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap_or_default();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" {
        parts.push(stem.to_string());
    }
    parts
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Every library source file but `main.rs` (the binary) and test-only files.
fn sources() -> Vec<SourceFile> {
    let root = src_dir();
    let mut paths = Vec::new();
    walk(&root, &mut paths);
    let mut files: Vec<SourceFile> = paths
        .iter()
        .filter(|p| !p.ends_with("main.rs"))
        .map(|p| {
            let rel = p.strip_prefix(&root).unwrap();
            let text = std::fs::read_to_string(p).unwrap();
            let (code, test_lines) = without_tests(&blank(&text));
            SourceFile {
                module: module_of(rel),
                rel: rel.to_string_lossy().replace('\\', "/"),
                code,
                lines: text.lines().count() - test_lines,
            }
        })
        .collect();
    // Modules declared `#[cfg(test)] mod x;` are test code, and so is all below them.
    let mut test_only: Vec<Module> = Vec::new();
    for f in &files {
        for name in cfg_test_mods(&f.code) {
            let mut m = f.module.clone();
            m.push(name);
            test_only.push(m);
        }
    }
    files.retain(|f| !test_only.iter().any(|t| f.module.starts_with(t)));
    files
}

/// Replaces comments, string and char literals by spaces, keeping every newline.
fn blank(src: &str) -> String {
    let b: Vec<char> = src.chars().collect();
    let mut out: Vec<char> = b.clone();
    let mut i = 0;
    let hide = |out: &mut Vec<char>, from: usize, to: usize| {
        for c in out.iter_mut().take(to.min(b.len())).skip(from) {
            if *c != '\n' {
                *c = ' ';
            }
        }
    };
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            let end = (i..b.len()).find(|&j| b[j] == '\n').unwrap_or(b.len());
            hide(&mut out, i, end);
            i = end;
        } else if c == '/' && next == Some('*') {
            let (mut depth, mut j) = (1, i + 2);
            while j < b.len() && depth > 0 {
                if b[j] == '/' && b.get(j + 1) == Some(&'*') {
                    depth += 1;
                    j += 1;
                } else if b[j] == '*' && b.get(j + 1) == Some(&'/') {
                    depth -= 1;
                    j += 1;
                }
                j += 1;
            }
            hide(&mut out, i, j);
            i = j;
        } else if c == 'r' && (next == Some('"') || next == Some('#')) && !ident_before(&b, i) {
            let hashes = b[i + 1..].iter().take_while(|&&h| h == '#').count();
            if b.get(i + 1 + hashes) != Some(&'"') {
                i += 1;
                continue;
            }
            let mut j = i + 2 + hashes;
            while j < b.len() {
                if b[j] == '"'
                    && b[j + 1..]
                        .iter()
                        .take(hashes)
                        .filter(|&&h| h == '#')
                        .count()
                        == hashes
                {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            hide(&mut out, i, j);
            i = j;
        } else if c == '"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != '"' {
                j += if b[j] == '\\' { 2 } else { 1 };
            }
            hide(&mut out, i, j + 1);
            i = j + 1;
        } else if c == '\'' {
            // A char literal ('x', '\n', '\u{1F600}'), else a lifetime or label.
            let end = if next == Some('\\') {
                (i + 3..b.len()).find(|&j| b[j] == '\'')
            } else if b.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match end {
                Some(e) => {
                    hide(&mut out, i, e + 1);
                    i = e + 1;
                }
                None => i += 1,
            }
        } else {
            i += 1;
        }
    }
    out.into_iter().collect()
}

fn ident_before(b: &[char], i: usize) -> bool {
    i > 0 && (b[i - 1].is_alphanumeric() || b[i - 1] == '_')
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Position of the brace closing the one at `open`.
fn matching_brace(code: &[char], open: usize) -> usize {
    let mut depth = 0usize;
    for (j, &c) in code.iter().enumerate().skip(open) {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return j;
                }
            }
            _ => {}
        }
    }
    code.len()
}

/// Blanks every `#[cfg(test)]` item with a body (`mod tests { … }`, a test-only fn); also says
/// how many lines those items took.
fn without_tests(code: &str) -> (String, usize) {
    let mut chars: Vec<char> = code.chars().collect();
    let mut lines = 0;
    let pat: Vec<char> = "#[cfg(test)]".chars().collect();
    let mut i = 0;
    while i + pat.len() <= chars.len() {
        if chars[i..i + pat.len()] != pat[..] {
            i += 1;
            continue;
        }
        let semi = (i..chars.len()).find(|&j| chars[j] == ';');
        let open = (i..chars.len()).find(|&j| chars[j] == '{');
        match open {
            Some(o) if semi.is_none_or(|s| o < s) => {
                let close = matching_brace(&chars, o);
                lines += chars[i..=close.min(chars.len() - 1)]
                    .iter()
                    .filter(|&&c| c == '\n')
                    .count()
                    + 1;
                for c in chars.iter_mut().take(close + 1).skip(i) {
                    if *c != '\n' {
                        *c = ' ';
                    }
                }
                i = close + 1;
            }
            _ => i += pat.len(),
        }
    }
    (chars.into_iter().collect(), lines)
}

/// Names of the modules a file declares `#[cfg(test)] mod name;`.
fn cfg_test_mods(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        rest = &rest[at + "#[cfg(test)]".len()..];
        let decl = rest.trim_start();
        let decl = decl.strip_prefix("pub(crate) ").unwrap_or(decl);
        if let Some(d) = decl.strip_prefix("mod ") {
            let name: String = d.chars().take_while(|&c| is_ident(c)).collect();
            if d[name.len()..].trim_start().starts_with(';') {
                out.push(name);
            }
        }
    }
    out
}

/// The paths a `use` body names, its trees expanded (`a::{b, c::d}` → `a::b`, `a::c::d`).
fn expand_use(body: &str) -> Vec<Vec<String>> {
    let mut toks: Vec<String> = Vec::new();
    let chars: Vec<char> = body.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if is_ident(c) {
            let start = i;
            while i < chars.len() && is_ident(chars[i]) {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            if word == "as" {
                // skip the alias
                while i < chars.len() && !is_ident(chars[i]) {
                    i += 1;
                }
                while i < chars.len() && is_ident(chars[i]) {
                    i += 1;
                }
                continue;
            }
            toks.push(word);
        } else if c == '{' || c == '}' || c == ',' || c == '*' {
            toks.push(c.to_string());
            i += 1;
        } else {
            i += 1; // `::` and blanks: segments are separated by position
        }
    }
    let mut out = Vec::new();
    let mut pos = 0;
    tree(&toks, &mut pos, &[], &mut out);
    out
}

fn tree(toks: &[String], pos: &mut usize, prefix: &[String], out: &mut Vec<Vec<String>>) {
    let mut path = prefix.to_vec();
    while *pos < toks.len() {
        let t = &toks[*pos];
        match t.as_str() {
            "{" => {
                *pos += 1;
                while *pos < toks.len() && toks[*pos] != "}" {
                    tree(toks, pos, &path, out);
                    if *pos < toks.len() && toks[*pos] == "," {
                        *pos += 1;
                    }
                }
                *pos += 1;
                return;
            }
            "}" | "," => break,
            "*" => {
                *pos += 1;
            }
            "self" if !path.is_empty() => {
                *pos += 1;
            }
            _ => {
                path.push(t.clone());
                *pos += 1;
            }
        }
    }
    out.push(path);
}

/// Every path a file names: its `use` trees, and `crate::`/`super::`/`self::` paths in code.
fn paths_in(code: &str) -> Vec<Vec<String>> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if is_ident(chars[i]) && (i == 0 || !(is_ident(chars[i - 1]) || chars[i - 1] == '$')) {
            let start = i;
            while i < chars.len() && is_ident(chars[i]) {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            if word == "use" && chars.get(i).is_some_and(|c| c.is_whitespace()) {
                let end = (i..chars.len())
                    .find(|&j| chars[j] == ';')
                    .unwrap_or(chars.len());
                let body: String = chars[i..end].iter().collect();
                out.extend(expand_use(&body));
                i = end;
            } else if matches!(word.as_str(), "crate" | "super" | "self")
                && chars.get(i) == Some(&':')
                && !in_visibility(&chars, start)
            {
                let mut path = vec![word];
                while chars.get(i) == Some(&':') && chars.get(i + 1) == Some(&':') {
                    i += 2;
                    let s = i;
                    while i < chars.len() && is_ident(chars[i]) {
                        i += 1;
                    }
                    if s == i {
                        break; // `crate::{…}` outside a `use`: the prefix is what counts
                    }
                    path.push(chars[s..i].iter().collect());
                }
                out.push(path);
            }
        } else {
            i += 1;
        }
    }
    out
}

/// Is the path at `start` the one of `pub(in crate::x)`, a visibility and no import?
fn in_visibility(chars: &[char], start: usize) -> bool {
    let before: String = chars[..start].iter().rev().take(12).collect();
    let before: String = before.chars().filter(|c| !c.is_whitespace()).collect();
    before.starts_with("ni(")
}

struct Crate {
    files: Vec<SourceFile>,
    modules: BTreeSet<Module>,
    /// Names lib.rs re-exports, and the module each comes from.
    reexports: BTreeMap<String, Module>,
}

impl Crate {
    fn read() -> Crate {
        let files = sources();
        let mut modules: BTreeSet<Module> = files.iter().map(|f| f.module.clone()).collect();
        for f in &files {
            for n in 1..f.module.len() {
                modules.insert(f.module[..n].to_vec());
            }
        }
        let mut c = Crate {
            files,
            modules,
            reexports: BTreeMap::new(),
        };
        let lib = c
            .files
            .iter()
            .find(|f| f.module.is_empty())
            .map(|f| f.code.clone());
        for p in paths_in(&lib.unwrap_or_default()) {
            if p.first().is_some_and(|s| s == "crate") {
                let target = c.resolve(&[], &p);
                if let (Some(name), Some(t)) = (p.last(), target) {
                    c.reexports.insert(name.clone(), t);
                }
            }
        }
        c
    }

    /// The deepest module `path` names, seen from module `from`; `None` for another crate.
    fn resolve(&self, from: &[String], path: &[String]) -> Option<Module> {
        let (mut cur, rest): (Module, &[String]) = match path.first().map(String::as_str) {
            Some("crate") => (Vec::new(), &path[1..]),
            Some("self") => (from.to_vec(), &path[1..]),
            Some("super") => {
                let ups = path.iter().take_while(|s| *s == "super").count();
                (
                    from[..from.len().saturating_sub(ups)].to_vec(),
                    &path[ups..],
                )
            }
            Some(first) => {
                let mut child = from.to_vec();
                child.push(first.to_string());
                if !self.modules.contains(&child) {
                    return None;
                }
                (from.to_vec(), path)
            }
            None => return None,
        };
        for (k, seg) in rest.iter().enumerate() {
            let mut next = cur.clone();
            next.push(seg.clone());
            if self.modules.contains(&next) {
                cur = next;
            } else {
                if cur.is_empty() && k == 0 {
                    if let Some(m) = self.reexports.get(seg) {
                        return Some(m.clone());
                    }
                }
                break;
            }
        }
        Some(cur)
    }

    /// Every import: (importing file, its module, the module it names).
    fn arrows(&self) -> Vec<(&SourceFile, Module)> {
        let mut out = Vec::new();
        for f in &self.files {
            for p in paths_in(&f.code) {
                if let Some(to) = self.resolve(&f.module, &p) {
                    if to != f.module {
                        out.push((f, to));
                    }
                }
            }
        }
        out
    }
}

fn top(m: &[String]) -> &str {
    m.first().map_or("", String::as_str)
}

fn layer(name: &str) -> Option<u8> {
    LAYERS.iter().find(|(n, _)| *n == name).map(|&(_, l)| l)
}

#[test]
fn layers_import_only_downwards() {
    let krate = Crate::read();
    let mut bad = BTreeSet::new();
    for f in &krate.files {
        if layer(top(&f.module)).is_none() {
            bad.insert(format!(
                "{}: module `{}` has no layer in LAYERS",
                f.rel,
                top(&f.module)
            ));
        }
    }
    for (f, to) in krate.arrows() {
        let (a, b) = (top(&f.module), top(&to));
        if a == b {
            continue;
        }
        let (Some(la), Some(lb)) = (layer(a), layer(b)) else {
            continue;
        };
        if lb > la || FORBIDDEN.contains(&(a, b)) {
            bad.insert(format!("{} imports {}", f.rel, to.join("::")));
        }
    }
    assert!(
        bad.is_empty(),
        "imports against the layers:\n{}",
        join(&bad)
    );
}

#[test]
fn no_module_imports_in_a_circle_nor_back_up_into_a_facade() {
    let krate = Crate::read();
    let arrows = krate.arrows();
    let mut bad = BTreeSet::new();
    for parent in &krate.modules {
        // Arrows between the children of `parent`, from code below it.
        let depth = parent.len();
        let mut edges: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
        for (f, to) in &arrows {
            if !f.module.starts_with(parent) || !to.starts_with(parent) || f.module.len() <= depth {
                continue;
            }
            if to.len() == depth {
                // Back up into the facade of an engine's folder from below it.
                if ENGINES.contains(&top(parent)) {
                    bad.insert(format!(
                        "{} reaches back up into {}",
                        f.rel,
                        parent.join("::")
                    ));
                }
                continue;
            }
            let (a, b) = (&f.module[depth], &to[depth]);
            if a != b {
                edges
                    .entry(a.clone())
                    .or_default()
                    .entry(b.clone())
                    .or_insert_with(|| f.rel.clone());
            }
        }
        if let Some(cycle) = find_cycle(&edges) {
            let steps: Vec<String> = cycle
                .windows(2)
                .map(|w| format!("{} → {} ({})", w[0], w[1], edges[&w[0]][&w[1]]))
                .collect();
            bad.insert(format!(
                "a circle in {}: {}",
                display(parent),
                steps.join(", ")
            ));
        }
    }
    assert!(bad.is_empty(), "{}", join(&bad));
}

fn display(m: &[String]) -> String {
    if m.is_empty() {
        "the crate".into()
    } else {
        m.join("::")
    }
}

fn join(set: &BTreeSet<String>) -> String {
    set.iter().cloned().collect::<Vec<_>>().join("\n")
}

fn find_cycle(edges: &BTreeMap<String, BTreeMap<String, String>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        edges: &BTreeMap<String, BTreeMap<String, String>>,
        stack: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = stack.iter().position(|s| s == n) {
            let mut c = stack[at..].to_vec();
            c.push(n.to_string());
            return Some(c);
        }
        if done.contains(n) {
            return None;
        }
        stack.push(n.to_string());
        for next in edges.get(n).into_iter().flat_map(|m| m.keys()) {
            if let Some(c) = visit(next, edges, stack, done) {
                return Some(c);
            }
        }
        stack.pop();
        done.insert(n.to_string());
        None
    }
    let mut done = BTreeSet::new();
    for n in edges.keys() {
        if let Some(c) = visit(n, edges, &mut Vec::new(), &mut done) {
            return Some(c);
        }
    }
    None
}

#[test]
fn files_and_functions_stay_short() {
    let mut bad = Vec::new();
    for f in sources() {
        if f.lines > MAX_FILE_LINES {
            bad.push(format!("{}: {} lines (tests aside)", f.rel, f.lines));
        }
        for (name, line, len) in functions(&f.code) {
            if len > MAX_FN_LINES {
                bad.push(format!("{}:{line}: fn {name} is {len} lines", f.rel));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "over {MAX_FILE_LINES} lines a file or {MAX_FN_LINES} a function:\n{}",
        bad.join("\n")
    );
}

/// Lint names whose `allow` is refused anywhere in `src/`, tests included, with what to do
/// instead: a function that takes this many arguments is passed one value that carries them.
const REFUSED_ALLOWS: &[(&str, &str)] = &[(
    "too_many_arguments",
    "pass a value that carries what the calls share (as the ranking's context does)",
)];

#[test]
fn no_lint_is_allowed_that_the_design_refuses() {
    let root = src_dir();
    let mut paths = Vec::new();
    walk(&root, &mut paths);
    let mut bad = Vec::new();
    for p in &paths {
        let code = blank(&std::fs::read_to_string(p).unwrap());
        let rel = p
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        for (line, lint) in refused_allows(&code) {
            bad.push(format!("src/{rel}:{line}: allows {lint}"));
        }
    }
    let advice: Vec<String> = REFUSED_ALLOWS
        .iter()
        .map(|(lint, instead)| format!("{lint}: {instead}"))
        .collect();
    assert!(
        bad.is_empty(),
        "{}\n({})",
        bad.join("\n"),
        advice.join("; ")
    );
}

/// The top-level modules that may write to stdout or stderr. Library code returns what it has
/// to say (warnings travel in the response) and a front-end prints it. The one other writer is
/// `pdf_child`: the PDF extractor's child process (`__extract-pdf`), whose stdout is the pipe
/// its parent reads the text from and whose stderr only a person running it by hand sees.
const PRINTERS: &[&str] = &["cli", "mcp", "serve", "pdf_child"];

/// What writes to the terminal, as `code` (comments and strings blanked) names it.
const PRINTING: &[&str] = &[
    "print!",
    "println!",
    "eprint!",
    "eprintln!",
    "dbg!",
    "stdout()",
    "stderr()",
];

/// The (line, what) of each write to the terminal in `code`.
fn prints(code: &str) -> Vec<(usize, &'static str)> {
    let mut out = Vec::new();
    for (n, line) in code.lines().enumerate() {
        for what in PRINTING {
            let found = line
                .match_indices(what)
                .any(|(at, _)| !line[..at].chars().next_back().is_some_and(is_ident));
            if found {
                out.push((n + 1, *what));
            }
        }
    }
    out
}

#[test]
fn only_front_ends_print() {
    let mut bad = Vec::new();
    for f in sources() {
        if PRINTERS.contains(&top(&f.module)) {
            continue;
        }
        for (line, what) in prints(&f.code) {
            bad.push(format!("src/{}:{line}: {what}", f.rel));
        }
    }
    assert!(
        bad.is_empty(),
        "library code writes to the terminal (return it in the response; a front-end prints):\n{}",
        bad.join("\n")
    );
    let code = blank("fn f() {\n    eprintln!(\"x\"); // println!\n    let o = std::io::stdout();\n    my_print!(1);\n}\n");
    assert_eq!(prints(&code), [(2, "eprintln!"), (3, "stdout()")]);
}

/// The (line, lint) of each refused lint named in `code` (comments and strings blanked): in
/// an `allow`, a `cfg_attr`'s `allow` or an inner `#![allow]` alike.
fn refused_allows(code: &str) -> Vec<(usize, &'static str)> {
    let mut out = Vec::new();
    for (n, line) in code.lines().enumerate() {
        for (lint, _) in REFUSED_ALLOWS {
            let named = line.match_indices(lint).any(|(at, _)| {
                let before = line[..at].chars().next_back();
                let after = line[at + lint.len()..].chars().next();
                !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
            });
            if named {
                out.push((n + 1, *lint));
            }
        }
    }
    out
}

/// Each function with a body: (name, first line, lines from `fn` to its closing brace).
fn functions(code: &str) -> Vec<(String, usize, usize)> {
    let chars: Vec<char> = code.chars().collect();
    let line_at = |pos: usize| chars[..pos].iter().filter(|&&c| c == '\n').count() + 1;
    let mut out = Vec::new();
    let mut i = 0;
    while i + 3 < chars.len() {
        let is_fn = chars[i] == 'f'
            && chars[i + 1] == 'n'
            && chars[i + 2].is_whitespace()
            && (i == 0 || !is_ident(chars[i - 1]));
        if !is_fn {
            i += 1;
            continue;
        }
        let name: String = chars[i + 3..]
            .iter()
            .skip_while(|c| c.is_whitespace())
            .take_while(|&&c| is_ident(c))
            .collect();
        // The body starts at the first `{` outside the parameter list, unless a `;` (a
        // declaration without a body) comes first.
        let mut depth = 0i32;
        let mut open = None;
        for (j, &c) in chars.iter().enumerate().skip(i) {
            match c {
                '(' | '[' => depth += 1,
                ')' | ']' => depth -= 1,
                ';' if depth == 0 => break,
                '{' if depth == 0 => {
                    open = Some(j);
                    break;
                }
                _ => {}
            }
        }
        if let Some(o) = open {
            let close = matching_brace(&chars, o);
            let first = line_at(i);
            out.push((name, first, line_at(close.min(chars.len() - 1)) - first + 1));
        }
        i += 3;
    }
    out
}

#[test]
fn the_checker_sees_circles_trees_and_literals() {
    let code =
        blank("use crate::a::{b, c::{self, d as e}};\nlet s = \"crate::x::y\"; // super::z\n");
    assert_eq!(
        paths_in(&code),
        vec![
            vec!["crate", "a", "b"],
            vec!["crate", "a", "c"],
            vec!["crate", "a", "c", "d"]
        ]
    );
    let fns = functions("fn f(x: [u8; 2]) -> u8 {\n    if x { 1 } else { 2 }\n}\nfn g();\n");
    assert_eq!(fns, vec![("f".to_string(), 1, 3)]);
    let mut edges: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    edges
        .entry("a".into())
        .or_default()
        .insert("b".into(), String::new());
    assert!(find_cycle(&edges).is_none());
    edges
        .entry("b".into())
        .or_default()
        .insert("a".into(), String::new());
    assert_eq!(
        find_cycle(&edges),
        Some(vec!["a".into(), "b".into(), "a".into()])
    );
    let (code, lines) = without_tests("x\n#[cfg(test)]\nmod t {\n    y\n}\n");
    assert_eq!((code.trim(), lines), ("x", 4));
    let allows = blank(
        "// too_many_arguments\n#[allow(clippy::too_many_arguments)]\nfn f() {}\n\
         #[cfg_attr(x, allow(clippy::too_many_arguments))]\nlet s = \"too_many_arguments\";\n\
         fn not_too_many_arguments_here() {}\n",
    );
    assert_eq!(
        refused_allows(&allows),
        vec![(2, "too_many_arguments"), (4, "too_many_arguments")]
    );
}

/// A `match` over the file kind names every kind: a wildcard arm would take a kind added later
/// for one of the old ones without a word from the compiler (`core::kind` says why).
#[test]
fn matches_over_the_file_kind_name_every_kind() {
    let mut bad = Vec::new();
    for f in sources() {
        for line in wildcard_kind_matches(&f.code) {
            bad.push(format!("{}:{line}", f.rel));
        }
    }
    assert!(
        bad.is_empty(),
        "a wildcard arm (`_ =>`) in a match over FileKind; name each kind:\n{}",
        bad.join("\n")
    );
}

/// The lines of the `match`es in `code` whose own arms name a `FileKind::` and hold a `_` arm
/// (the arms' nested blocks are other matches' business).
fn wildcard_kind_matches(code: &str) -> Vec<usize> {
    let chars: Vec<char> = code.chars().collect();
    let word: Vec<char> = "match".chars().collect();
    let mut out = Vec::new();
    for i in 0..chars.len().saturating_sub(word.len()) {
        let at_word = chars[i..i + word.len()] == word[..]
            && !ident_before(&chars, i)
            && chars[i + word.len()].is_whitespace();
        let Some(open) = (i..chars.len())
            .find(|&j| chars[j] == '{')
            .filter(|_| at_word)
        else {
            continue;
        };
        let close = matching_brace(&chars, open);
        let mut arms = Vec::new();
        let mut depth = 0usize;
        for &c in &chars[open + 1..close.min(chars.len())] {
            match c {
                '{' => depth += 1,
                '}' => depth = depth.saturating_sub(1),
                _ if depth == 0 => arms.push(c),
                _ => {}
            }
        }
        let names_kind = arms.iter().collect::<String>().contains("FileKind::");
        let wildcard = (0..arms.len()).any(|k| {
            // `_` alone, or inside a pattern: `Some(_)`.
            let rest: String = arms[k + 1..].iter().collect();
            let rest = rest.trim_start().trim_start_matches([')', ' ']);
            arms[k] == '_'
                && !ident_before(&arms, k)
                && (rest.starts_with("=>") || rest.starts_with("if "))
        });
        if names_kind && wildcard {
            out.push(chars[..i].iter().filter(|&&c| c == '\n').count() + 1);
        }
    }
    out
}

#[test]
fn the_kind_rule_sees_wildcards_and_only_them() {
    assert_eq!(
        wildcard_kind_matches(
            "fn f() {\n    match k {\n        FileKind::Pdf => 1,\n        _ => 2,\n    }\n}"
        ),
        [2]
    );
    assert_eq!(
        wildcard_kind_matches("match t { Some(t) if k == FileKind::Note => 1, _ => 2 }"),
        [1]
    );
    let exhaustive = "match k { FileKind::Pdf => |_| 1, FileKind::Note | FileKind::Canvas => \
                      { match x { _ => 0 } } }";
    assert!(wildcard_kind_matches(exhaustive).is_empty());
    assert_eq!(
        wildcard_kind_matches(
            "match k {\n Some(FileKind::Pdf) => p,\n Some(_) => true,\n None => false }"
        ),
        [1]
    );
    assert!(wildcard_kind_matches("match n { 1 => 0, _ => 1 }").is_empty());
}
