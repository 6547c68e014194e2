//! The docs' examples, run: every command line the README, the user guide and the agents page
//! show is run on the demo vault (`examples/vault`, copied so its notes are fresh for
//! `--since 7d`) through the real binary, and must exit 0 with hits; where a page shows what
//! the command prints, the binary must print that. A flag a page names that the binary lacks
//! fails here (clap refuses it, exit 2).
//!
//! The convention the pages follow, so a new example is tested without touching this file:
//! - in a ```` ```sh ```` block, each line that starts with `vault-search ` is a command (a
//!   `# comment` after it and a `> file` redirection are not part of it);
//! - in a ```` ```text ```` block, a line `$ vault-search …` is a command and the lines under it,
//!   up to the next `$ ` or the block's end, are its output; a line `agent> (skill
//!   vault-search) vault-search …` is a command and a line `→ results[0]: PATH, line N,
//!   heading "H"` under it says what its first hit is.
//!
//! Synopses (`vault-search read NOTE [--heading H]`) are written in ```` ```text ```` blocks
//! without `$`: they are not run, but each flag they name must be in the `--help` of their
//! subcommand.

use std::path::{Path, PathBuf};

use crate::util::{shell_words, stderr, stdout, Env, Start};

/// The pages whose examples are run.
const PAGES: &[&str] = &["README.md", "docs/guide.md", "docs/agents.md"];

/// One command a page shows.
#[derive(Debug)]
struct Example {
    /// `page:line`, for messages.
    at: String,
    /// The words after `vault-search`, as a POSIX shell splits them.
    words: Vec<String>,
    /// The output the page shows under it, when it shows some.
    shown: Vec<String>,
    /// `→ results[0]: …`: the first hit's path, line and heading the page claims.
    first_hit: Option<(String, u64, String)>,
}

/// The examples of one page, by the convention above.
fn examples(page: &str, text: &str) -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    let mut block: Option<String> = None;
    // The example whose output lines are being collected (text blocks).
    let mut open = false;
    for (i, line) in text.lines().enumerate() {
        let at = format!("{page}:{}", i + 1);
        let trimmed = line.trim_start();
        if let Some(info) = trimmed.strip_prefix("```") {
            block = match block {
                Some(_) => None,
                None => Some(info.trim().to_string()),
            };
            open = false;
            continue;
        }
        match block.as_deref() {
            Some("sh") => {
                if let Some(rest) = trimmed.strip_prefix("vault-search ") {
                    out.push(Example {
                        at,
                        words: shell_words(rest)
                            .unwrap_or_else(|e| panic!("{page}:{}: {e}", i + 1)),
                        shown: Vec::new(),
                        first_hit: None,
                    });
                }
            }
            Some("text") => {
                let command = trimmed
                    .strip_prefix("$ vault-search ")
                    .map(|c| (c, true))
                    .or_else(|| {
                        trimmed
                            .strip_prefix("agent> (skill vault-search) vault-search ")
                            .map(|c| (c, false))
                    });
                if let Some((rest, shows_output)) = command {
                    out.push(Example {
                        at,
                        words: shell_words(rest)
                            .unwrap_or_else(|e| panic!("{page}:{}: {e}", i + 1)),
                        shown: Vec::new(),
                        first_hit: None,
                    });
                    open = shows_output;
                } else if let Some(claim) = trimmed.strip_prefix("→ results[0]: ") {
                    let last = out
                        .last_mut()
                        .unwrap_or_else(|| panic!("{at}: a claim with no command above it"));
                    last.first_hit = Some(parse_first_hit(claim).unwrap_or_else(|| {
                        panic!("{at}: not `PATH, line N, heading \"H\"`: {claim}")
                    }));
                } else if trimmed.starts_with("$ ") {
                    open = false;
                } else if open {
                    out.last_mut().unwrap().shown.push(line.to_string());
                }
            }
            _ => {}
        }
    }
    out
}

