//! The local engine: a persistent Tantivy index of the vault in the user's cache directory,
//! kept fresh by a stat walk, ranked with the signals of the weights table ([`weights`]).
//!
//! A search first runs the freshness check ([`refresh`]; only changed notes are read) so a
//! note written a second ago is found; `refresh: false` skips it. When another process holds
//! the writer, the last commit is searched without waiting and the answer is marked stale.
//! When the cache directory is missing, read-only or full, the vault is indexed in memory for
//! this call and a warning says why: the search still answers.
//!
//! Layout: [`index`] is the writing side (walk, manifest, plan, write, refresh, the store and
//! its lock, PDF extraction); [`search`] is the reading side (query, filters, ranking, showing
//! a hit). Both stand on [`schema`] and [`analyzer`] (what is indexed), [`checkpoint`] (the
//! stored table that locates a passage), [`stored`] (the one reader of a stored document) and
//! [`weights`] (the ranking weights). The search side never writes: [`fresh`], the freshness
//! decision, is the one place that calls both sides; the index side never imports the search
//! side. [`liveness`] is the heartbeat of a `serve` watcher.

pub(crate) mod analyzer;
mod checkpoint;
mod fresh;
mod index;
mod kept;
pub(crate) mod links;
pub(crate) mod liveness;
mod quiet;
pub(crate) mod schema;
mod search;
mod stored;
mod weights;

pub(crate) use fresh::LocalAnswer;
pub(crate) use kept::Kept;

use std::time::Instant;

use anyhow::Result;

use crate::core::{round_to, IndexOptions, IndexProgress, IndexReport, SearchOptions};
use index::refresh;

pub(crate) use checkpoint::work as passage_work;
#[cfg(feature = "cli")]
pub(crate) use index::extract;
#[cfg(feature = "serve")]
pub(crate) use index::store::now_ns;
pub(crate) use index::store::{Store, WriterLock};
pub(crate) use index::{changed_by_stat, has_pdfs, pdf, skipped_files};
#[cfg(feature = "mcp")]
pub(crate) use search::ignore::Excluded;
#[cfg(test)]
pub(crate) use search::query;

/// A usable committed index of `vault` exists below `cache_dir`.
#[cfg(feature = "mcp")]
pub(crate) fn has_index(cache_dir: &std::path::Path, vault: &std::path::Path) -> bool {
    matches!(
        Store::new(cache_dir, vault).open_current_reader(),
        Ok(Some(_))
    )
}

/// Takes the writer lock of `vault`'s index as an indexer would (`None`: another holds it).
pub(crate) fn writer_lock(
    cache_dir: &std::path::Path,
    vault: &std::path::Path,
) -> Result<Option<WriterLock>> {
    let store = Store::new(cache_dir, vault);
    store.ensure_root()?;
    store.try_lock()
}

/// Builds or updates the index of a vault (`vault-search index`). When another process is
/// indexing, returns at once with `busy: true`.
pub(crate) fn index(opts: &IndexOptions, progress: &dyn IndexProgress) -> Result<IndexReport> {
    let started = Instant::now();
    let store = Store::new(&opts.cache_dir, &opts.vault);
    let lock = match lock_or_busy(&store)? {
        Ok(lock) => lock,
        Err(busy) => return Ok(busy),
    };
    let update = |rebuild| {
        quiet::catch(|| {
            refresh::update(&store, &lock, &opts.vault, opts.limits(), rebuild, progress)
        })
    };
    // An update that fails inside tantivy on a damaged index (a panic, or its error) would
    // fail every later run the same way: the index is rebuilt instead.
    let why = match update(opts.rebuild) {
        Ok(Ok((_, report))) => return Ok(finished(report, started)),
        Ok(Err(e)) if opts.rebuild || !is_damage(&e) => return Err(e),
        Ok(Err(e)) => format!("{e:#}"),
        Err(panic) if opts.rebuild => anyhow::bail!("the index writer failed: {panic}"),
        Err(panic) => panic,
    };
    let (_, mut report) =
        update(true).map_err(|panic| anyhow::anyhow!("the index writer failed: {panic}"))??;
    let why = why.lines().next().unwrap_or("").to_string();
    report
        .warnings
        .insert(0, format!("rebuilding the index (it failed: {why})"));
    Ok(finished(report, started))
}

