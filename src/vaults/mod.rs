//! One search over several vaults: each vault searched on its own (its own index, its own
//! engine: Omnisearch answers only for the vault Obsidian has open), at most four at a time,
//! and the answers merged into one ranked list ([`merge`]) that says each hit's vault.
//!
//! A vault that can't be searched (a missing folder, an index that can't be opened) is a
//! warning and an `error` in its entry of `vaults`; the others answer. Only when none can is
//! the search an error.

mod merge;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{bail, Result};

use crate::core::{
    round_to, SearchOptions, SearchResponse, Source, Vault, VaultAnswer, ENGINE_MIXED,
};

/// Vaults searched at the same time (each search uses threads of its own: a walk, a rank).
const THREADS: usize = 4;

/// Runs `opts` (its `vault` ignored) in every one of `vaults` and merges the answers.
pub(crate) fn search(vaults: &[Vault], opts: &SearchOptions) -> Result<SearchResponse> {
    if matches!(opts.source, Source::Both) {
        bail!("--source both compares two engines on one vault: name one vault");
    }
    let started = Instant::now();
    let answers = fan_out(vaults, opts);
    let mut response = SearchResponse {
        query: opts.query.clone(),
        engine: String::new(),
        elapsed_seconds: 0.0,
        vault: joined(vaults),
        total_results: 0,
        results: Vec::new(),
        error: None,
        stale: false,
        watched: true,
        fallback_reason: None,
        omnisearch_hits: None,
        comparison: None,
        warnings: Vec::new(),
        vaults: Vec::new(),
    };
    let mut lists = Vec::new();
    let mut failures = Vec::new();
    for (vault, answer) in vaults.iter().zip(answers) {
        let mut entry = VaultAnswer {
            name: vault.name.clone(),
            path: vault.path.display().to_string(),
            engine: String::new(),
            total_results: 0,
            error: None,
            fallback_reason: None,
            stale: false,
        };
        match answer {
            Ok(mut r) => {
                for w in r.warnings.drain(..) {
                    response.warnings.push(format!("vault {}: {w}", vault.name));
                }
                if let Some(e) = &r.error {
                    response
                        .warnings
                        .push(format!("vault {}: not searched: {e}", vault.name));
                    failures.push(format!("{}: {e}", vault.name));
                }
                for hit in &mut r.results {
                    hit.vault = Some(vault.name.clone());
                }
                entry.engine = r.engine.clone();
                entry.total_results = r.results.len();
                entry.error = r.error;
                entry.fallback_reason = r.fallback_reason;
                entry.stale = r.stale;
                response.stale |= r.stale;
                response.watched &= r.watched;
                lists.push(merge::Ranked {
                    engine: r.engine,
                    hits: r.results,
                });
            }
            Err(e) => {
                let why = format!("{e:#}")
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ");
                response
                    .warnings
                    .push(format!("vault {}: not searched: {why}", vault.name));
                failures.push(format!("{}: {why}", vault.name));
                entry.error = Some(why);
            }
        }
        response.vaults.push(entry);
    }
    if failures.len() == vaults.len() {
        bail!("no vault could be searched: {}", failures.join("; "));
    }
    let engines: Vec<&str> = response
        .vaults
        .iter()
        .filter(|v| v.error.is_none())
        .map(|v| v.engine.as_str())
        .collect();
    response.engine = match engines.split_first() {
        Some((first, rest)) if rest.iter().all(|e| e == first) => (*first).to_string(),
        _ => ENGINE_MIXED.into(),
    };
    response.results = merge::merge(lists, opts.sort, opts.limit);
    response.total_results = response.results.len();
    response.elapsed_seconds = round_to(started.elapsed().as_secs_f64(), 3);
    Ok(response)
}

/// Each vault's own answer, in the order of `vaults`, searched on up to [`THREADS`] threads.
fn fan_out(vaults: &[Vault], opts: &SearchOptions) -> Vec<Result<SearchResponse>> {
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<Result<SearchResponse>>>> =
        vaults.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..THREADS.min(vaults.len()) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(vault) = vaults.get(i) else { break };
                let answer = search_one(vault, opts);
                if let Ok(mut slot) = slots[i].lock() {
                    *slot = Some(answer);
                }
            });
        }
    });
    slots
        .into_iter()
        .map(|slot| {
            slot.into_inner()
                .ok()
                .flatten()
                .unwrap_or_else(|| Err(anyhow::anyhow!("its search stopped unexpectedly")))
        })
        .collect()
}

fn search_one(vault: &Vault, opts: &SearchOptions) -> Result<SearchResponse> {
    if !vault.path.is_dir() {
        bail!("vault not found: {}", vault.path.display());
    }
    let opts = SearchOptions {
        vault: vault.path.clone(),
        ..opts.clone()
    };
    crate::dispatch::search(&opts)
}

/// The vaults' directories joined as a path list (what `OBSIDIAN_VAULT` takes).
fn joined(vaults: &[Vault]) -> String {
    let sep = if cfg!(windows) { ";" } else { ":" };
    vaults
        .iter()
        .map(|v| v.path.display().to_string())
        .collect::<Vec<_>>()
        .join(sep)
}
