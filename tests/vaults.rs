//! Several vaults in one search, through the binary: one ranked list that names each hit's
//! vault, each vault's own order kept, no small vault buried, a missing vault a warning.

use std::path::{Path, PathBuf};

use serde_json::Value;
use vault_search::SearchResponse;

use crate::util::{assert_ok, omni_hit, stderr, stdout, Env, MockServer, Reply};

/// A vault folder beside the test's own (`env.vault`), with these notes.
fn vault(env: &Env, name: &str, notes: &[(&str, &str)]) -> PathBuf {
    let dir = env.root.path().join("others").join(name);
    for (rel, text) in notes {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn with_vaults(vaults: &[&Path], args: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for v in vaults {
        out.push("--vault".to_string());
        out.push(v.to_str().unwrap().to_string());
    }
    out.extend(args.iter().map(|a| a.to_string()));
    out
}

/// The binary over exactly `vaults` (none of the environment's), with these arguments.
fn run(env: &Env, vaults: &[&Path], args: &[&str]) -> std::process::Output {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_vault-search"));
    cmd.env_remove("OBSIDIAN_VAULT")
        .env_remove("OBSIDIAN_VAULT_PATH")
        .env("VAULT_SEARCH_CACHE_DIR", &env.cache)
        .env("OMNISEARCH_PORT", env.dead_port.to_string())
        .args(with_vaults(vaults, args));
    crate::util::Start::output_retried(&mut cmd)
}

fn json(env: &Env, vaults: &[&Path], args: &[&str]) -> SearchResponse {
    let out = run(
        env,
        vaults,
        &[&["--json", "--source", "local"], args].concat(),
    );
    assert_ok(&out);
    serde_json::from_slice(&out.stdout).unwrap()
}

fn team(env: &Env) {
    env.write(
        "deploy.md",
        "# Deploy\nThe deploy runbook: rollback with the checklist.\n",
    );
    env.write(
        "kotlin.md",
        "# Kotlin\nThe gradle daemon kept a stale lock on deploy day.\n",
    );
    env.write(
        "daily.md",
        "# Daily\nStandup, then a deploy of the daemon.\n",
    );
    env.write("misc.md", "# Misc\nLunch order and the office plants.\n");
}

#[test]
fn one_list_over_three_vaults_keeps_each_vaults_order() {
    let env = Env::new();
    team(&env);
    let tldr = vault(
        &env,
        "tldr",
        &[
            (
                "tar.md",
                "# tar\nArchive files: deploy a tarball, extract with tar -x.\n",
            ),
            (
                "git.md",
                "# git\nDeploy with git push; a daemon can serve repositories.\n",
            ),
            ("ls.md", "# ls\nList the files of a directory.\n"),
        ],
    );
    let own = vault(
        &env,
        "own",
        &[
            (
                "ops/rollback.md",
                "# Rollback\nHow to roll back a deploy: the checklist.\n",
            ),
            (
                "ops/daemon.md",
                "# Daemons\nA daemon restarts after deploy.\n",
            ),
        ],
    );
    let all = [env.vault.as_path(), tldr.as_path(), own.as_path()];
    let merged = json(&env, &all, &["-n", "20", "deploy"]);
    let names: Vec<&str> = merged.vaults.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["vault", "tldr", "own"]);
    assert_eq!(merged.engine, "local");
    assert!(merged.warnings.is_empty(), "{:?}", merged.warnings);
    for (i, v) in all.iter().enumerate() {
        let alone = json(&env, &[v], &["-n", "20", "deploy"]);
        assert!(alone.vaults.is_empty());
        assert!(alone.results.iter().all(|h| h.vault.is_none()));
        let own_order: Vec<&str> = alone.results.iter().map(|h| h.path.as_str()).collect();
        let in_merged: Vec<&str> = merged
            .results
            .iter()
            .filter(|h| h.vault.as_deref() == Some(names[i]))
            .map(|h| h.path.as_str())
            .collect();
        assert!(!in_merged.is_empty(), "{} has no hit", names[i]);
        assert_eq!(in_merged, own_order, "the order of {}", names[i]);
        assert_eq!(merged.vaults[i].total_results, alone.total_results);
    }
    assert_eq!(merged.total_results, merged.results.len());
    // Text output names the vault of each hit, as `read` would take it.
    let out = run(
        &env,
        &all,
        &["--source", "local", "--color", "never", "rollback"],
    );
    assert_ok(&out);
    let text = stdout(&out);
    assert!(text.contains("] own:ops/rollback.md"), "{text}");
    assert!(text.contains("] vault:deploy.md"), "{text}");
}

#[test]
fn a_small_vault_is_not_buried_by_a_big_one() {
    let env = Env::new();
    // The big vault: many notes that all say "release", none the small vault's word.
    for i in 0..400 {
        env.write(
            &format!("gen/n{i:03}.md"),
            &format!("# Note {i}\nThe release train {i} left with the release notes.\n"),
        );
    }
    let mut small_notes: Vec<(String, String)> = (0..9)
        .map(|i| {
            (
                format!("s{i}.md"),
                format!("# Small {i}\nGardening log {i}.\n"),
            )
        })
        .collect();
    small_notes.push((
        "zeppelin.md".into(),
        "# Zeppelin\nThe zeppelin release party, once.\n".into(),
    ));
    let refs: Vec<(&str, &str)> = small_notes
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let small = vault(&env, "small", &refs);
    let both = [env.vault.as_path(), small.as_path()];
    let only_small = json(&env, &both, &["zeppelin"]);
    assert_eq!(only_small.results[0].path, "zeppelin.md");
    assert_eq!(only_small.results[0].vault.as_deref(), Some("small"));
    let shared = json(&env, &both, &["release"]);
    assert_eq!(shared.results.len(), 10);
    for name in ["vault", "small"] {
        assert!(
            shared
                .results
                .iter()
                .any(|h| h.vault.as_deref() == Some(name)),
            "no hit of {name} in the top 10"
        );
    }
}

#[test]
fn a_missing_vault_is_a_warning_and_none_is_an_error() {
    let env = Env::new();
    team(&env);
    let gone = env.root.path().join("gone");
    let r = json(&env, &[env.vault.as_path(), gone.as_path()], &["deploy"]);
    assert!(!r.results.is_empty());
    assert!(r
        .results
        .iter()
        .all(|h| h.vault.as_deref() == Some("vault")));
    assert_eq!(r.vaults[1].name, "gone");
    assert!(r.vaults[1].error.as_deref().unwrap().contains("not found"));
    assert!(r.warnings.iter().any(|w| w.starts_with("vault gone: ")));
    let also_gone = env.root.path().join("also");
    let out = run(&env, &[&gone, &also_gone], &["--source", "local", "deploy"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("no vault could be searched"), "{err}");
}

#[test]
fn one_vault_answers_as_it_always_did() {
    let env = Env::new();
    team(&env);
    // The same folder twice is one vault: no `vault` field, no `vaults`.
    for args in [vec![], vec!["--vault", env.vault.to_str().unwrap()]] {
        let out = env.run(&[&args[..], &["--json", "--source", "local", "deploy"]].concat());
        assert_ok(&out);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(v.get("vaults").is_none());
        let hits = v["results"].as_array().unwrap();
        assert!(!hits.is_empty());
        assert!(hits.iter().all(|h| h.get("vault").is_none()));
    }
}

#[test]
fn the_environment_names_several_vaults_as_a_path_list() {
    let env = Env::new();
    team(&env);
    let other = vault(&env, "other", &[("x.md", "# X\nA deploy elsewhere.\n")]);
    let list = std::env::join_paths([env.vault.as_path(), other.as_path()]).unwrap();
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_vault-search"));
    cmd.env("OBSIDIAN_VAULT", list)
        .env("VAULT_SEARCH_CACHE_DIR", &env.cache)
        .env("OMNISEARCH_PORT", env.dead_port.to_string())
        .args(["--json", "--source", "local", "deploy"]);
    let out = crate::util::Start::output_retried(&mut cmd);
    assert_ok(&out);
    let r: SearchResponse = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = r.vaults.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["vault", "other"]);
    assert!(r
        .results
        .iter()
        .any(|h| h.vault.as_deref() == Some("other")));
}

#[test]
fn each_vault_says_its_engine() {
    let env = Env::new();
    team(&env);
    let other = vault(&env, "other", &[("x.md", "# X\nA deploy elsewhere.\n")]);
    // The plugin answers for the vault named `vault` (its hits say so): `other` is answered
    // by its local index.
    let body = serde_json::json!([omni_hit(5.0, "deploy.md", "The deploy runbook", None)]);
    let server = MockServer::start(Reply::Json(body.to_string()));
    let port = server.port.to_string();
    let out = run(
        &env,
        &[&env.vault, &other],
        &["--json", "--port", &port, "deploy"],
    );
    assert_ok(&out);
    let r: SearchResponse = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r.engine, "mixed");
    assert_eq!(r.vaults[0].engine, "omnisearch");
    assert_eq!(r.vaults[1].engine, "local");
    assert!(r.vaults[1].fallback_reason.is_some());
    let engines: Vec<(&str, &str)> = r
        .results
        .iter()
        .map(|h| (h.vault.as_deref().unwrap(), h.engine.as_str()))
        .collect();
    assert!(engines.contains(&("vault", "omnisearch")), "{engines:?}");
    assert!(engines.contains(&("other", "local")), "{engines:?}");
}

