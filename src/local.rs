//! The local engine: make sure the index is fresh, then search it.
//!
//! A search first runs the freshness check (a stat walk; only changed notes are read) so a
//! note written a second ago is found; `--no-refresh` skips it. When another process holds the
//! writer, the last commit is searched without waiting and the answer is marked stale. When
//! the cache directory is missing, read-only or full, the vault is indexed in memory for this
//! run and the reason goes to stderr: the search still answers.

use std::time::Duration;

use anyhow::{Context, Result};
use tantivy::collector::TopDocs;
use tantivy::{Index, ReloadPolicy, Searcher};

use crate::config::DEFAULT_MAX_NOTE_BYTES;
use crate::engine::{SearchOptions, ENGINE_LOCAL};
use crate::index;
use crate::output::{round_to, SearchHit};
use crate::query;
use crate::rank;
use crate::schema;
use crate::store::{Store, WriterLock};

/// What the local engine found.
#[derive(Debug, Clone, Default)]
pub struct LocalAnswer {
    pub hits: Vec<SearchHit>,
    /// The index could not be refreshed (another process is writing it).
    pub stale: bool,
    /// The freshness walk was skipped: a live `serve` watcher keeps the index current.
    pub watched: bool,
}

/// Runs a local search.
///
/// With a refresh, the stat walk of the vault runs on other threads while this one searches
/// the last commit; when the walk shows the index is current (the usual case), those results
/// are the answer, so the freshness check costs about the walk, not walk + search.
pub fn search(opts: &SearchOptions) -> Result<LocalAnswer> {
    warm_up();
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| search_once(opts))) {
        Ok(Ok(answer)) => Ok(answer),
        failed => {
            // The index opened but could not be searched (damaged files that only show when
            // read): rebuild it once and search again.
            let why = match failed {
                Ok(Err(e)) => format!("{e:#}"),
                _ => "the index reader failed".to_string(),
            };
            let Some(cache) = opts.cache_dir.as_deref() else {
                anyhow::bail!(why);
            };
            let store = Store::new(cache, &opts.vault);
            let Ok(Some(lock)) = store.try_lock() else {
                anyhow::bail!(why);
            };
            warn(&format!(
                "rebuilding the index ({})",
                why.lines().next().unwrap_or("")
            ));
            update(&store, &lock, opts, true)?;
            drop(lock);
            search_once(opts)
        }
    }
}

/// Builds, on a spare core, what tantivy builds once per process the first time a query reads
/// a field that some segment has no terms for: an empty term dictionary, whose construction
/// (a 20,000-cell FST builder) costs ~0.8 ms — a fifth of a whole search. That happens in
/// most vaults: tags or aliases used nowhere, or the small segments that incremental updates
/// commit (one note without headings is enough). Started before the index is opened, it is
/// usually ready when the query needs it; when no field is missing it costs that CPU on
/// another core and no wall time.
fn warm_up() {
    std::thread::spawn(|| drop(tantivy::termdict::TermDictionary::empty()));
}

fn search_once(opts: &SearchOptions) -> Result<LocalAnswer> {
    let watched = opts.refresh
        && opts
            .cache_dir
            .as_deref()
            .is_some_and(|cache| crate::liveness::watcher_is_live(cache, &opts.vault));
    if watched {
        // Searched as `--no-refresh` does; if the committed index can't be opened, the code
        // below updates it as without a watcher.
        let unrefreshed = SearchOptions {
            refresh: false,
            ..opts.clone()
        };
        let mut answer = search_once_as_asked(&unrefreshed)?;
        answer.watched = true;
        return Ok(answer);
    }
    search_once_as_asked(opts)
}