/// A note's links and backlinks, the broken links or the orphans of `opts.vault`, from its
/// index as fresh as [`fresh_reader`] makes it.
pub(crate) fn vault_links(opts: &crate::core::LinksOptions) -> Result<crate::core::LinksResponse> {
    let started = Instant::now();
    let fresh = fresh_reader(
        &opts.vault,
        opts.cache_dir.as_deref(),
        opts.limits,
        opts.refresh,
        "links",
    )?;
    let mut response = crate::core::LinksResponse {
        vault: opts.vault.display().to_string(),
        stale: fresh.stale,
        watched: fresh.watched,
        warnings: fresh.warnings,
        ..Default::default()
    };
    links::answer(&fresh.searcher, &opts.vault, &opts.query, &mut response)?;
    response.elapsed_seconds = round_to(started.elapsed().as_secs_f64(), 3);
    Ok(response)
}

/// The notes to read after `opts.note`, from the index as fresh as [`fresh_reader`] makes it.
pub(crate) fn vault_related(
    opts: &crate::core::RelatedOptions,
) -> Result<crate::core::RelatedResponse> {
    let started = Instant::now();
    if !(1..=crate::core::MAX_RELATED_LIMIT).contains(&opts.limit) {
        anyhow::bail!(
            "the number of related notes must be 1-{}, not {}",
            crate::core::MAX_RELATED_LIMIT,
            opts.limit
        );
    }
    let fresh = fresh_reader(
        &opts.vault,
        opts.cache_dir.as_deref(),
        opts.limits,
        opts.refresh,
        "related notes",
    )?;
    let excluded = search::ignore::Excluded::of_vault(&opts.vault);
    let (note, results) =
        links::related::related(&fresh.searcher, &opts.vault, &opts.note, opts.limit, &|p| {
            excluded.hides(p)
        })?;
    Ok(crate::core::RelatedResponse {
        vault: opts.vault.display().to_string(),
        note,
        results,
        elapsed_seconds: round_to(started.elapsed().as_secs_f64(), 3),
        stale: fresh.stale,
        watched: fresh.watched,
        warnings: fresh.warnings,
    })
}

/// The committed index of a vault, made current for a question about the whole vault (links,
/// related notes): what reading it may have missed travels beside it.
pub(crate) struct FreshReader {
    pub(crate) searcher: tantivy::Searcher,
    /// Another process was writing the index: this is its last commit.
    pub(crate) stale: bool,
    /// A live `serve` watcher keeps the index current: no walk was made.
    pub(crate) watched: bool,
    pub(crate) warnings: Vec<String>,
}

/// Opens `vault`'s index below `cache_dir`, brought up to date first as [`index`] does —
/// unless a live `serve` watcher keeps it current, as searches trust it too, or `refresh` is
/// off (`--no-refresh`: the last commit as it is; a vault without one is indexed first, as a
/// search without a refresh does). When another process is writing it, its last commit
/// answers and `what` is said to be stale.
pub(crate) fn fresh_reader(
    vault: &std::path::Path,
    cache_dir: Option<&std::path::Path>,
    limits: crate::core::Limits,
    refresh: bool,
    what: &str,
) -> Result<FreshReader> {
    use anyhow::Context;
    let cache = cache_dir.context(
        "no cache directory on this system: pass --cache-dir DIR or set VAULT_SEARCH_CACHE_DIR",
    )?;
    let store = Store::new(cache, vault);
    let watched = refresh && liveness::watcher_is_live(cache, vault);
    if !refresh || watched {
        if let Ok(Some((_, _, reader))) = store.open_current_reader() {
            return Ok(FreshReader {
                searcher: reader.searcher(),
                stale: false,
                watched,
                warnings: Vec::new(),
            });
        }
    }
    let mut index_opts = IndexOptions::new(vault, cache);
    index_opts.pdf = limits.pdf;
    index_opts.max_note_bytes = limits.max_note_bytes;
    let report = index(&index_opts, &crate::core::NoProgress)?;
    let mut warnings = report.warnings;
    if report.busy {
        warnings.push(format!(
            "another process is updating the index; {what} may be stale"
        ));
    }
    let (_, _, reader) = store
        .open_current_reader()
        .map_err(|e| anyhow::anyhow!("{e}"))?
        .context("the vault has no index yet (another process is building it); try again")?;
    Ok(FreshReader {
        searcher: reader.searcher(),
        stale: report.busy,
        watched: false,
        warnings,
    })
}

