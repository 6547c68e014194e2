//! Two things the compiler can't know by itself: how to link the binary on Linux, and what
//! `--version` should say about the build.
//!
//! **Relocations.** Packs the executable's relative relocations (`DT_RELR`) on Linux with
//! glibc. The binary is position-independent (full address randomisation), so the loader
//! relocates some 20,000 pointers at every start — and every search is a new process. Packed,
//! they take a few kilobytes instead of ~490 KB of the binary and are applied several times
//! faster. The linker packs them only when the glibc it links against supports `DT_RELR` (2.36
//! and later); otherwise it leaves them as they are. Only the binary is affected.
//!
//! **Version.** A bug report quoting `vault-search --version` should name the exact build: the
//! commit and the target as well as the version, e.g. `0.1.0 (abc1234 2026-12-01,
//! x86_64-unknown-linux-gnu)`, set as `VAULT_SEARCH_VERSION`. The commit comes from git when
//! the source is a checkout; a crate downloaded from crates.io has no `.git` but a
//! `.cargo_vcs_info.json` naming the commit it was packaged from (no date); anything else —
//! no git installed, a source tarball — says no commit at all rather than guess.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
    println!("cargo:rerun-if-changed=build.rs");

    let manifest_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let target = std::env::var("TARGET").unwrap_or_default();
    let commit = git_commit(&manifest_dir).or_else(|| packaged_commit(&manifest_dir));
    let long = match commit {
        Some(commit) => format!("{version} ({commit}, {target})"),
        None => format!("{version} ({target})"),
    };
    println!("cargo:rustc-env=VAULT_SEARCH_VERSION={long}");
}

/// `abc1234 2026-12-01` for HEAD of the checkout the crate is built from. Only a `.git` right
/// here counts: a crate unpacked inside some other repository (vendored) must not take that
/// repository's commit for its own.
fn git_commit(manifest_dir: &Path) -> Option<String> {
    if !manifest_dir.join(".git").exists() {
        return None;
    }
    // A new commit or a checkout moves HEAD or the branch it names; nothing else should make
    // every build run this script again.
    for path in head_files(manifest_dir) {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    let out = git(
        manifest_dir,
        &["log", "-1", "--format=%h %cs", "--abbrev=7"],
    )?;
    (!out.is_empty()).then_some(out)
}

/// The files whose change means HEAD names another commit: `HEAD` itself, the branch file it
/// points to, and `packed-refs` (where the branch lives once git packs it). In a worktree
/// `HEAD` is in the worktree's git dir, the branches in the common one. Only files that exist:
/// Cargo reruns the script at every build for a missing one.
fn head_files(manifest_dir: &Path) -> Vec<PathBuf> {
    let absolute = |p: String| manifest_dir.join(p);
    let (Some(git_dir), Some(common_dir)) = (
        git(manifest_dir, &["rev-parse", "--git-dir"]).map(absolute),
        git(manifest_dir, &["rev-parse", "--git-common-dir"]).map(absolute),
    ) else {
        return Vec::new();
    };
    let mut files = vec![git_dir.join("HEAD"), common_dir.join("packed-refs")];
    if let Some(branch) = git(manifest_dir, &["symbolic-ref", "-q", "HEAD"]) {
        files.push(common_dir.join(branch));
    }
    files.retain(|f| f.is_file());
    files
}

/// The commit `cargo package` recorded (`"sha1": "…"` in `.cargo_vcs_info.json`), shortened.
fn packaged_commit(manifest_dir: &Path) -> Option<String> {
    let info = std::fs::read_to_string(manifest_dir.join(".cargo_vcs_info.json")).ok()?;
    // Relative on purpose. `cargo package` verifies the crate in the checkout's target
    // directory, where this script's output can stand for the checkout's own build (the same
    // unit hash); there the file is missing, so the checkout's next build runs this script
    // again instead of keeping the package's version string.
    println!("cargo:rerun-if-changed=.cargo_vcs_info.json");
    // A hand-rolled look-up: a build script with its own JSON dependency would build it for
    // every user of the crate, for one field.
    let after_key = info.split("\"sha1\"").nth(1)?;
    let sha: String = after_key
        .trim_start_matches([' ', ':', '"', '\n', '\r', '\t'])
        .chars()
        .take_while(char::is_ascii_hexdigit)
        .take(7)
        .collect();
    (sha.len() == 7).then_some(sha)
}

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    Some(String::from_utf8(out.stdout).ok()?.trim().to_owned())
}
