//! What a run shows while it measures: on a terminal, indicatif's progress bar; elsewhere (a CI
//! log), a line per scenario finished and, while one runs, a heartbeat line every
//! [`HEARTBEAT_ENV`] seconds (30 by default) naming it and how long it has run, so that a hung
//! scenario is never minutes of silence. Neither ever names the internal residual scenario.
//! It owns no measuring: the phases tell it what starts and what finished.

use costbench_protocol::RESIDUAL_SCENARIO;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::collections::HashMap;
use std::io::IsTerminal;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::ThreadId;
use std::time::{Duration, Instant};

/// Seconds between heartbeat lines when stderr is not a terminal (default 30).
pub const HEARTBEAT_ENV: &str = "COSTBENCH_HEARTBEAT_SECS";

/// The default seconds between heartbeat lines.
const DEFAULT_HEARTBEAT_SECS: u64 = 30;

/// The progress of one run, shared by its sides (clones show the same bar or log).
#[derive(Clone)]
pub(crate) struct Progress {
    bar: ProgressBar,
    plain: Option<Arc<Plain>>,
}

/// The log of a run without a terminal.
struct Plain {
    state: Mutex<State>,
    stopped: Mutex<bool>,
    wake: Condvar,
    timeout: Duration,
}

struct State {
    /// What each measuring thread started last (an instrument's name and an id, such as
    /// `icount lookup/checked`), and when: with `--measure-jobs N`, N scenarios run at once, one
    /// per thread.
    running: HashMap<ThreadId, (String, Instant)>,
    done: u64,
    total: u64,
}

/// Whether a message names the internal residual scenario, which the user never sees.
fn internal(msg: &str) -> bool {
    msg.contains(RESIDUAL_SCENARIO)
}

/// The heartbeat interval: [`HEARTBEAT_ENV`] when it holds a positive number of seconds.
fn heartbeat_interval() -> Duration {
    let secs = std::env::var(HEARTBEAT_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|&s| s > 0)
        .unwrap_or(DEFAULT_HEARTBEAT_SECS);
    Duration::from_secs(secs)
}

impl Progress {
    /// Progress over `total` steps: nothing when `show` is off, a bar on a terminal, a log
    /// with heartbeats otherwise. `timeout` is the scenario timeout the heartbeat mentions.
    pub(crate) fn new(total: u64, show: bool, timeout: Duration) -> Progress {
        let terminal = std::io::stderr().is_terminal();
        let bar = ProgressBar::with_draw_target(
            Some(total),
            if show && terminal {
                ProgressDrawTarget::stderr()
            } else {
                ProgressDrawTarget::hidden()
            },
        );
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}",
            )
            .expect("the template is valid"),
        );
        let plain = (show && !terminal).then(|| {
            let plain = Arc::new(Plain {
                state: Mutex::new(State {
                    running: HashMap::new(),
                    done: 0,
                    total,
                }),
                stopped: Mutex::new(false),
                wake: Condvar::new(),
                timeout,
            });
            let beat = Arc::clone(&plain);
            std::thread::spawn(move || beat.heartbeat(heartbeat_interval()));
            plain
        });
        Progress { bar, plain }
    }

    /// What runs now (an instrument's name and an id, such as `icount lookup/checked`): the
    /// bar's message, the heartbeat's subject.
    /// The residual scenario is measured but never shown.
    pub(crate) fn set_message(&self, msg: String) {
        if internal(&msg) {
            return;
        }
        if let Some(p) = &self.plain {
            p.state
                .lock()
                .expect("no printer panicked")
                .running
                .insert(std::thread::current().id(), (msg.clone(), Instant::now()));
        }
        self.bar.set_message(msg);
    }

    /// `n` steps done without a line of their own (an instrument skipped for every scenario).
    pub(crate) fn inc(&self, n: u64) {
        if let Some(p) = &self.plain {
            p.state.lock().expect("no printer panicked").done += n;
        }
        self.bar.inc(n);
    }

    /// One step done: `what` (such as `icount lookup/checked`) finished; its line in a log.
    pub(crate) fn done(&self, what: &str) {
        if let Some(p) = &self.plain {
            let mut s = p.state.lock().expect("no printer panicked");
            s.done += 1;
            crate::terminal::status("Measured", format!("{what} ({} of {})", s.done, s.total));
            s.running.remove(&std::thread::current().id());
        }
        self.bar.inc(1);
    }

    /// More steps than first counted (the rows a phase adds when it starts, `OwnPhase::counted`).
    pub(crate) fn inc_length(&self, n: u64) {
        if let Some(p) = &self.plain {
            p.state.lock().expect("no printer panicked").total += n;
        }
        self.bar.inc_length(n);
    }

    /// Runs `f` with the bar out of the way, for a line of its own.
    pub(crate) fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        self.bar.suspend(f)
    }

    /// The run is over: the bar cleared, the heartbeat stopped.
    pub(crate) fn finish_and_clear(&self) {
        if let Some(p) = &self.plain {
            *p.stopped.lock().expect("no printer panicked") = true;
            p.wake.notify_all();
        }
        self.bar.finish_and_clear();
    }
}

impl Plain {
    /// Every `every`, until stopped: a line naming what runs and for how long.
    fn heartbeat(&self, every: Duration) {
        let mut stopped = self.stopped.lock().expect("no printer panicked");
        loop {
            let (guard, _) = self
                .wake
                .wait_timeout_while(stopped, every, |s| !*s)
                .expect("no printer panicked");
            stopped = guard;
            if *stopped {
                return;
            }
            let s = self.state.lock().expect("no printer panicked");
            // The one that has run longest: the likeliest to hang.
            if let Some((what, since)) = s.running.values().min_by_key(|(_, since)| *since) {
                crate::terminal::status(
                    "Running",
                    format!(
                        "{what}: {} s so far (a scenario is stopped after {} s; {} of {} done)",
                        since.elapsed().as_secs(),
                        self.timeout.as_secs(),
                        s.done,
                        s.total
                    ),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_residual_scenario_is_never_shown() {
        let p = Progress::new(3, false, Duration::from_secs(1));
        p.set_message("icount a".into());
        p.set_message(format!("icount {RESIDUAL_SCENARIO}"));
        assert_eq!(p.bar.message(), "icount a");
    }
}