/// `Infra/Backup to tape.md, line 4, heading "Backup to tape"` → its three parts.
fn parse_first_hit(claim: &str) -> Option<(String, u64, String)> {
    let (path, rest) = claim.split_once(", line ")?;
    let (line, rest) = rest.split_once(", heading \"")?;
    let heading = rest.split_once('"')?.0;
    Some((path.to_string(), line.parse().ok()?, heading.to_string()))
}

/// Copies the demo vault into `to`, folder by folder.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// The demo vault, copied into a fresh environment.
fn demo() -> Env {
    let env = Env::new();
    copy_tree(&repo("examples/vault"), &env.vault);
    env
}

/// Why an output shows no hit, if it shows none: an empty answer, `(no results)`, a JSON
/// answer with an empty `results`, a note with no link either way, a list of 0 notes.
fn no_hits(out: &str) -> Option<&'static str> {
    if out.trim().is_empty() {
        return Some("no output");
    }
    if out.lines().any(|l| l.trim() == "(no results)") {
        return Some("(no results)");
    }
    if out.contains("Outgoing (0):") && out.contains("Incoming (0 links") {
        return Some("no link either way");
    }
    if out
        .lines()
        .any(|l| l.starts_with("===") && l.contains(": 0 "))
    {
        return Some("a list of 0");
    }
    if let Ok(json) = serde_json::from_str::<serde_json::Value>(out) {
        if json["results"].as_array().is_some_and(|r| r.is_empty()) {
            return Some("empty results");
        }
    }
    None
}

/// A search's header with what changes from run to run (the time, the vault's path) masked.
fn masked(line: &str) -> String {
    let mut line = line.trim_end().to_string();
    if line.starts_with("=== Vault Search:") {
        if let (Some(a), Some(b)) = (line.rfind(" - "), line.rfind("s] vault=")) {
            line.replace_range(a + 3..b, "T");
        }
        if let (Some(a), Some(b)) = (line.rfind(" vault="), line.rfind(" ===")) {
            line.replace_range(a + 7..b, "VAULT");
        }
    }
    line
}

/// The words to run for an example, and whether its output must show hits. The commands that
/// can't run as written in a test are adapted, each for a reason:
/// - `--vault DIR`: the demo vault in its place (every other command gets it from
///   `$OBSIDIAN_VAULT`);
/// - `serve` runs until stopped: `--help` after its flags, so clap still checks each flag and
///   value the page names, and nothing listens;
/// - `skill --install` writes into the user's home: `--dir` a temporary folder;
/// - `index`, `status`, `skill`, `mcp`, `completions` answer without hits.
fn adapted(words: &[String], env: &Env) -> (Vec<String>, bool) {
    let mut words = words.to_vec();
    for i in 1..words.len() {
        if words[i - 1] == "--vault" {
            words[i] = env.vault.display().to_string();
        }
    }
    let sub = subcommand(&words).map(str::to_owned);
    match sub.as_deref() {
        Some("serve") => words.push("--help".into()),
        Some("skill")
            if words.iter().any(|w| w == "--install") && !words.iter().any(|w| w == "--dir") =>
        {
            words.push("--dir".into());
            words.push(env.root.path().join("skills").display().to_string());
        }
        _ => {}
    }
    let hits = !matches!(
        sub.as_deref(),
        Some("index" | "status" | "skill" | "mcp" | "serve" | "completions")
    );
    (words, hits)
}

/// The subcommand a command line runs, if any: its first word that is not a flag or a flag's
/// value (every example names the global flags that take a value, `--vault`, `--cache-dir`,
/// with that value).
fn subcommand(words: &[String]) -> Option<&str> {
    let mut i = 0;
    while i < words.len() {
        let w = words[i].as_str();
        if w == "--" {
            return None;
        }
        if w.starts_with('-') {
            i += if matches!(w, "--vault" | "--cache-dir") {
                2
            } else {
                1
            };
            continue;
        }
        return [
            "search",
            "index",
            "status",
            "links",
            "related",
            "read",
            "skill",
            "completions",
            "mcp",
            "serve",
        ]
        .into_iter()
        .find(|s| *s == w);
    }
    None
}

