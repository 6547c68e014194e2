//! Panics inside tantivy, caught and kept off stderr. A damaged index that slipped past the
//! checksums (damage that kept its files' size and mtime) makes tantivy panic while the index is
//! read or merged; the engine then rebuilds it and says so in one line, so the panic's own
//! message and backtrace must not reach the terminal first. The hook installed here (once, the
//! first time the engine catches) stays silent for a panic on a thread inside [`catch`] and on
//! tantivy's worker threads, and hands every other panic to the hook that was there before.

use std::cell::Cell;
use std::panic::AssertUnwindSafe;
use std::sync::Once;

thread_local! {
    static CATCHING: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f`; a panic in it is returned as its message, never printed.
pub(super) fn catch<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    install();
    let before = CATCHING.with(|c| c.replace(true));
    let caught = std::panic::catch_unwind(AssertUnwindSafe(f));
    CATCHING.with(|c| c.set(before));
    caught.map_err(|payload| {
        payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".to_string())
    })
}

fn install() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !CATCHING.with(Cell::get) && !on_tantivy_thread() {
                previous(info);
            }
        }));
    });
}

/// Tantivy's indexing, merge and segment-updater threads (their names in tantivy 0.27).
fn on_tantivy_thread() -> bool {
    std::thread::current().name().is_some_and(|n| {
        n.starts_with("merge_thread_") || n == "segment_updater" || n.starts_with("thrd-tantivy")
    })
}
