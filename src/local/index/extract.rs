//! PDF text for the index: from the cache when this exact file (by blake3) was extracted
//! before, otherwise from a child process that extracts one PDF and prints its pages as JSON.
//!
//! Why a child process: a hostile or broken PDF can make a parser loop, recurse deeply or
//! allocate without bound, and a thread can be neither killed nor capped in memory. The child
//! runs under a wall-time limit (killed when it is over) and a memory limit it sets on itself
//! before it reads the file: an address-space limit on Unix (`RLIMIT_AS`), a Job Object's cap
//! on committed memory on Windows (`job`); its output is read up to a cap. Whatever happens to
//! it — crash, abort, out of memory, timeout, garbage on stdout — comes back as a reason, never
//! as a failure of this process. The time limit and the output cap apply everywhere; the
//! memory limit where it is enforced (Linux, the BSDs and Windows; macOS accepts `RLIMIT_AS`
//! but does not enforce it).
//!
//! The result — pages or the reason of a failure — is cached by the file's hash, so neither a
//! re-index nor a `--rebuild` extracts an unchanged PDF again.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::store;
use crate::core::PdfLimits;

/// The hidden subcommand of the `vault-search` binary that extracts one PDF.
pub(crate) const SUBCOMMAND: &str = "__extract-pdf";
/// Extracted text larger than this is refused (and the child killed).
const MAX_OUTPUT_BYTES: u64 = 64 * 1024 * 1024;

/// What the child prints, and what the cache holds.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct Extracted {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) pages: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<String>,
    /// Set when the extraction ran out of time: the time limit it had (ms). A cached timeout
    /// holds only for a limit no longer than that one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) timed_out_ms: Option<u64>,
    /// The blake3 of the bytes the child read (hex). The child reads the file anew, so this
    /// tells whether it saw what the parent hashed; not kept in the cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) read_hash: Option<String>,
    /// The extractor could not be run at all (not cached: nothing about the file is known).
    #[serde(skip)]
    pub(crate) not_run: bool,
}

/// What came of one PDF.
#[derive(Debug)]
pub(in crate::local) enum Outcome {
    /// The text of each page.
    Pages(Vec<String>),
    /// Why it has no text (encrypted, malformed, no text layer, over a limit).
    Failed(String),
    /// Not extracted: this run's budget is spent.
    Pending,
}

/// Extracts PDFs for one run.
#[derive(Debug)]
pub(in crate::local) struct Extractor<'a> {
    program: &'static Path,
    limits: PdfLimits,
    cache: Option<&'a Path>,
    /// Extractions this run may still start (`None`: no budget).
    left: Option<AtomicU32>,
}

impl<'a> Extractor<'a> {
    /// `None` when PDFs are not indexed.
    pub(in crate::local) fn new(
        limits: PdfLimits,
        cache: Option<&'a Path>,
    ) -> Option<Extractor<'a>> {
        Some(Extractor {
            program: limits.extractor?,
            limits,
            cache,
            left: limits.per_run.map(AtomicU32::new),
        })
    }

    /// The pages of the PDF at `path` whose content is `bytes` (hash `hash`).
    pub(in crate::local) fn pdf(&self, path: &Path, bytes: &[u8], hash: &blake3::Hash) -> Outcome {
        let cached = self
            .cache
            .map(|dir| dir.join(format!("{}.json", hash.to_hex())));
        if let Some(hit) = cached.as_deref().and_then(read_cache) {
            let longer_limit = hit
                .timed_out_ms
                .is_some_and(|ms| self.limits.timeout_ms > ms);
            if !longer_limit {
                return outcome(hit);
            }
        }
        if let Some(left) = &self.left {
            let took =
                left.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1));
            if took.is_err() {
                return Outcome::Pending;
            }
        }
        // Checked here, not only by the parser: a file that is no PDF at all costs no process.
        let extracted = if !bytes.starts_with(b"%PDF-")
            && !bytes[..bytes.len().min(1024)]
                .windows(5)
                .any(|w| w == b"%PDF-")
        {
            failed("not a PDF (no %PDF- header)")
        } else {
            let mut e = run_child(self.program, path, self.limits);
            // Written between the parent's read and the child's: this text is another
            // version's. Not cached; the changed file is read again by the next update.
            if e.read_hash
                .take()
                .is_some_and(|h| h != hash.to_hex().as_str())
            {
                e = not_run("the PDF changed while it was being read");
            }
            e
        };
        if let (Some(file), Some(dir)) = (cached.as_deref(), self.cache) {
            if !extracted.not_run {
                write_cache(dir, file, &extracted);
            }
        }
        outcome(extracted)
    }
}

fn failed(why: impl Into<String>) -> Extracted {
    Extracted {
        pages: None,
        error: Some(why.into()),
        timed_out_ms: None,
        read_hash: None,
        not_run: false,
    }
}

/// The extractor could not be started or read: says nothing about the file.
fn not_run(why: impl Into<String>) -> Extracted {
    Extracted {
        not_run: true,
        ..failed(why)
    }
}

fn outcome(e: Extracted) -> Outcome {
    match (e.pages, e.error) {
        (_, Some(why)) => Outcome::Failed(why),
        (Some(pages), None) if pages.iter().all(|p| p.trim().is_empty()) => {
            Outcome::Failed("no text layer (a scan without OCR?)".into())
        }
        (Some(pages), None) => Outcome::Pages(pages),
        (None, None) => Outcome::Failed("the extractor gave no pages".into()),
    }
}