/// The JSON fields whose values change from run to run: a page's example only says they are
/// there.
const VARYING: &[&str] = &["elapsed_seconds", "vault", "modified"];

/// `Ok` when every field the page shows is in the output with the value it shows (a page may
/// leave fields out, never show one the output lacks or a value it doesn't give).
fn json_within(shown: &serde_json::Value, got: &serde_json::Value, at: &str) -> Result<(), String> {
    use serde_json::Value;
    match (shown, got) {
        (Value::Object(want), Value::Object(have)) => {
            for (key, value) in want {
                let Some(had) = have.get(key) else {
                    return Err(format!("the page shows {at}.{key}, the output has none"));
                };
                if !VARYING.contains(&key.as_str()) {
                    json_within(value, had, &format!("{at}.{key}"))?;
                }
            }
            Ok(())
        }
        (Value::Array(want), Value::Array(have)) if want.len() == have.len() => want
            .iter()
            .zip(have)
            .enumerate()
            .try_for_each(|(i, (w, h))| json_within(w, h, &format!("{at}[{i}]"))),
        _ if shown == got => Ok(()),
        _ => Err(format!(
            "the page shows {at} = {shown}, the output has {got}"
        )),
    }
}

/// Runs one example; `Err` says what is wrong with it.
fn check(example: &Example, env: &Env) -> Result<(), String> {
    let (words, needs_hits) = adapted(&example.words, env);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_vault-search"))
        .env_remove("OBSIDIAN_VAULT_PATH")
        .env_remove("NO_COLOR")
        .env("OBSIDIAN_VAULT", &env.vault)
        .env("VAULT_SEARCH_CACHE_DIR", &env.cache)
        .env("OMNISEARCH_PORT", env.dead_port.to_string())
        .args(&words)
        .stdin(std::process::Stdio::null())
        .output_retried();
    let text = stdout(&out);
    if !out.status.success() {
        return Err(format!(
            "exit {:?}: {}",
            out.status.code(),
            stderr(&out).trim()
        ));
    }
    if needs_hits {
        if let Some(why) = no_hits(&text) {
            return Err(format!("no hits ({why}):\n{text}"));
        }
    } else if text.trim().is_empty() && subcommand(&words) != Some("mcp") {
        return Err("no output".into());
    }
    if let Ok(shown) = serde_json::from_str::<serde_json::Value>(&example.shown.join("\n")) {
        let got: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| format!("not JSON ({e}): {text}"))?;
        json_within(&shown, &got, "")?;
    } else if !example.shown.is_empty() {
        let want: Vec<String> = example.shown.iter().map(|l| masked(l)).collect();
        let got: Vec<String> = text.lines().map(masked).collect();
        if want != got {
            return Err(format!(
                "the page shows\n{}\nthe binary prints\n{}",
                want.join("\n"),
                got.join("\n")
            ));
        }
    }
    if let Some((path, line, heading)) = &example.first_hit {
        let json: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| format!("not JSON ({e}): {text}"))?;
        let hit = &json["results"][0];
        // A budget leaves the hit's heading out when its passage names it (innermost last).
        let passage_heading = hit["passages"][0]["heading"].as_str().unwrap_or_default();
        let got = (
            hit["path"].as_str().unwrap_or_default(),
            hit["line"].as_u64().unwrap_or_default(),
            hit["heading"]
                .as_str()
                .or_else(|| passage_heading.rsplit(" > ").next())
                .unwrap_or_default(),
        );
        if got != (path.as_str(), *line, heading.as_str()) {
            return Err(format!(
                "the page says results[0] is {path}, line {line}, heading {heading:?}; \
                 the binary: {}, line {}, heading {:?}",
                got.0, got.1, got.2
            ));
        }
    }
    Ok(())
}

