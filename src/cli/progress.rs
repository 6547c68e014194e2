//! The progress bar of long `index` runs: on stderr, only when stderr is a terminal, and only
//! once a run has taken over a second — cron and hooks see nothing but the summary line.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::core::IndexProgress;

/// `  indexing [=====>        ] 1200/3000 notes`: 40 cells wide.
fn bar_line(msg: &str, done: u64, total: u64) -> String {
    const WIDTH: u64 = 40;
    let done = done.min(total);
    let full = (done * WIDTH).checked_div(total).unwrap_or(WIDTH);
    let mut bar = "=".repeat(full as usize);
    if full < WIDTH {
        bar.push('>');
        bar.push_str(&" ".repeat((WIDTH - full - 1) as usize));
    }
    format!("{msg:>10} [{bar}] {done}/{total} notes")
}

/// Shows after this long.
const DELAY: Duration = Duration::from_secs(1);

/// A handle the indexing threads tick; the drawing happens on a thread of its own, started
/// when the run knows its size. Dropping it clears the bar.
#[derive(Debug, Default)]
pub(crate) struct TerminalProgress {
    done: Arc<AtomicU64>,
    committing: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
    ticker: Mutex<Option<JoinHandle<()>>>,
}

impl IndexProgress for TerminalProgress {
    /// Starts the ticker when stderr is a terminal; otherwise everything is a no-op.
    fn start(&self, total: u64) {
        let tty = {
            use std::io::IsTerminal;
            std::io::stderr().is_terminal()
        };
        if !tty {
            return;
        }
        let (done, committing, stop) = (
            self.done.clone(),
            self.committing.clone(),
            self.stop.clone(),
        );
        let ticker = std::thread::spawn(move || {
            let started = Instant::now();
            // Tests shorten the delay to see the bar on a small vault.
            let delay = std::env::var("VAULT_SEARCH_PROGRESS_DELAY_MS")
                .ok()
                .and_then(|v| v.parse().ok())
                .map_or(DELAY, Duration::from_millis);
            let mut drawn = false;
            let mut last = String::new();
            while !stop.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(50));
                if !drawn && started.elapsed() < delay {
                    continue;
                }
                drawn = true;
                let msg = if committing.load(Ordering::Relaxed) {
                    "committing"
                } else {
                    "indexing"
                };
                let line = bar_line(msg, done.load(Ordering::Relaxed), total);
                if line != last {
                    eprint!("\r{line}");
                    last = line;
                }
            }
            if drawn {
                // Clears the line: what stays on the terminal is the summary.
                eprint!("\r{:width$}\r", "", width = last.chars().count());
            }
        });
        if let Ok(mut slot) = self.ticker.lock() {
            *slot = Some(ticker);
        }
    }

    fn inc(&self) {
        self.done.fetch_add(1, Ordering::Relaxed);
    }

    fn committing(&self) {
        self.committing.store(true, Ordering::Relaxed);
    }
}

impl Drop for TerminalProgress {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.ticker.get_mut().ok().and_then(Option::take) {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::bar_line;

    #[test]
    fn draws_the_bar() {
        assert_eq!(
            bar_line("indexing", 0, 4),
            format!("  indexing [>{}] 0/4 notes", " ".repeat(39))
        );
        assert_eq!(
            bar_line("indexing", 2, 4),
            format!(
                "  indexing [{}>{}] 2/4 notes",
                "=".repeat(20),
                " ".repeat(19)
            )
        );
        assert_eq!(
            bar_line("committing", 4, 4),
            format!("committing [{}] 4/4 notes", "=".repeat(40))
        );
        assert_eq!(
            bar_line("indexing", 0, 0),
            format!("  indexing [{}] 0/0 notes", "=".repeat(40))
        );
    }
}