fn read_cache(file: &Path) -> Option<Extracted> {
    let bytes = std::fs::read(file).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Best effort: a cache that can't be written only means extracting again next time.
fn write_cache(dir: &Path, file: &Path, e: &Extracted) {
    if store::create_private_dir(dir).is_err() {
        return;
    }
    let Ok(json) = serde_json::to_vec(e) else {
        return;
    };
    let tmp = file.with_extension(format!("tmp{}", std::process::id()));
    if std::fs::write(&tmp, json).is_ok() {
        store::set_private_file(&tmp);
        if std::fs::rename(&tmp, file).is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
    }
}

/// Runs the extractor on one file under the time, memory and output limits.
fn run_child(program: &Path, path: &Path, limits: PdfLimits) -> Extracted {
    let mut cmd = Command::new(program);
    cmd.arg(SUBCOMMAND)
        .arg(limits.max_memory_bytes.to_string())
        .arg(path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    // A console program started by a process without a console (an MCP server run by a desktop
    // app) gets a console window of its own on Windows, one flash per PDF: CREATE_NO_WINDOW.
    #[cfg(windows)]
    {
        use std::os::windows::process::CommandExt;
        cmd.creation_flags(0x0800_0000);
    }
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => return not_run(format!("cannot start the PDF extractor: {e}")),
    };
    let Some(stdout) = child.stdout.take() else {
        let _ = child.kill();
        let _ = child.wait();
        return not_run("cannot read the PDF extractor");
    };
    // Read on a thread so that a child that fills the pipe never blocks the time limit.
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        let r = stdout.take(MAX_OUTPUT_BYTES + 1).read_to_end(&mut out);
        r.map(|_| out)
    });
    let deadline = Instant::now() + Duration::from_millis(limits.timeout_ms);
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break Some(st),
            Ok(None) if Instant::now() >= deadline => break None,
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(_) => break None,
        }
    };
    let Some(status) = status else {
        let _ = child.kill();
        let _ = child.wait();
        let _ = reader.join();
        return Extracted {
            timed_out_ms: Some(limits.timeout_ms),
            ..failed(format!(
                "extraction took longer than {:.2} s",
                limits.timeout_ms as f64 / 1000.0
            ))
        };
    };
    let out = match reader.join() {
        Ok(Ok(out)) => out,
        _ => return not_run("cannot read the PDF extractor's output"),
    };
    if out.len() as u64 > MAX_OUTPUT_BYTES {
        return failed(format!(
            "more than {} MiB of text",
            MAX_OUTPUT_BYTES / 1024 / 1024
        ));
    }
    if !status.success() {
        return failed(format!(
            "the extractor failed ({status}; out of memory, or a crash in the PDF parser)"
        ));
    }
    serde_json::from_slice(&out).unwrap_or_else(|_| failed("the extractor's output is not JSON"))
}

#[cfg(test)]
#[cfg(unix)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    /// A stand-in extractor that answers one page and says it read bytes hashing to `read`.
    fn fake_extractor(dir: &Path, name: &str, read: &blake3::Hash) -> &'static Path {
        let json = serde_json::json!({ "pages": ["the platypus chapter"], "read_hash": read.to_hex().as_str() });
        let path = dir.join(name);
        std::fs::write(&path, format!("#!/bin/sh\ncat <<'EOF'\n{json}\nEOF\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        // A process another test forks meanwhile may hold the written file open until its
        // exec ("text file busy"): wait until it runs.
        let deadline = Instant::now() + Duration::from_secs(30);
        while Command::new(&path).output().is_err() {
            assert!(Instant::now() < deadline, "cannot run {}", path.display());
            std::thread::sleep(Duration::from_millis(20));
        }
        Box::leak(path.into_boxed_path())
    }

    #[test]
    fn text_of_another_version_of_the_pdf_is_neither_kept_nor_cached() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("cache");
        let pdf = dir.path().join("a.pdf");
        std::fs::write(&pdf, b"%PDF-1.4 written after the parent read it").unwrap();
        let parent_read: &[u8] = b"%PDF-1.4 as the parent read it";
        let hash = blake3::hash(parent_read);
        let limits = |program| PdfLimits {
            extractor: Some(program),
            per_run: None,
            ..PdfLimits::default()
        };

        let other = fake_extractor(dir.path(), "other", &blake3::hash(b"%PDF-1.4 other"));
        let x = Extractor::new(limits(other), Some(&cache)).unwrap();
        let got = x.pdf(&pdf, parent_read, &hash);
        assert!(
            matches!(&got, Outcome::Failed(why) if why.contains("changed")),
            "{got:?}"
        );
        let cached = || std::fs::read_dir(&cache).map_or(0, |d| d.count());
        assert_eq!(cached(), 0);

        let same = fake_extractor(dir.path(), "same", &hash);
        let x = Extractor::new(limits(same), Some(&cache)).unwrap();
        let got = x.pdf(&pdf, parent_read, &hash);
        assert!(matches!(&got, Outcome::Pages(p) if p.len() == 1), "{got:?}");
        assert!(cache.join(format!("{}.json", hash.to_hex())).is_file());
    }
}