/// A note's links by path (see [`links::summary`]), from the last committed index as it is
/// (no walk: for a server that keeps the index fresh itself); `Ok(None)` without an index.
#[cfg(feature = "mcp")]
pub(crate) fn note_links(
    cache_dir: &std::path::Path,
    vault: &std::path::Path,
    note: &str,
) -> Result<Option<(String, crate::core::NoteLinks)>> {
    let Ok(Some((_, _, reader))) = Store::new(cache_dir, vault).open_current_reader() else {
        return Ok(None);
    };
    links::summary::note_links(&reader.searcher(), vault, note).map(Some)
}

/// The vault's counts of links, broken links and orphans, from the last committed index as
/// it is; `Ok(None)` without an index.
#[cfg(feature = "mcp")]
pub(crate) fn link_counts(
    cache_dir: &std::path::Path,
    vault: &std::path::Path,
) -> Result<Option<crate::core::LinkCounts>> {
    let Ok(Some((_, _, reader))) = Store::new(cache_dir, vault).open_current_reader() else {
        return Ok(None);
    };
    let excluded = search::ignore::Excluded::of_vault(vault);
    links::summary::counts(&reader.searcher(), vault, &|p| excluded.hides(p)).map(Some)
}

/// Updates the index for the vault-relative `paths` a file watcher saw change, without
/// walking the vault; falls back to [`index`] (the walk) for whatever the paths can't tell
/// (a folder, new caps, an unreadable path) and on any failure, so a damaged index is rebuilt
/// as there.
pub(crate) fn index_paths(
    opts: &IndexOptions,
    paths: &[std::path::PathBuf],
) -> Result<IndexReport> {
    let started = Instant::now();
    let store = Store::new(&opts.cache_dir, &opts.vault);
    let lock = match lock_or_busy(&store)? {
        Ok(lock) => lock,
        Err(busy) => return Ok(busy),
    };
    let limits = opts.limits();
    let updated =
        quiet::catch(|| index::refresh_paths::update(&store, &lock, &opts.vault, limits, paths));
    if let Ok(Ok(Ok(report))) = updated {
        return Ok(finished(report, started));
    }
    // The walk takes the lock itself.
    drop(lock);
    index(opts, &crate::core::NoProgress)
}

/// The writer lock of `store`, or the report of a run that found another process indexing.
fn lock_or_busy(store: &Store) -> Result<std::result::Result<WriterLock, IndexReport>> {
    store.ensure_root()?;
    Ok(store.try_lock()?.ok_or_else(|| IndexReport {
        busy: true,
        index_dir: store.root.display().to_string(),
        ..IndexReport::default()
    }))
}

fn finished(mut report: IndexReport, started: Instant) -> IndexReport {
    report.elapsed_seconds = round_to(started.elapsed().as_secs_f64(), 3);
    report
}

/// An error of tantivy's own (not of the disk under it): what a damaged index gives.
fn is_damage(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<tantivy::TantivyError>()
            .is_some_and(|t| !matches!(t, tantivy::TantivyError::IoError(_)))
    })
}

/// The folders, tags and frontmatter keys an index knows, each with its note count, sorted by
/// name.
#[cfg(feature = "mcp")]
#[derive(Debug, Clone, Default)]
pub(crate) struct Names {
    /// Every folder with notes below it, nested ones by their full path (`Dev/old`).
    pub(crate) folders: Vec<(String, u64)>,
    /// Tags as search compares them (lowercase, no `#`), with each parent of a nested tag.
    pub(crate) tags: Vec<(String, u64)>,
    /// Frontmatter keys (lowercase).
    pub(crate) keys: Vec<(String, u64)>,
    /// The newest modification time of a file in the index (ns since the epoch).
    pub(crate) newest_ns: Option<i64>,
    /// The indexed files Obsidian's Excluded files hide (out of the lists above).
    pub(crate) excluded: u64,
}