#[test]
fn commands_for_one_vault_say_so_in_one_line() {
    let env = Env::new();
    let other = vault(&env, "other", &[("x.md", "# X\n")]);
    let o = other.to_str().unwrap();
    let mut commands = vec![vec!["--vault", o, "--source", "both", "x"]];
    commands.push(vec!["--vault", o, "serve", "--port", "0"]);
    for args in commands {
        let out = env.run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("one vault"), "{err}");
    }
}

#[test]
fn index_and_status_per_vault() {
    let env = Env::new();
    team(&env);
    let other = vault(&env, "other", &[("x.md", "# X\nA deploy elsewhere.\n")]);
    let gone = env.root.path().join("gone");
    let both = [env.vault.as_path(), other.as_path()];
    let out = run(&env, &both, &["index", "--json"]);
    assert_ok(&out);
    let reports: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let notes: Vec<(&str, u64)> = reports
        .iter()
        .map(|r| (r["name"].as_str().unwrap(), r["notes"].as_u64().unwrap()))
        .collect();
    assert_eq!(notes, [("vault", 4), ("other", 1)]);
    let out = run(&env, &both, &["status", "--json"]);
    assert_ok(&out);
    let status: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert!(status.iter().all(|s| s["indexed"] == true), "{status:?}");
    let out = run(&env, &both, &["status"]);
    assert_ok(&out);
    assert!(stdout(&out).contains("== other ("), "{}", stdout(&out));
    // A missing vault: the others are indexed and printed, then exit 2 in one line.
    let out = run(&env, &[&env.vault, &gone], &["index", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let reports: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(reports[0]["notes"], 4);
    assert!(reports[1]["error"].as_str().unwrap().contains("not found"));
    assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
}

#[test]
fn read_links_and_related_in_the_vault_a_note_names() {
    let env = Env::new();
    team(&env);
    let other = vault(
        &env,
        "other",
        &[
            (
                "x.md",
                "# X\nA deploy elsewhere, see [[deploy]].\n\n## Steps\nstep one\n",
            ),
            ("deploy.md", "# Other deploy\nThe other vault's deploy.\n"),
        ],
    );
    let both = [env.vault.as_path(), other.as_path()];
    let read = |note: &str, extra: &[&str]| run(&env, &both, &[&["read", note], extra].concat());
    let out = read("other:x.md", &["--heading", "Steps"]);
    assert_ok(&out);
    assert!(stdout(&out).contains("step one"), "{}", stdout(&out));
    // A path only one vault has needs no name.
    assert_ok(&read("x.md", &[]));
    let out = read("vault:deploy.md", &[]);
    assert_ok(&out);
    assert!(stdout(&out).contains("rollback"), "{}", stdout(&out));
    let out = read("deploy.md", &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("several vaults (vault, other)"), "{err}");
    let out = run(&env, &both, &["links", "--json", "other:x.md"]);
    assert_ok(&out);
    let links: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(links.to_string().contains("deploy.md"), "{links}");
    let out = run(&env, &both, &["related", "--json", "other:deploy.md"]);
    assert_ok(&out);
    let out = run(&env, &both, &["links", "--orphans"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("one vault"), "{}", stderr(&out));
}

#[test]
fn the_skill_names_every_vault() {
    let env = Env::new();
    team(&env);
    let other = vault(&env, "other", &[("x.md", "# X\nA deploy elsewhere.\n")]);
    let out = run(&env, &[&env.vault, &other], &["skill"]);
    assert_ok(&out);
    let md = stdout(&out);
    let line = md
        .lines()
        .find(|l| l.contains("--json --budget 1500"))
        .unwrap();
    // Each vault as a shell word (Windows' paths with `/`, as the skill writes them).
    assert_eq!(line.matches(" --vault ").count(), 2, "{line}");
    assert!(
        line.contains("/vault --vault ") && line.contains("/others/other"),
        "{line}"
    );
    assert!(md.contains("`VAULT:path`"), "{md}");
    let gone = env.root.path().join("gone");
    let out = run(&env, &[&env.vault, &gone], &["skill"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("vault not found"), "{}", stderr(&out));
}
