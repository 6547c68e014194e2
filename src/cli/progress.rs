//! The progress bar of long `index` runs: on stderr, only when stderr is a terminal, and only
//! once a run has taken over a second — cron and hooks see nothing but the summary line.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::core::IndexProgress;

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
            let mut bar: Option<indicatif::ProgressBar> = None;
            while !stop.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(20));
                if bar.is_none() && started.elapsed() >= delay {
                    let b = indicatif::ProgressBar::with_draw_target(
                        Some(total),
                        indicatif::ProgressDrawTarget::stderr(),
                    );
                    if let Ok(style) = indicatif::ProgressStyle::with_template(
                        "{msg:>10} [{bar:40}] {pos}/{len} notes",
                    ) {
                        b.set_style(style.progress_chars("=> "));
                    }
                    bar = Some(b);
                }
                if let Some(b) = &bar {
                    b.set_position(done.load(Ordering::Relaxed));
                    b.set_message(if committing.load(Ordering::Relaxed) {
                        "committing"
                    } else {
                        "indexing"
                    });
                }
            }
            if let Some(b) = bar {
                b.finish_and_clear();
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