/// The names of the committed index of `vault`; `None` without an index.
#[cfg(feature = "mcp")]
pub(crate) fn folders_and_tags(
    cache_dir: &std::path::Path,
    vault: &std::path::Path,
) -> Result<Option<Names>> {
    let Ok(Some((_, _, reader))) = Store::new(cache_dir, vault).open_current_reader() else {
        return Ok(None);
    };
    let searcher = reader.searcher();
    let fields = schema::fields();
    // Obsidian's Excluded files are out of the counts, as they are out of every search.
    let filters = search::ignore::filters(vault, &mut Vec::new());
    let exclusions = search::ignore::queries(&filters, fields.path, &mut Vec::new());
    let hidden = if exclusions.is_empty() {
        Default::default()
    } else {
        search::names::matching(&searcher, exclusions)?
    };
    let terms = |field| {
        if hidden.is_empty() {
            search::names::terms(&searcher, field)
        } else {
            search::names::terms_without(&searcher, field, &hidden)
        }
    };
    let folders = terms(fields.folders)?;
    let tags = terms(fields.tag_paths)?;
    let mut keys = terms(fields.properties)?;
    // `key=value` terms are the values; a key alone is its own term.
    keys.retain(|(k, _)| !k.contains('='));
    let newest_ns = search::names::newest(&searcher, fields.mtime_ns)?;
    Ok(Some(Names {
        folders,
        tags,
        keys,
        newest_ns,
        excluded: hidden.len() as u64,
    }))
}

/// Whether Obsidian's "Excluded files" hide the vault-relative path `rel` from search (not
/// when `app.json` is refused: search then applies no exclusions either, and says so).
///
/// `rel` comes from a client: it is tested as the index spells that file too (escapes read
/// back and spelt again, so `\u{efc3}\u{ef84}rchiv` is `Ärchiv`; each folder as the disk spells
/// it), so no other spelling of an excluded file's path opens it.
#[cfg(feature = "mcp")]
pub(crate) fn excluded_by_obsidian(vault: &std::path::Path, rel: &str) -> bool {
    use crate::paths::namebytes::{spell, unspell};
    let excluded = search::ignore::Excluded::of_vault(vault);
    if excluded.is_empty() {
        return false;
    }
    let canonical = spell(&unspell(rel)).into_owned();
    excluded.hides(rel)
        || excluded.hides(&canonical)
        || excluded.hides(&crate::paths::as_on_disk(vault, &canonical))
}

/// Obsidian's "Excluded files" of the vault, to test many paths.
#[cfg(feature = "mcp")]
pub(crate) fn obsidian_exclusions(vault: &std::path::Path) -> Excluded {
    search::ignore::Excluded::of_vault(vault)
}

/// Runs a local search.
///
/// With a refresh, the stat walk of the vault runs on other threads while this one searches
/// the last commit; when the walk shows the index is current (the usual case), those results
/// are the answer, so the freshness check costs about the walk, not walk + search.
pub(crate) fn search(opts: &SearchOptions) -> Result<LocalAnswer> {
    warm_up();
    let mut warnings = Vec::new();
    let first = quiet::catch(|| fresh::search_once(opts, &mut warnings));
    let why = match first {
        Ok(Ok(mut answer)) => {
            warnings.append(&mut answer.warnings);
            answer.warnings = warnings;
            return Ok(answer);
        }
        // A note a link filter names is not there: the question's fault, not the index's.
        Ok(Err(e)) if e.is::<links::UnknownNote>() => return Err(e),
        Ok(Err(e)) => format!("{e:#}"),
        Err(_) => "the index reader failed".to_string(),
    };
    // The index opened but could not be searched (damaged files that only show when read):
    // rebuild it once and search again.
    let Some(cache) = opts.cache_dir.as_deref() else {
        anyhow::bail!(why);
    };
    let store = Store::new(cache, &opts.vault);
    let Ok(Some(lock)) = store.try_lock() else {
        anyhow::bail!(why);
    };
    let mut warnings = vec![format!(
        "rebuilding the index ({})",
        why.lines().next().unwrap_or("")
    )];
    refresh::update(
        &store,
        &lock,
        &opts.vault,
        opts.limits,
        true,
        &crate::core::NoProgress,
    )?;
    drop(lock);
    let mut answer = fresh::search_once(opts, &mut warnings)?;
    warnings.append(&mut answer.warnings);
    answer.warnings = warnings;
    Ok(answer)
}

/// [`search`], answered from `kept` when it can be (a search without a refresh of its vault):
/// no reopening of the index per search.
pub(crate) fn search_kept(kept: &Kept, opts: &SearchOptions) -> Result<LocalAnswer> {
    match kept.search(opts) {
        Some(answer) => Ok(answer),
        None => search(opts),
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
