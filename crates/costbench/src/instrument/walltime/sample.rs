//! Wall-time sampling inside the scenario process.
//!
//! Single-process scenarios: warm up with batches of doubling size until the warm-up time has
//! passed, size the batch so that one sample lasts `sample_target` (far above the clock's
//! resolution and overhead, which are measured and reported), then take the samples. Inputs for a
//! batch are made before its clock starts, and outputs are dropped after it stops.
//!
//! Parties of a multi-party scenario run in threads and step in lockstep: a barrier before and
//! after each run of the body, with the first party deciding when warm-up ends and when sampling
//! stops. Each party's sample is its thread's CPU time for one run of its body, so time spent
//! waiting for a peer is not charged to it.
//!
//! Off Unix there is no per-thread CPU clock worth the name (Windows' `GetThreadTimes` advances
//! only at scheduler ticks, 15.6 ms by default, far coarser than one run of a body), so there a
//! party's sample is the monotonic clock around its run of the body, waits for peers inside the
//! body included, and the samples say so ([`Clock::Monotonic`]). Lockstep (inherited pipe
//! descriptors) is Unix only; the child refuses `--lockstep` elsewhere.

use costbench_protocol::{Clock, WalltimeSamples};
use std::hint::black_box;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Barrier;
use std::time::{Duration, Instant};

/// How to sample. Defaults: 100 samples of about 1 ms after 200 ms of warm-up, at most 5 s.
#[derive(Debug, Clone)]
pub(crate) struct WalltimeConfig {
    pub samples: u32,
    pub warmup: Duration,
    pub sample_target: Duration,
    /// Cap on the sampling time; `None` takes exactly `samples` samples whatever they cost.
    pub max_time: Option<Duration>,
    /// Take turns with other processes, sample by sample (see [`Lockstep`]).
    pub lockstep: Option<Lockstep>,
}

/// A token ring between the processes of several builds of one scenario, measured together:
/// each process waits for the token before a sample and passes it on after, so their samples
/// alternate a millisecond apart and whatever slows the machine down in that moment slows them
/// all alike. The runner passes the two ends as inherited file descriptors.
#[derive(Debug, Clone, Copy)]
// Off Unix the child refuses `--lockstep`, so the descriptors are never read there.
#[cfg_attr(not(unix), allow(dead_code))]
pub(crate) struct Lockstep {
    pub read: i32,
    pub write: i32,
}

impl Lockstep {
    /// Waits for the token. A peer that is gone (end of file, an error) no longer holds anyone
    /// up: sampling goes on alone, so a failing build never stalls the others.
    #[cfg(unix)]
    pub(crate) fn wait(&self) {
        let mut b = [0u8; 1];
        loop {
            // SAFETY: reading one byte into a live one-byte buffer from a descriptor we were given.
            let n = unsafe { libc::read(self.read, b.as_mut_ptr().cast(), 1) };
            if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return;
        }
    }

    /// Passes the token on; a peer that is gone is ignored (Rust ignores SIGPIPE, so this is
    /// an EPIPE error, not a signal).
    #[cfg(unix)]
    pub(crate) fn pass(&self) {
        // SAFETY: writing one byte from a live buffer to a descriptor we were given.
        unsafe { libc::write(self.write, [1u8].as_ptr().cast(), 1) };
    }

    #[cfg(not(unix))]
    pub(crate) fn wait(&self) {
        unreachable!("the child refuses --lockstep off Unix")
    }

    #[cfg(not(unix))]
    pub(crate) fn pass(&self) {
        unreachable!("the child refuses --lockstep off Unix")
    }
}

impl Default for WalltimeConfig {
    fn default() -> Self {
        WalltimeConfig {
            samples: 100,
            warmup: Duration::from_millis(200),
            sample_target: Duration::from_millis(1),
            max_time: Some(Duration::from_secs(5)),
            lockstep: None,
        }
    }
}

/// The fewest samples taken when the time cap cuts sampling short: fewer make the IQR meaningless.
const MIN_SAMPLES: u32 = 10;

