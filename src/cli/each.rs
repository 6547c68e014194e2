//! `index` and `status` over several vaults: each vault's run in turn, its report under its
//! name (text: a line `== NAME`, then the report; `--json`: one array, each report with the
//! vault's `name` and `path`, or an `error`). A vault that fails does not stop the others;
//! the command then exits 2 after printing them.

use std::io::{self, Write};

use anyhow::{bail, Result};
use serde::Serialize;

use crate::core::Vault;

/// One vault's report in a `--json` array.
#[derive(Debug, Serialize)]
struct Each<T: Serialize> {
    name: String,
    path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    report: Option<T>,
}

/// Runs `one` for every vault and prints the reports; an error after printing when any failed.
pub(super) fn run<T: Serialize + std::fmt::Display>(
    vaults: &[Vault],
    json: bool,
    out: &mut dyn Write,
    one: &dyn Fn(&Vault) -> Result<T>,
) -> Result<io::Result<()>> {
    let mut all = Vec::with_capacity(vaults.len());
    let mut failed = Vec::new();
    for v in vaults {
        let answer = if v.path.is_dir() {
            one(v)
        } else {
            Err(anyhow::anyhow!("vault not found: {}", v.path.display()))
        };
        let (report, error) = match answer {
            Ok(r) => (Some(r), None),
            Err(e) => {
                let why = super::one_line(&format!("{e:#}"));
                failed.push(format!("{}: {why}", v.name));
                (None, Some(why))
            }
        };
        all.push(Each {
            name: v.name.clone(),
            path: v.path.display().to_string(),
            error,
            report,
        });
    }
    let written = if json {
        super::print::write_json(out, &all)
    } else {
        write_text(out, &all)
    };
    if let Err(e) = written {
        return Ok(Err(e));
    }
    if !failed.is_empty() {
        out.flush()?;
        bail!(
            "{} of {} vaults failed: {}",
            failed.len(),
            vaults.len(),
            failed.join("; ")
        );
    }
    Ok(Ok(()))
}

fn write_text<T: Serialize + std::fmt::Display>(
    out: &mut dyn Write,
    all: &[Each<T>],
) -> io::Result<()> {
    for (i, e) in all.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        writeln!(
            out,
            "== {} ({})",
            crate::text::terminal::escape_controls(&e.name),
            crate::text::terminal::escape_controls(&e.path)
        )?;
        match (&e.report, &e.error) {
            (Some(r), _) => {
                let text = r.to_string();
                write!(out, "{text}")?;
                if !text.ends_with('\n') {
                    writeln!(out)?;
                }
            }
            (None, Some(why)) => writeln!(out, "not done: {why}")?,
            (None, None) => {}
        }
    }
    Ok(())
}