fn search_once_as_asked(opts: &SearchOptions) -> Result<LocalAnswer> {
    if opts.refresh {
        if let Some(answer) = search_overlapped(opts)? {
            return Ok(answer);
        }
    }
    if !opts.refresh {
        if let Some(cache) = opts.cache_dir.as_deref() {
            if let Ok(Some((_, _, reader))) = Store::new(cache, &opts.vault).open_current_reader() {
                let hits = search_index(&reader.searcher(), opts)?;
                return Ok(LocalAnswer {
                    hits,
                    stale: false,
                    watched: false,
                });
            }
        }
    }
    let (index, stale) = open_fresh(opts)?;
    let searcher = open_searcher(&index)?;
    let hits = search_index(&searcher, opts)?;
    Ok(LocalAnswer {
        hits,
        stale,
        watched: false,
    })
}

/// The refresh + search fast path; `None` when there is no usable index yet.
fn search_overlapped(opts: &SearchOptions) -> Result<Option<LocalAnswer>> {
    let Some(cache) = opts.cache_dir.as_deref() else {
        return Ok(None);
    };
    let store = Store::new(cache, &opts.vault);
    // The walk starts first, before the index is even opened: it needs nothing from it and
    // it is the long part. The notes it finds are compared as they come once the search is
    // done; unreadable entries don't decide whether the index is current.
    let (found, _) = index::with_walk(&opts.vault, |disk| {
        let Ok(Some((_, payload, reader))) = store.open_current_reader() else {
            return Ok(None);
        };
        let searcher = reader.searcher();
        let hits = search_index(&searcher, opts)?;
        let known = crate::manifest::Manifest::read(&searcher)?;
        let plan = index::plan_with(
            &searcher,
            known,
            Some(&payload),
            &opts.vault,
            disk,
            DEFAULT_MAX_NOTE_BYTES,
        )?;
        Ok(Some((hits, plan)))
    })?;
    let Some((hits, plan)) = found else {
        return Ok(None);
    };
    if plan.is_noop() && !plan.wants_bump() {
        return Ok(Some(LocalAnswer {
            hits,
            stale: false,
            watched: false,
        }));
    }
    if plan.is_noop() {
        // Current, but racily clean notes were re-read: record this run so later searches
        // don't read them again (best effort; the answer is already right).
        if let Ok(Some(lock)) = store.try_lock() {
            let _ = update(&store, &lock, opts, false);
        }
        return Ok(Some(LocalAnswer {
            hits,
            stale: false,
            watched: false,
        }));
    }
    // The vault changed: update the index (if nobody else is writing; the update walks again,
    // under the lock) and search again.
    let (index, stale) = open_fresh(opts)?;
    if stale {
        return Ok(Some(LocalAnswer {
            hits,
            stale,
            watched: false,
        }));
    }
    let searcher = open_searcher(&index)?;
    let hits = search_index(&searcher, opts)?;
    Ok(Some(LocalAnswer {
        hits,
        stale,
        watched: false,
    }))
}

/// Updates (or with `rebuild`, rebuilds) the index for a search: default size cap, no
/// progress bar.
fn update(
    store: &Store,
    lock: &WriterLock,
    opts: &SearchOptions,
    rebuild: bool,
) -> Result<(Index, crate::output::IndexReport)> {
    index::update(
        store,
        lock,
        &opts.vault,
        DEFAULT_MAX_NOTE_BYTES,
        rebuild,
        false,
    )
}

fn warn(msg: &str) {
    eprintln!("vault-search: {msg}");
}

