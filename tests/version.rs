//! `--version` through the real binary: what a bug report quotes must name the build.

use std::process::Command;

use crate::util::{assert_ok, stdout, Start};

/// `vault-search 0.1.0 (abc1234 2026-12-01, x86_64-unknown-linux-gnu)`: the version, the
/// commit when the source knows one (with its date from a checkout), and the target this
/// binary was built for.
#[test]
fn version_names_the_version_the_commit_and_the_target() {
    for flag in ["--version", "-V"] {
        let out = Command::new(env!("CARGO_BIN_EXE_vault-search"))
            .arg(flag)
            .output_retried();
        assert_ok(&out);
        let text = stdout(&out);
        let line = text.strip_suffix('\n').expect("one line");
        assert!(!line.contains('\n'), "{line:?}");
        let prefix = concat!("vault-search ", env!("CARGO_PKG_VERSION"), " (");
        let inside = line
            .strip_prefix(prefix)
            .and_then(|rest| rest.strip_suffix(')'))
            .unwrap_or_else(|| panic!("{line:?}: not `{prefix}…)`"));
        let (commit, target) = match inside.rsplit_once(", ") {
            Some((commit, target)) => (Some(commit), target),
            None => (None, inside),
        };
        if let Some(commit) = commit {
            let mut parts = commit.split(' ');
            let hash = parts.next().unwrap();
            assert!(
                hash.len() >= 7 && hash.chars().all(|c| c.is_ascii_hexdigit()),
                "{line:?}: the commit is a short hash"
            );
            if let Some(date) = parts.next() {
                let digits: Vec<&str> = date.split('-').collect();
                assert!(
                    digits.len() == 3 && digits.iter().all(|d| d.parse::<u32>().is_ok()),
                    "{line:?}: the commit date is YYYY-MM-DD"
                );
            }
            assert_eq!(parts.next(), None, "{line:?}");
        }
        // The target triple, checked against what this test binary was built for (the same
        // target): `x86_64-unknown-linux-gnu`, `aarch64-apple-darwin`, `x86_64-pc-windows-msvc`.
        let os = match std::env::consts::OS {
            "macos" => "apple-darwin",
            os => os,
        };
        assert!(
            target.starts_with(std::env::consts::ARCH) && target.contains(os),
            "{line:?}: the target is not {} on {os}",
            std::env::consts::ARCH
        );
    }
}