#[test]
fn every_command_the_docs_show_runs_on_the_demo_vault_with_hits() {
    let env = demo();
    let mut failures = Vec::new();
    let mut total = 0;
    for page in PAGES {
        let text = std::fs::read_to_string(repo(page)).unwrap();
        let found = examples(page, &text);
        assert!(!found.is_empty(), "{page}: no example found");
        for example in &found {
            total += 1;
            if let Err(e) = check(example, &env) {
                failures.push(format!(
                    "{} `vault-search {}`: {e}",
                    example.at,
                    example.words.join(" ")
                ));
            }
        }
    }
    // The README alone shows more than a dozen; a convention that stopped matching would find
    // few.
    assert!(total >= 20, "only {total} examples found");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_examples_test_sees_a_missing_flag_and_an_empty_answer() {
    let env = demo();
    let page = "```sh\nvault-search --no-such-flag kotlin   # a flag the binary lacks\n\
                vault-search zzyzx-nothing-matches\n\
                vault-search links \"Notes/Café notes.md\"\n```\n";
    let found = examples("page", page);
    assert_eq!(found.len(), 3, "{found:?}");
    let errors: Vec<String> = found.iter().map(|e| check(e, &env).unwrap_err()).collect();
    let shown: serde_json::Value =
        serde_json::json!({"vault": "/x", "results": [{"line": 9, "heading": "Restore"}]});
    let got = serde_json::json!({"vault": "/y", "results": [{"line": 4, "heading": "Restore"}]});
    let wrong = json_within(&shown, &got, "").unwrap_err();
    assert!(wrong.contains(".results[0].line = 9"), "{wrong}");
    assert!(json_within(&shown, &serde_json::json!({"results": []}), "").is_err());
    assert!(errors[0].contains("exit Some(2)"), "{}", errors[0]);
    assert!(errors[1].contains("(no results)"), "{}", errors[1]);
    assert!(errors[2].contains("no link either way"), "{}", errors[2]);
}

#[test]
fn shell_words_split_as_a_shell_does() {
    let w = |s: &str| shell_words(s).unwrap();
    assert_eq!(
        w(r#"-- '"exact phrase" -stale'   # a comment"#),
        ["--", "\"exact phrase\" -stale"]
    );
    assert_eq!(
        w(r#"read "Infra/Backup to tape.md" --heading restore"#),
        ["read", "Infra/Backup to tape.md", "--heading", "restore"]
    );
    assert_eq!(w(r"a\ b 'it'\''s'"), ["a b", "it's"]);
    assert_eq!(
        w("completions zsh > \"${fpath[1]}/_vault-search\""),
        ["completions", "zsh"]
    );
    assert!(shell_words("x $HOME").is_err());
}

/// The pages that describe the code as it is (the changelog and the benchmarks log are
/// history: they may name files that are gone).
const CURRENT_PAGES: &[&str] = &[
    "README.md",
    "ARCHITECTURE.md",
    "BENCHMARKS.md",
    "RELEASING.md",
    "index-schema/README.md",
    "docs/agents.md",
    "docs/contributing.md",
    "docs/guide.md",
    "docs/install.md",
    "docs/internals.md",
    "docs/library.md",
    "docs/ranking.md",
    "docs/security.md",
];

/// The repository paths a page names (`src/local/schema.rs`, `benches/eval.sh`): each
/// starting at a word's start with one of the repository's folders.
fn named_paths(text: &str) -> Vec<String> {
    const ROOTS: &[&str] = &[
        "src/",
        "tests/",
        "benches/",
        "examples/",
        ".ci/",
        "index-schema/",
    ];
    let path_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/' | '-');
    let mut out = Vec::new();
    for (i, _) in text.char_indices() {
        let before = text[..i].chars().next_back();
        if before.is_some_and(path_char) {
            continue;
        }
        let rest = &text[i..];
        if ROOTS.iter().any(|r| rest.starts_with(r)) {
            let end = rest.find(|c: char| !path_char(c)).unwrap_or(rest.len());
            out.push(rest[..end].trim_end_matches(['.', '/']).to_string());
        }
    }
    out
}

#[test]
fn every_file_the_docs_name_exists() {
    let mut missing = Vec::new();
    let mut seen = 0;
    for page in CURRENT_PAGES {
        let text = std::fs::read_to_string(repo(page)).unwrap();
        for path in named_paths(&text) {
            seen += 1;
            if !repo(&path).exists() {
                missing.push(format!("{page}: {path}"));
            }
        }
    }
    assert!(seen > 50, "only {seen} paths found");
    assert!(
        missing.is_empty(),
        "named but missing:\n{}",
        missing.join("\n")
    );
    assert_eq!(
        named_paths("see `src/local/schema.rs`, (benches/eval.sh). and xsrc/no"),
        ["src/local/schema.rs", "benches/eval.sh"]
    );
}

/// A synopsis a page shows (a line `vault-search …` of a ```` ```text ```` block, not run): where,
/// its subcommand, and the flags it names.
type Synopsis = (String, Option<String>, Vec<String>);

/// The synopses of one page.
fn synopses(page: &str, text: &str) -> Vec<Synopsis> {
    let mut out = Vec::new();
    let mut block: Option<String> = None;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if let Some(info) = trimmed.strip_prefix("```") {
            block = match block {
                Some(_) => None,
                None => Some(info.trim().to_string()),
            };
            continue;
        }
        let Some(rest) = trimmed.strip_prefix("vault-search ") else {
            continue;
        };
        if block.as_deref() != Some("text") {
            continue;
        }
        let tokens: Vec<&str> = rest
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .filter(|t| !t.is_empty())
            .collect();
        let sub = tokens
            .first()
            .filter(|t| t.chars().all(|c| c.is_ascii_lowercase()))
            .map(|t| t.to_string());
        let flags = tokens
            .iter()
            .filter(|t| {
                t.starts_with('-') && t.trim_start_matches('-').starts_with(char::is_alphabetic)
            })
            .map(|t| t.to_string())
            .collect();
        out.push((format!("{page}:{}", i + 1), sub, flags));
    }
    out
}

#[test]
fn every_flag_a_synopsis_names_exists() {
    let env = Env::new();
    let mut missing = Vec::new();
    let mut flags = 0;
    for page in PAGES {
        let text = std::fs::read_to_string(repo(page)).unwrap();
        for (at, sub, named) in synopses(page, &text) {
            let mut cmd = env.cmd();
            cmd.args(sub.as_deref()).arg("--help");
            let out = cmd.output_retried();
            assert!(out.status.success(), "{at}: `{sub:?} --help` fails");
            let help = stdout(&out);
            for flag in named {
                flags += 1;
                let listed = help.match_indices(&flag).any(|(i, _)| {
                    let after = help[i + flag.len()..].chars().next();
                    let before = help[..i].chars().next_back();
                    !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-')
                        && !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-')
                });
                if !listed {
                    missing.push(format!(
                        "{at}: {flag} is not in `vault-search {} --help`",
                        sub.as_deref().unwrap_or("")
                    ));
                }
            }
        }
    }
    assert!(flags > 15, "only {flags} flags found in the synopses");
    assert!(missing.is_empty(), "{}", missing.join("\n"));
    assert_eq!(
        synopses(
            "p",
            "```text\nvault-search read NOTE [--heading H|-n N]  a note\n```\n"
        ),
        [(
            "p:2".to_string(),
            Some("read".to_string()),
            vec!["--heading".to_string(), "-n".to_string()]
        )]
    );
}