/// The index to search, brought up to date under the writer lock; `(index, stale)`.
///
/// Callers have already tried the committed index for a search without refresh, so this
/// always takes the writer (or falls back to the last commit, or to memory).
fn open_fresh(opts: &SearchOptions) -> Result<(Index, bool)> {
    let in_memory = |why: String| -> Result<(Index, bool)> {
        warn(&format!(
            "{why}; indexing the vault in memory for this search"
        ));
        let (index, _) = index::build_in_memory(&opts.vault, DEFAULT_MAX_NOTE_BYTES)?;
        Ok((index, false))
    };
    let Some(cache) = opts.cache_dir.as_deref() else {
        return in_memory("no cache directory on this system".into());
    };
    let store = Store::new(cache, &opts.vault);
    if let Err(e) = store.ensure_root() {
        return in_memory(format!("{e:#}"));
    }
    match store.try_lock() {
        Ok(Some(lock)) => match update(&store, &lock, opts, false) {
            Ok((index, _)) => Ok((index, false)),
            Err(e) => {
                let why = format!("cannot update the index: {e:#}");
                match store.open_current() {
                    Ok(Some((index, _))) => {
                        warn(&format!("{why}; searching the last committed index"));
                        Ok((index, true))
                    }
                    _ => in_memory(why),
                }
            }
        },
        Ok(None) => match store.open_current() {
            Ok(Some((index, _))) => Ok((index, opts.refresh)),
            _ => in_memory("another process is building the index".into()),
        },
        Err(e) => match store.open_current() {
            Ok(Some((index, _))) => {
                warn(&format!("{e:#}; searching the index without refreshing it"));
                Ok((index, true))
            }
            _ => in_memory(format!("{e:#}")),
        },
    }
}

/// Opens a searcher; retried briefly because a concurrent writer may remove the files of an
/// older commit between our reading `meta.json` and opening its segments.
fn open_searcher(index: &Index) -> Result<Searcher> {
    let mut last = None;
    for attempt in 0..5u64 {
        match index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
        {
            Ok(r) => {
                let r: tantivy::IndexReader = r;
                return Ok(r.searcher());
            }
            Err(e) => {
                last = Some(e);
                std::thread::sleep(Duration::from_millis(10 * (attempt + 1)));
            }
        }
    }
    Err(last.map_or_else(
        || anyhow::anyhow!("cannot open the index"),
        anyhow::Error::from,
    ))
    .context("cannot open the index for searching")
}

/// Searches an opened index.
pub fn search_index(searcher: &Searcher, opts: &SearchOptions) -> Result<Vec<SearchHit>> {
    let fields = schema::fields();
    let mut analyzer = crate::analyzer::text_analyzer();
    let parsed = query::parse(&mut analyzer, &opts.query);
    if parsed.is_empty() {
        return Ok(Vec::new());
    }
    let mut terms = rank::expand_query(searcher, fields, &parsed)?;
    rank::set_rarity(searcher, fields, &mut terms)?;
    // Excluded phrases are filtered after the candidates: fetch more so the limit still fills.
    let k = rank::CANDIDATES.max(opts.limit)
        * if parsed.excluded_phrases.is_empty() {
            1
        } else {
            2
        };
    let collector = TopDocs::with_limit(k).order_by_score();
    let mut candidates = Vec::new();
    // Quoted phrases are required; when no note has them, fall back to ranking without the
    // requirement rather than answering nothing.
    let tries: &[bool] = if parsed.phrases.is_empty() {
        &[false]
    } else {
        &[true, false]
    };
    for &require in tries {
        let ignored = if opts.include_ignored {
            Vec::new()
        } else {
            crate::ignore::queries(&crate::ignore::filters(&opts.vault), fields.path)
        };
        let q = rank::candidate_query(fields, &parsed, &terms, require, &opts.scope, ignored);
        candidates = searcher
            .search(&q, &collector)
            .context("searching the index")?;
        if !candidates.is_empty() {
            break;
        }
    }
    let ranked = rank::rerank(searcher, fields, &parsed, &terms, &candidates, opts.limit)?;
    Ok(ranked
        .into_iter()
        .map(|r| SearchHit {
            path: r.path,
            basename: r.basename,
            score: round_to(r.score, 2),
            excerpt: r.excerpt,
            engine: ENGINE_LOCAL.into(),
            line: r.line,
            heading: r.heading,
            tags: r.tags,
            aliases: r.aliases,
            matched: r.matched,
            highlight: r.highlight,
        })
        .collect())
}
