//! Agent integration through the real binary: the skill, status, completions.

use crate::util::{assert_ok, stderr, stdout, Env, MockServer, Reply, Start};

/// Splits a SKILL.md into its frontmatter key/values and body.
fn frontmatter(md: &str) -> (Vec<(String, String)>, String) {
    let rest = md.strip_prefix("---\n").expect("opens with ---");
    let (fm, body) = rest.split_once("\n---\n").expect("closes with ---");
    let kv = fm
        .lines()
        .map(|l| {
            let (k, v) = l.split_once(": ").expect("key: value");
            (k.to_string(), v.to_string())
        })
        .collect();
    (kv, body.to_string())
}

#[test]
fn skill_frontmatter_pre_approves_exactly_this_binary() {
    let env = Env::new();
    let out = env.run(&["skill"]);
    assert_ok(&out);
    let (fm, body) = frontmatter(&stdout(&out));
    let get = |k: &str| {
        fm.iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.clone())
            .unwrap()
    };
    assert_eq!(get("name"), "vault-search");
    let desc = get("description");
    for phrase in ["my notes", "the vault", "we did this before", "last time"] {
        assert!(desc.contains(phrase), "description lacks {phrase:?}");
    }
    let bin = std::fs::canonicalize(env!("CARGO_BIN_EXE_vault-search")).unwrap();
    let mut bin = bin.display().to_string();
    if cfg!(windows) {
        // As a Windows user's shell takes it: `C:/…/vault-search.exe`, not `\\?\C:\…`.
        bin = bin.trim_start_matches(r"\\?\").replace('\\', "/");
    }
    assert_eq!(get("allowed-tools"), format!("Bash({bin} *)"));
    for needle in [
        "--folder",
        "--exclude",
        "--json",
        "omnisearch (offline)",
        "\"stale\": true",
        "never as",
    ] {
        assert!(body.contains(needle), "body lacks {needle:?}");
    }
}