fn ns(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// Mean cost of one reading of `now`, in nanoseconds.
fn clock_overhead<T>(mut now: impl FnMut() -> T) -> f64 {
    const N: u32 = 10_000;
    let start = Instant::now();
    for _ in 0..N {
        black_box(now());
    }
    start.elapsed().as_nanos() as f64 / f64::from(N)
}

fn run_batch<I, R>(
    n: u64,
    setup: &mut impl FnMut() -> I,
    body: &mut impl FnMut(I) -> R,
) -> Duration {
    let inputs: Vec<I> = (0..n).map(|_| setup()).collect();
    let keep = std::mem::needs_drop::<R>();
    let mut outputs: Vec<R> = Vec::with_capacity(if keep { inputs.len() } else { 0 });
    let start = Instant::now();
    for input in inputs {
        let out = body(input);
        if keep {
            outputs.push(out);
        } else {
            black_box(out);
        }
    }
    let elapsed = start.elapsed();
    drop(outputs);
    elapsed
}

pub(crate) fn sample_batched<I, R>(
    config: &WalltimeConfig,
    setup: &mut impl FnMut() -> I,
    body: &mut impl FnMut(I) -> R,
) -> WalltimeSamples {
    let clock_overhead_ns = clock_overhead(Instant::now);
    let mut timed = |n| run_batch(n, setup, body);
    let sizing = warm_up(config, &mut timed);
    let mut samples = config.samples.max(1);
    if let Some(max) = config.max_time {
        let per_sample = sizing.per_iter_ns * sizing.iterations_per_sample as f64;
        let affordable = (ns(max) as f64 / per_sample) as u32;
        samples = samples.min(affordable.max(MIN_SAMPLES));
    }
    let sample_ns = (0..samples)
        .map(|_| one_sample(config, sizing.iterations_per_sample, &mut timed))
        .collect();
    sizing.samples(sample_ns, clock_overhead_ns)
}

/// Samples a body that times itself: `timed(n)` runs `n` iterations and returns how long the
/// part it chose to time took (criterion's `iter_custom`). Same warm-up and batch sizing as
/// [`sample_batched`], with the user's durations in place of the clock's.
pub(crate) fn sample_custom(
    config: &WalltimeConfig,
    timed: &mut impl FnMut(u64) -> Duration,
) -> WalltimeSamples {
    let clock_overhead_ns = clock_overhead(Instant::now);
    let sizing = warm_up(config, timed);
    let sampling_start = Instant::now();
    let sample_ns = (0..config.samples.max(1))
        .map_while(|i| {
            // The user's durations may leave out most of the time an iteration takes (its setup):
            // the cap is on the time that really passes.
            if let Some(max) = config.max_time {
                if i >= MIN_SAMPLES && sampling_start.elapsed() >= max {
                    return None;
                }
            }
            Some(one_sample(config, sizing.iterations_per_sample, timed))
        })
        .collect();
    sizing.samples(sample_ns, clock_overhead_ns)
}

/// What the warm-up learnt: the time of one iteration and how many make a sample.
struct Sizing {
    per_iter_ns: f64,
    warmup_iterations: u64,
    iterations_per_sample: u64,
}

impl Sizing {
    fn samples(self, sample_ns: Vec<u64>, clock_overhead_ns: f64) -> WalltimeSamples {
        WalltimeSamples {
            party: None,
            clock: Clock::Monotonic,
            iterations_per_sample: self.iterations_per_sample,
            sample_ns,
            warmup_iterations: self.warmup_iterations,
            clock_overhead_ns,
        }
    }
}

/// Runs batches of `timed(n)` iterations, doubling `n` while a batch is shorter than a sample's
/// target, until the warm-up time has passed; sizes a sample from the last batch's time per
/// iteration.
fn warm_up(config: &WalltimeConfig, timed: &mut impl FnMut(u64) -> Duration) -> Sizing {
    let warm_start = Instant::now();
    let mut batch = 1u64;
    let mut warmup_iterations = 0u64;
    let per_iter_ns = loop {
        let t = timed(batch);
        warmup_iterations += batch;
        let per_iter = (ns(t) as f64 / batch as f64).max(0.01);
        if warm_start.elapsed() >= config.warmup {
            break per_iter;
        }
        if t < config.sample_target {
            batch = batch.saturating_mul(2);
        }
    };
    Sizing {
        per_iter_ns,
        warmup_iterations,
        iterations_per_sample: ((ns(config.sample_target) as f64 / per_iter_ns).round() as u64)
            .max(1),
    }
}

/// One sample of `n` iterations, in lockstep with the other side when there is one.
fn one_sample(config: &WalltimeConfig, n: u64, timed: &mut impl FnMut(u64) -> Duration) -> u64 {
    if let Some(l) = &config.lockstep {
        l.wait();
    }
    let t = ns(timed(n));
    if let Some(l) = &config.lockstep {
        l.pass();
    }
    t
}

/// The clock a party's samples are taken with (see the module comment).
const PARTY_CLOCK: Clock = if cfg!(unix) {
    Clock::ThreadCpu
} else {
    Clock::Monotonic
};

/// CPU time of the calling thread.
#[cfg(unix)]
fn thread_cpu_now() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid out-pointer; CLOCK_THREAD_CPUTIME_ID exists on every Linux (and
    // on macOS since 10.12, the oldest Rust supports).
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Off Unix: monotonic time since the first call in this process ([`PARTY_CLOCK`] says so).
#[cfg(not(unix))]
fn thread_cpu_now() -> Duration {
    static EPOCH: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    EPOCH.get_or_init(Instant::now).elapsed()
}

const WARMUP: u8 = 0;
const SAMPLE: u8 = 1;
const STOP: u8 = 2;

/// Keeps the parties of one scenario in step.
#[derive(Debug)]
pub(crate) struct Coordinator {
    barrier: Barrier,
    phase: AtomicU8,
}

impl Coordinator {
    pub(crate) fn new(parties: usize) -> Coordinator {
        Coordinator {
            barrier: Barrier::new(parties),
            phase: AtomicU8::new(WARMUP),
        }
    }
}

pub(crate) fn sample_party<I, R>(
    config: &WalltimeConfig,
    co: &Coordinator,
    leader: bool,
    setup: &mut impl FnMut() -> I,
    body: &mut impl FnMut(I) -> R,
) -> WalltimeSamples {
    let clock_overhead_ns = clock_overhead(thread_cpu_now);
    let started = Instant::now();
    let mut sampling_started = None;
    let mut warmup_iterations = 0u64;
    let mut sample_ns = Vec::with_capacity(config.samples as usize);
    let mut phase = WARMUP;
    loop {
        let input = setup();
        co.barrier.wait();
        let t0 = thread_cpu_now();
        let out = body(input);
        let t = thread_cpu_now().saturating_sub(t0);
        drop(out);
        if phase == WARMUP {
            warmup_iterations += 1;
        } else {
            sample_ns.push(ns(t));
        }
        if leader {
            let next = match phase {
                WARMUP if started.elapsed() >= config.warmup => {
                    sampling_started = Some(Instant::now());
                    SAMPLE
                }
                WARMUP => WARMUP,
                _ => {
                    let n = sample_ns.len() as u32;
                    let out_of_time = match (config.max_time, sampling_started) {
                        (Some(max), Some(s)) => s.elapsed() >= max && n >= MIN_SAMPLES,
                        _ => false,
                    };
                    if n >= config.samples.max(1) || out_of_time {
                        STOP
                    } else {
                        SAMPLE
                    }
                }
            };
            co.phase.store(next, Ordering::SeqCst);
        }
        co.barrier.wait();
        phase = co.phase.load(Ordering::SeqCst);
        if phase == STOP {
            break;
        }
    }
    WalltimeSamples {
        party: None,
        clock: PARTY_CLOCK,
        iterations_per_sample: 1,
        sample_ns,
        warmup_iterations,
        clock_overhead_ns,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quick() -> WalltimeConfig {
        WalltimeConfig {
            samples: 20,
            warmup: Duration::from_millis(5),
            sample_target: Duration::from_micros(100),
            max_time: Some(Duration::from_secs(1)),
            lockstep: None,
        }
    }

    #[cfg(unix)]
    fn pipe() -> (i32, i32) {
        let mut fds = [0; 2];
        // SAFETY: `fds` is a valid two-element out-array.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        (fds[0], fds[1])
    }

    #[test]
    #[cfg(unix)]
    fn lockstep_sides_take_turns_and_survive_a_dead_peer() {
        use std::sync::{Arc, Mutex};
        // A ring of two: a -> b on one pipe, b -> a on the other; a holds the first token.
        let (ab_r, ab_w) = pipe();
        let (ba_r, ba_w) = pipe();
        // SAFETY: writing one byte from a live buffer to a pipe we own.
        assert_eq!(unsafe { libc::write(ba_w, [1u8].as_ptr().cast(), 1) }, 1);
        let log = Arc::new(Mutex::new(Vec::new()));
        let side = |name: char, read: i32, write: i32| {
            let log = log.clone();
            std::thread::spawn(move || {
                // No warm-up time: exactly one warm-up call, then the samples.
                let config = WalltimeConfig {
                    samples: 5,
                    warmup: Duration::ZERO,
                    max_time: None,
                    lockstep: Some(Lockstep { read, write }),
                    ..quick()
                };
                let t = sample_batched(&config, &mut || (), &mut |()| {
                    log.lock().unwrap().push(name)
                });
                t.sample_ns.len()
            })
        };
        let a = side('a', ba_r, ab_w);
        let b = side('b', ab_r, ba_w);
        assert_eq!((a.join().unwrap(), b.join().unwrap()), (5, 5));
        // Without each side's one warm-up call (which runs before it joins the ring), the calls
        // come in runs, one run per sample, alternating a, b, a, b...
        let log = log.lock().unwrap();
        let mut seen = Vec::new();
        let mut runs: Vec<char> = Vec::new();
        for &c in log.iter() {
            if !seen.contains(&c) {
                seen.push(c);
                continue;
            }
            if runs.last() != Some(&c) {
                runs.push(c);
            }
        }
        assert_eq!(runs.len(), 10, "{runs:?}");
        assert!(runs.windows(2).all(|w| w[0] != w[1]), "{runs:?}");
        // A peer that is gone: end of file on the token pipe, sampling goes on alone.
        let (r, w) = pipe();
        // SAFETY: closing a descriptor we own and no longer use.
        unsafe { libc::close(w) };
        let (_, w2) = pipe();
        let config = WalltimeConfig {
            samples: 3,
            lockstep: Some(Lockstep { read: r, write: w2 }),
            ..quick()
        };
        let s = sample_batched(&config, &mut || (), &mut |()| ());
        assert_eq!(s.sample_ns.len(), 3);
    }

    #[test]
    fn batches_are_sized_to_the_target() {
        let mut calls = 0u64;
        let s = sample_batched(&quick(), &mut || (), &mut |()| {
            calls += 1;
            black_box(calls)
        });
        assert_eq!(s.sample_ns.len(), 20);
        assert!(s.iterations_per_sample > 1, "a trivial body needs batching");
        assert_eq!(calls, s.warmup_iterations + 20 * s.iterations_per_sample);
    }

    #[test]
    fn outputs_that_need_drop_are_dropped_outside_the_clock() {
        let s = sample_batched(&quick(), &mut || vec![1u8; 16], &mut |v: Vec<u8>| v);
        assert_eq!(s.sample_ns.len(), 20);
    }

    #[test]
    fn parties_take_the_same_number_of_samples() {
        let co = std::sync::Arc::new(Coordinator::new(2));
        let cfg = quick();
        let handles: Vec<_> = (0..2)
            .map(|i| {
                let co = co.clone();
                let cfg = cfg.clone();
                std::thread::spawn(move || {
                    sample_party(&cfg, &co, i == 0, &mut || (), &mut |()| black_box(i))
                })
            })
            .collect();
        let r: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        assert_eq!(r[0].sample_ns.len(), 20);
        assert_eq!(r[1].sample_ns.len(), 20);
        assert_eq!(r[0].warmup_iterations, r[1].warmup_iterations);
    }
}