#[test]
fn skill_install_refuses_foreign_files_unless_forced() {
    let env = Env::new();
    let dir = env.root.path().join("skills");
    let d = dir.to_str().unwrap();
    let out = env.run(&["skill", "--install", "--dir", d]);
    assert_ok(&out);
    let path = dir.join("vault-search/SKILL.md");
    let written = std::fs::read_to_string(&path).unwrap();
    assert!(written.starts_with("---\nname: vault-search"));
    assert_ok(&env.run(&["skill", "--install", "--dir", d]));
    std::fs::write(&path, "my own skill").unwrap();
    let out = env.run(&["skill", "--install", "--dir", d]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--force"));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "my own skill");
    assert_ok(&env.run(&["skill", "--install", "--dir", d, "--force"]));
    assert!(std::fs::read_to_string(&path)
        .unwrap()
        .starts_with("---\nname:"));
}

#[test]
fn agents_md_directive() {
    let env = Env::new();
    let out = env.run(&["skill", "--agents-md"]);
    assert_ok(&out);
    let text = stdout(&out);
    assert!(text.contains("vault-search") && text.contains("--json"));
    assert_eq!(text.trim_end().lines().count(), 1);
}

#[test]
fn skill_without_a_vault_is_a_one_line_error() {
    let env = Env::new();
    let skills = env.root.path().join("skills");
    for args in [
        vec!["skill"],
        vec!["skill", "--agents-md"],
        vec!["skill", "--install", "--dir", skills.to_str().unwrap()],
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_vault-search"))
            .env_remove("OBSIDIAN_VAULT")
            .env_remove("OBSIDIAN_VAULT_PATH")
            .args(["--vault", "/definitely/not/here"])
            .args(&args)
            .output_retried();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr(&out);
        assert!(err.starts_with("vault-search: vault not found"), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(stdout(&out).is_empty());
    }
    assert!(!skills.exists(), "nothing installed");
}

/// The one command line of a `SKILL.md`'s code block, with a query in place of its
/// placeholder and its optional `[...]` parts left out, as an agent would type it.
fn skill_command(md: &str, query: &str) -> String {
    let block = md.split_once("```bash\n").expect("a bash block").1;
    let line = block.lines().next().unwrap();
    let mut line = line.replace("\"<2-5 distinctive keywords>\"", query);
    while let Some(a) = line.find(" [") {
        let b = a + line[a..].find(']').expect("a closing ]");
        line.replace_range(a..=b, "");
    }
    line
}

#[test]
fn the_installed_skill_searches_the_vault_it_was_installed_for() {
    let env = Env::new();
    // D: a path a shell would split and expand unless quoted.
    let d = env.root.path().join("it's my $HOME vault");
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("Tape.md"), "# Tape\nThe weekly tape backup.\n").unwrap();
    // The vault the agent's environment names: the skill must not search it.
    env.write("Other.md", "# Other\nThe weekly tape backup, elsewhere.\n");
    let skills = env.root.path().join("skills");
    let vs = |c: &mut std::process::Command| {
        c.env_remove("OBSIDIAN_VAULT_PATH")
            .env("OBSIDIAN_VAULT", &env.vault)
            .env("VAULT_SEARCH_CACHE_DIR", &env.cache)
            .env("OMNISEARCH_PORT", env.dead_port.to_string());
    };
    let mut install = std::process::Command::new(env!("CARGO_BIN_EXE_vault-search"));
    vs(&mut install);
    install
        .arg("--vault")
        .arg(&d)
        .args(["skill", "--install", "--dir"])
        .arg(&skills);
    assert_ok(&install.output_retried());
    let md = std::fs::read_to_string(skills.join("vault-search/SKILL.md")).unwrap();
    let line = skill_command(&md, "\"weekly tape\"");
    let searched = |out: std::process::Output| {
        assert_ok(&out);
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let paths: Vec<&str> = json["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["path"].as_str().unwrap())
            .collect();
        assert_eq!(paths, ["Tape.md"], "{line}");
        assert!(
            json["vault"]
                .as_str()
                .unwrap()
                .ends_with("it's my $HOME vault"),
            "{json}"
        );
    };
    // As the agent's shell runs it.
    #[cfg(unix)]
    {
        let mut sh = std::process::Command::new("sh");
        vs(&mut sh);
        searched(sh.arg("-c").arg(&line).output_retried());
    }
    // Split as a POSIX shell splits it (Windows has no `sh` to ask).
    let words = crate::util::shell_words(&line).unwrap();
    let mut direct = std::process::Command::new(&words[0]);
    vs(&mut direct);
    searched(direct.args(&words[1..]).output_retried());
}

#[test]
fn status_reports_index_and_omnisearch() {
    let env = Env::new();
    env.write("a.md", "alpha\n");
    env.write("b.md", "beta\n");
    let st: vault_search::Status =
        serde_json::from_slice(&env.run(&["status", "--json"]).stdout).unwrap();
    assert!(!st.indexed);
    assert!(!st.omnisearch_answers);
    env.index_json(&[]);
    env.write("c.md", "gamma\n");
    env.remove("a.md");
    let server = MockServer::start(Reply::Json("[]".into()));
    let p = server.port.to_string();
    let out = env.run(&["status", "--json", "--port", &p]);
    assert_ok(&out);
    let st: vault_search::Status = serde_json::from_slice(&out.stdout).unwrap();
    assert!(st.indexed);
    assert_eq!(st.notes, 2);
    assert_eq!(st.changed_since, Some(2));
    assert!(st.index_bytes > 0);
    assert!(st.last_indexed_at.unwrap().ends_with('Z'));
    assert!(st.omnisearch_answers);
    let text = stdout(&env.run(&["status"]));
    assert!(text.contains("notes indexed") && text.contains("omnisearch"));
}

#[test]
fn completions_for_each_shell() {
    let env = Env::new();
    for shell in ["bash", "zsh", "fish"] {
        let out = env.run(&["completions", shell]);
        assert_ok(&out);
        assert!(stdout(&out).contains("vault-search"), "{shell}");
    }
}

#[test]
fn help_has_examples() {
    let env = Env::new();
    let out = env.run(&["--help"]);
    assert_ok(&out);
    let text = stdout(&out);
    assert!(text.contains("Examples:") && text.contains("--source"));
}

#[test]
fn usage_errors_are_one_line_exit_2() {
    let env = Env::new();
    for args in [
        vec!["--limit", "0", "x"],
        vec!["-n", "1001", "x"],
        vec!["--port", "0", "x"],
        vec!["--port", "70000", "x"],
        vec!["--source", "elsewhere", "x"],
        vec!["--bogus", "x"],
        vec![],
    ] {
        let out = env.run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr(&out);
        assert!(err.starts_with("vault-search: "), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    }
    let out = env
        .cmd()
        .env("OMNISEARCH_PORT", "99999")
        .arg("x")
        .output_retried();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("OMNISEARCH_PORT"));
    assert_ok(&env.run(&["-n", "1000", "--source", "local", "x"]));
}

/// The progress bar appears only on a terminal: run `index` under `script` (a
/// pseudo-terminal), with the one-second delay shortened so a small vault shows it.
#[cfg(target_os = "linux")]
#[test]
fn index_shows_progress_on_a_terminal_only() {
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: util-linux `script` is not installed");
        return;
    }
    let env = Env::new();
    let body: String = (0..400).map(|i| format!("word{i} ")).collect();
    for i in 0..3000 {
        env.write(&format!("d{}/n{i}.md", i % 20), &body);
    }
    let bin = env!("CARGO_BIN_EXE_vault-search");
    let cmd = format!(
        "VAULT_SEARCH_PROGRESS_DELAY_MS=0 VAULT_SEARCH_CACHE_DIR='{}' '{}' --vault '{}' index --rebuild",
        env.cache.display(),
        bin,
        env.vault.display()
    );
    let out = std::process::Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .output_retried();
    let tty = String::from_utf8_lossy(&out.stdout);
    assert!(tty.contains("indexed 3000 notes"), "{tty}");
    assert!(tty.contains("/3000 notes"), "a bar was drawn: {tty:?}");
    // Not a terminal: the summary line only.
    let out = env
        .cmd()
        .env("VAULT_SEARCH_PROGRESS_DELAY_MS", "0")
        .args(["index", "--rebuild"])
        .output_retried();
    assert_ok(&out);
    assert!(stderr(&out).is_empty(), "{}", stderr(&out));
}

#[test]
fn global_flags_go_before_or_after_the_subcommand() {
    let env = Env::new();
    env.write("a.md", "alpha\n");
    let vault = env.vault.to_str().unwrap().to_string();
    let cache = env.cache.to_str().unwrap().to_string();
    let bin = env!("CARGO_BIN_EXE_vault-search");
    for args in [
        vec!["--json", "--vault", &vault, "--cache-dir", &cache, "index"],
        vec!["index", "--json", "--vault", &vault, "--cache-dir", &cache],
        vec![
            "search",
            "--json",
            "--vault",
            &vault,
            "--cache-dir",
            &cache,
            "--source",
            "local",
            "alpha",
        ],
        vec![
            "--vault",
            &vault,
            "search",
            "--cache-dir",
            &cache,
            "--source",
            "local",
            "--json",
            "index",
        ],
    ] {
        let out = std::process::Command::new(bin)
            .env_remove("OBSIDIAN_VAULT")
            .args(&args)
            .output_retried();
        assert_ok(&out);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(v.is_object(), "{args:?}");
    }
    assert!(
        env.cache.join("vault-search").is_dir(),
        "--cache-dir was honoured"
    );
}
